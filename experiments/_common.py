"""Shared machinery of the training experiments (Chen & Zou 2024, §6, §9): task setups per size, one
run,
a sweep over runs, the summary table and the curve plots.

A *run* is (task, heads per layer, seed, size). Each run writes ``<out>/<run
name>/metrics.{csv,json}``
and Orbax checkpoints; a sweep writes ``<out>/summary.{csv,json}`` (final held-out accuracy per run)
and ``<out>/aggregate.csv`` (mean and spread over seeds), and :func:`plot_curves` draws PNGs.

Sizes:
- ``quick``: small datasets that a 2-core CPU trains in seconds per run (all four tasks x depths
  1-4 x 3 seeds in a few minutes);
- ``paper``: Chen & Zou 2024, §9.1's sizes (d1 = 500, n = 6 for memorization; 100 questions and 100
  answers
  for reasoning; 210 symbols for generalization; 100 symbols, 100 answers, l = 5 for contextual
  generalization). §9.1 does not give k, the template sets, the number of memorized examples e, the
  learning rate or the step count; our choices are written next to each setup below.

Initialization (both sizes): Chen & Zou 2024, §9.1 (:func:`transformer_theory.train.paper_init`):
W_QK
uniform [0, 1), the first layer's W_QK set to the constructed pattern for the three non-memorization
tasks, the classifier uniform [0, 1); W_V = identity (our reading of "W_V ... with a value of 1";
the all-ones reading, ``w_v="ones"``, stalls the two-layer reasoning model in the quick budget);
the W_QK of layers 2.. are uniform [0, 0.1) (0.01 for memorization, whose first layer is not a
sparse pattern) -- §9.1 leaves them open for the pattern-initialized tasks and says uniform [0, 1)
for memorization, but uniform [0, 1) makes 4-layer ReLU streams overflow float32 (memorization at
depth 4: initial loss ~1e36, then NaN).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import time
from collections.abc import Callable, Sequence

import jax
import numpy as np

from transformer_theory import tasks as tasklib
from transformer_theory.train import (
    DataConfig,
    TaskData,
    TrainConfig,
    paper_init,
    random_init,
    train,
)

SIZES = ("quick", "paper")
TASK_NAMES = ("memorization", "reasoning", "generalization", "contextual")
CHANCE_NOTE = {
    "memorization": "1 layer memorizes (Thm 1)",
    "reasoning": "1 layer fails, at chance (Thm 2); 2 layers reason (Thm 3)",
    "generalization": "1 layer fails, at chance (Thm 4); 2 layers generalize (Thm 5)",
    "contextual": "1-2 layers at chance (Thm 2, §6.1); 3 layers succeed (Thm 6)",
}


@dataclasses.dataclass(frozen=True)
class TaskSetup:
    """How one of the four tasks is built and trained at one size."""

    name: str
    make_task: Callable[[], object]
    data: DataConfig
    train: TrainConfig
    extra_width: int = 0  # padding dims beyond d + n (Theorem 6 needs l + 2)
    w_v: str = "identity"
    # Scales W_QK of layers 2.. (unspecified by §9.1 for these tasks); 1.0 diverges at depth 4.
    later_qk_scale: float = 0.1


def task_setup(name: str, size: str) -> TaskSetup:
    """The :class:`TaskSetup` of task ``name`` (one of :data:`TASK_NAMES`) at ``size``
    (quick|paper)."""
    if name not in TASK_NAMES:
        raise ValueError(f"task: expected one of {TASK_NAMES}, got {name!r}")
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    quick = size == "quick"
    sgd = TrainConfig(optimizer="sgd", learning_rate=0.1, grad_clip=1.0)
    if name == "memorization":
        # quick: 64 random length-3 sequences over 8 symbols, 64 distinct labels, full-batch GD.
        # paper: §9.1 d1 = 500, n = 6 (+ CLS); e = 1000 examples (our choice; §9.1 leaves e open).
        make = (
            (lambda: tasklib.SequenceClassification(8, 3, 64, seed=0))
            if quick
            else (lambda: tasklib.SequenceClassification(500, 6, 1000, seed=0))
        )
        tc = sgd.replace(
            steps=1000 if quick else 20000,
            batch_size=64 if quick else 1000,
            log_every=50 if quick else 500,
            checkpoint_every=500 if quick else 5000,
        )
        # §9.1 puts every W_QK of the memorization model uniform in [0, 1); at depth 4 that gives an
        # initial loss ~1e36 and then NaN (measured), and even uniform [0, 0.1) in layers 2.. starts
        # at
        # ~1e24 and never moves. Layers 2.. get uniform [0, 0.01) (initial loss ~1e11 at depth 4,
        # memorized in 1000 steps). A finding about the literal initialization: later_qk_scale=1.0.
        return TaskSetup(name, make, DataConfig(eval_on_train=True), tc, later_qk_scale=0.01)
    if name == "reasoning":
        # quick: 6 questions, 6 answers, k = 2 pairs (1800 sequences, 360 held out).
        # paper: §9.1 100 questions and 100 answers; k = 3 (our choice).
        make = (
            (lambda: tasklib.InContextQA(6, 6, 2))
            if quick
            else (lambda: tasklib.InContextQA(100, 100, 3))
        )
        tc = sgd.replace(
            steps=2000 if quick else 20000,
            batch_size=64 if quick else 256,
            log_every=50 if quick else 500,
            checkpoint_every=500 if quick else 5000,
        )
        return TaskSetup(name, make, DataConfig(holdout=0.2, eval_size=1024), tc)
    if name == "generalization":
        # quick: all 5 equality patterns of length 3 over 10 symbols (1000 sequences, 200 held out).
        # paper: §9.1 210 symbols; all 15 patterns of length l = 4 (our choice).
        make = (
            (lambda: tasklib.TemplateMatching(10, tasklib.all_templates(3)))
            if quick
            else (lambda: tasklib.TemplateMatching(210, tasklib.all_templates(4)))
        )
        tc = sgd.replace(
            steps=2000 if quick else 20000,
            batch_size=64 if quick else 256,
            log_every=50 if quick else 500,
            checkpoint_every=500 if quick else 5000,
        )
        # Class-balanced: the all-distinct template owns 72% (quick) / >97% (paper) of the
        # sequences.
        return TaskSetup(
            name, make, DataConfig(holdout=0.2, eval_size=1024, balance_classes=True), tc
        )
    # contextual generalization.
    # quick: 6 symbols, 4 answers, the 2 patterns of length 2, k = 2 (155520 sequences, 1024 held
    # out);
    # width d + n + l + 2 as in Theorem 6 (without the l + 2 spare dims 3 layers stall at 1/k).
    # paper: §9.1 100 symbols, 100 answers, l = 5 (all 52 patterns), k = 2 (our choice).
    if quick:
        make, l = (lambda: tasklib.InContextTemplateMatching(6, 4, tasklib.all_templates(2), 2)), 2
    else:
        make, l = (
            (lambda: tasklib.InContextTemplateMatching(100, 100, tasklib.all_templates(5), 2)),
            5,
        )
    tc = sgd.replace(
        steps=3000 if quick else 40000,
        batch_size=64 if quick else 256,
        log_every=50 if quick else 500,
        checkpoint_every=500 if quick else 5000,
    )
    return TaskSetup(name, make, DataConfig(holdout=0.2, eval_size=1024), tc, extra_width=l + 2)


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """One training run: ``task`` with ``heads`` per layer, ``seed``, ``size``; ``steps`` overrides
    the setup's."""

    task: str
    heads: tuple[int, ...]
    seed: int
    size: str = "quick"
    steps: int | None = None
    init: str = "paper"  # "paper" (Chen & Zou 2024, §9.1) or "random"
    optimizer: str | None = None  # overrides the setup's ("sgd" | "adam")
    learning_rate: float | None = None  # overrides the setup's

    @property
    def name(self) -> str:
        h = "-".join(str(x) for x in self.heads)
        opt = "" if self.optimizer is None else f"_{self.optimizer}"
        lr = "" if self.learning_rate is None else f"_lr{self.learning_rate:g}"
        return f"{self.task}_heads{h}_seed{self.seed}{opt}{lr}"


