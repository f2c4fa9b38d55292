"""`transformer-theory languages`: records, plots and exit code on a tiny run; refusals (options
that do not apply, sizes beyond the memory or time budget) before any work; Ctrl-C keeps the
finished rows."""

import itertools

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


# --------------------------------------------------------------------------- --rows: every row
#
# The rows of Strobl et al.'s table the library builds, in the command's order, and an
# independent reference for each: plain Python over the symbol string, written here, not the
# library's membership tests.


def _dyck1(s):
    depth = 0
    for x in s:
        depth += 1 if x == 0 else -1
        if depth < 0:
            return False
    return depth == 0


def _dyck_k(s, k=2, bound=2):  # opens 0..k-1, k + t closes t, never deeper than bound
    stack = []
    for x in s:
        if x < k:
            stack.append(x)
            if len(stack) > bound:
                return False
        elif not stack or stack.pop() != x - k:
            return False
    return not stack


def _shuffle(k):  # 2t opens type t, 2t + 1 closes it; each type a Dyck-1 word
    def member(s):
        return all(_dyck1([x % 2 for x in s if x // 2 == t]) for t in range(k))

    return member


def _boolexp(s):  # prefix notation: 0, 1 operands; id 1 + a an operator of arity a
    def parse(i):  # the end of the expression starting at i, or None
        if i >= len(s):
            return None
        for _ in range(max(s[i] - 1, 0)):
            i = parse(i + 1) if i is not None else None
            i = None if i is None else i - 1
        return None if i is None else i + 1

    return parse(0) == len(s)


def _blocks(count):  # a^n b^n (c^n): the symbols 0, 1 (, 2) each n times, in order
    def member(s):
        n, rest = divmod(len(s), count)
        return rest == 0 and list(s) == [x for x in range(count) for _ in range(n)]

    return member


REFERENCE = {
    "majority": (2, lambda s: 2 * sum(s) > len(s)),
    "parity": (2, lambda s: sum(s) % 2 == 1),
    "parity_no_layernorm": (2, lambda s: sum(s) % 2 == 1),
    "dyck1": (2, _dyck1),
    "dyck_k": (4, _dyck_k),
    "dyck_k_softmax": (4, _dyck_k),
    "shuffle_dyck_1": (2, _shuffle(1)),
    "shuffle_dyck_2": (4, _shuffle(2)),
    "shuffle_dyck_3": (6, _shuffle(3)),
    "boolexp_3": (5, _boolexp),
    "anbn": (2, _blocks(2)),
    "anbncn": (3, _blocks(3)),
}


def test_the_reference_parser_reads_prefix_expressions():
    assert _boolexp([0]) and _boolexp([3, 1, 0]) and _boolexp([4, 0, 2, 1, 0])
    assert not _boolexp([]) and not _boolexp([3, 1]) and not _boolexp([0, 0]) and not _boolexp([2])


@pytest.mark.parametrize("row", list(REFERENCE))
def test_each_row_selectable_and_right_on_every_short_string(tmp_path, row):
    out = tmp_path / "o"
    argv = ["languages", "--out", str(out), "--rows", row, "--parity-lengths", "none"]
    assert main([*argv, "--max-len", "6", "--exhaustive-up-to", "6"]) == 0
    (record,) = read_json(out / "languages.json")
    assert record["construction"] == row and record["dtype"] == "float64"
    size, member = REFERENCE[row]
    # every length up to 6, over a larger alphabet up to the longest with at most 2^14 strings
    longest = max(n for n in range(1, 7) if size**n <= 2**14)
    assert record["lengths_checked"] == list(range(1, longest + 1))
    for entry in record["by_length"]:
        strings = list(itertools.product(range(size), repeat=entry["length"]))
        assert entry["strings"] == len(strings) and entry["exhaustive"]
        assert entry["members"] == sum(member(s) for s in strings), entry
        # agreement on every string, with a positive margin (the decision is never 0)
        assert entry["accuracy"] == 1.0 and entry["min_margin"] > 0, entry


def test_the_default_runs_every_row(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["languages", "--out", str(out), *TINY]) == 0
    records = read_json(out / "languages.json")
    assert [r["construction"] for r in records] == list(REFERENCE)
    assert all(r["accuracy"] == 1.0 for r in records)
    printed = capsys.readouterr().out
    assert all(f"\n{row} " in printed for row in REFERENCE)  # one table row per language


def test_an_unknown_row_exits_2_naming_the_choices(tmp_path, capsys):
    out = tmp_path / "o"
    assert _exit(["languages", "--out", str(out), "--rows", "dyck1,dyck2"]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--rows" in last and "'dyck2'" in last
    assert all(row in last for row in REFERENCE)
    assert not out.exists()
