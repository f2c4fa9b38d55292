"""n-gram language models (Svete & Cotterell 2024, §2): exact probabilities, sampling, enumeration.

An n-gram LM over the alphabet ``Sigma = {0, .., |Sigma|-1}`` conditions each symbol on the
``n - 1`` symbols before it, ``p(y_t | y_<t) = p(y_t | y_{t-n+1} .. y_{t-1})``, and ends a string
with EOS: ``p(y) = p(EOS | y) prod_t p(y_t | y_<t)`` (the slides' general decomposition). Histories
are BOS-padded: the first symbol sees ``BOS^{n-1}``. :class:`NGramLM` holds one conditional row
over ``Sigma + EOS`` for every history that can occur (BOS only as a prefix), so the table is
``log_probs_AxC`` with ``A = sum_{k < n} |Sigma|^k`` histories and ``C = |Sigma| + 1`` columns.

Id conventions shared with the transformer LMs (``ModelConfig.causal_lm``): symbols are
``0..|Sigma|-1``; BOS is the input id ``|Sigma|``; EOS is the output column ``|Sigma|``.

The LM lives with the tasks (not in a package of its own) because it is a data source: the exact
reference every construction is compared with, and the generator of the samples the learnability
experiment trains on (:func:`lm_batch`). Shapes use the letters of
:mod:`transformer_theory.glossary` (``A`` histories, ``C`` outputs, ``B`` strings, ``N`` length).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable

import numpy as np

from transformer_theory import _validate, budget

__all__ = [
    "NGramLM",
    "Reference",
    "histories",
    "history_ids",
    "lm_batch",
    "lm_batches",
    "num_histories",
    "reference",
    "sampled_strings",
    "string_history_ids",
]


def num_histories(alphabet_size: int, order: int) -> int:
    """``sum_{k=0}^{n-1} |Sigma|^k``: the BOS-padded histories of an ``order``-gram LM."""
    return sum(alphabet_size**k for k in range(order))


@functools.lru_cache(maxsize=64)
def histories(alphabet_size: int, order: int) -> np.ndarray:
    """Every history, ``histories_AxN`` with ``N = order - 1`` entries, oldest symbol first.

    Order: all-BOS first, then ``BOS^{n-2} a`` for ``a`` in Sigma, ..., then ``Sigma^{n-1}`` in
    lexicographic order. BOS is ``alphabet_size``. Read-only (cached).
    """
    _validate.check_positive("alphabet_size", alphabet_size)
    _validate.check_positive("order", order)
    m = order - 1
    rows = []
    for real in range(m + 1):
        for tail in itertools.product(range(alphabet_size), repeat=real):
            rows.append((alphabet_size,) * (m - real) + tail)
    out = np.array(rows, dtype=np.int64).reshape(len(rows), m)
    out.setflags(write=False)
    return out


def history_ids(alphabet_size: int, order: int, windows_BxN: np.ndarray) -> np.ndarray:
    """Row index in :func:`histories` of each BOS-padded window (``order - 1`` ids, oldest first).

    Raises ``ValueError`` on a window that is not a history (BOS after a symbol, ids out of range).
    """
    windows = np.asarray(windows_BxN, np.int64)
    m = order - 1
    if windows.ndim != 2 or windows.shape[1] != m:
        raise ValueError(f"windows_BxN: expected shape (B, {m}), got {windows.shape}")
    if windows.size and (windows.min() < 0 or windows.max() > alphabet_size):
        raise ValueError(
            f"windows_BxN: ids must lie in [0, {alphabet_size}] (BOS = {alphabet_size})"
        )
    is_bos = windows == alphabet_size
    real = m - is_bos.sum(axis=1)
    if m and np.any(is_bos[:, 1:] & ~is_bos[:, :-1]):
        raise ValueError("windows_BxN: BOS may only pad the start of a history")
    offset = np.concatenate([[0], np.cumsum([alphabet_size**k for k in range(m + 1)])])[: m + 1]
    weights = alphabet_size ** np.arange(m - 1, -1, -1)
    value = np.where(is_bos, 0, windows) @ weights if m else np.zeros(len(windows), np.int64)
    return offset[real] + value


def string_history_ids(alphabet_size: int, order: int, strings_BxN: np.ndarray) -> np.ndarray:
    """``ids_BxN1``: the :func:`history_ids` row before every symbol of each string and before
    its EOS (``N + 1`` columns), the history BOS-padded at the start."""
    strings = np.asarray(strings_BxN, np.int64)
    B, L = strings.shape
    m = order - 1
    padded = np.concatenate([np.full((B, m), alphabet_size, np.int64), strings], axis=1)
    windows = np.stack([padded[:, t : t + m] for t in range(L + 1)], axis=1)
    return history_ids(alphabet_size, order, windows.reshape(B * (L + 1), m)).reshape(B, L + 1)


@dataclasses.dataclass(frozen=True, eq=False)
class NGramLM:
    """An n-gram LM: ``log_probs_AxC[a, c] = log p(c | history a)`` (``c = |Sigma|`` is EOS).

    Attributes:
      alphabet_size: ``|Sigma|``.
      order: ``n`` (``n = 1`` is a unigram LM: one history, the empty one).
      log_probs_AxC: float64 log-probabilities, rows indexed like :func:`histories`; ``-inf`` is
        an exact zero (an impossible continuation).
    """

    alphabet_size: int
    order: int
    log_probs_AxC: np.ndarray

    def __post_init__(self):
        _validate.check_positive("alphabet_size", self.alphabet_size)
        _validate.check_positive("order", self.order)
        table = np.asarray(self.log_probs_AxC, np.float64)
        shape = (num_histories(self.alphabet_size, self.order), self.alphabet_size + 1)
        if table.shape != shape:
            raise ValueError(f"log_probs_AxC: expected shape {shape}, got {table.shape}")
        if np.isnan(table).any() or np.isposinf(table).any() or (table > 1e-12).any():
            raise ValueError("log_probs_AxC: entries must be log-probabilities (<= 0 or -inf)")
        mass = np.exp(table).sum(axis=1)
        if not np.allclose(mass, 1.0, rtol=0, atol=1e-9):
            raise ValueError(
                "log_probs_AxC: every row must sum to 1 in probability, got "
                f"{mass.min()}..{mass.max()}"
            )
        if np.isneginf(table[:, -1]).any():
            raise ValueError("log_probs_AxC: every history needs p(EOS) > 0 (a tight LM)")
        table = table.copy()
        table.setflags(write=False)
        object.__setattr__(self, "log_probs_AxC", table)

    # ------------------------------------------------------------------ construction
    @classmethod
    def random(
        cls,
        seed: int,
        alphabet_size: int,
        order: int,
        *,
        concentration: float = 1.0,
        zero_fraction: float = 0.0,
        rank: int | None = None,
        scale: float = 2.0,
        limit: int | None = 10**7,
    ) -> NGramLM:
        """A random n-gram LM, reproducible from ``seed``.

        Args:
          seed: NumPy seed.
          alphabet_size: ``|Sigma|``.
          order: ``n``.
          concentration: Dirichlet parameter of every row (``rank=None``).
          zero_fraction: each symbol entry (never EOS) of a Dirichlet row is set to an exact zero
            with this probability before renormalizing, so impossible continuations exist.
          rank: instead of Dirichlet rows, logits ``U V`` with ``U: (A, rank)``, ``V: (rank, C)``
            Gaussian of standard deviation ``scale / sqrt(rank)``, then a softmax: the log-table
            has rank ``<= rank + 1`` (the softmax bottleneck of an output layer of that rank).
          scale: logit scale of the low-rank LMs.
          limit: the most table entries ``A (|Sigma| + 1)`` to build (``ValueError`` naming
            ``order`` beyond; the default, 10^7 entries, is 80 MB of float64); None for no limit.
        """
        _validate.check_positive("alphabet_size", alphabet_size)
        _validate.check_positive("order", order)
        budget.check_count(
            "order",
            num_histories(alphabet_size, order) * (alphabet_size + 1),
            limit,
            unit="table entries (A histories x (|Sigma| + 1))",
        )
        _validate.check_positive("concentration", concentration)
        if not 0.0 <= zero_fraction < 1.0:
            raise ValueError(f"zero_fraction: expected a fraction in [0, 1), got {zero_fraction}")
        rng = np.random.default_rng(seed)
        A, C = num_histories(alphabet_size, order), alphabet_size + 1
        if rank is not None:
            _validate.check_positive("rank", rank)
            std = scale / np.sqrt(rank)
            logits = rng.normal(0, std, (A, rank)) @ rng.normal(0, 1, (rank, C))
            logits -= logits.max(axis=1, keepdims=True)
            return cls(alphabet_size, order, logits - np.log(np.exp(logits).sum(1, keepdims=True)))
        probs = rng.dirichlet(np.full(C, concentration), size=A)
        if zero_fraction:
            zero = rng.random((A, C)) < zero_fraction
            zero[:, -1] = False
            probs = np.where(zero, 0.0, probs)
            probs /= probs.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore"):
            return cls(alphabet_size, order, np.log(probs))

    # ------------------------------------------------------------------ ids
    @property
    def bos(self) -> int:
        return self.alphabet_size

    @property
    def eos(self) -> int:
        return self.alphabet_size

    @property
    def histories_AxN(self) -> np.ndarray:
        return histories(self.alphabet_size, self.order)

    def string_history_ids(self, strings_BxN: np.ndarray) -> np.ndarray:
        """``ids_BxN1``: the history row before every symbol and before EOS (``N + 1`` columns,
        :func:`string_history_ids`)."""
        return string_history_ids(self.alphabet_size, self.order, self._check_strings(strings_BxN))

    def _check_strings(self, strings_BxN) -> np.ndarray:
        strings = np.asarray(strings_BxN)
        if strings.ndim != 2:
            raise ValueError(f"strings_BxN: expected 2 dimensions, got shape {strings.shape}")
        if not np.issubdtype(strings.dtype, np.integer) and strings.size:
            raise ValueError(f"strings_BxN: expected integer symbol ids, got {strings.dtype}")
        strings = strings.astype(np.int64)
        if strings.size and (strings.min() < 0 or strings.max() >= self.alphabet_size):
            raise ValueError(f"strings_BxN: symbol ids must lie in [0, {self.alphabet_size})")
        return strings

    # ------------------------------------------------------------------ probabilities
    def log_probs(self, strings_BxN: np.ndarray) -> np.ndarray:
        """``log p(y_t | y_<t)`` for every symbol and then ``log p(EOS | y)``: ``(B, N + 1)``."""
        strings = self._check_strings(strings_BxN)
        ids = self.string_history_ids(strings)
        targets = np.concatenate([strings, np.full((len(strings), 1), self.eos)], axis=1)
        return self.log_probs_AxC[ids, targets]

    def log_prob(self, strings_BxN: np.ndarray) -> np.ndarray:
        """``log p(y)`` of every string, EOS included (``-inf`` for an impossible string)."""
        return self.log_probs(strings_BxN).sum(axis=1)

    def mass_up_to(self, max_len: int) -> float:
        """``sum_{|y| <= max_len} p(y)`` by the forward recursion over histories (no enumeration).

        ``alpha_0`` puts mass 1 on the all-BOS history; one step moves ``alpha(a) p(s | a)`` to
        the history ``a`` shifted by ``s``; the strings of length ``l`` end with
        ``sum_a alpha_l(a) p(EOS | a)``.
        """
        _validate.check_positive("max_len", max_len, allow_zero=True)
        probs = np.exp(self.log_probs_AxC)
        hist = self.histories_AxN
        m = self.order - 1
        A = len(hist)
        nxt = np.zeros((A, self.alphabet_size), np.int64)
        for s in range(self.alphabet_size):
            shifted = np.concatenate([hist[:, 1:], np.full((A, 1), s)], axis=1)[:, :m]
            nxt[:, s] = history_ids(self.alphabet_size, self.order, shifted.reshape(A, m))
        alpha = np.zeros(A)
        alpha[0] = 1.0
        total = 0.0
        for _ in range(max_len + 1):
            total += float(alpha @ probs[:, -1])
            new = np.zeros(A)
            for s in range(self.alphabet_size):
                np.add.at(new, nxt[:, s], alpha * probs[:, s])
            alpha = new
        return total

    # ------------------------------------------------------------------ strings
    def strings_of_length(self, length: int, *, limit: int | None = 2**22) -> np.ndarray:
        """All ``|Sigma|^length`` strings of one length, ``(B, length)``, lexicographic.

        ``limit``: the most strings to enumerate (``ValueError`` naming ``length`` beyond; None for
        no limit)."""
        _validate.check_positive("length", length, allow_zero=True)
        B = budget.check_count("length", self.alphabet_size**length, limit, unit="strings")
        digits = np.arange(B)[:, None] // (self.alphabet_size ** np.arange(length - 1, -1, -1))
        return (digits % self.alphabet_size).astype(np.int64).reshape(B, length)

    def sample(self, seed: int, num: int, max_len: int) -> tuple[np.ndarray, np.ndarray]:
        """``num`` strings drawn from the LM, cut at ``max_len`` symbols.

        Returns ``(strings_BxN, lengths_B)``: symbols padded with 0 after each string's end;
        ``lengths_B[b] = max_len + 1`` marks a string that had not ended by ``max_len`` (its EOS
        was not drawn; the training loss then stops at ``max_len`` symbols).
        """
        _validate.check_positive("num", num)
        _validate.check_positive("max_len", max_len, allow_zero=True)
        rng = np.random.default_rng(seed)
        probs = np.exp(self.log_probs_AxC)
        cdf = np.cumsum(probs, axis=1)
        cdf[:, -1] = 1.0
        strings = np.zeros((num, max_len), np.int64)
        lengths = np.full(num, max_len + 1, np.int64)
        window = np.full((num, self.order - 1), self.bos, np.int64)
        alive = np.ones(num, bool)
        for t in range(max_len + 1):
            ids = history_ids(self.alphabet_size, self.order, window)
            u = rng.random(num)
            draw = (u[:, None] >= cdf[ids]).sum(axis=1)
            ended = alive & (draw == self.eos)
            lengths[ended] = t
            alive &= ~ended
            if t == max_len:
                break
            strings[alive, t] = draw[alive]
            if self.order > 1:
                window = np.concatenate([window[:, 1:], np.where(alive, draw, 0)[:, None]], 1)
        return strings, lengths


def lm_batch(
    strings_BxN: np.ndarray, lengths_B: np.ndarray, bos_pad: int, bos: int, eos: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training arrays of a causal LM from sampled strings (:meth:`NGramLM.sample`).

    Returns ``(inputs_BxN, targets_BxN, weights_BxN)`` of length ``bos_pad + max_len``: the input
    ``BOS^bos_pad y`` (ids after a string's end are 0; causal attention never lets them reach the
    positions that count); position ``bos_pad - 1 + t`` predicts ``y_{t+1}``, and EOS after the
    last symbol; weight 1 on the targets that exist (``length + 1`` of them; ``max_len`` for a
    string cut at ``max_len``, whose next symbol was not drawn), 0 elsewhere.
    """
    strings = np.asarray(strings_BxN, np.int64)
    lengths = np.asarray(lengths_B, np.int64)
    _validate.check_positive("bos_pad", bos_pad)
    B, L = strings.shape
    inputs = np.concatenate([np.full((B, bos_pad), bos, np.int64), strings], axis=1)
    t = np.arange(L + bos_pad)[None, :] - (bos_pad - 1)  # the symbol index each position predicts
    symbol = np.take_along_axis(strings, np.clip(t, 0, max(L - 1, 0)), axis=1) if L else 0 * t
    targets = np.where(t == lengths[:, None], eos, symbol)
    weights = (t >= 0) & (t <= lengths[:, None]) & (t <= L) & ~((t == L) & (lengths[:, None] > L))
    targets = np.where(weights, targets, 0)
    return (
        inputs,
        targets.reshape(B, L + bos_pad),
        weights.astype(np.float32).reshape(B, L + bos_pad),
    )