def override_train(
    tc: TrainConfig,
    steps: int | None = None,
    optimizer: str | None = None,
    learning_rate: float | None = None,
) -> TrainConfig:
    """``tc`` with the command line's overrides (``None`` keeps the setup's value)."""
    if steps is not None:
        tc = tc.replace(
            steps=steps,
            log_every=min(tc.log_every, steps),
            checkpoint_every=min(tc.checkpoint_every, steps),
        )
    if optimizer is not None:
        tc = tc.replace(optimizer=optimizer)
    if learning_rate is not None:
        tc = tc.replace(learning_rate=learning_rate)
    return tc


def build_run(spec: RunSpec):
    """``(params, data, train_config, meta)`` of ``spec`` -- everything :func:`train` needs."""
    setup = task_setup(spec.task, spec.size)
    task = setup.make_task()
    config = task.model_config(
        heads=spec.heads, width=task.vocab_size + task.seq_len + setup.extra_width
    )
    root = jax.random.key(spec.seed)
    init_key, data_key = jax.random.fold_in(root, 0), jax.random.fold_in(root, 2)
    if spec.init == "paper":
        params = paper_init(
            init_key, config, task, w_v=setup.w_v, later_qk_scale=setup.later_qk_scale
        )
    elif spec.init == "random":
        params = random_init(init_key, config)
    else:
        raise ValueError(f"init: expected 'paper' or 'random', got {spec.init!r}")
    data = TaskData(task, data_key, setup.data)
    tc = override_train(
        setup.train.replace(seed=spec.seed), spec.steps, spec.optimizer, spec.learning_rate
    )
    meta = dict(
        name=spec.name,
        task=spec.task,
        heads=list(spec.heads),
        depth=len(spec.heads),
        seed=spec.seed,
        size=spec.size,
        init=spec.init,
        optimizer=tc.optimizer,
        learning_rate=tc.learning_rate,
        w_v=setup.w_v,
        task_repr=repr(task),
        chance=1.0 / task.num_classes,
    )
    return params, data, tc, meta


