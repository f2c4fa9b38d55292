"""Certificates by length: a compiled model proved exact on EVERY input of every length up to
``N`` in a float format, without enumerating the inputs.

:func:`certify` takes one compiled model (:func:`~transformer_theory.rasp.compile`, for
``max_seq_len = N``) and a format (``float64``, ``float32``, ``bfloat16``, ``float16``) and
bounds, node by node in the order the forward pass computes them, how far the residual stream of
ANY input of ANY length ``n <= N`` can be from the exact encoding of the interpreter's values.
:func:`certified_length` compiles the program for a series of ``N`` (constants chosen by the
compiler's laws for each ``N``) and reports the longest certified one and the largest ``N`` tried.

**What is analysed.** The weights are the ones the forward pass uses: the compiler's float64
weights rounded to the format (``compiled.params(dtype)``), read back exactly. The analysis
reads only the value sets the compiler inferred (a superset of the values each node takes on any
input up to ``N``: Maps applied to their inputs' value sets, every mean of up to ``N`` values,
widths ``0..N``) and these weights; no input is enumerated.

Per node, with ``x`` the exact encoding of a value (one-hot / the number) and ``h`` the stream:

- **Error state.** Every residual dimension is written once (nothing is overwritten) and is
  exactly 0 before, so each materialized node carries a bound ``|h - x|`` per dimension at every
  real position (for a numerical node: per value of its value set) and one at BOS. Tokens,
  indices, ``bos`` and the positions are exact one-hots. The residual additions add to exact
  zeros, and a weight 0 times a finite number is an exact 0, so a node's error reaches only the
  nodes whose weights read its dimensions.
- **Attention head** (``w_qk``, ``w_v`` of its head). The score ``h_j^T W h_i`` is a sum over
  (key node, query node) blocks of ``W``; its value on exact encodings is a table over the two
  nodes' value sets. From the tables and the selector's predicates (a key is selected iff every
  term holds): the smallest score of a selected key, the largest of an unselected real key, and
  BOS's score at any query -- over the product of the value sets, so over every pair of
  positions of every input. The deviation ``eta`` of a computed score from the table (the key's
  and query's errors through ``|W|``, and the rounding of the two products, ``gamma_k`` with
  ``k`` the terms that can be non-zero) bounds the float scores; the gaps then bound the softmax
  weights with the LARGEST number of competing keys at length ``N``: ``N - w`` unselected real
  keys beside ``w >= 1`` selected ones (and BOS), or ``N`` against BOS for an empty selection.
  For a mean head the weights are off the intended uniform ``1/w`` (or BOS) by at most
  ``L1 = (e^sigma - 1) + 2 ((N - 1) e^-g1 + e^-g2)`` (``sigma`` the spread of the selected
  scores, ``g1``, ``g2`` the gaps to unselected keys and BOS) or ``2 N e^-g0`` (empty), and the
  head's output moves by ``L1`` times the largest value plus the values' own errors. For a
  ``SelectorWidth`` head the output is BOS's weight, bounded per width ``w`` in
  ``[1/(1 + w e^sigma + (N - w) e^-g1), 1/(1 + w e^-sigma)]`` -- relative, as its decoder needs.
  The softmax's own rounding (the subtraction of the row maximum, ``exp`` within
  :data:`EXP_ULPS` ulps, the sum of ``N + 1`` terms, the division) multiplies each weight by
  ``1 +- rho``, and the weighted sum of values rounds with ``gamma_{N+1}``. BOS as a query
  (it scores itself ``2 beta m``) gets the same analysis for its own stream.
- **MLP node** (its hidden units, found from the columns of ``w2`` that write its dimensions).
  For every combination of its frontier's values (the product of their value sets) the
  pre-activation of every unit on exact encodings, and its radius: the inputs' errors through
  ``|w1|`` plus the rounding of the dot product and bias. The compiler's units come in clipped-ramp
  pairs (same ``w1`` row, biases ``d`` apart, opposite ``w2`` columns): a pair whose two
  pre-activation intervals are both ``>= 0`` contributes exactly ``d`` times its column in exact
  arithmetic whatever the input's error, both ``<= 0`` exactly 0; an interval that reaches a
  breakpoint (0 of either unit: the DISTANCE of the reachable input interval to the nearest
  discretisation breakpoint is negative) fails the certificate there. The output's deviation
  from the encoding of the table's value ``f(c)`` (the node's semantics on its frontier) is the
  exact-arithmetic deviation of the rounded weights plus the rounding of every unit that is on
  (the saturated ramps far from their thresholds dominate it) and of the sum. Every unit must be
  off at BOS (its pre-activation interval there ``< 0``), so BOS's MLP dimensions are exact 0.
- **Decisions.** A categorical node decodes right while its error is below ``1/2`` (margin
  ``1 - 2 eps``), a numerical one while its error at value ``t`` is below half the distance
  ``h_t`` from ``t`` to the nearest other value (margin ``1 - err_t / h_t``): the margins of
  :func:`~transformer_theory.rasp.check`, here as lower bounds over every input. The model is
  certified when every materialized node's margin is positive (the check's ``agree`` with no
  internal disagreement), which the unembedding (one-hot rows of ``W_O``: exact copies) keeps.

**Soundness.** Induction over the nodes in forward order: if every input of the node lies within
its bound at every position of every input up to ``N`` (base case: the exact embedding), the
head's and MLP's bounds above hold for every value combination the value sets allow -- a
superset of the reachable ones -- so the node's output lies within its bound, and a node whose
bound keeps its margin positive decodes to the interpreter's value. The float model is the
standard one, stated as the assumption: every ``+``, ``*``, ``/`` of the format returns the
exact result times ``(1 + delta)``, ``|delta| <= u`` (the unit roundoff,
:func:`transformer_theory.precision.unit_roundoff`), plus an absolute error of at most the
smallest normal number (underflow or flush-to-zero); ``exp`` the same within :data:`EXP_ULPS`
ulps; a dot product of ``k`` non-zero terms is then within ``gamma_k = k u / (1 - k u)`` of its
absolute sum in any order of summation, and an operation carried out in a wider format (XLA
accumulating bfloat16 in float32) only shrinks the error. Overflow is excluded (every bound must
stay below half the format's largest number). The scalar bounds (``gamma_k``, the exponentials
of the gaps, the softmax factors, the width head's interval per ``w``) are evaluated in arb
balls (python-flint) and rounded up to floats; the tables over value combinations are float64
midpoints whose own float64 rounding is added to every radius (midpoint-radius arithmetic, as
Rump's INTLAB does), so every bound used is an upper bound of the true one.

Where the certificate fails it names the node and the reason (a gap closed, a breakpoint
reached, a weight layout it does not recognize); failing is always allowed -- the analysis is
worst case over a superset of the inputs, so a certified ``N`` is a lower bound of the longest
exact length (``tests/rasp/test_certificate.py`` checks it against enumeration and seeded
adversarial inputs, and reports how tight it is).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, ctx

from transformer_theory import precision
from transformer_theory.rasp import _compiler as compiler
from transformer_theory.rasp import _language as lang
from transformer_theory.rasp._compile_ir import evaluate_fused

__all__ = ["EXP_ULPS", "FORMATS", "certify", "certified_length", "DEFAULT_LENGTHS"]

FORMATS = ("float64", "float32", "bfloat16", "float16")
EXP_ULPS = 4
"""Assumed accuracy of the format's ``exp`` (XLA's CPU kernels are within 1 to 2 ulps): every
computed exponential is within ``EXP_ULPS`` ulps, a relative ``2 EXP_ULPS u``."""
DEFAULT_LENGTHS = (1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64)
"""The lengths :func:`certified_length` tries (then bisects between its last pass and first
failure)."""
_F64 = 2.0**-52  # twice float64's unit roundoff: the slack of one float64 operation
_CHUNK = 1 << 22  # table entries per vectorised block (units x combinations)


class _Fail(Exception):
    """The certificate does not hold at a node (a reason, never an error in the input)."""


def _up(x: arb) -> float:
    """A float at least the arb ball's upper end."""
    f = float(x.upper())
    return float(np.nextafter(f, math.inf)) if math.isfinite(f) else math.inf


