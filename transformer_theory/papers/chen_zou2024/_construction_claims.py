"""Chen & Zou 2024's claims about what depth can do: Lemmas 1-4, the constructions of Theorems 1, 3,
5 and 6, and the trained depth experiments (Figures 2-7) as measured results.

Each entry of :data:`CLAIMS` is one statement of the paper and the check that decides it at the
``quick`` tier (small sizes, seconds) or the ``full`` tier (the sizes README quotes).

How a construction reaches ``proved``. The library builds the model (``constructions.theorem*``)
and checks it in float64 (``constructions.check_construction``); the check here then re-runs the
same model on every input in exact arithmetic (:func:`_exact_margins`) and requires the two to
agree. The exact pass rests on two facts, both checked, not assumed:

- every attention weight of these constructions is an integer (0, +-1, ``n``, ``3^r``, Lemma 2's
  mask ``M``; any dyadic ``k / 2^s`` is accepted), so the streams are integers over one common
  denominator (eq. 2's ``1/m`` gives ``den <- m den^3 2^s`` per layer, reduced by the gcd). The
  integer numerators are computed with float64 matrix products, which are exact while every
  partial sum stays below ``2^53``; before each product the bound ``max_i sum_k |a_ik| * max |b|``
  (which dominates every partial sum in any summation order) is checked against ``2^53``;
- ``W_O`` (Lemma 3's, arbitrary float64) is a matrix of dyadic rationals: it is scaled to Python
  integers exactly, and the logits of each distinct (last stream, label) pair are integers over
  ``den 2^E``. The margin ``o[y] - max_{c != y} o[c]`` is then an exact rational.
"""

from __future__ import annotations

import csv
import importlib.util
import math
import pathlib
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from transformer_theory.ledger import REPO_ROOT, RESULTS_DIR, Claim, Evidence, open_claim

__all__ = ["CLAIMS"]

PAPER = "Chen & Zou 2024"
_EXACT = 2.0**53  # float64 holds every integer below this, and sums of them exactly
_FIG2_CSV = RESULTS_DIR / "fig2_paper_summary.csv"
_BASE3_SCRIPT = REPO_ROOT / "experiments" / "theorem5_base3_certify.py"


# --------------------------------------------------------------------------- exact arithmetic


def _x64() -> None:
    import jax

    jax.config.update("jax_enable_x64", True)


def _exact_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for integer-valued float64 arrays, refused unless provably exact (< 2^53)."""
    bound = float(np.abs(a).sum(axis=-1).max(initial=0.0)) * float(np.abs(b).max(initial=0.0))
    if not bound < _EXACT:
        raise ArithmeticError(f"integer product may exceed 2^53 (bound {bound:.3g})")
    return a @ b


def _integer_weights(w: np.ndarray, name: str) -> tuple[np.ndarray, int]:
    """``(W_int, s)`` with ``W = W_int / 2^s`` and ``W_int`` integer-valued (``s <= 40``)."""
    w = np.asarray(w, np.float64)
    if not np.all(np.isfinite(w)):
        raise ArithmeticError(f"{name}: non-finite weights")
    for shift in range(41):
        scaled = w * 2.0**shift  # exact: a power of two
        if np.array_equal(scaled, np.round(scaled)):
            return scaled, shift
    raise ArithmeticError(f"{name}: not dyadic with denominator <= 2^40; the exact pass needs it")


def _exact_last_streams(params: Any, tokens_BxN: np.ndarray) -> tuple[np.ndarray, int]:
    """The last-token streams of ``params`` on ``tokens_BxN`` in exact arithmetic: integer-valued
    float64 numerators ``X_BxD`` and one common integer denominator (module docstring).

    The construction architecture only (ReLU attention, bidirectional, eq. 2's head mean, one-hot
    positions, no norm, no MLP); anything else raises ``ArithmeticError``.
    """
    cfg = params.config
    if (cfg.attention, cfg.causal, cfg.head_mean, cfg.positional) != (
        "relu",
        False,
        True,
        "onehot",
    ) or any(lp.mlp is not None or lp.norm1 is not None for lp in params.layers):
        raise ArithmeticError("the exact pass covers the constructions' architecture only")
    tokens = np.asarray(tokens_BxN, np.int64)
    B, n = tokens.shape
    d, D = cfg.vocab_size, cfg.width
    x = np.zeros((B, n, D))
    x[np.arange(B)[:, None], np.arange(n)[None, :], tokens] = 1.0  # eq. 3: token one-hot
    x[:, np.arange(n), d + np.arange(n)] = 1.0  # one-hot positions
    den = 1
    for index, lp in enumerate(params.layers):
        qk = [_integer_weights(w, f"layer {index} w_qk") for w in np.asarray(lp.attn.w_qk)]
        vv = [_integer_weights(w, f"layer {index} w_v") for w in np.asarray(lp.attn.w_v)]
        m = len(qk)
        top = max(sq + sv for (_, sq), (_, sv) in zip(qk, vv))
        # head h contributes relu(X Wqk X^T) (X Wv^T) / (den^3 2^(sq+sv)); common denominator
        # m den^3 2^top.
        total = x * float(m * den * den * 2**top)
        if not np.abs(total).max() < _EXACT:
            raise ArithmeticError("stream numerators reach 2^53")
        xt = np.swapaxes(x, 1, 2)
        for (w_qk, sq), (w_v, sv) in zip(qk, vv):
            q = _exact_matmul(x, w_qk.T)  # row i: W_QK h_i
            scores = np.maximum(_exact_matmul(q, xt), 0.0)  # [b, i, j] = relu(h_j^T W_QK h_i)
            values = _exact_matmul(x, w_v.T)
            total = total + _exact_matmul(scores, values) * float(2 ** (top - sq - sv))
            if not np.abs(total).max() < _EXACT:
                raise ArithmeticError("stream numerators reach 2^53")
        den = m * den**3 * 2**top
        g = math.gcd(den, int(np.gcd.reduce(np.abs(total).astype(np.int64), axis=None)))
        x, den = total / g, den // g
    return x[:, -1, :], den


def _dyadic_integers(w: np.ndarray) -> tuple[np.ndarray, int]:
    """``(W_int, E)`` with ``W = W_int / 2^E`` exactly, ``W_int`` an object array of Python ints."""
    w = np.asarray(w, np.float64)
    if not np.all(np.isfinite(w)):
        raise ArithmeticError("W_O: non-finite entries")
    mant, expo = np.frexp(w)  # w = mant 2^expo, mant in [0.5, 1) with 53 bits
    ints = np.ldexp(mant, 53).astype(np.int64)  # exact
    nz = ints != 0
    shift = 53 - expo
    big_e = int(shift[nz].max()) if nz.any() else 0
    out = ints.astype(object)
    lefts = (big_e - shift).astype(object)
    out[nz] = np.array([int(v) << int(s) for v, s in zip(out[nz], lefts[nz])], dtype=object)
    out[~nz] = 0
    return out, big_e


def _exact_margins(params: Any, tokens_BxN: np.ndarray, labels_B: np.ndarray) -> dict[str, Any]:
    """Exact margins of ``params`` on the given inputs (module docstring).

    Returns ``dict(min_margin=Fraction, worst=index of the input with the smallest margin,
    distinct=number of distinct (last stream, label) pairs, denominator=den)``.
    """
    labels = np.asarray(labels_B, np.int64)
    xs, den = [], 1
    for lo in range(0, len(labels), 2048):
        x, dn = _exact_last_streams(params, np.asarray(tokens_BxN)[lo : lo + 2048])
        lcm = den * dn // math.gcd(den, dn)
        xs = [a * float(lcm // den) for a in xs]
        xs.append(x * float(lcm // dn))
        den = lcm
        if xs and not np.abs(xs[-1]).max(initial=0) < _EXACT:
            raise ArithmeticError("stream numerators reach 2^53")
    x_BxD = np.concatenate(xs)
    rows, first, inverse = np.unique(
        np.column_stack([x_BxD, labels]), axis=0, return_index=True, return_inverse=True
    )
    inverse = np.asarray(inverse).reshape(-1)
    w_o = np.asarray(params.w_o, np.float64)
    if np.array_equal(w_o, np.round(w_o)):
        logits = _exact_matmul(rows[:, :-1], w_o.T).astype(np.int64).astype(object)
        big_e = 0
    else:
        w_int, big_e = _dyadic_integers(w_o)
        logits = np.empty((len(rows), w_o.shape[0]), dtype=object)
        for r, row in enumerate(rows[:, :-1]):
            nz = np.flatnonzero(row)
            vals = np.array([int(v) for v in row[nz]], dtype=object)
            logits[r] = w_int[:, nz].dot(vals) if len(nz) else 0
    best = None
    for r in range(len(rows)):
        y = int(rows[r, -1])
        row = list(logits[r])
        correct = row.pop(y)
        margin = correct - max(row) if row else correct
        if best is None or margin < best[0]:
            best = (margin, r)
    min_margin = Fraction(int(best[0]), den * 2**big_e)
    worst = int(first[best[1]])
    return dict(min_margin=min_margin, worst=worst, distinct=len(rows), denominator=den)


def _fraction_text(q: Fraction) -> str:
    return str(q) if q.denominator < 10**6 else f"{float(q):.6g}"


def _construction_evidence(
    name: str, params: Any, task: Any, sizes: str, *, want: Fraction | None = None
) -> Evidence:
    """Check ``params`` on every input of ``task``: the library's float64 check, then the exact
    pass; ``proved`` if every exact margin is positive (and, with ``want``, at least ``want``)."""
    from transformer_theory.constructions import check_construction

    res = check_construction(params, task)
    tokens, labels = task.all()
    ex = _exact_margins(params, np.asarray(tokens), np.asarray(labels))
    q = ex["min_margin"]
    drift = abs(float(q) - res["min_margin"])
    if drift > 1e-9 * max(1.0, abs(float(q))):
        raise RuntimeError(
            f"{name}: the exact pass ({float(q):.17g}) and check_construction "
            f"({res['min_margin']:.17g}) disagree: the exact forward no longer mirrors the "
            "library's"
        )
    details = {
        "sizes": sizes,
        "examples": int(task.size),
        "accuracy_float64": res["accuracy"],
        "min_margin_exact": str(q),
        "min_margin": float(q),
        "min_relative_margin_float64": res["min_relative_margin"],
        "distinct_last_streams": ex["distinct"],
        "stream_denominator": ex["denominator"],
        "layers": params.config.depth,
        "heads": list(params.config.heads),
        "width": params.config.width,
        "arithmetic": "integer streams (float64 products bounded below 2^53), W_O as exact dyadics",
    }
    ok = q > 0 and (want is None or q >= want)
    if ok:
        figure = f"exact on all {task.size:,} inputs ({sizes}), min margin {_fraction_text(q)}" + (
            f" >= {want}" if want is not None else ""
        )
        return Evidence("proved", figure, details)
    tok = [int(t) for t in np.asarray(tokens)[ex["worst"]]]
    details = {
        **details,
        "witness_tokens": tok,
        "witness_label": int(np.asarray(labels)[ex["worst"]]),
    }
    return Evidence(
        "refuted",
        f"input {tok} has exact margin {_fraction_text(q)}"
        + (f" < {want}" if want is not None and q > 0 else " <= 0"),
        details,
    )


# --------------------------------------------------------------------------- lemmas


def _all_sequences(vocab: int, n: int) -> np.ndarray:
    grids = np.meshgrid(*[np.arange(vocab)] * n, indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=1).astype(np.int32)


def _lemma_model_scores(w_qk: np.ndarray, d: int, n: int, width: int) -> np.ndarray:
    """Every input's ReLU attention weights ``[b, query, key]`` for the one-head layer ``w_qk``,
    by the library's own layer (float64; integer-valued, so exact: see the bound check)."""
    import jax
    import jax.numpy as jnp

    from transformer_theory.constructions._common import assemble, construction_config
    from transformer_theory.core.forward import forward_trace

    _x64()
    cfg = construction_config(d, n, width, 1, (1,))
    params = assemble(
        cfg, [(w_qk[None], np.zeros((1, width, width)))], np.zeros((1, width)), jnp.float64
    )
    tokens = _all_sequences(d, n)
    maps = jax.jit(jax.vmap(lambda t: forward_trace(params, t).attention[0][0]))(
        jnp.asarray(tokens)
    )
    bound = float(np.abs(w_qk).sum()) * 1.0  # one-hot streams: |score| <= sum |W_QK|
    if not bound < _EXACT:
        raise ArithmeticError("Lemma 1/2 scores may not be exact in float64")
    return np.asarray(maps)


