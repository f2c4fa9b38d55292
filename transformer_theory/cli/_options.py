"""The commands' options, generated from the settings dataclasses by jsonargparse.

Every option of every command is a field of a settings dataclass
(:mod:`transformer_theory.settings`: its type the annotation, its default the field's, its help
the class docstring's ``Attributes:`` entry, its check ``__post_init__``).
:func:`add_settings` adds one jsonargparse argument per field
to a :class:`CommandParser` (a ``jsonargparse.ArgumentParser``, itself an ``argparse`` parser):
jsonargparse parses and validates each value against the annotation (``int``, ``float``, ``str``,
``bool``, ``Literal[...]``, ``X | None``, tuples and nested tuples), with restricted number types
for ``setting(positive=True)`` / ``setting(minimum=m)`` and for every float (finite: ``nan``,
``inf`` and ``1e309`` are refused); docstring-parser reads the help. ``--config FILE``
(YAML/JSON) and ``--print_config`` are jsonargparse's.

The one thing done here beyond calling the library is the SPELLING this project's documented
commands use (:meth:`CommandParser.respell`, applied to the command line before jsonargparse
reads it):

- a comma list ``--n 4,16,64`` is given to jsonargparse as the JSON list ``[4,16,64]`` (names
  quoted: ``--task qsa,match2`` as ``["qsa","match2"]``); a JSON list is passed as it is, and so
  is a list with an empty item (``8,,16``), which jsonargparse refuses;
  ``none`` is the empty list of a list of numbers (``--parity-lengths none``);
- ``none`` is ``null`` for an optional value (``--seed none``);
- a nested tuple may be written as a Python literal (``--set cells=((1,1,2),)``), given to
  jsonargparse as JSON;
- an option declared ``setting(words=True)`` takes several words and may repeat, every value
  gathered into one list (``train --seeds 0 1 2``, ``claims --id A --id B``);
- an option declared ``setting(repeat=True)`` may repeat, each value one item as it is written,
  never split at its commas (``--set widths=1,4 --set steps=10``).

A value jsonargparse refuses becomes :class:`~transformer_theory.settings.OptionError` naming the
option in one line (:func:`one_line`); a value ``__post_init__`` refuses becomes one at
:func:`~transformer_theory.settings.from_args`. The command line prints either as one line, exit
2, before any work. :func:`override` applies the experiments scripts' ``--set field=value`` through
the same parser.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import math
import re
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import jsonargparse
from jsonargparse.typing import NonNegativeInt, PositiveInt, restricted_number_type

from transformer_theory.jsonio import dumps_json
from transformer_theory.settings import (
    OptionError,
    _option_fields,
    _rename,
    declared,
    flag_of,
    help_of,
    split_list,
)

__all__ = [
    "CommandParser",
    "add_config_file",
    "add_settings",
    "expected",
    "one_line",
    "override",
    "top_parser",
    "typehint_of",
]

S = TypeVar("S")

_SCALARS = (int, float, str, bool)
_SEQUENCES = (tuple, list, Sequence, typing.Sequence)


def _unwrap_optional(tp: Any) -> tuple[Any, bool]:
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return rest[0], True
    return tp, False


def _is_scalar(tp: Any) -> bool:
    return tp in _SCALARS or typing.get_origin(tp) is typing.Literal


def _item_of_list(tp: Any) -> Any | None:
    """The item type of a homogeneous list annotation (``tuple[int, ...]``, ``Sequence[str]``)
    of scalars, else None."""
    tp, _ = _unwrap_optional(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = args[0]
    elif origin in (list, Sequence) and len(args) == 1:
        item = args[0]
    else:
        return None
    return item if _is_scalar(item) else None


def _textual(tp: Any) -> bool:
    """Whether a value of annotation ``tp`` can be written on a command line (scalars, optionals
    and tuples of them); a nested settings object or a mapping cannot."""
    tp, _ = _unwrap_optional(tp)
    if _is_scalar(tp) or tp is type(None):
        return True
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return all(_textual(a) for a in args)
    if origin in (tuple, list, Sequence) and args:
        return all(a is Ellipsis or _textual(a) for a in args)
    return False


_RESTRICTED: dict[str, type] = {}


def _number(base: type, minimum: float | None, positive: bool) -> type:
    """jsonargparse's type for an ``int`` / ``float`` field: ``PositiveInt`` for a positive
    integer, ``NonNegativeInt`` for one >= 0, else a restricted number type
    (``FinitePositiveFloat``, ``FiniteFloat``, ``IntAtLeast2``): every float finite, so ``nan``,
    ``inf`` and ``1e309`` are refused."""
    if base is int and (positive or minimum == 1) and minimum in (None, 1):
        return PositiveInt
    if base is int and minimum is None and not positive:
        return int
    if base is int and minimum == 0 and not positive:
        return NonNegativeInt
    if positive and (minimum is None or minimum <= 0):
        rules, word = [(">", 0)], "Positive"
    elif minimum is not None:
        rules, word = [(">=", minimum)], ""
    else:
        rules, word = [], ""
    name = ("Finite" if base is float else "") + word + base.__name__.capitalize()
    if not word and minimum is not None:
        name += f"AtLeast{minimum:g}".replace(".", "_").replace("-", "Minus")
    if base is float:
        rules = rules + [("<", math.inf)] + ([] if rules else [(">", -math.inf)])
    if name not in _RESTRICTED:
        _RESTRICTED[name] = restricted_number_type(name, base, rules)
    return _RESTRICTED[name]


def typehint_of(tp: Any, minimum: float | None = None, positive: bool = False) -> Any:
    """The annotation ``tp`` with each ``int`` / ``float`` as the restricted number type that
    ``setting(minimum=, positive=)`` declares (every float finite), for jsonargparse."""
    if tp is bool:
        return bool
    if tp in (int, float):
        return _number(tp, minimum, positive)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [typehint_of(a, minimum, positive) for a in args]
        return typing.Union[tuple(inner)]  # noqa: UP007 - built from a list
    if origin is tuple:
        inner = [a if a is Ellipsis else typehint_of(a, minimum, positive) for a in args]
        return tuple[tuple(inner)]
    if origin in (list, Sequence):
        return tuple[typehint_of(args[0], minimum, positive), ...]  # a tuple: settings hash
    return tp


@dataclasses.dataclass(frozen=True)
class _Spelling:
    """How :meth:`CommandParser.respell` writes one option's value for jsonargparse."""

    item: Any = None  # a list's scalar item type, else None
    optional: bool = False
    nested: bool = False  # a tuple of tuples (a Python literal accepted)
    words: bool = False  # several words, repeatable, gathered into one list
    repeat: bool = False  # repeatable, each value one item (never split), gathered into one list


