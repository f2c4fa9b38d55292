"""The compiler's intermediate representation (as tracr's ``compiler/nodes.py``): the
:class:`Node` of the compiled graph that every stage reads and annotates in turn (the graph
builds it with its value set, the layout gives it a layer and residual dimensions, craft its
constants), the plain blocks craft hands to the assembly (:class:`LayerBlocks`), and the small
readings of the graph that several stages and the checks share. No stage is imported here: the
stages read the IR, never one another.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from transformer_theory.rasp import _language as lang

__all__ = ["LayerBlocks", "Node", "evaluate_fused", "min_gap"]


@dataclasses.dataclass(eq=False)
class Node:
    """One node of the compiled graph: a base input, an MLP (table) or an attention head."""

    label: str
    op: str  # "tokens" | "indices" | "mlp" | "mean" | "width"
    numerical: bool
    values: list
    expect: Callable[[dict], list]  # the node's values from the interpreter's trace
    inputs: list[Node] = dataclasses.field(default_factory=list)
    fn: Callable[..., Any] | None = None
    terms: list[tuple[Node, Node, Callable[[Any, Any], bool]]] | None = None
    value: Node | None = None
    value_base: Node | None = None
    value_fn: Callable[[Any], Any] | None = None
    default: Any = None
    source: lang.RASPExpr | None = None
    layer: int = -1
    frontier: list[Node] | None = None
    materialized: bool = False
    dims: slice | None = None
    beta: float | None = None
    tolerance: float | None = None
    ramps: list | None = None
    linear: tuple | None = None  # (p, q) of an exact linear MLP over two numerical inputs

    def __repr__(self) -> str:
        kind = "numerical" if self.numerical else "categorical"
        n = len(self.values)
        return f"Node({self.label!r}, {self.op}, {kind}, {n} values, layer {self.layer})"

    def dim(self, v: Any) -> int:
        """The residual dimension of value ``v`` (categorical) or of the number (numerical)."""
        if self.numerical:
            return self.dims.start
        return self.dims.start + self._index[v]

    def finish(self) -> None:
        self._index = {v: i for i, v in enumerate(self.values)}


@dataclasses.dataclass(frozen=True)
class LayerBlocks:
    """One layer's blocks, plain arrays: ``w_qk`` and ``w_v`` of shape ``(H, D, D)`` (one zero
    head where the layer has none) and the MLP's hidden units, ``(w1 row, b1, w2 column)``
    triples, each already switched off at BOS."""

    w_qk: np.ndarray
    w_v: np.ndarray
    units: list[tuple[np.ndarray, float, np.ndarray]]


def min_gap(values: list) -> float:
    """The smallest gap between consecutive sorted ``values`` (1 for fewer than two)."""
    gaps = [float(b - a) for a, b in zip(values, values[1:])]
    return min(gaps, default=1.0)


def evaluate_fused(node: Node, assignment: dict[int, Any]) -> Any:
    """The value of ``node``'s fused table where its frontier takes ``assignment`` (``id`` of a
    frontier node -> its value), through the fused Maps' functions."""
    if id(node) in assignment:
        return assignment[id(node)]
    return node.fn(*(evaluate_fused(i, assignment) for i in node.inputs))
