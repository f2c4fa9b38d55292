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
import functools
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


def script_main(experiment: Any, columns: str | None = None, **kwargs: Any) -> Callable[..., int]:
    """The ``main(argv=None)`` of a thin ``experiments/*.py`` script over ``experiment`` (an
    experiment module): :func:`experiment_script` with ``columns`` (the table's, one string,
    space-separated; None: every scalar field) and ``kwargs`` (``report``, ``choose``)."""
    return functools.partial(
        experiment_script,
        experiment=experiment,
        columns=None if columns is None else columns.split(),
        **kwargs,
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


def script_options(
    argv: Sequence[str] | None,
    *classes: type,
    description: str,
    defaults: dict[str, Any] | None = None,
    skip: Sequence[str] = (),
) -> tuple[Any, ...]:
    """The settings of a script (one instance of each of ``classes``, in order) read from
    ``argv``: their fields are its options, generated by jsonargparse
    (:func:`~._options.add_settings`; ``defaults``: the script's own, by field; ``skip``: fields
    that are no option of this script, left at the class's default) and checked by each class's
    ``__post_init__``. A refused value is one line naming its option on stderr and
    ``SystemExit(2)``, before any work; ``--help`` lists every field with its help."""
    import sys

    from transformer_theory.cli._main import HelpFormatter
    from transformer_theory.cli._options import CommandParser, add_settings
    from transformer_theory.settings import OptionError, from_args

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = CommandParser(description=description, formatter_class=HelpFormatter)
    for cls in classes:
        own = {f.name for f in dataclasses.fields(cls)}
        mine = {k: v for k, v in (defaults or {}).items() if k in own}
        add_settings(parser, cls, defaults=mine, skip=skip)
    try:
        args = parse_settings(parser, argv)
        return tuple(from_args(cls, args) for cls in classes)
    except OptionError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


@dataclasses.dataclass(frozen=True)
class ScriptRun:
    """What a script over an experiment module with options of its own reads
    (:func:`script_run`): where it writes, whether it draws progress bars, the size, its own
    options (an instance of its settings class) and the ``--set`` assignments, not yet applied."""

    out: str
    progress: bool
    size: str
    options: Any
    sets: tuple[str, ...]


def script_run(
    argv: Sequence[str] | None,
    experiment: Any,
    options: type,
    *,
    description: str,
    progress: bool = False,
) -> ScriptRun:
    """The command line of a script over ``experiment`` (its ``SIZES``) that has options of its
    own (the fields of ``options``): ``--out`` (required), ``--progress/--no-progress`` where
    ``progress``, ``--size``/``--smoke`` and ``--set``, read by :func:`script_options`; a refusal
    (``--out`` missing too) is one line and ``SystemExit(2)`` before any work."""
    import sys

    from transformer_theory.settings import OptionError

    skip = ("fresh",) if progress else ("fresh", "progress")
    output, sized, own, changes = script_options(
        argv,
        OutputSettings,
        size_settings(experiment.SIZES),
        options,
        Overrides,
        description=description,
        defaults={"out": None},
        skip=skip,
    )
    if output.out is None:
        print(f"error: {OptionError('--out', 'required; see --help')}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)
    size = "smoke" if sized.smoke else sized.size
    return ScriptRun(output.out, output.progress, size, own, changes.sets)


def experiment_script(
    argv: Sequence[str] | None = None,
    experiment: Any = None,
    *,
    description: str | None = None,
    columns: Sequence[str] | None = None,
    choose: tuple[str, dict[str, Any], str, str] | None = None,
    report: Callable[[Any], int | None] | None = None,
) -> int:
    """The whole body of a thin ``experiments/*.py`` script over a paper's experiment module
    (``SIZES``, ``get_config(size)``, ``run(config, out_dir, *, progress)``): ``--out``,
    ``--size`` (``--smoke`` is ``--size smoke``) and ``--set field=value`` (repeatable,
    :func:`transformer_theory.cli._options.override`: parsed by jsonargparse, validated by the
    settings object), the fields of :class:`OutputSettings`, :func:`size_settings` and
    :class:`Overrides`, parsed by the commands' own :class:`~._options.CommandParser`; a refused
    value is one line naming its option, exit 2, before any work; then the run, its records as a
    table, exit 0. An experiment module that declares ``X64 = True`` runs with JAX's 64-bit mode
    on. ``description``: the help's first paragraph (default: the experiment module's).
    ``choose``: ``(option, {name: experiment module}, default, help)`` for a script that runs one
    of several experiments (``--model attention``, :func:`choice_settings`); ``experiment`` is
    then unused. ``report(record)``: what the script prints after the table, its exit code
    (None: 0)."""
    import sys

    from transformer_theory.budget import BudgetError, BudgetSettingError
    from transformer_theory.cli._experiments import check_seconds
    from transformer_theory.cli._main import HelpFormatter
    from transformer_theory.cli._options import CommandParser, add_settings, override
    from transformer_theory.papers import study_of
    from transformer_theory.settings import OptionError, from_args

    argv = list(sys.argv[1:] if argv is None else argv)
    modules = {None: experiment}
    choice = None
    if choose is not None:
        option, modules, default, text = choose
        choice = choice_settings(option, modules, default, text)
    if description is None:
        description = (next(iter(modules.values())).__doc__ or "").split("\n\n")[0]
    p = CommandParser(description=description, formatter_class=HelpFormatter)
    if choice is not None:
        add_settings(p, choice)
    add_output(p, None)
    sized = size_settings(sorted({size for module in modules.values() for size in module.SIZES}))
    add_settings(p, sized)
    add_settings(p, Overrides)
    try:
        args = parse_settings(p, argv)
        chosen = from_args(sized, args)
        if choice is not None:
            (picked,) = dataclasses.astuple(from_args(choice, args))
            experiment = modules[picked]
        if args.out is None:
            raise OptionError("--out", "required; see --help")
        size = "smoke" if chosen.smoke else chosen.size
        if size not in experiment.SIZES:
            raise OptionError(
                "--size", f"expected one of {', '.join(experiment.SIZES)}, got {size}"
            )
        shipped = experiment.get_config(size)
        config = override(shipped, from_args(Overrides, args).sets)
        check_seconds(experiment.__name__.rsplit(".", 1)[-1], size, config, shipped)
        out = prepare_out_dir(args.out)
    except (OptionError, UsageError, BudgetError, BudgetSettingError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    enable_x64_if_declared(experiment)
    records = study_of(experiment).run(config, out, progress=size != "smoke")
    from transformer_theory.tables import rows_of, table

    rows = rows_of(records)
    if rows:
        print(table(rows, columns))
    code = None if report is None else report(records)
    return EXIT_OK if code is None else code


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


#: What prints the help (or the config) and exits: left out of the first reading of a script's
#: command line (:func:`script_settings`), which picks the size whose values are the defaults.
_SHOWN = ("-h", "--help", "--print_config")


def script_settings(
    argv: Sequence[str] | None,
    get_config: Callable[[str], Any],
    sizes: Sequence[str],
    *,
    description: str,
    out: str | None = None,
) -> Any:
    """The settings of an ``experiments/*.py`` script that must stay a script, read as an
    experiment's are: ``--size`` (``--smoke`` is ``--size smoke``; :func:`size_settings`) picks
    ``get_config(size)``, whose fields are the script's other options, generated by jsonargparse
    from the settings dataclass (:func:`transformer_theory.cli._options.add_settings`, that
    size's values their defaults) and validated by its ``__post_init__``. The one parser reads
    the command line twice: first (without ``--help``) for the size, then with that size's
    values as the defaults. A refused value is one line naming its option on stderr and
    ``SystemExit(2)``, before any work; ``--help`` lists every field.

    ``out``: the script also takes ``--out`` (this default) and ``--progress/--no-progress``
    (:class:`OutputSettings`) and returns ``(settings, OutputSettings)``; without it, the
    settings alone."""
    import sys

    from transformer_theory.cli._main import HelpFormatter
    from transformer_theory.cli._options import CommandParser, add_settings
    from transformer_theory.settings import OptionError, _option_fields, from_args

    argv = list(sys.argv[1:] if argv is None else argv)
    sized = size_settings(sizes)
    parser = CommandParser(description=description, formatter_class=HelpFormatter)
    add_settings(parser, sized)
    if out is not None:
        add_settings(parser, OutputSettings, defaults={"out": out}, skip=("fresh",))
    shipped = get_config(sized().size)
    cls = type(shipped)
    options = [f.name for f in _option_fields(cls)]
    add_settings(parser, cls, defaults={n: getattr(shipped, n) for n in options})
    try:
        first = [a for a in argv if a.partition("=")[0] not in _SHOWN]
        chosen = from_args(sized, parse_settings(parser, first))
        shipped = get_config("smoke" if chosen.smoke else chosen.size)
        parser.set_defaults(**{n: getattr(shipped, n) for n in options})
        args = parse_settings(parser, argv)
        fixed = {  # the size's values of the fields that are no option (smoke's sizes)
            f.name: getattr(shipped, f.name)
            for f in dataclasses.fields(cls)
            if f.init and f.name not in options
        }
        settings = from_args(cls, args, **fixed)
        if out is None:
            return settings
        return settings, from_args(OutputSettings, args, fresh=False)
    except OptionError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


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
