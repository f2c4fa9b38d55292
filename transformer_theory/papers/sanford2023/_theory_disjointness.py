"""The qSA lower bound of Sanford, Hsu & Telgarsky 2023 as code: the reduction from set
disjointness, the one-way protocol that sends the query ``Q(x_{2q+1})`` at ``p`` bits, and the
table of where Match3's one-layer bound binds.

The slides ("qSA, negative result: proof outline") reduce ``DISJ`` on ``q`` bits to one attention
unit that ``1/(2q)``-approximates qSA at ``N >= 2q + 1``:

- Alice holds ``a in {0,1}^q`` and encodes it in ``y_{2q+1}``: ``2i - 1 in y_{2q+1}`` if
  ``a_i = 1``, else ``2i`` (1-based; the converted text prints "2i 1", whose minus sign was lost:
  ``2i - 1`` is the reading for which the stated equivalence holds, and the reading ``2i + 1``
  fails, :func:`._tasks.query_subset` with ``literal_plus=True`` and the tests);
- Bob holds ``b`` and encodes it in the ``z_j``: ``z_j = e_1`` if ``j`` is odd and
  ``b_{(j+1)/2} = 1``, ``z_j = -e_1`` otherwise;
- then ``qSA(X)_{2q+1} = (1/q) sum_i (2 a_i b_i - 1) e_1 = (-1 + 2 |a & b| / q) e_1``, so
  ``DISJ(a, b) = max_i a_i b_i = 0`` iff ``qSA(X)_{2q+1} = -e_1``, and otherwise it lies at
  distance ``>= 2/q`` from ``-e_1``: any ``eps < 1/q`` approximation decides DISJ by the distance
  to ``-e_1`` against ``1/q`` (:func:`decide`; the slides' "returns 0 iff ``f(X)_{2q+1} = -e_1``"
  is the exact test, which an approximation never passes exactly: their ``eps = 1/(2q)`` leaves
  a margin of ``1/(2q)`` on both sides of the threshold).

Which rows Bob can compute: a general unit's key and value at position ``2q + 1`` may depend on
``y_{2q+1}`` (then Alice sends them too, still ``O(m p)`` bits when ``d' <= m``). In the
construction of :mod:`.qsa`, ``phi(x_i) = (z_i; alpha w~_{y_i}; u_i)`` with the key ``u_i``
(position only) and the value ``z_i`` (Bob's), so Alice's message is the query alone: ``m``
numbers. Quantized with a FIXED public scale
(:func:`transformer_theory.precision.fake_quantize`), each is one of ``2^p - 1`` levels, written
in exactly ``p`` bits (:func:`._theory_message.pack_message`): the message is ``m p`` bits. A
one-way protocol that decides DISJ on every pair must give distinct ``a`` distinct messages
(two ``a != a'`` with one message differ at some ``i``, say ``a_i = 1 > a'_i``, and
``b = e_i`` separates them while Bob sees the same thing), so it needs ``m p >= q``;
:func:`protocol_record` checks this on every pair and, where it fails, reports the pair Bob gets
wrong and, when two ``a`` collide, that pigeonhole witness.

Indices in code are 0-based: ``x_{2q+1}`` is position ``2q`` (:func:`._tasks.query_position`).

The pieces live by role, each taking plain arguments: the pairs and their qSA instances are
the task's (:func:`._tasks.encode`, :func:`._tasks.protocol_instances`), the unit is the qSA
construction's (:func:`._constructions_qsa.reduction_unit`), Alice's message is
:mod:`._theory_message`'s; this module checks the reduction (:func:`reduction_check`), records
Bob's run (:func:`protocol_row`) and composes the whole protocol in one call
(:func:`protocol_record`, :func:`protocol_table`).

Result (``transformer-theory sanford --task disj --q 1,2,3,4 --out DIR``, 2026-11-25, 38 s on 2
shared CPU cores): the equivalence and the gap ``2/q`` hold on all 340 pairs; the unit
(``eps = 1/(2q)``, seed 0) at ``m = 9, 6, 7, 11`` for ``q = 1..4`` decides every pair unquantized,
and from its query at ``p = 2, 3, 3, 7`` bits, i.e. ``m p = 18, 18, 21, 77`` message bits against
DISJ's ``q = 1..4``; below those ``p`` it misses (at ``p = 2``, ``q = 2, 3, 4``: 1, 3, 7 distinct
messages of 4, 8, 16, so colliding ``a`` and a separating ``b``); ``m = 1`` (``m p < q``) misses
at ``q = 3, 4`` with two ``a`` colliding, as it must.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction

import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate, budget, precision
from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa
from transformer_theory.papers.sanford2023 import _tasks as tasks
from transformer_theory.papers.sanford2023 import _theory_message
from transformer_theory.papers.sanford2023._constructions import run_streams

__all__ = [
    "MAX_BITS",
    "PAIRS_LIMIT",
    "construction_rows",
    "decide",
    "match3_bound_row",
    "match3_bound_table",
    "message_codes",
    "message_scale",
    "protocol_record",
    "protocol_row",
    "protocol_table",
    "qsa_row_exact",
    "reduction_check",
    "reduction_record",
]


def qsa_row_exact(z_NxZ: np.ndarray, members_NxK: np.ndarray, row: int) -> list[Fraction]:
    """``qSA(X)_row = (1/q) sum_{j in y_row} z_j`` in exact rationals (the ``z_j`` of the
    reduction are integer vectors)."""
    z = np.asarray(z_NxZ)
    if not np.array_equal(z, np.rint(z)):
        raise ValueError("z_NxZ: expected integer entries (the reduction's +-e_1)")
    members = np.asarray(members_NxK, bool)[row]
    q = int(members.sum())
    return [Fraction(int(z[members, k].sum()), q) for k in range(z.shape[1])]


def decide(row_Z: Sequence[float] | Sequence[Fraction] | np.ndarray, q: int) -> int:
    """Bob's answer from an output row: 0 iff ``||row + e_1||_2 < 1/q`` (the midpoint of the
    gap ``2/q`` between ``-e_1`` and the nearest intersecting value), else 1. Works on floats and
    on :class:`~fractions.Fraction` rows (exactly: squared distances are compared)."""
    q = _check_q(q)
    vals = list(row_Z)
    shifted = [vals[0] + 1, *vals[1:]]
    dist2 = sum(v * v for v in shifted)
    return 0 if dist2 * q * q < 1 else 1


#: The most pairs :func:`reduction_check` and :func:`reduction_record` check, by default.
PAIRS_LIMIT = 4**6


def _check_q(q: int) -> int:
    return _validate.check_int_arg("q", q, 1)  # an int: 2.5 was read as 2


def reduction_check(
    q: int,
    truth_B: np.ndarray,
    z_BxNxZ: np.ndarray,
    members_BxNxK: np.ndarray,
    row: int,
    *,
    seq_len: int | None = None,
    limit: int | None = PAIRS_LIMIT,
) -> dict:
    """The reduction checked on given instances, in exact rationals: each pair's ``DISJ``
    (``truth_B``) against ``qSA(X)_{2q+1} = -e_1`` of its instance (``z_BxNxZ``,
    ``members_BxNxK``; :func:`._tasks.encode`), read at ``row`` (``x_{2q+1}``'s,
    :func:`._tasks.query_position`), and against :func:`decide`; the smallest distance
    from ``-e_1`` over intersecting pairs (the slides' gap, ``2/q``). ``seq_len`` is the ``N``
    recorded (default: the instances' length). More than ``limit`` pairs is refused with the
    count before any is checked (``None``: no limit)."""
    q = _check_q(q)
    budget.check_count("q", len(truth_B), limit, unit="pairs (a, b) in exact rationals")
    dim = np.shape(z_BxNxZ)[2]
    equal, decided, gap = 0, 0, None
    minus_e1 = [Fraction(-1)] + [Fraction(0)] * (int(dim) - 1)
    for z, members, d in zip(z_BxNxZ, members_BxNxK, map(int, truth_B), strict=True):
        out = qsa_row_exact(z, members, row)
        equal += (out == minus_e1) == (d == 0)
        decided += decide(out, q) == d
        if d == 1:
            dist = out[0] + 1  # the other coordinates are 0
            gap = dist if gap is None else min(gap, dist)
    pairs = len(truth_B)
    return {
        "q": q,
        "N": np.shape(z_BxNxZ)[1] if seq_len is None else int(seq_len),
        "pairs": pairs,
        "equivalence_holds": equal == pairs,
        "decided": decided == pairs,
        "gap": None if gap is None else str(gap),
        "gap_is_2_over_q": gap == Fraction(2, q),
    }


def reduction_record(
    q: int, seq_len: int | None = None, dim: int = 1, *, limit: int | None = PAIRS_LIMIT
) -> dict:
    """Every pair ``(a, b)`` encoded (:func:`._tasks.encode` at ``seq_len``, ``dim``) and
    checked by :func:`reduction_check`: DISJ against ``qSA(X)_{2q+1} = -e_1`` and against
    :func:`decide`, and the gap. More than ``limit`` pairs (``4^q``) is refused with the count
    before any is encoded (``None``: no limit)."""
    q = _check_q(q)
    budget.check_count("q", 4**q, limit, unit="pairs (a, b) in exact rationals")
    dim = _validate.check_int_arg("dim", dim, 1)
    n = tasks.reduction_length(q, seq_len)
    inputs = tasks.all_inputs(q, limit=None)
    a = np.repeat(inputs, len(inputs), axis=0)
    b = np.tile(inputs, (len(inputs), 1))
    enc = [tasks.encode(x, y, seq_len, dim) for x, y in zip(a, b, strict=True)]
    z, members = np.stack([e[0] for e in enc]), np.stack([e[1] for e in enc])
    truth = np.array([tasks.disj(x, y) for x, y in zip(a, b, strict=True)])
    return reduction_check(q, truth, z, members, tasks.query_position(q), seq_len=n, limit=None)


# ---------------------------------------------------------------------------------------------
# the construction and its message


def _streams(c: qsa.QSAConstruction, a_BxQ: np.ndarray, b_BxQ: np.ndarray) -> np.ndarray:
    enc = [tasks.encode(a, b, c.u_ExK.shape[1], c.dim) for a, b in zip(a_BxQ, b_BxQ, strict=True)]
    z = np.stack([e[0] for e in enc])
    members = np.stack([e[1] for e in enc])
    stream, _ = qsa.qsa_embed(c, z, members)
    return stream


def _query_block(c: qsa.QSAConstruction) -> slice:
    return slice(c.dim, c.dim + c.rows)  # phi's alpha w~ block, what w_q reads


_QUERIES: dict[tuple, np.ndarray] = {}


def _alice_queries(c: qsa.QSAConstruction) -> np.ndarray:
    """``Q(x_{2q+1})`` for every ``a`` of :func:`._tasks.all_inputs` ``(2^q, m)``: the unit's
    ``w_q`` applied to Alice's embedded row (computed once per unit: the subset weights may need
    an LP each)."""
    key = (c.q, c.dim, c.epsilon, c.alpha, c.bits, c.u_ExK.tobytes(), c.u_ExK.shape)
    if key not in _QUERIES:
        inputs = tasks.all_inputs(c.q)
        stream = _streams(c, inputs, np.zeros_like(inputs))
        _QUERIES[key] = qsa.qsa_queries(c, stream, tasks.query_position(c.q))
    return _QUERIES[key]


def message_scale(c: qsa.QSAConstruction) -> float:
    """The public fixed scale of the quantized query: the largest ``|Q(x_{2q+1})|`` coordinate
    over the ``2^q`` inputs Alice may hold (a function of the unit, not of ``a``)."""
    return float(np.max(np.abs(_alice_queries(c))))


def message_codes(c: qsa.QSAConstruction, a_BxQ: np.ndarray, bits: int, scale: float) -> np.ndarray:
    """Alice's messages, one per row of ``a_BxQ``: ``Q(x_{2q+1})`` (``m`` numbers, the unit's
    ``w_q`` applied to her row) rounded by :func:`~transformer_theory.precision.fake_quantize` at
    ``bits`` with the fixed ``scale``, as integer levels in ``[-(2^{p-1} - 1), 2^{p-1} - 1]``
    (``2^p - 1`` values). Returns ``(B, m)`` int64."""
    a = np.asarray(a_BxQ)
    if a.ndim != 2 or a.shape[1] != c.q or not np.all((a == 0) | (a == 1)):
        raise ValueError(f"a_BxQ: expected a 0/1 array of shape (B, {c.q}), got {a.shape}")
    if isinstance(bits, bool) or int(bits) < 2:
        raise ValueError(f"bits: expected p >= 2, got {bits!r}")
    return _theory_message.quantized_levels(_alice_queries(c), int(bits), scale)[
        _theory_message.input_index(a)
    ]


def construction_rows(
    c: qsa.QSAConstruction,
    a_BxQ: np.ndarray,
    b_BxQ: np.ndarray,
    *,
    bits: int | None = None,
    scale: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The unit's output row ``f(X)_{2q+1}`` ``(B, Z)`` on the encoded pairs, by the library's
    forward pass. With ``bits``: Bob's run, whose query at ``x_{2q+1}`` is Alice's message
    (packed to ``m p`` bits, unpacked, times the step ``scale / (2^{p-1} - 1)``) and every other
    entry his own. Returns ``(rows_BxZ, streams_BxNxD)`` (the streams as run)."""
    stream = _streams(c, np.asarray(a_BxQ), np.asarray(b_BxQ))
    row = tasks.query_position(c.q)
    if bits is not None:
        bits = _validate.check_int_arg("bits", bits, 2)
        if scale is None:
            raise ValueError("scale: the quantized message needs its fixed scale")
        codes = message_codes(c, np.asarray(a_BxQ), bits, scale)
        _theory_message.receive(stream, codes, bits, scale, row, _query_block(c))
    out, _ = run_streams(c.params, jnp.asarray(stream, c.params.w_o.dtype))
    return np.asarray(out, np.float64)[:, row, -c.dim :], stream


