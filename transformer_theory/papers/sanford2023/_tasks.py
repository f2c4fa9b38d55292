"""The tasks of Sanford, Hsu & Telgarsky 2023 ("Representational strengths and limitations of
transformers"): q-sparse averaging (qSA), Match2, Match3 and the two tractable Match3 variants;
and the pairs ``(a, b)`` of set disjointness encoded as qSA instances, ``DISJ`` their exact target
(the reduction behind the qSA lower bound, :mod:`._theory_disjointness`).

Every function here is a specification: plain float64 / integer NumPy, one batch at a time, with
seeded generators (``numpy.random.default_rng(seed)``; no global state). Shape letters: see
:mod:`transformer_theory.glossary` (here ``Z`` is the width ``d'`` of the averaged vectors ``z``).

Whether ``j`` may equal ``i``: Sanford et al. 2023 write ``Match2(X)_i = 1{exists j in [N]: x_i +
x_j = 0 (mod M)}`` with no distinctness condition, and their Match2 construction attends from
``i`` to every key including ``i`` itself (the score of ``j = i`` is ``c cos(4 pi x_i / M)``,
maximal when ``2 x_i = 0 mod M``). So ``j = i`` is allowed: a lone ``x_i = 0`` (or ``M/2``) is
matched.
The same holds for ``j_1, j_2`` in Match3 (they may coincide with each other or with ``i``).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Iterator

import numpy as np

from transformer_theory import _validate, budget

__all__ = [
    "ALL_SUBSETS_LIMIT",
    "INPUTS_LIMIT",
    "MATCH_TASKS",
    "MatchTask",
    "ProtocolInstances",
    "TASKS",
    "all_inputs",
    "all_subsets",
    "disj",
    "encode",
    "match2",
    "match3",
    "match3_bigram",
    "match3_local",
    "match_labels",
    "match_sample",
    "match_training_data",
    "MatchTrainingData",
    "protocol_instances",
    "qsa_batch",
    "qsa_features",
    "match_inputs",
    "qsa_sample",
    "qsa_sample_chunks",
    "qsa_target",
    "query_position",
    "query_subset",
    "reduction_length",
]

TASKS = ("qsa", "match2", "match3", "match3bigram", "match3local")


def _check_sizes(num: int, seq_len: int, modulus: int | None = None) -> None:
    if int(num) < 1:
        raise ValueError(f"num: expected a positive number of examples, got {num}")
    if int(seq_len) < 1:
        raise ValueError(f"seq_len: expected N >= 1, got {seq_len}")
    if modulus is not None:
        _check_modulus(modulus)


def _check_modulus(modulus) -> int:
    """``M`` must be an integer >= 2 (``x mod 0`` is undefined: NumPy would return garbage
    labels with only a warning, and ``M = 1`` makes every position a match)."""
    if isinstance(modulus, bool) or not isinstance(modulus, (int, np.integer)) or modulus < 2:
        raise ValueError(f"modulus: expected an integer M >= 2, got {modulus!r}")
    return int(modulus)


# ---------------------------------------------------------------------------------------------
# q-sparse averaging


def qsa_target(z_BxNxZ: np.ndarray, members_BxNxK: np.ndarray) -> np.ndarray:
    """``qSA(X)_i = (1/q) sum_{j in y_i} z_j`` (Sanford et al. 2023, Definition of qSA).

    The paper defines qSA for ``y_i in C([N], q)``, the ``q``-element subsets of ``[N]`` with
    ``1 <= q <= N``: every ``y_i`` has exactly ``q >= 1`` members, so the average is never of an
    empty set. An empty ``y_i`` (``q = 0``: ``0 / 0``) is outside the definition and refused.

    Args:
      z_BxNxZ: the vectors ``z_j`` (each in the unit ball of ``R^{d'}``).
      members_BxNxK: boolean, ``members[b, i, j]`` iff ``j in y_i``; every row holds ``q >= 1``
        ones.

    Raises:
      ValueError: naming ``members_BxNxK`` for a wrong shape, rows of different sizes or an empty
        row.
    """
    z = np.asarray(z_BxNxZ, np.float64)
    members = np.asarray(members_BxNxK, bool)
    if z.ndim != 3 or members.shape != z.shape[:2] + (z.shape[1],):
        raise ValueError(
            f"members_BxNxK: expected shape {z.shape[:2] + (z.shape[1],)} for z of shape "
            f"{z.shape}, got {members.shape}"
        )
    q = members.sum(-1, keepdims=True)
    if q.size and np.any(q != q.reshape(-1)[0]):
        raise ValueError("members_BxNxK: every y_i must have the same size q")
    if q.size and q.reshape(-1)[0] == 0:
        raise ValueError("members_BxNxK: every y_i is empty; qSA needs q >= 1 members per row")
    return np.einsum("bij,bjy->biy", members / q, z)


def qsa_sample(
    seed: int, num: int, seq_len: int, q: int, dim: int
) -> tuple[np.ndarray, np.ndarray]:
    """``num`` random qSA inputs: ``z_j`` uniform in the unit ball of ``R^dim``, ``y_i`` a uniform
    q-subset of ``[N]``. Returns ``(z_BxNxZ, members_BxNxK)``."""
    _check_sizes(num, seq_len)
    if not 1 <= int(q) <= int(seq_len):
        raise ValueError(f"q: expected 1 <= q <= N = {seq_len}, got {q}")
    if int(dim) < 1:
        raise ValueError(f"dim: expected d' >= 1, got {dim}")
    rng = np.random.default_rng(seed)
    g = rng.normal(size=(num, seq_len, dim))
    radius = rng.uniform(size=(num, seq_len, 1)) ** (1.0 / dim)
    z = g / np.linalg.norm(g, axis=-1, keepdims=True) * radius
    order = np.argsort(rng.uniform(size=(num, seq_len, seq_len)), axis=-1)[..., :q]
    members = np.zeros((num, seq_len, seq_len), bool)
    np.put_along_axis(members, order, True, axis=-1)
    return z, members


def qsa_sample_chunks(
    seed: int, num: int, seq_len: int, q: int, dim: int, *, chunk: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``num`` random qSA inputs drawn ``chunk`` at a time (the chunk at ``start`` by
    :func:`qsa_sample` from seed ``seed + start``), each chunk with its exact target: yields
    ``(z_BxNxZ, members_BxNxK, target_BxNxZ)`` lazily, so one chunk is in memory at a time."""
    for start in range(0, num, chunk):
        z, members = qsa_sample(seed + start, min(chunk, num - start), seq_len, q, dim)
        yield z, members, qsa_target(z, members)


def qsa_features(z_BxNxZ: np.ndarray, members_BxNxK: np.ndarray) -> np.ndarray:
    """``x_i = (z_i, 1[y_i], e_i)``: shape ``(B, N, d' + 2N)``, float32 (the encoding every
    trained network of :mod:`._models_separations` reads)."""
    z = np.asarray(z_BxNxZ, np.float32)
    members = np.asarray(members_BxNxK, np.float32)
    if z.ndim != 3 or members.shape != z.shape[:2] + (z.shape[1],):
        raise ValueError(
            f"members_BxNxK: expected shape {z.shape[:2] + (z.shape[1],)}, got {members.shape}"
        )
    eye = np.broadcast_to(np.eye(z.shape[1], dtype=np.float32), members.shape)
    return np.concatenate([z, members, eye], axis=-1)


def qsa_batch(seed: int, num: int, seq_len: int, q: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """``num`` drawn qSA inputs (:func:`qsa_sample`) as the trained networks read them:
    ``(qsa_features(z, members), qsa_target(z, members))``."""
    z, members = qsa_sample(seed, num, seq_len, q, dim)
    target = qsa_target(z, members)
    return qsa_features(z, members), target


ALL_SUBSETS_LIMIT = 2_000_000


def all_subsets(seq_len: int, q: int, *, limit: int | None = ALL_SUBSETS_LIMIT) -> np.ndarray:
    """Every q-subset of ``[N]`` as a boolean indicator row, in lexicographic order
    ``(C(N, q), N)``. Refuses (``ValueError`` naming ``q`` with the count) when ``C(N, q)``
    exceeds ``limit`` (default 2,000,000 rows, 2 bytes x N each at most; ``None``: no limit)."""
    if not 1 <= int(q) <= int(seq_len):
        raise ValueError(f"q: expected 1 <= q <= N = {seq_len}, got {q}")
    budget.check_count("q", math.comb(int(seq_len), int(q)), limit, unit=f"{q}-subsets")
    combos = list(itertools.combinations(range(seq_len), q))
    rows = np.zeros((len(combos), seq_len), bool)
    for r, c in enumerate(combos):
        rows[r, list(c)] = True
    return rows


# ---------------------------------------------------------------------------------------------
# Match2 / Match3 and variants (brute force, O(N^2) / O(N^3) per sequence)


def match2(x_BxN: np.ndarray, modulus: int) -> np.ndarray:
    """``Match2(X)_i = 1{exists j: x_i + x_j = 0 (mod M)}``, ``j = i`` allowed (see above)."""
    modulus = _check_modulus(modulus)
    x = np.asarray(x_BxN, np.int64)
    s = (x[:, :, None] + x[:, None, :]) % modulus
    return np.any(s == 0, axis=-1)


def match3(x_BxN: np.ndarray, modulus: int) -> np.ndarray:
    """``Match3(X)_i = 1{exists j1, j2: x_i + x_j1 + x_j2 = 0 (mod M)}`` (any ``j1, j2``)."""
    modulus = _check_modulus(modulus)
    x = np.asarray(x_BxN, np.int64)
    pair = (x[:, :, None] + x[:, None, :]) % modulus  # (B, K, K): x_j1 + x_j2
    present = np.zeros((x.shape[0], modulus), bool)
    np.put_along_axis(present, pair.reshape(x.shape[0], -1), True, axis=-1)
    need = (-x) % modulus
    return np.take_along_axis(present, need, axis=-1)


def match3_bigram(x_BxN: np.ndarray, modulus: int) -> np.ndarray:
    """``Match3Bigram(X)_i = 1{exists j in [N-1]: x_i + x_j + x_{j+1} = 0 (mod M)}``."""
    modulus = _check_modulus(modulus)
    x = np.asarray(x_BxN, np.int64)
    bigram = (x[:, :-1] + x[:, 1:]) % modulus  # (B, N-1)
    return np.any((x[:, :, None] + bigram[:, None, :]) % modulus == 0, axis=-1)


def match3_local(x_BxN: np.ndarray, modulus: int, window: int) -> np.ndarray:
    """``Match3Local(X)_i = 1{exists j1, j2: x_i + x_j1 + x_j2 = 0 (mod M), |i-j1|, |i-j2| <=
    K}`` with ``K = window``."""
    modulus = _check_modulus(modulus)
    if int(window) < 0:
        raise ValueError(f"window: expected K >= 0, got {window}")
    x = np.asarray(x_BxN, np.int64)
    n = x.shape[1]
    k = min(int(window), n)
    hit = np.zeros(x.shape, bool)
    pos = np.arange(n)
    for a in range(-k, k + 1):  # O(N K^2): only offsets inside the window
        ja = np.clip(pos + a, 0, n - 1)
        ok_a = (pos + a >= 0) & (pos + a < n)
        for b in range(a, k + 1):
            jb = np.clip(pos + b, 0, n - 1)
            ok = ok_a & (pos + b >= 0) & (pos + b < n)
            hit |= ok[None] & ((x + x[:, ja] + x[:, jb]) % modulus == 0)
    return hit


def _plant_pairs(rng, x, perm, modulus, window) -> None:
    """Match2: ``x_b = -x_a`` for ``N/4`` random pairs."""
    num, n = x.shape
    rows = np.arange(num)
    for t in range(n // 4):
        a, c = perm[:, 2 * t], perm[:, 2 * t + 1]
        x[rows, c] = (-x[rows, a]) % modulus


def _plant_triples(rng, x, perm, modulus, window) -> None:
    """Match3: ``x_c = -(x_a + x_b)`` for ``N/6`` random triples."""
    num, n = x.shape
    rows = np.arange(num)
    for t in range(n // 6):
        a, c, d = perm[:, 3 * t], perm[:, 3 * t + 1], perm[:, 3 * t + 2]
        x[rows, d] = (-x[rows, a] - x[rows, c]) % modulus


def _plant_near(bigram: bool):
    """Match3Bigram / Match3Local: one plant per chosen position ``i``, vectorized over the
    batch; a plant whose random partners are invalid (collide with ``i``, leave the sequence) is
    skipped."""

    def plant(rng, x, perm, modulus, window) -> None:
        num, n = x.shape
        if n < 3:
            return
        rows, m = np.arange(num), modulus
        for t in range(n // 2):
            i = perm[:, t]
            if bigram:
                j1 = rng.integers(0, n - 1, size=num)
                j2 = j1 + 1
                ok = (j1 != i) & (j2 != i)
            else:
                j1 = i + rng.integers(-window, window + 1, size=num)
                j2 = i + rng.integers(-window, window + 1, size=num)
                ok = (j1 != i) & (j2 != i) & (j1 != j2) & (j1 >= 0) & (j2 >= 0)
                ok &= (j1 < n) & (j2 < n)
            j1, j2 = np.clip(j1, 0, n - 1), np.clip(j2, 0, n - 1)
            planted = (-x[rows, j1] - x[rows, j2]) % m
            x[rows, i] = np.where(ok, planted, x[rows, i])

    return plant


@dataclasses.dataclass(frozen=True)
class MatchTask:
    """One Match task of the registry :data:`MATCH_TASKS`.

    Attributes:
      name: the task's name (``match2``...).
      labels: ``(x_BxN, modulus, window) -> bool (B, N)``, the brute-force specification.
      plant: ``(rng, x_BxN, perm_BxN, modulus, window) -> None``, plants matches into uniform
        tokens in place (:func:`match_sample`).
      windowed: whether the window ``K`` is one of the task's sizes.
    """

    name: str
    labels: Callable[[np.ndarray, int, int], np.ndarray]
    plant: Callable[..., None]
    windowed: bool = False

    @property
    def sizes(self) -> tuple[str, ...]:
        """The named size fields of one instance: ``N``, ``M`` and, if windowed, ``K``."""
        return ("N", "M", "K") if self.windowed else ("N", "M")


#: The Match tasks by name: the one dispatch table of labels and samplers.
MATCH_TASKS: dict[str, MatchTask] = {
    "match2": MatchTask("match2", lambda x, m, k: match2(x, m), _plant_pairs),
    "match3": MatchTask("match3", lambda x, m, k: match3(x, m), _plant_triples),
    "match3bigram": MatchTask(
        "match3bigram", lambda x, m, k: match3_bigram(x, m), _plant_near(bigram=True)
    ),
    "match3local": MatchTask("match3local", match3_local, _plant_near(bigram=False), True),
}


def _match_task(task: str) -> MatchTask:
    if task not in MATCH_TASKS:
        raise ValueError(f"task: expected one of {tuple(MATCH_TASKS)}, got {task!r}")
    return MATCH_TASKS[task]


def match_labels(task: str, x_BxN: np.ndarray, modulus: int, window: int = 1) -> np.ndarray:
    """The labels of ``task`` in ``match2 / match3 / match3bigram / match3local``."""
    return _match_task(task).labels(x_BxN, modulus, window)


def match_sample(
    task: str, seed: int, num: int, seq_len: int, modulus: int, window: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """``num`` sequences in ``[M]^N`` with roughly half of the positions positive.

    Uniform tokens are almost never matched when ``M >= N^2``, so the generator plants matches:
    Match2 sets ``x_b = -x_a`` for ``N/4`` random pairs, Match3 sets ``x_c = -(x_a + x_b)`` for
    ``N/6`` triples, Match3Bigram sets ``x_i = -(x_j + x_{j+1})`` for ``N/2`` positions and
    Match3Local plants triples inside a window of ``K``. Labels are the brute-force reference.
    Returns ``(x_BxN, labels_BxN)``.
    """
    _check_sizes(num, seq_len, modulus)
    spec = _match_task(task)
    rng = np.random.default_rng(seed)
    x = rng.integers(0, modulus, size=(num, seq_len))
    perm = np.argsort(rng.uniform(size=(num, seq_len)), axis=-1)
    spec.plant(rng, x, perm, modulus, window)
    return x, match_labels(task, x, modulus, window)


@dataclasses.dataclass(frozen=True)
class MatchTrainingData:
    """What one trained Match model reads (:func:`match_training_data`): the held-out
    sequences and labels, and ``batch(t)``, the fresh balanced batch ``(x_BxN, labels_BxN)`` of
    step ``t``."""

    held_out_x: np.ndarray
    held_out_y: np.ndarray
    batch: Callable[[int], tuple[np.ndarray, np.ndarray]]


def match_training_data(
    task: str, seed: int, batch: int, seq_len: int, modulus: int, *, held_out: int = 2000
) -> MatchTrainingData:
    """The data of one trained ``task`` model: ``held_out`` sequences drawn first (seed ``10^9 +
    seed``), then step ``t``'s ``batch`` fresh sequences (seed ``100,000 seed + t``), each by
    :func:`match_sample`."""
    x, y = match_sample(task, 10**9 + seed, held_out, seq_len, modulus)

    def step(t: int) -> tuple[np.ndarray, np.ndarray]:
        return match_sample(task, seed * 100_000 + t, batch, seq_len, modulus)

    return MatchTrainingData(x, y, step)


def match_inputs(
    task: str,
    seq_len: int,
    modulus: int,
    window: int = 1,
    *,
    samples: int,
    seed: int,
    exhaustive: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The inputs of one Match check and their labels: every sequence of ``[M]^N`` in
    lexicographic order when ``exhaustive`` (:func:`match_labels`), else ``samples`` balanced
    ones (:func:`match_sample` at ``seed``). Returns ``(x_BxN, labels_BxN)``."""
    if exhaustive:
        x = np.array(list(itertools.product(range(modulus), repeat=seq_len)))
        return x, match_labels(task, x, modulus, window)
    return match_sample(task, seed, samples, seq_len, modulus, window)


# ---------------------------------------------------------------------------------------------
# DISJ's pairs and their qSA instances (the reduction of :mod:`._theory_disjointness`)


def _bits_vector(v, name: str) -> np.ndarray:
    arr = np.asarray(v)
    if arr.ndim != 1 or arr.size < 1 or not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name}: expected a non-empty 0/1 vector, got {v!r}")
    return arr.astype(np.int64)


def _check_q(q: int) -> int:
    return _validate.check_int_arg("q", q, 1)  # an int: 2.5 was read as 2


def disj(a: np.ndarray, b: np.ndarray) -> int:
    """``DISJ(a, b) = max_i a_i b_i`` (Yao 1979 as the slides write it): 1 iff the sets meet."""
    a, b = _bits_vector(a, "a"), _bits_vector(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"b: expected length {a.size} like a, got {b.size}")
    return int(np.max(a * b))


#: The most inputs :func:`all_inputs` lists by default.
INPUTS_LIMIT = 2**16


def all_inputs(q: int, *, limit: int | None = INPUTS_LIMIT) -> np.ndarray:
    """Every ``a in {0,1}^q``, ``(2^q, q)`` int64, in lexicographic order; more than ``limit``
    inputs is refused with the count (``None``: no limit)."""
    q = _check_q(q)
    budget.check_count("q", 2**q, limit, unit="inputs a in {0,1}^q")
    return np.array(list(itertools.product((0, 1), repeat=q)), np.int64)


def query_position(q: int) -> int:
    """The 0-based position of ``x_{2q+1}``, the row that decides DISJ: ``2q``."""
    return 2 * _check_q(q)


def reduction_length(q: int, seq_len: int | None = None) -> int:
    """The reduction's ``N``: ``seq_len`` (default ``2q + 1``), refused below ``2q + 1``."""
    n = 2 * q + 1 if seq_len is None else int(seq_len)
    if n < 2 * q + 1:
        raise ValueError(f"seq_len: expected N >= 2q + 1 = {2 * q + 1}, got {seq_len}")
    return n


def query_subset(
    a: np.ndarray, seq_len: int | None = None, *, literal_plus: bool = False
) -> np.ndarray:
    """Alice's ``y_{2q+1}`` as a boolean indicator ``(N,)``: 1-based ``2i - 1`` if ``a_i = 1``,
    else ``2i`` (0-based ``2i`` / ``2i + 1`` for ``i = 0..q-1``).

    ``literal_plus=True`` reads the garbled "2i 1" as ``2i + 1`` (1-based), the reading that does
    NOT give the slides' equivalence (kept to show it fails; ``2q + 1`` then may be the query's
    own position, and ``N`` must be ``>= 2q + 2`` for ``i = q``)."""
    a = _bits_vector(a, "a")
    q = a.size
    n = reduction_length(q, seq_len)
    one_based = [
        2 * i + 1 if (literal_plus and a[i - 1]) else 2 * i - (a[i - 1] == 1)
        for i in range(1, q + 1)
    ]
    if max(one_based) > n:
        raise ValueError(f"seq_len: N = {n} is too short for position {max(one_based)}")
    members = np.zeros(n, bool)
    members[np.array(one_based) - 1] = True
    return members


def encode(
    a: np.ndarray,
    b: np.ndarray,
    seq_len: int | None = None,
    dim: int = 1,
    *,
    literal_plus: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The qSA instance ``X`` of the reduction: ``(z_NxZ, members_NxK)``.

    ``z_j = e_1`` if 1-based ``j`` is odd and ``b_{(j+1)/2} = 1``, else ``-e_1`` (``j > 2q``
    included); ``y_{2q+1}`` is :func:`query_subset`; every other ``y_i`` is the fixed subset
    ``{1, ..., q}`` (any subset that does not depend on ``a`` serves: Bob knows it).

    Args:
      a: Alice's bits ``(q,)``.
      b: Bob's bits ``(q,)``.
      seq_len: ``N >= 2q + 1`` (default ``2q + 1``).
      dim: ``d' >= 1``, the width of the ``z_j``.
      literal_plus: Alice's ``2i + 1`` reading (:func:`query_subset`).
    """
    a, b = _bits_vector(a, "a"), _bits_vector(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"b: expected length {a.size} like a, got {b.size}")
    if isinstance(dim, bool) or int(dim) < 1:
        raise ValueError(f"dim: expected d' >= 1, got {dim!r}")
    q = a.size
    n = reduction_length(q, seq_len)
    if literal_plus and n < 2 * q + 2:
        n = 2 * q + 2
    sign = -np.ones(n)
    for j in range(1, 2 * q + 1, 2):  # 1-based odd j <= 2q - 1
        if b[(j + 1) // 2 - 1] == 1:
            sign[j - 1] = 1.0
    z = np.zeros((n, int(dim)))
    z[:, 0] = sign
    members = np.zeros((n, n), bool)
    members[:, :q] = True
    members[query_position(q)] = query_subset(a, n, literal_plus=literal_plus)
    return z, members


@dataclasses.dataclass(frozen=True)
class ProtocolInstances:
    """The reduction's instances of the protocol at ``q`` (:func:`protocol_instances`): every
    pair ``(a, b)`` (``a`` major, both in :func:`all_inputs` order) and ``DISJ`` on it, the qSA
    instance of each pair (:func:`encode` at ``N = 2q + 1``, ``d' = dim = 1``) and Alice's own
    (each ``a`` of :func:`all_inputs`, ``alice_a_AxQ``, with ``b = 0``: what her query is
    computed from); ``position`` is the query's row ``x_{2q+1}`` (:func:`query_position`)."""

    q: int
    dim: int
    a_BxQ: np.ndarray
    b_BxQ: np.ndarray
    truth_B: np.ndarray
    z_BxNxZ: np.ndarray
    members_BxNxK: np.ndarray
    alice_z_AxNxZ: np.ndarray
    alice_members_AxNxK: np.ndarray
    alice_a_AxQ: np.ndarray
    position: int


def _encode_all(a_BxQ: np.ndarray, b_BxQ: np.ndarray, seq_len: int, dim: int):
    enc = [encode(a, b, seq_len, dim) for a, b in zip(a_BxQ, b_BxQ, strict=True)]
    return np.stack([e[0] for e in enc]), np.stack([e[1] for e in enc])


def protocol_instances(q: int, dim: int = 1) -> ProtocolInstances:
    """The pairs, ``DISJ`` on them and their encoded instances (see :class:`ProtocolInstances`),
    plain arrays for the unit of :func:`._constructions_qsa.reduction_unit` to embed and run."""
    q = _check_q(q)
    inputs = all_inputs(q)
    a = np.repeat(inputs, len(inputs), axis=0)
    b = np.tile(inputs, (len(inputs), 1))
    z, members = _encode_all(a, b, 2 * q + 1, dim)
    alice_z, alice_members = _encode_all(inputs, np.zeros_like(inputs), 2 * q + 1, dim)
    return ProtocolInstances(
        q,
        dim,
        a,
        b,
        np.max(a * b, axis=1),
        z,
        members,
        alice_z,
        alice_members,
        inputs,
        query_position(q),
    )