@dataclasses.dataclass(frozen=True, eq=False)
class Reference:
    """The n-gram LM's answers on the strings a check runs, one entry per length ``0..max_len``
    (:func:`reference`): what a construction's ``log q`` is compared with.

    Attributes:
      strings: ``strings_BxL`` per length ``L``.
      enumerated: per length, whether ``strings`` are all ``|Sigma|^L`` strings (else sampled).
      log_probs: ``(B, L + 1)`` per length: :meth:`NGramLM.log_probs` of ``strings``.
      mass: ``sum_{|y| <= max_len} p(y)`` (:meth:`NGramLM.mass_up_to`).
    """

    strings: tuple[np.ndarray, ...]
    enumerated: tuple[bool, ...]
    log_probs: tuple[np.ndarray, ...]
    mass: float


def reference(
    lm: NGramLM,
    max_len: int,
    *,
    exhaustive_limit: int | None = 50_000,
    samples: int = 2_000,
    seed: int = 0,
) -> Reference:
    """The strings of every length ``0..max_len`` with the n-gram's log-probabilities: a length
    with at most ``exhaustive_limit`` strings (None: any number) is enumerated
    (:meth:`NGramLM.strings_of_length`), a longer one is ``samples`` uniformly random strings drawn
    from one ``seed``-ed generator in length order (so impossible strings are checked too)."""
    _validate.check_positive("max_len", max_len, allow_zero=True)
    rng = np.random.default_rng(seed)
    strings, enumerated = [], []
    for length in range(max_len + 1):
        if exhaustive_limit is None or lm.alphabet_size**length <= exhaustive_limit:
            strings.append(lm.strings_of_length(length))
            enumerated.append(True)
        else:
            strings.append(rng.integers(0, lm.alphabet_size, size=(samples, length)))
            enumerated.append(False)
    return Reference(
        strings=tuple(strings),
        enumerated=tuple(enumerated),
        log_probs=tuple(lm.log_probs(batch) for batch in strings),
        mass=lm.mass_up_to(max_len),
    )