def _quoted(item: Any) -> bool:
    if item is str:
        return True
    return typing.get_origin(item) is typing.Literal and all(
        isinstance(v, str) for v in typing.get_args(item)
    )


class CommandParser(jsonargparse.ArgumentParser):
    """A ``jsonargparse.ArgumentParser`` that reads this project's spelling (see the module
    docstring) and raises its errors (``exit_on_error=False``) for :func:`one_line`.

    An option is written whole (``allow_abbrev=False``): argparse would take ``--temp 4`` for
    ``--template-length 4`` and ``--l 40`` for ``--length`` (not ``l``, the template length), a
    silent guess, and an abbreviated list option (``--ta qsa``) would miss its spelling."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("exit_on_error", False)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.spellings: dict[str, _Spelling] = {}
        self.flags: dict[str, str] = {}  # dest -> the option that sets it
        self.written: dict[str, str] = {}  # respelled text -> what the user wrote
        self.given: dict[str, str] = {}  # option -> what the user wrote for it
        self.kinds: dict[str, tuple[Any, Any, bool]] = {}  # dest -> (annotation, minimum, positive)

    def respell(self, argv: Sequence[str]) -> list[str]:
        """``argv`` with each value written as jsonargparse reads it (the module docstring)."""
        argv = list(argv)
        out: list[str] = []
        gathered: dict[str, tuple[int, list[str]]] = {}
        i = 0
        while i < len(argv):
            token = argv[i]
            if token == "--":
                out += argv[i:]
                break
            flag, eq, value = token.partition("=") if token.startswith("--") else (token, "", "")
            spell = self.spellings.get(flag)
            if spell is None or (not eq and i + 1 >= len(argv)):
                out.append(token)
                i += 1
                continue
            values = [value] if eq else [argv[i + 1]]
            i += 1 if eq else 2
            while spell.words and i < len(argv) and not argv[i].startswith("-"):
                values.append(argv[i])
                i += 1
            self.given[flag] = " ".join(values)
            if (spell.words or spell.repeat) and flag in gathered:
                at, before = gathered[flag]
                before += values
                text = self._text(spell, before)
                out[at] = f"{flag}={text}" if flag.startswith("--") else text
                continue
            text = self._text(spell, values)
            if flag.startswith("--"):
                out.append(f"{flag}={text}")
            else:
                out += [flag, text]
            gathered[flag] = (len(out) - 1, values)
        return out

    def _text(self, spell: _Spelling, values: list[str]) -> str:
        given = " ".join(values)
        text = given
        if spell.repeat:
            text = dumps_json(values)
        elif spell.item is not None and not (len(values) == 1 and given.lstrip().startswith("[")):
            try:
                items = [item for v in values for item in split_list(v)]
            except argparse.ArgumentTypeError:  # an empty item (``8,,16``, ``""``): for
                return given  # jsonargparse to refuse, as the user wrote it
            if given.strip().lower() == "none" and not _quoted(spell.item):
                text = "[]"
            elif _quoted(spell.item):
                text = dumps_json(items)
            else:
                text = "[" + ",".join(items) + "]"
        elif spell.optional and given.strip().lower() == "none":
            text = "null"
        elif spell.nested and given.lstrip().startswith("("):
            try:
                text = dumps_json(ast.literal_eval(given))
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                text = given
        if text != given:
            self.written[text] = given
        return text

    def parse_args(self, args: Any = None, namespace: Any = None, **kwargs: Any) -> Any:  # noqa: D102
        import sys

        return super().parse_args(
            self.respell(sys.argv[1:] if args is None else args), namespace, **kwargs
        )

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """As ``argparse`` calls a subcommand's parser (``build_parser``'s top level): every
        argument is this parser's (jsonargparse refuses unknown ones)."""
        parsed = self.parse_args(args)
        if namespace is not None:
            for key, value in vars(parsed).items():
                setattr(namespace, key, value)
            parsed = namespace
        return parsed, []


