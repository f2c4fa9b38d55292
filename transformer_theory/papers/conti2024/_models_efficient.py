"""Efficient attention measured against exact softmax attention (Conti 2024, §2.1).

Two measurements, each returning records (plots are drawn from them by :mod:`._plots`):

- :func:`error_vs_budget`: the relative error ``||Y - Y*||_F / ||Y*||_F`` of each variant's
  output ``Y`` against exact attention ``Y* = softmax(Q K^T / sqrt(E)) V``, as a function of the
  variant's budget, on given queries/keys/values (random ones from :func:`random_inputs`, or a
  trained model's from :mod:`transformer_theory.nn.activations`);
- :func:`cost_vs_length`: seconds per call and memory against the sequence length ``n``, with
  :func:`fit_slopes` for the log-log slopes. Memory is XLA's own account of the compiled program
  (``jax.jit(f).lower(...).compile().memory_analysis()``: argument + output + temporary buffers,
  minus aliased ones) -- the peak its buffer assignment plans, not a process RSS reading.

The variants (:data:`VARIANTS`), each with its budget:

==================  ============================================  ============================
name                what                                          budget
==================  ============================================  ============================
``sliding_window``  Longformer's local window, blocked            window ``w`` (``w/2`` a side)
``dilated_window``  Longformer's dilated window (dilation 2)      window ``w``
``longformer``      window + one global token (position 0)        window ``w``
``bigbird``         window 8 + one global token + random keys     random keys per query ``r``
``linformer``       keys/values mean-pooled to ``k'`` rows        rank ``k'``
``performer``       positive random features (FAVOR+)             features ``m``
``linear_elu``      linear attention, ``phi = elu + 1``           (none)
``taylor``          first-order Taylor, ``phi = [1, x/|x|]``      (none)
==================  ============================================  ============================

and, for the cost only, ``dense`` (``jax.nn.dot_product_attention``, the reference) and
``window_dense_mask`` (the sliding window through a dense ``n x n`` mask: what a Longformer that
builds the mask costs).

How much memory and time both measurements need, from the shapes alone, is :mod:`._theory_cost`;
the study the ``efficient-attention`` command runs (random and trained inputs, files) is
:mod:`._study_efficient_attention` (its settings: :mod:`.experiments.efficient_attention`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import platform
import time
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.core import blocked, kernels, linear, masks, positional, random_features
from transformer_theory.papers.conti2024._records import CostRow, ErrorAtBudget
from transformer_theory.papers.conti2024._theory_cost import (
    BIGBIRD_WINDOW,
    BUDGET_KINDS,
    COST_BUDGETS,
    GLOBAL,
    default_budgets,
)

__all__ = [
    "APPROXIMATIONS",
    "BIGBIRD_WINDOW",
    "COST_BUDGETS",
    "GLOBAL",
    "VARIANTS",
    "AttentionFn",
    "Machine",
    "Variant",
    "cost_vs_length",
    "default_budgets",
    "error_vs_budget",
    "exact_attention",
    "fit_slopes",
    "machine",
    "measure_cost",
    "pooling_projection",
    "random_inputs",
    "relative_error",
]

AttentionFn = Callable[[jax.Array, jax.Array, jax.Array], jax.Array]


@dataclasses.dataclass(frozen=True)
class Variant:
    """An attention variant: ``build(budget, n, key) -> fn(q_NxE, k_NxE, v_NxD) -> out_NxD``."""

    name: str
    budget: str | None
    build: Callable[[int | None, int, jax.Array], AttentionFn]


def _sliding(budget, n, key):
    return lambda q, k, v: blocked.sliding_window_attention(q, k, v, budget)


def _dilated(budget, n, key):
    return lambda q, k, v: blocked.sliding_window_attention(q, k, v, budget, dilation=2)


def _longformer(budget, n, key):
    return lambda q, k, v: blocked.longformer_attention(q, k, v, budget, GLOBAL)


def _bigbird(budget, n, key):
    keys = blocked.random_keys(key, n, min(budget, n))
    return lambda q, k, v: blocked.bigbird_attention(
        q, k, v, min(BIGBIRD_WINDOW, 2 * n), GLOBAL, keys
    )


def pooling_projection(rank: int, n: int) -> np.ndarray:
    """``(rank, n)``: row ``r`` averages the positions ``[r n / rank, (r + 1) n / rank)``."""
    _validate.check_positive("rank", rank)
    _validate.check_positive("n", n)
    rank = min(rank, n)
    seg = (np.arange(n) * rank) // n
    p = (seg[None, :] == np.arange(rank)[:, None]).astype(np.float32)
    return p / p.sum(axis=1, keepdims=True)


def _linformer(budget, n, key):
    # Linformer learns E and F; untrained, mean pooling along the sequence is the projection that
    # keeps outputs on the scale of the values (Gaussian JL projections with N(0, 1/k') entries
    # scale the pooled values by sqrt(n / k') and gave errors of 1.4-150x the output's norm on
    # random inputs at n = 256 -- measured; see the README section).
    e = jnp.asarray(pooling_projection(budget, n))
    return lambda q, k, v: linear.linformer_attention(
        q, k, v, e.astype(q.dtype), e.astype(q.dtype)
    )[0]


def _performer(budget, n, key):
    def fn(q, k, v):
        omega = random_features.random_directions(key, budget, q.shape[1], q.dtype)
        return linear.linear_attention(q, k, v, random_features.positive_random_features(omega))

    return fn


def _linear_elu(budget, n, key):
    return lambda q, k, v: linear.linear_attention(q, k, v, kernels.elu_plus_one)


def _taylor(budget, n, key):
    return lambda q, k, v: linear.taylor_attention(q, k, v)


def exact_attention(q_NxE: jax.Array, k_NxE: jax.Array, v_NxD: jax.Array) -> jax.Array:
    """``softmax(Q K^T / sqrt(E)) V`` by ``jax.nn.dot_product_attention`` (one head)."""
    return jax.nn.dot_product_attention(q_NxE[:, None], k_NxE[:, None], v_NxD[:, None])[:, 0]


def _dense(budget, n, key):
    return exact_attention


def _window_dense_mask(budget, n, key):
    def fn(q, k, v):
        mask = masks.sliding_window_mask(q.shape[0], budget)
        return jax.nn.dot_product_attention(q[:, None], k[:, None], v[:, None], mask=mask[None])[
            :, 0
        ]

    return fn


VARIANTS: dict[str, Variant] = {
    name: Variant(name, BUDGET_KINDS[name], build)
    for name, build in (
        ("sliding_window", _sliding),
        ("dilated_window", _dilated),
        ("longformer", _longformer),
        ("bigbird", _bigbird),
        ("linformer", _linformer),
        ("performer", _performer),
        ("linear_elu", _linear_elu),
        ("taylor", _taylor),
        ("dense", _dense),
        ("window_dense_mask", _window_dense_mask),
    )
}
APPROXIMATIONS = tuple(VARIANTS)[:8]


def random_inputs(
    key: jax.Array, batch: int, n: int, dim: int, kind: str = "iid"
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Queries, keys and values ``(batch, n, dim)`` (float32).

    ``"iid"``: standard normal entries -- scores ``q . k / sqrt(E)`` are ``N(0, 1)``, attention is
    spread over the whole sequence (the hard case for sparse patterns). ``"local"``: queries and
    keys both the sinusoidal code of the position (Conti 2024, eq. 1) scaled so that a query's
    score falls by several nats within a few positions, plus standard normal noise of scale 0.3 --
    attention concentrated near the diagonal (the case sliding windows are built for). Values are
    standard normal in both.
    """
    _validate.check_positive("batch", batch)
    _validate.check_positive("n", n)
    _validate.check_positive("dim", dim)
    _validate.check_choice("kind", kind, ("iid", "local"))
    kq, kk, kv = jax.random.split(key, 3)
    v = jax.random.normal(kv, (batch, n, dim))
    if kind == "iid":
        return jax.random.normal(kq, (batch, n, dim)), jax.random.normal(kk, (batch, n, dim)), v
    if dim % 2:
        raise ValueError(f"dim: the sinusoidal code needs an even width, got {dim}")
    pe = positional.sinusoidal(n, dim)
    # The peak score at j = i is alpha^2 (dim / 2) / sqrt(dim); alpha^2 = 16 / sqrt(dim) puts it
    # at 8 nats above the mean score.
    alpha = jnp.sqrt(16.0 / jnp.sqrt(dim))
    noise = 0.3 * jax.random.normal(kq, (2, batch, n, dim))
    return alpha * pe[None] + noise[0], alpha * pe[None] + noise[1], v


