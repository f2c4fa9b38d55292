"""What a claim is: one statement of a paper, the check that decides it, and the evidence it left.

The claims ledger (:mod:`transformer_theory.claims`, ``transformer-theory claims``) registers every
statement of the six papers the library checks. Each is a :class:`Claim`: an id
(``chen_zou2024.prop7``), the paper and the place (section, equation, theorem), the statement as
printed, the statement as checked (and the correction, where the printed one is wrong), the
status the library expects, the command that reproduces it, and a function ``check(tier)`` that
runs the check and returns :class:`Evidence`.

Statuses, strongest evidence first (:data:`STATUSES`):

- ``proved``: checked in exact arithmetic (an exact dependence, a Farkas certificate re-verified
  in rationals, a construction checked in rationals on every input up to a size); the evidence
  names the sizes covered.
- ``certified``: float results with a rigorous error bound (interval / ball arithmetic for the
  quantities that decide the verdict).
- ``verified``: float64 with a derived tolerance, on ``N`` cases (exhaustive up to a size,
  sampled beyond), the residual and the tolerance reported.
- ``corrected``: the printed statement fails (the evidence holds the witness) and the corrected
  one holds (its own status in ``details["corrected_status"]``).
- ``refuted``: a witness against the statement as the library reads it, re-verified.
- ``measured``: an experiment's result (seeds, spread, the committed results file read), with the
  sentence the paper claims beside what was measured; never a theorem's proof.
- ``open``: not checked, with the reason.

Tiers: ``quick`` checks every claim at small sizes (seconds each, run in CI); ``full`` at the
sizes README quotes (and reads the committed experiment results).

Papers register their claims in ``papers/<paper>/claims.py`` (Chen & Zou 2024's in
``claims/chen_zou2024.py``) as a module-level list ``CLAIMS``.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "REPO_ROOT",
    "RESULTS_DIR",
    "STATUSES",
    "TIERS",
    "Claim",
    "Evidence",
    "arb_matrix",
    "open_claim",
]

# Where the committed experiment records live (``experiments/results/`` of a repository checkout).
# An installed package has no such folder: a claim that reads one then reports ``open``.
REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS_DIR = REPO_ROOT / "experiments" / "results"

STATUSES: tuple[str, ...] = (
    "proved",
    "certified",
    "verified",
    "corrected",
    "refuted",
    "measured",
    "open",
)
TIERS: tuple[str, ...] = ("quick", "full")


@dataclasses.dataclass(frozen=True)
class Evidence:
    """What a check found.

    Attributes:
      status: one of :data:`STATUSES`.
      figure: the one figure a reader needs, as text (``"max residual 8.7e-17 <= tol 4.6e-14"``).
      details: the numbers behind it (sizes covered, number of cases, residual and tolerance,
        witness, results file read); JSON-able.
    """

    status: str
    figure: str
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status: expected one of {', '.join(STATUSES)}, got {self.status!r}")
        if not isinstance(self.figure, str) or not self.figure:
            raise ValueError("figure: expected a non-empty sentence")


@dataclasses.dataclass(frozen=True)
class Claim:
    """One statement of a paper and how the library checks it.

    Attributes:
      id: ``<paper>.<name>``, e.g. ``chen_zou2024.prop7`` (lower case, dots, underscores).
      paper: the citation, ``"Chen & Zou 2024"``.
      place: where the paper states it (``"§11, Proposition 7"``).
      printed: the statement as printed (in words; formulas as the paper writes them).
      checked: the statement as the library checks it (the sizes, the reading taken).
      expected: the status this check should produce (a different one is a regression).
      check: ``tier -> Evidence``; runs the check at that tier's sizes.
      command: the command (or Python line) that reproduces the check.
      correction: what was corrected in the printed statement, if anything.
    """

    id: str
    paper: str
    place: str
    printed: str
    checked: str
    expected: str
    check: Callable[[str], Evidence]
    command: str = ""
    correction: str | None = None

    def __post_init__(self) -> None:
        if not self.id or self.id != self.id.lower() or " " in self.id or "." not in self.id:
            raise ValueError(f"id: expected '<paper>.<name>' in lower case, got {self.id!r}")
        if self.expected not in STATUSES:
            raise ValueError(
                f"expected: expected one of {', '.join(STATUSES)}, got {self.expected!r}"
            )
        if self.expected == "corrected" and not self.correction:
            raise ValueError(f"{self.id}: a corrected claim says what was corrected")

    @property
    def paper_key(self) -> str:
        """The id's first part (``chen_zou2024``): the paper's package name."""
        return self.id.split(".", 1)[0]


def open_claim(
    id: str, paper: str, place: str, printed: str, reason: str, *, command: str = ""
) -> Claim:
    """A claim the library does not check, with the reason (status ``open``)."""

    def check(tier: str) -> Evidence:
        return Evidence("open", reason, {"reason": reason})

    return Claim(
        id=id,
        paper=paper,
        place=place,
        printed=printed,
        checked=f"not checked: {reason}",
        expected="open",
        check=check,
        command=command,
    )


def arb_matrix(a: Any) -> Any:
    """``a`` (float64, 1-D as a column) as a python-flint ball matrix, each entry the exact
    double: the entry point of the claims' ball-arithmetic checks (``certified``)."""
    import flint
    import numpy as np

    arr = np.asarray(a, np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    return flint.arb_mat(arr.tolist())
