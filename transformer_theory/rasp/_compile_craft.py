"""Compiler stage 4, the blocks: each head's ``beta`` and tolerance by the stated law, its
``w_qk`` and ``w_v``, and each MLP table's hidden units (clipped ramps, switched off at BOS), as
NumPy float64 arrays, handed to the assembly layer by layer
(:class:`~transformer_theory.rasp._compile_ir.LayerBlocks`, plain data).
BOS's stream is tracked exactly here, layer by layer, as the heads write it. The laws are in
:mod:`transformer_theory.rasp._compiler`.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from transformer_theory.rasp._compile_ir import LayerBlocks, Node, evaluate_fused, min_gap

__all__ = [
    "CATEGORICAL_TOLERANCE",
    "choose_constants",
    "craft_blocks",
    "head_weights",
    "mlp_units",
]

CATEGORICAL_TOLERANCE = Fraction(1, 12)


def choose_constants(nodes: list[Node], N: int, softmax_scale: float | None) -> None:
    """Set every head's ``beta`` and ``tolerance`` (the law of the compiler's docstring, or
    ``softmax_scale`` for every head)."""
    numeric_heads = [n for n in nodes if n.op == "mean" and n.numerical]
    m = max(1, len(numeric_heads))
    need: dict[int, float] = {}  # the gap a linear MLP downstream asks of a numerical head

    def require(nd: Node, gap: float) -> None:
        if nd.op == "mean" and nd.numerical:
            need[id(nd)] = min(need.get(id(nd), gap), gap)
        elif nd.linear:
            p, q = nd.linear
            for x in nd.inputs:
                require(x, gap / float(abs(p) + abs(q) or 1))

    for nd in nodes:
        if nd.linear:
            require(nd, min_gap(nd.values))
    for nd in nodes:
        if nd.op == "mean":
            if nd.numerical:
                vmax = float(max(abs(v) for v in [*nd.value.values, nd.default])) or 1.0
                tau = min(min_gap(nd.values), need.get(id(nd), math.inf)) / (4 * m)
            else:
                vmax, tau = 1.0, float(CATEGORICAL_TOLERANCE)
            nd.tolerance = tau
            nd.beta = softmax_scale or 2 * math.log(2 * vmax * (N + 1) / tau)
        elif nd.op == "width":
            nd.tolerance = 1 / (4 * (N + 1) * (N + 2))
            nd.beta = softmax_scale or math.log(4 * N * (N + 1) * (N + 2))


def constants_record(nodes: list[Node], softmax_scale: Any, mlp_slope: Any) -> dict:
    """The per-head constants and the laws, as the compiled program's record."""
    return {
        "law": "beta = 2 ln(2 V (N+1) / tau) (mean heads), ln(4 N (N+1) (N+2)) (SelectorWidth); "
        "numerical steps ramp over half the local gap",
        "softmax_scale_override": softmax_scale,
        "mlp_slope_override": mlp_slope,
        "heads": [
            {
                "node": n.label,
                "layer": n.layer,
                "kind": n.op,
                "beta": n.beta,
                "tolerance": n.tolerance,
            }
            for n in nodes
            if n.op in ("mean", "width")
        ],
    }


