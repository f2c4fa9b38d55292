"""Compiled model against the interpreter on every input, with margins; the precision laws.

:func:`check` runs the library's own forward pass (:func:`transformer_theory.core.forward_trace`)
on every input over the vocabulary while the count stays under ``max_inputs`` (about ``10^5``)
and on seeded samples of each longer length, decodes EVERY materialized node at EVERY position
from the final residual stream (nothing is overwritten, so it holds them all) and compares with
the interpreter, None and defaults included. Inputs shorter than ``max_seq_len`` are padded to
one shape and their padding masked out of every key, so one compiled function serves all lengths.

Margins, normalized so that 1 is a perfect value and a decision is right while it is positive:
a categorical block ``x`` with the interpreter's value ``v`` has margin
``x[v] - max_{u != v} x[u]``;
a number ``x`` with value ``t`` has ``1 - |x - t| / h``, ``h`` half the distance from ``t`` to the
nearest other value of its value set (decoding rounds to the nearest value).

The float formats' unit roundoffs ``u`` (:func:`transformer_theory.precision.unit_roundoff`)
enter :func:`predicted_exact`, the stated law; :func:`precision_limits` measures the longest
exact length beside it.

``check(..., arithmetic="enclosed")`` takes each input's final stream from the exact engine
(:func:`transformer_theory.exact.evaluate` in arb balls, on the float64 weights taken exactly, the
``n + 1`` rows unpadded) instead, and every margin above becomes its certified LOWER end, computed
in rationals from the balls' endpoints: ``lower(x[v]) - max_u upper(x[u])`` and
``1 - max(|lower(x) - t|, |upper(x) - t|) / h``; a decision counts only when that is positive.
:func:`ledger_check` is the ledger rows' check (``rasp/claims.py``). What a check costs is
stated here too: :func:`count_inputs` (the inputs it draws per length) and :func:`check_cost`
(its positions, operations and model memory), which the ``rasp`` study refuses by before any
work.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate, budget, precision
from transformer_theory.core import forward_trace
from transformer_theory.rasp import _compiler as compiler
from transformer_theory.rasp import _language as lang
from transformer_theory.rasp._compile_ir import min_gap

__all__ = [
    "DTYPES",
    "check",
    "check_cost",
    "count_inputs",
    "ledger_check",
    "precision_limits",
    "precision_rows",
    "precision_summary",
    "predicted_exact",
    "run",
]

DTYPES = precision.PRECISIONS


# A compiled model's parameters grow like N^2 (positions one-hot, MLP tables over them): 6.9e6
# float64 parameters for reverse at N = 64, the largest library program measured; its residual
# width is about 2 |V| + 3 N, and every head holds two D x D matrices.
_PARAMETERS_AT_64 = 6.9e6
# The most input positions (inputs times their length) one check compares: about 10^5 a second.
_MAX_POSITIONS = 2 * 10**7
# The most floating-point operations one check's forward passes may take (minutes on a core;
# reverse at max_len 64 needs about 2.4e11).
_MAX_FLOPS = 5 * 10**11


def check_cost(
    vocab_size: int,
    max_len: int,
    precision_lengths: Sequence[int] = (),
    *,
    max_inputs: int = 100_000,
    samples: int = 64,
) -> None:
    """Refuse (:class:`~transformer_theory.budget.BudgetError` naming the argument to lower:
    ``max_len``, ``max_inputs``, ``samples``, ``vocab`` -- the vocabulary, ``vocab_size`` tokens
    -- or ``precision_lengths``, as :func:`~transformer_theory.rasp._study_program.study` names
    them; the command turns each into its option), before anything is compiled, a check whose
    work or model is too large, counting every argument that multiplies it: the positions
    compared (every input enumerated while they number at most ``max_inputs`` -- ``vocab_size``
    to the power of the length -- then ``samples`` per longer length, times the length), and the
    memory of the model compiled for ``max_len`` or the longest of ``precision_lengths``
    (positions and vocabulary: width about ``2 |V| + 3 N``)."""
    _validate.check_int_arg("vocab_size", vocab_size)
    _validate.check_int_arg("max_len", max_len)
    _validate.check_int_arg("max_inputs", max_inputs, 0)
    _validate.check_int_arg("samples", samples, 0)
    if any(n < 1 for n in _lengths("precision_lengths", precision_lengths)):
        raise ValueError(f"precision_lengths: expected lengths >= 1, got {precision_lengths}")
    total = positions = 0
    n = 1  # every input of the lengths enumerated, in closed form for the sampled rest
    while n <= max_len and positions <= _MAX_POSITIONS:
        count = vocab_size**n
        if total + count > max_inputs:
            break
        total += count
        positions += count * n
        n += 1
    if n <= max_len:  # lengths n..max_len: samples each, times the length
        positions += samples * (max_len * (max_len + 1) // 2 - (n - 1) * n // 2)
    if positions > _MAX_POSITIONS:
        option = "samples" if samples * max_len > _MAX_POSITIONS // 2 else "max_inputs"
        if max_inputs * max_len <= _MAX_POSITIONS and samples * max_len <= _MAX_POSITIONS:
            option = "max_len"
        raise budget.BudgetError(
            f"{option}: the check would compare {positions:.3g} positions (max_len "
            f"{max_len}, {vocab_size} tokens, max_inputs {max_inputs}, samples {samples}); "
            f"lower {option}",
            option=option,
            estimate=positions,
            available=_MAX_POSITIONS,
        )
    width = 2 * vocab_size + 3 * max_len + 8
    flops = 2 * 3 * positions * width**2  # three heads' D x D products per position, at least
    if flops > _MAX_FLOPS:
        # the argument that makes most of the width (and, for max_len, of the positions too)
        option = "max_len" if 3 * max_len >= 2 * vocab_size else "vocab"
        raise budget.BudgetError(
            f"{option}: {vocab_size} tokens and inputs up to {max_len} make a residual stream "
            f"about {width} wide; the check would take about {flops:.2g} floating-point "
            f"operations; lower {option}",
            option=option,
            estimate=flops,
            available=_MAX_FLOPS,
        )
    for option, n in (
        ("max_len", max_len),
        ("precision_lengths", max(precision_lengths, default=0)),
    ):
        width = 2 * vocab_size + 3 * n + 8
        heads_bytes = 8 * 2 * 3 * width**2  # three heads' w_qk and w_v at least
        budget.check_memory(
            max(8 * _PARAMETERS_AT_64 * (n / 64) ** 2, heads_bytes),
            what=f"a compiled model for length {n} over {vocab_size} tokens",
            option=option if n else "vocab",
        )


def count_inputs(
    vocab_size: int, lengths: Sequence[int], max_inputs: int, samples: int
) -> list[tuple[int, int, bool]]:
    """``(length, inputs, exhaustive)`` per length as :func:`check` draws them: every input while
    the running count stays within ``max_inputs``, else ``samples``. A length that would be
    checked on no input is refused (ValueError naming ``max_inputs`` and
    ``samples_per_length``): a check over nothing never reports agreement."""
    for name, v in (("max_inputs", max_inputs), ("samples_per_length", samples)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name}: expected an integer >= 0, got {v!r}")
    out, total = [], 0
    for n in lengths:
        count = vocab_size**n
        if total + count <= max_inputs:
            total += count
            out.append((n, count, True))
        else:
            out.append((n, int(samples), False))
            budget.check_memory(
                (64 + 8 * n) * float(samples),
                what=f"{samples} sampled inputs of length {n}",
                option="samples_per_length",
            )
    empty = [n for n, k, _ in out if k == 0]
    if empty:
        raise ValueError(
            f"max_inputs, samples_per_length: lengths {empty} would be checked on 0 inputs "
            f"(max_inputs {max_inputs} enumerates fewer, samples_per_length is 0); a check over "
            "nothing is no agreement"
        )
    return out


def _lengths(name: str, lengths: Any) -> list[int]:
    """``lengths`` as a list of ints; ValueError naming ``name`` for a string, a non-sequence or a
    length that is not an int."""
    if isinstance(lengths, (str, bytes)) or not isinstance(lengths, Sequence):
        raise ValueError(f"{name}: expected a sequence of lengths, got {lengths!r:.80}")
    if any(isinstance(n, bool) or not isinstance(n, (int, np.integer)) for n in lengths):
        raise ValueError(f"{name}: expected integer lengths, got {list(lengths)!r:.80}")
    return [int(n) for n in lengths]


def _inputs(vocab: Sequence, lengths: Sequence[int], max_inputs: int, samples: int, seed: int):
    """``(length, inputs, exhaustive)`` per length: all inputs while the running count stays
    within ``max_inputs``, else ``samples`` seeded draws."""
    rng = np.random.default_rng(seed)
    total = 0
    for n in lengths:
        count = len(vocab) ** n
        if total + count <= max_inputs:
            total += count
            yield n, [list(t) for t in itertools.product(vocab, repeat=n)], True
        else:
            draws = rng.integers(len(vocab), size=(samples, n))
            yield n, [[vocab[i] for i in row] for row in draws], False


def _runner(compiled: compiler.CompiledProgram, dtype: str):
    """One jitted ``vmap`` of the forward pass per compiled model and dtype (kept on the model)."""
    cache = compiled.__dict__.setdefault("_runners", {})
    if dtype not in cache:
        params = compiled.params(precision.dtype_of(dtype))

        def final(h, mask):
            return forward_trace(params, h, mask).streams_LxNxD[-1]

        cache[dtype] = jax.jit(jax.vmap(final))
    return cache[dtype]


def _final_streams(compiled: compiler.CompiledProgram, batch: list[list], dtype: str) -> np.ndarray:
    """Final residual streams ``(B, N + 1, D)`` of a batch, padded and masked (float64 out)."""
    N1 = compiled.max_seq_len + 1
    D = compiled.config.width
    h = np.zeros((len(batch), N1, D))
    mask = np.zeros((len(batch), N1, N1), bool)
    for b, xs in enumerate(batch):
        n = len(xs) + 1
        h[b, :n] = compiled.embed(xs)
        mask[b, :, :n] = True
    run = _runner(compiled, dtype)
    out = run(jnp.asarray(h, precision.dtype_of(dtype)), jnp.asarray(mask))
    return precision.to_float64(out)


def _exact_endpoint(a: Any) -> Fraction:
    man, exp = a.man_exp()
    return int(man) * Fraction(2) ** int(exp)


def _enclosed_streams(
    compiled: compiler.CompiledProgram, batch: list[list]
) -> tuple[np.ndarray, ...]:
    """Lower and upper ends (exact Fractions, ``(B, n + 1, D)`` object arrays) of the arb balls
    enclosing each input's final stream (:func:`transformer_theory.exact.evaluate`)."""
    from transformer_theory import exact

    lows, highs = [], []
    for xs in batch:
        s = exact.evaluate(compiled.weights, compiled.embed(xs), arithmetic="enclosed").streams[-1]
        cells = [[s[i, j] for j in range(s.ncols())] for i in range(s.nrows())]
        lows.append([[_exact_endpoint(a.lower()) for a in row] for row in cells])
        highs.append([[_exact_endpoint(a.upper()) for a in row] for row in cells])
    return np.array(lows, dtype=object), np.array(highs, dtype=object)


