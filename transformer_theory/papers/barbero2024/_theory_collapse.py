"""Representational collapse (Barbero et al. 2024, §4), measured at every precision.

A causal Pre-LN transformer reads ``v = (1, ..., 1, 0)`` (length ``n``) and ``v' = (1, ..., 1, 0,
0)`` (the same sequence with its last token repeated, length ``n + 1``). Barbero et al. 2024
(Theorem 4.2) show that the final last-token representations ``y_n = norm3(v^(L)_n)`` and
``y'_{n+1}`` grow arbitrarily close as ``n`` grows when the positional information is bounded, so
that in finite precision they eventually become bit-identical and no readout can tell the two
sequences apart. This module measures ``||y_n - y'_{n+1}||`` by length, runs the model in
float64, float32 or bfloat16 (parameters AND activations in that dtype), finds the first length at
which the two representations are bit-identical, and derives the rate.

The rate, derived from the model (one layer, no position in the scores): at the last query
(token ``0``) a head gives key ``1`` the score ``a`` and key ``0`` the score ``b``. With ``n - 1``
ones and ``k`` zeros (``k = 1`` for ``v``, ``2`` for ``v'``) its output is
``o(k) = (A u_1 + k B u_0) / (A + k B)`` with ``A = (n - 1) e^a``, ``B = e^b``, ``u = W_V x``, so

    o(2) - o(1) = A B (u_0 - u_1) / ((A + B)(A + 2B)) = e^(b - a) (u_0 - u_1) / n + O(1 / n^2),

and the token-wise rest of the layer (MLP, norms) is differentiable, hence
``n ||y_n - y'_{n+1}|| -> K = ||G  c sum_h e^(b_h - a_h) W_V^h (x_0 - x_1)||`` with ``G`` the
Jacobian of ``z -> norm3(z + psi(norm2(z)))`` at the limit stream and ``c`` the head weight
(:func:`one_layer_limit`). Deeper models keep the ``1/n`` rate (each layer's last query sees one
extra key among ``n``) with a constant this module fits (:func:`fit_rate`).

Outside the theorem's hypotheses (measured, see the README section; :func:`asymptotic_rate` reads
the curve's tail and gives the verdict):

- ALiBi's bias ``-m |i - j|`` is unbounded and does not decay, which the theorem excludes. With
  it the ones' weight sums to the geometric series ``S = e^a sum_t e^(-m t) -> e^a / (e^m - 1)``
  instead of growing like ``n e^a``, so the derivation above holds with ``n`` replaced by about
  ``1/m``: the distance falls like ``1/n`` until ``n ~ 1/m`` (256 for the smallest slope
  ``2^-8``) and then tends to a positive constant of order ``m e^(b - a) ||W_V (x_0 - x_1)||``
  (through the token map): no collapse.
- An ABSOLUTE sinusoidal code is *added to the stream*: the last token of ``v`` carries the code
  of position ``n`` and that of ``v'`` the code of ``n + 1``, a difference of order one that never
  shrinks. The theorem's premise is that positions enter only through the kernel
  ``k(q, k, p_ij)``; this model breaks the premise, so its "no collapse" is no finding against
  the paper.

In bfloat16 the distance stops at the rounding floor (an ulp of ``y``) long before it reaches
zero, and the two vectors become identical only coordinate by coordinate.

Lengths beyond ``config.seq_len``: the library's embedding (Chen & Zou 2024, eq. 3) lays a one-hot
or sinusoidal code out for the sequence's own length;
:func:`~transformer_theory.core.positional.embed_long` keeps the code that ``config.seq_len``
defines and evaluates it at any position, so the same model reads every length. The model itself
(:func:`~._models.causal_pre_ln_config`) and the precisions (:mod:`transformer_theory.precision`)
are defined once elsewhere; this module holds the measurement.

Shape letters: :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate
from transformer_theory.core.forward import forward_trace
from transformer_theory.core.layers import attention_scores
from transformer_theory.core.positional import embed_long
from transformer_theory.papers.barbero2024._models import final_norm, mlp_map, norm1_map
from transformer_theory.papers.barbero2024._tasks import (
    ONE,
    ZERO,
    ConfusablePair,
    pattern_tokens,
    repeat_last,
)
from transformer_theory.params import ModelConfig, ModelParams, cast_params, init_params
from transformer_theory.precision import PRECISIONS, dtype_of, to_float64, unit_roundoff

__all__ = [
    "DECAY_SLOPE",
    "PLATEAU_CHANGE",
    "PRECISIONS",
    "asymptotic_rate",
    "check_measurement_memory",
    "check_precision",
    "collapse_curve",
    "compare",
    "evaluate",
    "first_true",
    "fit_rate",
    "identical_from",
    "last_representation",
    "measurement_bytes",
    "model_record",
    "one_layer_limit",
    "pair_representations",
    "rounding_dominates_from",
    "rounding_floor",
    "summarize",
]


def check_precision(precision: str) -> jnp.dtype:
    """The dtype of ``precision``, one of :data:`PRECISIONS` (the formats a model runs entirely
    in here; ValueError naming ``precision`` otherwise, or for float64 without x64)."""
    _validate.check_choice("precision", precision, PRECISIONS)
    return jnp.dtype(dtype_of(precision))


def last_representation(
    params: ModelParams, embedding_NxD: jax.Array, mask_NxN: jax.Array | None = None
) -> jax.Array:
    """``y_n = norm3(v^(L)_n)``: the final normalized representation of the last token.

    This is what the next-token prediction reads (Barbero et al. 2024, §2). Runs in the dtype of
    ``params`` and ``embedding_NxD`` (cast both for a precision); jit at the call site.
    """
    v_NxD = forward_trace(params, embedding_NxD, mask_NxN).streams_LxNxD[-1]
    return final_norm(params, v_NxD[-1])


@jax.jit
def _pair_last_representations(params, embedding_a, embedding_b):
    # One program for both sequences: one compile per (length, precision) instead of two, and the
    # two forward passes stay separate computations (no padding, no batching).
    return last_representation(params, embedding_a), last_representation(params, embedding_b)


def pair_representations(
    params: ModelParams, tokens_a: np.ndarray, tokens_b: np.ndarray, precision: str
) -> tuple[jax.Array, jax.Array]:
    """``(y_a, y_b)``: the final last-token representations of two sequences, each from its own
    forward pass, with ``params`` and activations in ``precision`` (one of :data:`PRECISIONS`)."""
    dtype = check_precision(precision)
    p = params if params.w_o.dtype == dtype else cast_params(params, dtype)
    cfg = params.config
    ea = embed_long(cfg, tokens_a, dtype=dtype)
    eb = embed_long(cfg, tokens_b, dtype=dtype)
    return _pair_last_representations(p, ea, eb)


def measurement_bytes(
    config: ModelConfig, tokens: int, precision: str, *, compiled: bool = True
) -> int:
    """Peak bytes of one :func:`pair_representations` call: ``v`` of ``tokens`` tokens and ``v'``
    of ``tokens + 1``, the model cast to ``precision``.

    ``compiled=True``: XLA's own account of the compiled program
    (:func:`transformer_theory.budget.compiled_bytes` on shapes only: nothing is allocated, one
    compile), plus the float64 model it is cast from and the two embeddings built (in float64)
    before the call. ``compiled=False``: a floor without compiling, the models and one
    ``(H, n + 1, n + 1)`` score array of the widest layer (every layer computes its scores in
    full) -- a run above the floor cannot fit, whatever XLA does. Needs x64 enabled for float64.
    """
    from transformer_theory import budget

    _validate.check_positive("tokens", tokens)
    dtype = check_precision(precision)

    def model(d):
        return jax.eval_shape(lambda: init_params(jax.random.key(0), config, dtype=d))

    def nbytes(tree):
        return sum(math.prod(x.shape) * x.dtype.itemsize for x in jax.tree.leaves(tree))

    run_params = model(dtype)
    master = 0 if dtype == jnp.float64 else nbytes(model(jnp.float64))
    if not compiled:
        scores = max(config.heads) * (tokens + 1) ** 2 * dtype.itemsize
        return int(nbytes(run_params) + master + scores)
    ea = jax.ShapeDtypeStruct((tokens, config.width), dtype)
    eb = jax.ShapeDtypeStruct((tokens + 1, config.width), dtype)
    program = budget.compiled_bytes(_pair_last_representations, run_params, ea, eb)
    return int(program + master + 2 * 8 * (2 * tokens + 1) * config.width)


def check_measurement_memory(
    configs: Sequence[ModelConfig], tokens: int, precisions: Sequence[str]
) -> float:
    """Refuse (BudgetError naming ``max_len/heads/width``) a run whose longest measurement, of
    ``tokens`` tokens, would not fit in memory: a floor without compiling first
    (:func:`measurement_bytes` ``compiled=False``: refuses the hopeless at once), then XLA's
    account of one compile per model config of ``configs`` (a grid's largest per positional
    code) in the widest of ``precisions``. Returns the estimate in bytes."""
    from transformer_theory import budget

    widest = max(precisions, key=lambda p: check_precision(p).itemsize)
    what = f"the longest measurement ({tokens} tokens, {widest})"
    for compiled in (False, True):
        estimate = max(measurement_bytes(c, tokens, widest, compiled=compiled) for c in configs)
        budget.check_memory(estimate, what=what, option="max_len/heads/width")
    return estimate


def compare(ya: jax.Array, yb: jax.Array) -> dict:
    """Distance (computed in float64 from the two vectors as stored), bit identity, equal
    coordinates."""
    a, b = to_float64(ya), to_float64(yb)
    bits_a = np.asarray(jax.lax.bitcast_convert_type(ya, _uint_of(ya.dtype)))
    bits_b = np.asarray(jax.lax.bitcast_convert_type(yb, _uint_of(yb.dtype)))
    equal = bits_a == bits_b
    return dict(
        distance=float(np.linalg.norm(a - b)),
        identical=bool(np.all(equal)),
        equal_coords=int(np.sum(equal)),
    )


def _uint_of(dtype: jnp.dtype) -> jnp.dtype:
    return {2: jnp.uint16, 4: jnp.uint32, 8: jnp.uint64}[jnp.dtype(dtype).itemsize]


def collapse_curve(
    params: ModelParams,
    lengths: Sequence[int],
    precisions: Sequence[str] = PRECISIONS,
    *,
    pair: Callable[[int], tuple[np.ndarray, np.ndarray]] | None = None,
    pattern: str = "ones_zero",
    separator_every: int | None = None,
    progress: bool = False,
    guard: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext,
) -> dict:
    """Distances ``||y_n - y'_{n+1}||`` by length and precision, and where they become identical.

    Args:
      params: one causal model (any depth, heads, positional code).
      lengths: the pattern lengths ``n`` to measure (each costs one compile per precision).
      precisions: names from :data:`PRECISIONS`; the model runs entirely in each.
      pair: ``n -> (v, v')``, two token sequences to compare (default: ``v`` of ``pattern`` and
        ``v`` with its last token repeated).
      pattern, separator_every: the default pair's pattern (:func:`~._tasks.pattern_tokens`).
      progress: a tqdm bar over (precision, length), drawn only when stderr is a terminal.
      guard: a context manager factory entered around each measurement (the command line passes
        one that holds Ctrl-C until the measurement is done, so that JAX is never interrupted
        inside a call).
    Returns:
      A record: ``lengths`` (the pattern lengths), ``tokens`` (the actual lengths of ``v``), and
      per precision ``distance``, ``identical``, ``equal_coords`` by length, ``first_identical``
      (the first measured length with bit-identical representations, None if none) and
      ``identical_from`` (the first length from which every measured length is identical).
    """
    cfg = params.config
    if cfg is None or not cfg.causal:
        raise ValueError("params: representational collapse is defined for a causal model")
    lengths = [int(n) for n in lengths]
    if not lengths or min(lengths) < 1:
        raise ValueError(f"lengths: expected positive lengths, got {lengths}")
    for prec in precisions:
        check_precision(prec)
    if pair is None:

        def pair(n):
            v = pattern_tokens(pattern, n, separator_every=separator_every)
            return v, repeat_last(v)

    record = dict(
        pattern=pattern,
        separator_every=separator_every,
        lengths=lengths,
        tokens=[int(len(pair(n)[0])) for n in lengths],
        precisions={},
    )
    steps = [(prec, n) for prec in precisions for n in lengths]
    if progress:
        from transformer_theory.progress import tqdm

        # disable=None: no bar when stderr is not a terminal (a log file, a pipe)
        steps = tqdm(steps, desc="collapse", unit="length", disable=None)
    rows: dict[str, list[dict]] = {prec: [] for prec in precisions}
    for prec, n in steps:
        va, vb = pair(n)
        with guard():
            rows[prec].append(compare(*pair_representations(params, va, vb, prec)))
    for prec in precisions:
        same = [r["identical"] for r in rows[prec]]
        record["precisions"][prec] = dict(
            distance=[r["distance"] for r in rows[prec]],
            identical=same,
            equal_coords=[r["equal_coords"] for r in rows[prec]],
            width=cfg.width,
            first_identical=first_true(lengths, same),
            identical_from=identical_from(lengths, same),
        )
    return record


def first_true(lengths: Sequence[int], flags: Sequence[bool]) -> int | None:
    """The first length whose flag is set (None if none is)."""
    return next((int(n) for n, f in zip(lengths, flags) if f), None)


def identical_from(lengths: Sequence[int], flags: Sequence[bool]) -> int | None:
    """The first length from which every flag is set (None if the last one is not)."""
    start = None
    for n, f in zip(lengths, flags):
        start = (start if start is not None else int(n)) if f else None
    return start


def rounding_dominates_from(
    lengths: Sequence[int], exact: Sequence[float], measured: Sequence[float]
) -> int | None:
    """The first length where a precision's distance is off the float64 one by more than half of
    it: from there on, what that precision measures is mostly its own rounding, not the
    difference between the sequences (None if it never is)."""
    for n, d, m in zip(lengths, exact, measured):
        if abs(m - d) > 0.5 * d:
            return int(n)
    return None


def fit_rate(
    lengths: Sequence[int], distances: Sequence[float], *, floor: float = 0.0, min_len: int = 8
) -> dict:
    """Least-squares slope of ``log distance`` against ``log n`` (``-1`` for a ``1/n`` rate).

    Only lengths ``>= min_len`` with a distance above ``floor`` (the precision's rounding floor)
    enter. Returns ``slope``, ``constant`` (``n * distance`` at the largest fitted length),
    ``fit_from``, ``fit_to`` and ``points``; the slope is None with fewer than 3 points.
    """
    n = np.asarray(lengths, np.float64)
    d = np.asarray(distances, np.float64)
    if n.shape != d.shape:
        raise ValueError(f"distances: expected {n.shape[0]} values, one per length, got {d.shape}")
    keep = (n >= min_len) & (d > floor) & np.isfinite(d)
    if keep.sum() < 3:
        return dict(slope=None, constant=None, fit_from=None, fit_to=None, points=int(keep.sum()))
    slope = float(np.polyfit(np.log(n[keep]), np.log(d[keep]), 1)[0])
    last = int(np.flatnonzero(keep)[-1])
    return dict(
        slope=slope,
        constant=float(n[last] * d[last]),
        fit_from=int(n[keep][0]),
        fit_to=int(n[keep][-1]),
        points=int(keep.sum()),
    )


# A decaying power law n^(-a) changes by 1 - 4^(-a) over two octaves: a change of at most 5% there
# means a < 0.037, which no collapse at a measurable rate has; the curve is called flat.
PLATEAU_CHANGE = 0.05
# A tail slope above -0.1 (halving the distance would take a factor 1,000 in n) is not a collapse.
DECAY_SLOPE = -0.1


def asymptotic_rate(
    lengths: Sequence[int],
    distances: Sequence[float],
    *,
    floor: float = 0.0,
    until: int | None = None,
    decade: float = 10.0,
) -> dict:
    """The rate on the asymptotic range only, a plateau test, and a verdict computed from both.

    One power law fitted across every length mixes regimes: with ALiBi the distance falls like
    ``1/n`` while ``n < 1/m`` (``m`` the smallest head slope, ``2^-8``) and is constant beyond, and
    a single fit across that bend reports a slope (about ``-0.55``) that describes neither. Here:

    - usable points: a finite distance above ``floor`` (the precision's rounding floor), at a
      length below ``until`` (where rounding dominates the precision, if it does);
    - the tail: the usable points in the last decade (``n >= n_last / decade``), or the last three
      usable points if that decade holds fewer; ``slope`` is the least-squares slope of
      ``log distance`` against ``log n`` there;
    - the plateau test: ``change = |d(n_last) - d(n_ref)| / d(n_last)`` with ``n_ref`` the
      smallest usable length ``>= n_last / 4`` (the last two octaves; it must be at most
      ``n_last / 2``); flat when ``change <= PLATEAU_CHANGE``;
    - ``verdict``: ``"plateau at X: no collapse"`` when flat, else ``"collapses ~ n^S"`` when the
      tail slope ``S <= DECAY_SLOPE``, else ``"no decay (tail slope S): no collapse"``;
      ``"undetermined: ..."`` with fewer than three usable points.

    Returns a dict with ``slope``, ``tail_from``, ``tail_to``, ``tail_points``, ``change``,
    ``change_from``, ``plateau`` (bool), ``plateau_value`` (the last distance, when flat) and
    ``verdict``; fields that cannot be computed are None.
    """
    n = np.asarray(lengths, np.float64)
    d = np.asarray(distances, np.float64)
    if n.shape != d.shape:
        raise ValueError(f"distances: expected {n.shape[0]} values, one per length, got {d.shape}")
    keep = np.isfinite(d) & (d > floor)
    if until is not None:
        keep &= n < until
    out = dict(
        slope=None,
        tail_from=None,
        tail_to=None,
        tail_points=0,
        change=None,
        change_from=None,
        plateau=False,
        plateau_value=None,
    )
    if keep.sum() < 3:
        reason = f"only {int(keep.sum())} length(s) above the rounding floor"
        if until is not None:
            reason += f" and below n = {until}, where rounding dominates"
        return dict(out, verdict=f"undetermined: {reason}")
    nk, dk = n[keep], d[keep]
    tail = nk >= nk[-1] / decade
    if tail.sum() < 3:
        tail = np.arange(nk.shape[0]) >= nk.shape[0] - 3
    slope = float(np.polyfit(np.log(nk[tail]), np.log(dk[tail]), 1)[0])
    out.update(
        slope=slope,
        tail_from=int(nk[tail][0]),
        tail_to=int(nk[-1]),
        tail_points=int(tail.sum()),
    )
    ref = int(np.flatnonzero(nk >= nk[-1] / 4)[0])
    if nk[ref] <= nk[-1] / 2:
        change = float(abs(dk[-1] - dk[ref]) / dk[-1])
        out.update(change=change, change_from=int(nk[ref]), plateau=change <= PLATEAU_CHANGE)
    if out["plateau"]:
        out["plateau_value"] = float(dk[-1])
        verdict = f"plateau at {dk[-1]:.3g}: no collapse"
    elif slope <= DECAY_SLOPE:
        verdict = f"collapses ~ n^{slope:.2f}"
    else:
        verdict = f"no decay (tail slope {slope:+.2f}): no collapse"
    return dict(out, verdict=verdict)


def rounding_floor(precision: str, scale: float = 1.0) -> float:
    """Half an ulp of a value of size ``scale`` in ``precision`` (below it, rounding decides)."""
    return unit_roundoff(check_precision(precision)) * scale


def one_layer_limit(params: ModelParams, *, one: int = ONE, zero: int = ZERO) -> float:
    """``K = lim n ||y_n - y'_{n+1}||`` for ``v = (one^(n-1), zero)``, derived from the weights.

    The derivation is in the module docstring. It holds for one causal softmax layer whose scores
    do not see positions (``positional="none"``, no RoPE or ALiBi); computed in float64.
    """
    cfg = params.config
    if cfg is None or cfg.depth != 1:
        raise ValueError("params: one_layer_limit needs a one-layer model")
    if not (cfg.causal and cfg.attention == "softmax"):
        raise ValueError("params: one_layer_limit needs causal softmax attention")
    if cfg.positional != "none" or cfg.relative is not None:
        raise ValueError(
            "params: one_layer_limit needs scores without positions (positional='none', "
            f"relative=None), got positional={cfg.positional!r}, relative={cfg.relative!r}"
        )
    p = cast_params(params, jnp.float64)
    layer = p.layers[0]
    e_NxD = embed_long(cfg, jnp.array([one, zero]), dtype=jnp.float64)
    x_NxD = norm1_map(layer, cfg)(e_NxD)
    s_HxNxN = attention_scores(layer, x_NxD, cfg)  # query 1 = token `zero`, keys 0 (one), 1 (zero)
    u_HxNxD = jnp.einsum("hed,nd->hne", layer.attn.w_v, x_NxD)
    c = 1.0 / s_HxNxN.shape[0] if cfg.head_mean else 1.0
    z_inf = e_NxD[1] + c * jnp.sum(u_HxNxD[:, 0], axis=0)
    ratio_H = jnp.exp(s_HxNxN[:, 1, 1] - s_HxNxN[:, 1, 0])
    delta = c * jnp.einsum("h,hd->d", ratio_H, u_HxNxD[:, 1] - u_HxNxD[:, 0])
    token_map = mlp_map(layer, cfg)
    g_DxD = jax.jacfwd(lambda z: final_norm(p, token_map(z)))(z_inf)
    return float(jnp.linalg.norm(g_DxD @ delta))


def _floor(rec: dict, precision: str) -> float:
    scale = math.sqrt(rec["width"])  # a normalized y has norm ~ sqrt(width)
    return 4 * rounding_floor(precision, scale)


def summarize(record: dict, precision: str = "float64") -> dict:
    """One power law over every length ``>= 8`` above the rounding floor (:func:`fit_rate`).

    Across a change of regime (ALiBi's bend at ``n ~ 1/m``) this slope describes neither regime;
    read :func:`asymptotic_rate` (``record["precisions"][p]["asymptotic"]``) for the rate."""
    rec = record["precisions"][precision]
    return fit_rate(record["lengths"], rec["distance"], floor=_floor(rec, precision))


def model_record(
    params: ModelParams,
    name: str,
    lengths: Sequence[int],
    precisions: Sequence[str] = PRECISIONS,
    **curve_options: object,
) -> dict:
    """:func:`collapse_curve` of one model with, per precision, one fit over every length
    (``rate``, :func:`summarize`), the rate on the asymptotic range with a plateau test
    (``asymptotic``, :func:`asymptotic_rate`; for a precision other than float64 only the lengths
    before its rounding dominates), and, for the model, ``verdict`` (float64's, else the first
    precision's) and, for a one-layer model without positions in its scores, the limit derived
    from its weights (``predicted_limit``, :func:`one_layer_limit`; None otherwise)."""
    record = dict(name=name, **collapse_curve(params, lengths, precisions, **curve_options))
    for prec in precisions:
        record["precisions"][prec]["rate"] = summarize(record, prec)
    reference = "float64" if "float64" in precisions else precisions[0]
    record["rate"] = record["precisions"][reference]["rate"]
    if "float64" in precisions:
        d64 = record["precisions"]["float64"]["distance"]
        for prec in precisions:
            record["precisions"][prec]["rounding_dominates_from"] = rounding_dominates_from(
                record["lengths"], d64, record["precisions"][prec]["distance"]
            )
    for prec in precisions:
        rec = record["precisions"][prec]
        rec["asymptotic"] = asymptotic_rate(
            record["lengths"],
            rec["distance"],
            floor=_floor(rec, prec),
            until=None if prec == "float64" else rec.get("rounding_dominates_from"),
        )
    record["asymptotic"] = record["precisions"][reference]["asymptotic"]
    record["verdict"] = record["asymptotic"]["verdict"]
    cfg = params.config
    simple = (
        cfg.depth == 1
        and cfg.positional == "none"
        and cfg.relative is None
        and record["pattern"] == "ones_zero"
        and record["separator_every"] is None
        and curve_options.get("pair") is None
    )
    record["predicted_limit"] = one_layer_limit(params) if simple else None
    return record


def evaluate(
    params: ModelParams,
    pairs: Sequence[ConfusablePair],
    precisions: Sequence[str],
    progress: bool = False,
    *,
    name: str = "task",
) -> dict:
    """Accuracy, pair distance and bit identity of the confusable ``pairs`` (one per length,
    :meth:`~._tasks.CopyingTask.confusable_pairs`), by length and precision; ``name`` labels the
    progress bar."""
    out = {}
    lengths = [pair.n for pair in pairs]
    steps = [(p, pair) for p in precisions for pair in pairs]
    if progress:
        from transformer_theory.progress import tqdm

        steps = tqdm(steps, desc=f"evaluate {name}", unit="length", leave=False, disable=None)
    rows: dict[str, list] = {p: [] for p in precisions}
    for prec, pair in steps:
        ya, yb = pair_representations(params, pair.a, pair.b, prec)
        w_o = params.w_o.astype(ya.dtype)
        pred = [int(jnp.argmax(w_o @ ya)), int(jnp.argmax(w_o @ yb))]
        # the mean over the scored answers: both of a copying pair's, a counting pair's first only
        acc = sum(float(p == a) for p, a in zip(pred, pair.answers)) / len(pair.answers)
        rows[prec].append(dict(compare(ya, yb), accuracy=acc, same_prediction=pred[0] == pred[1]))
    for prec in precisions:
        same = [r["identical"] for r in rows[prec]]
        out[prec] = dict(
            accuracy=[r["accuracy"] for r in rows[prec]],
            distance=[r["distance"] for r in rows[prec]],
            identical=same,
            first_identical=first_true(lengths, same),
            # the two inputs' answers differ: one prediction for both is a collapse of the readout
            first_same_prediction=first_true(lengths, [r["same_prediction"] for r in rows[prec]]),
            identical_from=identical_from(lengths, same),
        )
    return out