def head_weights(
    nd: Node, D: int, bos: int, real: list[int], x_bos: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(w_qk, w_v)`` of one head: ``beta`` per term that holds, BOS at ``beta (m - 1/2)``
    (mean) or ``beta m`` (width) for ``m`` terms, ``2 beta m`` from BOS to itself; values through
    the absorbed Map; BOS's value column set so BOS writes the empty selection's value."""
    beta, m = nd.beta, len(nd.terms)
    wqk = np.zeros((D, D))
    for key, query, pred in nd.terms:
        for kv in key.values:
            for qv in query.values:
                try:
                    hit = pred(kv, qv)
                except Exception as err:  # a user's predicate on a pair of its value sets
                    raise ValueError(
                        f"{nd.label}: its selector's predicate raised {err!r} on key {kv!r} "
                        f"({key.label}), query {qv!r} ({query.label})"
                    ) from None
                if hit:
                    wqk[key.dim(kv), query.dim(qv)] += beta
    wqk[bos, real] = beta * (m if nd.op == "width" else m - 0.5)
    wqk[bos, bos] = 2 * beta * m
    wv = np.zeros((D, D))
    if nd.op == "mean":
        base, fn = nd.value_base, nd.value_fn
        if nd.numerical and base.numerical:
            wv[nd.dims.start, base.dims.start] = 1
        else:
            for v in base.values:
                y = fn(v)
                if nd.numerical:
                    wv[nd.dims.start, base.dim(v)] = float(y)
                else:
                    wv[nd.dim(y), base.dim(v)] = 1
    target = np.zeros(D)
    if nd.op == "width":
        target[nd.dims.start] = 1
    elif not nd.numerical:
        target[nd.dim(nd.default)] = 1
    else:
        target[nd.dims.start] = float(nd.default)
    wv[:, bos] += target - wv @ x_bos
    return wqk, wv


def craft_blocks(
    nodes: list[Node], D: int, V: int, depth: int, mlp_slope: float | None
) -> list[LayerBlocks]:
    """Every layer's heads (:func:`head_weights`) and MLP units (:func:`mlp_units`), BOS's
    stream tracked through the heads' writes (its token and position-0 dimensions, then each
    head's value at BOS); every unit then gets a weight on the ``bos`` dimension that keeps it
    off at BOS's final stream, so BOS stays what the bookkeeping says."""
    bos, real = V, list(range(V))
    x_bos = np.zeros(D)
    x_bos[bos] = 1
    x_bos[V + 1] = 1
    heads_of, hidden = [], []
    for layer in range(depth):
        heads = [n for n in nodes if n.op in ("mean", "width") and n.layer == layer]
        wqk, wv = [], []
        for nd in heads:
            q, v = head_weights(nd, D, bos, real, x_bos)
            wqk.append(q)
            wv.append(v)
        for nd in heads:
            x_bos[nd.dims] = 0
            if nd.op == "width":
                x_bos[nd.dims] = 1
            elif not nd.numerical:
                x_bos[nd.dim(nd.default)] = 1
            else:
                x_bos[nd.dims.start] = float(nd.default)
        if not heads:
            wqk, wv = [np.zeros((D, D))], [np.zeros((D, D))]
        units = []
        for nd in nodes:
            if nd.op == "mlp" and nd.materialized and nd.layer == layer:
                units += mlp_units(nd, D, real, mlp_slope)
        hidden.append(units)
        heads_of.append((np.stack(wqk), np.stack(wv)))
    blocks = []
    for (wqk, wv), units in zip(heads_of, hidden):
        off = []
        for w, c, o in units:
            pre = w @ x_bos + c
            w = w.copy()
            w[bos] -= max(pre, 0.0) + 1.0  # off at BOS: BOS's stream stays known
            off.append((w, c, o))
        blocks.append(LayerBlocks(wqk, wv, off))
    return blocks


def _step(w: np.ndarray, c: float, lo: float, hi: float, out: np.ndarray):
    """Units of ``out * step(w.x + c; lo, hi)``: two ReLUs, exactly 0 below lo, 1 above hi."""
    s = 1.0 / (hi - lo)
    return [(w * s, (c - lo) * s, out), (w * s, (c - hi) * s, -out)]


def _encode(nd: Node, y: Any, D: int) -> np.ndarray:
    o = np.zeros(D)
    if nd.numerical:
        o[nd.dims.start] = float(y)
    else:
        o[nd.dim(y)] = 1
    return o


def mlp_units(nd: Node, D: int, real: list[int], slope: float | None) -> list:
    """The hidden units of a materialized MLP node: ``(w1 row, b1, w2 column)`` triples."""
    if nd.linear:  # p a + q b exactly: c x = c relu(x) - c relu(-x) for each input
        units = []
        nd.ramps = []
        for x, c in zip(nd.inputs, nd.linear):
            w, out = np.zeros(D), np.zeros(D)
            w[x.dims.start], out[nd.dims.start] = 1.0, float(c)
            units += [(w, 0.0, out), (-w, 0.0, -out)]
        return units
    nums = [f for f in nd.frontier if f.numerical]
    cats = [f for f in nd.frontier if not f.numerical]
    k = len(cats)
    units = []
    nd.ramps = []  # per combination: (sign, lo, hi) of each ramp over z = sign * x
    for combo in itertools.product(*(f.values for f in cats)):
        match = np.zeros(D)  # sum of the combination's one-hot entries: k iff it holds
        for f, v in zip(cats, combo):
            match[f.dim(v)] += 1
        assign = {id(f): v for f, v in zip(cats, combo)}
        if not nums:
            o = _encode(nd, evaluate_fused(nd, assign), D)
            if np.any(o):
                units += _step(match, 0.0, k - 0.75, k - 0.25, o)
            continue
        (x,) = nums
        s = x.values
        ys = [evaluate_fused(nd, {**assign, id(x): v}) for v in s]
        low, high = float(s[0]), float(s[-1])
        base = _encode(nd, ys[0], D)
        steps = []
        for i in range(len(s) - 1):
            if ys[i + 1] == ys[i]:
                continue
            t = float(s[i] + s[i + 1]) / 2
            half = float(s[i + 1] - s[i]) / 4 if slope is None else 0.5 / slope
            delta = _encode(nd, ys[i + 1], D) - _encode(nd, ys[i], D)
            # A ramp's pre-activation grows with the distance from its threshold; ramp on the
            # side with the shorter reach ("x >= t", or "x <= t" as 1 - it), so the rounding of
            # the saturated units stays small (the float law in rasp._check.predicted_exact).
            up = high - t <= t - low
            if not up:
                base = base + delta
            steps.append((t, half, delta, up))
        if np.any(base):
            if k:
                units += _step(match, 0.0, k - 0.75, k - 0.25, base)
            else:
                one = np.zeros(D)
                one[real] = 1
                units.append((one, 0.0, base))
        ramps = []
        big = high - low + 1.0
        for t, half, delta, up in steps:
            # z = +-x + M (match - k): a combination that does not hold pushes z below lo
            sign = 1.0 if up else -1.0
            w = (big + 4 * half) * match
            w[x.dims.start] += sign
            lo, hi = sign * t - half, sign * t + half
            units += _step(w, -(big + 4 * half) * k, lo, hi, sign * delta)
            ramps.append((sign, lo, hi))
        nd.ramps.append(ramps)
    return units