def _down(x: arb) -> float:
    f = float(x.lower())
    return float(np.nextafter(f, -math.inf)) if math.isfinite(f) else -math.inf


class _Format:
    """The format's constants: ``u``, the smallest normal ``tiny``, the largest number."""

    def __init__(self, dtype: str):
        import jax.numpy as jnp

        fi = jnp.finfo(precision._DTYPES[dtype])
        self.name = dtype
        self.u = precision.unit_roundoff(dtype)
        self.tiny = float(fi.tiny)
        self.max = float(fi.max)

    def gamma(self, k: int | np.ndarray) -> Any:
        """``gamma_k = k u / (1 - k u)`` rounded up (inf where ``k u >= 1``); arrays elementwise."""
        if isinstance(k, np.ndarray):
            out = np.empty(k.shape)
            for kk in np.unique(k):
                out[k == kk] = self.gamma(int(kk))
            return out
        if k <= 0:
            return 0.0
        ku = arb(k) * arb(self.u)
        return math.inf if ku >= 1 else _up(ku / (1 - ku))


def _weights(compiled: compiler.CompiledProgram, dtype: str):
    """The weights the forward pass in ``dtype`` uses, read back exactly as float64 arrays."""
    import jax

    if dtype == "float64":
        return compiled.weights
    return jax.tree.map(precision.to_float64, compiled.params(precision._DTYPES[dtype]))


class _Owners:
    """Which node owns each residual dimension (tokens, ``bos``, position 0, indices, nodes)."""

    def __init__(self, compiled: compiler.CompiledProgram):
        V, N = len(compiled.vocab), compiled.max_seq_len
        D = compiled.config.width
        self.bos, self.pos0 = V, V + 1
        self.of = [None] * D
        self.nodes = {}
        for nd in compiled.nodes:
            if nd.dims is not None and (nd.materialized or nd.op in ("tokens", "indices")):
                for d in range(nd.dims.start, nd.dims.stop):
                    self.of[d] = nd
        self.tokens = _Base("tokens", list(range(V)), slice(0, V))
        self.indices = _Base("indices", list(range(N)), slice(V + 2, V + 2 + N))
        for d in range(V):
            self.of[d] = self.of[d] or self.tokens
        for d in range(V + 2, V + 2 + N):
            self.of[d] = self.of[d] or self.indices
        self.of[V] = self.of[V + 1] = "bos"

    def read(self, dims: np.ndarray) -> list:
        """The owners of ``dims`` (first seen first; ``"bos"`` for the bos / position-0 dims)."""
        out = []
        for d in dims:
            o = self.of[int(d)]
            if o is None:
                raise _Fail(f"dimension {int(d)} has no owner")
            if all(o is not x for x in out):
                out.append(o)
        return out


class _Base:
    """A stand-in for tokens / indices when the program has no such node (dims still exist)."""

    numerical = False
    op = "base"

    def __init__(self, label: str, values: list, dims: slice):
        self.label, self.values, self.dims = label, values, dims
        self._index = {v: i for i, v in enumerate(values)}

    def dim(self, v):
        return self.dims.start + self._index[v]


def _encode_matrix(owner, D_idx: dict[int, int], values: Sequence) -> np.ndarray:
    """Rows: the read dimensions (``D_idx`` maps a residual dim to its row); columns: the exact
    encodings of ``values`` of ``owner`` (float64: a numerical value rounded, see the slack)."""
    X = np.zeros((len(D_idx), len(values)))
    for c, v in enumerate(values):
        d = owner.dims.start if owner.numerical else owner.dim(v)
        if d in D_idx:
            X[D_idx[d], c] = float(v) if owner.numerical else 1.0
    return X


