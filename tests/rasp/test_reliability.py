"""The RASP probes of the reliability round (issue 48), each failing before its fix: no check
over nothing reports agreement, an unknown format is refused, sizes are refused with their
estimate counting every option, user program files fail in one line, files in ``--out`` are
written atomically and never through a planted link, the plot tells an MLP-only layer."""

from __future__ import annotations

import os

import numpy as np
import pytest

from transformer_theory import rasp
from transformer_theory.cli import main
from transformer_theory.rasp import (
    _check,
    _library,
    _loader,
    _lower_bounds,
    _outputs,
    _study_program,
)


def _compiled(name="length", vocab="ab", n=3):
    prog, v = _library.get_program(name, vocab)
    return rasp.compile(prog, v, n)


def test_a_check_over_no_input_is_refused_not_agreement():
    c = _compiled()
    with pytest.raises(ValueError, match="0 inputs"):
        rasp.check(c, max_inputs=0, samples_per_length=0)
    prog, v = _library.get_program("length", "ab")
    with pytest.raises(ValueError, match="0 inputs"):
        _study_program.study(prog, v, 3, samples=0, max_inputs=0)
    with pytest.raises(ValueError, match="samples_per_length"):
        rasp.check(c, samples_per_length=-1)
    # sampling only (max_inputs 0) still checks, and says so
    rec = rasp.check(c, max_inputs=0, samples_per_length=2)
    assert rec["inputs_checked"] == 6 and rec["sampled_lengths"] == [1, 2, 3]


_C = None


def _small():
    global _C
    if _C is None:
        _C = _compiled("reverse", "ab", 3)
    return _C


_certs = _lower_bounds.one_layer_certificates
_PROG = _library.get_program("reverse", "ab")[0]
_HUGE = 2**70


