"""SHUFFLE-DYCK-k and simple counter machines as one causal softmax layer (Bhattamishra, Ahuja &
Goyal 2020; rows "SHUFFLE-DYCK-k" and "SSCMs" of Strobl et al. 2024's table).

The languages, as data. A :class:`CounterMachine` has ``K`` integer counters, starting at 0 (or at
given initial values); each symbol adds a fixed vector ``updates[s]`` to them, whatever their values
(the *simplified stateless* condition of Bhattamishra et al.: one state, an update that depends on
the input symbol only); each symbol, and the end of the string, may be read only when its *guards*
hold on the counters before it (``counter == 0``, ``counter >= 1`` or ``counter >= 0``). A string is
accepted when every symbol's guards hold when it is read and the end's guards hold after the last.
Built here (:data:`LANGUAGES`):

- ``shuffle_dyck_k`` (k = 1, 2, 3): the shuffle of ``k`` Dyck-1 languages over ``2k`` symbols
  (``2t`` opens and ``2t + 1`` closes bracket type ``t``): one counter per type, ``+1`` / ``-1``;
  a close of type ``t`` needs ``c_t >= 1``; the end needs every ``c_t == 0``. So a string is a
  member iff no type's depth is negative in any prefix and every type's final depth is 0.
  ``shuffle_dyck_1`` is Dyck-1.
- ``boolexp_n`` (n = 3): n-ary Boolean expressions in prefix (Polish) notation, one of the
  languages Bhattamishra et al. name as an SSCM: operands ``0``, ``1`` (ids 0, 1) and one operator
  of each arity ``1 .. n`` (id ``1 + a``). One counter, the number of expressions still needed,
  starts at 1; an operand needs 1 fewer, an operator of arity ``a`` needs ``a - 1`` more; every
  symbol needs the counter ``>= 1`` and the end needs 0. The alphabet (one operator per arity)
  is ours.
- ``anbn`` (``a^n b^n``, ``a = 0, b = 1``) and ``anbncn`` (``a^n b^n c^n``): the same counter
  layer with the order checked by counters too (``a`` needs ``#b + #c == 0``, ``b`` needs
  ``#c == 0``; ``b`` needs ``#a - #b >= 1``, ``c`` needs ``#b - #c >= 1``; the end needs the
  differences 0). These are this module's machines: Bhattamishra et al. train on these languages
  but the machines are ours.

The construction (Bhattamishra et al. 2020, their Shuffle-Dyck proof: no positional encoding, a
future mask, query and key weights zero so softmax attends uniformly to the prefix). The model
reads ``BOS w_1 .. w_L`` (``BOS`` = the id after the symbols, the start symbol of the library's
other recognizers; it supplies ``1/(i + 1)``). One layer, one head, ``W_QK = 0``: at position
``i`` (BOS is position 0) the attention output is the mean of the value rows over ``j <= i``; the
value of symbol ``s`` is ``updates[s]`` on the counter coordinates and BOS writes the initial
values there and 1 on the coordinate ``b``, so the stream holds ``r_k = c_k(i) / (i + 1)`` and
``b = 1 / (i + 1)``. A ReLU MLP forms, for each counter, ``relu(r)``, ``relu(-r)`` and
``relu(b - r)``, and writes each symbol's *violation* ``V_s``: ``|r| = relu(r) + relu(-r)`` for
a ``== 0`` guard, ``relu(b - r)`` for ``>= 1``, ``relu(-r)`` for ``>= 0``, summed over the
symbol's guards. The output at every position (:func:`transformer_theory.core.forward_all`) has
one logit per symbol and one for the end: ``o_s = confidence (b/2 - V_s)``. Since the counters are
integers, a violated guard contributes at least ``b``, so ``o_s = confidence b / 2`` exactly when
``s`` may come next and ``o_s <= -confidence b / 2`` when not: margins of size at least
``1 / (2n)``, ``n = L + 1``.

The decision is the paper's output convention (next-character prediction, after Gers &
Schmidhuber 2001 and Suzgun et al. 2019): the output at position ``i`` is the set of symbols that
may come next (``o_s > 0``), and a string is accepted iff every symbol was in the set predicted
before it and the end is in the set after the last symbol (:func:`accepts`). The reading of that
convention through guards on ``counter >= 1`` and ``counter == 0``, the BOS token, the
``anbn``/``anbncn`` machines and the ``boolexp_n`` alphabet are this module's; the mechanism
(uniform causal attention computing each counter's depth-to-length ratio, a feed-forward
decision on it) is the paper's.

:class:`ExactCounterModel` runs the same weights in rational arithmetic (python-flint ``fmpq``)
prefix by prefix, so :func:`exact_check` can check every string up to a length exactly.
Shape letters: see :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from transformer_theory import _validate, budget
from transformer_theory.params import (
    AttentionParams,
    LayerParams,
    MLPParams,
    ModelConfig,
    ModelParams,
)

__all__ = [
    "LANGUAGES",
    "RELATIONS",
    "CounterMachine",
    "ExactCounterModel",
    "accepts",
    "anbn",
    "anbncn",
    "build",
    "counter_values",
    "exact_check",
    "is_member",
    "machine",
    "machine_accepts",
    "next_symbol_margins",
    "recognize",
    "sample",
    "shuffle_dyck",
]

RELATIONS = ("zero", "positive", "nonnegative")  # counter == 0, >= 1, >= 0
DType = jnp.dtype | type


@dataclasses.dataclass(frozen=True)
class CounterMachine:
    """A simplified stateless counter machine with guards (see the module docstring).

    Attributes:
      name: the language's name.
      symbols: one label per symbol id ``0 .. S-1``.
      updates: ``updates[s]`` is the integer vector (length ``K``) symbol ``s`` adds.
      guards: ``guards[s]``, pairs ``(counter, relation)`` that must hold before ``s`` is read
        (``relation`` in :data:`RELATIONS`).
      end_guards: the pairs that must hold after the last symbol.
      initial: the counters' values before any symbol (``()``: all 0).
    """

    name: str
    symbols: tuple[str, ...]
    updates: tuple[tuple[int, ...], ...]
    guards: tuple[tuple[tuple[int, str], ...], ...]
    end_guards: tuple[tuple[int, str], ...]
    initial: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        S = len(self.symbols)
        if S < 1:
            raise ValueError("symbols: expected at least one symbol")
        if len(self.updates) != S or len(self.guards) != S:
            raise ValueError(f"updates, guards: expected one entry per symbol ({S})")
        K = len(self.updates[0])
        if K < 1 or any(len(u) != K for u in self.updates):
            raise ValueError(f"updates: expected {S} integer vectors of one length >= 1")
        if any(isinstance(x, bool) or not isinstance(x, int) for u in self.updates for x in u):
            raise ValueError("updates: expected integers")
        if self.initial and (
            len(self.initial) != K
            or any(isinstance(x, bool) or not isinstance(x, int) for x in self.initial)
        ):
            raise ValueError(f"initial: expected () or {K} integers, got {self.initial!r}")
        for name, group in [("guards", g) for g in self.guards] + [("end_guards", self.end_guards)]:
            for counter, relation in group:
                if not (isinstance(counter, int) and 0 <= counter < K) or relation not in RELATIONS:
                    raise ValueError(
                        f"{name}: expected (counter in 0..{K - 1}, relation in {RELATIONS}), got "
                        f"{(counter, relation)!r}"
                    )

    @property
    def num_symbols(self) -> int:
        """``S``, the number of symbols (the model reads ``S + 1`` ids with BOS)."""
        return len(self.symbols)

    @property
    def num_counters(self) -> int:
        """``K``, the number of counters."""
        return len(self.updates[0])

    @property
    def start(self) -> tuple[int, ...]:
        """The counters before any symbol."""
        return self.initial or (0,) * self.num_counters

    @property
    def bos(self) -> int:
        """The start symbol's id, ``S``."""
        return len(self.symbols)


