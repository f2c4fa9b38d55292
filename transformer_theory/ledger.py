"""What a claim is, and the one rule that turns what its check computed into its status.

The claims ledger (:mod:`transformer_theory.claims`, ``transformer-theory claims``) registers the
statements of the papers the library checks, and the library's own findings about them. Each is a
:class:`Row`: an id, the paper and the place, the paper's statement quoted verbatim (or ``None``
for a statement of the library's own), the statement as checked, the statement's **domain** (a
:class:`~transformer_theory.domains.Domain` object: what the statement quantifies over), a
``check`` (a function beside the maths it checks, returning :class:`Checked`: the numbers, the
arithmetic they were computed in, and the sub-domain covered, counted element by element in a
:class:`~transformer_theory.domains.Tally`), the sizes per tier, and a judge
(:mod:`transformer_theory.claims.judges`) that reads the numbers and says whether the statement
holds. Nobody types a status, a quantifier or a coverage word: the status is
:func:`derive_status` of the row, the checked record and the verdict, and the words are generated
from the domain objects.

What the rule reads, and where each input comes from
----------------------------------------------------

- the **quantifier** of the statement, from ``Row.domain`` (:func:`~transformer_theory.domains.
  statement_kind`): ``finite``, ``infinite`` (an unbounded family: "for every n"), ``continuum``
  (a set of reals: "for every eps > 0", "every weight matrix"), ``exists`` ("there exists a
  transformer ..."), ``empirical`` (trained models, a committed record). Where the row quotes
  the paper, ``Row.domain`` is the domain of the PRINTED words, not of the instance checked: a
  for-all over every ``q, N`` is a :class:`~transformer_theory.domains.Family`, however small
  the checked instance.
- the **arithmetic** (:data:`ARITHMETICS`): ``exact`` (integers / rationals: the exact engine
  :mod:`transformer_theory.exact`, exact LPs), ``enclosed`` (arb balls enclosing every quantity
  that decides the verdict; a quantity computed in floats is listed in ``Checked.unenclosed`` and
  the check then counts as ``float``), ``float`` (with a stated tolerance), ``training``,
  ``record``, ``none``.
- the **coverage**, from the covered sub-domain's relation to the statement's domain
  (:func:`~transformer_theory.domains.relation`, :data:`~transformer_theory.domains.RELATIONS`):
  ``all`` (the whole finite domain, or a continuum enclosed whole), ``upto`` (every element at
  several sizes of a family, listed), ``grid`` (a finite grid of a continuum), ``samples``,
  ``instance`` (one element, or ONE size of a family), ``none`` (not a sub-domain of the
  statement's domain).
- **completeness**: the covered sub-domain's elements recorded by the check, against the
  sub-domain's own size (:attr:`~transformer_theory.domains.Tally.complete`).
- the check's **self-consistency**: every :class:`Witness` (a value the check achieved, such as a
  sampled error or a lower bound) on the right side of the bound it certified. An ``enclosed``
  check must carry at least one.
- the **engine's soundness**, for an ``enclosed`` check: the operations of the exact engine whose
  enclosures miss independently computed values (:func:`transformer_theory.claims.engine.
  faults`: the engine's own rows ``exact.ball_*``, run small on seeded inputs). An enclosure
  computed by an unsound engine encloses nothing.
- what the check ran (``Checked.subject``): ``printed`` (the paper's printed object: its formula,
  its weights, its bound) or ``library`` (the library's construction or reading); and
  ``Checked.impossibility`` (the failure is an impossibility certificate, exact or enclosed).
- the judge's :class:`Verdict`: ``holds`` (``True`` / ``False`` / ``None`` undecided) and, for a
  row with a correction, ``printed_holds``.

The rule (every status in CLAIMS.md follows from it mechanically, in this order)
--------------------------------------------------------------------------------

The **strength** the arithmetic and the coverage allow (:func:`strength`):

====================================================  ==========================
arithmetic, coverage                                  strength
====================================================  ==========================
``training`` / ``record``, or an empirical statement  ``measured``
``instance`` (one element, one size of a family)      ``example``
``float`` (any other coverage), or ``samples``        ``verified``
``grid`` (exact / enclosed at every grid point)       ``gridded``
``upto`` (exact / enclosed)                           ``bounded``
``all``, exact / enclosed                             ``proved`` / ``certified``
====================================================  ==========================

Then the status:

==================  ===============================================================================
status              exactly when
==================  ===============================================================================
``open``            nothing was computed (arithmetic ``none``), or the judge cannot decide
``measured``        a measurement (strength ``measured``), whatever the numbers say
``failed``          the LIBRARY failed: the check covered less than its sub-domain (an element
                    skipped, counted twice, or outside it) of a statement it says holds (a check
                    that stops at its first counterexample decides a failure with it), or a
                    sub-domain that is not part of the statement's domain; a witness lies
                    outside the bound the check certified (the check is unsound); an enclosed
                    check while the exact engine's own rows find an enclosure unsound; the library's
                    construction or reading of a printed statement fails (a failed construction
                    refutes nothing: not an existence statement, not a printed for-all); a
                    correction fails, or turns out unneeded
``unreproduced``    a finding of the library's own whose check ran and found it false
``refuted``         a printed statement fails on the PRINTED object (``subject="printed"``) by an
                    exact, enclosed or float witness; an existential printed statement only by an
                    impossibility certificate (exact or enclosed)
``corrected``       the printed statement fails on the printed object and the row's correction
                    holds; its strength is recorded beside it
``finding``         a statement of the library's own that holds at ``verified`` strength or better
``proved`` ...      a printed statement that holds: its strength (``proved``, ``certified``,
                    ``bounded``, ``gridded``, ``verified``, ``example``)
==================  ===============================================================================

``corrected`` and ``refuted`` need the paper's verbatim words and place (:class:`Row` refuses a
correction without them); a row never expects ``failed`` or ``unreproduced`` (those are always
regressions). :func:`derive_status` returns the status, the strength and the reason in words.

Tiers (:data:`TIERS`): ``quick`` (seconds a claim; the test suite) and ``full`` (the sizes README
quotes; writes CLAIMS.md). A check never sees the tier: it receives the tier's sizes.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from transformer_theory import domains as _domains
from transformer_theory.domains import (
    RELATIONS,
    Continuum,
    Counted,
    Domain,
    Enumerated,
    Exists,
    Family,
    Filtered,
    Grid,
    Product,
    Record,
    Strings,
    Tally,
    Trained,
    relation,
    statement_kind,
)

__all__ = [
    "ARITHMETICS",
    "COVERAGES",
    "QUANTIFIERS",
    "REPO_ROOT",
    "RESULTS_DIR",
    "STATUSES",
    "STRENGTHS",
    "SUBJECTS",
    "TIERS",
    "Checked",
    "Continuum",
    "Counted",
    "Derivation",
    "Domain",
    "Enumerated",
    "Exists",
    "Family",
    "Filtered",
    "Grid",
    "Product",
    "Record",
    "Row",
    "Strings",
    "Tally",
    "Trained",
    "Verdict",
    "Witness",
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
#: The coverage words: how a covered sub-domain relates to the statement's domain.
COVERAGES: tuple[str, ...] = RELATIONS
QUANTIFIERS: tuple[str, ...] = ("finite", "infinite", "continuum", "exists", "empirical")
#: What a check ran: the paper's printed object, or the library's construction / reading.
SUBJECTS: tuple[str, ...] = ("library", "printed")
# The strength a check reached, strongest first (what the arithmetic and coverage allow).
STRENGTHS: tuple[str, ...] = (
    "proved",
    "certified",
    "bounded",
    "gridded",
    "verified",
    "example",
    "measured",
)
_DECISIVE = ("proved", "certified", "bounded", "gridded", "verified")
STATUSES: tuple[str, ...] = (
    "proved",
    "certified",
    "bounded",
    "gridded",
    "verified",
    "example",
    "corrected",
    "refuted",
    "finding",
    "failed",
    "unreproduced",
    "measured",
    "open",
)
#: What each status means, in one line (CLAIMS.md's legend and the docs pages).
STATUS_WORDS: dict[str, str] = {
    "proved": "holds on the statement's whole finite domain, in exact arithmetic",
    "certified": "holds on the whole domain, every deciding quantity enclosed in arb balls",
    "bounded": "holds on every element at each listed size of an unbounded family (exact or "
    "enclosed): proved up to that size only",
    "gridded": "a statement about real numbers, shown exactly (or enclosed) at every point of a "
    "stated finite grid only",
    "verified": "holds in floating point with a stated tolerance, or on seeded samples",
    "example": "holds on one instance (one seed, one size) of a statement about more",
    "corrected": "the printed statement fails on the printed object; the stated correction holds",
    "refuted": "the printed statement fails on the printed object (a witness)",
    "finding": "a statement of the library's own, reproduced at verified strength or better",
    "failed": "the library failed: its construction, reading or correction, or its check "
    "(incomplete coverage, a witness outside its own bound); the paper is not refuted",
    "unreproduced": "a finding of the library's own that its check found false",
    "measured": "a measurement (training run, committed record): numbers, never a theorem",
    "open": "nothing computed, or the judge cannot decide",
}
#: Statuses a row may expect that need a mutant test: every one stronger than ``measured``.
_NEVER_EXPECTED = ("failed", "unreproduced")
TESTED_BY_MUTANT: tuple[str, ...] = tuple(
    s for s in STATUSES if s not in (*_NEVER_EXPECTED, "measured", "open")
)
TIERS: tuple[str, ...] = ("quick", "full")


def _as_bool(value: Any, name: str) -> bool | None:
    """``True`` / ``False`` / ``None``; numpy booleans accepted; anything else refused."""
    if value is None or isinstance(value, bool):
        return value
    if type(value).__name__ in ("bool_", "bool") and hasattr(value, "item"):
        return bool(value.item())
    raise ValueError(f"{name}: expected True, False or None, got {value!r}")


@dataclasses.dataclass(frozen=True)
class Witness:
    """A value the check achieved that must lie on the right side of a bound it certified.

    ``side="below"``: ``value <= bound`` (a sampled error below a certified upper bound);
    ``"above"``: ``value >= bound`` (an achieved value above a certified lower bound);
    ``"inside"``: ``value`` inside ``bound``, an arb ball or a ``(lo, hi)`` pair (a float
    evaluation inside the enclosure, widened by its tolerance where one is given as ``slack``).
    Values may be ints, Fractions, floats, ``"p/q"`` strings, arb balls or their printed form
    (``"[0.333 +/- 4e-4]"``, which contains the ball printed). The ledger calls
    :meth:`holds`; ``False`` (certainly on the wrong side) makes the check unsound.
    """

    name: str
    value: Any
    bound: Any
    side: str = "below"
    slack: Any = 0

    def __post_init__(self) -> None:
        if self.side not in ("below", "above", "inside"):
            raise ValueError(f"side: expected below, above or inside, got {self.side!r}")

    def holds(self) -> bool | None:
        """``False`` only where the value is CERTAINLY on the wrong side of the bound."""
        v = _ball(self.value)
        s = _ball(self.slack)
        if v is None or s is None:
            return None
        if self.side == "inside":
            if isinstance(self.bound, (tuple, list)) and len(self.bound) == 2:
                lo, hi = _ball(self.bound[0]), _ball(self.bound[1])
            else:
                b = _ball(self.bound)
                if b is None:
                    return None
                lo, hi = b - b.rad(), b + b.rad()
            if lo is None or hi is None:
                return None
            return not (v < lo - s or v > hi + s)
        b = _ball(self.bound)
        if b is None:
            return None
        return not (v > b + s) if self.side == "below" else not (v < b - s)

    def text(self) -> str:
        rel = {"below": "<=", "above": ">=", "inside": "in"}[self.side]
        return f"{self.name}: {self.value} {rel} {self.bound}"


def _ball(x: Any) -> Any:
    """An arb ball holding ``x`` exactly or enclosing it; ``None`` for a NaN or a non-number."""
    import flint

    if isinstance(x, flint.arb):
        return x
    if isinstance(x, bool):
        return None
    from fractions import Fraction

    if isinstance(x, str):
        if x.startswith("["):  # an arb ball as arb prints it: the printed ball contains it
            try:
                return flint.arb(x)
            except (ValueError, TypeError):
                return None
        try:
            x = Fraction(x)
        except (ValueError, ZeroDivisionError):
            return None
    if isinstance(x, Fraction):
        return flint.arb(x.numerator) / x.denominator
    if isinstance(x, int):
        return flint.arb(x)
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    if math.isnan(f):
        return None
    if math.isinf(f):
        return None
    return flint.arb(f)


_WITH_TALLY = (Tally,)
_WHOLE_DOMAINS = (_domains.Instance, _domains.Enclosure, Record, Trained)


@dataclasses.dataclass(frozen=True, init=False)
class Checked:
    """What a check computed, how, and over what.

    ``Checked(arithmetic, covered, values, *, tolerance=None, unenclosed=(), subject="library",
    impossibility=False, witnesses=())``

    Attributes:
      arithmetic: one of :data:`ARITHMETICS`.
      covered: what the check went through: a :class:`~transformer_theory.domains.Tally` of the
        finite sub-domain it evaluated element by element; or, whole, an ``instance`` /
        ``enclosure`` of a domain, a :class:`~transformer_theory.domains.Record` or
        :class:`~transformer_theory.domains.Trained` (measurements), or any domain where
        nothing was computed (``arithmetic="none"``).
      values: the numbers the judge reads (JSON-able).
      tolerance: for ``float``: the tolerance and why (``"64 u n = 1.4e-14 (n = 10 sums)"``).
      unenclosed: for ``enclosed``: quantities that decide the verdict but were computed in floats
        (then the check counts as ``float``).
      subject: ``"printed"`` where the check evaluated the paper's printed object (its formula,
        weights or bound), so that a counterexample refutes the printed words; ``"library"``
        (default) where it ran the library's construction or reading.
      impossibility: the check's negative result is an impossibility certificate (exact or
        enclosed): the only thing that refutes an existence statement.
      witnesses: :class:`Witness` values the check achieved beside its certified bounds; an
        ``enclosed`` check carries at least one (also one with ``unenclosed`` quantities).

    There is no form with a coverage word or the domain in words: both follow from the objects.
    """

    arithmetic: str
    covered: Any
    values: Mapping[str, Any]
    tolerance: str | None
    unenclosed: tuple[str, ...]
    subject: str
    impossibility: bool
    witnesses: tuple[Witness, ...]

    def __init__(
        self,
        arithmetic: str,
        covered: Any,
        *args: Any,
        values: Mapping[str, Any] | None = None,
        tolerance: str | None = None,
        unenclosed: tuple[str, ...] = (),
        subject: str = "library",
        impossibility: bool = False,
        witnesses: tuple[Witness, ...] | list[Witness] = (),
        domain: str | None = None,
    ) -> None:
        if isinstance(covered, str) or domain is not None:
            raise ValueError(
                "covered: a coverage word and a domain in words are not accepted: give a Tally "
                "of the sub-domain the check evaluated (or an instance, an enclosure, a Record, "
                "Trained models)"
            )
        if True:
            if len(args) > 1:
                raise TypeError("Checked: expected (arithmetic, covered, values)")
            if args:
                values = args[0]
            if not isinstance(covered, (Tally, Domain)):
                raise ValueError(
                    f"covered: expected a Tally or a Domain, got {type(covered).__name__}"
                )
            if (
                isinstance(covered, Domain)
                and arithmetic not in ("none", "training", "record")
                and not isinstance(covered, _WHOLE_DOMAINS)
            ):
                raise ValueError(
                    f"covered: {covered.words()}: count the elements a check evaluates with a "
                    "Tally (only an instance, an enclosure, a record or trained models are "
                    "covered whole)"
                )
        object.__setattr__(self, "arithmetic", arithmetic)
        object.__setattr__(self, "covered", covered)
        object.__setattr__(self, "values", dict(values or {}))
        object.__setattr__(self, "tolerance", tolerance)
        object.__setattr__(self, "unenclosed", tuple(unenclosed))
        object.__setattr__(self, "subject", subject)
        object.__setattr__(self, "impossibility", bool(impossibility))
        object.__setattr__(self, "witnesses", tuple(witnesses))
        self._validate()

    def _validate(self) -> None:
        if self.arithmetic not in ARITHMETICS:
            raise ValueError(
                f"arithmetic: expected one of {', '.join(ARITHMETICS)}, got {self.arithmetic!r}"
            )
        if self.arithmetic == "float" and not self.tolerance:
            raise ValueError("tolerance: a float check states its tolerance and why")
        if self.subject not in SUBJECTS:
            raise ValueError(
                f"subject: expected one of {', '.join(SUBJECTS)}, got {self.subject!r}"
            )
        if not all(isinstance(w, Witness) for w in self.witnesses):
            raise ValueError("witnesses: expected Witness objects")
        if self.impossibility and self.arithmetic not in ("exact", "enclosed"):
            raise ValueError("impossibility: a certificate is exact or enclosed")
        if self.arithmetic == "enclosed" and not self.witnesses:
            # also where a float quantity makes the check count as float: what it did enclose
            # is compared with a value it achieved, or a broken bound goes unseen
            raise ValueError(
                "witnesses: an enclosed check confirms at least one witness inside its "
                "certified bound"
            )

    @property
    def effective_arithmetic(self) -> str:
        """``enclosed`` with a float quantity deciding the verdict counts as ``float``."""
        if self.arithmetic == "enclosed" and self.unenclosed:
            return "float"
        return self.arithmetic

    @property
    def covered_domain(self) -> Domain | None:
        return self.covered.domain if isinstance(self.covered, Tally) else self.covered

    @property
    def domain(self) -> str:
        """The covered sub-domain in words (generated from the object)."""
        words = self.covered_domain.words()
        if isinstance(self.covered, Tally) and not self.covered.complete:
            words += f" [incomplete: {self.covered.shortfall()}]"
        return words

    def coverage_against(self, statement: Domain | None) -> str:
        """The coverage word: the covered sub-domain's relation to ``statement``."""
        if self.arithmetic == "none" or statement is None:
            return "none"
        return relation(statement, self.covered_domain)


