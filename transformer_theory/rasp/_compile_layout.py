"""Compiler stage 3, layers and the residual layout: each head in the first layer after its
inputs, each MLP table fused over the nearest materialized inputs it can read in one hidden
layer (the feasible choice of least layer), then one labelled block of residual dimensions per
materialized node (a one-hot per value of a categorical node, one dimension for a number).
"""

from __future__ import annotations

import itertools
import math

from transformer_theory.rasp._compile_ir import Node

__all__ = ["MAX_TABLE", "allocate_layers", "residual_layout"]

MAX_TABLE = 4096
"""Largest lookup table (combinations of categorical inputs) one fused MLP node may hold."""


def allocate_layers(nodes: list[Node], out: Node) -> int:
    """Set every node's ``layer``, ``frontier`` and ``materialized``; returns the depth.

    Raises:
      ValueError: naming the node, for a table no one hidden layer can read.
    """
    for nd in nodes:
        if nd.op in ("tokens", "indices"):
            nd.layer, nd.materialized = 0, True
        elif nd.op in ("mean", "width"):
            ins = [x for t in nd.terms for x in t[:2]]
            ins += [nd.value_base] if nd.value_base is not None else []
            for x in ins:
                x.materialized = True
            nd.layer = max((_avail_attn(x) for x in ins), default=0)
            nd.materialized = True
        else:
            fr = list(nd.inputs) if nd.linear else _choose_frontier(nd)
            if fr is None:
                raise ValueError(
                    f"{nd.label}: a one-hidden-layer table reads one numerical input (beside up "
                    "to two exact categorical ones) or up to three categorical ones, at most "
                    f"{MAX_TABLE} combinations; got {[f.label for f in nd.inputs]}: Map a "
                    "numerical input to a category first"
                )
            nd.frontier = fr
            nd.layer = max(_avail_mlp(f) for f in fr)
    for nd in nodes:
        if nd.op == "mlp" and nd.frontier is not None:
            for f in nd.frontier:
                f.materialized = True
    out.materialized = True
    return 1 + max(n.layer for n in nodes)


def residual_layout(nodes: list[Node], vocab: list, N: int) -> list[str]:
    """Set every materialized node's ``dims``; returns the dimensions' labels: the token one-hot
    (the vocabulary's order), ``bos``, ``position:0 (BOS)``, ``indices:0..N-1``, then one block
    per materialized node."""
    V = len(vocab)
    labels = [f"tokens:{v!r}" for v in vocab] + ["bos", "position:0 (BOS)"]
    labels += [f"indices:{i}" for i in range(N)]
    for nd in nodes:
        if nd.op in ("tokens", "indices"):
            continue
        if nd.materialized:
            start = len(labels)
            labels += [nd.label] if nd.numerical else [f"{nd.label}:{v!r}" for v in nd.values]
            nd.dims = slice(start, len(labels))
    for nd in nodes:
        if nd.op == "tokens":
            nd.dims = slice(0, V)
        elif nd.op == "indices":
            nd.dims = slice(V + 2, V + 2 + N)
    return labels


def _avail_attn(x: Node) -> int:
    return 0 if x.op in ("tokens", "indices") else x.layer + 1


def _avail_mlp(x: Node) -> int:
    if x.op in ("tokens", "indices"):
        return 0
    return x.layer if x.op in ("mean", "width") else x.layer + 1


def _feasible(frontier: list[Node]) -> bool:
    """Can one hidden layer read ``frontier`` exactly: up to three categorical inputs, or one
    numerical input beside up to two exact categorical ones (not a raw aggregate, whose error
    the numerical ramp's large weight would amplify)."""
    nums = [f for f in frontier if f.numerical]
    cats = [f for f in frontier if not f.numerical]
    combos = math.prod(len(f.values) for f in cats)
    if len(nums) > 1 or combos > MAX_TABLE:
        return False
    if nums:
        return (
            len(cats) <= 2
            and all(f.op != "mean" for f in cats)
            and (combos * len(nums[0].values) <= MAX_TABLE * 8)
        )
    return len(cats) <= 3


def _choose_frontier(nd: Node) -> list[Node] | None:
    """The inputs of ``nd``'s table: for each direct input, itself (materialized, one layer
    earlier if it is an MLP) or its own frontier (fused): the feasible choice of least layer,
    then fewest inputs."""
    options = []
    for i in nd.inputs:
        opts = [[i]]
        if i.op == "mlp" and i.frontier is not None:
            opts.insert(0, i.frontier)
        options.append(opts)
    best = None
    for choice in itertools.product(*options):
        fr: list[Node] = []
        for part in choice:
            fr += [f for f in part if f not in fr]
        if not _feasible(fr):
            continue
        cost = (max(_avail_mlp(f) for f in fr), len(fr))
        if best is None or cost < best[0]:
            best = (cost, fr)
    return None if best is None else best[1]
