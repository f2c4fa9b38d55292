"""Typed records and the one table writer: a record written by :func:`jsonio.write_json` reads
back (:func:`jsonio.read_record`) equal, field for field; the table writer's text and Markdown
layouts, checked against tables written out by hand."""

from __future__ import annotations

import dataclasses
import math
import pathlib

import pytest

from transformer_theory import jsonio
from transformer_theory.tables import Column, table


@dataclasses.dataclass(frozen=True)
class Row:
    name: str
    loss: float
    lengths: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Record:
    rows: tuple[Row, ...]
    by_name: dict[str, Row]
    note: str | None
    extra: tuple[Row, ...] | None = jsonio.optional()


def test_a_record_round_trips_through_its_json(tmp_path):
    rec = Record((Row("a", 0.5, (1, 2)), Row("b", 2, ())), {"x": Row("c", 1.0, (3,))}, None)
    path = jsonio.write_json(str(tmp_path / "r.json"), rec)
    # the layout on disk: the fields as keys, tuples as lists, the optional field absent
    assert jsonio.read_json(path) == {
        "rows": [
            {"name": "a", "loss": 0.5, "lengths": [1, 2]},
            {"name": "b", "loss": 2, "lengths": []},
        ],
        "by_name": {"x": {"name": "c", "loss": 1.0, "lengths": [3]}},
        "note": None,
    }
    back = jsonio.read_record(path, Record)
    assert back == rec and isinstance(back.rows, tuple) and isinstance(back.rows[1].loss, float)
    full = dataclasses.replace(rec, extra=(Row("d", 3.0, (4,)),))
    assert jsonio.as_record(Record, jsonio.to_jsonable(full)[0]) == full


def test_nonfinite_floats_come_back_from_the_nonfinite_list(tmp_path):
    rec = Record((Row("a", math.nan, ()), Row("b", -math.inf, ())), {}, "n")
    path = jsonio.write_json(str(tmp_path / "r.json"), rec)
    on_disk = jsonio.read_json(path)
    assert on_disk["rows"][0]["loss"] is None
    assert on_disk["nonfinite"] == {"rows[0].loss": "nan", "rows[1].loss": "-inf"}
    back = jsonio.read_record(path, Record)
    assert math.isnan(back.rows[0].loss) and back.rows[1].loss == -math.inf


@pytest.mark.parametrize(
    "data, where",
    [
        ({"rows": [], "by_name": {}}, "needs 'note'"),
        ({"rows": [], "by_name": {}, "note": None, "typo": 1}, "no field 'typo'"),
        (
            {"rows": [{"name": "a", "loss": "x", "lengths": []}], "by_name": {}, "note": None},
            "$.rows[0].loss",
        ),
        ({"rows": {}, "by_name": {}, "note": None}, "$.rows: expected a list"),
    ],
)
def test_a_record_that_does_not_fit_is_refused_naming_where(data, where):
    with pytest.raises(ValueError, match=where.replace("$", r"\$").replace("[", r"\[")):
        jsonio.from_jsonable(Record, data)


def test_the_text_table_aligns_columns_and_drops_trailing_spaces():
    rows = [{"a": 1, "bb": 0.123456, "c": None}, {"a": 100, "bb": "x"}]
    assert table(rows) == "\n".join(
        ["a    bb      c", "---  ------  -", "1    0.1235  -", "100  x       -"]
    )
    # columns by Column: header, format, right alignment, a value computed from the row
    cols = [
        Column("a", "A", align=">"),
        Column("bb", fmt=lambda v: f"<{v}>"),
        Column("z", "twice a", of=lambda r: 2 * r["a"]),
    ]
    assert table(rows, cols) == "\n".join(
        [
            "  A  bb          twice a",
            "---  ----------  -------",
            "  1  <0.123456>  2",
            "100  <x>         200",
        ]
    )


def test_dataclass_rows_and_markdown():
    rows = [Row("a|b", 0.5, (1,)), Row("line\nbreak", 1.0, ())]
    assert table(rows, ["name", "loss"], fmt="markdown") == "\n".join(
        ["| name | loss |", "|---|---|", "| a\\|b | 0.5 |", "| line break | 1 |"]
    )
    with pytest.raises(ValueError, match="fmt"):
        table(rows, fmt="html")


RESULTS = pathlib.Path(__file__).resolve().parents[2] / "experiments" / "results"


def _committed_records():
    from transformer_theory.papers.barbero2024 import _records as barbero
    from transformer_theory.papers.sanford2023 import _records as sanford
    from transformer_theory.papers.svete_cotterell2024 import _records as svete

    row = sanford.QSARecord | sanford.MatchRecord
    return [
        ("barbero2024_collapse.json", barbero.CollapseRecord, lambda d: d),
        ("barbero2024_oversquash.json", barbero.OversquashRecord, lambda d: d),
        ("sanford2023_constructions.json", tuple[row, ...], lambda d: d["records"]),
        (
            "ngram_learnability.json",
            svete.LearnabilityResult,
            lambda d: {k: v for k, v in d.items() if k != "provenance"},
        ),
    ]


@pytest.mark.parametrize("name, kind, part", _committed_records())
def test_the_committed_results_read_back_as_their_typed_records(name, kind, part):
    # what the typed record writes is the committed file (or its row), key for key
    data = part(jsonio.read_json(str(RESULTS / name)))
    rec = jsonio.as_record(kind, data)
    assert jsonio.to_jsonable(rec)[0] == data


def test_a_sweep_row_is_typed_and_reads_as_its_json_mapping(tmp_path):
    from transformer_theory.sweeps.runs import RunSummary

    row = RunSummary(
        run="reasoning_h1_s0",
        task="reasoning",
        heads="1",
        depth=1,
        seed=0,
        optimizer="adam",
        learning_rate=1e-3,
        steps=10,
        status="diverged",
        diverged_step=7,
        final_eval_acc=None,
        final_eval_loss=None,
        initial_eval_loss=2.5,
        chance=0.25,
        stop_reason="diverged",
        seconds=1.5,
    )
    assert row.diverged and row["diverged_step"] == 7 and row.get("nothing") is None
    assert dict(row) == jsonio.to_jsonable(row)[0]  # the mapping view is the JSON row
    with pytest.raises(KeyError):
        row["nothing"]
    path = jsonio.write_json(str(tmp_path / "summary.json"), [row])
    assert jsonio.read_record(path, tuple[RunSummary, ...]) == (row,)


def test_rows_of_reads_every_shape_of_an_experiment_record():
    from transformer_theory.tables import rows_of

    rows = [{"a": 1}, {"a": 2}]
    assert rows_of(rows) == rows == rows_of({"rows": rows, "seconds": 3.0})
    assert rows_of((Row("a", 0.5, (1,)),)) == [{"name": "a", "loss": 0.5, "lengths": [1]}]
    typed = Record((Row("b", 1.0, ()),), {}, None)
    assert rows_of(typed) == [{"name": "b", "loss": 1.0, "lengths": []}]
    assert rows_of({"no rows": 1}) == rows_of([1, 2]) == rows_of(3.0) == []
