"""What training a sweep will cost, from its settings alone: a LOWER bound on the seconds of the
steps a command would run (:func:`check_seconds`, against :mod:`transformer_theory.budget`).
Integer arithmetic on the configs: nothing is built."""

from __future__ import annotations

import os
from collections.abc import Sequence

from transformer_theory import budget
from transformer_theory.sweeps.specs import RunSpec

__all__ = ["check_seconds"]


# A LOWER bound on the seconds of one training step, so that the estimate below refuses only runs
# that are surely too long (a paper-size sweep is legitimately hours): a fixed cost per step plus
# a cost per unit of work, ``batch x n x D x (n + D) x sum(heads)`` (the forward pass's
# multiply-adds up to a constant). Where the constants come from: on a CPU, README's
# `benchmarks/train_throughput.py` table (2026-11-23, idle 2-core CPU, float32, batch 256): the
# fastest cell, contextual depth 1 with the fast step, ran 229 steps/s at n = 20, D = 228, i.e.
# 1.5e-11 s per unit (the other cells 2.3e-11 to 7.4e-11), and the quick-size steps take 0.47-0.70
# ms each (train/loop.py, the divergence-flag note); on an accelerator, a unit is about 6 FLOPs
# (forward and backward), 1e-13 s at 60 TFLOP/s, above an H100's float32 peak. The floor is below
# a GPU's launch overhead (tens of microseconds per step). Every constant is below every
# measurement, so a refused run is surely over the budget.
SECONDS_PER_STEP_FLOOR = 2e-5
SECONDS_PER_STEP_WORK = {"cpu": 1e-11}
SECONDS_PER_STEP_WORK_ACCELERATOR = 1e-13


def _steps_to_run(spec, out: str) -> int:
    """The fewest steps this command can run for ``spec``: its target (``--steps`` or the setup's
    count), or, with early stopping, the earliest step at which a stop can fire, less the steps its
    run directory under ``out`` already holds (a finished or diverged run runs none)."""
    tc = spec.train_config
    target = tc.steps
    stop = spec.setup.early_stop
    if stop is not None:
        # A stop is judged at evaluations (every log_every steps): `patience` of them at the
        # threshold, or a best accuracy (at step >= 0) unimproved for `plateau_steps`.
        earliest = stop.patience * tc.log_every
        if stop.plateau_steps is not None:
            earliest = min(earliest, -(-stop.plateau_steps // tc.log_every) * tc.log_every)
        target = min(target, earliest)
    run_dir = os.path.join(out, spec.name)
    if not os.path.isdir(os.path.join(run_dir, "checkpoints")):
        return target
    from transformer_theory.train.checkpoint import latest_step
    from transformer_theory.train.rundir import read_run_file

    record = read_run_file(run_dir)
    if record is not None and "status" in record:  # diverged: read back, never trained further
        return 0
    return max(target - (latest_step(os.path.join(run_dir, "checkpoints")) or 0), 0)


def check_seconds(runs: Sequence[RunSpec], out: str) -> float:
    """A lower bound on the seconds of training ``runs`` into ``out`` (only the steps this command
    would run); raises :class:`~transformer_theory.budget.BudgetError` naming ``--steps`` when even
    that exceeds the time budget (``TT_TIME_BUDGET``, default 4 h). Integer arithmetic on the
    settings: nothing is built."""
    import jax

    per_work = SECONDS_PER_STEP_WORK.get(jax.default_backend(), SECONDS_PER_STEP_WORK_ACCELERATOR)
    total, steps = 0.0, 0
    for spec in runs:
        n = _steps_to_run(spec, out)
        if n == 0:
            continue
        cfg = spec.model_config
        batch = min(spec.train_config.batch_size, getattr(spec.setup.task, "size", 1))
        d, seq = cfg.width, cfg.seq_len
        work = batch * seq * d * (seq + d) * sum(cfg.heads)
        total += float(n) * (SECONDS_PER_STEP_FLOOR + per_work * work)
        steps += n
    budget.check_seconds(
        total,
        what=f"training {len(runs)} run(s), at least {steps:.3g} steps in all (a lower bound)",
        option="steps",
    )
    return total
