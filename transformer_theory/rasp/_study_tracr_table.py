"""The study of :mod:`transformer_theory.rasp.experiments.tracr_table`: per tracr library
program (:func:`~transformer_theory.rasp._tracr.tracr_programs`, translated by
:func:`~transformer_theory.rasp._tracr.from_tracr`) build both compilers' models, check this
compiler's by enumeration and by certificate and tracr's against its interpreter at two
constants, and record the row (:class:`~transformer_theory.rasp._records.TableRow`); the whole
record (:class:`~transformer_theory.rasp._records.TracrTable`, valid JSON, ``missing`` naming the
programs not yet measured) is written after each row and resumed from. :func:`markdown` is the
table of ``docs/rasp.md``. Needs tracr (:data:`transformer_theory.rasp._tracr.INSTALL`)."""

from __future__ import annotations

import dataclasses
import datetime
import os
import platform
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from transformer_theory import jsonio, tables
from transformer_theory.rasp._records import (
    TableCertified,
    TableEnumerated,
    TableRow,
    TableSizes,
    TracrTable,
)

__all__ = ["COLUMNS", "RECORD", "check_config", "markdown", "measure", "run"]

RECORD = "rasp_table.json"

#: The table's columns: a row's field and its header (formatted with the record's settings).
COLUMNS = (
    ("program", "program"),
    ("layers", "layers ours / tracr (N = {size})"),
    ("width", "residual width ours / tracr (N = {size})"),
    ("parameters", "parameters ours / tracr (N = {size})"),
    ("enumerated", "ours, every input up to {enumerate} (float32)"),
    ("certified", "ours, certified length (float32, tried up to {certify})"),
    (
        "tracr_default",
        "tracr compiled for {tracr_len}, {samples} seeded inputs per length (float32, "
        "mlp_exactness 100)",
    ),
    ("tracr_1000", "tracr, the same at mlp_exactness 1000"),
)


def measure(
    name: str, tprog: Any, vocab: Sequence[Hashable], causal: bool, config: Any
) -> TableRow:
    """The table's row for one tracr program at ``config``'s lengths: translated, built and
    checked by this compiler, then by tracr, recorded (see
    :mod:`transformer_theory.rasp.experiments.tracr_table`); a program this compiler refuses is
    a row saying so (tracr's side is then not measured)."""
    from transformer_theory import rasp
    from transformer_theory.rasp import _tracr
    from transformer_theory.rasp._certificate import DEFAULT_LENGTHS

    t0 = time.time()
    prog = _tracr.from_tracr(tprog)
    head = {"program": name, "vocab": tuple(repr(v) for v in vocab), "causal": causal}
    try:
        ours = rasp.compile(prog, vocab, config.size, causal)
    except ValueError as err:
        return TableRow(**head, compiled=False, refused=str(err))
    model = rasp.compile(prog, vocab, config.enumerate, causal)
    checked = rasp.check(model, dtype="float32", max_inputs=10**6)
    cert = rasp.certified_length(
        prog,
        vocab,
        "float32",
        lengths=[n for n in DEFAULT_LENGTHS if n <= config.certify],
        causal=causal,
    )
    s = ours.sizes()
    # tracr's side, after ours: its model at the table's size, then its exactness per setting
    tracr = _tracr.compile_tracr(tprog, vocab, config.size, causal)
    exact = {
        exactness: _tracr.exact_through(
            tprog, vocab, config.tracr_len, causal, exactness, config.samples
        )
        for exactness in (100, 1000)
    }
    return TableRow(
        **head,
        compiled=True,
        ours=TableSizes(s["layers"], s["residual_width"], s["parameters"]),
        tracr=_tracr.tracr_sizes(tracr),
        enumerated=TableEnumerated(
            max_seq_len=config.enumerate,
            inputs=checked["inputs_checked"],
            exact=bool(checked["agree"] and not checked["internal_disagreements"]),
            sampled_lengths=tuple(checked["sampled_lengths"]),
        ),
        certified=TableCertified(
            certified_length=cert["certified_length"],
            first_failure=cert["first_failure"],
            largest_tried=cert["largest_tried"],
            limited_by=cert["rows"][-1]["limited_by"],
        ),
        tracr_default=exact[100],
        tracr_1000=exact[1000],
        seconds=round(time.time() - t0, 1),
    )