def _holds(relation: str, value: int) -> bool:
    return (
        value == 0 if relation == "zero" else (value >= 1 if relation == "positive" else value >= 0)
    )


def shuffle_dyck(k: int) -> CounterMachine:
    """SHUFFLE-DYCK-k: ``2t`` opens and ``2t + 1`` closes bracket type ``t`` (``t < k``)."""
    k = _validate.check_int_arg("k", k, 1)
    symbols, updates, guards = [], [], []
    for t in range(k):
        unit = tuple(1 if j == t else 0 for j in range(k))
        symbols += [f"({t}", f"){t}"]
        updates += [unit, tuple(-x for x in unit)]
        guards += [(), ((t, "positive"),)]
    end = tuple((t, "zero") for t in range(k))
    return CounterMachine(f"shuffle_dyck_{k}", tuple(symbols), tuple(updates), tuple(guards), end)


def anbn() -> CounterMachine:
    """``a^n b^n`` (``n >= 0``): counters ``#a - #b`` and ``#b``."""
    return CounterMachine(
        "anbn",
        ("a", "b"),
        ((1, 0), (-1, 1)),
        (((1, "zero"),), ((0, "positive"),)),
        ((0, "zero"),),
    )


def anbncn() -> CounterMachine:
    """``a^n b^n c^n`` (``n >= 0``): counters ``#a - #b``, ``#b - #c``, ``#b + #c``, ``#c``."""
    return CounterMachine(
        "anbncn",
        ("a", "b", "c"),
        ((1, 0, 0, 0), (-1, 1, 1, 0), (0, -1, 1, 1)),
        (((2, "zero"),), ((0, "positive"), (3, "zero")), ((1, "positive"),)),
        ((0, "zero"), (1, "zero")),
    )