def protocol_row(
    inst: tasks.ProtocolInstances,
    rows: int,
    worst: dict,
    message: _theory_message.ProtocolMessage,
    out_BxNxD: np.ndarray,
) -> dict:
    """The record of :func:`protocol_record` from Bob's run: ``out_BxNxD`` is the last stream of
    the unit (``rows`` query/key rows, worst-case error ``worst``,
    :func:`._constructions_qsa.reduction_unit`) on ``message``'s streams of ``inst``'s pairs,
    read at ``x_{2q+1}``'s output block; Bob answers by :func:`decide`, and Alice's messages
    (``message.messages_A``) are counted and, when two ``a`` share one, the pair is the
    witness."""
    q, bits = inst.q, message.bits
    a, b, truth = inst.a_BxQ, inst.b_BxQ, inst.truth_B
    out = np.asarray(out_BxNxD, np.float64)[:, inst.position, -inst.dim :]
    grid = None if bits is None else precision.grid_bits(rows, bits)
    got = np.array([decide(r, q) for r in out])
    dist = np.linalg.norm(out - np.eye(inst.dim)[0] * -1.0, axis=1)
    margin = np.abs(dist - 1.0 / q)
    # the reported wrong pair: the one decided wrong by the widest float64 margin
    wrong = np.flatnonzero(got != truth)
    wrong = wrong[np.argsort(-margin[wrong], kind="stable")]
    collision = None
    distinct = 2**q
    if bits is not None:
        messages: dict[str, np.ndarray] = {}
        for alice, msg in zip(inst.alice_a_AxQ, message.messages_A, strict=True):
            if msg in messages and collision is None:
                other = messages[msg]
                i = int(np.flatnonzero(other != alice)[0])
                hi, lo = (other, alice) if other[i] == 1 else (alice, other)
                collision = {
                    "a": hi.tolist(),
                    "a_prime": lo.tolist(),
                    "b": np.eye(q, dtype=int)[i].tolist(),
                }
            messages.setdefault(msg, alice)
        distinct = len(messages)
    return {
        "q": q,
        "N": 2 * q + 1,
        "m": rows,
        "p": bits,
        "message_bits": None if bits is None else rows * int(bits),
        "grid_bits": grid,
        "disj_bits": q,
        "unit_error": worst["max_error"],
        "unit_within_eps": bool(worst["valid_w"] and worst["max_error"] <= 1 / (2 * q)),
        "pairs": len(a),
        "distinct_messages": distinct,
        "decides_all": bool(len(wrong) == 0),
        "margin": float(np.min(margin)),
        "wrong_margin": None if not len(wrong) else float(margin[wrong[0]]),
        "wrong_pair": None
        if not len(wrong)
        else {"a": a[wrong[0]].tolist(), "b": b[wrong[0]].tolist()},
        "wrong_pairs": int(len(wrong)),
        "collision": collision,
    }


