"""Copying and counting: the tasks that show representational collapse (Barbero et al. 2024, §4).

Token ids: ``0`` and ``1`` (the bits), ``2`` the separator (``,``), ``3`` the query (``?``, read
out at the last position), ``4`` padding (left padding, always masked). Every sequence ends with
the query, so the answer has to travel from the content to the last position through attention:

- ``copy_first``: ``(b, 1, ..., 1, ?)`` -> ``b`` -- a sequence of ones whose FIRST token is marked;
- ``copy_last``: ``(1, ..., 1, b, ?)`` -> ``b`` -- the same with the LAST token marked;
- ``count_ones``: ``(1, ..., 1, ?)`` with ``n`` ones -> ``n`` (classes ``0 .. max_len``).

``n`` is the content length (the ones and the marked token). ``separator_every = k`` interleaves
the separator after every ``k`` content tokens (Barbero et al. 2024's remedy): ``1 1 1 , 1 1 1 ,
1 ?``. A task's "confusable pair" at length ``n`` (:meth:`CopyingTask.pair`) is the two inputs
whose answers differ and whose representations collapse: for copying the two values of the
marked bit, for counting ``n`` and ``n + 1`` ones.

Variable lengths train in one compiled step: a batch is left-padded to :attr:`max_tokens` and
padding is masked out of attention (:func:`attention_mask`). For positional codes that only enter
through relative positions (none, RoPE, ALiBi) this is exactly the unpadded model; for absolute
codes :func:`transformer_theory.core.positional.embed_long` starts the code at the first real
token.

The collapse measurements read untrained sequences instead: :func:`pattern_tokens` (``v``, e.g.
``1 ... 1 0``, with separators interleaved if asked) and :func:`repeat_last` (``v'``, its last
token repeated).

Shape letters: :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.core import masks

__all__ = [
    "ONE",
    "PAD",
    "QUERY",
    "SEPARATOR",
    "TASKS",
    "VOCAB_SIZE",
    "ZERO",
    "ConfusablePair",
    "CopyingTask",
    "PATTERNS",
    "attention_mask",
    "interleave",
    "length_grid",
    "pattern_tokens",
    "repeat_last",
    "separated_length",
]

ZERO, ONE, SEPARATOR, QUERY, PAD = 0, 1, 2, 3, 4
VOCAB_SIZE = 5
TASKS = ("copy_first", "copy_last", "count_ones")
#: The sequences ``v`` of the collapse measurements (:func:`pattern_tokens`).
PATTERNS = ("ones_zero", "zeros_one", "alternating", "random")


def interleave(tokens_N: ArrayLike, separator: int, every: int) -> np.ndarray:
    """Insert ``separator`` after every ``every`` tokens, never after the last one.

    ``interleave([1, 1, 1, 1, 0], 2, 2)`` is ``[1, 1, 2, 1, 1, 2, 0]``: the last token stays last.
    """
    tokens_N = np.asarray(tokens_N)
    _validate.check_ndim("tokens_N", tokens_N, 1)
    _validate.check_positive("every", every)
    out = []
    for i, t in enumerate(tokens_N.tolist()):
        if i and i % every == 0:
            out.append(separator)
        out.append(t)
    return np.asarray(out, np.int32)


def separated_length(n: int, every: int | None) -> int:
    """Length of ``n`` tokens after :func:`interleave` (``n`` when ``every`` is None)."""
    return n if every is None else n + (n - 1) // every


def length_grid(max_len: int, points: int = 24, min_len: int = 2) -> list[int]:
    """About ``points`` lengths from ``min_len`` to ``max_len``, geometrically spaced, distinct;
    always ending at ``max_len`` (one point is ``[max_len]``: the length a run asked for, not
    ``min_len``)."""
    _validate.check_positive("max_len", max_len)
    _validate.check_positive("points", points)
    if not 1 <= min_len <= max_len:
        raise ValueError(f"min_len: expected 1 <= min_len <= max_len = {max_len}, got {min_len}")
    if points == 1:
        return [int(max_len)]
    if min_len == max_len:
        return [int(max_len)]
    # Past this many points every gap of the geometric grid is below 1 (the widest is the last,
    # max_len (1 - r^-1), r the ratio), so the rounded grid holds every integer length: return them
    # without building an array of `points` floats (10^12 of them would not fit in memory). The
    # factor 2 keeps the test clear of rounding; below it the grid is computed as before.
    every = 2 * math.log(max_len / min_len) / math.log(max_len / (max_len - 1))
    if points - 1 > every:
        return list(range(int(min_len), int(max_len) + 1))
    grid = np.unique(np.round(np.geomspace(min_len, max_len, points)).astype(int))
    return [int(x) for x in grid]


@dataclasses.dataclass(frozen=True)
class ConfusablePair:
    """A task's confusable pair at content length ``n`` (:meth:`CopyingTask.confusable_pairs`):
    the inputs ``a`` and ``b`` and the ``answers`` an evaluation scores, in order (both marked
    bits for copying; for counting ``a``'s count only, ``b``'s ``n + 1`` may have no class)."""

    n: int
    a: np.ndarray
    b: np.ndarray
    answers: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class CopyingTask:
    """One of :data:`TASKS` over content lengths ``min_len .. max_len``.

    Attributes:
      name: ``"copy_first"``, ``"copy_last"`` or ``"count_ones"``.
      min_len, max_len: the content lengths ``n`` drawn for training (uniformly).
      separator_every: interleave a separator after every this many content tokens (None: none).
      count_classes: classes of ``count_ones`` (answers ``0 .. count_classes - 1``; default
        ``max_len + 1``); evaluating counts beyond the training lengths needs it larger.
    """

    name: str
    min_len: int = 2
    max_len: int = 16
    separator_every: int | None = None
    count_classes: int | None = None

    def __post_init__(self):
        _validate.check_choice("name", self.name, TASKS)
        _validate.check_positive("min_len", self.min_len)
        if self.max_len < self.min_len:
            raise ValueError(
                f"max_len: expected at least min_len = {self.min_len}, got {self.max_len}"
            )
        if self.name != "count_ones" and self.min_len < 2:
            raise ValueError(f"min_len: {self.name} needs the marked token and a one, got 1")
        if self.separator_every is not None:
            _validate.check_positive("separator_every", self.separator_every)
        if self.count_classes is not None and self.count_classes < self.max_len + 1:
            raise ValueError(
                f"count_classes: must hold every training count 0..{self.max_len}, got "
                f"{self.count_classes}"
            )

    @property
    def vocab_size(self) -> int:
        return VOCAB_SIZE

    @property
    def num_classes(self) -> int:
        if self.name == "count_ones":
            return self.count_classes or self.max_len + 1
        return 2

    def tokens_for(self, n: int) -> int:
        """Sequence length (separators and the query included) of content length ``n``."""
        return separated_length(n, self.separator_every) + 1

    @property
    def max_tokens(self) -> int:
        """The padded training length: :meth:`tokens_for` of ``max_len``."""
        return self.tokens_for(self.max_len)

    def example(self, n: int, answer: int) -> np.ndarray:
        """The input of content length ``n`` whose answer is ``answer`` (the bit, or the count
        ``n`` for ``count_ones``)."""
        _validate.check_positive("n", n)
        if self.name == "count_ones":
            if answer != n:
                raise ValueError(f"answer: the count of {n} ones is {n}, got {answer}")
            content = np.full(n, ONE)
        else:
            if answer not in (0, 1):
                raise ValueError(f"answer: expected a bit 0 or 1, got {answer}")
            if n < 2:
                raise ValueError(f"n: {self.name} needs n >= 2, got {n}")
            content = np.full(n, ONE)
            content[0 if self.name == "copy_first" else -1] = answer
        if self.separator_every is not None:
            content = interleave(content, SEPARATOR, self.separator_every)
        return np.concatenate([content, [QUERY]]).astype(np.int32)

    def examples(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Every input of content length ``n``: ``(tokens_BxN, labels_B)`` (2 for copying, 1 for
        counting)."""
        answers = [n] if self.name == "count_ones" else [0, 1]
        return np.stack([self.example(n, a) for a in answers]), np.asarray(answers, np.int32)

    def pair(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The confusable pair at length ``n``: the two marked bits (copying), or ``n`` and
        ``n + 1`` ones (counting)."""
        if self.name == "count_ones":
            return self.example(n, n), self.example(n + 1, n + 1)
        return self.example(n, 0), self.example(n, 1)

    def confusable_pairs(self, lengths: Iterable[int]) -> list[ConfusablePair]:
        """The confusable pair (:meth:`pair`) at each of ``lengths``, with the answers scored."""
        out = []
        for n in lengths:
            a, b = self.pair(int(n))
            answers = (int(n),) if self.name == "count_ones" else (0, 1)
            out.append(ConfusablePair(int(n), a, b, answers))
        return out

    def padded(self, lengths: Iterable[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every example of every length in ``lengths``, left-padded to the longest:
        ``(tokens_BxN, valid_BxN, labels_B)``."""
        rows, labels = [], []
        for n in lengths:
            t, y = self.examples(int(n))
            rows.extend(t)
            labels.extend(y.tolist())
        width = max(len(r) for r in rows)
        tokens = np.full((len(rows), width), PAD, np.int32)
        for i, r in enumerate(rows):
            tokens[i, width - len(r) :] = r
        return tokens, tokens != PAD, np.asarray(labels, np.int32)

    def training_set(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All training examples (every length ``min_len .. max_len``), left-padded to
        :attr:`max_tokens`: ``(tokens_BxN, valid_BxN, labels_B)``."""
        return self.padded(range(self.min_len, self.max_len + 1))

    def sample(self, key: jax.Array, num: int) -> tuple[jax.Array, jax.Array, jax.Array]:
        """``num`` training examples drawn uniformly from :meth:`training_set` (lengths uniform,
        then the answer), reproducible by ``key``."""
        _validate.check_positive("num", num)
        tokens, valid, labels = self.training_set()
        per_length = 1 if self.name == "count_ones" else 2
        lengths = jax.random.randint(key, (num,), 0, self.max_len - self.min_len + 1)
        which = jax.random.randint(jax.random.fold_in(key, 1), (num,), 0, per_length)
        idx = lengths * per_length + which
        return jnp.asarray(tokens)[idx], jnp.asarray(valid)[idx], jnp.asarray(labels)[idx]


def attention_mask(valid_N: jax.Array) -> jax.Array:
    """``mask_NxN[i, j] = valid_N[j]``: no query attends to padding (causality is the model's).

    The same as :func:`transformer_theory.core.masks.padding_mask` (kept as the task's name for it).
    """
    return masks.padding_mask(valid_N)


def pattern_tokens(pattern: str, n: int, *, separator_every: int | None = None) -> np.ndarray:
    """The sequence ``v`` of length ``n`` of a collapse pattern (token ids :data:`ZERO`,
    :data:`ONE`, :data:`SEPARATOR`).

    ``"ones_zero"``: ``(1, ..., 1, 0)`` (Barbero et al. 2024's example); ``"zeros_one"``:
    ``(0, ..., 0, 1)``; ``"alternating"``: ``(0, 1, 0, 1, ...)``; ``"random"``: the first ``n``
    bits of a fixed random stream (seed 0), so every length extends the previous one.
    ``separator_every = k`` interleaves the separator after every ``k`` tokens of the pattern
    (Barbero et al. 2024's remedy), keeping the last token last; the result is longer than ``n``.
    """
    _validate.check_choice("pattern", pattern, PATTERNS)
    _validate.check_positive("n", n)
    if pattern == "ones_zero":
        v = np.full(n, ONE)
        v[-1] = ZERO
    elif pattern == "zeros_one":
        v = np.full(n, ZERO)
        v[-1] = ONE
    elif pattern == "alternating":
        v = np.arange(n) % 2
    else:
        v = np.random.default_rng(0).integers(0, 2, size=max(n, 1 << 16))[:n]
    if separator_every is not None:
        v = interleave(v, SEPARATOR, separator_every)
    return v.astype(np.int32)


def repeat_last(tokens_N: ArrayLike) -> np.ndarray:
    """``v' = (v_1, ..., v_n, v_n)``: the sequence with its last token repeated."""
    tokens_N = np.asarray(tokens_N)
    _validate.check_ndim("tokens_N", tokens_N, 1)
    if tokens_N.shape[0] == 0:
        raise ValueError("tokens_N: expected at least one token")
    return np.concatenate([tokens_N, tokens_N[-1:]]).astype(np.int32)
