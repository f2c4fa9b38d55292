"""Select claims, check them, derive each status, compare it with the expected one, write the
records.

A record (:class:`ClaimRecord`) holds the claim's description, what its check computed (the
arithmetic, the coverage and the domain in words), the status derived from them by
:func:`transformer_theory.ledger.derive_status`, the seconds it took and whether the status is the
expected one. A check that raises is recorded with status ``error`` and the exception's text: it
is a regression like any other mismatch.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import importlib
import os
import pkgutil
import time
from collections.abc import Iterable, Sequence
from typing import Any

from transformer_theory.jsonio import write_json, write_text
from transformer_theory.ledger import STATUSES, TIERS, Row

__all__ = [
    "ARITHMETIC_WORDS",
    "ClaimRecord",
    "all_claims",
    "markdown",
    "recorded_seconds",
    "resumed_records",
    "run_claims",
    "select",
    "write_claims_json",
    "write_records",
]


def all_claims() -> list[Row]:
    """Every registered claim: each paper's ``papers/<paper>/claims.py`` (Chen & Zou 2024 first,
    then the others in name order), then the compiled RASP programs' (``rasp/claims.py``, when
    the package registers any).

    Raises:
      RuntimeError: when two claims share an id.
    """
    import transformer_theory.papers as papers

    found: list[Row] = []
    names = sorted(pkgutil.iter_modules(papers.__path__), key=lambda m: m.name)
    names.sort(key=lambda m: m.name != "chen_zou2024")
    for info in names:
        name = f"transformer_theory.papers.{info.name}.claims"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:
                raise
            continue
        found.extend(module.CLAIMS)
    try:
        found.extend(importlib.import_module("transformer_theory.rasp.claims").CLAIMS)
    except ModuleNotFoundError as err:
        if err.name != "transformer_theory.rasp.claims":
            raise
    seen: set[str] = set()
    for c in found:
        if c.id in seen:
            raise RuntimeError(f"claim id {c.id!r} is registered twice")
        seen.add(c.id)
    return found


@dataclasses.dataclass(frozen=True)
class ClaimRecord:
    """One claim checked: its description, what the check found, and whether that is expected."""

    id: str
    paper: str
    place: str
    printed: str | None
    checked: str
    correction: str | None
    command: str
    tier: str
    expected: str
    status: str
    figure: str
    details: dict[str, Any]
    seconds: float
    quantifier: str = ""
    arithmetic: str = ""
    coverage: str = ""
    domain: str = ""
    tolerance: str | None = None
    strength: str = ""
    note: str = ""

    @property
    def regression(self) -> bool:
        """The status differs from the registry's expected one (or the check raised)."""
        return self.status != self.expected

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["regression"] = self.regression
        return d


#: The committed full-tier table (a checkout's; absent from an installed package).
#:
#: :meta hide-value:
CLAIMS_MD = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "CLAIMS.md")


def recorded_seconds(path: str = CLAIMS_MD) -> dict[str, float]:
    """``claim id -> seconds`` of the full-tier run committed in ``CLAIMS.md`` (its table rows'
    last cell); empty where the file is absent (an installed package)."""
    import re

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return {}
    rows = re.findall(r"^\| `([^`]+)`:.*\| ([0-9.]+) \|$", text, re.MULTILINE)
    return {claim_id: float(seconds) for claim_id, seconds in rows}


def resumed_records(path: str, tier: str, ids: Sequence[str]) -> list[ClaimRecord]:
    """The records of ``path`` (a ``claims.json``) for ``tier`` whose claim is among ``ids``; a
    record that lacks a field, a file that is missing or unreadable, gives none (those claims
    are checked again)."""
    from transformer_theory.jsonio import read_json

    try:
        rows = read_json(path).get("records", [])
    except (OSError, ValueError, AttributeError):
        return []
    fields = [f.name for f in dataclasses.fields(ClaimRecord)]
    wanted, kept = set(ids), {}
    for row in rows if isinstance(rows, list) else []:
        if (
            isinstance(row, dict)
            and row.get("tier") == tier
            and row.get("id") in wanted
            and all(k in row for k in fields)
            and _well_typed(row)
        ):
            kept[row["id"]] = ClaimRecord(**{k: row[k] for k in fields})
    return [kept[i] for i in ids if i in kept]


