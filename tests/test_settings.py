"""Settings classes that make their own command: the declaration (transformer_theory.settings)
and the options jsonargparse generates from it (transformer_theory.cli._options)."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Literal

import pytest
from jsonargparse import ArgumentError

from transformer_theory.cli._main import HelpFormatter
from transformer_theory.cli._options import CommandParser, add_settings, one_line, override
from transformer_theory.settings import (
    OptionError,
    check_minimums,
    flag_of,
    from_args,
    help_of,
    setting,
    split_list,
)


@dataclasses.dataclass(frozen=True)
class Sweep:
    """A toy study's settings.

    Attributes:
      max_len: the longest length measured,
        in tokens.
      depths, widths: the grid of models.
      mode: how to measure, ``fast`` or :data:`~.EXACT`.
      seed: the seed, or none for fresh entropy.
      plot: draw the figure.
    """

    max_len: int = 64
    depths: tuple[int, ...] = setting((1, 2), flag="--depth")
    widths: tuple[int, ...] = (8,)
    mode: Literal["fast", "exact"] = "fast"
    seed: int | None = 0
    plot: bool = True
    ratio: float = setting(0.5, help="the split, a number in (0, 1)")
    sizes: tuple[int, ...] = setting((4,), minimum=1)
    rate: float = setting(0.1, positive=True)
    note: str = setting("", option=False)

    def __post_init__(self) -> None:
        check_minimums(self)
        if self.max_len < 2:
            raise ValueError(f"max_len: expected >= 2, got {self.max_len}")
        if not 0 < self.ratio < 1:
            raise ValueError(f"ratio: expected a number in (0, 1), got {self.ratio}")


def _parser() -> CommandParser:
    parser = CommandParser(prog="sweep", formatter_class=HelpFormatter)
    add_settings(parser, Sweep)
    return parser


def test_defaults_come_from_the_class():
    assert from_args(Sweep, _parser().parse_args([])) == Sweep()


def test_every_type_parses():
    args = _parser().parse_args(
        ["--max-len", "32", "--depth", "1, 3,4", "--mode", "exact", "--seed", "none", "--no-plot",
         "--ratio", "0.25"]
    )  # fmt: skip
    got = from_args(Sweep, args)
    assert got == Sweep(32, (1, 3, 4), (8,), "exact", None, False, 0.25, (4,), 0.1)
    assert isinstance(got.depths, tuple)


def test_the_options_are_the_fields_and_the_flags_follow_the_names():
    flags = {a.option_strings[0] for a in _parser()._actions if a.option_strings}
    flags -= {"-h", "--print_config"}  # jsonargparse's own
    assert flags == {
        "--max-len", "--depth", "--widths", "--mode", "--seed", "--plot", "--ratio", "--sizes",
        "--rate",
    }  # fmt: skip
    assert flag_of(Sweep, "depths") == "--depth"
    assert flag_of(Sweep, "max_len") == "--max-len"
    with pytest.raises(ValueError, match="name"):
        flag_of(Sweep, "nope")


def test_help_comes_from_the_docstring_or_the_setting():
    assert help_of(Sweep, "max_len") == "the longest length measured, in tokens."
    assert help_of(Sweep, "depths") == help_of(Sweep, "widths") == "the grid of models."
    assert help_of(Sweep, "ratio") == "the split, a number in (0, 1)"
    assert help_of(Sweep, "mode") == "how to measure, fast or EXACT."  # markup as plain text
    text = _parser().format_help()
    assert "the longest length measured, in tokens. (default: 64)" in " ".join(text.split())
    assert " ".join(text.split()).count("(default: True)") <= 1  # --plot: said once


@pytest.mark.parametrize(
    "argv, option",
    [
        (["--max-len", "1"], "--max-len"),
        (["--ratio", "2"], "--ratio"),
    ],
)
def test_a_refused_value_names_its_option(argv, option):
    with pytest.raises(OptionError) as err:
        from_args(Sweep, _parser().parse_args(argv))
    assert err.value.option == option
    assert str(err.value).startswith(f"{option}: expected")


@pytest.mark.parametrize(
    "argv",
    [
        ["--max-len", "x"],
        ["--depth", "1,,2"],
        ["--mode", "slow"],
        ["--depth", ""],
        ["--ratio", "nan"],
        ["--ratio", "1e309"],
        ["--seed", "1.5"],
    ],
)
def test_text_that_does_not_parse_is_refused_by_jsonargparse_in_one_line(argv):
    parser = _parser()
    with pytest.raises(ArgumentError) as err:
        parser.parse_args(argv)
    line = str(one_line(parser, err.value))
    assert line.startswith(f"{argv[0]}: ") and "\n" not in line, line
    assert argv[1] in line  # the user's own text, not the JSON it was respelled as


def test_the_spelling_comma_lists_none_and_json_lists():
    parser = _parser()
    assert parser.respell(["--depth", "1, 3,4", "--seed", "none"]) == [
        "--depth=[1,3,4]",
        "--seed=null",
    ]
    for argv in (["--depth", "1,3"], ["--depth=1,3"], ["--depth", "[1, 3]"]):
        assert parser.parse_args(argv).depths == (1, 3)


def test_override_parses_like_the_options():
    got = override(Sweep(), ["max_len=8", "depth=3", "seed=none"])
    assert got == Sweep(max_len=8, depths=(3,), seed=None)
    with pytest.raises(OptionError, match="--max-len"):
        override(Sweep(), ["max_len=1"])
    with pytest.raises(OptionError, match="^--max-len: .*eight"):
        override(Sweep(), ["max_len=eight"])
    with pytest.raises(OptionError, match="--set"):
        override(Sweep(), ["colour=red"])
    with pytest.raises(OptionError, match="--set"):
        override(Sweep(), ["note=x"])  # not an option


def test_split_list():
    assert split_list(" 8, 16,32 ") == ["8", "16", "32"]
    for bad in ("", " ", "8,,16", "8,"):
        with pytest.raises(argparse.ArgumentTypeError):
            split_list(bad)


def test_the_types_are_jsonargparse_typehints_from_the_annotations():
    hints = {a.dest: str(a._typehint) for a in _parser()._actions if getattr(a, "_typehint", None)}
    assert hints == {
        "max_len": "<class 'int'>",
        "depths": "tuple[int, ...]",
        "widths": "tuple[int, ...]",
        "mode": "typing.Literal['fast', 'exact']",
        "seed": "typing.Optional[int]",
        "ratio": "<class 'jsonargparse.typing.FiniteFloat'>",
        "sizes": "tuple[jsonargparse.typing.PositiveInt, ...]",
        "rate": "<class 'jsonargparse.typing.FinitePositiveFloat'>",
    }


def test_a_declared_minimum_is_checked_once_for_both_doors():
    parser = _parser()
    with pytest.raises(ArgumentError):
        parser.parse_args(["--sizes", "3,0"])
    with pytest.raises(ValueError, match="^sizes: expected >= 1, got 0$"):
        Sweep(sizes=(3, 0))
    assert Sweep(sizes=(1, 2)).sizes == (1, 2)
    for bad in ("0", "-1", "nan", "inf"):
        with pytest.raises(ArgumentError):
            parser.parse_args([f"--rate={bad}"])
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="^rate: expected a positive number"):
            Sweep(rate=bad)


@dataclasses.dataclass(frozen=True)
class Wider(Sweep):
    """Attributes:
    extra: one more field.
    """

    extra: int = 1


def test_help_is_inherited_from_the_base_class_docstring():
    assert help_of(Wider, "max_len") == "the longest length measured, in tokens."
    assert help_of(Wider, "extra") == "one more field."


# --- field-named errors turned into options (the command layer's one job) ----------------------


@dataclasses.dataclass(frozen=True)
class Grid:
    """Attributes:
    ns: lengths.
    max_len: the longest.
    bound: also the bound.
    """

    ns: tuple[int, ...] = setting((4,), flag="--n")
    max_len: int = 8
    bound: bool = True


def test_as_options_renames_the_head_and_what_to_lower():
    from transformer_theory.budget import BudgetError
    from transformer_theory.settings import as_options

    err = as_options(Grid, ValueError("ns/max_len: too big at ns = 4; lower ns or max_len"))
    assert isinstance(err, OptionError)
    assert str(err) == "--n/--max-len: too big at ns = 4; lower --n or --max-len"  # not the body
    budget = BudgetError("max_len (or no_bound): 9 GiB; lower max_len (or no_bound)", option="x")
    renamed = as_options(Grid, budget)
    assert isinstance(renamed, BudgetError)
    assert str(renamed) == "--max-len (or --no-bound): 9 GiB; lower --max-len (or --no-bound)"
    other = ValueError("seq_len: not a field here")
    assert as_options(Grid, other) is other


def test_as_options_writes_a_fields_assignment_as_its_option():
    from transformer_theory.settings import as_options

    err = ValueError(
        "max_len: bound=True needs max_len=8 or less; ns=4 and q=3 stay; drop bound=True"
    )
    assert str(as_options(Grid, err)) == (
        "--max-len: --bound needs --max-len 8 or less; --n 4 and q=3 stay; drop --bound"
    )  # q is no field of Grid: left as it is
    err = ValueError("max_len: bound=False cannot go with max_len 8")
    assert str(as_options(Grid, err)) == "--max-len: --no-bound cannot go with max_len 8"


def test_naming_options_reraises_only_what_names_a_field():
    from transformer_theory.settings import naming_options

    with pytest.raises(OptionError, match="^--n: bad$"):
        with naming_options(Grid):
            raise ValueError("ns: bad")
    with pytest.raises(ValueError, match="^q: bad$"):
        with naming_options(Grid):
            raise ValueError("q: bad")


# --- --set: parsed and validated by the settings object, before any work (reliability round 4) --


@dataclasses.dataclass(frozen=True)
class Nested:
    cells: tuple[tuple[int, int, int], ...] = ((1, 2, 4),)
    pairs: tuple[tuple[str, tuple[int, ...]], ...] = (("attention", (8,)),)
    every: tuple[int | None, ...] = (None, 3)
    rate: float = 0.1


def test_override_refuses_non_finite_numbers():
    for text in ("nan", "inf", "-inf", "1e309"):
        with pytest.raises(OptionError, match=f"^--rate: expected a finite number, got {text}$"):
            override(Nested(), [f"rate={text}"])


def test_override_parses_nested_tuples_as_literals_and_checks_their_shape():
    got = override(Nested(), ["cells=((5, 16, 32), (1, 1, 2))", "every=(2, None)"])
    assert got.cells == ((5, 16, 32), (1, 1, 2)) and got.every == (2, None)
    assert override(Nested(), ["pairs=(('rnn', (4, 8)),)"]).pairs == (("rnn", (4, 8)),)
    for text in ("cells=1,1,2", "cells=((1, 2),)", "cells=((1, 2, 'x'),)", "cells=((1, 2, 3.5),)"):
        with pytest.raises(OptionError, match=r"^--cells: ") as err:
            override(Nested(), [text])
        assert "\n" not in str(err.value)
    assert override(Nested(), ["cells=[[5, 16, 32]]"]).cells == ((5, 16, 32),)  # JSON too
    with pytest.raises(OptionError, match="^--pairs: .*attention"):
        override(Nested(), ["pairs=attention"])
    with pytest.raises(OptionError, match="^--every: "):
        override(Nested(), ["every=3"])


def _experiments():
    from transformer_theory.cli._experiments import discover

    return sorted(discover().items())


PROBES = ("nan", "inf", "1e309", "0", "-1", "attention", "1,1,2", "", "none")


@pytest.mark.parametrize("name, found", _experiments(), ids=[n for n, _ in _experiments()])
def test_every_experiment_setting_is_refused_in_one_line_or_finite(name, found):
    # every --set a user may type ends as a setting the object accepted (finite) or an
    # OptionError: never a TypeError, never a NaN carried into the run
    import math

    from transformer_theory.settings import _option_fields

    config = found[1].get_config("smoke")
    for f in _option_fields(type(config)):
        for text in PROBES:
            try:
                value = getattr(override(config, [f"{f.name}={text}"]), f.name)
            except OptionError as err:
                assert "\n" not in str(err)
                continue
            flat = list(value) if isinstance(value, (tuple, list)) else [value]
            assert all(not isinstance(v, float) or math.isfinite(v) for v in flat), (f.name, text)


COUNTS = {
    "composition_bound": ("steps", "batch", "held_out", "functions", "learning_rate"),
    "composition_cot": ("steps", "batch", "held_out", "functions", "learning_rate"),
    "composition_depth": ("steps", "held_out", "heads"),
    "composition_one_layer": ("steps", "batch", "heads", "n"),
    "composition_one_pass": ("steps", "batch", "held_out", "learning_rate"),
    "qsa_bits_attention": ("steps", "batch", "held_out", "seq_len", "q", "learning_rate"),
    "qsa_bits_rnn": ("steps", "batch", "held_out", "seq_len", "q", "learning_rate"),
    "match_width": ("steps", "batch", "seq_len", "modulus"),
    "collapse_tasks": ("learning_rate", "train_min_len", "count_max_len"),
    "dyck_k": ("precision_k", "precision_depth"),
}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_a_zero_count_is_refused_by_the_settings_object(name):
    experiments = dict(_experiments())
    config = experiments[name][1].get_config("smoke")
    for field in COUNTS[name]:
        with pytest.raises(ValueError, match=f"^{field}: "):  # the Python API names the field
            dataclasses.replace(config, **{field: 0})
        with pytest.raises(OptionError, match=f"^--{field.replace('_', '-')}: "):
            override(config, [f"{field}=0"])


SCRIPT_PROBES = [
    (
        "composition_bound",
        "learning_rate=nan",
        "--learning-rate: expected a finite number, got nan",
    ),
    (
        "composition_bound",
        "learning_rate=inf",
        "--learning-rate: expected a finite number, got inf",
    ),
    ("composition_bound", "learning_rate=1e309", "--learning-rate: expected a finite number"),
    ("composition_bound", "cells=1,1,2", "--cells: expected a list of tuples (int, int, int)"),
    ("sanford_qsa_separation", "widths=attention", "--widths: "),
    ("composition_bound", "steps=0", "--steps: "),
    ("composition_bound", "batch=0", "--batch: "),
    ("composition_bound", "held_out=0", "--held-out: "),
    ("composition_bound", "functions=0", "--functions: "),
]


def _load_script(script: str):
    """``experiments/<script>.py`` loaded as a module (its ``main(argv)``)."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "experiments" / f"{script}.py"
    spec = importlib.util.spec_from_file_location(f"script_{script}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("script, assignment, message", SCRIPT_PROBES)
def test_the_scripts_refuse_a_bad_set_before_any_work(
    script, assignment, message, tmp_path, capsys
):
    module = _load_script(script)
    out = tmp_path / "out"
    assert module.main(["--smoke", "--set", assignment, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()  # refused before the output directory is made


@pytest.mark.parametrize(
    "script, argv, message",
    [
        ("composition_depth", ["--size", "big"], "--size: expected one of default, smoke, got big"),
        ("composition_depth", ["--smoke"], "--out: required; see --help"),
        ("composition_depth", ["--smoke", "--sett", "x"], "--sett"),
        ("sanford_qsa_bits", ["--model", "cnn"], "--model: expected one of attention, rnn"),
    ],
)
def test_the_scripts_refuse_a_bad_option_in_one_line(script, argv, message, tmp_path, capsys):
    # the scripts' own options (--out, --size, --model) too: one line, exit 2, no usage block
    module = _load_script(script)
    out = tmp_path / "out"
    out_args = [] if "--smoke" in argv and len(argv) == 1 else ["--out", str(out)]
    assert module.main([*argv, *out_args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()