def execute(spec: RunSpec, out_root: str | None, progress: bool = True) -> dict:
    """Train one run (resuming from its checkpoints if present); returns its summary row."""
    params, data, tc, meta = build_run(spec)
    out_dir = None if out_root is None else os.path.join(out_root, spec.name)
    t0 = time.perf_counter()
    res = train(params, data, tc, out_dir, meta=meta, progress=progress)
    last = res.metrics[-1]
    return dict(
        run=spec.name,
        task=spec.task,
        heads="-".join(map(str, spec.heads)),
        depth=len(spec.heads),
        seed=spec.seed,
        steps=res.steps_done,
        final_eval_acc=last["eval_acc"],
        final_eval_loss=last["eval_loss"],
        initial_eval_loss=res.metrics[0]["eval_loss"],
        chance=meta["chance"],
        seconds=round(time.perf_counter() - t0, 2),
    )


def aggregate(rows: Sequence[dict]) -> list[dict]:
    """Mean, sample standard deviation, min and max of the final held-out accuracy per (task,
    heads)."""
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["task"], r["heads"]), []).append(r)
    out = []
    for (task, heads), rs in groups.items():
        acc = np.array([r["final_eval_acc"] for r in rs])
        out.append(
            dict(
                task=task,
                heads=heads,
                depth=rs[0]["depth"],
                seeds=len(rs),
                acc_mean=float(acc.mean()),
                acc_std=float(acc.std(ddof=1)) if len(acc) > 1 else 0.0,
                acc_min=float(acc.min()),
                acc_max=float(acc.max()),
                chance=rs[0]["chance"],
                paper_claim=CHANCE_NOTE[task],
            )
        )
    return out