def _lemma1(tier: str) -> Evidence:
    from transformer_theory.constructions import instructive_attention

    d, n = (3, 4) if tier == "quick" else (4, 6)
    width = d + n + 2
    rng = np.random.default_rng(0)
    alpha = rng.integers(0, 5, size=(n, n)).astype(np.float64)  # [key, query]
    w = instructive_attention(alpha, d, width)
    maps = _lemma_model_scores(w, d, n, width)
    bad = np.flatnonzero(np.any(maps != alpha.T[None], axis=(1, 2)))
    details = {
        "vocab_size": d,
        "seq_len": n,
        "width": width,
        "inputs": len(maps),
        "alpha": alpha.tolist(),
    }
    if bad.size == 0:
        return Evidence(
            "proved",
            f"map = alpha exactly on all {len(maps):,} inputs (d={d}, n={n}, integer alpha "
            "in [0, 4])",
            details,
        )
    return Evidence(
        "refuted", f"{bad.size} inputs get another map", {**details, "witness": int(bad[0])}
    )


def _lemma2(tier: str) -> Evidence:
    from transformer_theory.constructions import constrained_attention, masking_magnitude

    d, n = (3, 4) if tier == "quick" else (4, 6)
    width = d + n + 2
    rng = np.random.default_rng(1)
    base = rng.integers(-2, 3, size=(width, width)).astype(np.float64)
    allowed = rng.random((n, n)) < 0.5
    np.fill_diagonal(allowed, True)
    w = constrained_attention(allowed, d, width, base)
    maps = _lemma_model_scores(w, d, n, width)  # [b, query, key]
    unmasked = _lemma_model_scores(base, d, n, width)
    leak = np.abs(maps[:, ~allowed.T]).max(initial=0.0)
    kept = np.array_equal(maps[:, allowed.T], unmasked[:, allowed.T])
    need = max(float(masking_magnitude(base, d, n)[~allowed].max()), 0.0)
    try:
        constrained_attention(allowed, d, width, base, magnitude=need - 1)
        refuses = False
    except ValueError:
        refuses = True
    details = {
        "vocab_size": d,
        "seq_len": n,
        "width": width,
        "inputs": len(maps),
        "masked_entries": int((~allowed).sum()),
        "largest_masked_weight": float(leak),
        "unmasked_weights_unchanged": kept,
        "mask_magnitude_needed": need,
        "refuses_magnitude_below_bound": refuses,
    }
    if leak == 0 and kept and refuses:
        return Evidence(
            "proved",
            f"masked weights exactly 0, the rest unchanged, on all {len(maps):,} inputs "
            f"(d={d}, n={n}, random integer W_QK, M = bound + 1 = {need + 1:g})",
            details,
        )
    return Evidence(
        "refuted", f"masked weight up to {leak:g} (kept={kept}, refuses={refuses})", details
    )