class _State:
    """The error bounds: ``eps[d]`` at real positions (per value for numerical nodes, in
    ``num[id(node)]``; for a categorical block, ``eps`` bounds every dimension and
    ``eps + extra`` the active one), ``eps_bos[d]`` at BOS, BOS's nominal stream ``x_bos``."""

    def __init__(self, compiled: compiler.CompiledProgram):
        D = compiled.config.width
        V = len(compiled.vocab)
        self.eps = np.zeros(D)
        self.eps_bos = np.zeros(D)
        self.extra = np.zeros(D)
        self.x_bos = np.zeros(D)
        self.x_bos[V] = self.x_bos[V + 1] = 1.0
        self.num: dict[int, np.ndarray] = {}

    def value_error(self, owner) -> np.ndarray:
        """The error of ``owner``'s block per value (numerical) or its uniform bound."""
        if owner.numerical and id(owner) in self.num:
            return self.num[id(owner)]
        return np.full(len(owner.values), float(self.eps[owner.dims].max(initial=0.0)))


def certify(compiled: compiler.CompiledProgram, dtype: str = "float32") -> dict[str, Any]:
    """Prove ``compiled`` exact on every input of every length ``1..max_seq_len`` in ``dtype``
    (the analysis of the module docstring), or say which node it fails at.

    Args:
      compiled: from :func:`~transformer_theory.rasp.compile` (non-causal or causal).
      dtype: ``"float64"``, ``"float32"``, ``"bfloat16"`` or ``"float16"``.

    Returns:
      ``certified`` (every materialized node decodes to the interpreter's value at every
      position of every input up to ``max_seq_len``), ``min_margin`` (a lower bound of
      :func:`~transformer_theory.rasp.check`'s ``min_margin`` over all those inputs; ``None``
      when a bound failed before any margin), ``limited_by`` (the failing node and reason) and
      per node its kind, error bound and margin.
    """
    if not isinstance(compiled, compiler.CompiledProgram):
        raise ValueError(f"compiled: expected a CompiledProgram, got {type(compiled).__name__}")
    if dtype not in FORMATS:
        raise ValueError(f"dtype: expected one of {list(FORMATS)}, got {dtype!r}")
    fmt = _Format(dtype)
    w = _weights(compiled, dtype)
    owners = _Owners(compiled)
    st = _State(compiled)
    N = compiled.max_seq_len
    rows: list[dict] = []
    rec: dict[str, Any] = {
        "dtype": dtype,
        "max_seq_len": N,
        "certified": False,
        "min_margin": None,
        "limited_by": None,
        "nodes": rows,
        "assumption": f"standard float model, u = {fmt.u:.3g}, exp within {EXP_ULPS} ulps",
    }
    nodes = [n for n in compiled.nodes if n.materialized and n.op not in ("tokens", "indices")]
    try:
        with ctx.workprec(128):
            for layer in range(compiled.config.depth):
                lw = w.layers[layer]
                heads = [
                    n for n in compiled.nodes if n.op in ("mean", "width") and n.layer == layer
                ]
                done = []
                for h, nd in enumerate(heads):
                    done.append((nd, _head(nd, h, lw, owners, st, fmt, N)))
                for nd, (err, err_bos, x_bos, info) in done:  # heads read the stream before
                    _store(st, nd, err, err_bos, x_bos)
                    rows.append(_margin(nd, err, 0.0, info))
                for nd in nodes:
                    if nd.op == "mlp" and nd.layer == layer:
                        err, extra, info = _mlp(nd, lw, owners, st, fmt)
                        zero = np.zeros(_width(nd))
                        _store(st, nd, err, zero, zero, extra)
                        rows.append(_margin(nd, err, extra, info))
    except _Fail as why:
        rec["limited_by"] = str(why)
        margins = [r["margin"] for r in rows]
        rec["min_margin"] = min(margins) if margins else None
        return rec
    margins = [r["margin"] for r in rows]
    rec["min_margin"] = min(margins, default=1.0)
    bad = [r for r in rows if not r["margin"] > 0]
    rec["certified"] = not bad
    if bad:
        rec["limited_by"] = f"{bad[0]['node']}: error {bad[0]['error']:.3g} leaves no margin"
    return rec


def _width(nd) -> int:
    return nd.dims.stop - nd.dims.start


def _store(st: _State, nd, err, err_bos, x_bos, extra: float = 0.0) -> None:
    """Record ``nd``'s bounds: per value (numerical) or per dimension plus ``extra`` on the
    active one (categorical)."""
    if nd.numerical:
        st.num[id(nd)] = err
        st.eps[nd.dims] = float(err.max(initial=0.0))
    else:
        st.eps[nd.dims] = float(err.max(initial=0.0))
        st.extra[nd.dims] = extra
    st.eps_bos[nd.dims] = err_bos
    st.x_bos[nd.dims] = x_bos


def _half_gaps(values: list) -> np.ndarray:
    """Half the distance from each value to its nearest neighbour, rounded down (float)."""
    out = []
    for i, v in enumerate(values):
        near = [
            abs(Fraction(v) - Fraction(values[j])) for j in (i - 1, i + 1) if 0 <= j < len(values)
        ]
        h = min(near) / 2 if near else max(Fraction(1), abs(Fraction(v)))
        f = float(h)
        out.append(float(np.nextafter(f, 0.0)) if Fraction(f) > h else f)
    return np.array(out)


def _margin(nd, err: np.ndarray, extra: float, info: dict) -> dict:
    """The node's decision margin from its error bound (the margins of ``rasp.check``): a
    categorical block's active entry is at least ``1 - eps - extra``, every other at most
    ``eps``."""
    if nd.numerical:
        m = float(np.min(1.0 - err * (1 + 1e-12) / _half_gaps(nd.values)))
    else:
        m = 1.0 - (2.0 * float(err.max(initial=0.0)) + extra) * (1 + 1e-12)
    return {
        "node": nd.label,
        "kind": nd.op,
        "error": float(err.max(initial=0.0)),
        "margin": m,
        **info,
    }


