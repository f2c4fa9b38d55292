"""Every numeric option of every CLI command, given a bad value, exits 2 before any long work.

The commands and their options are read from the parsers themselves
(``transformer_theory.cli.COMMANDS`` and each module's ``add_arguments``), so a new command or
option is probed without editing this file. An option is numeric when the jsonargparse typehint
generated from its settings field holds numbers (``int``, ``FiniteFloat``, ``PositiveInt``,
``NonNegativeInt``, ``FinitePositiveFloat``, a tuple of them such as ``--depth 1,2``), or, for an
option written by hand, when its argparse ``type`` parses numbers.

Probes, each run in-process (``cli.main``) with ``TT_MEMORY_BUDGET=1G`` and
``TT_TIME_BUDGET=3600`` (an hour: the small base settings below must pass, 10^12 steps or samples
must not) and a per-call ``signal.alarm``, so that a probe that is NOT refused fails in seconds
instead of running the job:

- never a number: ``abc``, ``nan``, ``inf``, ``-inf``, and random text/negative numbers drawn by
  hypothesis;
- ``-1`` for every numeric option (no option of this CLI takes a negative number);
- ``0`` for the options that must be positive (``Positive*`` types, the list options of depths,
  heads, lengths and sizes);
- ``10^12`` for the size options (a sequence length, a sample count, a width, a number of steps):
  the budget must refuse it from its estimate, before allocating.

A probe passes when the command exits 2 and stderr holds no traceback and ends in one line that
names the option (argparse's own errors end in ``argument --x: ...``).
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import json
import os
import re
import signal
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transformer_theory import cli

ALARM_SECONDS = 8
WATCHDOG_SECONDS = 90
NEVER_NUMBERS = ("abc", "nan", "inf", "-inf")
HUGE = str(10**12)
# Options whose huge value is legitimate (a seed, a cap that larger data never reaches, a chunk
# clamped to the data, a time limit): probed with the other values only.
HUGE_OK = {
    "--seed",
    "--seeds",
    "--chunk-size",
    "--time-limit",
    "--max-columns",
    "--bandwidth",
    "--max-offset",
    "--scan-limit",
    "--slack",
    "--beta",
    "--target-kl",
    "--exhaustive-up-to",
    "--separator-every",  # a period: 10^12 means "no separator within the sequence"
}
# construct checks a small task exhaustively whatever --samples says (a cap): 10^12 runs at once.
# rasp: --max-inputs and --samples only cap how many inputs are checked; at the program's own
# small length every input is enumerated, so a huge cap changes nothing and runs at once.
HUGE_OK_IN = {("construct", "--samples"), ("rasp", "--max-inputs"), ("rasp", "--samples")}
# List options given as text whose entries must be positive.
POSITIVE_LISTS = {"--depth", "--heads", "--n", "--q", "--eps", "--parity-lengths", "--soft-lengths"}
NUMERIC_TYPES = re.compile(r"int|float|integer|number", re.IGNORECASE)


class ProbeTimeout(BaseException):
    """Raised by the alarm: the command started work instead of refusing the argument."""


def _subparsers():
    parser = cli.build_parser(cli._load_commands())
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


def _numeric_options(sub: argparse.ArgumentParser):
    out = []
    for a in sub._actions:
        if not a.option_strings or a.nargs == 0:
            continue
        hint = getattr(a, "_typehint", None)  # jsonargparse's, from the settings field
        if hint is not None:
            tname = str(hint)
        else:
            tname = getattr(a.type, "__name__", repr(a.type)) if a.type is not None else ""
        numeric = bool(NUMERIC_TYPES.search(tname)) and a.choices is None
        if numeric and "Literal" not in tname:  # a choice among names is no number
            opt = max(a.option_strings, key=len)
            positive = "positive" in tname.lower() or opt in POSITIVE_LISTS
            integer = "int" in tname.lower()
            out.append((opt, positive, integer))
    return out


def _probes(command: str, opt: str, positive: bool, integer: bool) -> list[str]:
    values = list(NEVER_NUMBERS) + ["-1"]
    if positive:
        values.append("0")
    if (
        positive
        and integer
        and opt not in HUGE_OK
        and (command, opt) not in HUGE_OK_IN
        and command not in NO_HUGE
    ):
        values.append(HUGE)
    return [v for v in values if (command, opt, v) not in NOT_YET_REFUSED]


COMMANDS = sorted(cli.COMMANDS)
# Small valid settings for each command, placed BEFORE the probe (argparse keeps the last value),
# so that the probed value, not a large default, is what a budget must refuse.
SMALL = {
    "verify": ["--quick"],
    "train": ["--experiment", "fig2_depth", "--size", "quick"],
    "collapse": ["--max-len", "64", "--points", "4", "--precision", "float64"],
    "oversquash": ["--length", "8", "--depth", "1"],
    "efficient-attention": ["--max-len", "512", "--min-len", "256", "--error-len", "64"],
    "sanford": ["--n", "4", "--q", "1"],
}
# Probes that were NOT refused when this test was written (2026-11-24, 22:00 UTC): left out so
# that the suite stays green, and reported to the lead with what happened. Delete an entry once
# its command refuses the value; the test then probes it again.
NOT_YET_REFUSED: dict[tuple[str, str, str], str] = {}
# heads needs a trained run directory, which this test does not make: its huge sizes are refused
# for the missing run first, so only the values argparse refuses are probed there.
NO_HUGE = {"heads"}


def _base_argv(command: str, tmp_path) -> list[str]:
    """The command with its required arguments, all valid, and its output in ``tmp_path``."""
    sub = _subparsers()[command]
    argv = [command]
    for a in sub._actions:
        if a.option_strings or a.dest == "help":
            continue
        if a.dest == "file":  # certify: a valid tiny dataset, so the probe is what gets refused
            path = tmp_path / "data.json"
            path.write_text(
                json.dumps({"tokens": [[0, 1, 2], [1, 0, 2]], "labels": [0, 1], "vocab_size": 3})
            )
            argv.append(str(path))
        elif command == "rasp":  # a library program, so the probed option is what is refused
            argv.append("length")
        else:  # plot / heads: a directory argument
            argv.append(str(tmp_path))
    if any("--out" in a.option_strings for a in sub._actions):
        argv += ["--out", str(tmp_path / "out")]
    return argv + SMALL.get(command, [])


def _option(opt: str, value: str) -> list[str]:
    # "--x=-1": a value that starts with "-" must not be read as another option.
    return [f"{opt}={value}"] if opt.startswith("--") else [opt, value]


def _run_probe(argv, opt, capsys) -> str | None:
    """``None`` if the probe was refused properly, else what went wrong."""

    def alarm(signum, frame):
        raise ProbeTimeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(ALARM_SECONDS)
    # The alarm is raised between Python bytecodes only: a probe stuck inside one long compiled
    # XLA call would never see it (a suite run once hung here for 40 minutes). The watchdog
    # kills this process with the stack of where it hung, so a probe that is not refused fails
    # the run (pytest-xdist reports the crashed worker) instead of hanging it.
    faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True, file=sys.__stderr__)
    try:
        code = cli.main(argv)
    except SystemExit as err:  # argparse's own errors
        code = err.code
    except ProbeTimeout:
        code = f"still running after {ALARM_SECONDS} s (not refused)"
    except Exception as err:  # noqa: BLE001 -- an uncaught exception is what the probe looks for
        code = f"uncaught {type(err).__name__}: {str(err)[:120]}"
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    if code != 2:
        return f"exit {code!r}"
    if "Traceback" in err or "Traceback" in out:
        return "traceback on stderr"
    lines = err.strip().splitlines()
    if not lines:
        return "exit 2 with nothing on stderr"
    if opt not in lines[-1] and opt.lstrip("-") not in lines[-1]:
        return f"last line does not name {opt}: {lines[-1][:120]!r}"
    return None


@pytest.fixture
def budget_env(monkeypatch, tmp_path):
    monkeypatch.setenv("TT_MEMORY_BUDGET", "1G")
    monkeypatch.setenv("TT_TIME_BUDGET", "3600")
    monkeypatch.chdir(tmp_path)  # anything a command writes by default lands here


@pytest.mark.parametrize("command", COMMANDS)
def test_every_numeric_option_refuses_bad_values(command, budget_env, tmp_path, capsys):
    base = _base_argv(command, tmp_path)
    failures = []
    for opt, positive, integer in _numeric_options(_subparsers()[command]):
        for value in _probes(command, opt, positive, integer):
            why = _run_probe(base + _option(opt, value), opt, capsys)
            if why is not None:
                failures.append(f"{opt} {value}: {why}")
    assert not failures, f"{command}: " + "; ".join(failures)


def test_every_command_but_plot_experiment_and_claims_has_numeric_options():
    # The option discovery must see the numeric options it is meant to probe.
    probed = {c: _numeric_options(_subparsers()[c]) for c in COMMANDS}
    # plot reads a directory; experiment a name and a size; claims a paper, globs and a tier
    assert [c for c, opts in probed.items() if not opts] == ["claims", "experiment", "plot"]
    assert ("--models", True, True) in probed["verify"]
    assert ("--depth", True, True) in probed["collapse"]  # a comma-separated list


@contextlib.contextmanager
def _probe_env(tmp):
    saved = {k: os.environ.get(k) for k in ("TT_MEMORY_BUDGET", "TT_TIME_BUDGET")}
    cwd = os.getcwd()
    os.environ.update(TT_MEMORY_BUDGET="1G", TT_TIME_BUDGET="3600")
    os.chdir(tmp)
    try:
        yield
    finally:
        os.chdir(cwd)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


junk = st.one_of(
    st.text(alphabet="abcxyz_!@%", min_size=1, max_size=6),
    st.integers(max_value=-1).map(str),
    st.sampled_from(["nan", "NaN", "inf", "-inf", "1e999", "-1e999", "0x10", "1,,2", ""]),
)


# capsys is read after every probe, so sharing it across examples is safe.
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(COMMANDS), data=st.data(), value=junk)
def test_random_junk_is_refused(command, data, value, tmp_path_factory, capsys):
    options = _numeric_options(_subparsers()[command])
    if not options:
        return
    opt = data.draw(st.sampled_from([o for o, _, _ in options]))
    if (
        value.startswith("-")
        and value.lstrip("-").isdigit()
        and (command, opt, "-1") in NOT_YET_REFUSED
    ):
        return  # the same negative probe as a left-out "-1"
    tmp = tmp_path_factory.mktemp("junk")
    with _probe_env(tmp):
        why = _run_probe(_base_argv(command, tmp) + _option(opt, value), opt, capsys)
    assert why is None, f"{command} {opt}={value!r}: {why}"
