"""Tolerances, verdicts and the entry points: :func:`check_family` (every applicable proposition of
a family on a batch of models) and :func:`random_models`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.typing import DTypeLike

from transformer_theory import _validate
from transformer_theory.params import ModelConfig, ModelParams, init_params_batch
from transformer_theory.theory import dependence as dep
from transformer_theory.theory.checks import families
from transformer_theory.theory.checks.affine import affine_residuals, independent_columns
from transformer_theory.theory.checks.families import TOL_SAFETY, Family, prop_target
from transformer_theory.theory.checks.outputs import (
    _check_params,
    _chunk_width,
    set_residuals_multi,
)

if TYPE_CHECKING:
    from transformer_theory.tasks import Task


# --------------------------------------------------------------------------------------------
# Tolerances and verdicts
# --------------------------------------------------------------------------------------------
def set_tolerance(dtype: DTypeLike, config: ModelConfig) -> float:
    """``16 * eps * (D + N + C)``: a heuristic with a measured margin (module docstring of
    :mod:`transformer_theory.theory.checks`)."""
    eps = float(jnp.finfo(dtype).eps)
    return TOL_SAFETY * eps * (config.width + config.seq_len + config.num_classes)


def affine_tolerance(
    dtype: DTypeLike, config: ModelConfig, rank: int, num_chunks: int = 1
) -> float:
    """``16 * eps * (D + N + C + p) * sqrt(s)``: the set tolerance plus Householder QR's ``~p eps``
    backward error per TSQR step, the ``s`` steps' errors assumed to add like a random walk (a
    heuristic with a measured margin, like :func:`set_tolerance`)."""
    eps = float(jnp.finfo(dtype).eps)
    return (
        TOL_SAFETY
        * eps
        * (config.width + config.seq_len + config.num_classes + rank)
        * float(np.sqrt(max(1, num_chunks)))
    )


@dataclasses.dataclass(frozen=True)
class Verdict:
    """One row of the verification table.

    ``holds`` means ``max_residual <= tolerance``; ``expected`` says whether the theorem's scope
    predicts it; a verdict is a *failure* (a bug or a discovery) when expected but not holding.
    """

    proposition: str
    family: str
    attention: str
    heads: str
    layers: int
    models: int
    sets: int
    max_residual: float
    tolerance: float
    holds: bool
    expected: bool
    dataset: str = ""
    precision: str = "float64"

    @property
    def failed(self) -> bool:
        return self.expected and not self.holds

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["kind"] = "proposition"
        return d


def _verdict(prop, fam: Family, cfg, models, sets, resid, tol, dataset, dtype) -> Verdict:
    mx = float(np.max(resid)) if np.size(resid) else 0.0
    if not np.isfinite(mx):
        mx = float("inf")
    return Verdict(
        proposition=prop,
        family=fam.name,
        attention=fam.attention,
        heads=",".join(map(str, cfg.heads)),
        layers=cfg.depth,
        models=int(models),
        sets=int(sets),
        max_residual=mx,
        tolerance=float(tol),
        holds=bool(mx <= tol),
        expected=fam.in_scope(prop),
        dataset=dataset,
        precision=str(jnp.dtype(dtype)),
    )


def check_family(
    family: families.Family,
    params_M: ModelParams,
    sets: Sequence[dep.DependentSet] = (),
    data: np.ndarray | jax.Array | Task | None = None,
    *,
    dataset: str = "",
    chunk_size: int = 4096,
    columns: tuple[np.ndarray, int] | None = None,
    mesh: Mesh | None = None,
    progress: bool = False,
) -> list[Verdict]:
    """Every applicable proposition of ``family`` on dependent ``sets`` and the affine form on
    ``data``.

    One compiled program per family and dataset: the sets and the dataset's chunks are padded to
    one width, and the set statistics of all propositions come from one pass of model outputs.

    Args:
      family: the family (decides which propositions are reported and which are expected).
      params_M: ``M`` models of ``family.config(...)`` (random, constructed or trained).
      sets: dependent sets sharing ``(V, N)`` with the models.
      data: optional whole dataset for the affine form (tokens ``(B, N)`` or a task); skipped when
        its sequences have no dependence (``B == p``: nothing to test).
      dataset: a name for the records.
      chunk_size: rows per device call (the memory bound).
      columns: precomputed :func:`independent_columns` of ``data`` (reuse it across families).
      mesh: optional :func:`transformer_theory.parallel.make_mesh` mesh.
      progress: tqdm bar over the dataset's chunks.

    Example:
      Props. 7 and 8 on 64 random one-layer ReLU models with 3 heads (as README's "From Python"):

      >>> import jax
      >>> from transformer_theory import precision
      >>> precision.enable_x64()  # an entry point's line (a script, a notebook's first cell)
      >>> from transformer_theory.theory import dependence
      >>> fam = Family("relu-3h", attention="relu", heads=(3,))
      >>> models = random_models(
      ...     fam, vocab_size=3, seq_len=3, num_classes=2, key=jax.random.key(0), num_models=64
      ... )
      >>> verdicts = check_family(fam, models, [dependence.paper_example()])
      >>> [(v.proposition, v.holds, v.max_residual < 1e-15) for v in verdicts]
      [('7', True, True), ('8', True, True)]
    """
    cfg = _check_params(params_M)
    mismatched = family.mismatches(cfg)
    if mismatched:
        raise ValueError(
            f"params_M: not models of family {family.name!r}: " + ", ".join(mismatched)
        )
    dtype = params_M.w_o.dtype
    M = params_M.batch_shape[0]
    props = family.propositions()
    set_props = [q for q in props if q != "affine"]
    rows = 0
    tok = lam = None
    if sets:
        tok, lam = dep.stack_sets(list(sets))
        rows = tok.shape[0] * tok.shape[1]
    if data is not None and columns is None:
        columns = independent_columns(data, cfg.vocab_size, chunk_size=chunk_size)
    if data is not None:
        rows = max(rows, columns[1])
    if rows == 0:
        return []
    width = _chunk_width(rows, chunk_size, mesh)
    if tok is not None:
        width = max(width, _chunk_width(tok.shape[1], chunk_size, mesh))
    out = []
    if tok is not None and set_props:
        specs = [(prop_target(q), family.weighted(q)) for q in set_props]
        res = set_residuals_multi(
            params_M, tok, lam, specs, chunk_size=chunk_size, width=width, mesh=mesh
        )
        tol = set_tolerance(dtype, cfg)
        out += [
            _verdict(q, family, cfg, M, len(tok), r, tol, dataset, dtype)
            for q, r in zip(set_props, res)
        ]
    if "affine" in props and data is not None and columns[1] > len(columns[0]):
        res = affine_residuals(
            params_M,
            data,
            target="logits",
            weighted=family.weighted("affine"),
            chunk_size=chunk_size,
            width=width,
            columns=columns,
            mesh=mesh,
            progress=progress,
        )
        tol = affine_tolerance(dtype, cfg, res.rank, res.num_chunks)
        out.append(
            _verdict("affine", family, cfg, M, res.relations, res.residual_M, tol, dataset, dtype)
        )
    return out


def random_models(
    family: families.Family,
    vocab_size: int,
    seq_len: int,
    num_classes: int,
    key: jax.Array | int | np.integer,
    num_models: int,
    dtype: DTypeLike = jnp.float64,
) -> ModelParams:
    """``num_models`` random models of ``family`` for a dataset's ``(V, N, C)``.

    Same distribution as ``init_params(scheme="normal")`` (weights ``N(0, 1/fan_in)``, norm gains 1,
    biases 0), drawn with NumPy from ``key`` (a JAX key or an int): XLA compiles of the threefry
    RNG cost seconds per config on CPU, which would dominate a verification run of many families.
    """
    _validate.check_positive("num_models", num_models)
    cfg = family.config(vocab_size, seq_len, num_classes)
    shapes = jax.eval_shape(
        lambda k: init_params_batch(k, cfg, int(num_models), dtype=dtype), jax.random.PRNGKey(0)
    )
    rng = dep.numpy_rng(key)

    def draw(path, leaf):
        name = jax.tree_util.keystr(path)
        if name.endswith(".scale"):
            return jnp.ones(leaf.shape, leaf.dtype)
        if name.endswith((".bias", ".b1", ".b2")):
            return jnp.zeros(leaf.shape, leaf.dtype)
        fan_in = leaf.shape[-1]
        return jnp.asarray(rng.standard_normal(leaf.shape) / np.sqrt(fan_in), leaf.dtype)

    return jax.tree_util.tree_map_with_path(draw, shapes)