def sampled_strings(
    alphabet_size: int, max_length: int, *, samples: int, seed: int = 0
) -> tuple[np.ndarray, ...]:
    """Per length ``0..max_length``: the all-0 string and ``samples`` uniformly random strings,
    ``(samples + 1, L)``, drawn from one ``seed``-ed generator in length order."""
    _validate.check_positive("max_length", max_length, allow_zero=True)
    _validate.check_positive("samples", samples)
    rng = np.random.default_rng(seed)
    return tuple(
        np.concatenate(
            [
                np.zeros((1, length), np.int64),
                rng.integers(0, alphabet_size, size=(samples, length)),
            ]
        )
        for length in range(max_length + 1)
    )


def lm_batches(
    lm: NGramLM, seed: int, batch: int, max_len: int
) -> Callable[[int], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The training data of a causal LM on ``lm``: ``batch_at(step)``, the :func:`lm_batch` arrays
    of ``batch`` fresh samples (:meth:`NGramLM.sample`, seed ``seed * 100003 + step``) cut at
    ``max_len`` symbols, read like the constructions (``BOS^{n-1} y``)."""

    def batch_at(step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        strings, lengths = lm.sample(seed * 100_003 + step, batch, max_len)
        return lm_batch(strings, lengths, lm.order - 1, lm.bos, lm.eos)

    return batch_at