def random_sources(
    seed: int, batch: int, n: int, dim: int
) -> list[tuple[str, jax.Array, jax.Array, jax.Array]]:
    """``batch`` random draws of each kind of :func:`random_inputs` (``iid``, then ``local``),
    labelled for the error study: ``[(label, q, k, v)]``, the draw of index ``i`` keyed by
    ``fold_in(key(seed), i)``."""
    key = jax.random.key(seed)
    return [
        (f"random {kind}, n={n}", *random_inputs(jax.random.fold_in(key, i), batch, n, dim, kind))
        for i, kind in enumerate(("iid", "local"))
    ]


def relative_error(approx_BxNxD: ArrayLike, exact_BxNxD: ArrayLike) -> np.ndarray:
    """``||Y - Y*||_F / ||Y*||_F`` per example, in float64 on the host."""
    a, e = np.asarray(approx_BxNxD, np.float64), np.asarray(exact_BxNxD, np.float64)
    num = np.sqrt(((a - e) ** 2).sum(axis=(1, 2)))
    return num / np.maximum(np.sqrt((e**2).sum(axis=(1, 2))), 1e-30)


def error_vs_budget(
    q_BxNxE: ArrayLike,
    k_BxNxE: ArrayLike,
    v_BxNxD: ArrayLike,
    *,
    variants: Sequence[str] = APPROXIMATIONS,
    budgets: dict[str, Sequence[int | None]] | None = None,
    seed: int = 0,
    label: str = "inputs",
) -> list[ErrorAtBudget]:
    """Relative output error of each variant at each budget, against exact attention.

    Args:
      q_BxNxE, k_BxNxE, v_BxNxD: ``B`` examples (heads, sentences or random draws).
      variants: names from :data:`VARIANTS`.
      budgets: variant -> budgets (default :func:`default_budgets` at this ``n``).
      seed: seeds the random variants (random keys, features); the same seed, variant, budget
        and length give the same random pattern, so inputs of one shape share compiled code.
      label: names the inputs in the records.
    Returns:
      one :class:`.._records.ErrorAtBudget` per variant and budget: ``error`` the mean over
      examples.
    """
    q, k, v = (jnp.asarray(x, jnp.float32) for x in (q_BxNxE, k_BxNxE, v_BxNxD))
    for name, x in (("q_BxNxE", q), ("k_BxNxE", k), ("v_BxNxD", v)):
        _validate.check_ndim(name, x, 3)
    if q.shape != k.shape or v.shape[:2] != q.shape[:2]:
        raise ValueError(
            f"k_BxNxE: expected queries, keys and values of one batch and length, got {q.shape}, "
            f"{k.shape}, {v.shape}"
        )
    n = q.shape[1]
    exact = _batched("dense", None, n, seed)(q, k, v)
    records = []
    for name in variants:
        if name not in VARIANTS:
            raise ValueError(f"variants: unknown {name!r}; choose from {tuple(VARIANTS)}")
        var = VARIANTS[name]
        for budget in (budgets or {}).get(name, default_budgets(name, n)):
            out = _batched(name, budget, n, seed)(q, k, v)
            err = relative_error(out, exact)
            records.append(
                ErrorAtBudget(
                    inputs=label,
                    variant=name,
                    budget_kind=var.budget,
                    budget=budget,
                    n=int(n),
                    examples=int(q.shape[0]),
                    error=float(err.mean()),
                    error_max=float(err.max()),
                )
            )
    return records


