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
    (["verify", "--families", ""], "--families"),
    (["verify", "--datasets", ""], "--datasets"),
    (["verify", "--datasets", "toy,mnist"], "--datasets"),
    (["verify", "--icqa", "3,3,2,9"], "--icqa"),  # a 4th number was the example count
    (["verify", "--icqa", "3,3"], "--icqa"),  # was completed from the defaults
    (["verify", "--icqa", "3,3,2,9,9"], "--icqa"),  # was a TypeError
    (["verify", "--icqa", "3,x,2"], "--icqa"),
    (["verify", "--templates", "4"], "--templates"),
    (["verify", "--models", "0"], "--models"),
    (["verify", "--models", "-3"], "--models"),
    (["verify", "--chunk-size", "0"], "--chunk-size"),
    (["verify", "--chunk-size", "-5"], "--chunk-size"),
    (["verify", "--witness-steps", "0"], "--witness-steps"),
    (["verify", "--witness-restarts", "0"], "--witness-restarts"),
    (["verify", "--seed", "-1"], "--seed"),
    (["verify", "--random-sets", "-1"], "--random-sets"),
    (["verify", "--quick", "--out", "/dev/null"], "--out"),  # exists and is not a directory
    (["verify", "--quick", "--out", "/proc/foo"], "--out"),  # cannot be created
    # certify
    (["certify", "{tmp}"], "is a directory"),  # was "no such file"
    (["certify", "{tmp}/missing.json"], "no such file"),
    (["certify", "/dev/null"], "not a regular file"),
    (["certify", "{tmp}/x.json", "--time-limit", "0"], "--time-limit"),
    (["certify", "{tmp}/x.json", "--time-limit", "-1"], "--time-limit"),
    (["certify", "{tmp}/x.json", "--time-limit", "soon"], "--time-limit"),
    (["certify", "{tmp}/x.json", "--family", "gpt"], "--family"),
    (["certify", "{tmp}/x.json", "--out", "/proc/foo"], "--out"),
    (["certify", "{tmp}/x.json", "--out", "/dev/null"], "--out"),
    # construct
    (["construct", "--theorem", "3", "--n-q", "100000", "--samples", "100"], "--n-q"),  # 1 TiB
    (["construct", "--theorem", "5", "--template-length", "30"], "--template-length"),
    (["construct", "--theorem", "3", "--n-q", "2", "--n-a", "2", "-k", "5"], "-k"),
    (["construct", "--theorem", "3", "--n-q", "0"], "--n-q"),
    (["construct", "--samples", "0"], "--samples"),
    (["construct", "--chunk-size", "-5"], "--chunk-size"),
    (["construct", "--theorem", "3", "--out", "/proc/foo"], "--out"),
    (["construct", "--theorem", "3", "--out", "/dev/null"], "--out"),
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
    # collapse
    (["collapse", "--positional", "nonsense", "--out", "{tmp}/o"], "--positional"),
    (["collapse", "--precision", "float16", "--out", "{tmp}/o"], "--precision"),
    (["collapse", "--max-len", "1", "--out", "{tmp}/o"], "--max-len"),
    (["collapse", "--max-len", "100000", "--out", "{tmp}/o"], "--max-len"),
    (["collapse", "--depth", "0", "--out", "{tmp}/o"], "--depth"),
    (["collapse", "--heads", "two", "--out", "{tmp}/o"], "--heads"),
    (["collapse", "--pattern", "spiral", "--out", "{tmp}/o"], "--pattern"),
    (["collapse", "--width", "8", "--out", "{tmp}/o"], "--width"),
    (["collapse", "--max-len", "8", "--out", "/proc/foo"], "--out"),
    # oversquash
    (["oversquash", "--length", "5000", "--out", "{tmp}/o"], "--length"),
    (["oversquash", "--positional", "learned", "--out", "{tmp}/o"], "--positional"),
    (["oversquash", "--seeds", "-1", "--out", "{tmp}/o"], "--seeds"),
    # heads
    (["heads", "{tmp}/nowhere", "--out", "{tmp}/o"], "RUN_DIR"),
    (["heads", "{tmp}", "--out", "{tmp}/o"], "RUN_DIR"),
    (["heads", "{tmp}", "--out", "{tmp}/o", "--examples", "0"], "--examples"),
    (["heads", "{tmp}", "--out", "{tmp}/o", "--slack", "2"], "--slack"),
    (["heads", "{tmp}", "--out", "/proc/foo"], "--out"),
    # efficient-attention
    (["efficient-attention", "--out", "{tmp}/o", "--max-len", "0"], "--max-len"),
    (
        ["efficient-attention", "--out", "{tmp}/o", "--min-len", "512", "--max-len", "256"],
        "--max-len",
    ),
    (["efficient-attention", "--out", "{tmp}/o", "--variants", "nonsense"], "--variants"),
    (["efficient-attention", "--out", "{tmp}/o", "--dim", "3"], "--dim"),
    (["efficient-attention", "--out", "{tmp}/o", "--run", "{tmp}/nowhere"], "--run"),
    (["efficient-attention", "--out", "{tmp}/o", "--run", "{tmp}"], "--run"),
    (["efficient-attention", "--out", "/proc/foo"], "--out"),
    # sanford
    (["sanford", "--task", "match4", "--out", "{tmp}/o"], "--task"),
    (["sanford", "--n", "4,x", "--out", "{tmp}/o"], "--n"),
    (["sanford", "--task", "qsa", "--n", "4", "--q", "4", "--out", "{tmp}/o"], "--q"),
    (["sanford", "--task", "qsa", "--eps", "1.5", "--out", "{tmp}/o"], "--eps"),
    (["sanford", "--window", "-1", "--out", "{tmp}/o"], "--window"),
    (["sanford", "--out", "/proc/foo"], "--out"),
    # ngram
    (["ngram", "--order", "1", "--out", "{tmp}/o"], "--order"),
    (["ngram", "--construction", "3.4", "--out", "{tmp}/o"], "--construction"),
    (["ngram", "--precision", "float16", "--out", "{tmp}/o"], "--precision"),
    (["ngram", "--attention", "softmax", "--out", "{tmp}/o"], "--beta"),
    (["ngram", "--beta", "10", "--out", "{tmp}/o"], "--beta"),
    (["ngram", "--zero-fraction", "1.5", "--out", "{tmp}/o"], "--zero-fraction"),
    (
        ["ngram", "--attention", "softmax", "--beta", "9", "--zero-fraction", "0.2"]
        + ["--out", "{tmp}/o"],
        "--zero-fraction",
    ),
    (
        ["ngram", "--attention", "softmax", "--beta", "9", "--soft-lengths", "2,x"]
        + ["--out", "{tmp}/o"],
        "--soft-lengths",
    ),
    (["ngram", "--max-len", "-1", "--out", "{tmp}/o"], "--max-len"),
    (["ngram", "--out", "/proc/foo"], "--out"),
    # languages
    (
        ["languages", "--out", "{tmp}/o", "--exhaustive-up-to", "17", "--max-len", "64"],
        "--exhaustive-up-to",
    ),
    (
        ["languages", "--out", "{tmp}/o", "--exhaustive-up-to", "9", "--max-len", "8"],
        "--exhaustive-up-to",
    ),
    (["languages", "--out", "{tmp}/o", "--parity-lengths", "64,x"], "--parity-lengths"),
    (["languages", "--out", "{tmp}/o", "--parity-lengths", "99999"], "--parity-lengths"),
    (["languages", "--out", "{tmp}/o", "--max-len", "0"], "--max-len"),
    (["languages", "--out", "{tmp}/o", "--rows", "dyck2"], "--rows"),
    (["languages", "--out", "/proc/foo"], "--out"),
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