def _bound(tp: type, minimum: float | None, positive: bool) -> str:
    if (positive and (minimum is None or minimum <= 0)) or (tp is int and minimum == 1):
        return "positive"
    return "" if minimum is None else f">= {minimum:g}"


def expected(
    tp: Any, minimum: float | None = None, positive: bool = False, many: bool = False
) -> str:
    """What a value of annotation ``tp`` must be, in a researcher's words (``a positive integer``,
    ``a comma list of finite numbers >= 0``, ``one of float32, float64``, ``an integer or none``):
    the first half of a refusal, ``--steps: expected a positive integer, got 0``. ``minimum`` and
    ``positive`` are the field's ``setting(minimum=, positive=)``; ``many`` the plural."""
    inner, optional = _unwrap_optional(tp)
    if optional:
        return expected(inner, minimum, positive, many) + " or none"
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    bound = _bound(tp, minimum, positive) if tp in (int, float) else ""
    if tp is int or tp is float:
        noun = "integer" if tp is int else "finite number"
        if bound == "positive":
            return f"positive {noun}s" if many else f"a positive {noun}"
        tail = f" {bound}" if bound else ""
        if many:
            return f"{noun}s{tail}"
        return ("an " if tp is int else "a ") + noun + tail
    if tp is bool:
        return "true or false"
    if tp is str:
        return "words" if many else "a word"
    if origin is typing.Literal:
        return ("each one of " if many else "one of ") + ", ".join(str(a) for a in args)
    if origin in (tuple, list, Sequence) and (
        (origin is tuple and len(args) == 2 and args[1] is Ellipsis) or origin is not tuple
    ):
        item = expected(args[0], minimum, positive, many=True)
        if _is_scalar(args[0]) or _unwrap_optional(args[0])[1]:
            return f"a comma list of {item}"
        return f"a list of {item}"
    if origin is tuple:
        parts = ", ".join(_shape(a) for a in args)
        return f"tuples ({parts})" if many else f"a tuple ({parts})"
    return f"a value of type {_shape(tp)}"