def _write_csv(path: str, rows: Sequence[dict]) -> None:
    if not rows:
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def sweep(
    experiment: str, specs: Sequence[RunSpec], out_root: str, progress: bool = True
) -> list[dict]:
    """Run every spec (resuming finished/killed ones), write ``summary.*`` and ``aggregate.csv``."""
    os.makedirs(out_root, exist_ok=True)
    with open(os.path.join(out_root, "experiment.json"), "w") as f:
        json.dump(
            {
                "experiment": experiment,
                "runs": [dataclasses.asdict(s) | {"name": s.name} for s in specs],
            },
            f,
            indent=1,
        )
    rows = []
    for i, spec in enumerate(specs):
        row = execute(spec, out_root, progress=progress)
        rows.append(row)
        print(
            f"[{i + 1}/{len(specs)}] {spec.name}: held-out acc {row['final_eval_acc']:.3f} "
            f"(chance {row['chance']:.3f}), loss {row['initial_eval_loss']:.3g} -> "
            f"{row['final_eval_loss']:.3g}, {row['seconds']} s",
            flush=True,
        )
    with open(os.path.join(out_root, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    _write_csv(os.path.join(out_root, "summary.csv"), rows)
    agg = aggregate(rows)
    _write_csv(os.path.join(out_root, "aggregate.csv"), agg)
    return rows


def load_runs(out_root: str) -> list[dict]:
    """``[{"meta": ..., "rows": ...}]`` of every run directory under ``out_root``."""
    runs = []
    for name in sorted(os.listdir(out_root)):
        path = os.path.join(out_root, name, "metrics.json")
        if os.path.exists(path):
            with open(path) as f:
                runs.append(json.load(f))
    return runs


def plot_curves(
    out_root: str, filename: str, title: str, tasks: Sequence[str] | None = None
) -> str:
    """Accuracy (top) and loss (bottom) against steps, one column per task, one line per heads
    config.

    Lines are the mean over seeds; the shaded band spans min to max. Returns the PNG path.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = load_runs(out_root)
    if not runs:
        raise ValueError(f"out_root: no run directories with metrics.json under {out_root}")
    present = [t for t in TASK_NAMES if any(r["meta"]["task"] == t for r in runs)]
    tasks = [t for t in (tasks or present) if t in present]
    fig, axes = plt.subplots(2, len(tasks), figsize=(4.2 * len(tasks), 6.5), squeeze=False)
    for col, task in enumerate(tasks):
        by_heads: dict = {}
        for r in runs:
            if r["meta"]["task"] == task:
                by_heads.setdefault(tuple(r["meta"]["heads"]), []).append(r["rows"])
        for heads in sorted(by_heads, key=lambda h: (len(h), h)):
            curves = by_heads[heads]
            steps = [row["step"] for row in curves[0]]
            m = min(len(c) for c in curves)
            label = f"L={len(heads)}" if all(h == 1 for h in heads) else str(list(heads))
            for row_i, key in enumerate(("eval_acc", "eval_loss")):
                vals = np.array([[row[key] for row in c[:m]] for c in curves])
                ax = axes[row_i, col]
                (line,) = ax.plot(steps[:m], vals.mean(0), label=label)
                ax.fill_between(
                    steps[:m], vals.min(0), vals.max(0), color=line.get_color(), alpha=0.2
                )
        chance = next(r["meta"]["chance"] for r in runs if r["meta"]["task"] == task)
        axes[0, col].axhline(chance, color="gray", ls=":", lw=1, label="chance")
        axes[0, col].set_title(task)
        axes[0, col].set_ylim(-0.02, 1.02)
        axes[0, col].set_ylabel("held-out accuracy")
        axes[1, col].set_ylabel("held-out loss")
        axes[1, col].set_yscale("log")
        axes[1, col].set_xlabel("step")
        axes[0, col].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    path = os.path.join(out_root, filename)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