@functools.lru_cache(maxsize=512)
def _batched(name: str, budget: int | None, n: int, seed: int) -> AttentionFn:
    """The variant, vmapped over a batch and jitted, built once per (variant, budget, n, seed)."""
    key = jax.random.fold_in(jax.random.key(seed), list(VARIANTS).index(name))
    return jax.jit(jax.vmap(VARIANTS[name].build(budget, n, key)))


def measure_cost(fn: AttentionFn, n: int, dim: int, repeats: int = 3) -> dict:
    """Compile ``fn`` for ``(n, dim)`` float32 inputs; return the median and minimum seconds of
    ``repeats`` calls, the compile seconds and XLA's memory account (see the module docstring)."""
    _validate.check_positive("repeats", repeats)
    x = jax.random.normal(jax.random.key(n), (3, n, dim))
    t0 = time.perf_counter()
    compiled = jax.jit(fn).lower(x[0], x[1], x[2]).compile()
    compile_seconds = time.perf_counter() - t0
    mem = compiled.memory_analysis()
    jax.block_until_ready(compiled(x[0], x[1], x[2]))  # warm up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(compiled(x[0], x[1], x[2]))
        times.append(time.perf_counter() - t0)
    out = dict(
        seconds=float(np.median(times)),
        seconds_min=float(np.min(times)),
        compile_seconds=round(compile_seconds, 3),
    )
    if mem is not None:
        out.update(
            xla_bytes=int(
                mem.argument_size_in_bytes
                + mem.output_size_in_bytes
                + mem.temp_size_in_bytes
                - mem.alias_size_in_bytes
            ),
            temp_bytes=int(mem.temp_size_in_bytes),
        )
    return out


