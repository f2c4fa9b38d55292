"""Settings objects that make their own command: one dataclass per study, its fields the options.

A study's settings are a frozen dataclass whose ``__post_init__`` validates every field once,
raising ``ValueError("field_name: what is wrong")``. This module turns such a class into
command-line options and back, so no option, default, type or help text is written twice:

- :func:`add_options` adds one ``--option`` per field to an ``argparse`` parser: the flag is the
  field's name with ``_`` as ``-`` (or :func:`setting`'s ``flag``), the type and default come from
  the annotation and the field's default, the help from :func:`setting`'s ``help`` or else the
  field's entry in the class docstring's ``Attributes:`` section (Google style, several names
  may share one entry: ``depths, heads: the grid``);
- :func:`from_args` builds the settings from the parsed options; a ``ValueError`` that
  ``__post_init__`` raises naming a field comes back as an :class:`OptionError` naming its
  flag (``--max-len: expected 2..8192, got 1``), which the command line prints as one line and
  exit 2;
- :func:`as_options` turns an error that names fields (``ns/qs: ...; lower ns or qs``, as the
  library's refusals are written) into one naming their options (``--n/--q: ...; lower --n or
  --q``): the library names what it was given, only the command line knows the flags;
- :func:`override` applies ``field=value`` strings (the experiments scripts' ``--set``, in the
  manner of big_vision's config overrides) with the same parsing as the options.

Types understood: ``int``, ``float``, ``str``, ``bool`` (``--x`` / ``--no-x``), ``X | None``
(``none`` on the command line), ``tuple[T, ...]`` (a comma list) and ``Literal[...]`` (choices).

Example::

    @dataclasses.dataclass(frozen=True)
    class Sweep:
        \"\"\"Attributes:
          max_len: the longest length measured.
          depths: the models' depths.
        \"\"\"

        max_len: int = 64
        depths: tuple[int, ...] = setting((1, 2), flag="--depth")

        def __post_init__(self):
            if self.max_len < 2:
                raise ValueError(f"max_len: expected >= 2, got {self.max_len}")

    parser = argparse.ArgumentParser()
    add_options(parser, Sweep)
    sweep = from_args(Sweep, parser.parse_args(["--max-len", "32", "--depth", "1,3"]))
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import inspect
import math
import re
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

__all__ = [
    "OptionError",
    "add_options",
    "as_options",
    "flag_of",
    "from_args",
    "help_of",
    "naming_options",
    "override",
    "check_minimums",
    "setting",
    "split_list",
]

S = TypeVar("S")

_NOT_AN_OPTION = "not_an_option"


def split_list(text: str) -> list[str]:
    """The items of a comma list, stripped (``"8, 16,32"`` -> ``["8", "16", "32"]``): the one
    place comma lists are split, by the options here and the commands' own parsers.

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
    parse: Callable[[str], Any] | None = None,
    minimum: float | None = None,
    positive: bool = False,
    option: bool = True,
) -> Any:
    """A dataclass field with what its command-line option needs beyond the annotation.

    Args:
      default: the field's default (a list or dict is copied per instance).
      help: the option's help (else the docstring's ``Attributes:`` entry).
      flag: the option's name (else ``--`` + the field's name with ``-`` for ``_``).
      metavar: argparse's metavar.
      parse: turns the option's text into the field's value (else read from the annotation).
      minimum: the smallest value allowed (of the number, or of each item of a tuple), checked
        by :func:`check_minimums` in ``__post_init__`` and by the option's parser, which
        carries it as ``.minimum`` (the bad-argument tests probe 0 where it is >= 1).
      positive: the value (each item of a tuple) must be > 0: a size, a count, a rate; checked
        like ``minimum``, and the option's type is named ``positive_int`` / ``positive_float``.
      option: ``False`` for a field that is not an option (set by the program, not the user).
    """
    metadata = {
        "help": help,
        "flag": flag,
        "metavar": metavar,
        "parse": parse,
        "minimum": minimum,
        "positive": positive,
    }
    if not option:
        metadata[_NOT_AN_OPTION] = True
    if isinstance(default, (list, dict, set)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


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


_ENTRY = re.compile(r"^(\s*)([A-Za-z_][\w]*(?:\s*,\s*[A-Za-z_][\w]*)*)\s*(?:\([^)]*\))?:\s*(.*)$")


def _docstring_entries(cls: type) -> dict[str, str]:
    """``{field: text}`` from the ``Attributes:`` section of ``cls``'s docstring."""
    doc = inspect.getdoc(cls) or ""
    lines = doc.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Attributes:")
    except StopIteration:
        return {}
    out: dict[str, str] = {}
    names: list[str] = []
    indent = None
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        m = _ENTRY.match(line)
        own = len(line) - len(line.lstrip())
        if indent is None and m:
            indent = own
        if indent is not None and own < indent:
            break  # the section ended
        if m and own == indent:
            names = [n.strip() for n in m.group(2).split(",")]
            for n in names:
                out[n] = m.group(3).strip()
        elif names:
            for n in names:
                out[n] = f"{out[n]} {line.strip()}".strip()
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
        if klass.__doc__ and (text := _docstring_entries(klass).get(name)):
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


def _unwrap_optional(tp: Any) -> tuple[Any, bool]:
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return rest[0], True
    return tp, False


def _scalar_parser(tp: Any, flag: str) -> Callable[[str], Any]:
    if typing.get_origin(tp) is typing.Literal:
        choices = typing.get_args(tp)

        def choice(text: str) -> Any:
            for c in choices:
                if str(c) == text:
                    return c
            raise argparse.ArgumentTypeError(
                f"expected one of {', '.join(map(str, choices))}, got {text!r}"
            )

        return choice
    if tp is bool:

        def boolean(text: str) -> bool:
            low = text.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")

        return boolean
    if tp in (int, float, str):

        def scalar(text: str) -> Any:
            try:
                value = tp(text)
            except ValueError:
                word = {int: "an integer", float: "a number", str: "text"}[tp]
                raise argparse.ArgumentTypeError(f"expected {word}, got {text!r}") from None
            if tp is float and not math.isfinite(value):  # nan, inf, 1e309: never a setting
                raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
            return value

        scalar.__name__ = tp.__name__  # argparse names the type in its messages
        return scalar
    raise TypeError(f"{flag}: no parser for the annotation {tp!r}; give setting(parse=...)")


def _describe(tp: Any) -> str:
    """An annotation in words a user reads (``tuple[tuple[int, int], ...]`` -> ``a tuple of
    (integer, integer) tuples``)."""
    tp, optional = _unwrap_optional(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        text = "one of " + ", ".join(map(repr, args))
    elif origin in (tuple, list) and len(args) == 2 and args[1] is Ellipsis:
        text = f"a tuple of {_describe(args[0])}"
    elif origin in (tuple, list) and args:
        text = "(" + ", ".join(_describe(a) for a in args) + ")"
    else:
        text = {int: "integer", float: "finite number", str: "text", bool: "true/false"}.get(
            tp, getattr(tp, "__name__", str(tp))
        )
    return f"{text} or None" if optional else text


def _coerce(value: Any, tp: Any) -> Any:
    """``value`` (a Python literal) as annotation ``tp`` asks, else ``ValueError``; ``TypeError``
    for an annotation no literal can be (a dataclass, a mapping of objects)."""
    tp, optional = _unwrap_optional(tp)
    if value is None:
        if optional:
            return None
        raise ValueError("None")
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        if value in args:
            return value
        raise ValueError(repr(value))
    if origin in (tuple, list) and args:
        if not isinstance(value, (tuple, list)):
            raise ValueError(repr(value))
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(v, args[0]) for v in value)
        if len(value) != len(args):
            raise ValueError(repr(value))
        return tuple(_coerce(v, a) for v, a in zip(value, args))
    if tp is bool and isinstance(value, bool):
        return value
    if tp is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if tp is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isfinite(value):
            return float(value)
        raise ValueError(repr(value))
    if tp is str and isinstance(value, str):
        return value
    if tp in (bool, int, float, str):
        raise ValueError(repr(value))
    raise TypeError(f"no literal is a {_describe(tp)}")


def _literal_parser(tp: Any, flag: str) -> Callable[[str], Any]:
    """For a nested annotation (``tuple[tuple[int, int, int], ...]``, ``tuple[str, float]``):
    the text as a Python literal (``((1, 1, 2),)``), checked item by item against ``tp``."""
    _coerce(_example_of(tp), tp)  # TypeError here: no literal can be this annotation

    def literal(text: str) -> Any:
        expected = f"expected {_describe(tp)} as a Python literal"
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise argparse.ArgumentTypeError(f"{expected}, got {text!r}") from None
        try:
            return _coerce(value, tp)
        except (ValueError, TypeError):
            raise argparse.ArgumentTypeError(f"{expected}, got {text!r}") from None

    literal.__name__ = "literal"
    return literal


def _example_of(tp: Any) -> Any:
    """A value of annotation ``tp`` built of literals (to prove one exists), else a sentinel
    :func:`_coerce` refuses with ``TypeError``."""
    tp, optional = _unwrap_optional(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if optional:
        return None
    if origin is typing.Literal:
        return args[0]
    if origin in (tuple, list) and args:
        if len(args) == 2 and args[1] is Ellipsis:
            return (_example_of(args[0]),)
        return tuple(_example_of(a) for a in args)
    return {bool: True, int: 1, float: 1.0, str: "x"}.get(tp, _NoLiteral())


class _NoLiteral:
    """Stands for a value no literal can be (see :func:`_example_of`)."""


def _parser_of(tp: Any, flag: str) -> tuple[Callable[[str], Any], bool]:
    """The text -> value function for an annotation, and whether the field is a flag pair."""
    tp, optional = _unwrap_optional(tp)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    comma_list = (origin is tuple and len(args) == 2 and args[1] is Ellipsis) or (
        origin is list and len(args) == 1
    )
    scalar_items = bool(args) and (
        args[0] in (int, float, str, bool) or typing.get_origin(args[0]) is typing.Literal
    )
    if origin in (tuple, list) and args and not (comma_list and scalar_items):
        parse = _literal_parser(tp | None if optional else tp, flag)
        return parse, False
    if origin in (tuple, list) and args:
        item = _scalar_parser(args[0], flag)

        def items(text: str) -> Any:
            return origin(item(p) for p in split_list(text))

        noun = {int: "integers", float: "numbers"}.get(args[0], "names")
        items.__name__ = f"list of {noun}"
        parse = items
    else:
        parse = _scalar_parser(tp, flag)
    if optional:
        inner = parse

        def maybe(text: str) -> Any:
            return None if text.lower() == "none" else inner(text)

        maybe.__name__ = f"{inner.__name__} or none"
        return maybe, False
    return parse, tp is bool


def _bounded(
    parse: Callable[[str], Any], low: float | None, positive: bool
) -> Callable[[str], Any]:
    def bounded(text: str) -> Any:
        value = parse(text)
        items = value if isinstance(value, (tuple, list)) else (value,)
        if low is not None and any(v is not None and not v >= low for v in items):
            raise argparse.ArgumentTypeError(f"expected >= {low:g}, got {text!r}")
        if positive and any(v is not None and not v > 0 for v in items):
            raise argparse.ArgumentTypeError(f"expected positive numbers, got {text!r}")
        return value

    name = parse.__name__
    if positive and name in ("int", "float", "int or none", "float or none"):
        name = "positive_" + name  # the CLI's word for it, as cli._common.positive_int
    bounded.__name__ = name
    if low is None and positive and "integers" in name:
        low = 1  # a list of positive integers: each >= 1
    bounded.minimum = low  # type: ignore[attr-defined]  # read by the bad-argument tests
    return bounded


def _describe_default(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value)) if value else "none"
    return str(value)


def add_options(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    cls: type,
    *,
    skip: Iterable[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> None:
    """Add one option per field of the settings class ``cls`` (see the module docstring).

    Args:
      parser: the parser (or argument group) to add to.
      cls: a dataclass whose fields are the settings.
      skip: field names the command sets itself (not options).
      defaults: the command's own defaults where they differ from the class's.
    """
    hints = typing.get_type_hints(cls)
    skipped = set(skip)
    own_defaults = dict(defaults or {})
    for f in _option_fields(cls):
        if f.name in skipped:
            continue
        flag = flag_of(cls, f.name)
        parse = f.metadata.get("parse")
        pair = False
        if parse is None:
            parse, pair = _parser_of(hints[f.name], flag)
        low, positive = f.metadata.get("minimum"), bool(f.metadata.get("positive"))
        if (low is not None or positive) and not pair:
            parse = _bounded(parse, low, positive)
        if f.name in own_defaults:
            default = own_defaults[f.name]
        elif f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        text = help_of(cls, f.name)
        kwargs: dict[str, Any] = dict(dest=f.name)
        if default is dataclasses.MISSING:
            kwargs["required"] = True
        else:
            kwargs["default"] = default
            if text and default is not None and not pair and "default" not in text.lower():
                # argparse's ArgumentDefaultsHelpFormatter's words, where the help gives none
                text = f"{text} (default: {_describe_default(default)})"
        if pair:
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, help=text or None, **kwargs
            )
            continue
        parser.add_argument(
            flag, type=parse, metavar=f.metadata.get("metavar"), help=text or None, **kwargs
        )


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


def as_options(cls: type, err: ValueError) -> ValueError:
    """``err`` with the fields of ``cls`` it names written as their options.

    The library names what was wrong by field (argument) at the head of its message and, in a
    refusal of a size, after its last ``lower``: ``"ns/qs: N = 64, q = 10 has ...; lower ns or
    qs"``. Each word there that is a field becomes its option (``--n/--q: ...; lower --n or
    --q``). A :class:`~transformer_theory.budget.BudgetError` stays one (its ``option`` renamed);
    another error becomes an :class:`OptionError`; an error whose head names no field of ``cls``
    is returned as it is.
    """
    from transformer_theory import budget

    text = str(err)
    head, sep, rest = text.partition(":")
    names = {f.name for f in _option_fields(cls)}
    first = _WORD.match(head.strip())
    if not sep or first is None or first.group(0) not in names:
        return err
    option = _flags_in(cls, head.strip(), names)
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
    values.update(fixed)
    try:
        return cls(**values)
    except ValueError as err:
        raise _rename(cls, err) from None


def override(settings: S, assignments: Sequence[str]) -> S:
    """``settings`` with ``field=value`` assignments applied (values parsed as the options are;
    a field is named by itself or by its option without the dashes).

    Raises:
      OptionError: an unknown field, a value that does not parse, or one ``__post_init__``
        refuses; the message names the field's option.
    """
    cls = type(settings)
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in _option_fields(cls)}
    # a field is named by itself or by its option (max_len, max-len, depth for --depth)
    names = {n: n for n in fields}
    names.update({flag_of(cls, n)[2:].replace("-", "_"): n for n in fields})
    changes: dict[str, Any] = {}
    for text in assignments:
        given, sep, value = text.partition("=")
        name = names.get(given.strip().replace("-", "_"), "")
        if not sep or name not in fields:
            known = ", ".join(sorted(fields))
            raise OptionError(
                "--set", f"expected field=value with a field of {known}; got {text!r}"
            )
        flag = flag_of(cls, name)
        try:
            parse = fields[name].metadata.get("parse") or _parser_of(hints[name], flag)[0]
        except TypeError:  # a nested settings object: no text is one
            raise OptionError(
                "--set",
                f"{name} cannot be set from text (it is a {_describe(hints[name])}); change it "
                "in the experiment's get_config",
            ) from None
        try:
            changes[name] = parse(value.strip())
        except (argparse.ArgumentTypeError, ValueError) as err:
            now = f" (it is {getattr(settings, name)!r})" if parse.__name__ == "literal" else ""
            raise OptionError(flag, f"{err}{now}") from None
    try:
        return dataclasses.replace(settings, **changes)
    except ValueError as err:
        raise _rename(cls, err) from None
