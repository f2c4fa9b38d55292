"""Settings objects that make their own command: one dataclass per study, its fields the options.

A study's settings are a frozen dataclass whose ``__post_init__`` validates every field once,
raising ``ValueError("field_name: what is wrong")``. The command line is generated from such a
class by jsonargparse (:mod:`transformer_theory.cli._options`: the type from the annotation, the
default from the field, the help from the class docstring's ``Attributes:`` entry, read by
docstring-parser). This module holds what the class declares and what the command layer needs to
name a flag:

- :func:`setting`: a field with what its option needs beyond the annotation (a flag other than
  ``--`` + the name, a metavar, a minimum or ``positive``, ``words`` for several words);
- :func:`flag_of` and :func:`help_of`: a field's option and help text;
- :func:`from_args`: the settings from parsed options; a ``ValueError`` that ``__post_init__``
  raises naming a field comes back as an :class:`OptionError` naming its flag (``--max-len:
  expected 2..8192, got 1``), which the command line prints as one line and exit 2;
- :func:`as_options` / :func:`naming_options`: an error that names fields (``ns/qs: ...; lower
  ns or qs``, as the library's refusals are written) as one naming their options (``--n/--q: ...;
  lower --n or --q``): the library names what it was given, only the command line knows the
  flags.

Example::

    @dataclasses.dataclass(frozen=True)
    class Sweep:
        \"\"\"Attributes:
          max_len: the longest length measured.
          depths: the models' depths.
        \"\"\"

        max_len: int = 64
        depths: tuple[int, ...] = setting((1, 2), flag="--depth", positive=True)

        def __post_init__(self):
            check_minimums(self)
            if self.max_len < 2:
                raise ValueError(f"max_len: expected >= 2, got {self.max_len}")

    parser = CommandParser()  # transformer_theory.cli._options
    add_settings(parser, Sweep)
    sweep = from_args(Sweep, parser.parse_args(["--max-len", "32", "--depth", "1,3"]))
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import inspect
import re
import textwrap
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = [
    "OptionError",
    "as_options",
    "flag_of",
    "from_args",
    "help_of",
    "naming_options",
    "Declared",
    "check_minimums",
    "declared",
    "setting",
    "split_list",
]

S = TypeVar("S")

_NOT_AN_OPTION = "not_an_option"


def split_list(text: str) -> list[str]:
    """The items of a comma list, stripped (``"8, 16,32"`` -> ``["8", "16", "32"]``), for the
    library's own comma-list values (a record's field); the command line's comma lists are read
    by :mod:`transformer_theory.cli._options`.

    Raises:
      argparse.ArgumentTypeError: the text is empty or has an empty item (``8,,16``).
    """
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in parts):
        raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
    return parts


class OptionError(ValueError):
    """A settings field's value is wrong; the message names the option that sets it."""

    def __init__(self, option: str, message: str):
        super().__init__(f"{option}: {message}")
        self.option = option
        self.message = message