def _shape(tp: Any) -> str:
    """``tp`` as a short type name: ``int``, ``(int, int, int)``, ``(str, (int, ...))``."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is tuple:
        return "(" + ", ".join("..." if a is Ellipsis else _shape(a) for a in args) + ")"
    if origin is typing.Literal:
        return "|".join(str(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return "|".join(_shape(a) for a in args)
    return "none" if tp is type(None) else getattr(tp, "__name__", str(tp))


def one_line(parser: CommandParser, err: Exception) -> OptionError:
    """jsonargparse's (or argparse's) error as one line naming the option, in a researcher's
    words: what the field's annotation expects (:func:`expected`) and what the user wrote, e.g.
    ``--max-len: expected a positive integer, got 0`` (jsonargparse's own ``Parser key "max_len":
    Not of type PositiveInt: 0 does not conform to restriction v>0`` is not shown)."""
    text = " ".join(str(err).split())
    for respelled, given in parser.written.items():
        text = text.replace(respelled, given)
    m = re.match(r'Parser key "([\w.]+)"(?: element \d+)?:\s*(.*)', text)
    if m:
        option = parser.flags.get(m.group(1), m.group(1))
        given = parser.given.get(option)
        if given is None:  # from a --config file: the value as jsonargparse quotes it
            value = re.search(r"Got value: (.*?)(?: - |$)|(\S+) does not conform", m.group(2))
            given = None if value is None else (value.group(1) or value.group(2))
        kind = parser.kinds.get(m.group(1))
        if kind is None:
            rest = m.group(2)
            return OptionError(option, rest[:1].lower() + rest[1:])
        return OptionError(option, f"expected {expected(*kind)}, got {given!s}")
    m = re.match(r"argument ([^:]+): invalid choice: '(.*)' \(choose from (.*)\)$", text)
    if m:  # argparse's choices (--size big)
        known = ", ".join(re.findall(r"'([^']*)'", m.group(3)))
        return OptionError(m.group(1), f"expected one of {known}, got {m.group(2)}")
    m = re.match(r"argument ([^:]+): ignored explicit argument (.*)", text)
    if m:  # --verbose=maybe
        return OptionError(m.group(1), f"takes no value, got {m.group(2)}")
    m = re.match(r"argument ([^:]+): (.*)", text)
    if m:
        return OptionError(m.group(1), m.group(2))
    m = re.match(r"the following arguments are required: (.*)", text)
    if m:  # named as the help names them (a positional argument by its metavar: FILE)
        names = [parser.flags.get(n, n) for n in re.findall(r"[^,\s]+", m.group(1))]
        return OptionError(", ".join(names), "required; see --help")
    m = re.match(r"one of the arguments (.*) is required", text)
    if m:
        return OptionError("/".join(m.group(1).split()), "give one of them")
    return OptionError("arguments", text)


def add_settings(
    parser: CommandParser | Any,
    cls: type,
    *,
    skip: Sequence[str] = (),
    defaults: Mapping[str, Any] | None = None,
    group: Any = None,
    words: Sequence[str] = (),
    helps: Mapping[str, str] | None = None,
) -> None:
    """Add one jsonargparse argument per field of the settings dataclass ``cls``.

    The flag is :func:`~transformer_theory.settings.flag_of` (``max_len`` -> ``--max-len``; a
    ``flag`` without a dash is a positional argument), the type the annotation
    (:func:`typehint_of`), the default the field's (or ``defaults``'), the help
    :func:`~transformer_theory.settings.help_of`. A field whose annotation no command line can
    write (a nested settings object, a mapping) is left out, as are ``skip`` and the fields
    declared ``setting(option=False)``.

    Args:
      parser: the :class:`CommandParser`.
      cls: the settings dataclass.
      skip: field names the command sets itself.
      defaults: the command's own defaults where they differ from the class's.
      group: an argument group of ``parser`` to add the options to.
      words: fields whose option takes several words, as ``setting(words=True)`` declares.
      helps: the command's own help of a field where it says more than the class's.
    """
    hints = typing.get_type_hints(cls)
    own = dict(defaults or {})
    target = parser if group is None else group
    for f in _option_fields(cls):
        tp = hints[f.name]
        if f.name in skip or not _textual(tp):
            continue
        flag = flag_of(cls, f.name)
        if f.name in own:
            default = own[f.name]
        elif f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        decl = declared(f)
        parser.kinds[f.name] = (tp, decl.minimum, decl.positive)
        text = (helps or {}).get(f.name) or help_of(cls, f.name)
        kwargs: dict[str, Any] = dict(help=text or None)
        if decl.metavar:
            kwargs.update(metavar=decl.metavar)
        inner, optional = _unwrap_optional(tp)
        item = _item_of_list(tp)
        if inner is bool and not optional:
            target.add_argument(
                flag,
                dest=f.name,
                action=jsonargparse.ActionYesNo(no_prefix="no-"),
                default=False if default is dataclasses.MISSING else default,
                **kwargs,
            )
            parser.flags[f.name] = flag
            continue
        typehint = typehint_of(tp, decl.minimum, decl.positive)
        if item is not None and "metavar" not in kwargs:
            kwargs.update(metavar=f"{flag.lstrip('-').upper().replace('-', '_')}[,...]")
        if not flag.startswith("-"):  # a positional argument, named by its metavar
            kwargs.update(metavar=flag)
            if item is not None and decl.words:  # several words: the list's items
                typehint = typehint_of(item, decl.minimum, decl.positive)
                kwargs.update(nargs="+" if default is dataclasses.MISSING else "*")
            elif default is not dataclasses.MISSING:
                kwargs.update(nargs="?")
            if default is not dataclasses.MISSING:
                kwargs.update(default=default)
            target.add_argument(f.name, type=typehint, **kwargs)
        else:
            if default is dataclasses.MISSING:
                kwargs.update(required=True)
            else:
                kwargs.update(default=tuple(default) if isinstance(default, list) else default)
            target.add_argument(flag, dest=f.name, type=typehint, **kwargs)
        parser.flags[f.name] = flag
        origin = typing.get_origin(inner)
        parser.spellings[flag] = _Spelling(
            item=item,
            optional=optional,
            nested=origin in _SEQUENCES and item is None,
            words=decl.words or f.name in words,
            repeat=decl.repeat,
        )


def add_config_file(parser: CommandParser) -> None:
    """jsonargparse's ``--config FILE``: the options read from a YAML or JSON file (as
    ``--print_config`` writes it), those after it overriding it."""
    parser.add_argument(
        "--config",
        action=jsonargparse.ActionConfigFile,
        help="read the options from a YAML or JSON file (as --print_config writes it); "
        "options after it override it",
    )


def top_parser(version: str, **kwargs: Any) -> argparse.ArgumentParser:
    """The parser above the commands (``kwargs``: ``argparse.ArgumentParser``'s): an ``argparse``
    parser, so that ``transformer-theory --help`` imports no command and no jsonargparse, with
    argparse's ``--version`` (``version``; jsonargparse 4.53 has no version option of its own:
    its ``ArgumentParser`` takes no ``version`` argument)."""
    parser = argparse.ArgumentParser(allow_abbrev=False, **kwargs)
    parser.add_argument("--version", action="version", version=f"%(prog)s {version}")
    return parser


def override(settings: S, assignments: Sequence[str]) -> S:
    """``settings`` with ``field=value`` assignments applied (the experiments scripts' ``--set``):
    each value parsed and validated by jsonargparse as the field's option is, then the whole by
    the class's ``__post_init__``; a field is named by itself or by its option without the
    dashes (``max_len``, ``max-len``, ``depth`` for ``--depth``).

    Raises:
      OptionError: an unknown field, a field no text can set, a value jsonargparse refuses or one
        ``__post_init__`` refuses; the message names the field's option, in one line.
    """
    if not assignments:
        return settings
    cls = type(settings)
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in _option_fields(cls)}
    names = {n: n for n in fields}
    names.update({flag_of(cls, n).lstrip("-").replace("-", "_"): n for n in fields})
    parser = CommandParser(prog="--set", add_help=False)
    add_settings(parser, cls, defaults={n: getattr(settings, n) for n in fields})
    changes: dict[str, Any] = {}
    for text in assignments:
        given, sep, value = text.partition("=")
        name = names.get(given.strip().replace("-", "_"), "")
        if not sep or name not in fields:
            known = ", ".join(sorted(fields))
            raise OptionError(
                "--set", f"expected field=value with a field of {known}; got {text!r}"
            )
        if not _textual(hints[name]):
            raise OptionError(
                "--set",
                f"{name} cannot be set from text (it is a {hints[name]}); change it in the "
                "experiment's get_config",
            )
        flag = flag_of(cls, name)
        argv = [f"{flag}={value.strip()}"] if flag.startswith("--") else [flag, value.strip()]
        try:
            parsed = parser.parse_args(argv)
        except jsonargparse.ArgumentError as err:
            raise one_line(parser, err) from None
        changes[name] = parsed[name]
    try:
        return dataclasses.replace(settings, **changes)
    except ValueError as err:
        raise _rename(cls, err) from None
