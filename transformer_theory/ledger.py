"""What a claim is, and the one rule that turns what its check computed into its status.

The claims ledger (:mod:`transformer_theory.claims`, ``transformer-theory claims``) registers the
statements of the papers the library checks, and the library's own findings about them. Each is a
:class:`Row`: an id, the paper and the place, the paper's statement quoted verbatim (or ``None``
for a statement of the library's own), the statement as checked, its quantifier, a ``check``
(a function of the maths modules that returns :class:`Checked`: numbers plus HOW they were
computed and OVER WHAT), the sizes per tier, and a judge (:mod:`transformer_theory.claims.judges`)
that reads the numbers and says whether the statement holds. Nobody types a status: it is
:func:`derive_status` of the row, the checked record and the verdict.

The rule (every status in CLAIMS.md follows from it mechanically)
-----------------------------------------------------------------

A check declares its **arithmetic** (:data:`ARITHMETICS`):

- ``exact``: integers / rationals (the exact engine :mod:`transformer_theory.exact`, exact LPs);
- ``enclosed``: arb balls enclosing EVERY quantity that decides the verdict (a quantity computed
  in floats is listed in ``Checked.unenclosed``, and the check then counts as ``float``);
- ``float``: floating point with a tolerance derived from the arithmetic (stated in
  ``Checked.tolerance``);
- ``training``: a model trained now (a measurement, never a proof);
- ``record``: a committed result file read from disk (its ``produced_by`` named);
- ``none``: nothing computed.

and its **coverage** (:data:`COVERAGES`) of the domain, stated in words in ``Checked.domain``:
``all`` (every element of the stated finite space), ``upto`` (every element up to a stated size
of a family), ``samples`` (N drawn elements), ``instance`` (one seeded instance), ``none``.

The row declares its statement's **quantifier** (:data:`QUANTIFIERS`): ``finite`` (about one
finite object or space, which ``all`` coverage exhausts), ``infinite`` (for all sizes ``n``: no
finite check exhausts it), ``exists`` (one witness decides it), ``empirical`` (about trained
models). And its **source**: the paper's printed words (``printed`` set, verbatim, with ``place``)
or the library's own statement (``printed=None``).

Then, with ``holds`` the judge's verdict on the checked statement:

====================  ==========================================================================
status                exactly when
====================  ==========================================================================
``open``              nothing was computed (arithmetic ``none``) or the judge cannot decide
``measured``          arithmetic ``training`` or ``record``: numbers against a stated rule,
                      whatever they say -- never a theorem
``proved``            holds; ``exact``; the statement's whole domain covered (``finite`` with
                      ``all``, or ``exists`` with its witness)
``certified``         as ``proved`` with ``enclosed`` arithmetic
``bounded``           holds; ``exact`` or ``enclosed``; ``infinite`` statement covered ``all`` /
                      ``upto`` a stated size: proved up to that size, and it says so
``verified``          holds; ``float`` over ``all`` / ``upto`` / ``samples``, or any arithmetic
                      over ``samples``
``example``           holds on one seeded ``instance`` of a statement about more than one
``corrected``         the paper's printed statement fails (by a check at least ``verified``) and
                      the row's stated correction holds
``refuted``           the paper's printed statement fails, witnessed by ``exact``, ``enclosed``
                      or ``float`` arithmetic (one counterexample decides a for-all)
``finding``           a statement of the library's own (``printed=None``, phrased as what was
                      found) that holds at ``verified`` strength or better; its strength is in
                      the row's columns. Not reproduced (the judge says it fails): ``open``
====================  ==========================================================================

``corrected`` and ``refuted`` need the paper's verbatim words and place (:class:`Row` refuses a
correction without them). The strength a ``corrected`` or ``finding`` row reached is recorded as
``strength`` beside the status.

Tiers (:data:`TIERS`): ``quick`` (seconds a claim; the test suite) and ``full`` (the sizes README
quotes; writes CLAIMS.md). A check never sees the tier: it receives the tier's sizes.
"""

from __future__ import annotations

import dataclasses
import pathlib
import string
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "ARITHMETICS",
    "COVERAGES",
    "QUANTIFIERS",
    "REPO_ROOT",
    "RESULTS_DIR",
    "STATUSES",
    "STRENGTHS",
    "TIERS",
    "Checked",
    "Row",
    "Verdict",
    "derive_status",
    "open_claim",
    "strength",
]

# Where the committed experiment records live: ``experiments/results/`` of a repository checkout,
# else the copy a wheel carries as package data (``setup.py`` puts it in ``_results/``).
REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
_CHECKOUT_RESULTS = REPO_ROOT / "experiments" / "results"
RESULTS_DIR = (
    _CHECKOUT_RESULTS
    if _CHECKOUT_RESULTS.is_dir()
    else pathlib.Path(__file__).resolve().parent / "_results"
)