def _lemma3(tier: str) -> Evidence:
    from transformer_theory.constructions import exactly_parallel, lemma3_classifier

    N, D = (40, 6) if tier == "quick" else (400, 12)
    rng = np.random.default_rng(2)
    x = rng.integers(-3, 4, size=(N, D)).astype(np.float64)
    pairs_ok = all(not exactly_parallel(x[i], x[j]) for i in range(N) for j in range(i + 1, N))
    labels = rng.permutation(N)
    w, _ = lemma3_classifier(x, labels)
    w_int, e = _dyadic_integers(w.T)  # (C, D)
    xi = x.astype(np.int64).astype(object)
    worst = None
    for i in range(N):
        logits = list(w_int.dot(xi[i]))
        correct = logits.pop(int(labels[i]))
        m = correct - max(logits)
        if worst is None or m < worst[0]:
            worst = (m, i)
    q = Fraction(int(worst[0]), 2**e)
    details = {
        "vectors": N,
        "dim": D,
        "pairwise_independent": pairs_ok,
        "min_margin_exact": str(q) if q.denominator < 10**6 else f"{float(q):.17g}",
        "min_margin": float(q),
    }
    if pairs_ok and q > 0:
        return Evidence(
            "proved",
            f"every one of {N} random integer vectors in Z^{D} classified, exact min margin "
            f"{float(q):.3g}",
            details,
        )
    return Evidence("refuted", f"vector {worst[1]} has exact margin {float(q):.3g}", details)


def _lemma4_printed(tier: str) -> Evidence:
    """Lemma 4's printed width max{kd, d+k} against the embedding's d + n."""
    import jax.numpy as jnp

    from transformer_theory.constructions import lemma4_layer
    from transformer_theory.constructions._common import assemble, construction_config

    _x64()
    d, n = 3, 2  # k = 1
    k = n - 1
    printed = max(k * d, d + k)
    try:
        lemma4_layer(d, n, width=printed)
        refused = False
    except ValueError:
        refused = True
    short = printed < d + n
    # The corrected width: the layer's last stream is exactly [x_0; ...; x_{k-1}; 0] on every input.
    dd, nn = (3, 4) if tier == "quick" else (4, 5)
    kk = nn - 1
    width = max(kk * dd, dd + nn)
    w_qk, w_v = lemma4_layer(dd, nn, width)
    params = assemble(
        construction_config(dd, nn, width, 1, (nn,)),
        [(w_qk, w_v)],
        np.zeros((1, width)),
        jnp.float64,
    )
    seqs = _all_sequences(dd - 1, kk)
    tokens = np.column_stack([seqs, np.full(len(seqs), dd - 1)])
    x, den = _exact_last_streams(params, tokens)
    want = np.zeros_like(x)
    want[np.arange(len(seqs))[:, None], np.arange(kk)[None, :] * dd + seqs] = 1.0
    holds = den == 1 and np.array_equal(x, want)
    details = {
        "witness": {"d": d, "n": n, "k": k, "printed_width": printed, "embedding_width": d + n},
        "lemma4_layer_refuses_printed_width": refused,
        "corrected_width": f"max(k d, d + n) = {width} (d={dd}, n={nn})",
        "corrected_inputs": len(seqs),
        "corrected_status": "proved" if holds else "refuted",
    }
    if short and refused and holds:
        return Evidence(
            "corrected",
            f"printed width max(kd, d+k) = {printed} < d+n = {d + n} at d={d}, k=1; with "
            f"max(kd, d+n) the stream is exactly [x_0..x_{{k-1}}; 0] on all {len(seqs)} inputs",
            details,
        )
    return Evidence(
        "refuted" if not holds else "verified",
        f"printed width short={short}, refused={refused}, corrected holds={holds}",
        details,
    )


# --------------------------------------------------------------------------- theorems


def _theorem1(tier: str) -> Evidence:
    from transformer_theory.constructions import theorem1
    from transformer_theory.tasks import SequenceClassification

    _x64()
    A, length, N = (4, 3, 24) if tier == "quick" else (30, 6, 500)
    task = SequenceClassification(A, length, N)
    return _construction_evidence(
        "theorem1", theorem1(task), task, f"{A} symbols, n={length + 1}, N={N}"
    )


def _theorem3(tier: str) -> Evidence:
    from transformer_theory.constructions import theorem3
    from transformer_theory.tasks import InContextQA

    _x64()
    sizes = (3, 3, 2) if tier == "quick" else (6, 6, 3)
    task = InContextQA(*sizes)
    return _construction_evidence(
        "theorem3", theorem3(task), task, f"in-context QA{sizes}", want=Fraction(3)
    )


def _theorem3_printed(tier: str) -> Evidence:
    from transformer_theory.constructions import (
        theorem3,
        theorem3_as_printed,
        theorem3_printed_classifier,
    )
    from transformer_theory.params import validate_params
    from transformer_theory.tasks import InContextQA

    _x64()
    task = InContextQA(3, 3, 2)
    n_q, n_a, k = 3, 3, 2
    d, n = n_q + n_a + 1, 3 * k + 2
    printed = theorem3_printed_classifier(task)
    try:
        validate_params(theorem3_as_printed(task))
        rejected = False
    except ValueError:
        rejected = True
    corrected = theorem3_printed_classifier(task, corrected_width=True)
    paper_row = list(range(n_q)) + list(range(n_q + 1, d)) + [n_q] + list(range(d, d + n))
    params = theorem3(task)
    same = np.array_equal(corrected[paper_row].T, np.asarray(params.w_o))
    # The printed example (c = 0): the model answers a_0, not the printed a_1.
    r = d - 1
    tokens = np.array([[0, r, n_q + 0, 1, r, n_q + 1, 0, r]])
    ex = _exact_margins(params, tokens, np.array([0]))
    answers_a0 = ex["min_margin"] > 0
    inner = _theorem3(tier)
    details = {
        "witness": {
            "task": "in-context QA(3, 3, 2)",
            "printed_rows": int(printed.shape[0]),
            "d_prime": d + n,
            "validate_params_rejects_printed": rejected,
        },
        "corrected_width_equals_library_w_o": same,
        "paper_example_answer_is_a0": bool(answers_a0),
        "corrected_status": inner.status,
        "corrected_figure": inner.figure,
    }
    if printed.shape[0] != d + n and rejected and same and answers_a0 and inner.status == "proved":
        return Evidence(
            "corrected",
            f"printed W_O has {printed.shape[0]} rows, not d' = {d + n}; with trailing width "
            f"d' - (d1+d2+1) it is the library's W_O, and the model is {inner.status}",
            details,
        )
    return Evidence("refuted", f"corrected form does not hold ({inner.status})", details)


def _template_task(tier: str) -> tuple[Any, str]:
    from transformer_theory.tasks import TemplateMatching, all_templates

    A, l = (4, 4) if tier == "quick" else (6, 6)
    return TemplateMatching(A, all_templates(l)), f"templates over {A} symbols, l={l}"


def _theorem5(version: str) -> Callable[[str], Evidence]:
    def check(tier: str) -> Evidence:
        from transformer_theory.constructions import theorem5

        _x64()
        task, sizes = _template_task(tier)
        sizes += f", all {len(task.templates)} templates"
        return _construction_evidence(
            f"theorem5_{version}", theorem5(task, version=version), task, sizes
        )

    return check