# -- attention ------------------------------------------------------------------------------


def _tables(W: np.ndarray, key_owners: list, query_owners: list):
    """The score table of every (key node, query node) block of ``W`` with a non-zero entry:
    ``{(key, query): T}`` with ``T[kv, qv]`` the score on exact encodings of the two values."""
    out = {}
    for ko in key_owners:
        for qo in query_owners:
            if "bos" in (ko, qo):
                continue
            if ko.numerical or qo.numerical:
                raise _Fail(f"a score reads numerical node {(ko if ko.numerical else qo).label}")
            block = W[ko.dims, qo.dims]
            if np.any(block):
                out[(id(ko), id(qo))] = (ko, qo, block)
    return out


def _score_error(W, st: _State, fmt: _Format, nk: int, nq: int) -> float:
    """``eta``: how far a computed score ``(W h_i) . h_j`` can be from its table value, at any
    key and query (real or BOS): the inputs' errors through ``|W|`` and the rounding of both
    products (``nk``, ``nq``: one-hot blocks read on each side, each with one active entry)."""
    A = np.abs(W)
    eps = np.maximum(st.eps, st.eps_bos)
    rows = np.flatnonzero(A.any(1))
    cols = np.flatnonzero(A.any(0))
    A = A[rows]
    eq = eps
    ek = eps[rows]
    xq = float(st.extra[cols].max(initial=0.0))  # the active entry's extra error, query side
    xk = float(st.extra[rows].max(initial=0.0))
    rowmax = A.max(1)
    colmax = A.max(0)
    dt_in = A @ eq + nq * rowmax * xq  # deviation of t = W h_i from W x_i, per key dimension
    t_nom = nq * rowmax  # |W x_i| per key dimension
    k_t = nq + ((A > 0) & (eq > 0)[None, :]).sum(1)
    err_t = fmt.gamma(k_t) * (t_nom + dt_in) + 2 * k_t * fmt.tiny
    t_hat = t_nom + dt_in + err_t
    # (W x_i) . (h_j - x_j) <= sum_d x_i[d] (eps_k^T |W|)_d: one active column per query block
    dev = nk * float((dt_in + err_t).max()) * (1 + xk) + float((dt_in + err_t) @ ek)
    dev += nq * float((ek @ A + nk * colmax * xk).max())
    k_s = nk + int((ek > 0).sum())
    mag = nk * float(t_hat.max()) * (1 + xk) + float(t_hat @ ek)
    eta = dev + fmt.gamma(k_s) * mag + 2 * k_s * fmt.tiny
    return (eta + (A.shape[1] + 4) * _F64 * (mag + 1.0)) * (1 + 1e-9)


