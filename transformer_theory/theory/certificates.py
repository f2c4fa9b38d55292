"""Certificates that no one-layer model classifies a finite labelled dataset, and accuracy bounds.

Chen & Zou 2024, §11 (Definition 3, Propositions 7-8), §13.1 (Theorem 2), §14.1 (Theorem 4, Lemma 6)
and
§16 (Propositions 9-10) all rest on one fact, which this module turns into a linear program.

**Why a linear program.** Fix the last token ``t`` shared by a group of sequences and write
``c_i in {0,1}^(N*V)`` for the flattened one-hot sequence ``i`` (its per-position token counts,
``dependence.position_counts``). In ONE attention layer the last query ``x_{n-1}`` is the same for
the whole group, so key ``j`` contributes a term that depends only on ``(token_j, j)``:

- ReLU attention, any number ``m`` of heads (eq. 6-8, Prop. 7-8):
  ``o_i = W_O x_{n-1} + (1/m) sum_h sum_j W_O W_V^h x_j relu(x_j^T W_QK^h x_{n-1})``, a sum over
  positions of a function of ``(token_j, j)``; hence ``o_i = M_t c_i`` for a matrix ``M_t`` (the
  constant part ``W_O x_{n-1}`` is absorbed by the last position's block of ``c_i``, which is the
  same one-hot for every sequence of the group). The same holds for any positional code whose last-
  query score depends on the key position alone, and for token-wise norms before attention.
- Softmax attention, ONE head (eq. 18, Prop. 9-10): ``Z_i o_i = M_t c_i`` with
  ``Z_i = sum_j exp(s(token_j, j)) = z_t . c_i > 0``. Multiplying a logit vector by ``Z_i > 0``
  keeps its argmax and the sign of every margin ``o_i[y_i] - o_i[c]``. So "this softmax model
  classifies every example" implies "``M_t`` classifies every ``c_i``" too, and the SAME linear
  program covers this family. (With several softmax heads each head has its own ``Z``; no common
  positive factor exists and the argument -- and this certificate -- does not apply.)

Therefore, if some model of the family classifies every example (``o_i[y_i] > o_i[c]`` for all
``c != y_i``; ties count as errors), then for every group there is ``M_t`` with
``(M_t c_i)[y_i] - (M_t c_i)[c] > 0``, and by scaling ``M_t`` (the constraints are homogeneous)
``>= 1``. The relaxation is:

    P_t:  find M_t  with  (e_{y_i} - e_c)^T M_t c_i >= 1   for every i in group t, c != y_i.

This is the linear program ``{o_i[y_i] >= o_i[c] + 1; sum_i lambda_i o_i = 0 for every dependence
lambda}``
in the parametrization ``o_i = M_t c_i``: the outputs satisfying every dependence are exactly the
column space of ``C_t``. Groups with different last tokens share no constraint (the query differs),
so the program splits by group. Classes that never label an example of a group are dropped there
(their outputs can be pushed below everything with the constant last-position feature).

**The certificate (Farkas' lemma).** ``P_t`` is infeasible iff there are multipliers
``u_{i,c} >= 0`` (``c != y_i``), not all zero, such that ``G = sum u_{i,c} e_i (e_{y_i} - e_c)^T``
satisfies ``C_t^T G = 0``: every column ``G[:, k]`` is a *dependence* (Def. 3) -- one relation per
class, with ``G[i, y_i] >= 0``, ``G[i, c] <= 0`` otherwise and zero row sums. Indeed for
``o_i = M c_i``: ``sum_{i,c} u_{i,c} (o_i[y_i] - o_i[c]) = sum_k G[:, k] . O[:, k] =
trace(G^T C M^T) = 0``, while all-correct outputs make the left side ``> 0``. The toy set of §13.1
gives ``u = 1`` on the four wrong answers and ``G[:, x] = (1, 1, -1, -1) = -G[:, y]``: the paper's
``o0 + o1 = o2 + o3`` argument (eq. 14-16) verbatim. HiGHS returns a floating-point ``u``; it is
turned into an integer vector by solving exactly on its support (python-flint), and then re-verified
exactly by :func:`check_certificate` (integers only). A feasible ``P_t`` gives "no certificate",
which proves NOTHING about the family: the relaxation allows every ``M_t``, the family does not.

**Accuracy upper bound.** A subset ``S`` of a group can all be correct only if ``P_t`` restricted
to ``S`` is feasible; an infeasible subset (a *core*, certified as above) forces at least one
error. The best accuracy of the relaxation is therefore ``|D| - min hitting set of all cores``.
A direct mixed-integer program with big-M indicator constraints would need a bound on ``M_t``
that the scale-invariant constraints do not provide (any bound valid for all datasets is
astronomically large and numerically meaningless), so the exact method (``method="exact"``) is an
implicit-hitting-set loop instead: a MILP (``scipy.optimize.milp``, 0/1 variables and integer
data, no big-M) finds a minimum set ``H`` hitting every core found so far; if ``P_t`` on the rest
is feasible (the separating ``M_t`` is verified exactly in rationals) the optimum is reached,
otherwise new cores are extracted from the rest and the loop repeats. Every intermediate value is
already a sound upper bound. The sound method (``method="sound"``) packs disjoint cores greedily
(each example seeds an L1-minimal Farkas LP; large groups are packed inside windows of sorted
sequences first): ``k`` disjoint certified cores force ``k`` errors. Both bound what a model of the
family can
reach; "exact" means exact for the relaxation, which may exceed what the family really attains.

Shape glossary: ``B`` examples, ``N`` sequence length, ``V`` vocabulary size, ``P = N*V`` count
features, ``K`` classes of a group.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import scipy.optimize as so
import scipy.sparse as sp

from transformer_theory import _validate
from transformer_theory.theory import dependence

FAMILIES = {
    "relu_any_heads": (
        "one attention layer, ReLU attention, any number of heads (Chen & Zou 2024, eq. "
        "2, Prop. 7-8), "
        "plus the linear classifier"
    ),
    "softmax_one_head": (
        "one attention layer, softmax attention, one head (Chen & Zou 2024, §16, Prop. 9-10), "
        "plus the linear classifier"
    ),
}

_SUPPORT_RTOL = 1e-9  # entries of an LP solution below this fraction of its largest are zero
_MAX_MAP_BITS = 60  # largest power-of-two denominator tried when rationalizing a separating map
_MAX_SEED_TRIES = 8  # seeded LPs tried when shrinking a core found without a seed
_DENSE_MAX_ENTRIES = 2_000_000  # above this, the LP matrices stay sparse
_WINDOW = 256  # sound bound: examples per window of the first packing pass
_DELETION_MIN = 2  # cores of at most this many examples skip the deletion filter


# ----------------------------------------------------------------------------- records


@dataclasses.dataclass(frozen=True)
class Certificate:
    """An exactly checkable proof that the examples ``examples`` cannot all be classified.

    Attributes:
      last_token: the token every example of the certificate ends with.
      examples: global indices of the examples involved (sorted).
      duals: ``(example, wrong_class, weight)`` triples: the Farkas multipliers ``u_{i,c} > 0``
        (positive integers) of the margin constraints ``o_i[y_i] - o_i[c] >= 1``.
      relations: ``{class k: coefficients over examples}``: the columns ``G[:, k]`` of
        ``G = sum u_{i,c} e_i (e_{y_i} - e_c)^T``; each must be a dependence (Def. 3).
    """

    last_token: int
    examples: tuple[int, ...]
    duals: tuple[tuple[int, int, int], ...]
    relations: dict

    @property
    def size(self) -> int:
        return len(self.examples)

    def explain(self) -> str:
        """The contradiction in words, with the relations spelled out."""
        lines = [
            f"{len(self.examples)} examples ending with token {self.last_token}: "
            f"{list(self.examples)}",
            "relations (each a dependence, Def. 3, so sum_i lambda_i o_i[k] = 0 for a "
            "one-layer ReLU model;"
            " read Z_i o_i for o_i with one softmax head, Prop. 10):",
        ]
        for k, coeffs in sorted(self.relations.items()):
            terms = " ".join(f"{c:+d}*o_{e}[{k}]" for e, c in zip(self.examples, coeffs) if c)
            lines.append(f"  class {k}: {terms} = 0")
        total = sum(w for _, _, w in self.duals)
        lines.append(
            "adding them gives sum u_ic (o_i[y_i] - o_i[c]) = 0 with u = "
            + ", ".join(f"u[{e},{c}]={w}" for e, c, w in self.duals)
            + f" (total {total} > 0): impossible if every margin is positive."
        )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "last_token": int(self.last_token),
            "examples": [int(e) for e in self.examples],
            "duals": [[int(e), int(c), int(w)] for e, c, w in self.duals],
            "relations": {str(k): [int(c) for c in v] for k, v in sorted(self.relations.items())},
        }

    @classmethod
    def from_dict(cls, d: dict) -> Certificate:
        """Inverse of :meth:`to_dict` (JSON round trip)."""
        try:
            return cls(
                last_token=int(d["last_token"]),
                examples=tuple(int(e) for e in d["examples"]),
                duals=tuple((int(e), int(c), int(w)) for e, c, w in d["duals"]),
                relations={int(k): tuple(int(c) for c in v) for k, v in d["relations"].items()},
            )
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"certificate: malformed certificate dictionary ({err!r})") from err


@dataclasses.dataclass
class GroupResult:
    """The relaxation ``P_t`` for one last token ``t``."""

    last_token: int
    num_examples: int
    classes: tuple[int, ...]
    status: str  # "infeasible" | "feasible" | "trivial" (one class) | "undecided"
    certificate: Certificate | None = None
    verified_exactly: bool = (
        False  # certificate (infeasible) or separating map (feasible) checked exactly
    )
    note: str = ""

    def to_dict(self) -> dict:
        return {
            "last_token": int(self.last_token),
            "num_examples": int(self.num_examples),
            "classes": [int(c) for c in self.classes],
            "status": self.status,
            "verified_exactly": bool(self.verified_exactly),
            "certificate": None if self.certificate is None else self.certificate.to_dict(),
            "note": self.note,
        }


@dataclasses.dataclass
class CertificateRecord:
    """Verdict of :func:`certify_dataset`.

    ``verdict`` is ``"impossible"`` (some group is infeasible and its certificate was re-verified
    exactly: no model of the family classifies every example), ``"no certificate"`` (every group's
    relaxation is feasible, or a certificate could not be verified) -- which proves nothing.
    ``contradictions`` lists the groups of rows that hold one sequence under different labels
    (:func:`contradictory_rows`): non-empty means no function of the sequence at all -- no model
    of any family or depth -- classifies every example.
    """

    family: str
    verdict: str
    verified_exactly: bool
    num_examples: int
    seq_len: int
    vocab_size: int
    num_classes: int
    groups: list
    seconds: float
    message: str
    contradictions: list = dataclasses.field(default_factory=list)

    @property
    def certificate(self) -> Certificate | None:
        """The smallest exactly verified certificate, if any."""
        certs = [
            g.certificate for g in self.groups if g.certificate is not None and g.verified_exactly
        ]
        return min(certs, key=lambda c: c.size) if certs else None

    def to_dict(self) -> dict:
        cert = self.certificate
        return {
            "kind": "certificate",
            "family": self.family,
            "family_description": FAMILIES[self.family],
            "verdict": self.verdict,
            "verified_exactly": bool(self.verified_exactly),
            "num_examples": int(self.num_examples),
            "seq_len": int(self.seq_len),
            "vocab_size": int(self.vocab_size),
            "num_classes": int(self.num_classes),
            "certificate": None if cert is None else cert.to_dict(),
            "groups": [g.to_dict() for g in self.groups],
            "seconds": float(self.seconds),
            "message": self.message,
            "contradictions": [[int(i) for i in rows] for rows in self.contradictions],
        }


@dataclasses.dataclass
class BoundRecord:
    """Upper bound on the number of examples a model of the family can classify correctly.

    Attributes:
      max_correct: the bound (an integer); ``upper_bound = max_correct / num_examples``.
      exact: True when the bound is attained by the relaxation (a per-group linear map verified
        exactly in rationals classifies ``max_correct`` examples), i.e. it is the relaxation's
        optimum.
      lower_bound: examples the relaxation provably classifies (``max_correct`` when exact).
      cores: the exactly certified infeasible subsets (global indices) the bound rests on.
    """

    family: str
    method: str
    num_examples: int
    max_correct: int
    exact: bool
    lower_bound: int | None
    cores: list
    iterations: int
    seconds: float
    message: str

    @property
    def upper_bound(self) -> float:
        return self.max_correct / self.num_examples

    @property
    def fraction(self) -> Fraction:
        return Fraction(self.max_correct, self.num_examples)

    def to_dict(self) -> dict:
        return {
            "kind": "accuracy_bound",
            "family": self.family,
            "method": self.method,
            "num_examples": int(self.num_examples),
            "max_correct": int(self.max_correct),
            "upper_bound": float(self.upper_bound),
            "upper_bound_fraction": f"{self.max_correct}/{self.num_examples}",
            "exact": bool(self.exact),
            "lower_bound": None if self.lower_bound is None else int(self.lower_bound),
            "num_cores": len(self.cores),
            "cores": [[int(i) for i in c] for c in self.cores],
            "iterations": int(self.iterations),
            "seconds": float(self.seconds),
            "message": self.message,
        }


# ----------------------------------------------------------------------------- inputs


def _check_dataset(tokens_BxN, labels_B, vocab_size, num_classes, family):
    """Validate and return ``(tokens int64 (B,N), labels int64 (B,), num_classes)``."""
    if family not in FAMILIES:
        raise ValueError(f"family: expected one of {list(FAMILIES)}, got {family!r}")
    tokens = np.asarray(tokens_BxN)
    labels = np.asarray(labels_B)
    _validate.check_ndim("tokens_BxN", tokens, 2)
    _validate.check_ndim("labels_B", labels, 1)
    if tokens.shape[0] == 0 or tokens.shape[1] == 0:
        raise ValueError(
            f"tokens_BxN: expected at least one example of length >= 1, got shape {tokens.shape}"
        )
    if labels.shape[0] != tokens.shape[0]:
        raise ValueError(
            f"labels_B: expected {tokens.shape[0]} labels (one per sequence), got {labels.shape[0]}"
        )
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, (int, np.integer)):
        raise ValueError(f"vocab_size: expected an integer, got {vocab_size!r}")
    _validate.check_positive("vocab_size", vocab_size)
    _validate.check_token_ids("tokens_BxN", tokens, int(vocab_size))
    _validate.check_int("labels_B", labels)
    if labels.min() < 0:
        raise ValueError(
            f"labels_B: labels must be non-negative class indices, got min {labels.min()}"
        )
    if num_classes is None:
        num_classes = int(labels.max()) + 1
    _validate.check_positive("num_classes", num_classes)
    if labels.max() >= num_classes:
        raise ValueError(f"labels_B: labels must lie in [0, {num_classes}), got max {labels.max()}")
    return tokens.astype(np.int64), labels.astype(np.int64), int(num_classes)


def contradictory_rows(tokens_BxN, labels_B) -> list[tuple[int, ...]]:
    """Groups of rows holding the SAME sequence under different labels, in order of first row.

    Such a dataset is impossible for every model of every depth -- for any function of the
    sequence -- before any linear program: the rows of one group need different outputs from the
    same input. Each group lists all rows of its sequence (every label it carries).
    """
    tokens = np.asarray(tokens_BxN)
    labels = np.asarray(labels_B)
    _validate.check_ndim("tokens_BxN", tokens, 2)
    _validate.check_shape("labels_B", labels, (tokens.shape[0],))
    _, sequence_B = np.unique(tokens, axis=0, return_inverse=True)
    order = np.argsort(sequence_B.reshape(-1), kind="stable")
    ids = sequence_B.reshape(-1)[order]
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    out = [
        tuple(int(r) for r in rows)
        for rows in np.split(order, starts[1:])
        if len(rows) > 1 and labels[rows].min() != labels[rows].max()
    ]
    return sorted(out)


def _groups(tokens):
    """``[(last_token, global indices)]`` in increasing order of the last token."""
    return list(dependence.group_by_last_token(tokens).items())


class _Group:
    """The relaxation ``P_t`` of one group as the sparse integer matrix ``E``.

    ``E`` has one row per (count feature ``p``, class slot ``k``) and one column per margin pair
    ``(i, c != y_i)``: ``E[(p, y_i), (i, c)] = C[i, p]`` and ``E[(p, c), (i, c)] = -C[i, p]``.
    The primal is ``E^T x >= 1`` (``x`` = the map ``M_t``); the Farkas system is
    ``E u = 0, u >= 0, sum u = 1``.
    """

    def __init__(self, tokens_BxN, labels_B, indices_B):
        self.indices = np.asarray(indices_B, np.int64)
        self.classes = tuple(int(c) for c in np.unique(labels_B))
        slot = {c: k for k, c in enumerate(self.classes)}
        # The count features are the (position, token) pairs that OCCUR in the group: a feature
        # that never occurs adds a zero row to E and nothing to the program. Indexing only those
        # makes memory follow the data (at most B N features), not the declared vocabulary (a
        # dense (B, N V) count matrix of a 50,257-token vocabulary would take gigabytes).
        tokens = np.asarray(tokens_BxN, np.int64)
        B, N = tokens.shape
        pairs_BN = np.stack([np.broadcast_to(np.arange(N), (B, N)), tokens], axis=-1)
        _, feature_BN = np.unique(pairs_BN.reshape(-1, 2), axis=0, return_inverse=True)
        feature_BxN = feature_BN.reshape(B, N)  # one feature per position: each row N distinct
        self.y = np.array([slot[int(c)] for c in labels_B], np.int64)
        K = len(self.classes)
        pairs = [(i, k) for i in range(len(self.y)) for k in range(K) if k != self.y[i]]
        self.pair_example = np.array([p[0] for p in pairs], np.int64)
        self.pair_class = np.array([p[1] for p in pairs], np.int64)
        rows, cols, vals = [], [], []
        P = int(feature_BxN.max()) + 1 if B else 0
        for j, (i, c) in enumerate(pairs):
            nz = feature_BxN[i]
            w = np.ones(N, np.int64)
            rows += [nz * K + self.y[i], nz * K + c]
            cols += [np.full(2 * len(nz), j)]
            vals += [w, -w]
        shape = (P * K, len(pairs))
        if pairs:
            self.E = sp.csc_matrix(
                (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                shape=shape,
                dtype=np.int64,
            )
        else:
            self.E = sp.csc_matrix(shape, dtype=np.int64)
        # Dense float copy for the LPs when small (slicing and HiGHS setup are cheaper dense);
        # large groups stay sparse so memory follows the number of nonzeros.
        small = self.E.shape[0] * self.E.shape[1] <= _DENSE_MAX_ENTRIES
        self.dense = self.E.toarray().astype(np.float64) if small else None

    def columns(self, cols):
        """``E[:, cols]`` without all-zero rows, as float64 (dense or sparse)."""
        if self.dense is not None:
            E = self.dense[:, cols]
            return E[np.any(E != 0, axis=1)]
        E = self.E[:, cols].tocsr().astype(np.float64)
        return E[np.unique(E.nonzero()[0])] if E.nnz else E

    def pair_mask(self, local_subset):
        keep = np.zeros(len(self.y), bool)
        keep[np.asarray(local_subset, np.int64)] = True
        return keep[self.pair_example]


# ----------------------------------------------------------------------------- exact arithmetic


def _integer_nullvector(E_int, support):
    """Exact solution of ``E[:, support] u = 0`` as a positive integer vector, or None.

    A simplex vertex of the Farkas system has linearly independent support columns once the
    normalization row is added, so the null space of ``E[:, support]`` is one-dimensional and
    the float solution fixes it up to scale; python-flint computes it exactly.
    """
    import flint

    sub = E_int[:, support].tocoo()
    rows_used = np.unique(sub.row)
    dense = np.zeros((len(rows_used), len(support)), np.int64)
    dense[np.searchsorted(rows_used, sub.row), sub.col] = sub.data
    null, nullity = flint.fmpz_mat(dense.tolist()).nullspace()
    if nullity != 1:
        return None
    v = [int(null[r, 0]) for r in range(len(support))]
    if all(x <= 0 for x in v):
        v = [-x for x in v]
    if not all(x > 0 for x in v):
        return None
    g = math.gcd(*v)
    return [x // g for x in v]


def _rational_nullvector(E_int, support, u_float):
    """Fallback: round ``u`` to small rationals and keep it if ``E u = 0`` holds exactly."""
    for max_den in (10**3, 10**6, 10**9):
        fr = [Fraction(float(x)).limit_denominator(max_den) for x in u_float]
        if not all(f > 0 for f in fr):
            continue
        den = math.lcm(*(f.denominator for f in fr))
        v = [int(f * den) for f in fr]
        sub = E_int[:, support].tocsr()
        # Exact integer product with Python ints (no int64 overflow).
        ok = all(
            sum(
                int(sub.data[k]) * v[int(sub.indices[k])]
                for k in range(sub.indptr[r], sub.indptr[r + 1])
            )
            == 0
            for r in range(sub.shape[0])
        )
        if ok:
            g = math.gcd(*v)
            return [x // g for x in v]
    return None


def _certificate_from_pairs(group: _Group, last_token, labels, pair_ids, weights):
    """Build the :class:`Certificate` (global indices, class ids) from integer multipliers."""
    ex_local = sorted({int(group.pair_example[j]) for j in pair_ids})
    pos = {e: r for r, e in enumerate(ex_local)}
    G = {}
    duals = []
    for j, w in zip(pair_ids, weights):
        i, c = int(group.pair_example[j]), int(group.pair_class[j])
        yi, ci = group.classes[group.y[i]], group.classes[c]
        duals.append((int(group.indices[i]), ci, int(w)))
        G.setdefault(yi, [0] * len(ex_local))[pos[i]] += int(w)
        G.setdefault(ci, [0] * len(ex_local))[pos[i]] -= int(w)
    duals.sort()
    return Certificate(
        last_token=int(last_token),
        examples=tuple(int(group.indices[i]) for i in ex_local),
        duals=tuple(duals),
        relations={k: tuple(v) for k, v in sorted(G.items())},
    )


def check_certificate(
    tokens_BxN, labels_B, vocab_size: int, certificate: Certificate, num_classes: int | None = None
) -> tuple[bool, str]:
    """Re-verify a certificate in exact integer arithmetic, independently of any LP.

    Checks: every example exists and ends with ``certificate.last_token``; every multiplier is a
    positive integer on a wrong class ``c != y_i``; the relations equal the columns of
    ``G = sum u_{i,c} e_i (e_{y_i} - e_c)^T``; and each nonzero relation is a dependence
    (``dependence.is_dependence``: equal per-position token multisets, Def. 3). Together these
    make ``sum u_{i,c} (o_i[y_i] - o_i[c]) = 0`` for every one-layer model of either family, so
    not every margin can be positive.

    Args:
      tokens_BxN: the dataset's token ids.
      labels_B: its labels.
      vocab_size: ``V``.
      certificate: the :class:`Certificate` (or its ``to_dict()``).
      num_classes: ``C`` (default ``max(labels) + 1``); every wrong class must lie in ``[0, C)``.

    Returns:
      ``(ok, reason)``; ``reason`` names the first failed condition.
    """
    if isinstance(certificate, dict):
        certificate = Certificate.from_dict(certificate)
    tokens, labels, C = _check_dataset(
        tokens_BxN, labels_B, vocab_size, num_classes, "relu_any_heads"
    )
    B = tokens.shape[0]
    ex = list(certificate.examples)
    if not ex:
        return False, "the certificate involves no example"
    if len(set(ex)) != len(ex) or any(not 0 <= e < B for e in ex):
        return False, f"examples must be distinct indices in [0, {B}), got {ex}"
    if any(int(tokens[e, -1]) != certificate.last_token for e in ex):
        return False, f"not every example ends with the last token {certificate.last_token}"
    if not certificate.duals:
        return False, "no multiplier: the certificate must have at least one positive u"
    pos = {e: r for r, e in enumerate(ex)}
    G = {}
    for e, c, w in certificate.duals:
        if e not in pos:
            return (
                False,
                f"multiplier on example {e}, which is not among the certificate's examples",
            )
        if not (isinstance(w, (int, np.integer)) and w > 0):
            return False, f"multiplier u[{e},{c}] = {w} is not a positive integer"
        if not 0 <= c < C:
            return False, f"multiplier u[{e},{c}] is on class {c}, outside [0, {C})"
        if c == int(labels[e]):
            return False, f"multiplier u[{e},{c}] is on the true class of example {e}"
        G.setdefault(int(labels[e]), [0] * len(ex))[pos[e]] += int(w)
        G.setdefault(int(c), [0] * len(ex))[pos[e]] -= int(w)
    given = {int(k): [int(x) for x in v] for k, v in certificate.relations.items()}
    nonzero = {k: v for k, v in G.items() if any(v)}
    if {k: v for k, v in given.items() if any(v)} != nonzero:
        return False, "the relations are not the columns of G = sum u_ic e_i (e_{y_i} - e_c)^T"
    if not nonzero:
        return False, "every relation is zero"
    sub = tokens[np.asarray(ex)]
    for k, lam in sorted(nonzero.items()):
        if not dependence.is_dependence(sub, lam, vocab_size):
            return (
                False,
                f"the relation of class {k} is not a dependence (per-position token counts differ)",
            )
    return (
        True,
        "verified exactly: every relation is a dependence and the multipliers are "
        "positive integers",
    )


def _verify_map_exactly(group: _Group, local_subset, x_float) -> bool:
    """Rationalize the separating map ``x`` and check ``E^T x > 0`` exactly on ``local_subset``."""
    mask = group.pair_mask(local_subset)
    if not mask.any():
        return True
    Et = group.E[:, mask].T.tocsr()
    for bits in (20, 30, 40, _MAX_MAP_BITS):
        X = [int(v) for v in np.round(np.asarray(x_float, np.float64) * 2.0**bits)]
        ok = True
        for r in range(Et.shape[0]):
            s = sum(
                int(Et.data[k]) * X[int(Et.indices[k])]
                for k in range(Et.indptr[r], Et.indptr[r + 1])
            )
            if s <= 0:
                ok = False
                break
        if ok:
            return True
    return False


# ----------------------------------------------------------------------------- linear programs


class _SolverGaveUp(Exception):
    """HiGHS ended without an answer (iteration or time limit, numerical trouble: any status
    other than optimal or infeasible). The callers degrade to "undecided" or to the sound bound,
    never to a verdict the solver did not give."""


def _solve_farkas(group: _Group, local_subset, seed: int | None = None, tight: bool = False):
    """Farkas LP on ``local_subset``: ``(pair_ids, float u)`` if ``P_t`` is infeasible there, else
    None.

    Without ``seed``: ``E u = 0, sum u = 1, u >= 0``. With ``seed`` (a local example index):
    ``E u = 0, sum_c u_{seed,c} = 1, u >= 0`` minimizing ``sum u`` -- an L1 objective, which
    favours the lightest (usually smallest) certificate through that example; infeasible means no
    certificate inside ``local_subset`` uses ``seed`` at all. ``tight`` re-solves with feasibility
    tolerances 1e-10 (instead of HiGHS's 1e-7) for a vertex whose support is recovered exactly.
    """
    cols = np.flatnonzero(group.pair_mask(local_subset))
    if len(cols) == 0:
        return None
    E = group.columns(cols)
    if seed is None:
        norm, cost = np.ones(len(cols)), np.zeros(len(cols))
    else:
        norm, cost = (group.pair_example[cols] == seed).astype(np.float64), np.ones(len(cols))
        if not norm.any():
            return None
    A_eq = (
        np.vstack([E, norm[None, :]])
        if isinstance(E, np.ndarray)
        else sp.vstack([E, sp.csr_matrix(norm[None, :])]).tocsc()
    )
    b_eq = np.zeros(A_eq.shape[0])
    b_eq[-1] = 1.0
    # Dual simplex returns a vertex, whose support is small and exactly recoverable.
    options = (
        {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
        if tight
        else None
    )
    res = so.linprog(
        cost, A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs-ds", options=options
    )
    if res.status == 2:  # infeasible Farkas system <=> feasible P_t (or: seed in no certificate)
        return None
    if res.status != 0:
        raise _SolverGaveUp(f"HiGHS status {res.status} on the Farkas system: {res.message}")
    u = np.asarray(res.x)
    keep = u > _SUPPORT_RTOL * u.max()
    return cols[keep], u[keep]


def _try_farkas(group: _Group, local_subset, seed: int | None = None):
    """:func:`_solve_farkas`, None when HiGHS gives up (used where None only means "no smaller
    core found", so giving up costs tightness, never soundness)."""
    try:
        return _solve_farkas(group, local_subset, seed)
    except _SolverGaveUp:
        return None


def _solve_primal(group: _Group, local_subset):
    """A separating map ``x`` with ``E^T x >= 1`` on ``local_subset``, or None if HiGHS finds
    none."""
    mask = group.pair_mask(local_subset)
    if not mask.any():
        return np.zeros(group.E.shape[0])
    A = -group.E[:, mask].T.astype(np.float64)
    res = so.linprog(
        np.zeros(group.E.shape[0]),
        A_ub=A,
        b_ub=-np.ones(A.shape[0]),
        bounds=(None, None),
        method="highs",
    )
    return np.asarray(res.x) if res.status == 0 else None


def _exact_certificate(group: _Group, last_token, labels, pair_ids, u):
    """Integer multipliers on the support of ``u`` (exact null vector, else rounding) or None."""
    w = _integer_nullvector(group.E, pair_ids)
    if w is None:
        w = _rational_nullvector(group.E, pair_ids, u)
    if w is None:
        return None
    return _certificate_from_pairs(group, last_token, labels, pair_ids, w)


def _core_of(group: _Group, sol):
    return sorted({int(group.pair_example[j]) for j in sol[0]})


def _find_core(
    group: _Group, last_token, labels, local_subset, minimize: bool, seed: int | None = None
):
    """A certified infeasible subset of ``local_subset`` (local indices) and its certificate.

    Returns ``(core_local, certificate)``; ``(None, None)`` if there is none (through ``seed``,
    if given); ``(None, "undecided")`` if HiGHS reports one but no exact certificate was found.
    With ``minimize`` the core is first replaced by the lightest one through each of a few of
    its examples (L1-seeded LPs), then a deletion filter makes it irreducible (removing any
    example makes the rest separable).
    """
    try:
        sol = _solve_farkas(group, local_subset, seed)
        if sol is None:
            return None, None
        cert = _exact_certificate(group, last_token, labels, *sol)
        if cert is None:  # rounding failed: one tighter solve, then give up honestly
            sol = _solve_farkas(group, local_subset, seed, tight=True)
            cert = None if sol is None else _exact_certificate(group, last_token, labels, *sol)
    except _SolverGaveUp:
        return None, "undecided"
    if cert is None:
        return None, "undecided"
    core = _core_of(group, sol)
    if not minimize:
        return core, cert
    if seed is None:
        for s in core[:_MAX_SEED_TRIES]:
            sol2 = _try_farkas(group, local_subset, s)
            cert2 = None if sol2 is None else _exact_certificate(group, last_token, labels, *sol2)
            if cert2 is not None and len(_core_of(group, sol2)) < len(core):
                core, cert = _core_of(group, sol2), cert2
    k = 0
    while k < len(core) and len(core) > _DELETION_MIN:
        trial = core[:k] + core[k + 1 :]
        sol2 = _try_farkas(group, trial)
        cert2 = None if sol2 is None else _exact_certificate(group, last_token, labels, *sol2)
        if cert2 is not None:
            core, cert = _core_of(group, sol2), cert2
            continue  # the new core omits core[k]; position k now holds the next candidate
        k += 1
    return core, cert


def _prepare(tokens, labels):
    return [(t, _Group(tokens[idx], labels[idx], idx)) for t, idx in _groups(tokens)]


# ----------------------------------------------------------------------------- public API


def certify_dataset(
    tokens_BxN,
    labels_B,
    vocab_size: int,
    num_classes: int | None = None,
    family: str = "relu_any_heads",
    *,
    minimize: bool = True,
    deadline: float | None = None,
) -> CertificateRecord:
    """Decide with a linear program whether a one-layer model of ``family`` could classify every
    example.

    Solves the relaxation ``P_t`` (module docstring) of every last-token group with HiGHS. For an
    infeasible group it returns the Farkas certificate -- one dependence per class and positive
    integer multipliers -- re-verified exactly by :func:`check_certificate`. Feasible everywhere:
    "no certificate", which proves nothing about the family (the relaxation admits any linear map).

    Args:
      tokens_BxN: integer token ids, one sequence per row.
      labels_B: integer class labels in ``[0, num_classes)``.
      vocab_size: ``V``; token ids must lie in ``[0, V)``.
      num_classes: ``C`` (default ``max(labels) + 1``).
      family: ``"relu_any_heads"`` or ``"softmax_one_head"`` -- the same program covers both.
      minimize: shrink each certificate to an irreducible set of examples (deletion filter).
      deadline: optional absolute ``time.perf_counter()`` time; groups not started by then are
        "undecided" (a command passes the deadline of its whole run).

    Returns:
      A :class:`CertificateRecord`; ``verdict == "impossible"`` with ``verified_exactly`` when a
      certificate was found and checked exactly.
    """
    t0 = time.perf_counter()
    tokens, labels, C = _check_dataset(tokens_BxN, labels_B, vocab_size, num_classes, family)
    contradictions = contradictory_rows(tokens, labels)
    results = []
    for t, g in _prepare(tokens, labels):
        res = GroupResult(
            last_token=t, num_examples=len(g.indices), classes=g.classes, status="trivial"
        )
        if len(g.classes) > 1 and deadline is not None and time.perf_counter() > deadline:
            res.status, res.note = "undecided", "the time limit was reached before this group"
        elif len(g.classes) > 1:
            core, cert = _find_core(g, t, labels, np.arange(len(g.y)), minimize)
            if isinstance(cert, Certificate):
                ok, why = check_certificate(tokens, labels, vocab_size, cert, C)
                res.status, res.certificate, res.verified_exactly = "infeasible", cert, ok
                res.note = why
            elif cert == "undecided":
                res.status, res.note = (
                    "undecided",
                    "HiGHS gave no answer, or reported infeasible without an exactly verifiable "
                    "certificate",
                )
            else:
                x = _solve_primal(g, np.arange(len(g.y)))
                res.status = "feasible"
                res.verified_exactly = x is not None and _verify_map_exactly(
                    g, np.arange(len(g.y)), x
                )
                res.note = (
                    "a linear map of the counts separates this group (checked exactly)"
                    if res.verified_exactly
                    else (
                        "the Farkas system is infeasible; the separating map could not "
                        "be checked exactly"
                    )
                )
        else:
            res.verified_exactly, res.note = True, "one class only: nothing to separate"
        results.append(res)
    impossible = any(r.status == "infeasible" and r.verified_exactly for r in results)
    if impossible:
        verdict = "impossible"
        best = min(
            (r.certificate for r in results if r.status == "infeasible" and r.verified_exactly),
            key=lambda c: c.size,
        )
        msg = (
            f"IMPOSSIBLE for {family}: no such model classifies all {len(labels)} examples; "
            f"certificate on {best.size} examples (ending with token {best.last_token}), "
            "re-verified exactly."
        )
        if contradictions:
            more = f" ({len(contradictions)} such groups)" if len(contradictions) > 1 else ""
            msg = (
                f"IMPOSSIBLE for every model of every depth: rows {list(contradictions[0])} hold "
                f"the same sequence under different labels{more}. " + msg
            )
    else:
        verdict = "no certificate"
        msg = (
            f"no certificate for {family}: the linear relaxation is feasible"
            + (" (some group undecided)" if any(r.status == "undecided" for r in results) else "")
            + ". This proves nothing: the relaxation allows every linear map of the counts."
        )
    return CertificateRecord(
        family=family,
        verdict=verdict,
        verified_exactly=impossible,
        num_examples=int(len(labels)),
        seq_len=int(tokens.shape[1]),
        vocab_size=int(vocab_size),
        num_classes=C,
        groups=results,
        seconds=time.perf_counter() - t0,
        message=msg,
        contradictions=contradictions,
    )


def _min_hitting_set(
    cores: Sequence[Sequence[int]], n: int, time_limit: float | None = None
) -> list[int]:
    """Minimum set of local indices meeting every core (0/1 MILP, integer data, gap 0).

    Raises :class:`_SolverGaveUp` when HiGHS stops without proving optimality (e.g. at
    ``time_limit`` seconds).
    """
    if not cores:
        return []
    A = np.zeros((len(cores), n))
    for r, c in enumerate(cores):
        A[r, list(c)] = 1.0
    res = so.milp(
        np.ones(n),
        integrality=np.ones(n),
        bounds=so.Bounds(0, 1),
        constraints=so.LinearConstraint(A, lb=np.ones(len(cores)), ub=np.inf),
        options={"mip_rel_gap": 0.0}
        | ({} if time_limit is None else {"time_limit": max(time_limit, 0.01)}),
    )
    if res.status != 0:
        raise _SolverGaveUp(f"HiGHS status {res.status} on the hitting-set MILP: {res.message}")
    return [int(i) for i in np.flatnonzero(np.round(res.x) > 0.5)]


def _disjoint_cores(cores: Sequence[Sequence[int]]) -> int:
    """How many pairwise disjoint cores a greedy pass finds (smallest first): each forces one
    error, so this is a sound lower bound on the errors without any solver."""
    used: set[int] = set()
    count = 0
    for core in sorted(cores, key=len):
        if used.isdisjoint(core):
            used.update(core)
            count += 1
    return count


def _pack_cores(
    group, t, tokens, labels, vocab_size, local_subset, cores, minimize, deadline
) -> str:
    """Append disjoint certified cores found inside ``local_subset`` to ``cores``.

    Every example is tried as the seed of an L1 Farkas LP until no core through it remains in
    what is left, so on ``"feasible"`` no example left lies in any core: the rest is separable.
    Returns ``"feasible"``, ``"timeout"`` or ``"undecided"``.
    """
    rest = set(int(i) for i in local_subset)
    for seed in sorted(rest):
        while seed in rest:
            if time.perf_counter() > deadline:
                return "timeout"
            core, cert = _find_core(group, t, labels, sorted(rest), minimize, seed)
            if core is None:
                if cert == "undecided":
                    return "undecided"
                break
            ok, why = check_certificate(tokens, labels, vocab_size, cert)
            if not ok:  # never build a bound on an unverified core
                raise RuntimeError(f"internal error: a certificate failed its exact check ({why})")
            cores.append(core)
            rest -= set(core)
    return "feasible"


def accuracy_upper_bound(
    tokens_BxN,
    labels_B,
    vocab_size: int,
    num_classes: int | None = None,
    family: str = "relu_any_heads",
    *,
    method: str = "exact",
    max_iterations: int = 200,
    time_limit: float = 60.0,
    minimize: bool = True,
    deadline: float | None = None,
) -> BoundRecord:
    """Upper bound on how many examples a one-layer model of ``family`` can classify correctly.

    ``method="exact"``: implicit hitting sets (module docstring) -- the optimum of the relaxation,
    proved from both sides (certified cores + a MILP hitting set; an exactly verified separating
    map on the rest). Falls back to the best sound bound found so far when ``max_iterations`` or
    ``time_limit`` runs out (then ``exact`` is False). ``method="sound"``: greedy disjoint
    certified cores; ``k`` cores force ``k`` errors. Each core is re-verified exactly.

    Args:
      tokens_BxN, labels_B, vocab_size, num_classes, family: as in :func:`certify_dataset`.
      method: ``"exact"`` or ``"sound"``.
      max_iterations: hitting-set rounds per group (exact method).
      time_limit: seconds for the whole computation.
      minimize: shrink cores to irreducible ones (tighter sound bounds, fewer rounds).
      deadline: an absolute ``time.perf_counter()`` time that replaces ``time_limit`` (a command
        passes the deadline of its whole run, loading included).

    When HiGHS stops without an answer (a status other than optimal or infeasible), the group
    keeps the cores certified so far and the bound falls back to the sound one they give
    (``exact`` False); the record never claims more than the solver proved.

    Returns:
      A :class:`BoundRecord`; e.g. Theorem 2's toy set gives ``max_correct = 3`` of 4.
    """
    _validate.check_choice("method", method, ("exact", "sound"))
    _validate.check_positive("max_iterations", max_iterations)
    _validate.check_positive("time_limit", time_limit)
    t0 = time.perf_counter()
    deadline = t0 + time_limit if deadline is None else deadline
    tokens, labels, _ = _check_dataset(tokens_BxN, labels_B, vocab_size, num_classes, family)
    total_bound, total_lower, exact, iterations = 0, 0, True, 0
    all_cores = []
    for t, g in _prepare(tokens, labels):
        n = len(g.y)
        if len(g.classes) == 1:
            total_bound += n
            total_lower += n
            continue
        cores: list[list[int]] = []
        if method == "sound":
            if n > _WINDOW:
                # Large groups: pack inside windows of lexicographically sorted sequences first
                # (small LPs; related sequences sit close), then over everything that is left.
                order = np.lexsort(tokens[g.indices].T[::-1])
                for start in range(0, n, _WINDOW):
                    if (
                        _pack_cores(
                            g,
                            t,
                            tokens,
                            labels,
                            vocab_size,
                            order[start : start + _WINDOW],
                            cores,
                            minimize,
                            deadline,
                        )
                        == "timeout"
                    ):
                        break
            used = {i for c in cores for i in c}
            rest = [i for i in range(n) if i not in used]
            end = _pack_cores(g, t, tokens, labels, vocab_size, rest, cores, minimize, deadline)
            total_bound += n - len(cores)
            # Without any core the whole group is separable: then the bound is attained.
            exact_g = end == "feasible" and not cores
            if exact_g:
                x = _solve_primal(g, np.arange(n))
                exact_g = x is not None and _verify_map_exactly(g, np.arange(n), x)
            exact &= exact_g
            total_lower += n if exact_g else 0
            iterations += 1
        else:
            done = False
            for _ in range(max_iterations):
                iterations += 1
                try:
                    remaining = deadline - time.perf_counter()
                    hit = set(_min_hitting_set(cores, n, time_limit=remaining))
                    rest = [i for i in range(n) if i not in hit]
                    before = len(cores)
                    # One LP first: when the rest is already separable, no seed needs trying.
                    separable = _solve_farkas(g, rest) is None
                except _SolverGaveUp:
                    break
                end = (
                    "feasible"
                    if separable
                    else _pack_cores(
                        g, t, tokens, labels, vocab_size, rest, cores, minimize, deadline
                    )
                )
                if end != "feasible" or len(cores) == before:
                    # No new core: the rest is separable, so the hitting set is optimal.
                    x = _solve_primal(g, np.asarray(rest)) if end == "feasible" else None
                    if x is not None and _verify_map_exactly(g, np.asarray(rest), x):
                        total_bound += len(rest)
                        total_lower += len(rest)
                        done = True
                    break
            if not done:
                exact = False
                try:  # the certified cores still bound the errors: the hitting set, if solvable
                    errors = len(_min_hitting_set(cores, n, max(deadline - time.perf_counter(), 1)))
                except _SolverGaveUp:
                    errors = _disjoint_cores(cores)
                total_bound += n - errors
        all_cores += [[int(g.indices[i]) for i in c] for c in cores]
    B = len(labels)
    lower = total_lower if exact else None
    msg = (
        f"at most {total_bound}/{B} = {total_bound / B:.4f} of the examples can be "
        "classified correctly by "
        f"{family} ({len(all_cores)} certified infeasible subsets"
        + (
            "; exact: the relaxation attains it"
            if exact
            else "; a sound upper bound, perhaps not tight"
        )
        + ")"
    )
    return BoundRecord(
        family=family,
        method=method,
        num_examples=B,
        max_correct=int(total_bound),
        exact=bool(exact),
        lower_bound=lower,
        cores=all_cores,
        iterations=iterations,
        seconds=time.perf_counter() - t0,
        message=msg,
    )