ARITHMETICS: tuple[str, ...] = ("exact", "enclosed", "float", "training", "record", "none")
COVERAGES: tuple[str, ...] = ("all", "upto", "samples", "instance", "none")
QUANTIFIERS: tuple[str, ...] = ("finite", "infinite", "exists", "empirical")
# The strength a check reached, strongest first (what the arithmetic and coverage allow).
STRENGTHS: tuple[str, ...] = ("proved", "certified", "bounded", "verified", "example", "measured")
STATUSES: tuple[str, ...] = (
    "proved",
    "certified",
    "bounded",
    "verified",
    "example",
    "corrected",
    "refuted",
    "finding",
    "measured",
    "open",
)
# Statuses that need a mutant test (stronger than ``measured``): every one but measured/open.
TESTED_BY_MUTANT: tuple[str, ...] = STATUSES[:8]
TIERS: tuple[str, ...] = ("quick", "full")


@dataclasses.dataclass(frozen=True)
class Checked:
    """What a check computed, how, and over what.

    Attributes:
      arithmetic: one of :data:`ARITHMETICS`.
      coverage: one of :data:`COVERAGES`.
      domain: the domain in words, with its size (``"every sequence of length <= 6 over {a, b}
        (126 inputs)"``, ``"seed 0: one random instance"``, ``"experiments/results/x.json,
        produced by ..."``).
      values: the numbers the judge reads (JSON-able).
      tolerance: for ``float``: the tolerance and why (``"64 u n = 1.4e-14 (n = 10 sums)"``).
      unenclosed: for ``enclosed``: quantities that decide the verdict but were computed in floats
        (then the check counts as ``float``).
    """

    arithmetic: str
    coverage: str
    domain: str
    values: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    tolerance: str | None = None
    unenclosed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.arithmetic not in ARITHMETICS:
            raise ValueError(
                f"arithmetic: expected one of {', '.join(ARITHMETICS)}, got {self.arithmetic!r}"
            )
        if self.coverage not in COVERAGES:
            raise ValueError(
                f"coverage: expected one of {', '.join(COVERAGES)}, got {self.coverage!r}"
            )
        if not isinstance(self.domain, str) or not self.domain:
            raise ValueError("domain: expected the domain in words")
        if self.arithmetic == "float" and not self.tolerance:
            raise ValueError("tolerance: a float check states its tolerance and why")

    @property
    def effective_arithmetic(self) -> str:
        """``enclosed`` with a float quantity deciding the verdict counts as ``float``."""
        if self.arithmetic == "enclosed" and self.unenclosed:
            return "float"
        return self.arithmetic


@dataclasses.dataclass(frozen=True)
class Verdict:
    """A judge's reading of a :class:`Checked`.

    Attributes:
      holds: the checked statement holds (``True``), fails (``False``), or cannot be decided
        (``None``).
      figure: the one figure a reader needs, as text.
      printed_holds: for a row with a correction: whether the paper's printed statement holds.
    """

    holds: bool | None
    figure: str
    printed_holds: bool | None = None


def strength(checked: Checked, quantifier: str) -> str:
    """The strongest word the check's arithmetic and coverage allow (:data:`STRENGTHS`)."""
    if quantifier not in QUANTIFIERS:
        raise ValueError(
            f"quantifier: expected one of {', '.join(QUANTIFIERS)}, got {quantifier!r}"
        )
    a, c = checked.effective_arithmetic, checked.coverage
    if a in ("training", "record") or quantifier == "empirical":
        return "measured"
    if a == "none" or c == "none":
        return "measured"
    if quantifier == "exists" and c != "none":
        return {"exact": "proved", "enclosed": "certified", "float": "verified"}[a]
    if c == "instance":
        return "example"
    if c == "samples" or a == "float":
        return "verified"
    if quantifier == "finite" and c == "all":
        return "proved" if a == "exact" else "certified"
    return "bounded"  # exact or enclosed over all / upto of an infinite family


def derive_status(row: Row, checked: Checked, verdict: Verdict) -> tuple[str, str]:
    """``(status, strength)``: the ledger's rule (module docstring), applied mechanically."""
    s = strength(checked, row.quantifier)
    if checked.arithmetic == "none" or verdict.holds is None:
        return "open", s
    if s == "measured":
        return "measured", s
    decisive = s in ("proved", "certified", "bounded", "verified")
    if row.printed is None:
        # a library statement is phrased as what was found: reproduced, or not (then open)
        if not verdict.holds:
            return "open", s
        return ("finding" if decisive else s), s
    if row.correction:
        if verdict.printed_holds is False and verdict.holds and decisive:
            return "corrected", s
        if verdict.printed_holds is False and not verdict.holds:
            return "refuted", s
        if verdict.printed_holds:  # the correction turned out unnecessary
            return s, s
        return "open", s
    if verdict.holds:
        return s, s
    # a counterexample decides a for-all statement whatever the coverage
    witnessed = checked.effective_arithmetic in ("exact", "enclosed", "float")
    return ("refuted" if witnessed else "open"), s