def _first_failure(params: Any, task: Any) -> tuple[list[int], int, Fraction] | None:
    tokens, labels = task.all()
    ex = _exact_margins(params, np.asarray(tokens), np.asarray(labels))
    if ex["min_margin"] > 0:
        return None
    i = ex["worst"]
    return [int(t) for t in np.asarray(tokens)[i]], int(np.asarray(labels)[i]), ex["min_margin"]


def _printed_failures(build: Callable[..., Any], task: Any, repairs: tuple[str, ...]) -> dict:
    """For the printed model and each model missing one repair: the failing input, or None."""
    out = {}
    variants = {"printed": ()} | {
        f"without {r}": tuple(x for x in repairs if x != r) for r in repairs
    }
    for name, repair in variants.items():
        try:
            fail = _first_failure(build(task, repair=repair), task)
            out[name] = (
                None
                if fail is None
                else {"tokens": fail[0], "label": fail[1], "exact_margin": _fraction_text(fail[2])}
            )
        except ValueError as err:  # Lemma 3 cannot even be fit: two representatives are parallel
            out[name] = {"lemma3_refuses": str(err)}
    return out


def _theorem5_printed(tier: str) -> Evidence:
    from transformer_theory.constructions import theorem5_as_printed
    from transformer_theory.constructions.templates import PRINTED_REPAIRS
    from transformer_theory.tasks import TemplateMatching, all_templates

    _x64()
    task = TemplateMatching(4, all_templates(3))
    failures = _printed_failures(theorem5_as_printed, task, PRINTED_REPAIRS)
    inner = _theorem5("single")(tier)
    all_fail = all(v is not None for v in failures.values())
    details = {
        "witness_task": "templates over 4 symbols, l=3",
        "failures": failures,
        "corrected_status": inner.status,
        "corrected_figure": inner.figure,
    }
    if all_fail and inner.status == "proved":
        w = failures["printed"]
        what = (
            f"input {w['tokens']} (label {w['label']}) gets margin {w['exact_margin']}"
            if "tokens" in w
            else "Lemma 3 cannot be fit"
        )
        return Evidence(
            "corrected",
            f"as printed {what}; each repair alone still fails; repaired (base 3): {inner.status}",
            details,
        )
    return Evidence(
        "refuted" if inner.status != "proved" else "verified",
        f"printed/each-repair failures: {sorted(k for k, v in failures.items() if v)}; "
        f"corrected {inner.status}",
        details,
    )