def _well_typed(row: dict[str, Any]) -> bool:
    """A kept record is reused only if every field has its type and its status is one the
    ledger derives (a damaged one -- ``seconds`` ``"abc"``, ``status`` 12345, ``figure`` null --
    is checked again instead of inventing a regression or breaking the summary)."""
    hints = {f.name: f.type for f in dataclasses.fields(ClaimRecord)}
    for name, hint in hints.items():
        value = row[name]
        if name == "details":
            ok = isinstance(value, dict)
        elif name == "seconds":
            ok = (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and 0 <= value < float("inf")
            )
        else:
            ok = isinstance(value, str) or (value is None and "None" in str(hint))
        if not ok:
            return False
    return row["status"] in (*STATUSES, "error") and row["expected"] in STATUSES


def select(
    claims: Iterable[Row],
    *,
    paper: str | None = None,
    ids: Sequence[str] | None = None,
) -> list[Row]:
    """The claims of ``paper`` (the id's first part, e.g. ``sanford2023``) whose id matches one
    of the glob patterns ``ids`` (``"chen_zou2024.prop*"``); ``None`` selects all. A single
    string is ONE pattern (not one pattern per character)."""
    if isinstance(ids, str):
        ids = [ids]
    elif ids is not None:
        ids = list(ids)
        bad = [p for p in ids if not isinstance(p, str)]
        if bad:
            raise ValueError(f"ids: expected glob patterns (strings), got {bad[0]!r}")
    out = []
    for c in claims:
        if paper is not None and c.paper_key != paper:
            continue
        if ids is not None and not any(fnmatch.fnmatchcase(c.id, pattern) for pattern in ids):
            continue
        out.append(c)
    return out


def _check(row: Row, tier: str) -> ClaimRecord:
    start = time.perf_counter()
    extra: dict[str, Any] = {}
    try:
        checked, verdict, status, strength = row.run(tier)
        figure, details = verdict.figure, dict(checked.values)
        extra = dict(
            arithmetic=checked.effective_arithmetic,
            coverage=checked.coverage,
            domain=checked.domain,
            tolerance=checked.tolerance,
            strength=strength,
        )
        if checked.unenclosed:
            details["unenclosed"] = list(checked.unenclosed)
    except Exception as err:  # a failing check is a regression to report, not a crash
        status, figure, details = "error", f"{type(err).__name__}: {err}", {}
    return ClaimRecord(
        id=row.id,
        paper=row.paper,
        place=row.place,
        printed=row.printed,
        checked=row.checked_sentence(tier),
        correction=row.correction,
        command=row.command_for(tier),
        tier=tier,
        expected=row.expected,
        status=status,
        figure=figure,
        details=details,
        seconds=round(time.perf_counter() - start, 3),
        quantifier=row.quantifier,
        note=row.note,
        **extra,
    )


def run_claims(
    *,
    paper: str | None = None,
    ids: Sequence[str] | str | None = None,
    tier: str = "quick",
    progress: bool = False,
    on_record: Any = None,
) -> list[ClaimRecord]:
    """Check the selected claims (see :func:`select`) at ``tier``; returns their records.

    ``on_record(record)`` is called after each claim (the command writes the files there, so an
    interrupted run keeps what finished).
    """
    if tier not in TIERS:
        raise ValueError(f"tier: expected one of {', '.join(TIERS)}, got {tier!r}")
    from transformer_theory.precision import enable_x64

    enable_x64()  # an entry point: the checks compute in float64
    if isinstance(ids, str):
        ids = [ids]
    chosen = select(all_claims(), paper=paper, ids=ids)
    items: Iterable[Row] = chosen
    if progress:
        from transformer_theory.progress import tqdm

        items = tqdm(chosen, desc=f"claims ({tier})", unit="claim", disable=None)
    records = []
    for claim in items:
        record = _check(claim, tier)
        records.append(record)
        if on_record is not None:
            on_record(record)
    return records


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


