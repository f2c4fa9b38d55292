"""Representational collapse (Barbero et al. 2024, §4): ``transformer-theory collapse``.

For every model of the grid (``--depth`` x ``--heads`` x ``--positional`` x ``--seeds``, random
causal Pre-LN transformers) and every precision, measures ``||y_n - y'_{n+1}||`` between the final
last-token representations of ``v`` (``--pattern``, e.g. ``1 ... 1 0``) and ``v`` with its last
token repeated, at lengths up to ``--max-len``; writes ``collapse.json`` (per model and precision:
the distances by length, the first bit-identical length, the fitted rate, the derived ``1/n``
limit for one-layer models, and the verdict read from the curve's tail: ``collapses ~ n^S`` or
``plateau at X: no collapse``) and ``collapse.png``; prints a line per finished model and a table
of them at the end.

The peak memory of the longest measurement is estimated from XLA's compiled program before any
work; a run that would not fit is refused (exit 2, naming the option to lower). Each finished
model is written to ``collapse.json`` at once (valid JSON at every moment); Ctrl-C stops after
the current measurement (exit 130, saying how many models were saved), and the same command
resumes from the finished models, measuring only the rest. A ``collapse.json`` in ``--out`` that
records other settings is refused (exit 2, naming the option that differs) unless ``--fresh``
asks to start over.

The study is :func:`transformer_theory.papers.barbero2024.study.run_collapse`; this command
parses, checks and prints.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from transformer_theory.cli._common import (
    EXIT_INTERRUPTED,
    UsageError,
    comma_list,
    format_table,
    name_list,
    positive_int,
    prepare_out_dir,
)

if TYPE_CHECKING:
    from transformer_theory.papers.barbero2024.study import (
        CollapseSettings,
        GridModel,
        OversquashSettings,
    )

T = TypeVar("T")

# Lengths measured when --points is not given (fewer when --max-len has fewer lengths).
DEFAULT_POINTS = 16
# The settings' fields and the options that set them (a ValueError names the field).
OPTIONS = dict(
    depths="--depth",
    heads="--heads",
    positionals="--positional",
    seeds="--seeds",
    max_len="--max-len",
    points="--points",
    precisions="--precision",
    pattern="--pattern",
    separator_every="--separator-every",
    width="--width",
    length="--length",
)
# The keys of the settings blocks of collapse.json and oversquash.json, and the options that
# set them.
RECORD_OPTIONS = dict(
    depth="--depth",
    heads="--heads",
    positional="--positional",
    seeds="--seeds",
    max_len="--max-len",
    points="--points",
    lengths="--max-len/--points",
    precisions="--precision",
    pattern="--pattern",
    separator_every="--separator-every",
    width="--width",
    length="--length",
    bound="--no-bound",
    tokens="--length/--pattern",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", type=comma_list(int, minimum=1), default="1,2", help="layers")
    parser.add_argument(
        "--heads", type=comma_list(int, minimum=1), default="1", help="heads per layer"
    )
    parser.add_argument(
        "--positional",
        default="none,sinusoidal,rope,alibi",
        help="positional codes, comma list of none, sinusoidal, rope, alibi, or 'all'",
    )
    parser.add_argument("--max-len", type=positive_int, default=4096, help="longest n")
    parser.add_argument(
        "--points",
        type=positive_int,
        default=None,
        help=f"lengths measured, ending at --max-len (default {DEFAULT_POINTS}, or every length "
        "when --max-len has fewer; at most --max-len - 1: the lengths are distinct integers "
        "from 2)",
    )
    parser.add_argument(
        "--precision",
        default="float64,float32,bfloat16",
        help="comma list of float64, float32, bfloat16 (the model runs entirely in each)",
    )
    parser.add_argument(
        "--pattern", default="ones_zero", help="ones_zero (1...10), zeros_one, alternating, random"
    )
    parser.add_argument(
        "--separator-every",
        type=positive_int,
        default=None,
        help="interleave a separator token after every K tokens (Barbero et al.'s remedy)",
    )
    parser.add_argument("--width", type=positive_int, default=32, help="model width d'")
    parser.add_argument("--seeds", type=comma_list(int, minimum=0), default="0", help="model seeds")
    parser.add_argument("--out", default="results/collapse", help="output directory")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="start over: measure every model, replacing a collapse.json in --out (without it, "
        "one with the same settings is resumed and one with other settings is refused)",
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (it is drawn only on a terminal)",
    )


def settings_of(make: Callable[..., T], **fields: object) -> T:
    """``make(**fields)`` (a settings dataclass), its ValueError as a UsageError naming the
    option."""
    try:
        return make(**fields)
    except ValueError as err:
        field, _, message = str(err).partition(": ")
        raise UsageError(f"{OPTIONS.get(field, field)}: {message}") from None


def grid_of(settings: CollapseSettings | OversquashSettings) -> list[GridModel]:
    """The grid of ``settings``, its size checked (BudgetError) and a config's ValueError (a width
    too small for the code) reported against ``--width``."""
    from transformer_theory.budget import BudgetError, BudgetSettingError
    from transformer_theory.papers.barbero2024 import study

    try:
        return study.model_grid(settings)
    except (BudgetError, BudgetSettingError):  # a size refused, or a bad TT_*_BUDGET: not --width
        raise
    except ValueError as err:
        raise UsageError(f"--width: {err}") from None


def measured_points(points: int | None, max_len: int) -> int:
    """``--points`` checked against ``--max-len``: the grid's lengths are distinct integers from 2
    to ``max_len``, so no more than ``max_len - 1`` can be measured (UsageError naming
    ``--points``); not given, :data:`DEFAULT_POINTS` or every length if there are fewer."""
    lengths = max_len - 1
    if points is None:
        return min(DEFAULT_POINTS, lengths)
    if points > lengths:
        raise UsageError(
            f"--points: {points} lengths asked for, but only {lengths} distinct lengths lie in "
            f"2..{max_len} (--max-len); ask for at most {lengths}"
        )
    return points


def held_sigint() -> contextlib.AbstractContextManager:
    """Ctrl-C held until the current JAX call returns, then raised: interrupting XLA inside a
    call left the interpreter to crash at exit (exit 139 after "interrupted")."""
    from transformer_theory.train.checkpoint import deferred_sigint

    return deferred_sigint()


def run(args: argparse.Namespace) -> int:
    import jax

    from transformer_theory.papers.barbero2024 import collapse, study
    from transformer_theory.papers.barbero2024.models import POSITIONAL

    positionals = name_list(args.positional, POSITIONAL, "--positional")
    precisions = name_list(args.precision, collapse.PRECISIONS, "--precision")
    if not 2 <= args.max_len <= study.MAX_LEN:
        raise UsageError(f"--max-len: expected 2..{study.MAX_LEN}, got {args.max_len}")
    settings = settings_of(
        study.CollapseSettings,
        depths=args.depth,
        heads=args.heads,
        positionals=positionals,
        seeds=args.seeds,
        max_len=args.max_len,
        points=measured_points(args.points, args.max_len),
        precisions=precisions,
        pattern=args.pattern,
        separator_every=args.separator_every,
        width=args.width,
    )
    grid = grid_of(settings)
    out = prepare_out_dir(args.out)
    path = os.path.join(out, "collapse.json")
    if not args.fresh:  # before the memory check: it compiles
        check_resumable(path, settings.record())
    jax.config.update("jax_enable_x64", True)
    study.check_collapse_memory(settings, grid)

    done = {} if args.fresh else study.finished_models(path, settings.record())
    if done:
        print(f"resuming: {len(done)} finished model(s) read from {path}", flush=True)
    try:
        result = study.run_collapse(
            settings,
            out,
            grid=grid,
            progress=not args.no_progress,
            guard=held_sigint,
            on_model=lambda model: print(summary_line(model, precisions), flush=True),
            fresh=args.fresh,
        )
    except study.Interrupted as stop:
        print(
            f"transformer-theory collapse: interrupted; {stop.finished} of {stop.total} model(s) "
            f"finished and saved in {stop.path}; run the same command to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    print(format_table(study.collapse_summary(m) for m in result.record["models"]))
    print(result.json_path)
    print(result.figure_path)
    return 0


def check_resumable(path: str, settings: dict) -> None:
    """:func:`~transformer_theory.papers.barbero2024.study.check_resumable` as a
    ``UsageError`` naming the option that differs (the finished work is never overwritten
    unasked); for ``collapse`` and ``oversquash``."""
    from transformer_theory.papers.barbero2024 import study

    try:
        study.check_resumable(path, settings)
    except study.SettingsDiffer as err:
        if err.setting is None:
            what = f"--out: {err}"
        else:
            option = RECORD_OPTIONS.get(err.setting, "--out")
            what = (
                f"{option}: {path} holds a run with {err.setting} {err.recorded}, not {err.asked}"
            )
        raise UsageError(
            f"{what}; rerun with its settings to resume it, add --fresh to start over, or choose "
            "another --out"
        ) from None


def summary_line(model: dict, precisions: Sequence[str]) -> str:
    """One line per model: the verdict read from the tail, the derived limit where there is one,
    and per precision the first identical length."""
    asym = model["asymptotic"]
    parts = [f"{model['name']}: {model['verdict']}"]
    if asym["slope"] is not None:
        parts[0] += f" (tail {asym['tail_from']}..{asym['tail_to']})"
    if model["predicted_limit"] is not None:
        rate = model["rate"]
        fitted = "n/a" if rate["constant"] is None else f"{rate['constant']:.3g}"
        parts.append(f"n*distance -> K derived {model['predicted_limit']:.3g}, measured {fitted}")
    for prec in precisions:
        first = model["precisions"][prec]["first_identical"]
        parts.append(f"{prec} first identical at n={first}" if first else f"{prec} never identical")
    return "; ".join(parts)