def _base3_module() -> Any:
    spec = importlib.util.spec_from_file_location("_theorem5_base3_certify", _BASE3_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _theorem5_base3(tier: str) -> Evidence:
    from transformer_theory.constructions import template_code
    from transformer_theory.tasks import all_templates

    if not _BASE3_SCRIPT.exists():
        return Evidence("open", f"{_BASE3_SCRIPT.name} is not in this checkout", {})
    cert = _base3_module()
    L = 20 if tier == "quick" else 33
    collisions = cert.block_collisions(L)
    first = cert.block_collisions(34) if tier == "full" else None
    direct_l = 6 if tier == "quick" else 9
    codes = {template_code(t) for t in all_templates(direct_l)}
    n_templates = len(all_templates(direct_l))
    details = {
        "automaton_bound_L": L,
        "collisions_up_to_L": [list(c) for c in collisions],
        "direct_templates_l": direct_l,
        "direct_templates": n_templates,
        "direct_distinct_codes": len(codes),
        "script": "experiments/theorem5_base3_certify.py (exact integer carry automaton)",
    }
    if first is not None:
        details["first_collision_sizes_at_34"] = [list(c) for c in first]
    if not collisions and len(codes) == n_templates and (first is None or first):
        return Evidence(
            "proved",
            f"f(C) = (2+|C|) S_C injective on subsets of {{0..{L - 1}}} (exact automaton), so "
            f"base 3 gives distinct vectors for every l <= {L}; all {n_templates:,} templates at "
            f"l = {direct_l} distinct" + ("; first collision of f at l = 34" if first else ""),
            details,
        )
    return Evidence("refuted", f"collision of f below L = {L}: {collisions[:1]}", details)


def _theorem6(tier: str) -> Evidence:
    from transformer_theory.constructions import theorem6
    from transformer_theory.tasks import InContextTemplateMatching, all_templates

    _x64()
    A, n_a, l, k = (3, 3, 2, 2) if tier == "quick" else (3, 3, 3, 2)
    task = InContextTemplateMatching(A, n_a, all_templates(l), k)
    return _construction_evidence(
        "theorem6",
        theorem6(task),
        task,
        f"{A} symbols, {n_a} answers, l={l}, k={k}",
        want=Fraction(1, l),
    )


def _theorem6_printed(tier: str) -> Evidence:
    from transformer_theory.constructions import theorem6_as_printed
    from transformer_theory.constructions.contextual import PRINTED_REPAIRS
    from transformer_theory.tasks import InContextTemplateMatching, all_templates

    _x64()
    # W_QK^(1)'s rectangular block only reaches question positions when A > n_a + 1; the final
    # r's missing answers only matter when some answer is absent from the context (n_a > k).
    tasks = {
        "w_qk1": InContextTemplateMatching(4, 2, all_templates(2), 2),
        "m_coords": InContextTemplateMatching(3, 3, all_templates(2), 2),
        "final_r": InContextTemplateMatching(3, 3, all_templates(2), 2),
    }
    failures = {}
    printed = _first_failure(theorem6_as_printed(tasks["final_r"]), tasks["final_r"])
    failures["printed"] = printed
    for missing, task in tasks.items():
        rest = tuple(r for r in PRINTED_REPAIRS if r != missing)
        failures[f"without {missing}"] = _first_failure(
            theorem6_as_printed(task, repair=rest), task
        )
    inner = _theorem6(tier)
    details = {
        "witness_tasks": {
            "w_qk1": "4 symbols, 2 answers, l=2, k=2",
            "m_coords / final_r / printed": "3 symbols, 3 answers, l=2, k=2",
        },
        "failures": {
            k: None
            if v is None
            else {"tokens": v[0], "label": v[1], "exact_margin": _fraction_text(v[2])}
            for k, v in failures.items()
        },
        "corrected_status": inner.status,
        "corrected_figure": inner.figure,
    }
    if all(v is not None for v in failures.values()) and inner.status == "proved":
        tok, lab, q = failures["printed"]
        return Evidence(
            "corrected",
            f"as printed, input {tok} (answer {lab}) has margin {q}; dropping any one of the 3 "
            f"repairs fails; corrected: {inner.status}",
            details,
        )
    return Evidence(
        "refuted" if inner.status != "proved" else "verified",
        f"failing variants: {sorted(k for k, v in failures.items() if v)}; "
        f"corrected {inner.status}",
        details,
    )


# --------------------------------------------------------------------------- paper sizes

_PAPER_SIZES_JSON = RESULTS_DIR / "constructions_paper_sizes.json"
_UNIT_ROUNDOFF_64 = 2.0**-53


def _relative_tolerance(width: int) -> float:
    """The relative margin float64 rounding could fake: the logits are sums of at most
    ``width x 64`` products per layer (every sequence here is shorter than 64), and a forward
    error of ``16 x terms x u`` of the largest logit is the same heuristic factor as the
    verifier's tolerances (``theory/checks``); a margin above it is not a rounding artefact."""
    return 16.0 * width * 64 * _UNIT_ROUNDOFF_64


def _paper_size_rows(tier: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Quick: the construction rows at the smoke sizes, built and checked now. Full: the rows of
    the committed paper-size run (``experiments/constructions_paper_sizes.py --part paper``,
    10^5 sampled examples per theorem; Theorem 1's construction alone takes minutes to build)."""
    from transformer_theory.constructions import report

    if tier == "quick":
        _x64()
        rows = []
        for theorem, sizes in report.paper_sizes(smoke=True):
            rows += report.construction_rows([theorem], sizes, samples=300, seed=0)
        return rows, {
            "source": "built and checked now at report.paper_sizes(smoke=True), 300 "
            "sampled examples (every example where the dataset is smaller)"
        }
    from transformer_theory.jsonio import read_json

    record = read_json(str(_PAPER_SIZES_JSON))
    return record["rows"], {
        "source": "experiments/results/constructions_paper_sizes.json (the committed run of "
        "`python experiments/constructions_paper_sizes.py --part paper`)",
        "samples": record.get("samples"),
        "seed": record.get("seed"),
        "provenance": record.get("provenance"),
    }


def _paper_sizes(tier: str) -> Evidence:
    if tier == "full" and not _PAPER_SIZES_JSON.exists():
        return Evidence("open", "experiments/results/constructions_paper_sizes.json is missing", {})
    rows, source = _paper_size_rows(tier)
    checked = []
    for r in rows:
        tol = _relative_tolerance(int(r["width"]))
        checked.append(
            dict(
                theorem=str(r["theorem"]),
                sizes=str(r["sizes"]),
                examples=int(r["examples"]),
                mode=r["mode"],
                accuracy=float(r["accuracy"]),
                min_margin=float(r["min_margin"]),
                min_relative_margin=float(r["min_relative_margin"]),
                relative_tolerance=tol,
                holds=float(r["accuracy"]) == 1.0 and float(r["min_relative_margin"]) > tol,
            )
        )
    details = {**source, "rows": checked}
    worst = min(checked, key=lambda r: r["min_relative_margin"] / r["relative_tolerance"])
    examples = sum(r["examples"] for r in checked)
    if all(r["holds"] for r in checked):
        return Evidence(
            "verified",
            f"accuracy 1.0 on {examples:,} examples of {len(checked)} constructions; smallest "
            f"relative margin {worst['min_relative_margin']:.2g} (theorem {worst['theorem']}) "
            f"against a tolerance of {worst['relative_tolerance']:.1g}",
            details,
        )
    bad = [r for r in checked if not r["holds"]]
    return Evidence(
        "refuted",
        f"{len(bad)} of {len(checked)} rows miss: theorem {bad[0]['theorem']} at {bad[0]['sizes']} "
        f"accuracy {bad[0]['accuracy']}, relative margin {bad[0]['min_relative_margin']:.2g}",
        details,
    )


# --------------------------------------------------------------------------- experiments


def _fig2_rows() -> list[dict[str, str]]:
    with open(_FIG2_CSV, newline="") as f:
        return list(csv.DictReader(f))


def _fig2_summary(rows: list[dict[str, str]], task: str, depth: int) -> dict[str, Any]:
    accs = [
        float(r["final_eval_acc"]) for r in rows if r["task"] == task and int(r["depth"]) == depth
    ]
    chance = [float(r["chance"]) for r in rows if r["task"] == task][0]
    return dict(
        seeds=len(accs),
        mean=round(float(np.mean(accs)), 4) if accs else None,
        min=min(accs) if accs else None,
        max=max(accs) if accs else None,
        chance=chance,
    )


def _fig2(task: str, paper: str, judge: Callable[[dict[int, dict]], tuple[bool, str]]) -> Callable:
    def check(tier: str) -> Evidence:
        if not _FIG2_CSV.exists():
            return Evidence("open", "experiments/results/fig2_paper_summary.csv is missing", {})
        rows = _fig2_rows()
        by_depth = {depth: _fig2_summary(rows, task, depth) for depth in (1, 2, 3, 4)}
        agrees, figure = judge(by_depth)
        return Evidence(
            "measured",
            figure,
            {
                "paper": paper,
                "results_file": "experiments/results/fig2_paper_summary.csv",
                "held_out_accuracy_by_depth": by_depth,
                "agrees_with_paper": agrees,
                "tier_note": "both tiers read the committed CSV (no training is run)",
            },
        )

    return check


def _spread(s: dict) -> str:
    return f"{s['mean']:.2f} [{s['min']:.2f}, {s['max']:.2f}]"


def _judge_memorization(by: dict[int, dict]) -> tuple[bool, str]:
    ok = by[1]["min"] >= 0.99
    return ok, f"depth 1: {_spread(by[1])} over {by[1]['seeds']} seeds (paper: 1 layer memorizes)"


def _at_chance(s: dict) -> bool:
    return s["max"] <= s["chance"] + 0.02


def _judge_two_layers(task: str) -> Callable[[dict[int, dict]], tuple[bool, str]]:
    def judge(by: dict[int, dict]) -> tuple[bool, str]:
        ok = _at_chance(by[1]) and by[2]["mean"] >= 0.9
        return ok, (
            f"{task}: depth 1 {_spread(by[1])} (chance {by[1]['chance']:.3g}), depth 2 "
            f"{_spread(by[2])}, depth 3 {_spread(by[3])}"
        )

    return judge


def _judge_contextual(by: dict[int, dict]) -> tuple[bool, str]:
    ok = _at_chance(by[1]) and _at_chance(by[2]) and by[3]["mean"] >= 0.9
    return ok, (
        f"depth 1 {_spread(by[1])}, depth 2 {_spread(by[2])} (chance {by[1]['chance']:.3g}; "
        f"2 layers sit at 1/k = 0.5, not chance), depth 3 {_spread(by[3])}, "
        f"depth 4 {_spread(by[4])}"
    )


_FIG2_QUICK_CSV = RESULTS_DIR / "fig2_quick_aggregate.csv"


def _aggregate_by_depth(path: pathlib.Path, task: str) -> dict[int, dict[str, Any]]:
    """A train command's ``aggregate.csv`` rows for ``task``: depth -> seeds, mean, min, max,
    chance (one row per depth: Figure 2 uses one head per layer)."""
    return {c["depth"]: c for c in _aggregate_cells(path) if c["task"] == task}


def _aggregate_cells(path: pathlib.Path) -> list[dict[str, Any]]:
    """Every row of a train command's ``aggregate.csv``: task, heads, depth, seeds, and the
    held-out accuracy's mean, min, max beside chance."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [
        dict(
            task=r["task"],
            heads=r["heads"],
            depth=int(r["depth"]),
            seeds=int(r["seeds"]),
            mean=round(float(r["acc_mean"]), 4),
            min=float(r["acc_min"]),
            max=float(r["acc_max"]),
            chance=float(r["chance"]),
        )
        for r in rows
    ]


_FIG2_JUDGES: dict[str, Callable[[dict[int, dict]], tuple[bool, str]]] = {
    "memorization": _judge_memorization,
    "reasoning": _judge_two_layers("reasoning"),
    "generalization": _judge_two_layers("generalization"),
    "contextual": _judge_contextual,
}


def _fig2_quick(tier: str) -> Evidence:
    """Figure 2 at README's quick sizes, read from the committed aggregate (both tiers)."""
    if not _FIG2_QUICK_CSV.exists():
        return Evidence("open", "experiments/results/fig2_quick_aggregate.csv is missing", {})
    by_task, agrees = {}, {}
    for task, judge in _FIG2_JUDGES.items():
        by_depth = _aggregate_by_depth(_FIG2_QUICK_CSV, task)
        agrees[task], _ = judge(by_depth)
        by_task[task] = by_depth
    return Evidence(
        "measured",
        "agrees with the paper on "
        + ", ".join(t for t, ok in agrees.items() if ok)
        + "; differs on "
        + (", ".join(t for t, ok in agrees.items() if not ok) or "nothing")
        + f" ({by_task['reasoning'][1]['seeds']} seeds, quick sizes)",
        {
            "results_file": "experiments/results/fig2_quick_aggregate.csv",
            "held_out_accuracy_by_task_and_depth": by_task,
            "agrees_with_paper": agrees,
            "judged_by": "the fig2_* paper-size claims' rules: memorization depth 1 >= 0.99 on "
            "every seed; reasoning/generalization depth 1 within 0.02 of chance on every seed and "
            "depth 2 mean >= 0.9; contextual depths 1-2 within 0.02 of chance and depth 3 mean "
            ">= 0.9",
            "tier_note": "both tiers read the committed CSV (no training is run)",
        },
    )


_HEADS_CSV = RESULTS_DIR / "fig4_7_heads_quick_aggregate.csv"
_FIG3_JSON = RESULTS_DIR / "fig3_attention_quick.json"


def _fig4_7(tier: str) -> Evidence:
    """Figures 4-7 (heads per layer) at quick sizes, read from the committed aggregate."""
    if not _HEADS_CSV.exists():
        return Evidence(
            "open", "experiments/results/fig4_7_heads_quick_aggregate.csv is missing", {}
        )
    cells = _aggregate_cells(_HEADS_CSV)

    def where(task: str, depth: int) -> list[dict]:
        return [c for c in cells if c["task"] == task and c["depth"] == depth]

    one_layer_fails = all(
        c["max"] <= c["chance"] + 0.02
        for task in ("reasoning", "generalization")
        for c in where(task, 1)
    )
    two_layers_work = all(c["mean"] >= 0.9 for c in where("reasoning", 2)) and all(
        c["mean"] >= 0.85 for c in where("generalization", 2)
    )
    three_layers_contextual = all(c["mean"] >= 0.9 for c in where("contextual", 3))
    agrees = dict(
        one_layer_at_chance_with_any_heads=one_layer_fails,
        two_layers_reason_and_generalize=two_layers_work,
        three_layers_contextual=three_layers_contextual,
    )
    heads_one = sorted({c["heads"] for c in where("reasoning", 1)})
    return Evidence(
        "measured",
        f"one layer with {', '.join(heads_one)} heads at chance on reasoning/generalization: "
        f"{one_layer_fails}; two layers >= 0.9 / 0.85: {two_layers_work}; three layers on "
        f"contextual >= 0.9: {three_layers_contextual} ({cells[0]['seeds']} seeds, quick)",
        {
            "results_file": "experiments/results/fig4_7_heads_quick_aggregate.csv",
            "cells": cells,
            "agrees_with_paper": agrees,
            "tier_note": "both tiers read the committed CSV (no training is run)",
        },
    )


def _fig3(tier: str) -> Evidence:
    """Figure 3 at quick size, read from the committed attention-share summary."""
    from transformer_theory.jsonio import read_json

    if not _FIG3_JSON.exists():
        return Evidence("open", "experiments/results/fig3_attention_quick.json is missing", {})
    summary = read_json(str(_FIG3_JSON))
    correct = all(
        v["trained_prediction"] == v["answer"] == v["constructed_prediction"]
        for v in summary.values()
    )
    copy = [v["trained_layer1_share_on_copy"] for v in summary.values()]
    match = [v["trained_layer2_share_on_match"] for v in summary.values()]
    built = [v["constructed_layer2_share_on_match"] for v in summary.values()]
    answered = (
        f"trained model answers {len(summary)}/{len(summary)} inputs"
        if correct
        else "the trained model misses an input"
    )
    return Evidence(
        "measured",
        answered + f"; layer-1 share on the copy blocks {min(copy):.2f}-{max(copy):.2f}, layer-2 "
        f"on the matching block {min(match):.2f}-{max(match):.2f} (construction "
        f"{min(built):.2f})",
        {
            "results_file": "experiments/results/fig3_attention_quick.json",
            "inputs": summary,
            "answers_correct": correct,
            "reading": "the layer-1 copy pattern is the §9.1 initialization's (inherited, not "
            "learned); uniform attention would put 3/8 on the matching block",
            "tier_note": "both tiers read the committed summary (no training is run)",
        },
    )


def _claim(
    id: str,
    place: str,
    printed: str,
    checked: str,
    expected: str,
    check,
    command: str,
    correction: str | None = None,
) -> Claim:
    return Claim(
        id=f"chen_zou2024.{id}",
        paper=PAPER,
        place=place,
        printed=printed,
        checked=checked,
        expected=expected,
        check=check,
        command=command,
        correction=correction,
    )


CLAIMS: list[Claim] = [
    _claim(
        "lemma1_instructive",
        "§10, Lemma 1 (instructive attention)",
        "For any alpha in R_+^{n x n} there is a W_QK whose (ReLU) attention map is alpha on every "
        "input sequence.",
        "instructive_attention(alpha) for a random integer alpha in [0, 4]^{n x n}; the library's "
        "layer gives map = alpha exactly on every sequence over d tokens of length n (quick: d=3, "
        "n=4, 81 inputs; full: d=4, n=6, 4,096 inputs). Integer scores below 2^53: float64 is "
        "exact.",
        "proved",
        _lemma1,
        "transformer-theory claims --id 'chen_zou2024.lemma1*'",
    ),
    _claim(
        "lemma2_constrained",
        "§10, Lemma 2 (constrained attention)",
        "Adding -infinity to W_pp on the masked (key, query) pairs hides those keys from those "
        "queries and leaves the rest of the map unchanged.",
        "constrained_attention on a random integer W_QK in [-2, 2] and a random mask, with the "
        "library's finite M = bound + 1 (ReLU makes a finite M enough): every masked weight is "
        "exactly 0 and every unmasked weight equals the unconstrained one, on every sequence "
        "(quick d=3, n=4; full d=4, n=6); a magnitude below the bound is refused.",
        "proved",
        _lemma2,
        "transformer-theory claims --id 'chen_zou2024.lemma2*'",
    ),
    _claim(
        "lemma3_classifier",
        "§12, Lemma 3 (incremental linear classifier)",
        "N pairwise linearly independent vectors with distinct labels are classified by some "
        "linear map W (built incrementally, eq. 11-13).",
        "lemma3_classifier on N random integer vectors in [-3, 3]^D (pairwise independence decided "
        "exactly), labels a random permutation; the returned float64 W's margins computed exactly "
        "(W as dyadic rationals): all positive (quick N=40, D=6; full N=400, D=12).",
        "proved",
        _lemma3,
        "transformer-theory claims --id 'chen_zou2024.lemma3*'",
    ),
    _claim(
        "lemma4_width",
        "§12, Lemma 4",
        "One layer with n heads maps each sequence to [x_0; ...; x_{k-1}; 0] in width "
        "max{kd, d + k}; displayed alpha_i[:, n-1] = n [0; x_i; 0].",
        "The printed width max{kd, d+k} is short of the eq. 3 embedding (d + n) at k = 1 "
        "(d=3, n=2: 4 < 5) and lemma4_layer refuses it; with max{kd, d+n} the layer's last "
        "stream is exactly [x_0; ...; x_{k-1}; 0] (exact integer pass) on every input (quick "
        "d=3, n=4; full d=4, n=5). The display is the head's value W_V H alpha, not its map.",
        "corrected",
        _lemma4_printed,
        "pytest tests/constructions/"
        "test_lemmas.py::test_lemma4_printed_display_is_the_value_and_printed_width_is_short",
        correction="width max{kd, d + n} (the embedding must fit); the display is the value "
        "W_V H alpha_i[:, n-1], the map is e_i",
    ),
    _claim(
        "theorem1_memorization",
        "§5, Theorem 1 (Lemma 4 + Lemma 3)",
        "A one-layer transformer with n heads and d' = max{nd, d + n} memorizes any N sequences "
        "with distinct labels.",
        "theorem1 on SequenceClassification (quick: 4 symbols, n=4, N=24; full: 30 symbols, "
        "n=7, N=500, d'=217; README's 500 symbols, d'=3507, take minutes on 2 cores); every "
        "sequence classified, margins exact (integer streams, Lemma "
        "3's W_O as dyadic rationals) and equal to check_construction's float64 ones.",
        "proved",
        _theorem1,
        "transformer-theory claims --id chen_zou2024.theorem1_memorization --tier full "
        "(float64 only: "
        "transformer-theory construct --theorem 1 --alphabet 30 --length 6 --num-sequences 500)",
    ),
    _claim(
        "theorem3_reasoning",
        "§13.2, Theorem 3",
        "A two-layer, one-head transformer with d' = d + n answers every in-context QA query.",
        "theorem3 on every input of in-context QA (quick: (3, 3, 2), 72 inputs; full: (6, 6, 3), "
        "all 43,200); exact min margin 3 (integer weights and streams).",
        "proved",
        _theorem3,
        "transformer-theory claims --id chen_zou2024.theorem3_reasoning --tier full "
        "(float64 only: "
        "transformer-theory construct --theorem 3 --n-q 6 --n-a 6 -k 3)",
    ),
    _claim(
        "theorem3_printed_classifier",
        "§13.2, Theorem 3's W_O",
        "W_O = [0_{d2 x (d1+1)}, I_{d2}, 0_{d2 x (n - (d1+d2+1))}]^T; on the example, TF(H) = a_1.",
        "On in-context QA(3, 3, 2) the printed W_O has n = 8 rows, not d' = 15, and "
        "validate_params rejects it; with trailing width d' - (d1+d2+1) it equals the library's "
        "W_O (paper's token order mapped); the paper's example is answered a_0; the corrected "
        "model is proved as in theorem3_reasoning.",
        "corrected",
        _theorem3_printed,
        "pytest tests/constructions/"
        "test_depth.py::test_theorem3_printed_stream_holds_and_printed_classifier_fails",
        correction="trailing width d' - (d1+d2+1) (= n); the answer is a_0, not a_1",
    ),
    _claim(
        "theorem5_single_head",
        "§14.2, Theorem 5 (one head per layer, base 3)",
        "A two-layer, one-head transformer with d' = d + n classifies every template-matching "
        "sequence (ternary weights 3^{l-1}, ..., 1).",
        "The repaired single-head construction in the paper's base 3 on every sequence of every "
        "template (quick: 4 symbols, l=4, 256 inputs, 15 templates; full: 6 symbols, l=6, all "
        "46,656 inputs, 203 templates); exact margins.",
        "proved",
        _theorem5("single"),
        "transformer-theory claims --id chen_zou2024.theorem5_single_head --tier full (float64 "
        "only: transformer-theory construct --theorem 5 --alphabet 6 --template-length 6)",
    ),
    _claim(
        "theorem5_n_heads",
        "§14.2, Theorem 5 (n heads in layer 2)",
        "Two layers with n heads in the second (Lemma 4 on the parsed sequence) classify every "
        "template-matching sequence.",
        "theorem5(version='multi') on every sequence (quick: 4 symbols, l=4; full: 6 symbols, "
        "l=6, 46,656 inputs, d' = 49); exact margins.",
        "proved",
        _theorem5("multi"),
        "transformer-theory claims --id chen_zou2024.theorem5_n_heads --tier full (float64 "
        "only: transformer-theory construct --theorem 5 --alphabet 6 --template-length 6)",
    ),
    _claim(
        "theorem5_printed",
        "§14.2, Theorem 5's W_V^(1), W_V^(2)",
        "W_V^(1) = -I + I_n (columns [0, n)); W_V^(2) = I; layer 2's weights 3^{l-1-j} spell the "
        "template in ternary digits.",
        "theorem5_as_printed on templates over 4 symbols, l=3: as printed, and with only one of "
        "the two repairs, some input fails (exact margin <= 0, or Lemma 3 cannot be fit); with "
        "both repairs the model is theorem5's, proved as in theorem5_single_head.",
        "corrected",
        _theorem5_printed,
        "pytest tests/constructions/"
        "test_depth.py::test_theorem5_printed_fails_and_each_correction_is_needed",
        correction="W_V^(1) reads the position block; W_V^(2) restricted to the position block; "
        "the stream is R^2 g, not R g (distinct vectors certified for base 3, l <= 33)",
    ),
    _claim(
        "theorem5_base3_codes",
        "§14.2, Theorem 5 (base 3, all l)",
        "The ternary digits of layer 2's output determine the template (for every template "
        "length).",
        "The carry automaton of experiments/theorem5_base3_certify.py shows f(C) = (2+|C|) S_C "
        "injective on the subsets of {0..L-1} in exact integers (quick L=20; full L=33, and its "
        "first collision at L=34); template_code distinct on every template (quick l=6; full "
        "l=9, 21,147 templates).",
        "proved",
        _theorem5_base3,
        "python experiments/theorem5_base3_certify.py --out results/theorem5_base3",
    ),
    open_claim(
        "chen_zou2024.fig2_paper_single_runs",
        PAPER,
        "§9.2, Figure 2 (reasoning at §9.1's size, the single runs before the sweep)",
        "Two layers reason at §9.1's size (one layer fails).",
        "README's single paper-size runs (SGD lr 0.1 against Adam 1e-3 on in-context QA(100, "
        "100, 3), one seed and two short ones) were made before the committed sweep and their "
        "records were not kept; the sweep's fig2_reasoning claim reads its committed summary, and "
        "`python experiments/reasoning_paper_adam.py` re-runs the Adam comparison in about 2 "
        "minutes, which the ledger does not train",
        command="transformer-theory train --config experiments/reasoning_paper_adam.py",
    ),
    open_claim(
        "chen_zou2024.contextual_depth3_recipes",
        PAPER,
        "§9.2, Figure 2 (contextual generalization at three layers, seed 0)",
        "Three layers solve contextual generalization (Theorem 6 builds a solution).",
        "README's recipe search for seed 0 (four variants of 8,000 steps: wider padding, warm-up "
        "and cosine decay, Adam 1e-4, §9.1's initialization read literally; 0.51-0.84) is a "
        "training search whose records are not committed; it shows what these recipes reach, not "
        "what three layers can represent (Theorem 6's construction is proved)",
        command="python experiments/contextual_depth3_recipes.py VARIANT --seed 0",
    ),
    open_claim(
        "chen_zou2024.theorem5_base3_beyond_33",
        PAPER,
        "§14.2, Theorem 5 (base 3, l >= 34)",
        "The single-head construction in base 3 works for every template length.",
        "no proof for l >= 34: the sufficient condition (f injective) fails at l = 34 and whether "
        "two whole templates collide there is not decided; float64 holds the vectors exactly "
        "only to l = 30 (base l + 4 is proved for every l)",
        command="python experiments/theorem5_base3_certify.py",
    ),
    _claim(
        "theorem6_contextual",
        "§15, Theorem 6",
        "A three-layer transformer with heads (1, 1, 2l) and d' = d + n + l + 2 solves in-context "
        "template matching.",
        "The corrected theorem6 on every input (quick: 3 symbols, 3 answers, l=2, k=2; full: "
        "l=3, all 38,880 inputs); exact min margin >= 1/l.",
        "proved",
        _theorem6,
        "transformer-theory claims --id chen_zou2024.theorem6_contextual --tier full "
        "(float64 only: "
        "transformer-theory construct --theorem 6 --alphabet 3 --n-a 3 --ictm-template-length 3 "
        "-k 2)",
    ),
    _claim(
        "theorem6_printed",
        "§15, Theorem 6's W_QK^(1), alpha^(2), layer 3's M_i",
        "W_QK^(1) = [[I_{d1}, 0], [I_{(d'-d1) x d1}, 0]]; the final r attends to its own block; "
        "layer 3's M_i sits on the last l coordinates of d'.",
        "theorem6_as_printed answers no input of 3 symbols, 3 answers, l=2, k=2 (exact margin "
        "<= 0); dropping any one of the three repairs leaves a failing input (W_QK^(1) on 4 "
        "symbols, 2 answers); with all three the model is theorem6's, proved as in "
        "theorem6_contextual.",
        "corrected",
        _theorem6_printed,
        "pytest tests/constructions/"
        "test_depth.py::test_theorem6_printed_fails_and_each_correction_is_needed",
        correction="W_QK^(1): the symbol block only; the final r collects the context answers; "
        "layer 3 reads the first l padding coordinates",
    ),
    _claim(
        "constructions_paper_sizes",
        "§9.1 sizes; Theorems 1, 3, 5, 6",
        "The constructions of Theorems 1, 3, 5 and 6 solve their tasks (at §9.1's sizes: 500 "
        "symbols for memorization, 100 questions and answers for reasoning, 210 symbols for "
        "generalization, 100 symbols and answers for contextual generalization).",
        "check_construction in float64 at §9.1's sizes (report.paper_sizes: N = 500 and every "
        "sequence for Theorem 1; 10^5 uniformly sampled examples for Theorems 3, 5, 6, seed 0); "
        "holds when the accuracy is 1.0 and the smallest relative margin exceeds 16 x width x 64 x "
        "2^-53. Quick: the same pipeline at smoke sizes, built and checked now; full: the rows of "
        "the committed paper-size run. The exact proofs at smaller sizes are the theorem* claims.",
        "verified",
        _paper_sizes,
        "python experiments/constructions_paper_sizes.py --part paper --out "
        "results/constructions_paper_sizes",
    ),
    _claim(
        "fig2_memorization",
        "§9.2, Figure 2 (memorization)",
        "One layer memorizes (Theorem 1).",
        "experiments/results/fig2_paper_summary.csv (paper sizes, §9.1; Adam; 3 seeds): held-out "
        "(= memorized set) accuracy by depth; agreement = every depth-1 seed >= 0.99.",
        "measured",
        _fig2("memorization", "one layer memorizes (Thm 1)", _judge_memorization),
        "transformer-theory train --experiment fig2_paper --out results/fig2_paper",
    ),
    _claim(
        "fig2_reasoning",
        "§9.2, Figure 2 (reasoning)",
        "One layer fails, at chance (Theorem 2); two layers reason (Theorem 3).",
        "fig2_paper_summary.csv, in-context QA at §9.1's sizes, 3 seeds; agreement = depth 1 "
        "within 0.02 of chance on every seed and depth 2 mean >= 0.9.",
        "measured",
        _fig2(
            "reasoning",
            "1 layer at chance (Thm 2); 2 layers reason (Thm 3)",
            _judge_two_layers("reasoning"),
        ),
        "transformer-theory train --experiment fig2_paper --out results/fig2_paper",
    ),
    _claim(
        "fig2_generalization",
        "§9.2, Figure 2 (generalization)",
        "One layer fails, at chance (Theorem 4); two layers generalize (Theorem 5).",
        "fig2_paper_summary.csv, template matching at §9.1's sizes, 3 seeds; agreement = depth 1 "
        "within 0.02 of chance on every seed and depth 2 mean >= 0.9.",
        "measured",
        _fig2(
            "generalization",
            "1 layer at chance (Thm 4); 2 layers generalize (Thm 5)",
            _judge_two_layers("generalization"),
        ),
        "transformer-theory train --experiment fig2_paper --out results/fig2_paper",
    ),
    _claim(
        "fig2_contextual",
        "§9.2, Figure 2 (contextual generalization)",
        "One and two layers fail, at chance (Theorem 2, §6.1); three layers succeed (Theorem 6).",
        "fig2_paper_summary.csv, in-context template matching at §9.1's sizes (capped at 3,000 "
        "steps at depths 1-2, 8,000 at 3-4), 3 seeds; agreement = depths 1-2 within 0.02 of "
        "chance and depth 3 mean >= 0.9. Two layers sit at 1/k = 0.5: the paper's 'at chance' "
        "does not hold for them.",
        "measured",
        _fig2(
            "contextual",
            "1-2 layers at chance (Thm 2, §6.1); 3 layers succeed (Thm 6)",
            _judge_contextual,
        ),
        "transformer-theory train --experiment fig2_paper --out results/fig2_paper",
    ),
    _claim(
        "fig2_quick",
        "§9.2, Figure 2 (README's quick sizes)",
        "One layer memorizes but fails reasoning and generalization (at chance); two layers "
        "reason and generalize; three layers are needed for contextual generalization.",
        "experiments/results/fig2_quick_aggregate.csv (the aggregate.csv of `transformer-theory "
        "train --experiment fig2_depth --size quick --seeds 0 1 2`, re-run 2026-11-25): held-out "
        "accuracy by task and depth over 3 seeds, judged by the same rules as the fig2_* "
        "paper-size claims; a measurement at reduced sizes, not a proof of the theorems.",
        "measured",
        _fig2_quick,
        "transformer-theory train --experiment fig2_depth --size quick --seeds 0 1 2 --out "
        "results/fig2_quick",
    ),
    _claim(
        "fig3_attention_maps",
        "§9.2, Figure 3 (attention maps of a trained two-layer model)",
        "The trained two-layer model's attention resembles the construction of Theorem 3.",
        "experiments/results/fig3_attention_quick.json (the fig3_attention.json of "
        "`transformer-theory train --experiment fig3_attention_maps --size quick --seeds 0`, run "
        "2026-11-25): the trained two-layer model's predictions on `A=1B=2A=` and `A=1B=2B=` and "
        "the share of its attention on the construction's copy (layer 1) and matching (layer 2) "
        "positions; a measurement, not Theorem 3's proof.",
        "measured",
        _fig3,
        "transformer-theory train --experiment fig3_attention_maps --size quick --seeds 0 --out "
        "results/fig3_quick",
    ),
    _claim(
        "fig4_7_heads",
        "§9.2-9.3, Figures 4-7 (heads per layer)",
        "More heads do not help one layer on reasoning or generalization; two layers reason and "
        "generalize with any heads; three layers solve contextual generalization.",
        "experiments/results/fig4_7_heads_quick_aggregate.csv (the aggregate.csv of "
        "`transformer-theory train --experiment fig4_7_heads --size quick --seeds 0 1`, run "
        "2026-11-25): one layer with every head count within 0.02 of chance on every seed of "
        "reasoning and generalization; two layers' mean >= 0.9 on reasoning and >= 0.85 on "
        "generalization; three layers' mean >= 0.9 on contextual generalization.",
        "measured",
        _fig4_7,
        "transformer-theory train --experiment fig4_7_heads --size quick --seeds 0 1 --out "
        "results/heads_quick",
    ),
]
