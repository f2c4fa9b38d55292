"""The table experiment (papers/formal_languages/experiments/languages.py, its study
_study_languages.py): the sampled
lengths and the cost estimate against arithmetic written out here, the settings' refusals, and one
tiny run whose records and files are checked against the margins derived in the constructions'
docstring (MAJORITY ``2 (#1 - #0 - 1/2) / n``; PARITY ``4 / n^2`` without the LayerNorm, ``4
sqrt(D/2)`` with it)."""

import math

import pytest

from transformer_theory import jsonio
from transformer_theory.jsonio import read_json
from transformer_theory.papers.formal_languages import _study_languages, _theory, _theory_table
from transformer_theory.papers.formal_languages.experiments import languages


@pytest.mark.parametrize(
    "max_len, exhaustive_up_to, want",
    [
        (256, 10, [16, 32, 64, 128, 256]),
        (100, 12, [16, 32, 64, 100]),  # powers of 2 from 16 below max_len, then max_len
        (100, 16, [32, 64, 100]),
        (16, 16, []),  # every length exhaustive
        (1, 1, []),
    ],
)
def test_sampled_lengths(max_len, exhaustive_up_to, want):
    assert _theory_table.sampled_lengths(max_len, exhaustive_up_to) == want
    settings = languages.TableSettings(max_len=max_len, exhaustive_up_to=exhaustive_up_to)
    assert settings.sampled_lengths == want


def test_estimate_is_the_attention_map_count():
    settings = languages.TableSettings(
        rows=("majority", "dyck1"),
        max_len=2,
        exhaustive_up_to=2,
        parity_lengths=(4,),
        parity_samples=2,
    )
    cost = _study_languages.estimate(settings)
    # Every string of lengths 1 and 2, (L + 1)^2 entries each: 2 * 4 + 4 * 9 = 44, per row.
    assert cost.rows_entries == 2 * 44
    # 2 strings of length 4 (n = 5) in 2 formats x 2 variants.
    assert cost.sweep_entries == 2 * 2 * 2 * 25
    assert cost.entries == 88 + 200
    assert cost.seconds == pytest.approx(288 / _theory.ENTRIES_PER_SECOND, rel=1e-12)
    assert cost.peak_bytes == max(cost.rows_bytes, cost.sweep_bytes) > 0


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"rows": ("dyck2",)}, "rows"),
        ({"exhaustive_up_to": 17}, "exhaustive_up_to"),
        ({"exhaustive_up_to": 0}, "exhaustive_up_to"),
        ({"samples": 0}, "samples"),
        ({"parity_lengths": (8193,)}, "parity_lengths"),
        ({"parity_lengths": (0,)}, "parity_lengths"),
        ({"parity_precisions": ("float8",)}, "parity_precisions"),
        ({"seed": -1}, "seed"),
    ],
)
def test_settings_refused_naming_the_field(kwargs, name):
    with pytest.raises(ValueError, match=name):
        languages.TableSettings(**kwargs)


def test_run_writes_the_records_and_figures(tmp_path):
    settings = languages.TableSettings(
        rows=("majority",),
        max_len=2,
        exhaustive_up_to=2,
        parity_lengths=(3,),
        parity_samples=2,
    )
    seen = []
    result = _study_languages.run(
        settings, str(tmp_path), on_rows=lambda records: seen.append(len(records))
    )
    assert seen == [1] and not result.interrupted and not result.failed
    (row,) = result.records
    # MAJORITY's margin 2 (#1 - #0 - 1/2) / n over lengths 1 and 2 (n = L + 1), signed by the
    # truth: "0" 3/2, "1" 1/2, "00" 5/3, "11" 1, and the ties "01", "10" (not members) 1/3, the
    # smallest.
    assert row.accuracy == 1.0 and row.min_margin == pytest.approx(1 / 3, abs=1e-12)
    # the typed records are the files, key for key
    assert read_json(tmp_path / "languages.json") == [jsonio.to_jsonable(row)[0]]
    assert jsonio.read_record(str(tmp_path / "languages_majority.json"), type(row)) == row
    sweep = result.precision
    assert read_json(tmp_path / "parity_precision.json") == jsonio.to_jsonable(sweep)[0]
    assert [(r.dtype, r.layer_norm) for r in sweep] == [
        ("float32", True),
        ("float32", False),
        ("float64", True),
        ("float64", False),
    ]
    for r in sweep:
        assert r.n == 4 and r.accuracy == 1.0
        want = 4 * math.sqrt(10 / 2) if r.layer_norm else 4 / 4**2
        assert r.min_margin == pytest.approx(want, rel=1e-5 if r.dtype == "float32" else 1e-12)
    assert (tmp_path / "languages_margin.png").stat().st_size > 0
    assert (tmp_path / "parity_precision.png").stat().st_size > 0
    # The table rows the command prints.
    (printed,) = _study_languages.row_table(result.records)
    assert result.rows == (printed,)
    assert printed["lengths"] == "1-2" and printed["accuracy"] == "1.0000"
    assert printed["strings"] == 2 + 4
    assert _study_languages.precision_table(sweep)[1]["LayerNorm"] == "no"


def test_run_interrupted_keeps_the_finished_records(tmp_path, monkeypatch):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_theory, "parity_precision_records", interrupt)
    settings = languages.TableSettings(
        rows=("majority",), max_len=1, exhaustive_up_to=1, parity_lengths=(3,)
    )
    result = _study_languages.run(settings, str(tmp_path))
    assert result.interrupted and len(result.records) == 1 and result.precision == ()
    assert read_json(tmp_path / "languages.json") == jsonio.to_jsonable(result.records)[0]
    assert read_json(tmp_path / "parity_precision.json") == []
    assert not (tmp_path / "languages_margin.png").exists()  # no figure of a partial run


def test_every_row_is_one_typed_entry_whose_parts_agree():
    # the study looks each row up once in TABLE; a row's sampler, membership truth, alphabet and
    # sampled-length step must agree with each other (members and non-members, symbols in range)
    assert tuple(_theory_table.TABLE) == _theory_table.ROWS
    for name, row in _theory_table.TABLE.items():
        assert row.name == name
        if isinstance(row, _theory_table.RecognizerRow):
            continue
        n = row.sample_length(17)
        assert n is not None and n <= 17 and n % row.step == 0
        strings = row.sample(n, 16, 0, 2, 2)
        truth = row.truth(strings, 2, 2)
        assert strings.shape == (16, n) and truth.any() and not truth.all(), name
        assert 0 <= strings.min() and strings.max() < row.symbols(2), name