def setting(
    default: Any = dataclasses.MISSING,
    *,
    help: str | None = None,  # noqa: A002 - argparse's word
    flag: str | None = None,
    metavar: str | None = None,
    minimum: float | None = None,
    positive: bool = False,
    option: bool = True,
    words: bool = False,
    repeat: bool = False,
    factory: Callable[[], Any] | None = None,
) -> Any:
    """A dataclass field with what its command-line option needs beyond the annotation.

    Args:
      default: the field's default (a list or dict is copied per instance).
      help: the option's help (else the docstring's ``Attributes:`` entry).
      flag: the option's name (else ``--`` + the field's name with ``-`` for ``_``).
      metavar: argparse's metavar.
      minimum: the smallest value allowed (of the number, or of each item of a tuple), checked
        by :func:`check_minimums` in ``__post_init__`` and by the option's jsonargparse type (a
        restricted number type, ``IntAtLeast0``, that the bad-argument tests read).
      positive: the value (each item of a tuple) must be > 0: a size, a count, a rate; checked
        like ``minimum`` (jsonargparse's ``PositiveInt``, or ``FinitePositiveFloat``).
      option: ``False`` for a field that is not an option (set by the program, not the user).
      words: the option takes several words and may be repeated, all gathered into one list
        (``--seeds 0 1 2``, ``--id A --id B``), as well as a comma list.
      repeat: the option may be given several times, each value one item of the list, never split
        at its commas (``--set widths=1,4 --set steps=10``).
      factory: makes the default when an instance is made (a default read from other data:
        another experiment's configs), in place of ``default``.
    """
    metadata = {
        "help": help,
        "flag": flag,
        "metavar": metavar,
        "words": words,
        "repeat": repeat,
        "minimum": minimum,
        "positive": positive,
    }
    if not option:
        metadata[_NOT_AN_OPTION] = True
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    if isinstance(default, (list, dict, set)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


@dataclasses.dataclass(frozen=True)
class Declared:
    """What :func:`setting` declared for a field's option (its arguments, typed)."""

    help: str | None = None  # noqa: A003 - argparse's word
    flag: str | None = None
    metavar: str | None = None
    minimum: float | None = None
    positive: bool = False
    words: bool = False
    repeat: bool = False


def declared(f: dataclasses.Field) -> Declared:
    """The :class:`Declared` of field ``f`` (every default for a field not made by
    :func:`setting`)."""
    names = {g.name for g in dataclasses.fields(Declared)}
    return Declared(**{k: v for k, v in f.metadata.items() if k in names})


def _option_fields(cls: type) -> list[dataclasses.Field]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    return [f for f in dataclasses.fields(cls) if f.init and not f.metadata.get(_NOT_AN_OPTION)]


def flag_of(cls: type, name: str) -> str:
    """The command-line option that sets field ``name`` of ``cls``."""
    for f in dataclasses.fields(cls):
        if f.name == name:
            return f.metadata.get("flag") or "--" + name.replace("_", "-")
    raise ValueError(f"name: {cls.__name__} has no field {name!r}")


def _docstring_entries(cls: type) -> dict[str, str]:
    """``{field: text}`` from the ``Attributes:`` section of ``cls``'s own docstring, read by
    docstring-parser (Google style; an entry may name several fields: ``depths, heads: ...``)."""
    import docstring_parser

    first, _, rest = (cls.__dict__.get("__doc__") or "").partition("\n")
    if first.strip() == "Attributes:":  # the section opens the docstring: its entries under it
        # (docstring-parser reads a section only after a summary line: the class's name is one)
        doc = f"{cls.__name__}.\n\nAttributes:\n" + textwrap.indent(textwrap.dedent(rest), "  ")
    else:
        doc = inspect.cleandoc(f"{first}\n{rest}")
    try:
        parsed = docstring_parser.parse(doc, docstring_parser.DocstringStyle.GOOGLE)
    except docstring_parser.ParseError:  # not Google style: no entry to read
        return {}
    out: dict[str, str] = {}
    for param in parsed.params:
        if param.args[:1] == ["attribute"] and param.description:
            for name in param.arg_name.split(","):
                out[name.strip()] = " ".join(param.description.split())
    return out


_MARKUP = re.compile(r":[a-z]+:`~?\.*([^`]+)`|``([^`]+)``")


def _plain(text: str) -> str:
    """Docstring markup as a terminal shows it: ``x`` and :func:`~.a.x` as x."""
    return _MARKUP.sub(lambda m: m.group(1) or m.group(2), text)


def help_of(cls: type, name: str) -> str:
    """The help text of field ``name``: :func:`setting`'s ``help``, else the ``Attributes:``
    entry of the docstring of ``cls`` or of the nearest base class that documents it (its
    reStructuredText literals and roles shown as plain text)."""
    for f in dataclasses.fields(cls):
        if f.name == name and f.metadata.get("help"):
            return f.metadata["help"]
    for klass in cls.__mro__:
        if klass.__dict__.get("__doc__") and (text := _docstring_entries(klass).get(name)):
            return _plain(text)
    return ""


def check_minimums(settings: Any) -> None:
    """Raise ``ValueError("field: expected >= m, got v")`` (or ``> 0``) for the first field
    below the ``minimum`` or not ``positive`` as its :func:`setting` declares (each item of a
    tuple is checked; NaN fails both); for ``__post_init__``, so the bound is written once,
    beside the field."""
    for f in dataclasses.fields(settings):
        low = f.metadata.get("minimum")
        positive = f.metadata.get("positive")
        value = getattr(settings, f.name)
        if (low is None and not positive) or value is None:
            continue
        for v in value if isinstance(value, (tuple, list)) else (value,):
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                continue
            if low is not None and not v >= low:
                raise ValueError(f"{f.name}: expected >= {low:g}, got {v}")
            if positive and not v > 0:
                raise ValueError(f"{f.name}: expected a positive number, got {v}")


_WORD = re.compile(r"\b[a-z_][a-z0-9_]*\b")


def _flags_in(cls: type, text: str, names: set[str]) -> str:
    """``text`` with each word that is a field of ``cls`` as its option (``no_bound`` as
    ``--no-bound`` for a boolean field ``bound``)."""

    def flag(m: re.Match) -> str:
        word = m.group(0)
        if word in names:
            return flag_of(cls, word)
        if word.startswith("no_") and word[3:] in names:
            return "--no-" + flag_of(cls, word[3:])[2:]
        return word

    return _WORD.sub(flag, text)


_ASSIGNMENT = re.compile(r"\b([a-z_][a-z0-9_]*)=(True|False|[^\s,;)]+)")


def _assignments_as_options(cls: type, text: str, names: set[str]) -> str:
    """``text`` with each ``field=value`` of a field of ``cls`` as its option: ``quick=True`` as
    ``--quick``, ``quick=False`` as ``--no-quick``, ``samples=N`` as ``--samples N``."""

    def option(m: re.Match) -> str:
        name, value = m.group(1), m.group(2)
        if name not in names:
            return m.group(0)
        flag = flag_of(cls, name)
        if value in ("True", "False"):
            return flag if value == "True" else "--no-" + flag[2:]
        return f"{flag} {value}"

    return _ASSIGNMENT.sub(option, text)


def as_options(cls: type, err: ValueError) -> ValueError:
    """``err`` with the fields of ``cls`` it names written as their options.

    The library names what was wrong by field (argument) at the head of its message and, in a
    refusal of a size, after its last ``lower``: ``"ns/qs: N = 64, q = 10 has ...; lower ns or
    qs"``. Each word there that is a field becomes its option (``--n/--q: ...; lower --n or
    --q``), and so does a field's assignment anywhere in the message (``quick=True`` ->
    ``--quick``, ``samples=N`` -> ``--samples N``). A
    :class:`~transformer_theory.budget.BudgetError` stays one (its ``option`` renamed); another
    error becomes an :class:`OptionError`; an error whose head names no field of ``cls`` is
    returned as it is.
    """
    from transformer_theory import budget

    text = str(err)
    head, sep, rest = text.partition(":")
    names = {f.name for f in _option_fields(cls)}
    first = _WORD.match(head.strip())
    if not sep or first is None or first.group(0) not in names:
        return err
    option = _flags_in(cls, head.strip(), names)
    rest = _assignments_as_options(cls, rest, names)
    at = rest.rfind("lower ")
    if at >= 0:
        rest = rest[:at] + _flags_in(cls, rest[at:], names)
    if isinstance(err, budget.BudgetError):
        return budget.BudgetError(
            f"{option}:{rest}", option=option, estimate=err.estimate, available=err.available
        )
    return OptionError(option, rest.strip())


@contextlib.contextmanager
def naming_options(cls: type) -> Iterator[None]:
    """Within this block, a ``ValueError`` naming fields of ``cls`` is raised again naming their
    options (:func:`as_options`); any other error passes as it was. For a command's checks before
    work: ``with naming_options(Settings): study.check_sizes(settings)``."""
    try:
        yield
    except ValueError as err:
        renamed = as_options(cls, err)
        if renamed is err:
            raise
        raise renamed from None


def _rename(cls: type, err: ValueError) -> ValueError:
    renamed = as_options(cls, err)
    return OptionError(cls.__name__, str(err)) if renamed is err else renamed


def from_args(cls: type[S], args: argparse.Namespace, **fixed: Any) -> S:
    """The settings ``cls(**options)`` from parsed ``args`` (plus ``fixed`` fields).

    Raises:
      OptionError: a field's value is refused by ``__post_init__``; the message names its option.
    """
    values = {f.name: getattr(args, f.name) for f in _option_fields(cls) if hasattr(args, f.name)}
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}  # nargs
    values.update(fixed)
    try:
        return cls(**values)
    except ValueError as err:
        raise _rename(cls, err) from None