def cost_vs_length(
    lengths: Sequence[int],
    *,
    variants: Sequence[str] = tuple(VARIANTS),
    budgets: dict[str, int | None] | None = None,
    dim: int = 64,
    repeats: int = 3,
    max_dense_len: int | None = None,
    on_record: Callable[[CostRow], None] | None = None,
) -> list[CostRow]:
    """Time and memory of each variant at each length (one head, width ``dim``).

    Args:
      lengths: sequence lengths ``n``.
      variants: names from :data:`VARIANTS`.
      budgets: variant -> fixed budget (default :data:`COST_BUDGETS`).
      dim: query/key/value width.
      repeats: timed calls per point (the median is reported).
      max_dense_len: skip the quadratic variants (``dense``, ``window_dense_mask``) above this.
      on_record: called with each record as it is measured (progress).
    Returns:
      one :class:`.._records.CostRow` per length and variant.
    """
    budgets = {**COST_BUDGETS, **(budgets or {})}
    records = []
    for n in lengths:
        _validate.check_positive("lengths", n)
        for name in variants:
            if name not in VARIANTS:
                raise ValueError(f"variants: unknown {name!r}; choose from {tuple(VARIANTS)}")
            quadratic = name in ("dense", "window_dense_mask")
            if quadratic and max_dense_len is not None and n > max_dense_len:
                continue
            budget = budgets[name]
            fn = VARIANTS[name].build(budget, n, jax.random.key(1))
            rec = CostRow(name, budget, int(n), int(dim), **measure_cost(fn, n, dim, repeats))
            records.append(rec)
            if on_record is not None:
                on_record(rec)
    return records


def fit_slopes(
    records: Sequence[CostRow],
    keys: Sequence[str] = ("seconds", "xla_bytes"),
    min_n: int = 1024,
    min_points: int = 2,
) -> dict[str, dict[str, float]]:
    """Least-squares slope of ``log(value)`` against ``log(n)`` per variant, over ``n >= min_n``
    (1 = linear, 2 = quadratic); variants with fewer than ``min_points`` distinct such lengths
    are left out (a slope through one point is undefined; through two it has no check).
    ``keys``: the fields of :class:`.._records.CostRow` fitted."""
    if not (isinstance(min_points, int) and min_points >= 2):
        raise ValueError(f"min_points: expected an integer >= 2, got {min_points!r}")
    out: dict[str, dict[str, float]] = {}
    for name in dict.fromkeys(r.variant for r in records):
        rs = [r for r in records if r.variant == name and r.n >= min_n]
        if len({r.n for r in rs}) < min_points:
            continue
        out[name] = {}
        for key in keys:
            pts = [(r.n, getattr(r, key)) for r in rs if getattr(r, key)]
            if len({p[0] for p in pts}) >= min_points:
                x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
                out[name][key] = float(np.polyfit(x, y, 1)[0])
    return out


@dataclasses.dataclass(frozen=True)
class Machine:
    """Where the costs were measured (``cost.json``'s ``machine``)."""

    backend: str
    devices: tuple[str, ...]
    cpu_count: int | None
    platform: str


def machine() -> Machine:
    """Where the costs were measured: JAX's backend and devices, CPU count, platform."""
    return Machine(
        backend=jax.default_backend(),
        devices=tuple(str(d) for d in jax.devices()),
        cpu_count=os.cpu_count(),
        platform=platform.platform(),
    )