#: The arithmetics in words (the tables' *computed* column: CLAIMS.md and the docs pages).
ARITHMETIC_WORDS = {
    "exact": "exact (rationals)",
    "enclosed": "arb balls",
    "float": "floating point",
    "training": "training run",
    "record": "committed record",
    "none": "not computed",
}


def markdown(records: Sequence[ClaimRecord], *, title: str = "Claims", note: str = "") -> str:
    """A table per paper: claim (the statement checked; the paper's words quoted beside it),
    place, status (and expected, where they differ), how it was computed (arithmetic, domain,
    tolerance), the figure, the command and the seconds; then the count of each status."""
    lines = [f"# {title}", ""]
    if note:
        lines += [note, ""]
    counts = {s: sum(r.status == s for r in records) for s in (*STATUSES, "error")}
    lines.append(
        "Statuses: " + ", ".join(f"{s} {n}" for s, n in counts.items() if n) + f" ({len(records)})."
    )
    lines.append(
        "Each status is derived from the check's arithmetic and its coverage of the statement's "
        "domain by the rule in `transformer_theory/ledger.py` (column *computed*); the paper's "
        "words are quoted where it prints the statement."
    )
    papers: dict[str, list[ClaimRecord]] = {}
    for r in records:
        papers.setdefault(r.paper, []).append(r)
    for paper, rows in papers.items():
        lines += ["", f"## {paper}", ""]
        lines.append("| claim | where | status | computed | evidence | command | s |")
        lines.append("|---|---|---|---|---|---|---|")
        for r in rows:
            status = r.status if not r.regression else f"**{r.status}** (expected {r.expected})"
            if r.status in ("finding", "corrected") and r.strength:
                status += f" ({r.strength})"
            claim = f"`{r.id}`: {_cell(r.checked)}"
            if r.printed:
                claim += f" Printed: \u201c{_cell(r.printed)}\u201d"
            else:
                claim += " (a statement of the library's own)"
            if r.correction:
                claim += f" Correction: {_cell(r.correction)}"
            how = f"{ARITHMETIC_WORDS.get(r.arithmetic, r.arithmetic)}; {_cell(r.domain)}"
            if r.tolerance:
                how += f"; tol {_cell(r.tolerance)}"
            cmd = f"`{_cell(r.command)}`" if r.command else ""
            lines.append(
                f"| {claim} | {_cell(r.place)} | {status} | {how} | {_cell(r.figure)} | {cmd} | "
                f"{r.seconds:.1f} |"
            )
    return "\n".join(lines) + "\n"


def write_claims_json(records: Sequence[ClaimRecord], path: str, *, note: str = "") -> str:
    """Write the records as ``{"note": ..., "records": [to_dict(), ...]}`` to ``path`` (the
    checkout's ``CLAIMS.json``: the docs pages are generated from it); returns the path."""
    return write_json(
        path, {"note": note, "records": [r.to_dict() for r in records]}, default_str=True
    )


def write_records(
    records: Sequence[ClaimRecord], out_dir: str, *, note: str = ""
) -> tuple[str, str]:
    """Write ``claims.json`` (every record) and ``claims.md`` (:func:`markdown`) to ``out_dir``;
    returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    json_path = write_claims_json(records, os.path.join(out_dir, "claims.json"), note=note)
    md_path = os.path.join(out_dir, "claims.md")
    write_text(md_path, markdown(records, note=note), suffix=".md")
    return json_path, md_path
