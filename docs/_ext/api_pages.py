"""Sphinx extension: the API reference's index (``docs/api.md``), generated from the package.

At ``config-inited`` (before autosummary looks for what to generate) this walks
``transformer_theory`` and writes ``docs/api.md`` (ignored by git): every public module (no
component of its name starts with ``_``), grouped by layer, each with its docstring's first line
(autosummary's table). The layers are read from the package's own docstring, whose paragraphs name
the spine, the claims ledger and the shared helpers (``:mod:`` references, in their order); each
paper package under ``transformer_theory.papers`` is its own group, ``transformer_theory.cli`` is
"The commands", and a public module the docstring does not name lands under "Other modules", so a
renamed, added or privatised module is followed without editing anything here.

Objects a public module re-exports (its ``__all__``) from a private one (``_impl.py`` behind a
curated ``__init__``) are documented on the public module's page, once, under its public name:
:func:`reexports` gives the module template (``docs/_templates/autosummary/module.rst``) the list.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
ROOT_PACKAGE = "transformer_theory"


def public_modules(package: str = ROOT_PACKAGE) -> list[str]:
    """Every importable module under ``package`` none of whose name's components is private,
    sorted; a module that fails to import is left out here (autodoc reports it)."""
    root = importlib.import_module(package)
    found = [package]
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        if info.name.endswith(".__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 (a module that cannot import is autodoc's to report)
            continue
        found.append(info.name)
    return sorted(found)


def summary(module: str) -> str:
    """The first paragraph of a module's docstring, its lines joined."""
    doc = (inspect.getdoc(importlib.import_module(module)) or "").strip()
    return " ".join(doc.split("\n\n", 1)[0].split())


def _named_in(paragraph: str) -> list[str]:
    names = re.findall(r":mod:`~?([\w.]+)`", paragraph)
    return list(dict.fromkeys(n.split(".")[1] for n in names if n.count(".") >= 1))


def layers(modules: list[str]) -> list[tuple[str, str, list[str]]]:
    """``(title, intro, modules)`` per group, in reading order."""
    doc = importlib.import_module(ROOT_PACKAGE).__doc__ or ""
    paragraphs = re.split(r"\n\s*\n", doc)
    named: dict[str, list[str]] = {"spine": [], "ledger": [], "helpers": [], "": []}
    current = ""  # a paragraph that opens a layer; the lists after it belong to it
    for paragraph in paragraphs:
        text = paragraph.strip()
        if text.startswith("The spine"):
            current = "spine"
        elif "claims ledger" in text:
            current = "ledger"
        elif text.startswith("Shared helpers"):
            current = "helpers"
        elif not text.startswith("-"):
            current = ""
        named[current] += _named_in(paragraph)
    spine = [n for n in named["spine"] if n not in ("cli", "papers")]
    ledger = [n for n in named["ledger"] if n != "papers"]
    helpers = named["helpers"]

    def top(name: str) -> str:
        return name.split(".")[1] if "." in name else ""

    def under(tops: list[str]) -> list[str]:
        return [m for t in tops for m in modules if top(m) == t]

    groups = [
        (
            "The spine",
            "Chen & Zou 2024's pipeline, in order: the forward pass, parameters, tasks, "
            "the theory and the constructions, the trainable modules, training and the sweeps.",
            under(spine),
        ),
        (
            "The claims ledger",
            "What a claim is and the rule that derives its status, the exact "
            "engine, and every registered claim.",
            under(ledger),
        ),
        ("Shared helpers", "One module each, used by every layer.", under(helpers)),
    ]
    groups.append(("The papers", summary(f"{ROOT_PACKAGE}.papers"), [f"{ROOT_PACKAGE}.papers"]))
    papers = sorted({m.split(".")[2] for m in modules if m.count(".") >= 2 and top(m) == "papers"})
    for paper in papers:
        name = f"{ROOT_PACKAGE}.papers.{paper}"
        mine = [m for m in modules if m == name or m.startswith(name + ".")]
        groups.append((f"Paper: {paper}", summary(name), mine))
    groups.append(("The commands", summary(f"{ROOT_PACKAGE}.cli"), under(["cli"])))
    groups[0][2].insert(0, ROOT_PACKAGE)
    placed = {m for _, _, ms in groups for m in ms}
    rest = [m for m in modules if m not in placed]
    if rest:
        groups.append(
            ("Other modules", "Public modules the package docstring does not place.", rest)
        )
    return [g for g in groups if g[2]]


