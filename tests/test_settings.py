"""Settings classes that make their own command (transformer_theory.settings)."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Literal

import pytest

from transformer_theory.settings import (
    OptionError,
    add_options,
    check_minimums,
    flag_of,
    from_args,
    help_of,
    override,
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sweep", exit_on_error=False)
    add_options(parser, Sweep)
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
    flags = {a.option_strings[0] for a in _parser()._actions if a.option_strings} - {"-h"}
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
    "argv", [["--max-len", "x"], ["--depth", "1,,2"], ["--mode", "slow"], ["--depth", ""]]
)
def test_text_that_does_not_parse_is_refused_by_argparse(argv):
    with pytest.raises(argparse.ArgumentError):
        _parser().parse_args(argv)


def test_override_parses_like_the_options():
    got = override(Sweep(), ["max_len=8", "depth=3", "seed=none"])
    assert got == Sweep(max_len=8, depths=(3,), seed=None)
    with pytest.raises(OptionError, match="--max-len"):
        override(Sweep(), ["max_len=1"])
    with pytest.raises(OptionError, match="--max-len: expected an integer"):
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


def test_the_types_are_named_for_argparse_and_the_bad_argument_probes():
    types = {a.dest: a.type.__name__ for a in _parser()._actions if a.type is not None}
    assert types == {
        "max_len": "int",
        "depths": "list of integers",
        "widths": "list of integers",
        "mode": "choice",
        "seed": "int or none",
        "ratio": "float",
        "sizes": "list of integers",
        "rate": "positive_float",
    }


def test_a_declared_minimum_is_checked_once_for_both_doors():
    parser = _parser()
    sizes = next(a for a in parser._actions if a.dest == "sizes")
    assert sizes.type.minimum == 1
    with pytest.raises(argparse.ArgumentError):
        parser.parse_args(["--sizes", "3,0"])
    with pytest.raises(ValueError, match="^sizes: expected >= 1, got 0$"):
        Sweep(sizes=(3, 0))
    assert Sweep(sizes=(1, 2)).sizes == (1, 2)
    for bad in ("0", "-1", "nan"):
        with pytest.raises(argparse.ArgumentError):
            parser.parse_args(["--rate", bad])
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
