"""The one table writer of the library: rows as an aligned plain-text table (what the commands
print) or a Markdown table (README's, ``CLAIMS.md``'s).

A row is a mapping (its keys) or a dataclass (its fields); ``columns`` picks and orders them,
each a key or a :class:`Column` (key, header, format, alignment). A cell prints by its column's
format, else by type: ``None`` as ``-``, a float with 4 significant digits, anything else by
``str``. In Markdown a cell's ``|`` is escaped and a newline becomes a space, so any text fits
in one cell.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

__all__ = ["Column", "rows_of", "table"]


@dataclasses.dataclass(frozen=True)
class Column:
    """One column: the row's ``key`` (a mapping key or a dataclass field), its ``header``
    (default the key), ``fmt`` (a format spec such as ``".2e"``, or a function of the value;
    default by type), ``align`` (``"<"`` left, ``">"`` right) and ``of``, a function of the
    whole row that computes the value instead of reading ``key`` (a verdict's flag)."""

    key: str
    header: str | None = None
    fmt: str | Callable[[Any], str] | None = None
    align: Literal["<", ">"] = "<"
    of: Callable[[Any], Any] | None = None

    @property
    def title(self) -> str:
        return self.key if self.header is None else self.header

    def cell(self, value: Any) -> str:
        if callable(self.fmt):
            return self.fmt(value)
        if value is None:
            return "-"
        if self.fmt is not None:
            return format(value, self.fmt)
        if isinstance(value, float):
            return f"{value:.4g}"
        return str(value)


def _value(row: Any, key: str) -> Any:
    if isinstance(row, Mapping):
        return row.get(key)
    if dataclasses.is_dataclass(row) and not isinstance(row, type):
        return getattr(row, key, None)
    raise TypeError(f"rows: a row must be a mapping or a dataclass, got {type(row).__name__}")


def _keys(row: Any) -> list[str]:
    if isinstance(row, Mapping):
        return [str(k) for k in row]
    if dataclasses.is_dataclass(row) and not isinstance(row, type):
        return [f.name for f in dataclasses.fields(row)]
    raise TypeError(f"rows: a row must be a mapping or a dataclass, got {type(row).__name__}")


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(
    rows: Iterable[Any],
    columns: Sequence[str | Column] | None = None,
    *,
    fmt: Literal["text", "markdown"] = "text",
) -> str:
    """``rows`` as a table: ``fmt="text"`` aligns the columns (two spaces apart, a rule of dashes
    under the header, trailing spaces dropped); ``fmt="markdown"`` writes ``| a | b |`` lines
    under a ``|---|---|`` rule. ``columns`` defaults to every key of every row, first seen
    first. ``ValueError`` for another ``fmt``."""
    if fmt not in ("text", "markdown"):
        raise ValueError(f"fmt: expected 'text' or 'markdown', got {fmt!r}")
    rows = list(rows)
    if columns is None:
        columns = list(dict.fromkeys(k for r in rows for k in _keys(r)))
    cols = [c if isinstance(c, Column) else Column(str(c)) for c in columns]
    body = [[c.cell(c.of(r) if c.of else _value(r, c.key)) for c in cols] for r in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(_md(c.title) for c in cols) + " |"]
        lines.append("|" + "---|" * len(cols))
        lines += ["| " + " | ".join(_md(x) for x in b) + " |" for b in body]
        return "\n".join(lines)
    widths = [max([len(c.title)] + [len(b[i]) for b in body]) for i, c in enumerate(cols)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            x.rjust(w) if c.align == ">" else x.ljust(w) for x, w, c in zip(cells, widths, cols)
        ).rstrip()

    lines = [line([c.title for c in cols]), "  ".join("-" * w for w in widths)]
    lines += [line(b) for b in body]
    return "\n".join(lines)


def rows_of(record: Any) -> list[dict]:
    """The table rows of an experiment's record, as JSON objects (a typed row becomes the dict
    of its fields, as its file holds it): the record itself when it is a list or tuple, else its
    ``rows`` (a dict's key or a typed record's field); none when those are not all objects.

    The top-level experiments (``papers/<p>/experiments/*.py``) return their record as a dict
    holding ``rows`` or as a list of rows; a typed record with a ``rows`` field reads the same.
    """
    from transformer_theory.jsonio import to_jsonable

    if isinstance(record, Mapping):
        rows = record.get("rows")
    elif isinstance(record, (list, tuple)):
        rows = record
    else:
        rows = getattr(record, "rows", None)
    if not isinstance(rows, (list, tuple)):
        return []
    rows = [to_jsonable(r, default_str=True)[0] for r in rows]
    return rows if all(isinstance(r, dict) for r in rows) else []
