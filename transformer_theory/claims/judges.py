"""The shared judges: small functions that read a :class:`~transformer_theory.ledger.Checked`'s
numbers and say whether the checked statement holds (:class:`~transformer_theory.ledger.Verdict`).

A judge never decides a status (:func:`transformer_theory.ledger.derive_status` does, from the
arithmetic and coverage the check declared); it only compares numbers, and writes the figure.
Each takes ``figure``, a template formatted with the checked values (``"min margin {min_margin}
on {cases} inputs"``); the default names the compared quantities.

- :func:`all_right`: a minimum margin strictly above a threshold (a construction right on every
  input, with room).
- :func:`exactly`: a value equals an expected value exactly (a margin of exactly 3, an exact count).
- :func:`at_most` / :func:`at_least`: a value against a bound (a constant or another value),
  with an optional tolerance value.
- :func:`true`: a boolean the check computed (a certificate re-verified, a witness found).
- :func:`printed_fails_corrected_holds`: the printed statement fails and the correction holds.
- :func:`against_rule`: a measurement against a stated acceptance rule.
- :func:`all_of`: every one of several judges holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from transformer_theory.ledger import Checked, Verdict

__all__ = [
    "against_rule",
    "all_of",
    "all_right",
    "at_least",
    "at_most",
    "exactly",
    "printed_fails_corrected_holds",
    "true",
]

Judge = Callable[[Checked], Verdict]


def _num(v: Any) -> Any:
    """Fractions stay exact; ``"p/q"`` strings become Fractions; numbers stay numbers."""
    if isinstance(v, str):
        return Fraction(v)
    return v


def _text(v: Any) -> str:
    if isinstance(v, Fraction):
        return str(v) if v.denominator < 10**6 else f"{float(v):.6g}"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


class _Values(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _figure(template: str | None, default: str, values: Mapping[str, Any]) -> str:
    if template is None:
        return default
    return template.format_map(_Values({k: _text(v) for k, v in values.items()}))


def all_right(margin: str = "min_margin", *, above: Any = 0, figure: str | None = None) -> Judge:
    """Holds iff ``values[margin] > above`` (strictly: a zero margin is a tie, not right)."""

    def judge(c: Checked) -> Verdict:
        m = _num(c.values[margin])
        holds = bool(m > _num(above))
        sign = ">" if holds else "<="
        return Verdict(holds, _figure(figure, f"{margin} {_text(m)} {sign} {above}", c.values))

    return judge


def exactly(
    key: str, expected: Any = None, *, other: str | None = None, figure: str | None = None
) -> Judge:
    """Holds iff ``values[key] == expected`` (or ``== values[other]``), compared exactly."""
    if (expected is None) == (other is None):
        raise ValueError("expected: give exactly one of expected= and other=")

    def judge(c: Checked) -> Verdict:
        got = _num(c.values[key])
        want = _num(c.values[other]) if other else _num(expected)
        holds = bool(got == want)
        rel = "=" if holds else "!="
        name = other or _text(want)
        return Verdict(holds, _figure(figure, f"{key} {_text(got)} {rel} {name}", c.values))

    return judge


def _bound(c: Checked, bound: Any, bound_key: str | None) -> Any:
    if (bound is None) == (bound_key is None):
        raise ValueError("bound: give exactly one of bound= and bound_key=")
    return _num(c.values[bound_key]) if bound_key else _num(bound)


def at_most(
    key: str,
    bound: Any = None,
    *,
    bound_key: str | None = None,
    tol_key: str | None = None,
    figure: str | None = None,
) -> Judge:
    """Holds iff ``values[key] <= bound (+ values[tol_key])``."""

    def judge(c: Checked) -> Verdict:
        got, b = _num(c.values[key]), _bound(c, bound, bound_key)
        tol = _num(c.values[tol_key]) if tol_key else 0
        holds = bool(got <= b + tol)
        rel = "<=" if holds else ">"
        extra = f" + tol {_text(tol)}" if tol_key else ""
        default = f"{key} {_text(got)} {rel} {bound_key or _text(b)}{extra}"
        return Verdict(holds, _figure(figure, default, c.values))

    return judge


def at_least(
    key: str, bound: Any = None, *, bound_key: str | None = None, figure: str | None = None
) -> Judge:
    """Holds iff ``values[key] >= bound``."""

    def judge(c: Checked) -> Verdict:
        got, b = _num(c.values[key]), _bound(c, bound, bound_key)
        holds = bool(got >= b)
        rel = ">=" if holds else "<"
        default = f"{key} {_text(got)} {rel} {bound_key or _text(b)}"
        return Verdict(holds, _figure(figure, default, c.values))

    return judge


def true(key: str, *, figure: str | None = None, undecided: str | None = None) -> Judge:
    """Holds iff ``values[key]`` is true; ``None`` there (or the ``undecided`` key true) leaves
    the verdict undecided."""

    def judge(c: Checked) -> Verdict:
        v = c.values[key]
        if v is None or (undecided and c.values.get(undecided)):
            return Verdict(None, _figure(figure, f"{key} undecided", c.values))
        return Verdict(bool(v), _figure(figure, f"{key} = {bool(v)}", c.values))

    return judge


def printed_fails_corrected_holds(
    printed: str = "printed_holds", corrected: str = "corrected_holds", *, figure: str | None = None
) -> Judge:
    """Reads two booleans the check computed: the printed statement's and the correction's."""

    def judge(c: Checked) -> Verdict:
        p, q = c.values[printed], c.values[corrected]
        default = f"printed {'holds' if p else 'fails'}; corrected {'holds' if q else 'fails'}"
        return Verdict(bool(q), _figure(figure, default, c.values), printed_holds=bool(p))

    return judge


def against_rule(
    key: str, rule: Callable[[Any], bool], text: str, *, figure: str | None = None
) -> Judge:
    """A measurement against a stated acceptance rule (``text`` says the rule)."""

    def judge(c: Checked) -> Verdict:
        v = c.values[key]
        holds = bool(rule(v))
        default = f"{key} {_text(v)}: {'meets' if holds else 'fails'} the rule {text}"
        return Verdict(holds, _figure(figure, default, c.values))

    return judge


def all_of(*judges: Judge, figure: str | None = None) -> Judge:
    """Holds iff every judge holds; undecided if any is undecided and none fails."""

    def judge(c: Checked) -> Verdict:
        vs = [j(c) for j in judges]
        if any(v.holds is False for v in vs):
            holds = False
        elif any(v.holds is None for v in vs):
            holds = None
        else:
            holds = True
        printed = [v.printed_holds for v in vs if v.printed_holds is not None]
        default = "; ".join(v.figure for v in vs)
        both = all(printed) if printed else None
        return Verdict(holds, _figure(figure, default, c.values), printed_holds=both)

    return judge