def check_config(config: Any) -> None:
    """Refuse, before any work, what the settings' own checks cannot see: a program in
    ``config.only`` that tracr's library does not have (``ValueError`` naming ``only``)."""
    from transformer_theory.rasp import _tracr

    unknown = sorted(set(config.only or ()) - set(_tracr.TRACR_PROGRAMS))
    if unknown:
        raise ValueError(f"only: unknown programs {unknown}; known: {list(_tracr.TRACR_PROGRAMS)}")


def run(
    config: Any,
    out_dir: str,
    *,
    record_name: str = RECORD,
    restart: bool = False,
    produced_by: str = "",
    commit: str = "unknown",
    progress: Callable[[str], None] | None = None,
) -> TracrTable:
    """The table of ``config`` (:class:`~transformer_theory.rasp.experiments.tracr_table.
    TracrTableSettings`), one program at a time, written to ``out_dir/record_name`` after each
    row: the rows of the record already there measured with the same settings are kept (unless
    ``restart``) and the programs without one measured (with ``config.only``: those programs,
    measured again); returns the whole record. ``produced_by`` (the command that made it) and
    ``commit`` (the code that measured each new row) are the caller's to say.

    Raises:
      ValueError: naming ``only`` for a program tracr's library does not have
        (:func:`check_config`).
    """
    from transformer_theory.rasp import _tracr

    check_config(config)
    path = os.path.join(out_dir, record_name)
    settings = config.measured()
    kept: dict[str, TableRow] = {}
    if os.path.exists(path) and not restart:
        previous = jsonio.read_record(path, TracrTable)
        if previous.settings == settings:
            kept = {r.program: r for r in previous.programs}
    programs = _tracr.tracr_programs(config.tracr_len)
    order = list(programs)
    todo = [n for n in order if (n in config.only if config.only else n not in kept)]
    environment = f"{platform.machine()}, {_tracr.versions()}"

    def record() -> TracrTable:
        rows = tuple(kept[n] for n in order if n in kept)
        return TracrTable(
            programs=rows,
            missing=tuple(n for n in order if n not in kept),
            settings=settings,
            tracr_commit=_tracr.TRACR_COMMIT,
            produced_by=produced_by,
            environment=environment,
            commits=tuple(sorted({r.commit for r in rows if r.commit})),
        )

    rec = record()
    os.makedirs(out_dir, exist_ok=True)
    for k, name in enumerate(todo, 1):
        tprog, vocab, causal = programs[name]
        row = measure(name, tprog, vocab, causal, config)
        kept[name] = dataclasses.replace(row, commit=commit, date=datetime.date.today().isoformat())
        rec = record()
        jsonio.write_json(path, rec)
        if progress is not None:
            progress(
                f"[{k}/{len(todo)}] {name}: {row.seconds or 0} s, certified "
                f"{row.certified.certified_length if row.certified else None}, "
                "tracr exact through "
                f"{row.tracr_default.exact_through if row.tracr_default else None} "
                "(mlp_exactness 100) / "
                f"{row.tracr_1000.exact_through if row.tracr_1000 else None} (1000); "
                f"missing {list(rec.missing)}"
            )
    return rec


def _cell(row: TableRow, key: str) -> str:
    if not row.compiled:
        return row.program if key == "program" else "refused"
    if key == "program":
        return row.program + (" (causal)" if row.causal else "")
    if key == "layers":
        return f"{row.ours.layers} / {row.tracr.layers}"
    if key == "width":
        return f"{row.ours.residual_width} / {row.tracr.width}"
    if key == "parameters":
        return f"{row.ours.parameters:,} / {row.tracr.parameters:,}"
    if key == "enumerated":
        e = row.enumerated
        return f"exact ({e.inputs:,} inputs)" if e.exact else "WRONG"
    if key == "certified":
        c = row.certified
        if c.first_failure is None:
            return f"{c.certified_length} (every length tried)"
        return f"{c.certified_length} (not {c.first_failure})"
    t = getattr(row, key)
    if t.exact_through == t.max_seq_len:
        return f"right through {t.max_seq_len}"
    return f"right through {t.exact_through}, wrong at {t.exact_through + 1}"


def markdown(record: TracrTable) -> str:
    """The table of ``record`` as Markdown (:func:`transformer_theory.tables.table`), the
    programs not yet measured as such."""
    rows = [{key: _cell(r, key) for key, _ in COLUMNS} for r in record.programs]
    rows += [
        {key: (name if key == "program" else "not measured") for key, _ in COLUMNS}
        for name in record.missing
    ]
    columns = [tables.Column(key, head.format(**record.settings)) for key, head in COLUMNS]
    return tables.table(rows, columns, fmt="markdown")