@pytest.mark.parametrize(
    "call, name",
    [
        # a negative batch checked no input and reported agree=True; 0 was range()'s error
        (lambda: rasp.check(_small(), batch_size=-1), "batch_size"),
        (lambda: rasp.check(_small(), batch_size=0), "batch_size"),
        (lambda: rasp.check(_small(), batch_size=None), "batch_size"),
        (lambda: rasp.check(_small(), max_reported=-1), "max_reported"),
        (lambda: rasp.check(_small(), seed=1.5), "seed"),
        (lambda: rasp.check(_small(), lengths="1"), "lengths"),
        (lambda: rasp.check(_small(), lengths=[1.5]), "lengths"),
        (
            lambda: rasp.check(_small(), max_inputs=1, samples_per_length=_HUGE),
            "samples_per_length",
        ),
        (lambda: rasp.run(_small(), "ab"), "inputs"),
        (lambda: rasp.run(_small(), [["z"]]), "inputs"),
        (lambda: rasp.evaluate(_PROG, 5), "xs"),
        # study's own names (it said samples_per_length, dtype, max_inputs, lengths)
        (lambda: _study_program.study(_PROG, "ab", 3, samples=-1), "samples"),
        (lambda: _study_program.study(_PROG, "ab", 3, precision="float8"), "precision"),
        (lambda: _study_program.study(_PROG, "ab", 3, certificate_inputs=0), "certificate_inputs"),
        (lambda: _study_program.study(_PROG, "ab", 3, precision_lengths=[0]), "precision_lengths"),
        (lambda: _study_program.study(_PROG, "ab", _HUGE), "max_seq_len"),
        # a precision length too large to compile named as study's argument (it said lengths)
        (
            lambda: _study_program.study(_PROG, "ab", 3, precision_lengths=[2**40]),
            "precision_lengths",
        ),
        (lambda: _lower_bounds.lower_bounds(_small(), -1), "certificate_inputs"),
        (lambda: rasp.compile(_PROG, 5, 3), "vocab"),
        (lambda: rasp.compile(_PROG, [[1], [2]], 3), "vocab"),
        (lambda: rasp.precision_limits(_PROG, "ab", samples=-1), "samples"),
        (lambda: rasp.precision_limits(_PROG, "ab", lengths=["a"]), "lengths"),
        (lambda: rasp.precision_limits(_PROG, "ab", dtypes=[]), "dtypes"),
        (lambda: rasp.precision_limits(_PROG, "ab", lengths=[2**40]), "lengths"),
        (lambda: rasp.certified_length(_PROG, "ab", softmax_scale=float("nan")), "softmax_scale"),
        (lambda: rasp.certified_length(_PROG, "ab", lengths=[1.5]), "lengths"),
        (lambda: _check.check_cost(0, 3), "vocab_size"),
        (lambda: _check.check_cost(2, 3, samples=-1), "samples"),
        (lambda: _loader.load_program(5), "spec"),
        # the task at length 0 failed inside the interpreter (IndexError)
        (lambda: _certs(_PROG, "ab", [0]), "lengths"),
        (lambda: _certs(_PROG, "ab", []), "lengths"),
        (lambda: _certs(_PROG, "", [1]), "vocab"),
        (lambda: _certs(_PROG, "ab", [1], max_inputs=0), "max_inputs"),
        (lambda: _certs(_PROG, "ab", [1], families=["x"]), "families"),
        (lambda: _certs("x", "ab", [1]), "program"),
    ],
)
def test_bad_arguments_are_a_value_error_naming_them(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


def test_lengths_beyond_enumeration_are_skipped_without_computing_the_count():
    # |V|^(2^70) was computed before the comparison with max_inputs (it never ended)
    assert _certs(_PROG, "ab", [_HUGE]) == []


def test_write_outputs_refuses_a_file_where_the_directory_goes(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match="^out:"):
        _outputs.write_outputs(_small(), {}, str(tmp_path / "f"))


def test_predicted_exact_refuses_an_unknown_format_and_analyses_float16():
    c = _compiled()
    with pytest.raises(ValueError, match="dtype"):
        _check.predicted_exact(c, "float8")
    rec = _check.predicted_exact(c, "float16")
    assert set(rec) == {"exact", "limited_by"}
    # a weight beyond float16's largest number (65504) is a limit, not exactness
    big = _compiled("length", "ab", 3)
    big.weights.layers[0].mlp.w1[0, 0] = 1e6
    assert not _check.predicted_exact(big, "float16")["exact"]


def _one_line(capsys, *words):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err
    return err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--max-len", "3", "--max-inputs", "1", "--samples", "1000000000000"], "--samples"),
        (["--max-len", "1", "--vocab", "".join(chr(0x100 + i) for i in range(4000))], "--vocab"),
        (["--max-len", "3", "--max-inputs", "0", "--samples", "0"], "0 inputs"),
    ],
)
def test_sizes_and_empty_checks_are_refused_before_work(argv, words, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["rasp", "reverse", *argv, "--out", str(out)]) == 2
    _one_line(capsys, words)
    assert not out.exists()


def test_a_vocab_byte_that_is_not_text_is_one_line_before_work(tmp_path, capsys):
    # $'a\xffb' on a UTF-8 command line arrives as 'a\udcffb': the model and record were
    # written, then matplotlib's traceback (exit 1) as it drew the title
    out = tmp_path / "o"
    assert (
        main(["rasp", "reverse", "--vocab", "a\udcffb", "--max-len", "3", "--out", str(out)]) == 2
    )
    _one_line(capsys, "--vocab", "not text")
    assert not out.exists()


def test_a_token_no_font_draws_is_drawn_escaped(tmp_path):
    # the same byte in a user's file (VOCAB = ["a", "\udcff"]) reaches the figure
    from transformer_theory.rasp import _outputs

    prog = rasp.Map(lambda x: x, rasp.tokens)
    compiled = rasp.compile(prog, ["a", "\udcff"], 2)
    path = _outputs.figure(compiled, str(tmp_path / "f.png"))
    assert os.path.getsize(path) > 0


