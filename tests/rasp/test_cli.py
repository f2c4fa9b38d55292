"""``transformer-theory rasp``: a smoke run writing its three files, a user's program file, and
bad arguments as one line with exit 2."""

from __future__ import annotations

import pytest

from transformer_theory import jsonio
from transformer_theory.cli import main


def test_rasp_command_writes_model_record_and_figure(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["rasp", "length", "--max-len", "3", "--out", str(out)]) == 0
    rec = jsonio.read_json(str(out / "rasp.json"))
    assert rec["check"]["agree"] and rec["check"]["inputs_checked"] == 3 + 9 + 27
    assert (
        rec["sizes"]["attention_depth"] == 1
        and len(rec["labels"]) == rec["sizes"]["residual_width"]
    )
    assert (out / "model.npz").exists() and (out / "rasp.png").exists()
    assert "agree=True" in capsys.readouterr().out


def test_rasp_command_reads_a_users_program(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(
        "from transformer_theory import rasp\n"
        "VOCAB = 'xy'\n"
        "def program():\n"
        "    return rasp.Map(lambda t: t == 'x', rasp.tokens)\n"
    )
    assert main(["rasp", str(path), "--max-len", "3", "--out", str(tmp_path / "o")]) == 0


@pytest.mark.parametrize(
    "argv, words",
    [
        (["rasp", "nosuch"], "PROGRAM"),
        (["rasp", "length", "--vocab", "aa"], "--vocab"),
        (["rasp", "missing.py"], "no such file"),
        (["rasp", "reverse", "--causal", "--max-len", "3"], "causal mask"),
    ],
)
def test_rasp_command_bad_input_is_one_line_exit_2(argv, words, tmp_path, capsys):
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err and "Traceback" not in err