def _down(m: Any) -> float:
    """A float at most ``m`` (``m`` a Fraction: rounded down; a float: itself)."""
    if not isinstance(m, Fraction):
        return float(m)
    f = float(m)
    return float(np.nextafter(f, -math.inf)) if Fraction(f) > m else f


def run(
    compiled: compiler.CompiledProgram, inputs: Sequence[Sequence[Hashable]], dtype: str = "float64"
) -> list[list[Any]]:
    """The compiled model's decoded output at every position of each input (argmax of the
    unembedding for a categorical output, the nearest value of its value set for a numerical
    one), from :func:`transformer_theory.core.forward_trace`."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype: expected one of {sorted(DTYPES)}, got {dtype!r}")
    if isinstance(inputs, (str, bytes)) or not isinstance(inputs, Sequence):
        raise ValueError(f"inputs: expected a sequence of inputs, got {inputs!r:.80}")
    inputs = [list(xs) for xs in inputs]
    out = []
    nd = compiled.output
    for start in range(0, len(inputs), 256):
        chunk = inputs[start : start + 256]
        try:
            logits = _final_streams(compiled, chunk, dtype) @ compiled.unembedding.T
        except ValueError as err:  # an input the model cannot read, named as this argument
            raise ValueError(str(err).replace("xs:", "inputs:", 1)) from None
        for b, xs in enumerate(chunk):
            row = logits[b, 1 : len(xs) + 1]
            if nd.numerical:
                vals = np.array([float(v) for v in nd.values])
                out.append([nd.values[int(np.argmin(np.abs(vals - x)))] for x in row[:, 0]])
            else:
                out.append([nd.values[int(k)] for k in row.argmax(-1)])
    return out


def _half_gaps(values: list) -> dict:
    out = {}
    for i, v in enumerate(values):
        near = [abs(Fraction(v - values[j])) for j in (i - 1, i + 1) if 0 <= j < len(values)]
        out[v] = min(near) / 2 if near else max(Fraction(1), abs(Fraction(v)))
    return out


def check(
    compiled: compiler.CompiledProgram,
    *,
    dtype: str = "float64",
    arithmetic: str = "float",
    max_inputs: int = 100_000,
    samples_per_length: int = 128,
    lengths: Sequence[int] | None = None,
    seed: int = 0,
    batch_size: int = 256,
    max_reported: int = 10,
) -> dict[str, Any]:
    """The compiled model against the interpreter (non-causal: the program's meaning) on every
    input up to ``max_inputs``, then ``samples_per_length`` seeded inputs of each longer length.

    Args:
      compiled: from :func:`~transformer_theory.rasp.compile`.
      dtype: ``"float64"`` (needs ``jax_enable_x64``, set by the caller), ``"float32"`` or
        ``"bfloat16"``.
      arithmetic: ``"float"`` (the forward pass in ``dtype``) or ``"enclosed"`` (the exact
        engine's arb balls on the float64 weights; ``dtype`` must be ``"float64"``): every margin
        is then a certified lower bound, and a decision counts only when it is positive.
      max_inputs: how many inputs may be enumerated before sampling starts.
      samples_per_length: inputs drawn per length beyond that.
      lengths: the lengths to check (default ``1..max_seq_len``).
      seed: the sampling seed.
      batch_size: inputs per forward call.
      max_reported: disagreements listed with their input (all are counted).

    Returns:
      A record: ``agree`` (the output at every position of every input decodes to the
      interpreter's value), ``exact`` (every node of every position also inside the band its
      consumers decide exactly on: margin ``>= 1/2``), counts, the lengths
      enumerated and sampled, ``min_margin`` (over every node, see the module docstring) with the
      input and node attaining it, ``min_output_margin`` and the first disagreements.
    """
    if not isinstance(compiled, compiler.CompiledProgram):
        raise ValueError(f"compiled: expected a CompiledProgram, got {type(compiled).__name__}")
    if dtype not in DTYPES:
        raise ValueError(f"dtype: expected one of {sorted(DTYPES)}, got {dtype!r}")
    if arithmetic not in ("float", "enclosed"):
        raise ValueError(f"arithmetic: expected 'float' or 'enclosed', got {arithmetic!r}")
    if arithmetic == "enclosed" and dtype != "float64":
        raise ValueError(f"dtype: the enclosed check reads the float64 weights, got {dtype!r}")
    if arithmetic == "float" and dtype == "float64":
        precision.require_x64("dtype")
    N = compiled.max_seq_len
    lengths = list(range(1, N + 1)) if lengths is None else _lengths("lengths", lengths)
    bad = [n for n in lengths if not 1 <= n <= N]
    if bad or not lengths:
        raise ValueError(f"lengths: expected lengths in 1..{N}, got {bad or lengths}")
    count_inputs(len(compiled.vocab), lengths, max_inputs, samples_per_length)
    batch_size = _validate.check_int_arg("batch_size", batch_size)
    max_reported = _validate.check_int_arg("max_reported", max_reported, 0)
    _validate.check_seed("seed", seed)
    nodes = [n for n in compiled.nodes if n.materialized and n.op not in ("tokens", "indices")]
    enclosed = arithmetic == "enclosed"
    gaps = {id(n): _half_gaps(n.values) for n in nodes if n.numerical}
    if not enclosed:
        gaps = {k: {v: float(h) for v, h in g.items()} for k, g in gaps.items()}
    rec: dict[str, Any] = {
        "dtype": dtype,
        "arithmetic": arithmetic,
        "inputs_checked": 0,
        "positions_compared": 0,
        "exhaustive_lengths": [],
        "sampled_lengths": [],
        "output_disagreements": 0,
        "internal_disagreements": 0,
        "disagreements": [],
        "min_margin": math.inf,
        "min_margin_at": None,
        "min_output_margin": math.inf,
    }
    for n, inputs, exhaustive in _inputs(
        compiled.vocab, lengths, max_inputs, samples_per_length, seed
    ):
        rec["exhaustive_lengths" if exhaustive else "sampled_lengths"].append(n)
        for start in range(0, len(inputs), batch_size):
            chunk = inputs[start : start + batch_size]
            if enclosed:
                low, high = (e[:, 1 : n + 1] for e in _enclosed_streams(compiled, chunk))
            else:
                low = high = _final_streams(compiled, chunk, dtype)[:, 1 : n + 1]
            for b, xs in enumerate(chunk):
                trace = lang.evaluate_all(compiled.program, xs)
                for nd in nodes:
                    _compare(
                        rec,
                        nd,
                        nd.expect(trace),
                        low[b, :, nd.dims],
                        high[b, :, nd.dims],
                        xs,
                        gaps.get(id(nd)),
                        nd is compiled.output,
                        max_reported,
                    )
            rec["inputs_checked"] += len(chunk)
            rec["positions_compared"] += len(chunk) * n
    rec["agree"] = rec["output_disagreements"] == 0
    rec["exact"] = rec["agree"] and not rec["internal_disagreements"] and rec["min_margin"] >= 0.5
    return rec


def _compare(rec, nd, expected, low, high, xs, gaps, is_output, max_reported):
    """Margins of one node at every position from the ends ``low <= x <= high`` of its block
    (one float array twice in float arithmetic; exact Fractions from the balls when enclosed,
    so the margin is the certified lower end, reported rounded down)."""
    for i, t in enumerate(expected):
        lo, hi = low[i], high[i]
        mid = [float(a + b) / 2 for a, b in zip(lo, hi)]
        if nd.numerical:
            j = int(np.argmin([abs(mid[0] - float(v)) for v in nd.values]))
            got = nd.values[j]
            tf = Fraction(t)
            if tf in gaps:
                h = gaps[tf]
                tv = tf if isinstance(h, Fraction) else float(tf)
                margin = _down(1 - max(abs(lo[0] - tv), abs(hi[0] - tv)) / h)
            else:
                margin = -math.inf
            ok = got == tf and margin > 0
        else:
            idx = nd._index.get(t)
            got = nd.values[int(np.argmax(mid))]
            if idx is None:
                margin, ok = -math.inf, False
            else:
                others = [hi[u] for u in range(len(hi)) if u != idx]
                margin = _down(lo[idx] - (max(others) if others else 0))
                ok = got == t and margin > 0
        if margin < rec["min_margin"]:
            rec["min_margin"] = margin
            rec["min_margin_at"] = {"input": list(xs), "position": i, "node": nd.label}
        if is_output:
            rec["min_output_margin"] = min(rec["min_output_margin"], margin)
        if not ok:
            rec["output_disagreements" if is_output else "internal_disagreements"] += 1
            if len(rec["disagreements"]) < max_reported:
                rec["disagreements"].append(
                    {
                        "input": list(xs),
                        "position": i,
                        "node": nd.label,
                        "expected": repr(t),
                        "got": repr(got),
                        "margin": margin,
                    }
                )


def predicted_exact(compiled: compiler.CompiledProgram, dtype: str) -> dict[str, Any]:
    """The stated law: is ``compiled`` exact in ``dtype`` at its ``max_seq_len``, and which head
    limits it. Per head, with ``N = max_seq_len``, ``u`` the unit roundoff:

    - ``SelectorWidth``: leakage ``N exp(-beta) <= 1/(4 (N+1)(N+2))``; with the slope overridden,
      the decoder's ramps fit the value gaps while ``N (N+1) <= slope``;
    - a mean head: leakage ``2 V (N+1) exp(-beta/2) <= tau``; float: ``4 u V <= tau`` (a few
      roundings of a value of size ``V``);
    - an MLP reading a number ``x``: each ReLU's output is rounded relative to its size, so the
      table stays within its band while ``u sum_units relu(pre(x)) <= 1/4`` at every value ``x``
      (the saturated ramps far from their thresholds dominate: for the width decoder the sum is
      about ``0.67 N^2``, measured at ``N = 16, 64, 256``, so float32 is guaranteed to
      ``N ~ 2500`` and bfloat16 to ``N ~ 9``).

    - float16 (and any format): every weight and the largest score ``2 beta m`` below the
      format's largest number (float16's is 65504).

    Returns ``{"exact": bool, "limited_by": [...]}``; ValueError naming ``dtype`` for a format
    outside :data:`transformer_theory.precision.FORMATS`.
    """
    if not isinstance(compiled, compiler.CompiledProgram):
        raise ValueError(f"compiled: expected a CompiledProgram, got {type(compiled).__name__}")
    if dtype not in precision.FORMATS:
        raise ValueError(f"dtype: expected one of {list(precision.FORMATS)}, got {dtype!r}")
    u = precision.unit_roundoff(dtype)
    largest = float(jnp.finfo(precision._DTYPES[dtype]).max)
    N = compiled.max_seq_len
    slope = compiled.constants["mlp_slope_override"]
    limits = []
    leaves = jax.tree.leaves(compiled.weights)
    biggest = max(float(np.abs(np.asarray(x)).max(initial=0.0)) for x in leaves)
    if biggest > largest:
        limits.append(f"a weight {biggest:.3g} overflows {dtype}")
    for nd in compiled.nodes:
        if nd.op in ("width", "mean") and 2 * nd.beta * max(1, len(nd.terms)) > largest:
            limits.append(f"{nd.label}: its scores overflow {dtype}")
        if nd.op == "width":
            if N * math.exp(-nd.beta) > (1 + 1e-9) / (4 * (N + 1) * (N + 2)):
                limits.append(f"{nd.label}: softmax leakage")
        elif nd.op == "mean":
            vmax = float(max(abs(v) for v in nd.value.values)) if nd.numerical else 1.0
            vmax = vmax or 1.0
            if 2 * vmax * (N + 1) * math.exp(-nd.beta / 2) > nd.tolerance * (1 + 1e-9):
                limits.append(f"{nd.label}: softmax leakage")
            if 4 * u * vmax > nd.tolerance:
                limits.append(f"{nd.label}: {dtype} rounding of the mean")
    for nd in compiled.nodes:
        if nd.op != "mlp" or not nd.materialized or not nd.ramps:
            continue
        (x,) = [f for f in nd.frontier if f.numerical]
        xs = np.array([float(v) for v in x.values])
        worst = 0.0
        for ramps in nd.ramps:
            total = np.zeros_like(xs)
            for sign, lo, hi in ramps:
                z = sign * xs
                total += (np.maximum(z - lo, 0) + np.maximum(z - hi, 0)) / (hi - lo)
            worst = max(worst, float(total.max(initial=0.0)))
        if u * worst > 0.25:
            limits.append(f"{nd.label}: {dtype} rounding of its ramps ({u * worst:.2g} > 1/4)")
        if slope is not None and min_gap(x.values) < 1 / slope:
            limits.append(f"{nd.label}: ramp slope {slope} < 1/gap")
    return {"exact": not limits, "limited_by": limits}


def precision_limits(
    program: lang.SOp,
    vocab: Sequence[Hashable],
    *,
    lengths: Sequence[int] = (4, 8, 16, 32, 64),
    dtypes: Sequence[str] = ("float32", "float64"),
    samples: int = 32,
    softmax_scale: float | None = None,
    mlp_slope: float | None = None,
    seed: int = 0,
    causal: bool = False,
) -> list[dict[str, Any]]:
    """For each float format, the longest length of ``lengths`` at which the model compiled FOR
    that length ``n`` (constants chosen by the law, or the overrides) is exact on ``samples``
    seeded inputs of each of the lengths ``1, n/4, n/2, n - 1, n`` (short inputs reach the values
    a full-length one never does: a width of 1 in a model for 64), beside the longest the law
    (:func:`predicted_exact`) guarantees: each length compiled, then measured
    (:func:`precision_rows`), the rows summed up by :func:`precision_summary`.

    Returns one record per dtype: ``longest_exact``, ``first_failure`` (length, or None),
    ``predicted_longest``, ``predicted_first_failure`` and the per-length rows.
    """
    _precision_args(dtypes, samples)
    lengths = _lengths("lengths", lengths)
    if not lengths or any(n < 1 for n in lengths):
        raise ValueError(f"lengths: expected positive lengths, got {list(lengths)}")
    rows = []
    for n in sorted(lengths):
        try:
            compiled = compiler.compile(
                program, vocab, int(n), causal, softmax_scale=softmax_scale, mlp_slope=mlp_slope
            )
        except budget.BudgetError as err:  # the length the caller gave, not the compiler's name
            raise ValueError(f"lengths: {str(err).partition(': ')[2]}") from None
        rows.append(precision_rows(compiled, dtypes, samples=samples, seed=seed))
    return precision_summary(rows, dtypes, softmax_scale=softmax_scale, mlp_slope=mlp_slope)


def _precision_args(dtypes: Sequence[str], samples: int) -> None:
    """Refuse ``dtypes`` that are not a non-empty list of :data:`DTYPES` and a ``samples``
    below 1 (ValueError naming the argument)."""
    if isinstance(dtypes, str) or not dtypes:
        raise ValueError(f"dtypes: expected a non-empty list of names, got {dtypes!r}")
    for d in dtypes:
        if d not in DTYPES:
            raise ValueError(f"dtypes: expected names among {sorted(DTYPES)}, got {d!r}")
    _validate.check_int_arg("samples", samples)


def precision_rows(
    compiled: compiler.CompiledProgram,
    dtypes: Sequence[str],
    *,
    samples: int = 32,
    seed: int = 0,
) -> dict[str, dict[str, Any]]:
    """The precision measurement of one model compiled for its length ``n``
    (``compiled.max_seq_len``), per float format of ``dtypes``: :func:`check` on ``samples``
    seeded inputs of each of the lengths ``1, n/4, n/2, n - 1, n`` beside the law
    (:func:`predicted_exact`). Returns ``{dtype: row}``, a row's keys ``length``, ``exact``,
    ``agree``, ``min_margin``, ``predicted_exact``, ``limited_by``."""
    if not isinstance(compiled, compiler.CompiledProgram):
        raise ValueError(f"compiled: expected a CompiledProgram, got {type(compiled).__name__}")
    _precision_args(dtypes, samples)
    n = compiled.max_seq_len
    out = {}
    for d in dtypes:
        rec = check(
            compiled,
            dtype=d,
            lengths=sorted({1, max(1, n // 4), max(1, n // 2), max(1, n - 1), n}),
            max_inputs=samples,
            samples_per_length=samples,
            seed=seed,
            max_reported=1,
        )
        law = predicted_exact(compiled, d)
        out[d] = {
            "length": n,
            "exact": rec["exact"],
            "agree": rec["agree"],
            "min_margin": rec["min_margin"],
            "predicted_exact": law["exact"],
            "limited_by": law["limited_by"],
        }
    return out


def precision_summary(
    rows: Sequence[dict[str, dict[str, Any]]],
    dtypes: Sequence[str],
    *,
    softmax_scale: float | None = None,
    mlp_slope: float | None = None,
) -> list[dict[str, Any]]:
    """The precision limits from :func:`precision_rows` of the models compiled for increasing
    lengths (``rows``, one entry per model, shortest first) and the overrides they were compiled
    with: one record per format of ``dtypes`` (see :func:`precision_limits`)."""
    out = []
    for d in dtypes:
        r = [per_model[d] for per_model in rows]
        first = next((x["length"] for x in r if not x["exact"]), None)
        pfirst = next((x["length"] for x in r if not x["predicted_exact"]), None)
        out.append(
            {
                "dtype": d,
                "softmax_scale": softmax_scale,
                "mlp_slope": mlp_slope,
                "longest_exact": max(
                    (x["length"] for x in r if first is None or x["length"] < first), default=None
                ),
                "first_failure": first,
                "predicted_longest": max(
                    (x["length"] for x in r if pfirst is None or x["length"] < pfirst), default=None
                ),
                "predicted_first_failure": pfirst,
                "rows": r,
            }
        )
    return out


def ledger_check(
    program: str,
    vocab: str,
    max_len: int,
    arithmetic: str = "enclosed",
    dtype: str = "float64",
    lengths: Sequence[int] | None = None,
    samples: int = 0,
) -> dict[str, Any]:
    """The ledger rows' record of a library program (``rasp/claims.py`` builds the rows'
    :class:`~transformer_theory.ledger.Checked` from it): compile
    ``PROGRAMS[program]`` over ``vocab`` for ``max_len``, then :func:`check` it on every input of
    ``lengths`` (default ``1..max_len``) in ``arithmetic``; with ``samples`` set, that many seeded
    inputs of each length instead (coverage ``samples``).

    Keys: ``agree`` (every node, the output included, decodes to the interpreter's value at
    every position of every input, each decision with a positive margin), ``min_margin`` (its
    certified lower end when enclosed), ``inputs`` (the number checked), ``sampled``,
    ``layers``, ``attention_depth``.
    """
    from transformer_theory.rasp._library import PROGRAMS, get_program

    sop, v = get_program(program, list(vocab))
    compiled = compiler.compile(sop, v, int(max_len), PROGRAMS[program].causal)
    rec = check(
        compiled,
        dtype=dtype,
        arithmetic=arithmetic,
        lengths=lengths,
        max_inputs=0 if samples else 10**9,
        samples_per_length=samples,
        max_reported=3,
    )
    return {
        "agree": rec["agree"] and not rec["internal_disagreements"],
        "min_margin": rec["min_margin"],
        "min_margin_at": rec["min_margin_at"],
        "disagreements": rec["disagreements"],
        "inputs": rec["inputs_checked"],
        "sampled": bool(rec["sampled_lengths"]),
        "layers": compiled.config.depth,
        "attention_depth": compiled.attention_depth,
    }
