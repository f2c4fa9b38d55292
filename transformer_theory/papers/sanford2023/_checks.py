"""The checks behind the claims of Sanford, Hsu & Telgarsky 2023 (:mod:`.claims` is the table of
rows): each ``check_*`` is ``check(**sizes) -> Checked``, stating how it computed (exact rationals,
arb balls through :func:`transformer_theory.exact.evaluate`, float64 with its tolerance, or a
training run) and over what; it never sees a tier and never names a status. The constructions run
in float64: the caller turns JAX's 64-bit mode on (the claims runner, the tests), and each check
that needs it says so (:func:`transformer_theory.precision.require_x64`).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from transformer_theory import precision
from transformer_theory.domains import Tally
from transformer_theory.ledger import Checked, Verdict, Witness
from transformer_theory.papers import study_of
from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa_unit
from transformer_theory.papers.sanford2023 import _domains as dom
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.papers.sanford2023 import _theory_message
from transformer_theory.papers.sanford2023 import _theory_rip as rip
from transformer_theory.papers.sanford2023._constructions_records import match_record

_PREC = 128  # bits of the balls' working precision
EPS_QSA = 0.1  # the qSA rows' eps (README's table)

# README's qSA table (eps = 0.1, d' = 2, seed 0): (N, q) -> m_min found by `transformer-theory
# sanford --task qsa` ...
QSA_M_MIN = {(8, 1): 9, (8, 2): 9, (16, 1): 15, (16, 2): 15, (32, 1): 12, (32, 2): 19}
# ... and the fewest fraction bits of w README found to keep eps (the proof's p is 10-11)
QSA_BITS_MIN = {(8, 1): 2, (8, 2): 3, (16, 1): 1, (16, 2): 1, (32, 1): 2, (32, 2): 6}


def _qsa_cases(seq_lens, qs) -> list[tuple[int, int]]:
    return [(int(n), int(q)) for n in seq_lens for q in qs if (int(n), int(q)) in QSA_M_MIN]


def _unit_is_affine_in_z(params, dim: int) -> None:
    """Refuse (``ArithmeticError``) unless the unit's output is affine in the ``z`` block for a
    fixed choice of subsets: one layer, one head, no MLP, no norms, and the attention scores read
    no coordinate of ``z`` (``w_q``/``w_k`` zero on the first ``dim`` columns, exactly)."""
    cfg = params.config
    if len(params.layers) != 1 or params.final_norm is not None:
        raise ArithmeticError("the qSA bound needs ONE layer and no final norm")
    lay = params.layers[0]
    if lay.mlp is not None or lay.norm1 is not None or lay.norm2 is not None:
        raise ArithmeticError("the qSA bound needs a unit without MLP or norm (affine in z)")
    a = lay.attn
    if int(np.shape(a.w_v)[0]) != 1 or cfg.qk_dim is None:
        raise ArithmeticError("the qSA bound needs one head with factored w_q, w_k")
    for w in (a.w_q, a.w_k):
        if np.any(np.asarray(w, np.float64)[..., :dim] != 0):
            raise ArithmeticError("the unit's scores read z: its output is not affine in z")


def _op_upper(block) -> object:
    """An upper bound on the spectral norm of a small arb matrix (list of rows): ``sqrt(||B||_1
    ||B||_inf)`` (Holder; exact for a diagonal ``B``)."""
    import flint

    rows = len(block)
    cols = len(block[0])
    r_inf = max(
        (sum((abs(block[r][c]) for c in range(cols)), flint.arb(0)) for r in range(rows)),
        key=lambda v: float(v.upper()),
    )
    c_one = max(
        (sum((abs(block[r][c]) for r in range(rows)), flint.arb(0)) for c in range(cols)),
        key=lambda v: float(v.upper()),
    )
    from transformer_theory import exact

    # the engine's sqrt (checked by its own rows)
    return exact.balls().sqrt(flint.arb(float(r_inf.upper())) * flint.arb(float(c_one.upper())))


def qsa_unit_error(
    seq_len: int, q: int, rows: int, eps: float, bits: int | None, dim: int = 2
) -> dict[str, Any]:
    """The WHOLE qSA unit's worst error, enclosed: attention, value map and readout.

    Builds :func:`.qsa.qsa_construction` (seed 0) and packs every q-subset ``y`` (as
    :func:`.qsa.qsa_worst_error` does) into batches of ``N`` queries. For fixed subsets the unit's
    output is affine in ``Z = (z_1..z_N)`` (checked on the weights: :func:`_unit_is_affine_in_z`),
    ``f(X)_i = f_i(0) + sum_j M_ij z_j``; :func:`transformer_theory.exact.evaluate` (arb balls,
    128 bits, on the float64 weights and embedding) gives ``f_i(0)`` and every ``M_ij`` column
    (``z = e_k`` at position ``j`` only, minus ``f(0)``; ``1 + N d'`` runs a batch). With the
    target ``qSA(X)_i = (1/q) sum_{j in y_i} z_j`` the supremum of ``||f(X)_i - qSA(X)_i||_2``
    over ``z_j`` in the unit ball is at most ``||f_i(0)|| + sum_j ||M_ij - 1{j in y_i}/q I||_op``
    (enclosed; ``error_upper``). A witness: at the worst query, ``z_j = s_j e_1`` with ``s_j`` the
    sign of ``(M_ij - t_ij I)_11``, run through the engine and compared with the target in
    rationals (``witness_lower``: the error there is at least this)."""
    precision.require_x64("the constructions (built and run in float64)")
    import flint

    from transformer_theory import exact
    from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa
    from transformer_theory.papers.sanford2023 import _tasks as ts

    c = qsa.qsa_construction(seq_len, q, dim, eps, rows, seed=0, bits=bits)
    _unit_is_affine_in_z(c.params, dim)
    subsets = ts.all_subsets(seq_len, q)
    pad = (-len(subsets)) % seq_len
    packed = np.concatenate([subsets, np.repeat(subsets[:1], pad, axis=0)])
    packed = packed.reshape(-1, seq_len, seq_len)
    stream, ok = qsa.qsa_embed(c, np.zeros(packed.shape[:2] + (dim,)), packed)
    n = seq_len
    upper, worst = flint.arb(0), None
    be = exact.balls(_PREC)  # the engine's sqrt and division (checked by its own rows)
    with flint.ctx.workprec(_PREC):
        for b in range(len(packed)):
            base = exact.evaluate(c.params, stream[b], arithmetic="enclosed", prec=_PREC).logits
            cols = {}
            for j in range(n):
                for k in range(dim):
                    s = np.array(stream[b])
                    s[j, k] = 1.0
                    out = exact.evaluate(c.params, s, arithmetic="enclosed", prec=_PREC).logits
                    cols[j, k] = [[out[i][r] - base[i][r] for r in range(dim)] for i in range(n)]
            for i in range(n):
                bound = be.sqrt(sum((v * v for v in base[i]), flint.arb(0)))
                signs = []
                for j in range(n):
                    t = be.div(flint.arb(1), flint.arb(q)) if packed[b, i, j] else flint.arb(0)
                    block = [
                        [cols[j, k][i][r] - (t if r == k else 0) for k in range(dim)]
                        for r in range(dim)
                    ]
                    bound += _op_upper(block)
                    signs.append(1.0 if float(block[0][0].mid()) >= 0 else -1.0)
                if worst is None or float(bound.upper()) > float(upper.upper()):
                    worst = (b, i, signs)
                upper = upper.max(bound)
        b, i, signs = worst
        z = np.zeros((n, dim))
        z[:, 0] = signs
        s = np.array(stream[b])
        s[:, :dim] = z
        got = exact.evaluate(c.params, s, arithmetic="enclosed", prec=_PREC).logits[i]
        target = [
            flint.fmpq(sum(int(signs[j]) for j in range(n) if packed[b, i, j]), q)
            if r == 0
            else flint.fmpq(0)
            for r in range(dim)
        ]
        err = sum(((got[r] - flint.arb(target[r])) ** 2 for r in range(dim)), flint.arb(0))
        witness = be.sqrt(err)
    return {
        "N": seq_len,
        "q": q,
        "m": rows,
        "bits": bits,
        "subsets": int(len(subsets)),
        "valid_w": bool(ok.all()),
        # rounded outward: the float upper bound above the ball, the float lower bound below
        "error_upper": math.nextafter(float(upper.upper()), math.inf),
        "witness_lower": math.nextafter(float(witness.lower()), -math.inf),
    }


def _qsa_judge(c):
    """Holds iff the enclosed worst error is below eps; fails iff the witness's enclosed error
    is above eps; undecided between (the bound is an upper bound)."""
    from transformer_theory.ledger import Verdict

    eps, up, low = c.values["eps"], c.values["error_upper"], c.values["witness_lower"]
    sizes = c.values["sizes"]
    if up < eps:
        return Verdict(True, f"whole unit's error <= {up:.4f} < eps {eps} on every input ({sizes})")
    if low > eps:
        return Verdict(False, f"a witness input has error >= {low:.4f} > eps {eps} ({sizes})")
    return Verdict(None, f"error bound {up:.4f} >= eps {eps} but witness {low:.4f} <= eps")


def _qsa_checked(rows: list[dict], eps: float, tally: Tally) -> Checked:
    """The qSA rows' :class:`Checked`: each size's enclosed supremum (``error_upper``) must lie
    above the enclosed error of that size's own witness input (``witness_lower``), or the bound
    is not a bound and the check is unsound."""
    subsets = sum(r["subsets"] for r in rows)
    sizes = ", ".join(
        f"N={r['N']} q={r['q']} m={r['m']}" + ("" if r["bits"] is None else f" p={r['bits']}")
        for r in rows
    )
    witnesses = tuple(
        Witness(
            f"the witness input's enclosed error at N={r['N']} q={r['q']} p={r['bits']}",
            r["witness_lower"],
            r["error_upper"],
            "below",
        )
        for r in rows
    )
    return Checked(
        "enclosed",
        tally,
        {
            "eps": eps,
            "error_upper": max(r["error_upper"] for r in rows),
            "witness_lower": max(r["witness_lower"] for r in rows),
            "sizes": sizes,
            "subsets": subsets,
            "inputs": "every q-subset y_i at every query and every z_j in the unit ball (the "
            "output is affine in z, checked on the weights; the supremum bounded by operator "
            "norms)",
            "rows": rows,
        },
        witnesses=witnesses,
    )


def _qsa_tally(seq_lens, qs, eps: float) -> Tally:
    """The qSA rows' covered sub-domain: every listed (q, N) at the one eps checked."""
    return Tally(
        dom.Product(
            dom.Q_SPARSITY.at(int(q) for q in qs),
            dom.SEQ_LEN.at(int(n) for n in seq_lens),
            dom.EPS.instance(f"eps = {eps}", eps),
        )
    )


def check_qsa_upper(
    seq_lens: Sequence[Any] = (8,), qs: Sequence[Any] = (1, 2), eps: float = EPS_QSA
) -> Checked:
    """The unit at README's ``m_min`` (unrounded ``w``): :func:`qsa_unit_error` per size, each
    (q, N) recorded once its whole input space is enclosed."""
    tally = _qsa_tally(seq_lens, qs, eps)
    rows = []
    for n, q in _qsa_cases(seq_lens, qs):
        rows.append(qsa_unit_error(n, q, QSA_M_MIN[n, q], eps, None))
        tally.record((q, n, eps))
    return _qsa_checked(rows, eps, tally)


def check_qsa_precision(
    seq_lens: Sequence[Any] = (8,), qs: Sequence[Any] = (1, 2), eps: float = EPS_QSA
) -> Checked:
    """The unit with ``w`` rounded to the proof's ``p`` (:func:`.qsa.bits_needed`) and to
    README's fewest bits: :func:`qsa_unit_error` at both, per size."""
    tally = _qsa_tally(seq_lens, qs, eps)
    rows = []
    for n, q in _qsa_cases(seq_lens, qs):
        m = QSA_M_MIN[n, q]
        p = qsa_unit.bits_needed(m, qsa_unit.alpha_scale(n, eps), eps)
        rows.append(qsa_unit_error(n, q, m, eps, p) | {"which": "proof"})
        rows.append(qsa_unit_error(n, q, m, eps, QSA_BITS_MIN[n, q]) | {"which": "readme_min"})
        tally.record((q, n, eps))
    return _qsa_checked(rows, eps, tally)


# ------------------------------------------------------------------------ restricted isometry


def _rip_tol(u, q: int, n: int) -> float:
    """An eigenvalue of a ``3q x 3q`` Gram of unit columns is off by at most ``3 q N u ||U||^2``
    in float64 (``u = 2^-53``)."""
    return 3 * q * n * float(np.finfo(np.float64).eps) * float(np.linalg.norm(u, 2)) ** 2


def check_rip_route(
    seq_lens: Sequence[Any] = (8,), qs: Sequence[Any] = (1, 2), max_pairs: int = 20_000
) -> Checked:
    """At README's ``m_min`` the unit reaches eps (float64 worst error over every subset,
    :func:`.qsa.qsa_worst_error`) while the drawn ``U``'s RIP constants (float64 eigen/singular
    values, :func:`.rip.rip_constants`, exhaustive where the pairs are few) exceed 1/4 by more
    than the tolerance."""

    precision.require_x64("the constructions (built and run in float64)")
    tally = Tally(
        dom.Product(dom.Q_SPARSITY.at(int(q) for q in qs), dom.SEQ_LEN.at(int(n) for n in seq_lens))
    )
    rows, tol = [], 0.0
    for n, q in _qsa_cases(seq_lens, qs):
        if q >= n:
            continue
        m = QSA_M_MIN[n, q]
        u = rip.rademacher(0, m, n)
        rep = rip.rip_constants(u, q, max_pairs=max_pairs)
        worst = qsa_unit.qsa_worst_error(qsa_unit.qsa_construction(n, q, 2, EPS_QSA, m, seed=0))
        tol = max(tol, _rip_tol(u, q, n))
        rows.append(
            {
                "N": n,
                "q": q,
                "m": m,
                "isometry": rep.isometry,
                "orthogonality": rep.orthogonality,
                "exhaustive": rep.exhaustive,
                "max_error": worst["max_error"],
            }
        )
        tally.record((q, n))
    reaches = all(r["max_error"] <= EPS_QSA for r in rows)
    fails_rip = all(max(r["isometry"], r["orthogonality"]) - tol > 0.25 for r in rows)
    return Checked(
        "float",
        tally,
        {
            "rip_pairs": f"exhaustive where at most {max_pairs:,}, else that many drawn",
            "found": bool(reaches and fails_rip),
            "reaches_eps": reaches,
            "rip_fails": fails_rip,
            "lowest_rip_constant": min(max(r["isometry"], r["orthogonality"]) for r in rows),
            "tolerance_value": tol,
            "rows": rows,
        },
        tolerance=f"3 q N u ||U||^2 = {tol:.1e} on each eigenvalue (u = 2^-53)",
    )


def check_rip_disjoint(rows: int = 1024, seq_len: int = 8, q: int = 1) -> Checked:
    """Printed (no 'disjoint'): ``v = v' = e_1`` gives ``<U e_1, U e_1> = ||U e_1||^2`` computed
    in rationals from the +-1 signs (``sum s_k^2 / m``), against ``delta = 1/4``: it fails for
    every U with unit columns. Corrected (disjoint supports, Candes & Tao's theta_{q,2q}): the
    drawn U's constants, float64, exhaustive over the support pairs, within 1/4 minus tol."""
    from fractions import Fraction

    delta = Fraction(1, 4)
    u = rip.rademacher(0, rows, seq_len)
    signs = np.rint(u * math.sqrt(rows)).astype(int)
    self_inner = Fraction(int(np.sum(signs[:, 0] ** 2)), rows)
    rep = rip.rip_constants(u, q)
    tol = _rip_tol(u, q, seq_len)
    corrected = bool(rep.exhaustive and max(rep.isometry, rep.orthogonality) + tol <= delta)
    covered = dom.RIP_VECTORS.instance(
        f"printed: v = v' = e_1 of the seed-0 U (exact); corrected: every disjoint support pair "
        f"of it ({rep.pairs} pairs, m = {rows}, N = {seq_len}, q = {q}, float64)"
    )
    return Checked(
        "float",
        covered,
        {
            "printed_holds": bool(self_inner <= delta),
            "corrected_holds": corrected,
            "inner_product_e1": str(self_inner),
            "isometry": rep.isometry,
            "orthogonality": rep.orthogonality,
            "pairs": rep.pairs,
        },
        tolerance=f"3 q N u ||U||^2 = {tol:.1e} on each float64 constant (u = 2^-53)",
        subject="printed",
    )


# --------------------------------------------------------------------- lower bounds, measured


@functools.lru_cache(maxsize=64)
def trained(model: str, seq_len: int, q: int, width: int, bits: int | None, steps: int) -> dict:
    """One trained record (cached: the FNN of :func:`check_fnn_bound` is the separation's)."""
    from transformer_theory.papers.sanford2023 import _models_separations as separations

    held_out = 100 if steps <= 2 else 500
    return separations.qsa_trained_record(
        model, seq_len, q, 1, width, steps=steps, held_out=held_out, batch=64, bits=bits
    )


def _training(values: dict, steps: int, what: str, trained_now: Any):
    """A training run's record over the row's ``trained_now`` domain; ``summary`` lists each
    model's held-out mean of max_i error."""
    summary = "; ".join(
        f"{r.get('model', '')} {r.get('width')}"
        + (f" p={r['bits']}" if r.get("bits") is not None else "")
        + f": {r['mean_max_error']:.3f}"
        for r in values["records"]
        if "mean_max_error" in r
    )
    return Checked(
        "training",
        trained_now,
        values
        | {
            "summary": summary or None,
            "steps": steps,
            "runs": f"{what}: trained now ({steps} Adam steps), error on held-out inputs",
        },
    )


def _below_fails(records: list[dict], threshold: float) -> bool | None:
    """``True`` when every record below ``threshold`` misses eps on some held-out input;
    ``None`` (investigate) when one below it is within eps on all of them, or none is below."""
    below = [r for r in records if r["message_bits"] is not None and r["message_bits"] < threshold]
    if not below or any(r["within_epsilon"] >= 1.0 for r in below):
        return None
    return True


def check_qsa_lower_attention(cells: Sequence[Any] = ((1, 2),), steps: int = 2) -> Checked:
    """A softmax unit with its query rounded to ``p`` bits (N = 9, q = 4, eps = 1/8), cells
    ``(m, p)``; the threshold ``q`` bits from :func:`.separations.qsa_bit_threshold`."""
    from transformer_theory.papers.sanford2023 import _models_separations as separations

    n, q = 9, 4
    threshold = separations.qsa_bit_threshold("attention", n, q, 1)
    records = [trained("attention", n, q, m, p, steps) for m, p in cells]
    ok = _below_fails(records, threshold) if threshold == q else None
    return _training(
        {"below_threshold_fails": ok, "threshold_bits": threshold, "records": records},
        steps,
        f"N = 9, q = 4, cells (m, p) = {list(cells)}",
        dom.TRAINED_QSA_ATTENTION,
    )


def check_fnn_bound(widths: Sequence[Any] = (4,), steps: int = 2) -> Checked:
    """A 3-weight-layer ReLU network at N = 16, q = d' = 1 below the width ``N d'/2``."""
    from transformer_theory.papers.sanford2023 import _models_separations as separations

    n, q = 16, 1
    threshold = separations.qsa_threshold("fnn", n, q, 1)
    records = [trained("fnn", n, q, w, None, steps) for w in widths]
    below = [r for r in records if r["width"] < threshold]
    ok = None if not below or any(r["within_epsilon"] >= 1.0 for r in below) else True
    return _training(
        {"below_threshold_fails": ok, "threshold_width": threshold, "records": records},
        steps,
        f"N = 16, q = d' = 1, widths {list(widths)}",
        dom.TRAINED_FNN,
    )


def check_rnn_bound(cells: Sequence[Any] = ((1, 2),), steps: int = 2) -> Checked:
    """The two-pass GRU with its state rounded to ``p`` bits (N = 8, q = d' = 1) against OUR cut
    bound :func:`.separations.qsa_bit_threshold` (Sanford et al.'s is for a one-pass RNN)."""
    from transformer_theory.papers.sanford2023 import _models_separations as separations

    n, q = 8, 1
    ours = separations.qsa_bit_threshold("rnn", n, q, 1)
    records = [trained("rnn", n, q, w, p, steps) for w, p in cells]
    return _training(
        {
            "below_threshold_fails": _below_fails(records, ours),
            "two_pass_threshold_bits": ours,
            "paper_threshold_bits": separations.qsa_threshold("rnn", n, q, 1),
            "records": records,
        },
        steps,
        f"N = 8, cells (state, p) = {list(cells)}",
        dom.TRAINED_RNN,
    )


def check_qsa_separation(
    cells: Sequence[Any] = (("attention", 4), ("fnn", 4), ("rnn", 2)), steps: int = 2
) -> Checked:
    """One softmax unit, a ReLU network and a GRU trained on N = 16, q = d' = 1: held-out mean
    of ``max_i`` error beside the parameter counts."""
    records = [trained(model, 16, 1, w, None, steps) for model, w in cells]
    finite = all(math.isfinite(r["mean_max_error"]) for r in records)
    rows = [
        {k: r[k] for k in ("model", "width", "params", "mean_max_error", "within_epsilon")}
        for r in records
    ]
    return _training(
        {"trained": True if finite else None, "records": rows},
        steps,
        f"N = 16, q = d' = 1, models {list(cells)}",
        dom.TRAINED_SEPARATION,
    )


# ------------------------------------------------------------------------------ Match2 (Thm 6)


def _float_inside(name: str, value: float, ball: Any, scale: float, terms: int) -> Witness:
    """The library's float64 pass's ``value`` of a quantity inside the arb ``ball`` the engine
    enclosed for the same quantity, widened by ``64 terms u (1 + scale)`` (``u = 2^-53``: the
    float pass's rounding over ``terms`` operations on numbers up to ``scale``)."""
    slack = 64 * terms * precision.unit_roundoff("float64") * (1 + abs(scale))
    return Witness(name, float(value), ball, "inside", slack)


def check_match2_exact(seq_lens: Sequence[Any] = (2, 3), moduli: Sequence[Any] = (4, 9)) -> Checked:
    """Every multiset of ``N`` tokens of ``[M]`` through :func:`.match2.match2_construction` in
    arb balls (:func:`transformer_theory.exact.evaluate`, 128 bits), at every ``(N, M)`` of
    ``seq_lens x moduli``: the answer slot enclosed strictly on its label's side of 1/2. The unit
    has no positional input, so its answers are permutation-equivariant: the multisets cover
    every sequence of ``[M]^N`` (every ordering is also run in float64, recorded beside, not
    deciding). A size is recorded once all its ``C(M + N - 1, N)`` multisets are evaluated; the
    float64 answer slot of each size's first multiset must lie in its enclosure (witness)."""
    precision.require_x64("the constructions (built and run in float64)")
    import flint

    from transformer_theory import exact
    from transformer_theory.core.forward import forward_trace
    from transformer_theory.papers.sanford2023 import _constructions_match2 as match2

    tally = Tally(
        dom.Product(dom.SEQ_LEN.at(int(n) for n in seq_lens), dom.VOCAB.at(int(m) for m in moduli))
    )
    rows, witnesses = [], []
    with flint.ctx.workprec(_PREC):
        for n, m in itertools.product(sorted(set(seq_lens)), sorted(set(moduli))):
            n, m = int(n), int(m)
            params = match2.match2_construction(n, m)
            xs = np.array(list(itertools.combinations_with_replacement(range(m), n)))
            labels = ts.match2(xs, m)
            streams = match2.match2_embed(xs, m)
            margin, evaluated = math.inf, 0
            for b in range(len(xs)):
                h = exact.evaluate(params, streams[b], arithmetic="enclosed", prec=_PREC)
                last = h.streams[-1]
                for i in range(n):
                    ans = last[i, 5]
                    side = ans - 0.5 if labels[b, i] else 0.5 - ans
                    margin = min(margin, float(side.lower()))
                if b == 0:
                    got = float(forward_trace(params, streams[0]).streams_LxNxD[-1][0, 5])
                    scale = match2.match2_scale(n, m)
                    witnesses.append(
                        _float_inside(
                            f"float64 answer slot of {xs[0].tolist()} in [{m}]^{n}",
                            got,
                            last[0, 5],
                            scale,
                            n + 1,
                        )
                    )
                evaluated += 1
            full = match_record("match2", n, m, samples=m**n, dtypes=("float64",))
            rows.append(
                {
                    "N": n,
                    "M": m,
                    "multisets": len(xs),
                    "sequences": full["examples"],
                    "float64_accuracy_every_ordering": full["accuracy"],
                    "min_margin_lower": margin,
                }
            )
            if evaluated == math.comb(m + n - 1, n):
                tally.record((n, m))
    spaces = ", ".join(f"[{r['M']}]^{r['N']}" for r in rows)
    return Checked(
        "enclosed",
        tally,
        {"min_margin": min(r["min_margin_lower"] for r in rows), "spaces": spaces, "rows": rows},
        witnesses=witnesses,
    )


_FLOAT_READ = (
    "none beyond the reading: each float64 answer is read against 1/2 with no margin; a "
    "rounding that crosses 1/2 is not excluded"
)


def check_match2_mod_m(seq_len: int = 3, modulus: int = 5) -> Checked:
    """Every input of ``[M]^N`` through the unit (float64) against Match2 read mod N (printed)
    and mod M (corrected)."""
    from transformer_theory.papers.sanford2023 import _constructions_match2 as match2

    precision.require_x64("the constructions (built and run in float64)")
    params = match2.match2_construction(seq_len, modulus)
    x = np.array(list(itertools.product(range(modulus), repeat=seq_len)))
    got = match2.match2_apply(params, x, modulus)
    misses = np.flatnonzero(np.any(got != ts.match2(x % seq_len, seq_len), axis=-1))
    tally = Tally(dom.Product(dom.SEQ_LEN.at([seq_len]), dom.VOCAB.at([modulus])))
    if len(got) == modulus**seq_len:  # every X in [M]^N ran
        tally.record((seq_len, modulus))
    return Checked(
        "float",
        tally,
        {
            "printed_holds": not len(misses),
            "corrected_holds": bool(np.all(got == ts.match2(x, modulus))),
            "literal_disagreements": int(len(misses)),
            "inputs": int(len(x)),
            "witness": x[misses[0]].tolist() if len(misses) else None,
        },
        tolerance=_FLOAT_READ,
        subject="printed",
    )


def _sampled(samples: int, where: str, sizes: int) -> Tally:
    """A tally of ``samples`` balanced inputs (match_record's seed 0) at each of ``sizes``
    sizes ``where`` (of the Match units' sizes)."""
    return Tally(
        dom.MATCH_SIZES.sample(
            samples * sizes,
            0,
            lambda seed, i: i,
            what=f"balanced inputs ({samples:,} per size) {where}",
        )
    )


def check_match2_float32(samples: int = 2_000) -> Checked:
    """The Match2 unit in float32 at N = 32, M = 1024 and N = 64, M = 4096, float64 beside."""

    precision.require_x64("the constructions (built and run in float64)")
    ok = match_record("match2", 32, 1024, samples=samples, dtypes=("float32",))
    miss = match_record("match2", 64, 4096, samples=samples, dtypes=("float32", "float64"))
    a_ok = ok["accuracy_by_dtype"]["float32"]
    a_miss = miss["accuracy_by_dtype"]["float32"]
    a64 = miss["accuracy_by_dtype"]["float64"]
    tally = _sampled(samples, "at (N, M) = (32, 1024) and (64, 4096)", 2)
    tally.record_count(ok["examples"] + miss["examples"])
    return Checked(
        "float",
        tally,
        {
            "found": bool(a_ok == 1.0 and a_miss < 1.0 and a64 == 1.0),
            "float32_at_M_1024": a_ok,
            "float32_at_M_4096": a_miss,
            "float64_at_M_4096": a64,
            "samples": samples,
        },
        tolerance=_FLOAT_READ,
    )


def check_match_16bit(
    cases: Sequence[Any] = (("match2", 8, 64, None),), samples: int = 1_000
) -> Checked:
    """The Match units in bfloat16 and float16 beside float64 on balanced samples."""

    precision.require_x64("the constructions (built and run in float64)")
    formats = ("float64", "bfloat16", "float16")
    rows, examples = [], 0
    for task, n, m, window in cases:
        kwargs = {} if window is None else {"window": window}
        r = match_record(task, n, m, samples=samples, dtypes=formats, **kwargs)
        rows.append(dict(task=task, n=n, m=m, **{f: r["accuracy_by_dtype"][f] for f in formats}))
        examples += r["examples"]
    first = rows[0]
    where = ", ".join(f"{t} (N, M) = ({n}, {m})" for t, n, m, _ in cases)
    tally = _sampled(samples, f"of {where}", len(cases))
    tally.record_count(examples)
    return Checked(
        "float",
        tally,
        {
            "found": all(r["float64"] == 1.0 and r["bfloat16"] < 1.0 for r in rows),
            "first": (
                f"{first['task']} N = {first['n']}: bfloat16 {first['bfloat16']:.3f}, float16 "
                f"{first['float16']:.3f}, float64 {first['float64']:.3f}"
            ),
            "rows": rows,
        },
        tolerance=_FLOAT_READ,
    )


# ------------------------------------------------------------------------ Match3 units (ours)


def check_match_exhaustive(
    task: str, seq_lens: Sequence[Any], moduli: Sequence[Any], windows: Sequence[Any] = ()
) -> Checked:
    """Every input of each ``[M]^N`` (window ``K``; ``windows`` empty for an unwindowed task)
    through the library's unit in float64, at every size of ``seq_lens x moduli (x windows)``;
    a size is recorded once all ``M^N`` inputs ran."""

    precision.require_x64("the constructions (built and run in float64)")
    parts = [dom.SEQ_LEN.at(int(n) for n in seq_lens), dom.VOCAB.at(int(m) for m in moduli)]
    if windows:
        parts.append(dom.WINDOW.at(int(k) for k in windows))
    tally = Tally(dom.Product(*parts))
    rows = []
    for size in itertools.product(*(p.sizes for p in parts)):
        n, m, k = (*size, 0) if not windows else size
        r = match_record(task, n, m, window=k, samples=m**n, dtypes=("float64",))
        rows.append({"N": n, "M": m, "K": k, "inputs": r["examples"], "accuracy": r["accuracy"]})
        if r["exhaustive"] and r["examples"] == m**n:
            tally.record(size)
    misses = sum(round((1 - r["accuracy"]) * r["inputs"]) for r in rows)
    spaces = ", ".join(f"[{r['M']}]^{r['N']}" + (f" K={r['K']}" if windows else "") for r in rows)
    return Checked(
        "float",
        tally,
        {"misses": int(misses), "spaces": spaces, "inputs": sum(r["inputs"] for r in rows)}
        | {"rows": rows},
        tolerance=_FLOAT_READ,
    )


def check_match3bigram(seq_lens: Sequence[Any] = (4,), moduli: Sequence[Any] = (6,)) -> Checked:
    return check_match_exhaustive("match3bigram", seq_lens, moduli)


def check_match3local(
    seq_lens: Sequence[Any] = (5,), moduli: Sequence[Any] = (5,), windows: Sequence[Any] = (1,)
) -> Checked:
    return check_match_exhaustive("match3local", seq_lens, moduli, windows)


def check_match3local_single(
    seq_lens: Sequence[Any] = (5,), moduli: Sequence[Any] = (4,), windows: Sequence[Any] = (1,)
) -> Checked:
    return check_match_exhaustive("match3local1", seq_lens, moduli, windows)


def check_match3_one_layer() -> Checked:
    """Where ``m <= c N / (p H log log N)`` binds: the constant ``c`` above which it says
    anything at the sizes trained (nothing is decided: ``c`` is unspecified)."""
    from transformer_theory.papers.sanford2023 import _theory_disjointness as dj
    from transformer_theory.papers.sanford2023.experiments import sanford  # the trained sizes

    rows = dj.match3_bound_table(sanford.match3_trained())
    trained = [r["c_needed"] for r in rows if r["source"].startswith("match_width ")]
    at8 = dj.match3_bound_row(8, 1, 32, 2)["c_needed"]
    reason = (
        f"c unspecified: m <= c N/(p H log log N) is {1 / at8:.2f} c at N = 8, p = 32, H = 2 "
        f"(natural logs), below 1 unless c > {at8:.2f}; the trained one-layer Match3 models "
        f"need c > {min(trained):.2f} to {max(trained):.1f} for the bound to say anything"
    )
    return Checked("none", dom.MATCH3_ONE_LAYER, {"decided": None, "reason": reason, "rows": rows})


def check_match3_trained(smoke: bool = True) -> Checked:
    """The match_width experiment at its smoke size (quick) or 200 steps of its default (full)."""
    import dataclasses
    import tempfile

    from transformer_theory.papers.sanford2023.experiments import match_width

    if smoke:
        config = dataclasses.replace(match_width.get_config("smoke"), tasks=("match3",), heads=(1,))
    else:
        config = dataclasses.replace(match_width.get_config("default"), steps=200, widths=(4,))
    with tempfile.TemporaryDirectory() as out:
        records = study_of(match_width).run(config, out, progress=False)
    rows = [
        {k: getattr(r, k) for k in ("task", "depth", "qk_dim", "accuracy", "majority_baseline")}
        for r in records
    ]
    text = "; ".join(
        f"{r['task']} depth {r['depth']}: {r['accuracy']:.3f} "
        f"(majority {r['majority_baseline']:.3f})"
        for r in rows
    )
    return _training(
        {"trained": True if rows else None, "records": rows, "accuracies": text},
        config.steps,
        f"experiment match_width, tasks {list(config.tasks)}",
        dom.TRAINED_MATCH,
    )


# ------------------------------------------------------------- the reduction from disjointness


def check_disj_reduction(q_max: int = 4) -> Checked:
    """Every pair ``(a, b)`` of q bits, q = 1..q_max, in exact rationals
    (:func:`.disjointness.reduction_record`): DISJ(a, b) = 0 iff qSA(X)_(2q+1) = -e_1, Bob's
    rule decides, and intersecting pairs lie exactly 2/q away. Also the garbled '2i 1' read as
    2i + 1 on q = 3: the first pair where the equivalence fails."""
    from transformer_theory.papers.sanford2023 import _theory_disjointness as dj

    tally = Tally(dom.DISJ_PAIRS.upto(q_max))
    rows = []
    for q in range(1, q_max + 1):
        rows.append(dj.reduction_record(q))
        tally.record_count(rows[-1]["pairs"])  # reduction_record runs every pair, in rationals
    witness = None
    for a, b in itertools.product(ts.all_inputs(3), repeat=2):
        z, members = ts.encode(a, b, literal_plus=True)
        if (dj.qsa_row_exact(z, members, 6)[0] == -1) != (ts.disj(a, b) == 0):
            witness = {"a": a.tolist(), "b": b.tolist()}
            break
    holds = all(r["equivalence_holds"] and r["decided"] and r["gap_is_2_over_q"] for r in rows)
    failing = [
        f"q = {r['q']}: "
        + ", ".join(
            what
            for what, ok in (
                ("the equivalence", r["equivalence_holds"]),
                ("Bob's rule", r["decided"]),
                (f"the gap 2/q (found {r['gap']})", r["gap_is_2_over_q"]),
            )
            if not ok
        )
        + " fails"
        for r in rows
        if not (r["equivalence_holds"] and r["decided"] and r["gap_is_2_over_q"])
    ]
    return Checked(
        "exact",
        tally,
        {
            "holds": holds,
            "plus_reading_witness": witness,
            "q_max": q_max,
            "failing": "; ".join(failing) or None,
            "rows": rows,
        },
        subject="printed",
    )


def disj_reduction_judge(c: Checked) -> Verdict:
    """Holds iff the equivalence, Bob's rule and the gap 2/q hold on every pair and the reading
    2i + 1 has a failing pair; the figure says which part failed where, when one does."""
    from transformer_theory.ledger import Verdict

    v, q_max = c.values, c.values["q_max"]
    plus = v["plus_reading_witness"]
    plus_text = f"2i + 1 fails at {plus}" if plus else "2i + 1 has NO failing pair at q = 3"
    if v["holds"] and plus:
        return Verdict(
            True,
            f"equivalence, rule and gap 2/q hold on every pair to q = {q_max} (exact); {plus_text}",
        )
    if not v["holds"]:
        return Verdict(False, f"NOT on every pair to q = {q_max} (exact): {v['failing']}")
    return Verdict(
        False, f"equivalence, rule and gap 2/q hold on every pair to q = {q_max}; {plus_text}"
    )


def _disj_certify(c, a, b, bits: int | None, scale: float | None) -> dict:
    """Bob's decisions on the pairs ``(a, b)`` (the unit's forward pass, his message-built query
    when ``bits``) through :func:`transformer_theory.exact.evaluate` in arb balls: the ball of
    ``||f(X)_(2q+1) + e_1||^2 - 1/q^2`` on one side of 0 is the decision; against DISJ."""
    precision.require_x64("the constructions (built and run in float64)")
    import flint

    from transformer_theory import exact
    from transformer_theory.papers.sanford2023 import _theory_disjointness as dj

    rows_float, stream = dj.construction_rows(c, a, b, bits=bits, scale=scale)
    row, q = ts.query_position(c.q), c.q
    right, undecided, wrong, witness = 0, 0, None, None
    with flint.ctx.workprec(_PREC):
        for k in range(len(a)):
            h = exact.evaluate(c.params, stream[k], arithmetic="enclosed", prec=_PREC).streams[-1]
            ball = [h[row, h.ncols() - c.dim + t] for t in range(c.dim)]
            shifted = [ball[0] + 1, *ball[1:]]
            # x * x, not x ** 2: arb's power of a ball containing 0 is nan
            side = sum((v * v for v in shifted), flint.arb(0)) - flint.arb(1) / (q * q)
            truth = int(np.max(a[k] * b[k]))
            said = 0 if side < 0 else (1 if side > 0 else None)
            undecided += said is None
            right += said == truth
            if k == 0:
                f = np.asarray(rows_float[0], np.float64).copy()
                f[0] += 1
                witness = _float_inside(
                    f"float64 ||f(X)_(2q+1) + e_1||^2 - 1/q^2 of the first pair at q = {q}",
                    float(f @ f) - 1 / (q * q),
                    side,
                    1.0,
                    len(stream[0]) * (c.rows + 1),
                )
            if said is not None and said != truth and wrong is None:
                wrong = {"a": a[k].tolist(), "b": b[k].tolist(), "said": said}
    return {
        "pairs": len(a),
        "right": right,
        "undecided": undecided,
        "certified_wrong": wrong,
        "witness": witness,
    }


def _all_pairs(q: int):
    a = np.repeat(ts.all_inputs(q), 2**q, axis=0)
    b = np.tile(ts.all_inputs(q), (2**q, 1))
    return a, b


def check_disj_unit(qs: Sequence[Any] = (2,)) -> Checked:
    """The library's unit (N = 2q + 1, d' = 1, seed 0, m = ``_constructions_qsa.UNIT_ROWS``)
    on every encoded pair: Bob's decision by the distance to -e_1 against 1/q, enclosed."""
    precision.require_x64("the constructions (built and run in float64)")
    tally = Tally(dom.DISJ_PAIRS.at(int(q) for q in qs))
    rows, witnesses = [], []
    for q in qs:
        c, worst = qsa_unit.reduction_unit(q, qsa_unit.UNIT_ROWS[q])
        cert = _disj_certify(c, *_all_pairs(q), None, None)
        tally.record_count(cert["pairs"])
        witnesses.append(cert.pop("witness"))
        rows.append({"q": q, "m": c.rows, "float64_unit_error": worst["max_error"]} | cert)
    pairs = sum(r["pairs"] for r in rows)
    return Checked(
        "enclosed",
        tally,
        {
            "not_right": sum(r["pairs"] - r["right"] for r in rows),
            "pairs": pairs,
            "sizes": ", ".join(f"q={r['q']} m={r['m']}" for r in rows),
            "rows": rows,
        },
        witnesses=witnesses,
    )


def check_disj_message(qs: Sequence[Any] = (3,)) -> Checked:
    """:func:`.disjointness.protocol_table`: at each q the fewest p whose m p-bit message (Alice's
    quantized query, packed in exactly m p bits) lets Bob decide every pair, decisions enclosed
    through the engine; the 2^q messages distinct and m p >= q there; every row with m p < q
    has two a colliding (pigeonhole) and does not decide every pair."""
    from transformer_theory.papers.sanford2023 import _theory_disjointness as dj

    precision.require_x64("the constructions (built and run in float64)")
    table = dj.protocol_table(tuple(qs))
    tally = Tally(dom.DISJ_PAIRS.at(int(q) for q in qs))
    rows, ok, witnesses, certified, first = [], True, [], set(), None
    for r in table:
        if r["p"] is None:
            continue
        c, _ = qsa_unit.reduction_unit(r["q"], r["m"], seed=0)
        scale = dj.message_scale(c)
        first = first or (c, r["p"], scale)
        codes = dj.message_codes(c, ts.all_inputs(r["q"]), r["p"], scale)
        exact_bits = len(_theory_message.pack_message(codes[-1], r["p"])) == r["m"] * r["p"]
        row = {k: r[k] for k in ("q", "m", "p", "message_bits", "distinct_messages")}
        row |= {"decides_all": r["decides_all"], "exact_bits": exact_bits}
        if r["decides_all"]:
            cert = _disj_certify(c, *_all_pairs(r["q"]), r["p"], scale)
            row["certified"] = cert["right"] == cert["pairs"]
            witnesses.append(cert["witness"])
            if r["q"] not in certified:  # every pair of this q decided, enclosed, at one p
                certified.add(r["q"])
                tally.record_count(cert["pairs"])
            ok = ok and row["certified"] and r["distinct_messages"] == 2 ** r["q"]
            ok = ok and r["message_bits"] >= r["q"]
        elif r["message_bits"] < r["q"]:
            ok = ok and r["collision"] is not None
        ok = ok and exact_bits
        rows.append(row)
    if not witnesses and first is not None:  # nothing certified: the engine's witness anyway
        a, b = _all_pairs(first[0].q)
        witnesses.append(_disj_certify(first[0], a[:1], b[:1], first[1], first[2])["witness"])
    decided = {q: any(r["q"] == q and r["decides_all"] for r in rows) for q in qs}
    below = [r for r in rows if r["message_bits"] < r["q"]]
    fewest = {
        q: min((r["p"] for r in rows if r["q"] == q and r["decides_all"]), default=None) for q in qs
    }
    return Checked(
        "enclosed",
        tally,
        {
            "accounting_holds": bool(ok and all(decided.values()) and below),
            "fewest_p": fewest,
            "rows_below_q": len(below),
            "rows": rows,
        },
        witnesses=witnesses,
    )