def api_page(modules: list[str] | None = None) -> str:
    """The text of ``docs/api.md``."""
    modules = public_modules() if modules is None else modules
    lines = [
        "# API reference",
        "",
        "<!-- Generated by docs/_ext/api_pages.py at every build (not committed): edit the "
        "docstrings instead. -->",
        "",
        "Every public module, grouped by layer, with the first line of its docstring; each links",
        "to its page (generated from the docstrings, Google style). A package's page also "
        "documents what",
        "its `__all__` re-exports from private modules. The layers follow the package docstring:",
        "the spine, the claims ledger, the shared helpers, then one group per paper and the "
        "commands.",
    ]

    def table(mods: list[str]) -> list[str]:
        body = ["```{eval-rst}", ".. autosummary::", "   :toctree: _autosummary", ""]
        return body + [f"   {m}" for m in mods] + ["```"]

    for title, intro, mods in layers(modules):
        lines += ["", f"## {title}", ""]
        if intro:
            lines += [intro, ""]
        if title != "The spine":
            lines += table(mods)
            continue
        # the spine is long: one table per package, in the pipeline's order
        packages = list(dict.fromkeys(".".join(m.split(".")[:2]) for m in mods))
        for package in packages:
            mine = [m for m in mods if m == package or m.startswith(package + ".")]
            if package == ROOT_PACKAGE:
                mine = [package]
            lines += ["", f"### `{package}`", ""] + table(mine)
    return "\n".join(lines) + "\n"


def reexports(modules: list[str]) -> dict[str, list[tuple[str, str]]]:
    """``public module -> [(name, directive)]``: the objects in its ``__all__`` defined in a private
    module, each assigned to the shallowest public module that exports it (documented once)."""
    owner: dict[int, tuple[str, str, str]] = {}
    for module in sorted(modules, key=lambda m: (m.count("."), m)):
        mod = importlib.import_module(module)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            home = getattr(obj, "__module__", None) or ""
            if inspect.ismodule(obj) or not home.startswith(ROOT_PACKAGE):
                continue
            if not any(part.startswith("_") for part in home.split(".")[1:]):
                continue
            if id(obj) in owner:
                continue
            kind = (
                "autoclass"
                if inspect.isclass(obj)
                else "autofunction"
                if callable(obj)
                else "autodata"
            )
            owner[id(obj)] = (module, name, kind)
    out: dict[str, list[tuple[str, str]]] = {}
    for module, name, kind in owner.values():
        out.setdefault(module, []).append((name, kind))
    return out


def curated_faces(modules: list[str]) -> dict[str, list[tuple[str, str]]]:
    """``public module -> [(name, target)]``: every name of its ``__all__`` (its curated face) that
    is documented elsewhere, with the page it is documented on: a class or function defined in
    another public module (``transformer_theory.theory.checks.Family`` is documented in
    ``...checks.families``). A package's page lists them all, so its face shows every public name
    even where the objects live in submodules (names from private modules are documented on the
    page itself, :func:`reexports`; submodules are listed as modules)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for module in modules:
        mod = importlib.import_module(module)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            if obj is None or inspect.ismodule(obj):
                continue
            home = getattr(obj, "__module__", None) or ""
            qualname = getattr(obj, "__qualname__", None)
            if not home.startswith(ROOT_PACKAGE) or home == module or qualname is None:
                continue
            if any(part.startswith("_") for part in home.split(".")[1:]):
                continue  # documented on this page (reexports)
            if "<" in qualname:
                continue
            out.setdefault(module, []).append((name, f"{home}.{qualname}"))
    return out


def _generate(app, config) -> None:  # noqa: ANN001 (Sphinx's event)
    modules = public_modules()
    text = api_page(modules)
    path = DOCS / "api.md"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    config.autosummary_context = {
        **config.autosummary_context,
        "reexports": reexports(modules),
        "faces": curated_faces(modules),
    }


def setup(app):  # noqa: ANN001, ANN201 (Sphinx's entry point)
    app.connect("config-inited", _generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
