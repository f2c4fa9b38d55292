"""The checks behind Svete & Cotterell 2024's claims rows (:mod:`.claims`): each runs this
package's constructions and returns a :class:`~transformer_theory.ledger.Checked` (what it
computed, in what arithmetic, over which inputs); the row's judge reads it and
:func:`transformer_theory.ledger.derive_status` gives the status.

What is computed, by kind:

- Weak equivalence (:func:`construction`, :func:`paper33`): ``log q(y)`` of a built model, its
  float64 forward pass, against the n-gram's ``log p(y)`` on every string up to a length, for
  several seeded random LMs, within :func:`._theory_equivalence.logprob_tolerance`. Float: the built
  models use average-hard attention over ``log_softmax`` outputs, which the exact engine
  (:mod:`transformer_theory.exact`) does not evaluate (no hard-attention argmax ties or -inf
  table entries), so the equivalence is float64 and is declared ``unenclosed``.
- Selection (:func:`selection_margin`, :func:`per_query_leads`): the attention scores of a built
  float64 model enclosed in ``flint.arb`` balls at 256 bits (the scores are a bilinear form of
  the float64 stream, so :func:`transformer_theory.exact.arb_matrix` of the stream and ``W_QK``
  is the exact engine's enclosure of them), and the lead of the proof's key(s) over every other
  key. The scores read only coordinates no layer writes and no token changes (checked), so one
  input covers every string of that length.
- The slides' score (:func:`score_argmax`, :func:`slide_query_map`): ``<u(t), u(s)>`` with
  ``u(s) = (sqrt(1/s), sqrt(1 - 1/s))`` in arb balls; this small model is the slides' formula,
  not a ModelParams, so it is evaluated here (:func:`code`, :func:`literal_query`).
- Float runs of the constructions (precision scans, float32/bfloat16 equivalence, softmax KL):
  the float model is the object measured; attention is compared with the proof's exactly.
- Sizes (:func:`construction_sizes`): integers counted from the built arrays.
- Learnability (:func:`learnability`): a committed record read from disk.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from transformer_theory.domains import Tally
from transformer_theory.ledger import RESULTS_DIR, Checked, Witness
from transformer_theory.papers.svete_cotterell2024 import _domains as dom
from transformer_theory.precision import require_x64

__all__ = [
    "bfloat16",
    "code",
    "construction",
    "construction_sizes",
    "derived_exact_length",
    "float32_equivalence",
    "learnability",
    "literal_query",
    "paper33",
    "paper33_float32",
    "per_query_leads",
    "precision",
    "score_argmax",
    "selection_margin",
    "selection_witness",
    "slide_query_map",
    "softmax_kl",
    "sparse_built_length",
]

PREC = 256  # bits: a product of two doubles and the short sums of the scores stay exact

#: Heads per layer the slides print for each theorem, for order ``n`` (the library's variants are
#: checked against the theorem they witness: 3.2-direct against 3.2, 3.3-slots against 3.3).
PRINTED_SHAPE = {
    "3.1": lambda n: (1, n - 1),  # (layers, heads per layer)
    "3.2": lambda n: (n - 1, 1),
    "3.2-direct": lambda n: (n - 1, 1),
    "3.3": lambda n: (1, 1),
    "3.3-slots": lambda n: (1, 1),
}


def _lm(seed: int, alphabet: int, order: int, zeros: float) -> Any:
    from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM

    return NGramLM.random(seed, alphabet, order, zero_fraction=zeros)


def _lms(seeds: int, order: int, alphabet: int, zeros: float, max_len: int) -> Tally:
    """A tally of the ``seeds`` seeded random LMs (every string up to ``max_len`` each)."""
    return Tally(
        dom.NGRAM_LMS.sample(
            seeds,
            0,
            lambda seed, i: _lm(i, alphabet, order, zeros),
            what=f"{_lm_text(seeds, order, alphabet, zeros)}, every string up to length {max_len}",
        )
    )


def _lengths(max_len: int, recs: list[dict]) -> Tally:
    """Every string length ``0..max_len``, each recorded when every record enumerated it."""
    tally = Tally(dom.LENGTHS.upto(max_len))
    if all(r["exhaustive"] for r in recs):
        tally.record_all(range(max_len + 1))
    return tally


def _lower(x: Any) -> float:
    return float(x.lower())


def _lm_text(seeds: int, order: int, alphabet: int, zeros: float) -> str:
    return (
        f"{seeds} random {order}-gram LM{'s' if seeds > 1 else ''} over {alphabet} symbols "
        f"({zeros:.0%} exact zeros; seed{'s 0..' if seeds > 1 else ' '}{seeds - 1})"
    )


def _tolerance_text() -> str:
    return (
        "equivalence.logprob_tolerance: (L + 1) 4 u (max |log p| + 2) per string of length L, "
        "u = 2^-53 (each term a log_softmax of the rounded table row)"
    )


# ------------------------------------------------------------------------ selection, enclosed
def selection_margin(params: Any, construction: str, length: int) -> dict:
    """The lead of the proof's key(s) at every query ``i >= 1`` of the input ``BOS^w 0^length``,
    enclosed with ``flint.arb``: ``min_lead_lower_bound`` (a lower bound), where it is, whether
    the window ties of 3.3-slots are exact, and whether the scores are token- and
    layer-independent (else the margin says nothing about other strings and ``ok`` is False)."""
    import flint
    import jax.numpy as jnp

    from transformer_theory.core.forward import embed, forward_trace, lm_inputs
    from transformer_theory.exact import arb_matrix
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024._theory_precision import intended_attention

    cfg = params.config
    w = cfg.bos_pad
    qk = [np.asarray(layer.attn.w_qk, np.float64) for layer in params.layers]
    idx = sorted({int(k) for m in qk for k in (*np.nonzero(m)[1], *np.nonzero(m)[2])})
    tokens = lm_inputs(cfg, jnp.zeros((length,), jnp.int32))
    trace = forward_trace(params, tokens)
    streams = np.asarray(trace.streams_LxNxD, np.float64)
    rng = np.random.default_rng(0)
    other = jnp.asarray(rng.integers(0, cfg.vocab_size, size=tokens.shape[0]), jnp.int32)
    emb_other = np.asarray(embed(params, other), np.float64)
    independent = bool(
        min(idx) >= cfg.vocab_size
        and all(np.array_equal(s[:, idx], streams[0][:, idx]) for s in streams[: len(qk)])
        and np.array_equal(emb_other[:, idx], streams[0][:, idx])
    )
    N = streams.shape[1]
    with flint.ctx.workprec(PREC):
        X = arb_matrix(streams[0][:, idx])
        worst, where, ties_exact = None, None, True
        for layer, head, offset in cn.head_offsets(construction, w + 1):
            Wt = arb_matrix(qk[layer][head][np.ix_(idx, idx)].T)
            S = X * Wt * X.transpose()  # S[i, j] = (W_QK h_i) . h_j
            want = intended_attention(offset, w, N) > 0
            for i in range(1, N):
                keys = [j for j in range(i + 1) if want[i, j]]
                others = [j for j in range(i + 1) if not want[i, j]]
                top = S[i, keys[0]]
                for k in keys[1:]:
                    d = S[i, k] - top
                    ties_exact &= bool(d.is_exact() and d.is_zero())
                for j in others:
                    lead = top - S[i, j]
                    if worst is None or _lower(lead) < _lower(worst):
                        worst, where, key = lead, (layer, head, i, j), keys[0]
    lead_lower = _lower(worst) if worst is not None else float("inf")
    return {
        "length": int(length),
        "queries": int((N - 1) * len(cn.head_offsets(construction, w + 1))),
        "min_lead_lower_bound": lead_lower,
        "min_lead": str(worst) if worst is not None else None,
        "at_layer_head_query_key": where,
        "proof_key": None if worst is None else int(key),
        "window_ties_exact": bool(ties_exact),
        "scores_input_independent": independent,
        "ok": bool(independent and ties_exact and lead_lower > 0),
    }


def selection_witness(params: Any, margin: dict, length: int) -> tuple[Witness, ...]:
    """The float64 score lead (the library's own streams and weights, multiplied in NumPy) at the
    query and key where :func:`selection_margin` found its smallest enclosed lead, which must lie
    inside the ball that check certified (``margin["min_lead"]``) widened by its rounding
    (``4 D u`` of the terms' sizes): a lead certified where the float value is not is no
    enclosure. ``()`` when nothing was enclosed."""
    import jax.numpy as jnp

    from transformer_theory.core.forward import forward_trace, lm_inputs

    if margin["at_layer_head_query_key"] is None:
        return ()
    layer, head, i, j = margin["at_layer_head_query_key"]
    k = margin["proof_key"]
    cfg = params.config
    qk = [np.asarray(lay.attn.w_qk, np.float64) for lay in params.layers]
    idx = sorted({int(c) for m in qk for c in (*np.nonzero(m)[1], *np.nonzero(m)[2])})
    trace = forward_trace(params, lm_inputs(cfg, jnp.zeros((length,), jnp.int32)))
    x = np.asarray(trace.streams_LxNxD, np.float64)[0][:, idx]
    wt = qk[layer][head][np.ix_(idx, idx)].T
    q = x[i] @ wt
    lead = float(q @ x[k] - q @ x[j])
    size = float(np.abs(x[i]) @ np.abs(wt) @ (np.abs(x[k]) + np.abs(x[j])))
    slack = 4 * len(idx) * float(np.finfo(np.float64).eps) * (size + 1)
    name = f"float64 selection lead (layer {layer}, head {head}, query {i}, key {k} over {j})"
    return (Witness(name, lead, margin["min_lead"], "inside", slack),)


def per_query_leads(params: Any, construction: str, length: int) -> list[tuple[int, Any]]:
    """``(query, lead)`` of a one-key construction: the ball of the smallest lead of the proof's
    key over the others at each query, over every head (scores as :func:`selection_margin`)."""
    import flint
    import jax.numpy as jnp

    from transformer_theory.core.forward import embed, lm_inputs
    from transformer_theory.exact import arb_matrix
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024._theory_precision import intended_attention

    cfg = params.config
    w = cfg.bos_pad
    qk = [np.asarray(layer.attn.w_qk, np.float64) for layer in params.layers]
    idx = sorted({int(k) for m in qk for k in (*np.nonzero(m)[1], *np.nonzero(m)[2])})
    emb = np.asarray(embed(params, lm_inputs(cfg, jnp.zeros((length,), jnp.int32))), np.float64)
    N = emb.shape[0]
    with flint.ctx.workprec(PREC):
        out: dict[int, Any] = {}
        X = arb_matrix(emb[:, idx])
        for layer, head, offset in cn.head_offsets(construction, w + 1):
            S = X * arb_matrix(qk[layer][head][np.ix_(idx, idx)].T) * X.transpose()
            want = intended_attention(offset, w, N)
            for i in range(1, N):
                k = int(np.argmax(want[i]))
                for j in range(i + 1):
                    if j != k:
                        lead = S[i, k] - S[i, j]
                        if i not in out or _lower(lead) < _lower(out[i]):
                            out[i] = lead
    return sorted(out.items())


# ------------------------------------------------------------------------ Theorems 3.1-3.3
def _shape_within_printed(heads: tuple[int, ...], construction: str, order: int) -> bool:
    layers, per_layer = PRINTED_SHAPE[construction](order)
    return len(heads) <= layers and max(heads) <= per_layer


def construction(
    construction: str,
    order: int,
    alphabet: int,
    zeros: float,
    seeds: int,
    max_len: int,
    margin_len: int,
) -> Checked:
    """A construction (3.1, 3.2, 3.2-direct, 3.3-slots) built for ``seeds`` random LMs: weak
    equivalence on every string up to ``max_len`` (float64), its heads per layer against the
    printed count, and (seed 0's model) the selection lead enclosed at every query up to
    ``margin_len``."""
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024._theory_equivalence import equivalence_record

    require_x64("construction")
    tally = _lms(seeds, order, alphabet, zeros, max_len)
    recs, shapes, margin = [], [], None
    for seed in range(seeds):
        lm = _lm(seed, alphabet, order, zeros)
        params = cn.build(lm, construction, max_len=margin_len)
        recs.append(equivalence_record(lm, params, max_len))
        if recs[-1]["exhaustive"]:  # every string up to max_len of this LM
            tally.record_count(1)
        shapes.append(tuple(int(h) for h in params.config.heads))
        if margin is None:
            margin, margin_params = selection_margin(params, construction, margin_len), params
    strings = sum(r["strings"] for r in recs)
    return Checked(
        "enclosed",
        tally,
        values={
            "selection_enclosed": f"every query up to length {margin_len} (seed 0's model)",
            "equivalent": all(r["equivalent"] for r in recs),
            "strings": strings,
            "max_abs_logprob_diff": max(r["max_abs_logprob_diff"] for r in recs),
            "tolerance_used": max(r["tolerance_used"] for r in recs),
            "heads_per_layer": [list(s) for s in shapes],
            "printed_layers_heads": list(PRINTED_SHAPE[construction](order)),
            "within_printed": all(_shape_within_printed(s, construction, order) for s in shapes),
            "selection": margin,
            "selection_ok": bool(margin["ok"]),
            "min_lead": margin["min_lead_lower_bound"],
        },
        tolerance=_tolerance_text(),
        unenclosed=("log q(y) - log p(y) on every string: the built model's float64 forward",),
        witnesses=selection_witness(margin_params, margin, margin_len),
    )


def paper33(order: int, alphabet: int, zeros: float, seeds: int, max_len: int) -> Checked:
    """The paper's 3.3 (:func:`._constructions.build_paper33`) for ``seeds`` random LMs: weak
    equivalence on every string up to ``max_len`` in float64 (no enclosure: its digit decoding
    is a chain of ReLU steps with gain ``10^n`` read by argmax, not a ModelParams)."""
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024._theory_equivalence import equivalence_record

    require_x64("paper33")
    tally = _lms(seeds, order, alphabet, zeros, max_len)
    recs = []
    for seed in range(seeds):
        lm = _lm(seed, alphabet, order, zeros)
        recs.append(equivalence_record(lm, cn.build_paper33(lm), max_len))
        if recs[-1]["exhaustive"]:
            tally.record_count(1)
    strings = sum(r["strings"] for r in recs)
    return Checked(
        "float",
        tally,
        values={
            "equivalent": all(r["equivalent"] for r in recs),
            "strings": strings,
            "max_abs_logprob_diff": max(r["max_abs_logprob_diff"] for r in recs),
            "tolerance_used": max(r["tolerance_used"] for r in recs),
            "within_printed": True,  # Paper33 is one head in one layer by its type
        },
        tolerance=_tolerance_text(),
    )


# ------------------------------------------------------------------------ sparse attention
def sparse_built_length(
    order: int, alphabet: int, zeros: float, built_for: int, eq_len: int, slots_to: int
) -> Checked:
    """Sparse 3.1 built for strings up to ``built_for``: sparsemax is one-hot iff the scaled lead
    is >= 1; that lead enclosed at every query up to length ``built_for + 4``; the first query
    below 1 is the witness, re-run in float64 on every string of its length; equivalence up to
    ``eq_len`` (float64); sparse 3.3-slots' lead enclosed to ``slots_to``."""
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024._theory_equivalence import (
        equivalence_record,
        logprob_tolerance,
        transformer_log_prob,
    )

    require_x64("sparse_built_length")
    lm = _lm(0, alphabet, order, zeros)
    w = lm.order - 1
    params = cn.build(lm, "3.1", attention="sparse", max_len=built_for)
    leads = per_query_leads(params, "3.1", built_for + 4)
    # every query of a string of length built_for + 4 (after the w BOS pads), each recorded
    tally = Tally(dom.QUERIES.at(range(1, built_for + 4 + w)))
    tally.record_all(i for i, _ in leads)
    below = [i for i, lead in leads if not lead >= 1]
    first_bad = min(below) if below else None
    exact_to = None if first_bad is None else first_bad - w  # a query i serves lengths >= i-w+1
    rec = equivalence_record(lm, params, eq_len)
    witness = None
    if first_bad is not None:
        L = first_bad - w + 1
        strings = lm.strings_of_length(L)
        got, ref = transformer_log_prob(params, strings), lm.log_prob(strings)
        with np.errstate(invalid="ignore"):
            diff = np.abs(got - ref)  # both -inf (an impossible string): agreement, not NaN
        diff = np.where(np.isneginf(got) & np.isneginf(ref), 0.0, diff)
        diff = np.where(np.isnan(diff), np.inf, diff)
        k = int(np.argmax(diff))
        witness = {
            "string": strings[k].tolist(),
            "length": L,
            "query": first_bad,
            "lead": str(dict(leads)[first_bad]),
            "abs_logprob_diff": float(diff[k]),
            "tolerance": logprob_tolerance(lm, L, np.float64),
        }
    slots = cn.build(lm, "3.3-slots", attention="sparse", max_len=built_for)
    slots_margin = selection_margin(slots, "3.3-slots", slots_to)
    witnesses = selection_witness(slots, slots_margin, slots_to)
    fails_beyond = witness is not None and witness["abs_logprob_diff"] > witness["tolerance"]
    return Checked(
        "enclosed",
        tally,
        values={
            "also": f"one {order}-gram LM over {alphabet} symbols (seed 0): every string up to "
            f"{eq_len} and every string of the witness length (float64); sparse 3.3-slots every "
            f"query up to length {slots_to} (enclosed)",
            "built_for": built_for,
            "beta": float(np.asarray(params.layers[0].attn.w_qk).max()),
            "lead_ge_1_through_length": exact_to,
            "witness": witness,
            "fails_beyond_built_length": bool(fails_beyond),
            "equivalent_up_to_eq_len": bool(rec["equivalent"]),
            "slots_lead": slots_margin["min_lead_lower_bound"],
            "slots_ok": bool(slots_margin["ok"] and slots_margin["min_lead_lower_bound"] >= 1),
            "holds": bool(
                fails_beyond
                and rec["equivalent"]
                and exact_to is not None
                and exact_to >= built_for
                and slots_margin["ok"]
                and slots_margin["min_lead_lower_bound"] >= 1
            ),
        },
        tolerance=_tolerance_text(),
        unenclosed=(
            "the witness's |log q - log p| (float64 forward)",
            "weak equivalence up to eq_len (float64 forward)",
        ),
        witnesses=witnesses,
    )


# ------------------------------------------------------------------------ the slides' score
def code(s: Any) -> tuple[Any, Any]:
    """The slides' positional code ``u(s) = (sqrt(1/s), sqrt(1 - 1/s))`` as arb balls."""
    import flint

    from transformer_theory import exact

    be = exact.balls()  # the engine's sqrt and division (checked by its own rows)
    s = flint.arb(s)
    inv = be.div(flint.arb(1), s)
    return be.sqrt(inv), be.sqrt(1 - inv)


def literal_query(t: int, h: int) -> tuple[Any, Any]:
    """The slides' printed query ``Q_h(r(y_t, t)) = (sqrt(1/t), sqrt(1 - 1/(t + h)))``."""
    import flint

    from transformer_theory import exact

    be = exact.balls()  # the engine's sqrt and division (checked by its own rows)
    tt = flint.arb(t)
    return be.sqrt(be.div(flint.arb(1), tt)), be.sqrt(1 - be.div(flint.arb(1), tt + h))


def _float_code(s: int) -> np.ndarray:
    """``u(s)`` in float64 (the witness beside the balls)."""
    return np.array([np.sqrt(1 / s), np.sqrt(1 - 1 / s)])


def _dot(a: tuple[Any, Any], b: tuple[Any, Any]) -> Any:
    return a[0] * b[0] + a[1] * b[1]


def score_argmax(positions: int) -> Checked:
    """``<u(t), u(s)>`` enclosed for every ``t <= T`` and ``s <= T + 1``: whether it contains 1
    at ``s = t`` and is < 1 (ball) at every other ``s``; the library's float
    :func:`._constructions_layout.score_gap` beside the enclosed gap (not deciding)."""
    import flint

    from transformer_theory.papers.svete_cotterell2024._constructions_layout import score_gap

    T = positions
    tally = Tally(dom.QUERIES.upto(T))
    with flint.ctx.workprec(PREC):
        peak_ok, below_ok, worst, min_gap = True, True, None, None
        for t in range(1, T + 1):
            peak_ok &= bool((_dot(code(t), code(t)) - 1).contains(0))
            best = None
            for s in range(1, T + 2):
                if s != t:
                    g = 1 - _dot(code(t), code(s))
                    below_ok &= bool(g > 0)
                    best = g if best is None or _lower(g) < _lower(best) else best
            worst = best
            min_gap = _lower(best) if min_gap is None else min(min_gap, _lower(best))
            tally.record(t)
        lib = float(score_gap(T))
        last = 1 - _dot(code(T), code(T + 1))
    u = float(np.finfo(np.float64).eps) / 2
    got = 1 - float(np.dot(_float_code(T), _float_code(T + 1)))
    return Checked(
        "enclosed",
        tally,
        witnesses=(
            Witness(
                f"float64 1 - <u({T}), u({T + 1})> inside its ball",
                got,
                last,
                "inside",
                8 * u,  # two square roots, a dot of two terms and a difference from 1
            ),
        ),
        subject="printed",
        values={
            "keys": f"every key s <= {T + 1} at each query",
            "peak_at_s_eq_t": bool(peak_ok),
            "others_below_peak": bool(below_ok),
            "maximized_at_target": bool(peak_ok and below_ok),
            "positions": T,
            "gap_at_T": str(worst),
            "gap_at_T_mid": float(worst.mid()),
            "library_score_gap_at_T": lib,
        },
    )


def slide_query_map(offsets: int, positions: int) -> Checked:
    """The slides' literal ``Q_h`` against keys ``K_h(r(y_j, j)) = u(j + h)`` in arb balls, for
    ``h = 1..offsets`` and ``h < t <= positions``: whether the score's argmax over ``j <= t`` is
    ``j = t - h`` (lead > 0, ball), and whether its peak exceeds 1 (it is not a cosine)."""
    import flint

    tally = Tally(dom.Product(dom.OFFSETS.upto(offsets), dom.QUERIES.upto(positions)))
    with flint.ctx.workprec(PREC):
        argmax_ok, peak_above_1, min_lead, where, peak = True, True, None, None, None
        for h in range(1, offsets + 1):
            tally.record_all((h, t) for t in range(1, h + 1))  # no key j = t - h >= 1: vacuous
            for t in range(h + 1, positions + 1):
                q = literal_query(t, h)
                top = _dot(q, code(t))  # key j = t - h: u(j + h) = u(t)
                peak_above_1 &= bool(top > 1)
                for j in range(1, t + 1):
                    if j != t - h:
                        lead = top - _dot(q, code(j + h))
                        argmax_ok &= bool(lead > 0)
                        if min_lead is None or _lower(lead) < _lower(min_lead):
                            min_lead, where, peak = lead, (t, h, j), top
                tally.record((h, t))
    t, h, j = where
    fq = np.array([np.sqrt(1 / t), np.sqrt(1 - 1 / (t + h))])
    got = float(fq @ _float_code(t) - fq @ _float_code(j + h))
    eps64 = float(np.finfo(np.float64).eps)
    return Checked(
        "enclosed",
        tally,
        witnesses=(
            Witness(
                f"float64 peak <Q_h(t), u(t)> (t = {t}, h = {h}) inside its ball",
                float(fq @ _float_code(t)),
                peak,
                "inside",
                8 * eps64,  # three square roots and a dot of two terms
            ),
            Witness(
                f"float64 smallest lead (t = {t}, h = {h}, j = {j}) inside its ball",
                got,
                min_lead,
                "inside",
                16 * eps64,  # four square roots, two dots, a difference
            ),
        ),
        subject="printed",
        values={
            "argmax_at_t_minus_h": bool(argmax_ok),
            "peak_above_1": bool(peak_above_1),
            "min_lead": _lower(min_lead),
        },
    )


# ------------------------------------------------------------------------ precision (float runs)
def _scan(lm: Any, c: str, precision_name: str, limit: int, max_len: int) -> dict:
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024 import _theory_precision as precision_scan
    from transformer_theory.precision import dtype_of

    dtype = dtype_of(precision_name)
    if c == "3.3":
        return precision_scan.paper33_scan(cn.build_paper33(lm, dtype=dtype), max_length=limit)
    params = cn.build(lm, c, max_len=max_len, dtype=dtype)
    return precision_scan.selection_scan(params, c, max_length=limit) | {
        "derived": precision_scan.predicted_exact_length(c, lm.order, dtype)
    }


def _exact_to(r: dict) -> int:
    """The longest exact length a scan found (its limit when nothing failed)."""
    return r["checked_up_to"] if r["longest_exact_length"] is None else r["longest_exact_length"]


_SCAN_TOL = "none needed: the float model is the object measured; attention compared exactly"


def derived_exact_length(
    constructions: tuple[str, ...], precision: str, alphabet: int, cap: int | None = None
) -> Checked:
    """The derived guarantee (:func:`._theory_precision.predicted_exact_length`) tested where a run
    reaches it: each construction built in ``precision`` and scanned
    (:func:`._theory_precision.selection_scan`) at every length up to its derived length (or
    to ``cap`` where that is shorter: the quick tier's scan)."""
    from transformer_theory.papers.svete_cotterell2024 import _theory_precision as precision_scan
    from transformer_theory.precision import dtype_of

    require_x64("derived_exact_length")
    lm = _lm(0, alphabet, 3, 0.2)
    rows, holds = {}, True
    for c in constructions:
        derived = precision_scan.predicted_exact_length(c, 3, dtype_of(precision))
        if derived is None:
            rows[c] = {"derived": None}
            continue
        target = derived if cap is None else min(derived, int(cap))
        r = _scan(lm, c, precision, target, 2)
        ok = r["longest_exact_length"] is None
        rows[c] = {"derived": derived, "scanned_to": target, "scanned_exact_to": _exact_to(r)}
        rows[c]["holds"] = ok
        rows[c]["checked_up_to"] = r["checked_up_to"]
        holds &= ok
    # every length up to the longest derived one; a length is covered once every construction
    # whose derived length reaches it was scanned through it (lengths beyond all: vacuous)
    top = max([1] + [r["scanned_to"] for r in rows.values() if r.get("scanned_to")])
    tally = Tally(dom.LENGTHS.at(range(1, top + 1)))
    tally.record_all(
        L
        for L in range(1, top + 1)
        if all(r["checked_up_to"] >= L for r in rows.values() if r.get("scanned_to", 0) >= L)
    )
    return Checked(
        "float",
        tally,
        values={
            "lm": f"{precision}, a trigram over {alphabet} symbols (seed 0), every query",
            "precision": precision,
            "rows": rows,
            "holds": bool(holds and any(r["derived"] is not None for r in rows.values())),
        },
        tolerance=_SCAN_TOL,
    )


def precision(
    precision: str, constructions: tuple[str, ...], limit: int, alphabet: int, max_len: int
) -> Checked:
    """Each construction built in ``precision`` and scanned at every length up to ``limit``
    (:func:`._theory_precision.selection_scan`; the paper's 3.3: ``paper33_scan``)."""
    require_x64("precision")
    lm = _lm(0, alphabet, 3, 0.2)
    scans = {c: _scan(lm, c, precision, limit, max_len) for c in constructions}
    exact = {c: _exact_to(r) for c, r in scans.items()}
    tally = Tally(dom.LENGTHS.at(range(1, limit + 1)))
    reached = min(r["checked_up_to"] for r in scans.values())
    tally.record_all(range(1, min(reached, limit) + 1))
    return Checked(
        "float",
        tally,
        values={
            "lm": f"{precision}, a trigram over {alphabet} symbols (seed 0), every query",
            "exact_to": exact,
            "min_exact_to": min(exact.values()),
            "limit": limit,
            "derived": {c: r.get("derived") for c, r in scans.items()},
        },
        tolerance=_SCAN_TOL,
    )


def float32_equivalence(constructions: tuple[str, ...], alphabet: int, max_len: int) -> Checked:
    """The constructions built in float32, weak equivalence on every string up to ``max_len``
    within :func:`._theory_equivalence.logprob_tolerance` for float32."""
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024._theory_equivalence import equivalence_record
    from transformer_theory.precision import dtype_of

    require_x64("float32_equivalence")
    lm, dtype = _lm(0, alphabet, 3, 0.2), dtype_of("float32")
    eq = {}
    for c in constructions:
        params = (
            cn.build_paper33(lm, dtype=dtype)
            if c == "3.3"
            else cn.build(lm, c, max_len=max_len, dtype=dtype)
        )
        rec = equivalence_record(lm, params, max_len)
        eq[c] = {k: rec[k] for k in ("equivalent", "max_abs_logprob_diff", "strings", "exhaustive")}
    return Checked(
        "float",
        _lengths(max_len, list(eq.values())),
        values={
            "lm": f"float32, a trigram over {alphabet} symbols (seed 0)",
            "equivalence": eq,
            "diffs": {c: r["max_abs_logprob_diff"] for c, r in eq.items()},
            "all_equivalent": all(r["equivalent"] for r in eq.values()),
            "max_abs_logprob_diff": max(r["max_abs_logprob_diff"] for r in eq.values()),
        },
        tolerance="equivalence.logprob_tolerance with u = 2^-24",
    )


def bfloat16(constructions: tuple[str, ...], alphabet: int, max_len: int) -> Checked:
    """The constructions built in bfloat16: weak equivalence on every string up to ``max_len``
    (the largest ``|log q - log p|``, in nats) and the precision scan to ``max_len``."""
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024._theory_equivalence import equivalence_record
    from transformer_theory.precision import dtype_of

    require_x64("bfloat16")
    lm, dtype = _lm(0, alphabet, 3, 0.2), dtype_of("bfloat16")
    eq, scans = {}, {}
    for c in constructions:
        params = (
            cn.build_paper33(lm, dtype=dtype)
            if c == "3.3"
            else cn.build(lm, c, max_len=max_len, dtype=dtype)
        )
        rec = equivalence_record(lm, params, max_len)
        eq[c] = {k: rec[k] for k in ("equivalent", "max_abs_logprob_diff", "strings", "exhaustive")}
        scans[c] = _exact_to(_scan(lm, c, "bfloat16", max_len, max_len))
    return Checked(
        "float",
        _lengths(max_len, list(eq.values())),
        values={
            "lm": f"bfloat16, a trigram over {alphabet} symbols (seed 0)",
            "equivalence": eq,
            "none_equivalent": not any(r["equivalent"] for r in eq.values()),
            "min_nats": min(r["max_abs_logprob_diff"] for r in eq.values()),
            "max_nats": max(r["max_abs_logprob_diff"] for r in eq.values()),
            "exact_to": scans,
        },
        tolerance="equivalence.logprob_tolerance with u = 2^-8",
    )


def paper33_float32(alphabet: int, lengths: tuple[int, ...]) -> Checked:
    """The paper's 3.3 built in float32, decoded by argmax at the given string lengths (the
    all-0 string and 8 seeded random ones each, :func:`._constructions_run.paper33_states`); the
    first failing length, and the first ``t`` with ``10^-t < 2^-126`` in exact rationals."""
    import jax
    import jax.numpy as jnp

    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024._constructions_run import paper33_states
    from transformer_theory.papers.svete_cotterell2024._tasks import history_ids

    require_x64("paper33_float32")
    lm = _lm(0, alphabet, 3, 0.2)
    model = cn.build_paper33(lm, dtype=jnp.float32)
    n, S = lm.order, lm.alphabet_size
    t_subnormal = next(t for t in range(1, 400) if Fraction(1, 10**t) < Fraction(1, 2**126))
    rng = np.random.default_rng(0)
    states = jax.jit(jax.vmap(lambda x: paper33_states(model, x)))
    tally = Tally(
        dom.LENGTHS.sample(
            9 * len(lengths),
            0,
            lambda seed, i: i,
            what=f"strings (the all-0 and 8 seeded random) at each length "
            f"{', '.join(map(str, lengths))} of a float32 trigram over {alphabet} symbols",
        )
    )
    first_failing = None
    for L in lengths:
        strings = np.concatenate([np.zeros((1, L), np.int64), rng.integers(0, S, (8, L))])
        tokens = np.concatenate([np.full((len(strings), n - 1), S), strings], axis=1)
        decoded = np.asarray(jnp.argmax(states(jnp.asarray(tokens)), axis=-1))[:, n - 2 :]
        windows = np.stack([tokens[:, t : t + n - 1] for t in range(L + 1)], axis=1)
        want = history_ids(S, n, windows.reshape(-1, n - 1)).reshape(len(strings), L + 1)
        tally.record_count(len(strings))
        if first_failing is None and np.any(decoded != want):
            first_failing = L
    return Checked(
        "float",
        tally,
        values={
            "first_failing_length": first_failing,
            "t_below_float32_normal": t_subnormal,
            # string length L ends at 1-based position t = L + n - 1
            "fails_where_10_pow_minus_t_is_subnormal": first_failing is not None
            and first_failing + n - 1 == t_subnormal,
        },
        tolerance="none needed: the decoded history ids are compared exactly",
    )


# ------------------------------------------------------------------------ softmax attention
def softmax_kl(lengths: tuple[int, ...], betas: tuple[float, ...]) -> Checked:
    """KL over the first outcomes (:mod:`._theory_soft`) at each ``beta`` for 3.1 and 3.3-slots on a
    trigram over 2 symbols without zeros, and the beta for KL <= 1e-3 per length."""
    from transformer_theory.papers.svete_cotterell2024 import _theory_soft as soft
    from transformer_theory.papers.svete_cotterell2024._theory_equivalence import logprob_tolerance

    require_x64("softmax_kl")
    lm = _lm(0, 2, 3, 0.0)
    kl_len = lengths[-1]
    tol = logprob_tolerance(lm, kl_len + 1, np.float64)
    rows, ok = {}, True
    for c in ("3.1", "3.3-slots"):
        curve = [soft.soft_kl(lm, c, b, kl_len) for b in betas]
        mine = lengths if c == "3.1" else lengths[-1:]
        needed = [soft.beta_for_kl(lm, c, 1e-3, L) for L in mine]
        falling = all(b <= a + tol for a, b in zip(curve, curve[1:]))
        rows[c] = {"kl_by_beta": dict(zip(betas, curve)), "beta_needed": dict(zip(mine, needed))}
        ok &= falling and all(k >= -tol for k in curve) and None not in needed
    u = rows["3.1"]["beta_needed"]
    grows = all(u[a] < u[b] for a, b in zip(lengths, lengths[1:]))
    positive = all(rows[c]["kl_by_beta"][betas[0]] > tol for c in rows)
    return Checked(
        "float",
        dom.NGRAM_LMS.instance(
            f"one trigram LM over 2 symbols without zeros (seed 0); KL over the first "
            f"{kl_len} + 2 outcomes at beta in {list(betas)}"
        ),
        values={
            "rows": rows,
            "beta_31": [u[L] for L in lengths],
            "beta_slots": max(rows["3.3-slots"]["beta_needed"].values()),
            "holds": bool(ok and grows and positive),
        },
        tolerance=f"equivalence.logprob_tolerance = {tol:.2g} (float64)",
    )


# ------------------------------------------------------------------------ learnability
def learnability() -> Checked:
    """README's learnability table: the committed record of the default run of
    ``transformer-theory experiment ngram_learnability`` (training takes minutes; nothing is
    trained here)."""
    from transformer_theory.jsonio import read_json

    path = RESULTS_DIR / "ngram_learnability.json"
    if not path.exists():
        return Checked("none", dom.LEARNABILITY_RECORD, {"below_unigram": None})
    record = read_json(str(path))
    rows = record["rows"]
    trained = [r["kl_per_symbol_trained"] for r in rows]
    ratio = [r["kl_per_symbol_unigram"] / r["kl_per_symbol_trained"] for r in rows]
    return Checked(
        "record",
        dom.LEARNABILITY_RECORD,
        values={
            "provenance": f"{len(rows)} cells, one seed each ({record.get('provenance')})",
            "cells": len(rows),
            "trained_min": min(trained),
            "trained_max": max(trained),
            "ratio_min": min(ratio),
            "ratio_max": max(ratio),
            "construction_max": max(abs(r["kl_per_symbol_construction"]) for r in rows),
            "below_unigram": all(x > 1 for x in ratio),
        },
    )


# ------------------------------------------------------------------------ sizes
def construction_sizes(orders: tuple[int, ...], alphabets: tuple[int, ...]) -> Checked:
    """The paper's 3.1, 3.2, 3.3 built for a random LM at each ``(n, |Sigma|)``; layers and heads
    counted from the arrays (:func:`._theory_space.count`) against the counts the slides print
    (:func:`._theory_space.printed_shape`); the library's closed forms beside them (not
    deciding)."""
    from transformer_theory.papers.svete_cotterell2024 import _theory_space as space

    rows = space.space_table(orders, alphabets, constructions=("3.1", "3.2", "3.3"))
    bad = [r for r in rows if not r["within_printed"]]
    tally = Tally(dom.Product(dom.ORDERS.at(orders), dom.ALPHABETS.at(alphabets)))
    built: dict[tuple[int, int], set] = {}
    for r in rows:
        built.setdefault((r["order"], r["alphabet"]), set()).add(r["construction"])
    tally.record_all(k for k, cs in built.items() if cs == {"3.1", "3.2", "3.3"})
    return Checked(
        "exact",
        tally,
        values={
            "models": len(rows),
            "over_printed": len(bad),
            "exceeding": [
                {k: r[k] for k in ("construction", "order", "alphabet", "layers", "heads")}
                for r in bad
            ],
            "shapes": {
                f"{r['construction']} n={r['order']}": [r["layers"], r["heads"]]
                for r in rows
                if r["alphabet"] == alphabets[0]
            },
            "closed_forms_match": all(r["matches"] for r in rows),
        },
    )