@dataclasses.dataclass(frozen=True)
class Verdict:
    """A judge's reading of a :class:`Checked`.

    Attributes:
      holds: the checked statement holds (``True``), fails (``False``), or cannot be decided
        (``None``); numpy booleans are accepted, anything else (``"no"``, NaN) is refused.
      figure: the one figure a reader needs, as text.
      printed_holds: for a row with a correction: whether the paper's printed statement holds.
    """

    holds: bool | None
    figure: str
    printed_holds: bool | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "holds", _as_bool(self.holds, "holds"))
        object.__setattr__(self, "printed_holds", _as_bool(self.printed_holds, "printed_holds"))
        if not isinstance(self.figure, str):
            raise ValueError(f"figure: expected text, got {type(self.figure).__name__}")


def strength(arithmetic: str, coverage: str, quantifier: str = "finite") -> str:
    """The strongest word an ``arithmetic`` over a ``coverage`` of a statement with
    ``quantifier`` allows (:data:`STRENGTHS`; the module docstring's first table)."""
    if arithmetic not in ARITHMETICS:
        raise ValueError(
            f"arithmetic: expected one of {', '.join(ARITHMETICS)}, got {arithmetic!r}"
        )
    if coverage not in COVERAGES:
        raise ValueError(f"coverage: expected one of {', '.join(COVERAGES)}, got {coverage!r}")
    if quantifier not in QUANTIFIERS:
        raise ValueError(
            f"quantifier: expected one of {', '.join(QUANTIFIERS)}, got {quantifier!r}"
        )
    if arithmetic in ("training", "record", "none") or quantifier == "empirical":
        return "measured"
    if coverage == "none":
        return "measured"
    if coverage == "instance":
        return "example"
    if arithmetic == "float" or coverage == "samples":
        return "verified"
    if coverage == "grid":
        return "gridded"
    if coverage == "upto":
        return "bounded"
    return "proved" if arithmetic == "exact" else "certified"


