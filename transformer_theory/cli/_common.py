"""What every command shares: exit codes, one-line errors, argument types, the output directory.

Exit codes (README, "Exit codes"): ``0`` the run completed; ``1`` an in-scope proposition failed
(or a construction missed an example): a bug or a discovery; ``2`` bad input (an option, a file,
a size that would not fit in memory), reported in one line naming the argument, BEFORE any long
work; ``130`` interrupted (Ctrl-C), with what was saved.

A command raises :class:`UsageError` for a user's mistake; :func:`transformer_theory.cli.main`
prints ``transformer-theory <command>: error: <message>`` on stderr and returns 2, with no
traceback. The options are parsed by jsonargparse from the settings dataclasses
(:mod:`._options`); a value it refuses is reported the same way, in one line naming the option.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import fcntl
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from transformer_theory.settings import setting

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A user's mistake (an option, a file, a size): one line naming the argument, exit 2."""


def changed_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> set[str]:
    """The options of ``parser`` whose value in ``args`` is not their default (jsonargparse has
    applied each option's type to its value): what the user set. Each is named by its first long
    option string (``--max-len``)."""
    changed = set()
    for action in parser._actions:
        if not action.option_strings or not hasattr(args, action.dest):
            continue
        if getattr(args, action.dest) != action.default:
            longs = [o for o in action.option_strings if o.startswith("--")]
            changed.add((longs or action.option_strings)[0])
    return changed


def refuse_ignored(args: argparse.Namespace, options: Iterable[str], because: str) -> None:
    """Raise :class:`UsageError` naming the first of ``options`` the user set (``args.changed``,
    filled by the command line from :func:`changed_options`) when ``because`` (``"--task disj"``)
    makes the command ignore it: an option is used or refused, never silently dropped."""
    given = getattr(args, "changed", set())
    for option in options:
        if option in given:
            raise UsageError(
                f"{option}: not used with {because} (it would be ignored); drop it or run "
                "without " + because.split()[0]
            )


#: The lock file of an output directory in use (:func:`lock_out_dir`).
LOCK_NAME = ".lock"
_LOCKED: dict[str, int] = {}  # absolute path -> the descriptor holding its lock


def lock_out_dir(path: str, option: str = "--out") -> None:
    """Hold an exclusive ``flock`` on ``path/.lock`` until :func:`release_out_dirs` (the command
    line releases every lock when the command ends; the kernel does when the process dies, so a
    killed run leaves no stale lock). A directory another run holds is refused: :class:`UsageError`
    naming ``option`` and that run's process id, so two runs never write one directory at once.
    Locking ``path`` again in this process is a no-op. A file system without ``flock`` (``ENOLCK``,
    some network mounts) runs unlocked."""
    path = os.path.abspath(path)
    if path in _LOCKED:
        return
    lock = os.path.join(path, LOCK_NAME)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            os.close(fd)  # no flock here: run unlocked
            return
        try:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        finally:
            os.close(fd)
        raise UsageError(
            f"{option}: {path} is in use by another run"
            + (f" (process {holder})" if holder else "")
            + "; wait for it to end or choose another directory"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _LOCKED[path] = fd


def release_out_dirs() -> None:
    """Release every lock :func:`lock_out_dir` took in this process."""
    while _LOCKED:
        _, fd = _LOCKED.popitem()
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def prepare_out_dir(path: str, option: str = "--out") -> str:
    """Create ``path`` (and parents), prove it is writable and lock it for this run
    (:func:`lock_out_dir`), before any computation.

    Raises :class:`UsageError` naming ``option`` when ``path`` is an existing file, cannot be
    created, refuses a test write, or is in use by another run. Returns the absolute path.
    """
    if not isinstance(path, str) or not path.strip():
        raise UsageError(f"{option}: expected a directory, got an empty path")
    path = os.path.abspath(path)
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"{option}: {path} exists and is not a directory")
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-test-"):
            pass
        lock_out_dir(path, option)
    except OSError as err:
        raise UsageError(f"{option}: cannot write to {path} ({err.strerror or err})") from None
    return path


def refuse_other_settings(err: Exception, settings_cls: type) -> UsageError:
    """A record in ``--out`` written with other settings (``err``: a study's ``SettingsDiffer``
    with ``path``, ``setting``, ``recorded`` and ``asked``) as the :class:`UsageError` naming the
    option that sets the differing field (:func:`transformer_theory.settings.flag_of` of
    ``settings_cls``); ``--out`` when the file is no run's record or what differs is not a field
    (a value the fields derive)."""

    from transformer_theory.settings import flag_of

    setting = getattr(err, "setting", None)
    if setting is None:
        what = f"--out: {err}"
    else:
        fields = {f.name for f in dataclasses.fields(settings_cls)}
        option = flag_of(settings_cls, setting) if setting in fields else "--out"
        what = f"{option}: {err.path} holds a run with {setting} {err.recorded}, not {err.asked}"
    return UsageError(
        f"{what}; rerun with its settings to resume it, add --fresh to start over, or choose "
        "another --out"
    )


@dataclasses.dataclass(frozen=True)
class Overrides:
    """A script's changes to its experiment's settings.

    Attributes:
      sets: change one field of the size's settings (repeatable), parsed and checked as that
        field's option is: --set steps=100.
    """

    sets: tuple[str, ...] = setting((), flag="--set", metavar="FIELD=VALUE", repeat=True)