def _sizes_text(sizes: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {_fmt(v)}" for k, v in sizes.items()) if sizes else "fixed sizes"


@dataclasses.dataclass(frozen=True)
class Row:
    """One claim as a declarative row.

    Attributes:
      id: ``<paper>.<name>`` in lower case.
      paper: the citation (``"Chen & Zou 2024"``).
      place: where the paper states it (section, equation, theorem).
      statement: the statement as the library checks it (its reading, sizes left to ``sizes``).
      quantifier: one of :data:`QUANTIFIERS`.
      check: ``check(**sizes) -> Checked``; lives beside the maths it checks, never sees a tier.
      judge: ``judge(checked) -> Verdict`` (a shared judge of :mod:`.claims.judges`).
      sizes: ``{tier: {name: value}}`` passed to ``check``; a tier missing reuses ``quick``.
      expected: the status the rule should give (a different one is a regression).
      printed: the paper's words, verbatim; ``None`` for a statement of the library's own.
      correction: what was corrected in the printed statement (needs ``printed``).
      command: a command reproducing the check, formatted with the tier's sizes
        (``"transformer-theory verify --datasets {datasets}"``); default: the claims command.
      note: what the row does NOT show, or context a reader needs.
    """

    id: str
    paper: str
    place: str
    statement: str
    quantifier: str
    check: Callable[..., Checked]
    judge: Callable[[Checked], Verdict]
    sizes: Mapping[str, Mapping[str, Any]]
    expected: str
    printed: str | None = None
    correction: str | None = None
    command: str | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if not self.id or self.id != self.id.lower() or " " in self.id or "." not in self.id:
            raise ValueError(f"id: expected '<paper>.<name>' in lower case, got {self.id!r}")
        if self.quantifier not in QUANTIFIERS:
            raise ValueError(
                f"{self.id}: quantifier: expected one of {', '.join(QUANTIFIERS)}, "
                f"got {self.quantifier!r}"
            )
        if self.expected not in STATUSES:
            raise ValueError(f"{self.id}: expected: not a status: {self.expected!r}")
        if self.correction and not self.printed:
            raise ValueError(f"{self.id}: a correction needs the paper's printed words")
        if self.expected in ("corrected", "refuted") and not (self.printed and self.place):
            raise ValueError(f"{self.id}: {self.expected} needs the printed words and the place")
        if self.expected == "corrected" and not self.correction:
            raise ValueError(f"{self.id}: a corrected claim says what was corrected")
        if self.expected == "finding" and self.printed:
            raise ValueError(f"{self.id}: a finding is a statement the paper does not print")
        if "quick" not in self.sizes:
            raise ValueError(f"{self.id}: sizes: expected a 'quick' tier")

    @property
    def paper_key(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def source(self) -> str:
        return "paper" if self.printed else "library"

    def tier_sizes(self, tier: str) -> dict[str, Any]:
        if tier not in TIERS:
            raise ValueError(f"tier: expected one of {', '.join(TIERS)}, got {tier!r}")
        return dict(self.sizes.get(tier, self.sizes["quick"]))

    def command_for(self, tier: str) -> str:
        """The reproducing command, generated from the tier's sizes."""
        sizes = self.tier_sizes(tier)
        if self.command:
            fields = {f for _, f, _, _ in string.Formatter().parse(self.command) if f}
            return self.command.format(**{k: _fmt(sizes[k]) for k in fields})
        return f"transformer-theory claims --id {self.id} --tier {tier}"

    def checked_sentence(self, tier: str) -> str:
        """The statement as checked at ``tier``: generated from the sizes, so it cannot drift."""
        return f"{self.statement} [{_sizes_text(self.tier_sizes(tier))}]"

    def run(self, tier: str = "quick") -> tuple[Checked, Verdict, str, str]:
        """Check at ``tier``: ``(checked, verdict, status, strength)``."""
        checked = self.check(**self.tier_sizes(tier))
        if not isinstance(checked, Checked):
            raise TypeError(f"{self.id}: check returned {type(checked).__name__}, not Checked")
        verdict = self.judge(checked)
        status, s = derive_status(self, checked, verdict)
        return checked, verdict, status, s


def _fmt(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v)


def open_claim(
    id: str,
    paper: str,
    place: str,
    printed: str | None,
    reason: str,
    *,
    statement: str | None = None,
    command: str | None = None,
) -> Row:
    """A row the library does not check, with the reason (status ``open``)."""

    def check() -> Checked:
        return Checked("none", "none", f"not checked: {reason}", {"reason": reason})

    def judge(checked: Checked) -> Verdict:
        return Verdict(None, reason)

    return Row(
        id=id,
        paper=paper,
        place=place,
        statement=statement or (printed or reason),
        quantifier="empirical",
        check=check,
        judge=judge,
        sizes={"quick": {}},
        expected="open",
        printed=printed,
        command=command,
        note=reason,
    )