class Derivation(NamedTuple):
    """What :func:`derive_status` gives: the status, the strength the check reached, and why."""

    status: str
    strength: str
    reason: str


def derive_status(
    row: Row, checked: Checked, verdict: Verdict, *, engine_faults: Sequence[str] = ()
) -> Derivation:
    """``(status, strength, reason)``: the ledger's rule (module docstring), applied in order.

    ``engine_faults``: the exact engine's operations found unsound
    (:func:`transformer_theory.claims.engine.faults`; :meth:`Row.evaluate` passes them for an
    ``enclosed`` check)."""
    a = checked.effective_arithmetic
    quantifier = row.quantifier
    coverage = checked.coverage_against(row.domain)
    s = strength(a, coverage, quantifier)
    if a == "none":
        return Derivation("open", s, "nothing was computed")
    if verdict.holds is None:
        return Derivation("open", s, "the judge cannot decide from what was computed")
    if s == "measured" and a in ("training", "record"):
        return Derivation("measured", s, f"a measurement ({a}): numbers, never a theorem")
    if quantifier == "empirical":
        return Derivation("measured", s, "an empirical statement: a measurement")
    # the check's own soundness, before anything it says about the statement
    # an incomplete tally fails a statement the check says holds; a check that stopped at its
    # first counterexample decides a failure with that one witness (strangers never count)
    tally = checked.covered if isinstance(checked.covered, Tally) else None
    if tally is not None and not tally.complete and (verdict.holds or tally.strangers):
        return Derivation("failed", s, f"the library's check is incomplete: {tally.shortfall()}")
    if coverage == "none":
        return Derivation(
            "failed",
            s,
            f"the check covered {checked.covered_domain.words()}, which is not a sub-domain of "
            f"the statement's domain ({row.domain.words()})",
        )
    if checked.arithmetic == "enclosed" and engine_faults:
        return Derivation(
            "failed",
            s,
            "the exact engine is unsound: its enclosures of "
            + ", ".join(engine_faults)
            + " miss the independently computed values (rows exact.ball_*), so nothing it "
            "enclosed is certified",
        )
    broken = [w for w in checked.witnesses if w.holds() is False]
    if broken:
        return Derivation(
            "failed",
            s,
            "the library's check is unsound: "
            + "; ".join(f"witness {w.text()} fails" for w in broken),
        )
    # a statement of the library's own
    if row.printed is None:
        if verdict.holds:
            if s in _DECISIVE:
                return Derivation("finding", s, "the library's statement holds")
            return Derivation(s, s, "the library's statement holds at this strength only")
        return Derivation("unreproduced", s, "the library's finding was checked and is false")
    # a printed statement with the library's correction
    if row.correction:
        if verdict.printed_holds is None:
            return Derivation("open", s, "the judge did not decide the printed statement")
        if verdict.printed_holds:
            return Derivation(
                "failed", s, "the printed statement holds: the library's correction is not needed"
            )
        if checked.subject != "printed":
            return Derivation(
                "failed",
                s,
                "the check did not run the printed object, so its failure is the library's",
            )
        if not verdict.holds:
            return Derivation("failed", s, "the printed statement fails and so does the correction")
        return Derivation("corrected", s, "the printed statement fails; the correction holds")
    if verdict.holds:
        return Derivation(s, s, "the printed statement holds at this strength")
    # a printed statement that fails
    if quantifier == "exists":
        if checked.impossibility:
            return Derivation("refuted", s, "an impossibility certificate refutes the existence")
        return Derivation(
            "failed",
            s,
            "the library's candidate witness fails; a failed construction refutes no existence "
            "statement",
        )
    if checked.subject == "printed" and a in ("exact", "enclosed", "float"):
        return Derivation("refuted", s, "the printed object fails on a witness")
    return Derivation(
        "failed",
        s,
        "the library's construction or reading fails; the printed statement is not refuted",
    )


