"""What the certificate functions return: :class:`Certificate` (a Farkas certificate in integers),
per-group results, and the records of
:func:`~transformer_theory.theory.certificates.certify_dataset` and
:func:`~transformer_theory.theory.certificates.accuracy_upper_bound`; plus the families and the
solver constants.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

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
        }