def protocol_record(q: int, rows: int | None, bits: int | None, *, seed: int = 0) -> dict:
    """The protocol at ``(q, m, p)`` on every pair ``(a, b)``: the message bits ``m p``, the
    distinct messages over the ``2^q`` inputs of Alice, whether Bob decides DISJ on every pair
    (:func:`decide` on his float64 output), the smallest float64 margin ``| ||f + e_1|| - 1/q |``,
    the first pair he gets wrong and, if two ``a`` send one message, that collision with the
    separating ``b = e_i`` (the pigeonhole witness). ``bits=None``: the unquantized float64 unit.
    ``rows=None``: the fewest rows reaching ``1/(2q)``
    (:func:`._constructions_qsa.reduction_unit`); ``bits`` is ``None`` or ``p >= 2`` (one bit has
    no non-zero level). The stages, in order: the instances (:func:`._tasks.protocol_instances`),
    the unit and its embedding of them, Alice's queries, her message
    (:func:`._theory_message.protocol_message`), Bob's run, the record (:func:`protocol_row`)."""
    q = _check_q(q)
    if rows is not None:
        rows = _validate.check_int_arg("rows", rows, 1)
    if bits is not None:
        bits = _validate.check_int_arg("bits", bits, 2)
    # the pairs and DISJ on them first, then the unit, its message and Bob's run
    inst = tasks.protocol_instances(q)
    c, worst = qsa.reduction_unit(q, rows, seed=seed)
    stream, _ = qsa.qsa_embed(c, inst.z_BxNxZ, inst.members_BxNxK)
    alice, _ = qsa.qsa_embed(c, inst.alice_z_AxNxZ, inst.alice_members_AxNxK)
    queries = qsa.qsa_queries(c, alice, tasks.query_position(q))
    message = _theory_message.protocol_message(inst, queries, stream, bits, c.params.w_o.dtype)
    out, _ = run_streams(c.params, message.stream_BxNxD)
    return protocol_row(inst, c.rows, worst, message, out)