def _sizes_text(sizes: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {_fmt(v)}" for k, v in sizes.items()) if sizes else "fixed sizes"


class Outcome(NamedTuple):
    """A row checked at a tier: what was computed, the verdict, and the derived status."""

    checked: Checked
    verdict: Verdict
    status: str
    strength: str
    reason: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Row:
    """One claim as a declarative row.

    Attributes:
      id: ``<paper>.<name>`` in lower case.
      paper: the citation (``"Chen & Zou 2024"``).
      place: where the paper states it (section, equation, theorem).
      statement: the statement as the library checks it (its reading, sizes left to ``sizes``).
      domain: the :class:`~transformer_theory.domains.Domain` the statement quantifies over --
        of the PRINTED words where the row quotes the paper (a for-all over every size is a
        :class:`~transformer_theory.domains.Family`; over the reals a
        :class:`~transformer_theory.domains.Continuum`; "there exists" an
        :class:`~transformer_theory.domains.Exists`). Its quantifier is read from it
        (:attr:`quantifier`, set from the domain, never declared).
      check: ``check(**sizes) -> Checked`` (with ``covers``: ``check(tally, **sizes)``); lives
        beside the maths it checks, never sees a tier.
      judge: ``judge(checked) -> Verdict`` (a shared judge of :mod:`.claims.judges`).
      sizes: ``{tier: {name: value}}`` passed to ``check``; a tier missing reuses ``quick``.
      expected: the status the rule should give (a different one is a regression); never
        ``failed`` or ``unreproduced``.
      printed: the paper's words, verbatim; ``None`` for a statement of the library's own.
      correction: what was corrected in the printed statement (needs ``printed``).
      command: a command reproducing the check, formatted with the tier's sizes
        (``"transformer-theory verify --datasets {datasets}"``); default: the claims command.
      note: what the row does NOT show, or context a reader needs.
      quantifier: read from ``domain`` (:func:`~transformer_theory.domains.statement_kind`);
        never declared (``dataclasses.replace`` may pass the derived word back).
      covers: optional ``covers(**sizes) -> Domain``: the finite sub-domain of ``domain`` the
        check covers at those sizes; the ledger then hands the check a
        :class:`~transformer_theory.domains.Tally` of it (its elements come from the ledger).
    """

    id: str
    paper: str
    place: str
    statement: str
    check: Callable[..., Checked]
    judge: Callable[[Checked], Verdict]
    sizes: Mapping[str, Mapping[str, Any]]
    expected: str
    printed: str | None = None
    correction: str | None = None
    command: str | None = None
    note: str = ""
    covers: Callable[..., Domain] | None = None
    domain: Domain | None = None
    quantifier: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id or self.id != self.id.lower():
            raise ValueError(f"id: expected '<paper>.<name>' in lower case, got {self.id!r}")
        if " " in self.id or "." not in self.id:
            raise ValueError(f"id: expected '<paper>.<name>' in lower case, got {self.id!r}")
        if self.domain is None:
            raise ValueError(
                f"{self.id}: domain: expected the Domain the statement quantifies over (a row "
                "never declares its quantifier)"
            )
        elif not isinstance(self.domain, Domain):
            raise ValueError(
                f"{self.id}: domain: expected a Domain, got {type(self.domain).__name__}"
            )
        else:
            derived = statement_kind(self.domain)
            # dataclasses.replace passes the derived word back in; any other word is a
            # declaration, which a row never makes beside its domain
            if self.quantifier is not None and self.quantifier != derived:
                raise ValueError(
                    f"{self.id}: quantifier: read from the domain ({derived}), never declared "
                    f"beside it (got {self.quantifier!r})"
                )
            object.__setattr__(self, "quantifier", derived)
        if self.expected not in STATUSES:
            raise ValueError(f"{self.id}: expected: not a status: {self.expected!r}")
        if self.expected in _NEVER_EXPECTED:
            raise ValueError(
                f"{self.id}: expected: {self.expected!r} is always a regression; a failure the "
                "library knows of is a finding of its own"
            )
        if self.correction and not self.printed:
            raise ValueError(f"{self.id}: a correction needs the paper's printed words")
        if self.expected in ("corrected", "refuted") and not (self.printed and self.place):
            raise ValueError(f"{self.id}: {self.expected} needs the printed words and the place")
        if self.expected == "corrected" and not self.correction:
            raise ValueError(f"{self.id}: a corrected claim says what was corrected")
        if self.expected == "finding" and self.printed:
            raise ValueError(f"{self.id}: a finding is a statement the paper does not print")
        if not isinstance(self.sizes, Mapping) or "quick" not in self.sizes:
            raise ValueError(f"{self.id}: sizes: expected a 'quick' tier")
        if self.command:
            try:
                fields = {f for _, f, _, _ in string.Formatter().parse(self.command) if f}
            except ValueError as err:
                raise ValueError(f"{self.id}: command: {err}") from None
            for tier in TIERS:
                missing = sorted(fields - set(self.tier_sizes(tier)))
                if missing:
                    raise ValueError(
                        f"{self.id}: command: {{{missing[0]}}} is not a size of tier {tier!r}"
                    )

    @property
    def legacy(self) -> bool:
        """False: a row without its domain object is refused (kept for callers that ask)."""
        return self.domain is None

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

    def domain_words(self) -> str:
        """The statement's domain in words (generated from the object)."""
        return "" if self.legacy else self.domain.words()

    def evaluate(self, tier: str = "quick") -> Outcome:
        """Check at ``tier``: the :class:`Outcome` (checked, verdict, status, strength, reason)."""
        sizes = self.tier_sizes(tier)
        if self.covers is not None:
            tally = Tally(self.covers(**sizes))
            checked = self.check(tally, **sizes)
            if isinstance(checked, Checked) and checked.covered is not tally:
                raise TypeError(f"{self.id}: check did not report the tally the ledger gave it")
        else:
            checked = self.check(**sizes)
        if not isinstance(checked, Checked):
            raise TypeError(f"{self.id}: check returned {type(checked).__name__}, not Checked")
        verdict = self.judge(checked)
        if not isinstance(verdict, Verdict):
            raise TypeError(f"{self.id}: judge returned {type(verdict).__name__}, not Verdict")
        faults: tuple[str, ...] = ()
        if checked.arithmetic == "enclosed":
            from transformer_theory.claims import engine

            faults = engine.faults()
        d = derive_status(self, checked, verdict, engine_faults=faults)
        return Outcome(checked, verdict, d.status, d.strength, d.reason)

    def run(self, tier: str = "quick") -> tuple[Checked, Verdict, str, str]:
        """Check at ``tier``: ``(checked, verdict, status, strength)``."""
        o = self.evaluate(tier)
        return o.checked, o.verdict, o.status, o.strength


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
    domain: Domain | None = None,
) -> Row:
    """A row the library does not check, with the reason (status ``open``); ``domain``: the
    statement's, where known."""
    dom = domain if domain is not None else Continuum(f"not stated as a domain: {reason}")

    def check() -> Checked:
        return Checked("none", dom, {"reason": reason})

    def judge(checked: Checked) -> Verdict:
        return Verdict(None, reason)

    return Row(
        id=id,
        paper=paper,
        place=place,
        statement=statement or (printed or reason),
        domain=dom,
        check=check,
        judge=judge,
        sizes={"quick": {}},
        expected="open",
        printed=printed,
        command=command,
        note=reason,
    )
