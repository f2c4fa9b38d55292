"""Over-squashing (Barbero et al. 2024, §5): ``transformer-theory oversquash``.

For every model of the grid (``--depth`` x ``--heads`` x ``--positional`` x ``--seeds``, random
causal Pre-LN transformers, float64) and one input of ``--length`` tokens (``--pattern``),
computes the exact sensitivities ``||d v^(l)_n / d v_i||`` (every layer count ``l``) and
``||d y_n / d v_i||`` through ``jax.jacrev``, the attention-path weights
``(Lambda^(l) ... Lambda^(1))_{n,i}``, the
all-causal path counts and the product-of-attention bound; writes ``oversquash.json``
and ``oversquash.png`` (one panel per model). Exit 1 if a measured sensitivity exceeds its bound
(the bound is a theorem: that would be a bug).

Peak memory is estimated from XLA's compiled programs before any work and a run that would not
fit is refused (exit 2). ``oversquash.json`` is rewritten after each model (valid JSON at every
moment); Ctrl-C stops after the current model (exit 130) with the finished ones saved, and the
same command resumes from them; an ``oversquash.json`` of other settings is refused (exit 2,
naming the option that differs) unless ``--fresh``. Prints a line per finished model and a table
of them at the end.

The options are the fields of
:class:`transformer_theory.papers.barbero2024.experiments.oversquash.OversquashSettings` (checked
there, once); the study is ``papers/barbero2024/_study_oversquash.py``'s ``run``; this command
parses and prints from the typed records.
"""

from __future__ import annotations

import argparse

from transformer_theory.cli._common import (
    EXIT_FAILED,
    add_output,
    run_grid_study,
)
from transformer_theory.cli._options import add_settings
from transformer_theory.papers import study_of
from transformer_theory.papers.barbero2024 import _records
from transformer_theory.papers.barbero2024.experiments import oversquash

X64 = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_settings(parser, oversquash.OversquashSettings)
    add_output(parser, "results/oversquash", fresh=True, progress=True)


def run(args: argparse.Namespace) -> int:
    result = run_grid_study(
        args,
        study_of(oversquash),
        oversquash.OversquashSettings,
        "oversquash",
        lambda model: line(model),
        lambda model: summary(model),
    )
    if isinstance(result, int):
        return result
    failed = [m.name for m in result.record.models if m.bound_holds is False]
    if failed:
        print(f"the certified bound FAILED for {', '.join(failed)}")
        return EXIT_FAILED
    return 0


def line(model: _records.OversquashModel) -> str:
    """One line per finished model: the first/last-quarter ratios and whether the bound holds."""
    text = (
        f"{model.name}: first/last quarter of ||dy_n/dv_i||: {model.early_late_ratio:.3g}, "
        f"of the path weights {model.path_early_late_ratio:.3g} (with the residual "
        f"{model.residual_path_early_late_ratio:.3g})"
    )
    if model.bound_holds is not None:
        text += f"; bound holds: {model.bound_holds} (max ratio {model.bound_ratio_max:.3g})"
    return text


def summary(model: _records.OversquashModel) -> dict:
    """One table row per model: the first/last-quarter ratios of ``||dy_n/dv_i||``, of the path
    weights and of the residual path weights, and (with the bound) whether it holds and the
    largest sensitivity/bound ratio."""
    row = dict(
        name=model.name,
        sensitivity_ratio=model.early_late_ratio,
        path_ratio=model.path_early_late_ratio,
        residual_path_ratio=model.residual_path_early_late_ratio,
    )
    if model.bound_holds is not None:
        row.update(bound_holds=model.bound_holds, bound_ratio_max=model.bound_ratio_max)
    return row