#: The most message bits ``p`` per query entry :func:`protocol_table` tries.
MAX_BITS = 16


def protocol_table(qs: tuple[int, ...], *, seed: int = 0, max_bits: int = MAX_BITS) -> list[dict]:
    """For each ``q``: the unquantized unit (:data:`._constructions_qsa.UNIT_ROWS` rows at seed
    0, else the search of :func:`._constructions_qsa.reduction_unit`), then its message at
    ``p = 2, 3, ...`` up to the first ``p`` at which Bob decides every pair (at most
    ``max_bits``), then ``m = 1`` at ``p = 2, ...`` while ``m p < q`` (where no protocol can
    decide: the witnesses)."""
    records = []
    for q in qs:
        rows = qsa.UNIT_ROWS.get(q) if seed == 0 else None
        records.append(protocol_record(q, rows, None, seed=seed))
        m = records[-1]["m"]
        for p in range(2, max_bits + 1):
            records.append(protocol_record(q, m, p, seed=seed))
            if records[-1]["decides_all"]:
                break
        p = 2
        while p < q:  # m = 1: m p < q
            records.append(protocol_record(q, 1, p, seed=seed))
            p += 1
    return records


# ---------------------------------------------------------------------------------------------
# Match3's one-layer bound


def match3_bound_row(seq_len: int, qk_dim: int, bits: int, heads: int, **labels: object) -> dict:
    """Where Sanford et al.'s Match3 bound ``m <= c N / (p H log log N)`` (natural logs) binds at
    one size: it rules out a one-layer transformer of query/key width ``m`` computing Match3 only
    if the unspecified constant ``c >= m p H log log N / N`` (``c_needed``); ``log log N > 0``
    needs ``N >= 3`` (below, the bound is undefined: ``c_needed`` is ``None``)."""
    for name, v in (("seq_len", seq_len), ("qk_dim", qk_dim), ("bits", bits), ("heads", heads)):
        if isinstance(v, bool) or int(v) < 1:
            raise ValueError(f"{name}: expected a positive integer, got {v!r}")
    n, m, p, h = int(seq_len), int(qk_dim), int(bits), int(heads)
    loglog = math.log(math.log(n)) if n >= 3 else None
    return dict(labels) | {
        "N": n,
        "m": m,
        "p": p,
        "H": h,
        "m_p_H": m * p * h,
        "N_over_loglogN": None if loglog is None else n / loglog,
        "c_needed": None if loglog is None else m * p * h * loglog / n,
        "c_needed_m_1": None if loglog is None else p * h * loglog / n,
    }


def match3_bound_table(
    trained: Iterable[tuple[str, int, int, int, int, int]] = (),
) -> list[dict]:
    """:func:`match3_bound_row` of each ``(source, N, m, p, H, M)`` of ``trained`` (trained
    one-layer Match3 models: length, query/key width, bits per word, heads, modulus), then, for
    comparison, the one-layer Match3Local units (``_constructions_match3``) at the ``sanford``
    command's lengths (``p = 64``, float64 words; they compute Match3Local, which the bound does not
    cover: their row says how large ``c`` would have to be for the bound to forbid a Match3 unit
    of their size)."""
    rows = [
        match3_bound_row(n, m, p, h, source=source, M=modulus)
        for source, n, m, p, h, modulus in trained
    ]
    for n in (4, 16, 64):
        k = 2
        rows.append(
            match3_bound_row(n, 2, 64, 2 * k + 1, source="match3local (2K+1 heads, K=2)", M=n * n)
        )
        rows.append(
            match3_bound_row(n, 4 * k + 4, 64, 1, source="match3local1 (1 head, K=2)", M=n * n)
        )
    return rows


# ---------------------------------------------------------------------------------------------
# the study of ``transformer-theory sanford --task disj``
