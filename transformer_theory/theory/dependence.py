"""Dependent sequences (Chen & Zou 2024, §11, Definitions 2-3), found and checked exactly.

Definition 3: sequences ``X^(0..B-1)`` of length ``n`` sharing their last token are *dependent*
when integer coefficients ``lambda`` (not all zero) make the per-position token multisets of the
positive side ``sum_{lambda_i > 0} lambda_i X^(i)`` and the negative side
``sum_{lambda_i < 0} -lambda_i X^(i)`` equal (Definition 2's combination ``(+)``).

With ``C`` the ``B x (n*V)`` matrix of flattened per-position one-hot rows
(:func:`position_counts`),
the multiset condition is exactly ``C^T lambda = 0``; the last position then forces
``sum_i lambda_i = 0`` (the paper's remark after Definition 3). So the set of all valid
``lambda`` is the integer left kernel of ``C``, a lattice. :func:`dependence_basis` returns a
basis of that lattice (every integer ``lambda`` with ``C^T lambda = 0`` is an integer combination
of its rows), computed in exact integer arithmetic with python-flint: the Hermite normal form of
``[C | I_B]`` puts the kernel in the rows whose ``C`` part vanished; LLL then shortens them.
A float null space would only be a hint, never a proof.

Generators of dependent families (each returns :class:`DependentSet` objects whose ``lam`` is
certified by :func:`is_dependence`):

- :func:`paper_example`: ``(a,b,r), (b,a,r), (a,a,r), (b,b,r)`` with ``lambda = (1, 1, -1, -1)``
  (§11).
- :func:`icqa_example_sets`: the four in-context QA sequences of §13.1 (Theorem 2's toy set) and
  their analogues inside ``InContextQA(n_q, n_a, k)``.
- :func:`template_pair_sets`: all substitutions of two templates with Lemma 6's coefficients
  ``lambda = n^(t')`` on template ``t`` and ``-n^(t)`` on ``t'`` (§14.1).
- :func:`random_dependent_sets`: random sets ``X^(0..m-1)`` and a column-wise shuffle ``Y`` of them,
  ``lambda = (1,...,1, -1,...,-1)``.

Token layout follows ``tasks``: the response sign / CLS is the last id ``V - 1``.
Shape letters as in :mod:`transformer_theory.glossary`: ``B`` sequences, ``N`` sequence length
``n``, ``V`` vocabulary size ``d``, ``S`` sets, ``R`` basis vectors.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence

import jax
import numpy as np
from numpy.typing import ArrayLike

from transformer_theory import _validate


@dataclasses.dataclass(frozen=True)
class DependentSet:
    """A set of sequences with a certified dependence.

    Attributes:
      tokens_BxN: int32 token ids, all rows sharing the last token.
      lam_B: the integer coefficients ``lambda`` (object array of Python ints).
      vocab_size: ``V``.
      name: where the set comes from (e.g. ``"paper_example"``).
      labels_B: optional class labels (in-context QA answer index, template index), else ``None``.
    """

    tokens_BxN: np.ndarray
    lam_B: np.ndarray
    vocab_size: int
    name: str = ""
    labels_B: np.ndarray | None = None


def _as_tokens(name: str, tokens, vocab_size: int | None = None) -> np.ndarray:
    arr = np.asarray(tokens)
    _validate.check_ndim(name, arr, 2)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.int64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name}: expected integer token ids, got object entries that are not ints"
            ) from None
    _validate.check_int(name, arr)
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(
            f"{name}: expected at least one sequence of length >= 1, got shape {arr.shape}"
        )
    if vocab_size is not None:
        _validate.check_positive("vocab_size", vocab_size)
        _validate.check_token_ids(name, arr, vocab_size)
    return arr.astype(np.int64)


def _check_shared_last(name: str, tokens_BxN: np.ndarray) -> None:
    last = tokens_BxN[:, -1]
    if np.any(last != last[0]):
        raise ValueError(
            f"{name}: Definition 3 needs all sequences to end with the same token, got last tokens "
            f"{sorted(set(last.tolist()))}; split them with group_by_last_token first"
        )


def position_counts(tokens_BxN: ArrayLike, vocab_size: int) -> np.ndarray:
    """The matrix ``C``: row ``i`` is the flattened one-hot of sequence ``i``.

    ``C[i, j * V + v] = 1`` iff ``X^(i)_j = v`` (Definition 2's per-position multiset of one
    sequence). A coefficient vector ``lambda`` is a dependence (Definition 3) iff ``C^T lambda =
    0``.

    Args:
      tokens_BxN: integer token ids in ``[0, vocab_size)``.
      vocab_size: ``V``.
    Returns:
      int64 array ``(B, N * V)``.
    """
    tok = _as_tokens("tokens_BxN", tokens_BxN, vocab_size)
    B, N = tok.shape
    C = np.zeros((B, N * vocab_size), np.int64)
    cols = np.arange(N)[None, :] * vocab_size + tok
    C[np.arange(B)[:, None], cols] = 1
    return C


def group_by_last_token(tokens_BxN: ArrayLike) -> dict[int, np.ndarray]:
    """Row indices grouped by the last token (Definition 3 only relates sequences sharing it).

    Returns:
      ``{last_token: int64 array of row indices}``, keys in increasing order.
    """
    tok = _as_tokens("tokens_BxN", tokens_BxN)
    last = tok[:, -1]
    return {int(t): np.flatnonzero(last == t) for t in np.unique(last)}


def _primitive(row: Sequence[int]) -> list[int]:
    g = 0
    for x in row:
        g = math.gcd(g, int(x))
    out = [int(x) // g for x in row] if g > 1 else [int(x) for x in row]
    first = next((x for x in out if x != 0), 0)
    return [-x for x in out] if first < 0 else out


def dependence_basis(tokens_BxN: ArrayLike, vocab_size: int) -> np.ndarray:
    """A lattice basis of ALL integer ``lambda`` with ``C^T lambda = 0`` (Definition 3), exactly.

    Every dependence of the set is an integer combination of the returned rows, and every row is a
    primitive dependence (gcd 1, first nonzero entry positive). ``R = B - rank(C)``.

    Method (exact, python-flint): the Hermite normal form of ``[C | I_B]`` is row-equivalent to it
    by a unimodular transform, so the lattice its rows span is unchanged; its rows whose ``C``-part
    is zero are exactly a basis of ``{[0 | lambda] : C^T lambda = 0}``. LLL then shortens them.

    Args:
      tokens_BxN: token ids, all rows sharing the last token.
      vocab_size: ``V``.
    Returns:
      object array ``(R, B)`` of Python ints (``R`` may be 0: then the set is not dependent).
    """
    import flint

    tok = _as_tokens("tokens_BxN", tokens_BxN, vocab_size)
    _check_shared_last("tokens_BxN", tok)
    C = position_counts(tok, vocab_size)
    # Columns that are zero in every row carry no constraint; dropping them keeps flint fast.
    C = C[:, np.any(C != 0, axis=0)]
    B, P = C.shape
    aug = np.concatenate([C, np.eye(B, dtype=np.int64)], axis=1)
    H = flint.fmpz_mat(aug.tolist()).hnf()
    rows = []
    for i in range(B):
        left = [int(H[i, j]) for j in range(P)]
        if not any(left):
            rows.append([int(H[i, P + j]) for j in range(B)])
    if not rows:
        return np.empty((0, B), dtype=object)
    K = flint.fmpz_mat(rows).lll()
    basis = [_primitive([int(K[r, c]) for c in range(B)]) for r in range(K.nrows())]
    out = np.empty((len(basis), B), dtype=object)
    for r, row in enumerate(basis):
        out[r, :] = row
    return out


def is_dependence(tokens_BxN: ArrayLike, lam_B: ArrayLike, vocab_size: int) -> bool:
    """Exact check of Definition 3 for the given coefficients.

    True iff all sequences share the last token, ``lambda`` is not all zero, and for every position
    ``j`` and token ``v`` the positive side holds as many copies of ``v`` at ``j`` as the negative
    side (Definition 2's multisets), i.e. ``C^T lambda = 0`` in exact integers.

    Args:
      tokens_BxN: token ids.
      lam_B: integer coefficients (ints, integer array, or floats that are exact integers).
      vocab_size: ``V``.
    Raises:
      ValueError: wrong shapes, token ids out of range, or non-integer coefficients.
    """
    tok = _as_tokens("tokens_BxN", tokens_BxN, vocab_size)
    lam = np.asarray(lam_B, dtype=object).reshape(-1)
    if np.ndim(lam_B) != 1 or lam.shape[0] != tok.shape[0]:
        raise ValueError(
            f"lam_B: expected shape ({tok.shape[0]},) matching tokens_BxN, got {np.shape(lam_B)}"
        )
    ints = []
    for x in lam:
        xi = int(x)
        if xi != x:
            raise ValueError(f"lam_B: Definition 3's coefficients are integers, got {x!r}")
        ints.append(xi)
    if not any(ints):
        return False
    if np.any(tok[:, -1] != tok[0, -1]):
        return False
    # Per position j and token v: sum of positive weights == sum of negative weights (eq. 5).
    B, N = tok.shape
    for j in range(N):
        balance: dict[int, int] = {}
        for i in range(B):
            if ints[i]:
                v = int(tok[i, j])
                balance[v] = balance.get(v, 0) + ints[i]
        if any(balance.values()):
            return False
    return True


def _certified(tokens, lam, vocab_size, name, labels=None) -> DependentSet:
    tok = np.asarray(tokens, np.int32)
    lam_o = np.array([int(x) for x in lam], dtype=object)
    if not is_dependence(tok, lam_o, vocab_size):  # generators must never emit an uncertified set
        raise AssertionError(f"internal error: generated set {name!r} is not dependent")
    return DependentSet(
        tok, lam_o, vocab_size, name, None if labels is None else np.asarray(labels, np.int32)
    )


def paper_example() -> DependentSet:
    """Chen & Zou 2024, §11's example: ``(a,b,r), (b,a,r), (a,a,r), (b,b,r)`` with ``lambda =
    (1,1,-1,-1)``.

    Token ids ``a = 0, b = 1, r = 2`` (V = 3). Prop. 8 then gives ``o0 + o1 = o2 + o3``.
    """
    a, b, r = 0, 1, 2
    tokens = [[a, b, r], [b, a, r], [a, a, r], [b, b, r]]
    return _certified(tokens, [1, 1, -1, -1], 3, "paper_example")


def _icqa_tokens(qs, ans, query, r):
    seq = []
    for q, a in zip(qs, ans):
        seq += [q, r, a]
    return seq + [query, r]


def icqa_example_sets(
    n_q: int = 2, n_a: int = 2, k: int = 2, num_sets: int | None = 1, seed: int = 0
) -> list[DependentSet]:
    """Theorem 2's toy sets (§13.1) inside ``InContextQA(n_q, n_a, k)``.

    Layout as in ``tasks.InContextQA``: questions ``[0, n_q)``, answers ``[n_q, n_q + n_a)``,
    ``r = n_q + n_a``; a sequence is ``q_0 r a_0 ... q_{k-1} r a_{k-1} q r`` of length ``3k + 2``,
    labelled with the answer index (``token - n_q``) given to the queried question.
    For distinct questions ``q_0..q_{k-1}`` and distinct answers ``a_0..a_{k-1}``, let ``E`` be the
    context ``(q_0->a_0, q_1->a_1, ...)`` and ``E'`` the one with the answers of slots 0 and 1
    swapped. The four sequences ``(E, ask q_0)``, ``(E', ask q_1)``, ``(E', ask q_0)``,
    ``(E, ask q_1)`` have labels ``a_0, a_0, a_1, a_1`` and ``lambda = (1, 1, -1, -1)``: exactly
    the paper's ``E^(0..3)`` for ``n_q = n_a = k = 2``.

    Args:
      n_q, n_a, k: the task's sizes (``k >= 2``, ``k <= n_q``, ``k <= n_a``).
      num_sets: how many sets (the first is always the paper's choice ``q = (0, 1, ...)``,
        ``a = (n_q, n_q + 1, ...)``; the rest are drawn with ``seed``); ``None`` = every choice.
      seed: NumPy seed for the draws.
    """
    for nm, v in (("n_q", n_q), ("n_a", n_a), ("k", k)):
        _validate.check_positive(nm, v)
    if k < 2 or k > n_q or k > n_a:
        raise ValueError(
            "k: the toy set swaps two answers and needs 2 <= k <= min(n_q, n_a), got "
            f"k={k}, n_q={n_q}, n_a={n_a}"
        )
    r = n_q + n_a
    vocab = r + 1
    if num_sets is None:
        choices = [
            (qs, ans)
            for qs in itertools.permutations(range(n_q), k)
            for ans in itertools.permutations(range(n_q, r), k)
        ]
    else:
        _validate.check_positive("num_sets", num_sets)
        rng = np.random.default_rng(seed)
        choices = [(tuple(range(k)), tuple(range(n_q, n_q + k)))]
        while len(choices) < num_sets:
            choices.append(
                (
                    tuple(rng.permutation(n_q)[:k].tolist()),
                    tuple((n_q + rng.permutation(n_a)[:k]).tolist()),
                )
            )
    out = []
    for qs, ans in choices:
        swapped = (ans[1], ans[0]) + tuple(ans[2:])
        toks = [
            _icqa_tokens(qs, ans, qs[0], r),
            _icqa_tokens(qs, swapped, qs[1], r),
            _icqa_tokens(qs, swapped, qs[0], r),
            _icqa_tokens(qs, ans, qs[1], r),
        ]
        labels = [ans[0] - n_q, ans[0] - n_q, ans[1] - n_q, ans[1] - n_q]
        out.append(
            _certified(
                toks, [1, 1, -1, -1], vocab, f"icqa_example(n_q={n_q},n_a={n_a},k={k})", labels
            )
        )
    return out


def template_sequences(alphabet_size: int, template: Sequence[int]) -> np.ndarray:
    """All ``sub(t, s)`` for injective ``s`` (Definition 1), CLS ``= alphabet_size`` appended.

    Returns:
      int32 ``(n^(t), l + 1)`` in lexicographic order of ``s``; ``n^(t) = A(alphabet_size,
      #wildcards)``.
    """
    _validate.check_positive("alphabet_size", alphabet_size)
    t = [int(x) for x in template]
    if not t:
        raise ValueError("template: expected a non-empty tuple of wildcard ids")
    wild = sorted(set(t))
    if len(wild) > alphabet_size:
        raise ValueError(
            f"template: {len(wild)} wildcards need at least that many symbols, "
            f"alphabet_size={alphabet_size}"
        )
    rows = []
    for s in itertools.permutations(range(alphabet_size), len(wild)):
        m = dict(zip(wild, s))
        rows.append([m[w] for w in t] + [alphabet_size])
    return np.asarray(rows, np.int32)


def template_pair_sets(
    alphabet_size: int, templates: Sequence[Sequence[int]]
) -> list[DependentSet]:
    """Lemma 6 (§14.1): for every pair of templates, all their sequences are dependent.

    For templates ``t, t'`` with ``n^(t), n^(t')`` sequences, every token occurs ``n^(t)/|X|`` times
    at each position of ``D^(t)`` (Lemma 5), so ``lambda = n^(t')`` on each sequence of ``t`` and
    ``-n^(t)`` on each of ``t'`` balance every position (Lemma 6's coefficients, literally; the
    response sign appended at the end keeps the last token shared).

    Args:
      alphabet_size: ``|X|``; vocabulary ``V = alphabet_size + 1`` (CLS last).
      templates: two or more templates of one length ``l`` (tuples of wildcard ids).
    Returns:
      one :class:`DependentSet` per unordered pair ``(t, t')`` with labels ``0`` for ``t``, ``1``
      for ``t'``.
    """
    temps = [tuple(int(x) for x in t) for t in templates]
    if len(temps) < 2:
        raise ValueError(f"templates: Lemma 6 relates two templates, got {len(temps)}")
    if len({len(t) for t in temps}) != 1:
        raise ValueError(
            f"templates: all templates must have one length, got lengths {[len(t) for t in temps]}"
        )
    seqs = [template_sequences(alphabet_size, t) for t in temps]
    out = []
    for i, j in itertools.combinations(range(len(temps)), 2):
        ni, nj = len(seqs[i]), len(seqs[j])
        toks = np.concatenate([seqs[i], seqs[j]])
        lam = [nj] * ni + [-ni] * nj
        labels = [0] * ni + [1] * nj
        out.append(
            _certified(
                toks, lam, alphabet_size + 1, f"template_pair({temps[i]},{temps[j]})", labels
            )
        )
    return out


def numpy_rng(key: jax.Array | int | np.integer) -> np.random.Generator:
    """A NumPy generator seeded by an int or a JAX PRNG key (the key's bits, so one key gives one
    stream on every platform): the exact, host-side parts of the library draw from it."""
    if isinstance(key, (int, np.integer)):
        return np.random.default_rng(int(key))
    k = key
    if jax.dtypes.issubdtype(getattr(k, "dtype", None), jax.dtypes.prng_key):
        k = jax.random.key_data(k)
    return np.random.default_rng(np.asarray(k).astype(np.uint64).ravel().tolist())


def random_dependent_sets(
    key: jax.Array | int | np.integer,
    num_sets: int,
    num_seqs: int,
    seq_len: int,
    vocab_size: int,
    last_token: int | None = None,
) -> list[DependentSet]:
    """Random dependent sets of ``2 * num_seqs`` sequences each, ``lambda = (1,..,1, -1,..,-1)``.

    Draw ``X^(0..m-1)`` uniformly (last token fixed), then ``Y`` by shuffling every position's
    column of tokens independently: each position holds the same multiset on both sides
    (Definition 3). Draws where the shuffle only reorders whole rows (a trivial relation) are
    redrawn.

    Args:
      key: a JAX PRNG key or an int seed.
      num_sets: ``S``.
      num_seqs: ``m >= 2`` sequences per side.
      seq_len: ``N >= 3`` (two free positions are needed for a non-trivial shuffle).
      vocab_size: ``V >= 3``; free positions use ids ``[0, V - 1)``.
      last_token: shared last id (default ``V - 1``, the CLS / response sign).
    """
    _validate.check_positive("num_sets", num_sets)
    if num_seqs < 2:
        raise ValueError(f"num_seqs: need at least 2 sequences per side, got {num_seqs}")
    if seq_len < 3:
        raise ValueError(
            "seq_len: need at least 3 positions (two free ones) for a non-trivial "
            f"shuffle, got {seq_len}"
        )
    if vocab_size < 3:
        raise ValueError(
            f"vocab_size: need at least 2 free symbols plus the last token, got {vocab_size}"
        )
    last = vocab_size - 1 if last_token is None else int(last_token)
    if not 0 <= last < vocab_size:
        raise ValueError(f"last_token: expected an id in [0, {vocab_size}), got {last_token}")
    rng = numpy_rng(key)
    out: list[DependentSet] = []
    while len(out) < num_sets:
        X = rng.integers(0, vocab_size - 1, size=(num_seqs, seq_len - 1))
        Y = np.stack([rng.permutation(X[:, j]) for j in range(seq_len - 1)], axis=1)
        if sorted(map(tuple, X.tolist())) == sorted(map(tuple, Y.tolist())):
            continue
        toks = np.concatenate([X, Y])
        toks = np.concatenate([toks, np.full((2 * num_seqs, 1), last)], axis=1)
        out.append(_certified(toks, [1] * num_seqs + [-1] * num_seqs, vocab_size, "random"))
    return out


def stack_sets(
    sets: Sequence[DependentSet], num_seqs: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Stack sets of one ``(V, N)`` into batch arrays, padding with ``lambda = 0`` rows.

    A padded row repeats the set's first sequence with coefficient 0, so it changes neither
    ``sum_i lambda_i o_i`` nor ``sum_i |lambda_i| ||o_i||``.

    Returns:
      ``(tokens_SxBxN int32, lam_SxB float64)`` with ``B = num_seqs or max set size``.
    """
    if not sets:
        raise ValueError("sets: expected at least one DependentSet")
    shapes = {(s.vocab_size, s.tokens_BxN.shape[1]) for s in sets}
    if len(shapes) != 1:
        raise ValueError(f"sets: all sets must share (vocab_size, seq_len), got {sorted(shapes)}")
    B = max(len(s.tokens_BxN) for s in sets) if num_seqs is None else int(num_seqs)
    toks, lams = [], []
    for s in sets:
        b = len(s.tokens_BxN)
        if b > B:
            raise ValueError(f"num_seqs: a set has {b} sequences, more than num_seqs={B}")
        t = np.concatenate([s.tokens_BxN, np.repeat(s.tokens_BxN[:1], B - b, axis=0)])
        lam = np.concatenate([np.asarray([float(x) for x in s.lam_B]), np.zeros(B - b)])
        toks.append(t)
        lams.append(lam)
    return np.stack(toks).astype(np.int32), np.stack(lams)


def basis_sets(
    tokens_BxN: ArrayLike, vocab_size: int, name: str = "basis", labels_B: ArrayLike | None = None
) -> list[DependentSet]:
    """One :class:`DependentSet` per basis vector of :func:`dependence_basis` (zero rows dropped).

    Useful to check the propositions on every independent relation of a whole (small) dataset.
    """
    tok = _as_tokens("tokens_BxN", tokens_BxN, vocab_size)
    basis = dependence_basis(tok, vocab_size)
    out = []
    for row in basis:
        keep = np.asarray([x != 0 for x in row])
        lab = None if labels_B is None else np.asarray(labels_B)[keep]
        out.append(_certified(tok[keep], row[keep], vocab_size, name, lab))
    return out
