"""The counter recognizer (:mod:`._constructions_counters`) in exact arithmetic and its float
error: :class:`ExactCounterModel` runs the same weights in rationals (python-flint ``fmpq``)
prefix by prefix, so :func:`exact_check` can check every string up to a length exactly;
:func:`counter_tolerance` and :func:`predicted_sign_safe_n` are the hand-derived rounding model.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from transformer_theory import _validate, budget, precision
from transformer_theory.papers.formal_languages._tasks_counters import (
    CounterMachine,
    _holds,
    _symbols,
    counter_values,
    is_member,
    machine,
)
from transformer_theory.params import ModelParams


def _q(x: float) -> Any:
    import flint

    num, den = float(x).as_integer_ratio()
    return flint.fmpq(num, den)


class ExactCounterModel:
    """The forward pass of :func:`transformer_theory.core.forward_all` in rationals (``fmpq``),
    prefix by prefix, for one causal layer with ``W_QK = 0`` (uniform weights ``1/(i + 1)``,
    exactly), one-hot tokens, no positional code, a ReLU MLP and no norms; anything else raises
    ``ValueError`` naming ``params``. The weights are read as the exact rationals their floats
    are."""

    def __init__(self, params: ModelParams) -> None:
        import flint

        cfg = params.config
        plain = (
            cfg.depth == 1
            and cfg.heads == (1,)
            and cfg.causal
            and cfg.attention in ("softmax", "hard_average")
            and cfg.positional == "none"
            and cfg.relative is None
            and cfg.qk_dim is None
            and cfg.mlp_activation == "relu"
            and cfg.final_norm is None
        )
        layer = params.layers[0]
        if not plain or layer.norm1 is not None or layer.norm2 is not None or layer.mlp is None:
            raise ValueError("params: expected one causal single-head layer with a ReLU MLP")
        if np.asarray(layer.attn.w_qk).any():
            raise ValueError("params: W_QK must be zero (uniform attention)")
        self.width = cfg.width
        self.vocab_size = cfg.vocab_size
        w_v = np.asarray(layer.attn.w_v[0], np.float64)
        self.values = [[_q(x) for x in w_v[:, t]] for t in range(cfg.vocab_size)]
        m = layer.mlp
        self.w1_T = flint.fmpq_mat([[_q(x) for x in row] for row in np.asarray(m.w1).T])
        self.b1 = [_q(x) for x in np.asarray(m.b1)]
        self.w2_T = flint.fmpq_mat([[_q(x) for x in row] for row in np.asarray(m.w2).T])
        self.b2 = [_q(x) for x in np.asarray(m.b2)]
        self.w_o_T = flint.fmpq_mat([[_q(x) for x in row] for row in np.asarray(params.w_o).T])

    def start(self) -> tuple[list[Any], int]:
        """The state before any token: the running sum of value rows and the count."""
        import flint

        return [flint.fmpq(0)] * self.width, 0

    def extend(self, state: tuple[list[Any], int], token: int) -> tuple[tuple, list[Any]]:
        """Read ``token`` at the next position: ``(new state, the logits there)``."""
        import flint

        total, count = state
        total = [a + v for a, v in zip(total, self.values[token])]
        count += 1
        z = [a / count for a in total]
        z[token] += 1
        zero = flint.fmpq(0)
        hidden = (flint.fmpq_mat([z]) * self.w1_T).tolist()[0]
        hidden = [max(h + c, zero) for h, c in zip(hidden, self.b1)]
        psi = (flint.fmpq_mat([hidden]) * self.w2_T).tolist()[0]
        z = [a + p + c for a, p, c in zip(z, psi, self.b2)]
        return (total, count), (flint.fmpq_mat([z]) * self.w_o_T).tolist()[0]

    def margins(self, tokens: Sequence[int]) -> list[list[Any]]:
        """The logits at every position of ``tokens`` (``BOS w_1 .. w_L``)."""
        state, out = self.start(), []
        for t in tokens:
            state, logits = self.extend(state, int(t))
            out.append(logits)
        return out


def _allowed(m: CounterMachine, counts: Sequence[int]) -> list[bool]:
    groups = (*m.guards, m.end_guards)
    return [all(_holds(rel, int(counts[c])) for c, rel in g) for g in groups]


@dataclasses.dataclass
class _Tally:
    strings: int = 0
    members: int = 0
    outputs: int = 0
    witness: dict | None = None


def _check_position(m, language, prefix, counts, logits, alive, alpha, tally) -> bool:
    """Check one position's exact outputs; record the string ``prefix``. False on a failure."""
    import flint

    n = len(prefix) + 1
    half = flint.fmpq(1, 2 * n) * _q(alpha)
    allowed = _allowed(m, counts)
    for s, (o, ok) in enumerate(zip(logits, allowed)):
        tally.outputs += 1
        if (ok and o != half) or (not ok and o > -half):
            tally.witness = {
                "string": list(prefix),
                "output": s,
                "allowed": ok,
                "exact": str(o),
                "derived": f"{'' if ok else '<= -'}{half}",
            }
            return False
    accepted = alive and logits[-1] > 0
    truth = is_member(language, prefix)
    tally.strings += 1
    tally.members += truth
    if accepted != truth:
        tally.witness = {"string": list(prefix), "accepted": bool(accepted), "member": truth}
        return False
    return True


