"""The study of Barbero et al. 2024's ``collapse_tasks`` experiment: for every (task, separators)
run of its settings (:class:`.experiments.collapse_tasks.CollapseTaskSettings`, read by their
fields: this module imports no experiment and no option), train the small model
(:func:`~._models_trained.train_task`), evaluate it long at every precision
(:func:`~._theory_collapse.evaluate`), record it to ``<name>.json`` as it finishes, then draw
``<name>.png``.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any

from transformer_theory import jsonio
from transformer_theory.papers.barbero2024 import _plots
from transformer_theory.papers.barbero2024 import _theory_collapse as collapse
from transformer_theory.papers.barbero2024._models_trained import train_task
from transformer_theory.papers.barbero2024._records import TasksConfig, TasksRecord
from transformer_theory.papers.barbero2024._tasks import CopyingTask, length_grid

__all__ = ["run", "summary_lines"]


def run(config: Any, out_dir: str | None, *, progress: bool = True) -> TasksRecord:
    """Train and evaluate every (task, separators) run of ``config``.

    Writes ``<name>.json`` under ``out_dir`` after each finished run (``complete`` False until the
    last; valid JSON at every moment) and ``<name>.png`` at the end; ``out_dir`` None writes
    nothing. Returns the record (:class:`~._records.TasksRecord`): ``config``, ``complete``,
    ``seconds`` and per run ``tasks`` (training log, ``diverged_step``, and per precision
    accuracy, distance, bit identity).
    """
    t0 = time.perf_counter()
    block = TasksConfig(**dataclasses.asdict(config))  # the settings by field, typed
    tasks: list[dict] = []
    path = None
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, f"{config.name}.json")

    def record(complete: bool) -> dict:
        out = dict(
            config=block,
            complete=complete,
            seconds=round(time.perf_counter() - t0, 1),
            tasks=tasks,
        )
        if path is not None:
            jsonio.write_json(path, out)
        return out

    for name in config.tasks:
        for sep in config.separators:
            if name == "count_ones":  # every count whose pair (n, n + 1) both have a class
                task = CopyingTask(name, 1, config.count_max_len, sep)
            else:
                task = CopyingTask(name, config.train_min_len, config.train_max_len, sep)
            t1 = time.perf_counter()
            params, rows, diverged = train_task(
                task,
                depth=config.depth,
                heads=config.heads,
                positional=config.positional,
                width=config.width,
                steps=config.steps,
                batch_size=config.batch_size,
                learning_rate=config.learning_rate,
                seed=config.seed,
                progress=progress,
            )
            # the inputs, built once: the lengths, their confusable pairs, the pattern's lengths
            if name == "count_ones":
                lengths = list(range(1, task.max_len))
            else:
                lengths = length_grid(config.eval_max_len, config.eval_points, config.train_min_len)
            pairs = task.confusable_pairs(lengths)
            measure_pattern = config.collapse_pattern is not None and sep is None
            if measure_pattern:
                pattern_lengths = length_grid(config.eval_max_len, config.eval_points)
            # then the measurements
            result = collapse.evaluate(params, pairs, config.precisions, progress, name=name)
            pattern = None
            if measure_pattern:
                pattern = collapse.model_record(
                    params,
                    f"trained {name}",
                    pattern_lengths,
                    config.precisions,
                    pattern=config.collapse_pattern,
                )
            tasks.append(
                dict(
                    name=name if sep is None else f"{name} (separator every {sep})",
                    task=name,
                    separator_every=sep,
                    train_min_len=task.min_len,
                    train_max_len=task.max_len,
                    lengths=lengths,
                    training=rows,
                    diverged_step=diverged,
                    precisions=result,
                    collapse=pattern,
                    seconds=round(time.perf_counter() - t1, 1),
                )
            )
            record(complete=False)
    final = record(complete=True)
    if out_dir is not None:
        _plots.plot_task_accuracy(final, os.path.join(out_dir, f"{config.name}.png"))
    return jsonio.as_record(TasksRecord, final)


def summary_lines(record: TasksRecord) -> list[str]:
    """One line per run: final training accuracy, then per precision the accuracy at the longest
    length, the first length where the pair gets one prediction and the first bit-identical one."""
    lines = []
    for t in record.tasks:
        parts = [f"{t.name}: train acc {t.training[-1].acc:.2f}"]
        for prec, r in t.precisions.items():
            parts.append(
                f"{prec} acc@{t.lengths[-1]}={r.accuracy[-1]:.2f}, one prediction from "
                f"n={r.first_same_prediction}, identical from n={r.first_identical}"
            )
        lines.append("; ".join(parts))
    return lines