def _head(nd, h: int, lw, owners: _Owners, st: _State, fmt: _Format, N: int):
    """Bounds of one attention head: its output's error at real positions (per value for a width
    head, uniform otherwise), at BOS, BOS's nominal output, and the gaps used."""
    W = np.asarray(lw.attn.w_qk[h], np.float64)
    Wv = np.asarray(lw.attn.w_v[h], np.float64)
    kown = owners.read(np.flatnonzero(np.abs(W).any(1)))
    qown = owners.read(np.flatnonzero(np.abs(W).any(0)))
    for o in kown + qown:
        if o != "bos" and o.op in ("mean", "width"):
            raise _Fail(f"{nd.label}: a score reads the raw head output {o.label}")
    if np.any(Wv[[d for d in range(Wv.shape[0]) if not nd.dims.start <= d < nd.dims.stop]]):
        raise _Fail(f"{nd.label}: its value map writes outside its dimensions")
    tables = _tables(W, kown, qown)
    groups: dict[tuple, list] = {k: [] for k in tables}
    for kb, qb, pred in nd.terms:
        key = (id(kb), id(qb))
        if key not in tables:
            tables[key] = (kb, qb, np.zeros((len(kb.values), len(qb.values))))
            groups[key] = []
        groups[key].append(pred)
    # P[kv, qv]: every term of the block holds (blocks without a term: always)
    holds = {}
    for key, (kb, qb, T) in tables.items():
        P = np.ones(T.shape, bool)
        for pred in groups[key]:
            try:
                P &= np.array([[bool(pred(kv, qv)) for qv in qb.values] for kv in kb.values])
            except Exception as err:  # a user's predicate on a value of the value set
                raise _Fail(f"{nd.label}: its predicate raised {err!r}") from None
        holds[key] = P
    term_keys = [k for k in tables if groups[k]]
    selectable = all(holds[k].any() for k in term_keys)
    sel_min = sum(float(tables[k][2][holds[k]].min()) for k in tables) if selectable else None
    sel_max = sum(float(tables[k][2][holds[k]].max()) for k in tables) if selectable else None
    unsel = [
        float(tables[k][2][~holds[k]].max())
        + sum(float(tables[g][2].max()) for g in tables if g != k)
        for k in term_keys
        if (~holds[k]).any()
    ]
    unsel_max = max(unsel) if unsel else None
    # BOS as a key at a real query: its rows bos / position 0 against the query's blocks
    brow = W[owners.bos] + W[owners.pos0]
    real_q = [o for o in qown if o != "bos"]
    b_min = sum(float(brow[o.dims].min()) for o in real_q)
    b_max = sum(float(brow[o.dims].max()) for o in real_q)
    # BOS as the query: column W x_bos (BOS's query-side blocks are bos / position 0 only)
    col = W @ st.x_bos
    real_k = [o for o in kown if o != "bos"]
    bb = float(col[owners.bos] + col[owners.pos0])
    bk_max = sum(float(col[o.dims].max()) for o in real_k) if real_k else -math.inf
    nk, nq = len(kown), len(qown)
    eta = _score_error(W, st, fmt, nk, nq)
    span = max(abs(x) for x in [sel_max or 0.0, unsel_max or 0.0, b_min, b_max, bb]) + eta
    if 2 * span > fmt.max:
        raise _Fail(f"{nd.label}: scores overflow {fmt.name}")
    u = arb(fmt.u)
    rho = _softmax_rho(fmt, N)
    a_abs = arb(2 * (N + 1) * fmt.tiny)
    info = {"eta": eta}
    # values: nominal (exact arithmetic on the rounded weights) and error at every key
    vnom, verr, vmag, vdiff, vdiff_bos = _values(nd, Wv, owners, st, fmt)
    # BOS's own output (BOS query)
    g_bb = arb(bb - bk_max) - 2 * arb(eta) if real_k else arb(math.inf)
    if real_k and g_bb <= 0:
        raise _Fail(f"{nd.label}: BOS does not win its own query (gap {_down(g_bb):.3g})")
    l1_bos = (2 * N * (-g_bb * (1 - 2 * u)).exp() if real_k else arb(0)) + rho + a_abs
    g = fmt.gamma(N + 1)
    err_bos_val = _up(l1_bos * arb(vmag) + arb(vdiff_bos + verr) + arb(g) * (1 + rho) * vmag)
    x_bos = vnom
    if nd.op == "width":
        err = _width_error(
            nd, fmt, N, sel_min, sel_max, unsel_max, b_min, b_max, eta, rho, vmag, verr, vdiff, info
        )
        return err, np.full(_width(nd), err_bos_val), x_bos, info
    cases = []
    if selectable:
        sigma = (arb(sel_max - sel_min) + 2 * arb(eta)) * (1 + 2 * u)
        g2 = (arb(sel_min - b_max) - 2 * arb(eta)) * (1 - 2 * u)
        r = (-g2).exp()
        info["gap_bos"] = _down(g2)
        if g2 <= 0:
            raise _Fail(f"{nd.label}: a selected key does not beat BOS (gap {_down(g2):.3g})")
        if unsel_max is not None:
            g1 = (arb(sel_min - unsel_max) - 2 * arb(eta)) * (1 - 2 * u)
            info["gap"] = _down(g1)
            if g1 <= 0:
                raise _Fail(
                    f"{nd.label}: selected and unselected keys' scores overlap "
                    f"(gap {_down(g1):.3g})"
                )
            r += (N - 1) * (-g1).exp()
        # a categorical aggregate's selected keys carry ONE value: how the weight spreads over
        # them does not move the output, only the weight off them does (at most r / (1 + r),
        # w >= 1), and a one-hot entry moves by at most that weight (its value's dimension
        # down, any other up)
        cases.append(r / (1 + r) if not nd.numerical else sigma.exp() - 1 + 2 * r)
    if unsel_max is not None:  # an empty selection: N real keys against BOS
        g0 = (arb(b_min - unsel_max) - 2 * arb(eta)) * (1 - 2 * u)
        info["gap_empty"] = _down(g0)
        if g0 <= 0:
            raise _Fail(f"{nd.label}: BOS does not win an empty selection (gap {_down(g0):.3g})")
        x = N * (-g0).exp()
        cases.append(x / (1 + x) if not nd.numerical else 2 * x)
    if not cases:
        raise _Fail(f"{nd.label}: its selector never selects and never leaves a key out")
    l1 = max(cases, key=_up) + rho + a_abs
    info["l1"] = _up(l1)
    e = _up(l1 * arb(vmag) + arb(verr + max(vdiff, vdiff_bos)) + arb(g) * (1 + rho) * vmag)
    e += 2 * (N + 1) * fmt.tiny
    n_out = len(nd.values) if nd.numerical else _width(nd)
    return np.full(n_out, e), np.full(_width(nd), err_bos_val), x_bos, info


def _softmax_rho(fmt: _Format, N: int) -> arb:
    """``rho``: each computed softmax weight is its exact value (of the rounded score
    differences) times ``1 +- rho``: exp within EXP_ULPS ulps, the sum of ``N + 1`` terms, the
    division."""
    u, ce = arb(fmt.u), 2 * EXP_ULPS * arb(fmt.u)
    gz = arb(fmt.gamma(N + 1))
    hi = (1 + ce) * (1 + u) / ((1 - gz) * (1 - ce))
    lo = (1 - ce) * (1 - u) / ((1 + gz) * (1 + ce))
    return max(hi - 1, 1 - lo, key=_up)


def _values(nd, Wv, owners: _Owners, st: _State, fmt: _Format):
    """The head's value vectors: BOS's nominal block, the error bound of a computed value, the
    largest value, and the deviation of the exact values (rounded weights) from the intended
    encodings at real keys and at BOS."""
    block = Wv[nd.dims]
    cols = np.flatnonzero(np.abs(block).any(0))
    vown = owners.read(cols)
    eps = np.maximum(st.eps, st.eps_bos)
    A = np.abs(block)
    nb = len(vown)
    vnom_mag = nb * A.max(1)
    dv = A @ eps + nb * A.max(1) * float(st.extra[cols].max(initial=0.0))
    kv = nb + ((A > 0) & (eps > 0)[None, :]).sum(1)
    rv = fmt.gamma(kv) * (vnom_mag + dv) + 2 * kv * fmt.tiny
    verr = float((dv + rv).max(initial=0.0))
    # BOS's exact value: its bos / position-0 columns and its nominal stream
    vbos = block @ st.x_bos
    target = np.zeros(_width(nd))
    if nd.op == "width":
        target[:] = 1.0
    elif not nd.numerical:
        target[nd._index[nd.default]] = 1.0
    vdiff_bos = float(np.abs(vbos - target).max(initial=0.0))
    vmag = float(np.abs(vbos).max(initial=0.0))
    vdiff = 0.0
    base = nd.value_base
    if nd.op == "mean":
        if base.numerical:
            col = block[:, base.dims.start]
            if np.any(np.abs(col[0] - 1.0) > 0) or np.any(
                np.delete(block, [base.dims.start, owners.bos, owners.pos0], axis=1)
            ):
                raise _Fail(f"{nd.label}: its value map is not a copy of {base.label}")
            vals = [abs(Fraction(v)) for v in base.values]
            vmag = max(vmag, float(max(vals)) * (1 + 1e-15))
        else:
            for v in base.values:
                y = nd.value_fn(v)
                got = block[:, base.dim(v)]
                if nd.numerical:
                    dev = abs(Fraction(float(got[0])) - Fraction(y))
                    vdiff = max(vdiff, float(dev) * (1 + 1e-12))
                    vmag = max(vmag, abs(float(got[0])))
                else:
                    want = np.zeros(_width(nd))
                    want[nd._index[y]] = 1.0
                    vdiff = max(vdiff, float(np.abs(got - want).max()))
                    vmag = max(vmag, float(np.abs(got).max()))
    vmag = vmag + verr
    return vbos, verr, vmag, vdiff, vdiff_bos