def size_settings(sizes: Sequence[str]) -> type:
    """The settings class of a script's ``--size`` (one of ``sizes``; ``default`` unless the
    script has none, then its first) and ``--smoke`` (``--size smoke``)."""

    def check(self: Any) -> None:
        if self.smoke and "smoke" not in sizes:
            raise ValueError(f"smoke: there is no smoke size (sizes: {', '.join(sizes)})")

    first = "default" if "default" in sizes else sizes[0]
    return dataclasses.make_dataclass(
        "SizeSettings",
        [
            ("size", Literal[tuple(sizes)], setting(first)),  # type: ignore[misc]
            ("smoke", bool, setting(False)),
        ],
        namespace={
            "__doc__": "The size a script runs at.\n\nAttributes:\n  size: the size.\n"
            "  smoke: the same as --size smoke (tests).\n",
            "__post_init__": check,
        },
        frozen=True,
    )


def choice_settings(option: str, names: Sequence[str], default: str, text: str) -> type:
    """The settings class of a script's choice among ``names`` (``--model attention``): one
    field, set by ``option``, whose help is ``text``."""
    name = option.lstrip("-").replace("-", "_")
    kind = Literal[tuple(sorted(names))]  # type: ignore[misc]
    return dataclasses.make_dataclass(
        "ChoiceSettings", [(name, kind, setting(default, flag=option, help=text))], frozen=True
    )


def parse_settings(parser: Any, argv: Sequence[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, a value jsonargparse refuses raised as the one-line
    :class:`~transformer_theory.settings.OptionError` naming its option
    (:func:`~._options.one_line`)."""
    from transformer_theory.cli._options import one_line

    try:
        return parser.parse_args(list(argv))
    except argparse.ArgumentError as err:
        raise one_line(parser, err) from None


@dataclasses.dataclass(frozen=True)
class OutputSettings:
    """Where a command writes and what it shows while it runs: the options every command that
    writes shares, generated as its own options are (:func:`add_output`).

    Attributes:
      out: output directory (its JSON records and plots; held locked while a run writes it).
      fresh: start over: measure every model again, replacing the record in ``--out`` (without
        it, a record of the same settings is resumed and one of other settings is refused).
      progress: draw the progress bars (only on a terminal); ``--no-progress`` hides them.
    """

    out: str = "results"
    fresh: bool = False
    progress: bool = True


def add_output(
    parser: argparse.ArgumentParser,
    out: str | None,
    *,
    fresh: bool = False,
    progress: bool = False,
    help: str | None = None,
) -> None:
    """``--out`` (default ``out``; None: the command names it from its other options) and, where
    asked, ``--fresh`` (a study that resumes from the record it writes model by model) and
    ``--progress/--no-progress``: the fields of :class:`OutputSettings`, generated by
    :func:`transformer_theory.cli._options.add_settings` as every other option is; ``help``:
    the command's own words for ``--out`` (what it writes there)."""
    from transformer_theory.cli._options import add_settings

    skip = [name for name, wanted in (("fresh", fresh), ("progress", progress)) if not wanted]
    helps = {"out": help} if help else None
    add_settings(parser, OutputSettings, skip=skip, defaults={"out": out}, helps=helps)


def run_grid_study(
    args: argparse.Namespace,
    study: Any,
    settings_cls: type,
    command: str,
    line: Callable[[Any], str],
    row: Callable[[Any], dict],
    **extra: Any,
) -> Any:
    """The body of a resumable grid command (``collapse``, ``oversquash``): the settings from
    ``args`` (:func:`transformer_theory.settings.from_args` of ``settings_cls``), the grid's size
    refused before ``--out`` is made, then ``study.run`` with Ctrl-C held around each JAX call,
    ``line(model)`` printed per finished model, and at the end a table of ``row(model)`` per
    model, the record's and the figure's paths. A refusal naming fields names their options; a
    record of other settings in ``--out`` is refused naming the option that differs. Returns the
    study's result, or :data:`EXIT_INTERRUPTED` after saying what was saved."""
    import sys

    from transformer_theory.settings import from_args, naming_options
    from transformer_theory.tables import table
    from transformer_theory.train.checkpoint import deferred_sigint

    settings = from_args(settings_cls, args)
    with naming_options(settings_cls):
        grid = study.grid_of(settings)  # its size refused before --out is made
        out = prepare_out_dir(args.out)
        try:
            result = study.run(
                settings,
                out,
                grid=grid,
                guard=deferred_sigint,  # Ctrl-C held until the JAX call returns (it crashed XLA)
                on_model=lambda model: print(line(model), flush=True),
                log=lambda text: print(text, flush=True),
                fresh=args.fresh,
                **extra,
            )
        except study.SettingsDiffer as err:
            raise refuse_other_settings(err, settings_cls) from None
        except study.Interrupted as stop:
            print(
                f"transformer-theory {command}: interrupted; {stop.finished} of {stop.total} "
                f"model(s) finished and saved in {stop.path}; run the same command to resume",
                file=sys.stderr,
            )
            return EXIT_INTERRUPTED
    print(table(row(m) for m in result.record.models))
    print(result.json_path)
    print(result.figure_path)
    return result


def enable_x64_if_declared(module: Any) -> None:
    """Turn JAX's 64-bit mode on when ``module`` (a command or an experiment) declares
    ``X64 = True``: the entry points' one switch, flipped before the module makes any array."""
    if getattr(module, "X64", False):
        from transformer_theory.precision import enable_x64

        enable_x64()
