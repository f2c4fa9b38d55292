"""Every subcommand refuses bad arguments the same way: non-zero exit (2), one line on stderr that
names the argument, no traceback, and nothing computed first.

The commands run in-process (``cli.main``), so an uncaught exception fails the test with its own
traceback, and a case costs milliseconds, not a JAX import. Each case is
``(argv, text the message must contain)``; add one for every argument a command validates.
"""

from __future__ import annotations

import pytest

from transformer_theory.cli import main

# (argv, substring the error line must contain); {tmp} is replaced by a fresh temporary directory
CASES = [
    # verify
    (["verify", "--families", "nonsense"], "--families"),
    # train
    (["train", "--experiment", "nonsense", "--out", "{tmp}/o"], "--experiment"),
    (["train", "--experiment", "fig2_depth", "--tasks", "nonsense", "--out", "{tmp}/o"], "--tasks"),
    (["train", "--experiment", "fig2_depth", "--steps", "0", "--out", "{tmp}/o"], "--steps"),
    (["train", "--experiment", "fig2_depth", "--lr", "-1", "--out", "{tmp}/o"], "--lr"),
    (["train", "--experiment", "fig2_depth", "--size", "huge", "--out", "{tmp}/o"], "--size"),
    (["train", "--experiment", "fig2_depth", "--seeds", "-1", "--out", "{tmp}/o"], "--seeds"),
    (["train", "--config", "{tmp}/missing.py", "--out", "{tmp}/o"], "--config"),
    (["train", "--experiment", "fig2_depth", "--steps", "1", "--out", "/proc/foo"], "--out"),
    # plot
    (["plot", "{tmp}"], "DIR"),
    (["plot", "{tmp}/nowhere"], "DIR"),
    # sanford
    (["sanford", "--task", "match4", "--out", "{tmp}/o"], "--task"),
    (["sanford", "--n", "4,x", "--out", "{tmp}/o"], "--n"),
    (["sanford", "--task", "qsa", "--n", "4", "--q", "4", "--out", "{tmp}/o"], "--q"),
    (["sanford", "--task", "qsa", "--eps", "1.5", "--out", "{tmp}/o"], "--eps"),
    (["sanford", "--window", "-1", "--out", "{tmp}/o"], "--window"),
    (["sanford", "--out", "/proc/foo"], "--out"),
]


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as err:  # argparse's own errors
        code = err.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, needle", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_argument_is_one_line_exit_2(argv, needle, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = _run(argv, capsys)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err and "Traceback" not in out
    last = err.strip().splitlines()[-1]
    assert needle in last, f"the error line does not name {needle!r}: {last!r}"