def _width_error(
    nd, fmt, N, sel_min, sel_max, unsel_max, b_min, b_max, eta, rho, vmag, verr, vdiff, info
) -> np.ndarray:
    """Per width ``w = 0..N`` the error of BOS's weight ``1/(w + 1)`` (the scratch value)."""
    if sel_min is None:
        lo_s, hi_s = b_min, b_max
    else:
        lo_s, hi_s = min(sel_min, b_min), max(sel_max, b_max)
    u = arb(fmt.u)
    sigma = (arb(hi_s - lo_s) + 2 * arb(eta)) * (1 + 2 * u)
    es, ems = sigma.exp(), (-sigma).exp()
    if unsel_max is not None:
        g1 = (arb(lo_s - unsel_max) - 2 * arb(eta)) * (1 - 2 * u)
        info["gap"] = _down(g1)
        if g1 <= 0:
            raise _Fail(f"{nd.label}: selected and unselected keys' scores overlap")
        off = (-g1).exp()
    else:
        off = arb(0)
    info["spread"] = _up(sigma)
    g = arb(fmt.gamma(N + 1))
    tiny = arb(2 * (N + 1) * fmt.tiny)
    vb = arb(1) + arb(verr + vdiff)  # BOS's value (the scratch's 1) and its error
    vr = arb(verr)  # a real key's value: 0 on exact encodings
    by_value = {}
    for w in range(N + 1):
        x = arb(1) / (w + 1)
        a_lo = 1 / (1 + w * es + (N - w) * off) * (1 - rho) - tiny
        a_hi = 1 / (1 + w * ems) * (1 + rho) + tiny
        rnd = g * (a_hi * vb + vr)
        lo = a_lo * (2 - vb) - vr - rnd
        hi = a_hi * vb + vr + rnd
        by_value[Fraction(1, w + 1)] = max(_up(x - lo), _up(hi - x))
    return np.array([by_value[Fraction(v)] for v in nd.values])


# -- MLPs -----------------------------------------------------------------------------------


def _units(nd, lw, owners: _Owners) -> tuple[np.ndarray, list]:
    """The hidden units writing ``nd``'s dimensions and their clipped-ramp pairs (the same
    ``w1`` row at real positions: the ``bos`` / position-0 weights, 0 there, may differ)."""
    w2 = np.asarray(lw.mlp.w2, np.float64)
    mine = np.abs(w2[nd.dims]).any(0)
    units = np.flatnonzero(mine)
    outside = np.delete(w2[:, units], np.arange(nd.dims.start, nd.dims.stop), axis=0)
    if np.any(outside):
        raise _Fail(f"{nd.label}: a unit writes outside its dimensions")
    w1 = np.array(lw.mlp.w1, np.float64)
    w1[:, [owners.bos, owners.pos0]] = 0.0
    b1 = np.asarray(lw.mlp.b1, np.float64)
    pairs, i = [], 0
    while i < len(units):
        k = units[i]
        if (
            i + 1 < len(units)
            and units[i + 1] == k + 1
            and np.array_equal(w1[k], w1[k + 1])
            and np.array_equal(w2[:, k], -w2[:, k + 1])
            and b1[k] > b1[k + 1]
        ):
            pairs.append((i, i + 1))
            i += 2
        else:
            pairs.append((i,))
            i += 1
    return units, pairs


