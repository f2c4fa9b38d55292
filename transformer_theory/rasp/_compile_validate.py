"""Compiler stage 2, refusals at compile time: a program whose meaning would change under a
causal mask (``causal=True``), or that the interpreter gives no value on some input (a
categorical aggregate over different values, as tracr's validator refuses it), is refused with a
message naming the node and the input, before any weight is built.
"""

from __future__ import annotations

import itertools

import numpy as np

from transformer_theory.rasp import _language as lang
from transformer_theory.rasp._compile_ir import Node

__all__ = ["validate"]


def validate(nodes: list[Node], program: lang.SOp, vocab: list, N: int, causal: bool | str) -> None:
    """Raise ValueError naming the node for a program this compiler must refuse."""
    if causal is True:
        _refuse_noncausal(nodes, program, vocab, N)
    _refuse_undefined(nodes, program, vocab, N)


def _refuse_undefined(nodes: list[Node], program: lang.SOp, vocab: list, N: int) -> None:
    """Refuse, at compile time, a program the interpreter gives no value on some input (a
    categorical aggregate whose selected keys carry different values, tracr's validator's
    "width > 1 that requires aggregation"; a user's function raising): every input while there
    are at most 512 of a length, then 4 seeded ones at half the length and at ``N``. Run only
    where a categorical aggregate reads more than one value (else nothing can be undefined but a
    raising function, which the value-set inference already called on every value)."""
    if not any(
        n.op == "mean" and not n.numerical and len(set(n.value.values) - {n.default}) > 1
        for n in nodes
    ):
        return
    rng = np.random.default_rng(0)
    for n in range(1, N + 1):
        if len(vocab) ** n <= 512:
            inputs = [list(t) for t in itertools.product(vocab, repeat=n)]
        elif n in (max(1, N // 2), N):
            inputs = [[vocab[i] for i in rng.integers(len(vocab), size=n)] for _ in range(4)]
        else:
            continue
        for xs in inputs:
            try:
                lang.evaluate_all(program, xs)
            except ValueError as err:
                if "categorical aggregate over different values" not in str(err):
                    return  # a predicate raising on a value: the head's table names its node
                raise ValueError(
                    f"{err} (no value to compile: a categorical aggregate moves one value)"
                ) from None


def _refuse_noncausal(nodes: list[Node], program: lang.SOp, vocab: list, N: int) -> None:
    """Refuse a program whose selectors pick a later key on some input (every input while there
    are at most 2000 of a length, 64 random ones of each longer length, seeded)."""
    rng = np.random.default_rng(0)
    heads = [n for n in nodes if n.op in ("mean", "width")]
    for n in range(1, N + 1):
        if len(vocab) ** n <= 2000:
            inputs = [list(t) for t in itertools.product(vocab, repeat=n)]
        else:
            inputs = [[vocab[i] for i in rng.integers(len(vocab), size=n)] for _ in range(64)]
        for xs in inputs:
            trace = lang.evaluate_all(program, xs)
            for h in heads:
                vals = [(k.expect(trace), q.expect(trace), p) for k, q, p in h.terms]
                for i in range(n):
                    for j in range(i + 1, n):
                        if all(p(kv[j], qv[i]) for kv, qv, p in vals):
                            name = h.source.label if h.source is not None else h.label
                            raise ValueError(
                                f"causal: {name} selects key {j} at query {i} on input {xs}; "
                                "its meaning changes under a causal mask"
                            )
