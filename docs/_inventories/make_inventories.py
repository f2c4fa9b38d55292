"""Write the small local intersphinx inventories the docs fall back to without network.

``python docs/_inventories/make_inventories.py`` rewrites ``python.inv``, ``numpy.inv``,
``jax.inv``, ``flax.inv`` and ``optax.inv`` beside this file. Each lists only the objects this
library's API pages refer to, at the address the project's own documentation gives them (Sphinx
inventory format version 2). With network, ``docs/conf.py`` uses the projects' full online
inventories first; these are the fallback, so that the offline build resolves the same names.
"""

import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent

_PY_FUNCS = "library/functions.html"
_PY_TYPES = "library/stdtypes.html"
# (name, role, path relative to the project's root URL); "$" in the path stands for the name.
INVENTORIES: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "python": (
        "Python",
        [
            ("int", "py:class", f"{_PY_FUNCS}#$"),
            ("float", "py:class", f"{_PY_FUNCS}#$"),
            ("bool", "py:class", f"{_PY_FUNCS}#$"),
            ("str", "py:class", f"{_PY_TYPES}#$"),
            ("bytes", "py:class", f"{_PY_TYPES}#$"),
            ("list", "py:class", f"{_PY_TYPES}#$"),
            ("tuple", "py:class", f"{_PY_TYPES}#$"),
            ("dict", "py:class", f"{_PY_TYPES}#$"),
            ("set", "py:class", f"{_PY_TYPES}#$"),
            ("frozenset", "py:class", f"{_PY_TYPES}#$"),
            ("object", "py:class", f"{_PY_FUNCS}#$"),
            ("None", "py:data", "library/constants.html#$"),
            ("ValueError", "py:exception", "library/exceptions.html#$"),
            ("TypeError", "py:exception", "library/exceptions.html#$"),
            ("RuntimeError", "py:exception", "library/exceptions.html#$"),
            ("Exception", "py:exception", "library/exceptions.html#$"),
            ("pathlib.Path", "py:class", "library/pathlib.html#$"),
            ("typing.Any", "py:data", "library/typing.html#$"),
            ("typing.Literal", "py:data", "library/typing.html#$"),
            ("typing.NamedTuple", "py:class", "library/typing.html#$"),
            ("collections.abc.Callable", "py:class", "library/collections.abc.html#$"),
            ("collections.abc.Iterable", "py:class", "library/collections.abc.html#$"),
            ("collections.abc.Iterator", "py:class", "library/collections.abc.html#$"),
            ("collections.abc.Mapping", "py:class", "library/collections.abc.html#$"),
            ("collections.abc.Sequence", "py:class", "library/collections.abc.html#$"),
            ("dataclasses.dataclass", "py:function", "library/dataclasses.html#$"),
            ("fractions.Fraction", "py:class", "library/fractions.html#$"),
            ("argparse.ArgumentParser", "py:class", "library/argparse.html#$"),
            ("argparse.Namespace", "py:class", "library/argparse.html#$"),
            ("doctest", "py:module", "library/doctest.html#module-$"),
        ],
    ),
    "numpy": (
        "NumPy",
        [
            ("numpy.ndarray", "py:class", "reference/generated/$.html#$"),
            ("numpy.float64", "py:attribute", "reference/arrays.scalars.html#$"),
            ("numpy.random.Generator", "py:class", "reference/random/generator.html#$"),
            ("numpy.dtype", "py:class", "reference/generated/$.html#$"),
        ],
    ),
    "jax": (
        "JAX",
        [
            ("jax.Array", "py:class", "_autosummary/$.html#$"),
            ("jax.jit", "py:function", "_autosummary/$.html#$"),
            ("jax.vmap", "py:function", "_autosummary/$.html#$"),
            ("jax.numpy.ndarray", "py:attribute", "_autosummary/$.html#$"),
            ("jax.random.key", "py:function", "_autosummary/$.html#$"),
            ("jax.sharding.Mesh", "py:class", "jax.sharding.html#$"),
        ],
    ),
    "flax": (
        "Flax",
        [
            ("flax.nnx.Module", "py:class", "api_reference/flax.nnx/module.html#$"),
            ("flax.nnx.Rngs", "py:class", "api_reference/flax.nnx/rnglib.html#$"),
        ],
    ),
    "optax": (
        "Optax",
        [
            ("optax.GradientTransformation", "py:class", "api/transformations.html#$"),
            ("optax.adam", "py:function", "api/optimizers.html#$"),
            ("optax.adamw", "py:function", "api/optimizers.html#$"),
            ("optax.sgd", "py:function", "api/optimizers.html#$"),
        ],
    ),
}


def inventory_bytes(project: str, entries: list[tuple[str, str, str]]) -> bytes:
    """The inventory file of ``entries`` (Sphinx's format version 2)."""
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n"
        "# Version: \n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    body = "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in entries)
    return header.encode() + zlib.compress(body.encode())


def main() -> None:
    """Write every inventory beside this file."""
    for key, (project, entries) in INVENTORIES.items():
        (HERE / f"{key}.inv").write_bytes(inventory_bytes(project, entries))


if __name__ == "__main__":
    main()