def test_cli_accepts_max_inputs_0_as_the_api_does(tmp_path, capsys):
    out = tmp_path / "o"
    argv = ["rasp", "length", "--max-len", "2", "--max-inputs", "0", "--samples", "2"]
    assert main([*argv, "--out", str(out)]) == 0
    assert "checked 4 inputs" in capsys.readouterr().out


@pytest.mark.parametrize(
    "source, words",
    [
        ("def program():\n    raise RuntimeError('boom')\n", "RuntimeError: boom"),
        ("def program(x):\n    return x\n", "program()"),
        ("VOCAB = 5\n" + "def program():\n    return rasp.tokens\n", "VOCAB"),
        ("VOCAB = None\n" + "def program():\n    return rasp.tokens\n", "VOCAB"),
        ("VOCAB = [[1], [2]]\n" + "def program():\n    return rasp.tokens\n", "VOCAB"),
        (
            "def bad(k, q):\n    raise ZeroDivisionError('pred')\n"
            "def program():\n"
            "    return rasp.Aggregate(rasp.Select(rasp.tokens, rasp.tokens, bad), rasp.tokens)\n",
            "pred",
        ),
        (
            "def program():\n"
            "    return rasp.Map(lambda t: float('inf'), rasp.tokens, numerical=True)\n",
            "Infinity",
        ),
        (
            "def program():\n    x = rasp.tokens\n    for _ in range(3000):\n"
            "        x = rasp.Map(lambda t: t, x)\n    return x\n",
            "Error",
        ),
        (
            "import random\n"
            "def program():\n    return rasp.Map(lambda t: random.random(), rasp.tokens)\n",
            "mine.py",
        ),
    ],
)
def test_every_failure_of_a_users_file_is_one_line_naming_it(source, words, tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_text("from transformer_theory import rasp\n" + source)
    code = main(["rasp", str(path), "--max-len", "2", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    if code == 1:  # the random Map compiled: its model disagrees with its interpreter, said
        return
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "mine.py" in err, err
    assert words in err, err


def test_files_in_out_are_replaced_never_written_through_a_planted_link(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    victims = {}
    for name in ("model.npz", "rasp.png", "rasp.json"):
        target = tmp_path / f"victim-{name}"
        target.write_text("keep")
        os.symlink(target, out / name)
        victims[name] = target
    assert main(["rasp", "length", "--max-len", "2", "--out", str(out)]) == 0
    for name, target in victims.items():
        assert target.read_text() == "keep"
        assert not (out / name).is_symlink() and (out / name).stat().st_size > 0
    leftovers = [p for p in os.listdir(out) if p.startswith(".tmp")]
    assert not leftovers


def test_a_full_disk_leaves_no_truncated_model(tmp_path, monkeypatch):
    """np.savez raising mid-write (ENOSPC) leaves the previous model.npz whole."""
    import errno

    out = tmp_path / "o"
    assert main(["rasp", "length", "--max-len", "2", "--out", str(out)]) == 0
    before = (out / "model.npz").read_bytes()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", full)
    with pytest.raises(OSError):
        c = _compiled("length", "ab", 2)
        _outputs.write_outputs(c, {"program": "length"}, str(out))
    assert (out / "model.npz").read_bytes() == before
    assert not [p for p in os.listdir(out) if p.startswith(".tmp")]


def test_the_plot_draws_an_mlp_only_layer_as_such(tmp_path, monkeypatch):
    """A Map before the first attention compiles to an MLP-only layer: its panel is not a
    uniform attention map."""
    from transformer_theory import plotting
    from transformer_theory.rasp import _outputs

    prog = rasp.Aggregate(
        rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.EQ),
        rasp.Map(lambda t: t == "a", rasp.tokens, numerical=True),
    )
    c = rasp.compile(prog, "ab", 3)
    layers = [(np.any(lay.attn.w_qk) or np.any(lay.attn.w_v)) for lay in c.weights.layers]
    titles = []
    real = plotting.save_figure

    def keep(fig, path):
        titles.extend(ax.get_title() for ax in fig.axes)
        return real(fig, path)

    monkeypatch.setattr(plotting, "save_figure", keep)
    _outputs.figure(c, str(tmp_path / "f.png"))
    mlp_only = [t for t in titles if "MLP only" in t]
    assert len(mlp_only) == layers.count(False)
    if not all(layers):
        assert mlp_only


def test_size_refusals_name_the_argument_and_the_command_its_option():
    # issue 46: the maths names the study's argument (max_len, samples, ...), only the command
    # turns it into a flag
    from transformer_theory import budget

    with pytest.raises(budget.BudgetError) as err:
        _check.check_cost(3, 3, max_inputs=1, samples=10**12)
    assert str(err.value).startswith("samples:") and err.value.option == "samples"
    assert "--" not in str(err.value) and "lower samples" in str(err.value)
    with pytest.raises(budget.BudgetError) as err:
        _check.check_cost(4000, 1)
    assert str(err.value).startswith("vocab:") and "--" not in str(err.value)
    # the width is mostly 3 N here (3 tokens, inputs up to 400): the refusal names max_len
    with pytest.raises(budget.BudgetError) as err:
        _check.check_cost(3, 400)
    assert str(err.value).startswith("max_len:") and err.value.option == "max_len"
    assert "lower max_len" in str(err.value)


def test_the_command_says_1_layer_and_1_head(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["rasp", "length", "--max-len", "2", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "length: 1 layer (1 attention, attention depth 1), 1 head," in text
    assert "1 layers" not in text and "1 heads" not in text
    assert "beside 1 compiled attention layer;" in text


def test_the_ledger_rows_say_1_layer_and_2_layers():
    from transformer_theory.claims import runner

    length, reverse = runner.run_claims(ids=["rasp.length", "rasp.reverse"])
    assert length.figure.endswith("(1 layer)") and reverse.figure.endswith("(2 layers)")


def test_lower_bounds_say_when_no_length_was_small_enough_to_certify():
    # 46 tokens: already length 2 has 2,116 inputs, over the 2,048 a certificate may read, so no
    # length is tried; the line says so instead of "not certified impossible of []"
    from transformer_theory.rasp import _library

    vocab = [chr(ord("a") + i) for i in range(26)] + [chr(ord("A") + i) for i in range(20)]
    program, vocab = _library.get_program("reverse", vocab)
    _, record = _study_program.study(program, vocab, 2, max_inputs=10, samples=2)
    line = next(x for x in record.lines("float64") if x.startswith("lower bounds"))
    assert record.lower_bounds.one_layer_certificates == ()
    assert line.endswith("not tried (every length has too many inputs for a certificate)")
    _, record = _study_program.study(*_library.get_program("reverse", "ab"), 3)
    line = next(x for x in record.lines("float64") if x.startswith("lower bounds"))
    assert line.endswith("not certified impossible at lengths [2, 3]")
    _, record = _study_program.study(*_library.get_program("parity", None), 4)
    line = next(x for x in record.lines("float64") if x.startswith("lower bounds"))
    assert line.endswith("certified impossible at lengths [3, 4] of [2, 3, 4]")


def test_the_study_measures_the_precision_limits_as_precision_limits_does():
    # the study compiles max_len's model once and reuses it for that precision length
    from transformer_theory import jsonio
    from transformer_theory.rasp._records import PrecisionLimit

    prog, vocab = _library.get_program("frac_prevs", None)
    _, record = _study_program.study(prog, vocab, 3, precision_lengths=[4, 3, 3])
    direct = rasp.precision_limits(prog, vocab, lengths=[4, 3, 3], samples=16, dtypes=_check.DTYPES)
    assert record.precision_limits == tuple(jsonio.as_record(PrecisionLimit, r) for r in direct)
    assert [r.length for r in record.precision_limits[0].rows] == [3, 3, 4]