def boolexp(n: int) -> CounterMachine:
    """n-ary Boolean expressions in prefix notation: operands ``0``, ``1`` and one operator of
    each arity ``1 .. n`` (id ``1 + a``); one counter, the expressions still needed (from 1)."""
    n = _validate.check_int_arg("n", n, 1)
    arities = [0, 0, *range(1, n + 1)]
    return CounterMachine(
        f"boolexp_{n}",
        ("0", "1", *(f"op{a}" for a in range(1, n + 1))),
        tuple((a - 1,) for a in arities),
        tuple(((0, "positive"),) for _ in arities),
        ((0, "zero"),),
        initial=(1,),
    )


LANGUAGES: dict[str, Callable[[], CounterMachine]] = {
    "shuffle_dyck_1": functools.partial(shuffle_dyck, 1),
    "shuffle_dyck_2": functools.partial(shuffle_dyck, 2),
    "shuffle_dyck_3": functools.partial(shuffle_dyck, 3),
    "boolexp_3": functools.partial(boolexp, 3),
    "anbn": anbn,
    "anbncn": anbncn,
}


def machine(language: str) -> CounterMachine:
    """The machine of ``language`` (a key of :data:`LANGUAGES`)."""
    _validate.check_choice("language", language, tuple(LANGUAGES))
    return LANGUAGES[language]()


def _symbols(m: CounterMachine, string: Sequence[int] | np.ndarray) -> list[int]:
    out = [int(x) for x in np.asarray(string).ravel()]
    if any(not 0 <= x < m.num_symbols for x in out):
        raise ValueError(f"string: symbols must lie in 0..{m.num_symbols - 1}, got {out}")
    return out


def counter_values(m: CounterMachine, string: Sequence[int] | np.ndarray) -> np.ndarray:
    """The counters after every prefix: ``(L + 1, K)`` integers, row 0 the empty prefix."""
    steps = np.array([m.updates[s] for s in _symbols(m, string)], np.int64)
    steps = steps.reshape(-1, m.num_counters)
    start = np.array([m.start], np.int64)
    return np.concatenate([start, start + np.cumsum(steps, 0)])


def machine_accepts(m: CounterMachine, string: Sequence[int] | np.ndarray) -> bool:
    """The machine's own run: every symbol's guards before it, the end's guards after."""
    symbols = _symbols(m, string)
    counts = counter_values(m, symbols)
    for i, s in enumerate(symbols):
        if not all(_holds(rel, int(counts[i, c])) for c, rel in m.guards[s]):
            return False
    return all(_holds(rel, int(counts[-1, c])) for c, rel in m.end_guards)