def exact_check(
    params: ModelParams,
    language: str,
    max_length: int,
    samples: Sequence[Sequence[int]] = (),
    confidence: float = 1.0,
    *,
    limit: int | None = 10**6,
) -> dict[str, Any]:
    """Check ``params`` in exact arithmetic on every string of length ``0 .. max_length`` (the
    prefix tree, each prefix's outputs once) and on every prefix of each of ``samples``.

    At each position: every output equals ``confidence / (2n)`` where the machine's guards allow
    the symbol and is at most ``-confidence / (2n)`` where they do not (``n`` = positions read),
    and the convention of :func:`accepts` agrees with :func:`is_member` on the prefix.

    ``limit``: the most strings the exhaustive part may visit (``sum_{l <= max_length} S^l`` for
    ``S`` symbols); more is refused with the count before any is checked (``None``: no limit).

    Returns:
      ``{"ok", "strings", "members", "outputs", "witness"}``: strings checked (exhaustive ones
      and every prefix of the samples), members among them, outputs compared, and the first
      failure (``None`` when ``ok``).
    """
    m = machine(language)
    max_length = _validate.check_int_arg("max_length", max_length, 0)
    strings = sum(m.num_symbols**length for length in range(max_length + 1))
    budget.check_count("max_length", strings, limit, unit="strings (every prefix up to it)")
    model = ExactCounterModel(params)
    if model.vocab_size != m.num_symbols + 1:
        raise ValueError(f"params: expected {m.num_symbols + 1} token ids for {language}")
    tally = _Tally()
    S = m.num_symbols

    def visit(state, prefix, counts, alive) -> bool:
        token = m.bos if not prefix else prefix[-1]
        state, logits = model.extend(state, token)
        if not _check_position(m, language, prefix, counts, logits, alive, confidence, tally):
            return False
        if len(prefix) == max_length:
            return True
        allowed = _allowed(m, counts)
        for s in range(S):
            nxt = [c + u for c, u in zip(counts, m.updates[s])]
            if not visit(state, [*prefix, s], nxt, alive and allowed[s]):
                return False
        return True

    ok = visit(model.start(), [], list(m.start), True)
    for sample in samples if ok else ():
        state = model.start()
        symbols = _symbols(m, sample)
        counts = counter_values(m, symbols)
        state, logits = model.extend(state, m.bos)
        alive = True
        for i in range(len(symbols) + 1):
            if i:
                state, logits = model.extend(state, symbols[i - 1])
            if not _check_position(
                m, language, symbols[:i], counts[i], logits, alive, confidence, tally
            ):
                ok = False
                break
            if i < len(symbols):
                alive = alive and _allowed(m, counts[i])[symbols[i]]
        if not ok:
            break
    return {
        "ok": ok,
        "strings": tally.strings,
        "members": tally.members,
        "outputs": tally.outputs,
        "witness": tally.witness,
    }


def counter_tolerance(n: int, guards: int, dtype: str) -> float:
    """A bound on the float error of one output of :func:`.counter_recognizer` at ``n`` positions,
    derived by hand (not itself checked): ``2 (4G + 1) (n + 5) u`` (``G`` the output's guards,
    ``u`` the unit roundoff). Each stream coordinate is a uniform average of ``n`` values in
    ``[-1, 1]`` (within ``(n + 2) u`` of the exact one, Higham's ``gamma_n``), each hidden unit
    combines at most two of them, each guard adds at most two units, the readout adds ``b/2``;
    the factor 2 covers the roundings of those additions."""
    return 2.0 * (4 * guards + 1) * (n + 5) * precision.unit_roundoff(dtype)


def predicted_sign_safe_n(guards: int, dtype: str) -> int:
    """The largest ``n`` with ``counter_tolerance(n) < 1/(2n)``: where the hand-derived rounding
    model of :func:`counter_tolerance` PREDICTS every output's sign right (a prediction of that
    model, not a checked bound)."""
    c = 4 * (4 * guards + 1) * precision.unit_roundoff(dtype)
    n = int((-5 + math.sqrt(25 + 4 / c)) / 2)
    while c * n * (n + 5) >= 1:
        n -= 1
    while c * (n + 1) * (n + 6) < 1:
        n += 1
    return n
