"""`transformer-theory languages`: records, plots and exit code on a tiny run; refusals (options
that do not apply, sizes beyond the memory or time budget) before any work; Ctrl-C keeps the
finished rows."""

import pytest

from transformer_theory.cli import main
from transformer_theory.jsonio import read_json

# One row, one length: every length of every row is one compile, the suite's scarce time; the
# recognizers and the PARITY sweep are checked in test_constructions.py.
TINY = ["--max-len", "1", "--exhaustive-up-to", "1", "--parity-lengths", "none"]


def _exit(argv) -> int:
    """The command's exit status (argparse's own refusals exit through ``SystemExit``)."""
    try:
        return main(argv)
    except SystemExit as err:
        return err.code


def test_languages_command_writes_records_and_plots(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["languages", "--out", str(out), "--rows", "majority", *TINY]) == 0
    (row,) = read_json(out / "languages.json")
    assert row["construction"] == "majority" and row["language"] == "majority"
    # 2 (#1 - #0 - 1/2) / n on the string "1" with BOS, n = 2 (float64 rounding only).
    assert row["accuracy"] == 1.0 and abs(row["min_margin"] - 0.5) < 1e-12
    assert row["lengths_checked"] == [1] and row["exhaustive_up_to"] == 1
    assert {"attention", "positional", "strings_checked"} <= set(row)
    assert read_json(out / "languages_majority.json") == row
    assert read_json(out / "parity_precision.json") == []
    assert (out / "languages_margin.png").stat().st_size > 0
    # A readable table, not raw JSON lines: a header, then one line per row.
    printed = capsys.readouterr().out.splitlines()
    assert not any(line.lstrip().startswith("{") for line in printed)
    header = next(i for i, line in enumerate(printed) if line.startswith("construction"))
    assert set(printed[header + 1].replace(" ", "")) == {"-"}  # format_table's rule
    cells = printed[header + 2].split()
    assert cells[0] == "majority" and cells[3:] == ["2", "1-1", "1.0000", "0.5", "float64"]


@pytest.mark.parametrize(
    "extra, option",
    [
        (["--parity-samples", "3"], "--parity-samples"),  # the sweep is off
        (["--samples", "5"], "--samples"),  # max-len 1 = exhaustive-up-to: nothing sampled
        (["--seed", "3"], "--seed"),  # nothing sampled at all
    ],
)
def test_options_that_do_not_apply_are_refused(tmp_path, capsys, extra, option):
    out = tmp_path / "o"
    assert main(["languages", "--out", str(out), *TINY, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"transformer-theory languages: error: {option}")
    assert not out.exists()  # refused before any work, not even the directory


@pytest.mark.parametrize("lengths", ["nan", "64,inf", "64,-8", "64,,128", "1e3", "8193"])
def test_parity_lengths_validated(tmp_path, capsys, lengths):
    argv = ["languages", "--out", str(tmp_path), "--max-len", "1", "--exhaustive-up-to", "1"]
    assert _exit([*argv, "--parity-lengths", lengths]) == 2
    assert "--parity-lengths" in capsys.readouterr().err


def test_sizes_beyond_the_budget_refused_with_the_estimate(tmp_path, capsys, monkeypatch):
    # Each of these ran into the out-of-memory killer or for hours, with a traceback at best.
    monkeypatch.setenv("TT_MEMORY_BUDGET", "512M")
    monkeypatch.setenv("TT_TIME_BUDGET", "60")
    out = tmp_path / "o"
    # 64 strings of length 10^5 through n^2 attention maps: 5 * 100001^2 * 8 bytes = 373 GiB.
    assert main(["languages", "--out", str(out), "--max-len", "100000"]) == 2
    err = capsys.readouterr().err
    assert "--max-len/--samples" in err and "GiB" in err and "512.0 MiB available" in err
    # The PARITY sweep: its strings alone are 3 * 10^5 * 8193 * 4 bytes = 9.2 GiB.
    argv = ["--parity-samples", "100000", "--parity-lengths", "8192"]
    assert main(["languages", "--out", str(out), *argv]) == 2
    assert "--parity-lengths/--parity-samples" in capsys.readouterr().err
    # Within the memory budget but not the time budget: 2 formats x 2 variants x 200 strings x
    # 2049^2 entries at 5e7 entries/s is 67 s > 60 s.
    argv = ["--parity-samples", "200", "--parity-lengths", "2048"]
    assert main(["languages", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert "--parity-lengths/--parity-samples" in err and "would take about 1 min" in err
    assert not out.exists()


def test_interrupt_keeps_finished_rows(tmp_path, capsys, monkeypatch):
    from transformer_theory.papers.formal_languages import _theory

    real, calls = _theory.recognizer_record, []

    def interrupted_on_second_row(*args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(_theory, "recognizer_record", interrupted_on_second_row)
    out = tmp_path / "o"
    argv = ["languages", "--out", str(out), "--rows", "majority,dyck1", *TINY]
    assert main(argv) == 130
    (row,) = read_json(out / "languages.json")  # strict JSON, the finished row only
    assert row["construction"] == "majority"
    assert "1 of 2 row(s)" in capsys.readouterr().err