def _mlp(nd, lw, owners: _Owners, st: _State, fmt: _Format):
    """Bounds of one MLP node: every unit's pre-activation over every combination of its
    frontier's values, classified against the breakpoints; the output's error per value."""
    units, pairs = _units(nd, lw, owners)
    w1 = np.asarray(lw.mlp.w1, np.float64)[units]
    b1 = np.asarray(lw.mlp.b1, np.float64)[units]
    w2 = np.asarray(lw.mlp.w2, np.float64)[nd.dims][:, units]
    read = np.flatnonzero(np.abs(w1).any(0))
    rown = owners.read(read)
    real = [o for o in rown if o != "bos"]
    frontier = list(nd.frontier)
    if any(all(o is not f for f in frontier) and o.op not in ("tokens", "base") for o in real):
        raise _Fail(f"{nd.label}: a unit reads outside its frontier")
    # BOS: every unit off (its dims then exactly 0)
    A1 = np.abs(w1)
    pre_b = w1 @ st.x_bos + b1
    k1 = (A1 > 0).sum(1) + 1
    rad_b = A1 @ st.eps_bos + fmt.gamma(k1) * (A1 @ (np.abs(st.x_bos) + st.eps_bos) + np.abs(b1))
    rad_b = rad_b + 2 * k1 * fmt.tiny + (k1 + 2) * _F64 * (A1 @ np.abs(st.x_bos) + np.abs(b1))
    if np.any(pre_b + rad_b * (1 + 1e-9) >= 0):
        raise _Fail(f"{nd.label}: a unit is not off at BOS")
    # combinations: the frontier's values (tokens too where a unit reads them beside it)
    extra = [o for o in real if all(o is not f for f in frontier)]
    axes = frontier + extra
    combos = list(itertools.product(*(range(len(o.values)) for o in axes)))
    pos = {int(d): i for i, d in enumerate(read)}
    enc = [_encode_matrix(o, pos, o.values) for o in axes]
    errs = [
        np.zeros(len(o.values)) if o.op in ("tokens", "base") else st.value_error(o) for o in axes
    ]
    numerical = nd.numerical
    targets_cache: dict = {}
    out_err = np.zeros(len(nd.values) if numerical else 2)  # categorical: others, active
    d_pair = np.zeros(len(units))
    first = np.zeros(len(units), bool)
    single = np.zeros(len(units), bool)
    for p in pairs:
        if len(p) == 2:
            d_pair[p[0]] = b1[p[0]] - b1[p[1]]
            first[p[0]] = True
        else:
            single[p[0]] = True
    partner = np.full(len(units), -1)
    for p in pairs:
        if len(p) == 2:
            partner[p[0]], partner[p[1]] = p[1], p[0]
    A2 = np.abs(w2)
    w1r = w1[:, read]
    A1r = np.abs(w1r)
    min_slack = math.inf
    chunk = max(1, _CHUNK // max(1, len(units)))
    for start in range(0, len(combos), chunk):
        cs = combos[start : start + chunk]
        X = np.zeros((len(read), len(cs)))
        E = np.zeros((len(read), len(cs)))
        for a, o in enumerate(axes):
            idx = np.array([c[a] for c in cs])
            X += enc[a][:, idx]
            if not o.numerical and o.op not in ("tokens", "base"):
                E += enc[a][:, idx] * float(st.extra[o.dims].max(initial=0.0))
            if o.numerical:
                if o.dims.start in pos:
                    E[pos[o.dims.start]] += errs[a][idx]
            else:
                rows_o = [pos[d] for d in range(o.dims.start, o.dims.stop) if d in pos]
                E[rows_o] += errs[a][idx][None, :] if len(errs[a]) else 0.0
        pre = w1r @ X + b1[:, None]
        mag0 = A1r @ np.abs(X) + np.abs(b1)[:, None]
        rin = A1r @ E
        rnd = fmt.gamma(k1)[:, None] * (mag0 + rin) + (2 * k1 * fmt.tiny)[:, None]
        sl = ((len(read) + 3) * _F64) * (mag0 + rin)
        rnd = (rnd + sl) * (1 + 1e-9)
        rad = (rin + rnd) * (1 + 1e-9)
        on = pre - rad >= 0
        off = pre + rad <= 0
        slack = np.abs(pre) - rad
        min_slack = min(min_slack, float(slack.min(initial=math.inf)))
        decided = on | off
        if not decided.all():
            u_, c_ = np.argwhere(~decided)[0]
            raise _Fail(
                f"{nd.label}: an input interval reaches a breakpoint (unit {int(units[u_])}, "
                f"pre-activation {pre[u_, c_]:.4g} +- {rad[u_, c_]:.3g})"
            )
        mixed = partner >= 0
        if np.any(on[mixed] != on[partner[mixed]]):
            raise _Fail(f"{nd.label}: a ramp pair is in its transition band")
        # exact-arithmetic output: d per pair that is on, the pre-activation per single on
        contrib = np.where(first[:, None] & on, d_pair[:, None], 0.0)
        contrib = contrib + np.where(single[:, None] & on, pre, 0.0)
        Y = w2 @ contrib
        ysl = (len(units) + 2) * _F64 * (A2 @ np.abs(contrib)) + _F64 * np.abs(Y)
        # float: the rounding of every unit that is on, and of the sum over them
        r_unit = np.where(single[:, None], rad, rnd)
        r_unit = r_unit + np.where(mixed[:, None], rnd[np.maximum(partner, 0)], 0.0)
        h_mag = np.where(on, np.abs(pre) + rad, 0.0)
        n_on = on.sum(0)
        fe = A2 @ np.where(first[:, None] | single[:, None], r_unit * on, 0.0)
        fe = fe + fmt.gamma(n_on)[None, :] * (A2 @ h_mag) + 2 * n_on[None, :] * fmt.tiny
        for c_i, c in enumerate(cs):
            key = tuple(c[: len(frontier)])
            if key not in targets_cache:
                assign = {id(f): f.values[j] for f, j in zip(frontier, key)}
                try:
                    y = evaluate_fused(nd, assign)
                except Exception as err:
                    raise _Fail(f"{nd.label}: its function raised {err!r}") from None
                targets_cache[key] = y
            y = targets_cache[key]
            if numerical:
                t = float(Fraction(y))
                dev = abs(Y[0, c_i] - t) + abs(t) * _F64 + ysl[0, c_i] + fe[0, c_i]
                j = nd._index[Fraction(y)]
                out_err[j] = max(out_err[j], dev)
            else:
                want = np.zeros(_width(nd))
                want[nd._index[y]] = 1.0
                dev = np.abs(Y[:, c_i] - want) + ysl[:, c_i] + fe[:, c_i]
                j = nd._index[y]
                out_err[1] = max(out_err[1], float(dev[j]))
                out_err[0] = max(out_err[0], float(np.delete(dev, j).max(initial=0.0)))
    if np.any(np.abs(out_err) * 2 > fmt.max):
        raise _Fail(f"{nd.label}: overflows {fmt.name}")
    info = {"breakpoint_distance": min_slack, "combinations": len(combos), "units": len(units)}
    if numerical:
        return out_err, 0.0, info
    return np.full(_width(nd), out_err[0]), max(0.0, out_err[1] - out_err[0]), info


# -- the search over lengths ----------------------------------------------------------------


def certified_length(
    program: lang.SOp,
    vocab: Sequence[Hashable],
    dtype: str = "float32",
    *,
    lengths: Sequence[int] = DEFAULT_LENGTHS,
    causal: bool = False,
    softmax_scale: float | None = None,
    mlp_slope: float | None = None,
) -> dict[str, Any]:
    """The longest ``N`` among ``lengths`` (then bisected) such that the model compiled for
    ``N`` (the compiler's laws, or the overrides) is certified by :func:`certify` in ``dtype`` --
    exact on every input of every length up to ``N`` -- with every smaller length tried also
    certified. ``causal``: the program is first compiled causally (the compiler refuses one
    whose meaning a causal mask changes); the series is compiled without the mask, whose weights
    are the causal model's (the mask only removes competing keys: the same certificate).

    Returns ``certified_length`` (``0`` if none), ``first_failure`` (the first uncertified
    length tried, or ``None``), ``largest_tried`` and the per-length rows (certified, min
    margin, what limits it).
    """
    if dtype not in FORMATS:
        raise ValueError(f"dtype: expected one of {list(FORMATS)}, got {dtype!r}")
    from transformer_theory.rasp._check import _lengths

    lengths = sorted(set(_lengths("lengths", lengths)))
    for name, v in (("softmax_scale", softmax_scale), ("mlp_slope", mlp_slope)):
        if v is not None and not (isinstance(v, (int, float)) and 0 < v < math.inf):
            raise ValueError(f"{name}: expected a positive number, got {v!r}")
    if not lengths or lengths[0] < 1:
        raise ValueError(f"lengths: expected positive lengths, got {list(lengths)}")
    rows: dict[int, dict] = {}
    if causal:  # the compiler's refusal of a program whose meaning a causal mask changes, once
        compiler.compile(program, vocab, min(lengths[-1], 6), True)

    def attempt(n: int) -> bool:
        if n not in rows:
            try:
                # a causal model has the same weights; its mask only removes keys, which the
                # worst case over every set of competing keys already covers
                compiled = compiler.compile(
                    program, vocab, n, False, softmax_scale=softmax_scale, mlp_slope=mlp_slope
                )
            except ValueError as err:  # the compiler refuses this length (a table too large)
                rows[n] = {"length": n, "certified": False, "limited_by": f"compile: {err}"}
                return False
            r = certify(compiled, dtype)
            rows[n] = {
                "length": n,
                "certified": r["certified"],
                "min_margin": r["min_margin"],
                "limited_by": r["limited_by"],
            }
        return rows[n]["certified"]

    best, fail = 0, None
    for n in lengths:
        if attempt(n):
            best = n
        else:
            fail = n
            break
    if fail is not None:  # bisect between the last pass and the first failure
        lo, hi = best, fail
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if attempt(mid):
                lo = mid
            else:
                hi = mid
        best, fail = lo, hi
    return {
        "dtype": dtype,
        "certified_length": best,
        "first_failure": fail,
        "largest_tried": max(rows),
        "softmax_scale": softmax_scale,
        "mlp_slope": mlp_slope,
        "rows": [rows[n] for n in sorted(rows)],
    }


# -- the ledger's check ---------------------------------------------------------------------


def inputs_family(vocab: Sequence[Hashable]) -> Any:
    """The domain of a certificate row: for every ``N``, every input over ``vocab`` of every
    length ``1..N`` to the model compiled for ``N``."""
    from transformer_theory.domains import Family, Strings

    v = tuple(vocab)
    return Family(
        "N",
        lambda N: Strings(v, range(1, N + 1), what="input"),
        start=1,
        what=f"inputs over {{{', '.join(map(str, v))}}} of every length up to N to the model "
        "compiled for N",
    )


def ledger_check(program: str, upto: int, family: Any, witness_length: int = 1) -> Any:
    """The ledger's check of a library program's certified lengths (``rasp/claims.py``): the
    model compiled for every ``N`` of :data:`DEFAULT_LENGTHS` up to ``upto`` (and the bisection)
    certified in float32 and in float64; the sizes certified in both are the covered sub-domain
    of ``family`` (every input of each, counted, never enumerated).

    Values: ``certified`` (both formats certified at every length tried up to ``upto``),
    ``float32`` / ``float64`` (the certified length found, of the largest tried), ``limited_by``.
    Witness: the float32 forward pass's smallest margin over every input of the model compiled
    for ``witness_length`` (:func:`~transformer_theory.rasp.check`) is at least the certified
    lower bound of it.
    """
    from transformer_theory.domains import Tally
    from transformer_theory.ledger import Checked, Witness
    from transformer_theory.rasp import _check
    from transformer_theory.rasp._library import PROGRAMS, get_program

    sop, v = get_program(program)
    causal = PROGRAMS[program].causal
    lengths = [n for n in DEFAULT_LENGTHS if n <= int(upto)] or [1]
    recs = {d: certified_length(sop, v, d, lengths=lengths, causal=causal) for d in FORMATS[:2]}
    both = sorted(
        {r["length"] for r in recs["float32"]["rows"] if r["certified"]}
        & {r["length"] for r in recs["float64"]["rows"] if r["certified"]}
    )
    covered = [n for n in both if n <= int(upto)]
    tally = Tally(family.at(covered or [1]))
    for n in covered:
        tally.record_count(family.member(n).size)
    m = min(witness_length, int(upto))
    compiled = compiler.compile(sop, v, m, False)
    cert = certify(compiled, "float32")
    rec = _check.check(compiled, dtype="float32", max_inputs=10**6)
    witness = Witness(
        f"float32 smallest margin over every input, model compiled for {m}",
        rec["min_margin"],
        cert["min_margin"] if cert["min_margin"] is not None else -math.inf,
        side="above",
    )
    ok = all(r["certified_length"] >= lengths[-1] for r in recs.values())
    values = {
        "certified": ok and bool(covered),
        "upto": lengths[-1],
        "float32": recs["float32"]["certified_length"],
        "float64": recs["float64"]["certified_length"],
        "largest_tried": max(r["largest_tried"] for r in recs.values()),
        "limited_by": [r["rows"][-1]["limited_by"] for r in recs.values() if r["first_failure"]],
    }
    return Checked("enclosed", tally, values, witnesses=(witness,))