def is_member(language: str, string: Sequence[int] | np.ndarray) -> bool:
    """Membership by the language's definition, not by its machine: per-type depths (never
    negative, 0 at the end) for SHUFFLE-DYCK-k, a parse of one whole prefix expression for
    ``boolexp_n`` (iterative: the count of operands still owed, so a string of any length is
    parsed without recursion), the block pattern for ``a^n b^n (c^n)``."""
    m = machine(language)
    s = _symbols(m, string)
    if language.startswith("boolexp"):
        owed = 1  # expressions still to read: one in all
        for x in s:
            if owed == 0:  # a whole expression was read and symbols are left
                return False
            owed += max(x - 1, 0) - 1  # id 1 + a is the operator of arity a
        return owed == 0
    if language.startswith("shuffle_dyck"):
        depth = [0] * (m.num_symbols // 2)
        for x in s:
            depth[x // 2] += -1 if x % 2 else 1
            if depth[x // 2] < 0:
                return False
        return not any(depth)
    blocks = m.num_symbols
    n, rest = divmod(len(s), blocks)
    return rest == 0 and s == [x for x in range(blocks) for _ in range(n)]


# --------------------------------------------------------------------------- the construction


def _layout(m: CounterMachine) -> tuple[int, int, int, int]:
    """``(first counter coordinate, b, first violation coordinate, width)``."""
    S, K = m.num_symbols, m.num_counters
    r0 = S + 1
    b = r0 + K
    v0 = b + 1
    return r0, b, v0, v0 + S + 1


def _check_confidence(confidence: float) -> float:
    if isinstance(confidence, (bool, np.bool_)):
        raise ValueError(f"confidence: expected a finite positive number, got {confidence!r}")
    _validate.check_positive("confidence", confidence)
    return float(confidence)


def build(m: CounterMachine, confidence: float = 1.0, dtype: DType = jnp.float64) -> ModelParams:
    """The one-layer causal softmax recognizer of ``m`` (module docstring).

    Args:
      m: the machine (e.g. :func:`shuffle_dyck`).
      confidence: multiplies the readout; every output is ``+-confidence / (2 (i + 1))`` or
        beyond at position ``i``.
      dtype: float dtype of the parameters.

    Returns:
      ``ModelParams`` for ``S + 1`` ids (``BOS = S``) and ``S + 1`` outputs (symbol ``s``, then
      the end), read at every position by :func:`transformer_theory.core.forward_all`.
    """
    if not isinstance(m, CounterMachine):
        raise ValueError(f"m: expected a CounterMachine, got {type(m).__name__}")
    alpha = _check_confidence(confidence)
    S, K = m.num_symbols, m.num_counters
    r0, b, v0, D = _layout(m)
    cfg = ModelConfig(
        S + 1,
        2,
        D,
        S + 1,
        heads=(1,),
        attention="softmax",
        causal=True,
        positional="none",
        mlp_hidden=3 * K,
    )
    w_v = np.zeros((D, D))
    for s, u in enumerate(m.updates):
        w_v[r0 : r0 + K, s] = u
    w_v[r0 : r0 + K, m.bos] = m.start
    w_v[b, m.bos] = 1.0
    w1, w2 = np.zeros((3 * K, D)), np.zeros((D, 3 * K))
    for k in range(K):
        w1[3 * k, r0 + k] = 1.0  # relu(r)
        w1[3 * k + 1, r0 + k] = -1.0  # relu(-r)
        w1[3 * k + 2, [b, r0 + k]] = [1.0, -1.0]  # relu(b - r)
    units = {"zero": (0, 1), "positive": (2,), "nonnegative": (1,)}
    for o, group in enumerate((*m.guards, m.end_guards)):
        for k, relation in group:
            for unit in units[relation]:
                w2[v0 + o, 3 * k + unit] += 1.0
    w_o = np.zeros((S + 1, D))
    w_o[:, b] = alpha / 2
    w_o[np.arange(S + 1), v0 + np.arange(S + 1)] = -alpha

    def arr(x):
        return jnp.asarray(x, dtype)

    layer = LayerParams(
        attn=AttentionParams(w_v=arr(w_v[None]), w_qk=arr(np.zeros((1, D, D)))),
        mlp=MLPParams(arr(w1), arr(np.zeros(3 * K)), arr(w2), arr(np.zeros(D))),
    )
    return ModelParams(layers=(layer,), w_o=arr(w_o), config=cfg)


@jax.jit
def _all_margins(params, inputs_BxN):
    from transformer_theory.core import forward_all

    return jax.vmap(lambda t: forward_all(params, t))(inputs_BxN)


def next_symbol_margins(params: ModelParams, strings_BxN: ArrayLike) -> np.ndarray:
    """The outputs at every position of ``BOS w``: ``(B, L + 1, S + 1)``; entry ``[b, i, s]``
    positive iff symbol ``s`` (``S``: the end) may follow ``w_1 .. w_i``."""
    strings = jnp.asarray(strings_BxN)
    _validate.check_ndim("strings_BxN", strings, 2)
    S = params.config.vocab_size - 1
    _validate.check_token_ids("strings_BxN", strings, S)
    bos = jnp.full((strings.shape[0], 1), S, strings.dtype)
    return np.asarray(_all_margins(params, jnp.concatenate([bos, strings], axis=1)))


def accepts(margins_BxNxC: ArrayLike, strings_BxN: ArrayLike) -> np.ndarray:
    """The paper's convention: accepted iff every ``w_{i+1}`` was predicted at position ``i``
    (margin > 0) and the end is predicted at the last position. ``(B,)`` booleans."""
    margins, strings = np.asarray(margins_BxNxC), np.asarray(strings_BxN)
    _validate.check_ndim("margins_BxNxC", margins, 3)
    _validate.check_ndim("strings_BxN", strings, 2)
    B, L = strings.shape
    if margins.shape[:2] != (B, L + 1):
        raise ValueError(
            f"margins_BxNxC: expected shape ({B}, {L + 1}, C) for strings of shape {strings.shape},"
            f" got {margins.shape}"
        )
    read = np.take_along_axis(margins[:, :L, :], strings[:, :, None].astype(np.int64), 2)[..., 0]
    return np.all(read > 0, axis=1) & (margins[:, L, -1] > 0)


def recognize(params: ModelParams, strings_BxN: ArrayLike) -> np.ndarray:
    """:func:`accepts` on the model's :func:`next_symbol_margins`."""
    return accepts(next_symbol_margins(params, strings_BxN), strings_BxN)


# --------------------------------------------------------------------------- exact evaluation


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


# --------------------------------------------------------------------------- samples


def _random_shuffle_member(rng: np.random.Generator, k: int, length: int) -> np.ndarray:
    """A member of SHUFFLE-DYCK-k of even ``length``: ``k`` Dyck words (pair counts split at
    random), interleaved in a uniformly random order."""
    from transformer_theory.papers.formal_languages.tasks import _random_dyck

    pairs = rng.multinomial(length // 2, np.full(k, 1.0 / k))
    words = [_random_dyck(rng, 2 * int(p)) for p in pairs]  # 0 = open, 1 = close
    order = rng.permutation(np.repeat(np.arange(k), 2 * pairs))
    out, seen = np.zeros(length, np.int64), np.zeros(k, np.int64)
    for i, t in enumerate(order):
        out[i] = 2 * t + words[t][seen[t]]
        seen[t] += 1
    return out


def _dip(rng: np.random.Generator, k: int, length: int) -> np.ndarray:
    """A member with one type's depth-0 ``open .. close`` pair swapped: that type dips to -1
    while every final count stays 0; tries for one where the total depth stays >= 0."""
    best = None
    for _ in range(32):
        s = _random_shuffle_member(rng, k, length)
        t = int(rng.choice(np.unique(s // 2)))
        where = np.flatnonzero(s // 2 == t)
        depth = np.cumsum(np.where(s[where] % 2 == 0, 1, -1))
        # the opens of type t at depth 0 before them: their matching close is the first return
        starts = [j for j in range(len(where)) if (depth[j - 1] if j else 0) == 0]
        j = int(rng.choice(starts))
        close = j + int(np.flatnonzero(depth[j:] == 0)[0])
        s[where[j]], s[where[close]] = 2 * t + 1, 2 * t
        total = np.cumsum(np.where(s % 2 == 0, 1, -1))
        best = s
        if total.min() >= 0:
            break
    return best


def _random_expression(rng: np.random.Generator, m: CounterMachine, length: int) -> np.ndarray:
    """A random member of ``boolexp_n`` of ``length``: each symbol drawn among those that keep
    the expressions still needed between 1 and the symbols left (0 after the last)."""
    need, out = 1, []
    for left in range(length - 1, -1, -1):
        ok = [
            x
            for x in range(m.num_symbols)
            if (1 <= need + m.updates[x][0] <= left) or (left == 0 and need + m.updates[x][0] == 0)
        ]
        x = int(rng.choice(ok))
        need += m.updates[x][0]
        out.append(x)
    return np.array(out, np.int64)


def sample(
    language: str, length: int, count: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``count`` strings of ``length``: members and hard non-members, with their kind.

    SHUFFLE-DYCK-k (even ``length`` >= 2): a third members (``"member"``), a third ``"dip"`` (a
    type below 0 in a prefix, every final count 0, the total depth kept >= 0 where the draw
    allows), a third ``"final"`` (a member whose last symbol is replaced: a close of another
    type, or for k = 1 an open, so only the end is wrong). ``anbn``/``anbncn`` (``length`` a
    multiple of the symbol count): the one member first, then ``"near"`` misses (two adjacent
    symbols swapped, or one changed, redrawn until outside the language); ``boolexp_n``: random
    expressions (each symbol drawn among those that can still complete one) and near misses of
    them, alternately. Labels come from :func:`is_member`, never from the generator.

    Returns:
      ``(strings_BxN, labels_B, kinds)``.
    """
    m = machine(language)
    length = _validate.check_int_arg("length", length, 1)
    count = _validate.check_int_arg("count", count, 1)
    seed = _validate.check_int_arg("seed", seed, 0)
    rng = np.random.default_rng(seed)
    strings, kinds = [], []
    if language.startswith("shuffle_dyck"):
        if length % 2:
            raise ValueError(f"length: SHUFFLE-DYCK needs an even length, got {length}")
        k = m.num_symbols // 2
        for i in range(count):
            kind = ("member", "dip", "final")[i % 3]
            if kind == "dip":
                s = _dip(rng, k, length)
            else:
                s = _random_shuffle_member(rng, k, length)
            if kind == "final":
                t = s[-1] // 2
                s[-1] = 2 * ((t + 1) % k) + 1 if k > 1 else 0
            strings.append(s)
            kinds.append(kind)
    else:
        blocks = m.num_symbols
        if language.startswith("boolexp"):
            member = None
        elif length % blocks:
            raise ValueError(f"length: {language} needs a multiple of {blocks}, got {length}")
        else:
            member = np.repeat(np.arange(blocks), length // blocks)
        for i in range(count):
            base = member if member is not None else _random_expression(rng, m, length)
            near = i > 0 if member is not None else i % 2 == 1
            s = base.copy()
            for _ in range(32 if near else 0):  # a perturbation that leaves the language
                s = base.copy()
                if rng.random() < 0.5:
                    j = int(rng.integers(length - 1))
                    s[j], s[j + 1] = s[j + 1], s[j]
                if (s == base).all() or rng.random() < 0.5:
                    j = int(rng.integers(length))
                    s[j] = (s[j] + 1 + int(rng.integers(blocks - 1))) % blocks
                if not is_member(language, s):
                    break
            strings.append(s)
            kinds.append("near" if near else "member")
    out = np.stack(strings).astype(np.int32)
    labels = np.array([is_member(language, s) for s in out], bool)
    return out, labels, kinds
