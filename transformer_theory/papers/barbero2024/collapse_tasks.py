"""Trained tasks that show representational collapse (Barbero et al. 2024, §4): copy the first
token, copy the last token, count the ones -- with and without interleaved separators.

A small causal Pre-LN transformer (Flax NNX, Optax Adam, float32) is trained on each task of
:mod:`transformer_theory.papers.barbero2024.tasks` at short content lengths (``train_min_len ..
train_max_len``, every length in one left-padded, masked batch), then evaluated at growing lengths
in every precision (parameters and activations cast to float64, float32, bfloat16). At each length
the task's confusable pair (the two marked bits; ``n`` and ``n + 1`` ones) runs through two
separate forward passes (:func:`transformer_theory.papers.barbero2024.collapse.pair_representations`): the
predictions give the accuracy, the two final representations give the distance and whether they
are bit-identical -- so accuracy is plotted beside the collapse length of the same model.

Configs: :data:`CONFIGS` (``"collapse_tasks"``, the measured one; ``"smoke"``, seconds); the
script ``experiments/collapse_tasks.py`` runs one and gives the command, its time and its result.
"""

from __future__ import annotations

import dataclasses
import os
import time

import jax
import jax.numpy as jnp
import optax
from flax import nnx

from transformer_theory import _validate, jsonio
from transformer_theory.core.forward import forward
from transformer_theory.nn import Transformer, to_params
from transformer_theory.papers.barbero2024 import collapse
from transformer_theory.papers.barbero2024 import tasks as copying
from transformer_theory.params import ModelParams
from transformer_theory.train.loop import TrainConfig, cross_entropy, make_optimizer


@dataclasses.dataclass(frozen=True)
class CollapseTaskConfig:
    """One experiment: which tasks, which model, how it trains, where it is evaluated.

    Attributes:
      name: names the output files.
      tasks: names from :data:`~transformer_theory.papers.barbero2024.tasks.TASKS`.
      separators: for each entry a run: ``None`` (plain) or ``k`` (a separator after every ``k``
        content tokens, Barbero et al. 2024's remedy).
      positional: the model's positional code (:data:`~.collapse.POSITIONAL`).
      depth, heads, width: the model.
      train_min_len, train_max_len: content lengths the copying tasks train on.
      count_max_len: ``count_ones`` trains on ``1 .. count_max_len`` ones and is evaluated at
        every count ``1 .. count_max_len - 1`` (the pair ``n, n + 1`` must both have a class; a
        count beyond the trained ones has none); its classes are ``0 .. count_max_len``.
      eval_max_len, eval_points: evaluation lengths (geometric from ``train_min_len``).
      precisions: evaluation precisions.
      collapse_pattern: also measure the trained model's collapse on this pattern with its last
        token repeated (:func:`~transformer_theory.papers.barbero2024.collapse.model_record`, lengths up to
        ``eval_max_len``), for the runs without separators; None: skip.
      steps, batch_size, learning_rate: Adam on float32 parameters.
      seed: initialization and batches.
    """

    name: str
    tasks: tuple[str, ...] = copying.TASKS
    separators: tuple[int | None, ...] = (None, 3)
    positional: str = "rope"
    depth: int = 2
    heads: int = 1
    width: int = 32
    train_min_len: int = 2
    train_max_len: int = 16
    count_max_len: int = 48
    eval_max_len: int = 2048
    eval_points: int = 20
    precisions: tuple[str, ...] = collapse.PRECISIONS
    collapse_pattern: str | None = "ones_zero"
    steps: int = 1500
    batch_size: int = 64
    learning_rate: float = 1e-3
    seed: int = 0

    def __post_init__(self):
        for t in self.tasks:
            _validate.check_choice("tasks", t, copying.TASKS)
        for p in self.precisions:
            _validate.check_choice("precisions", p, collapse.PRECISIONS)
        for k in self.separators:
            if k is not None:
                _validate.check_positive("separators", k)
        _validate.check_choice("positional", self.positional, collapse.POSITIONAL)
        for name in ("depth", "heads", "width", "steps", "batch_size", "eval_points"):
            _validate.check_positive(name, getattr(self, name))
        if self.eval_max_len < self.train_max_len:
            raise ValueError(
                f"eval_max_len: expected at least train_max_len = {self.train_max_len}, got "
                f"{self.eval_max_len}"
            )

    def replace(self, **changes) -> CollapseTaskConfig:
        return dataclasses.replace(self, **changes)

    def task(self, name: str, separator_every: int | None) -> copying.CopyingTask:
        if name == "count_ones":
            return copying.CopyingTask(name, 1, self.count_max_len, separator_every)
        return copying.CopyingTask(name, self.train_min_len, self.train_max_len, separator_every)

    def eval_lengths(self, task: copying.CopyingTask) -> list[int]:
        if task.name == "count_ones":
            # every count whose pair (n, n + 1) both have a class
            return list(range(1, task.max_len))
        return collapse.length_grid(self.eval_max_len, self.eval_points, self.train_min_len)


CONFIGS = {
    "collapse_tasks": CollapseTaskConfig(name="collapse_tasks"),
    "smoke": CollapseTaskConfig(
        name="smoke",
        tasks=("count_ones",),
        separators=(None, 2),
        depth=1,
        width=24,
        count_max_len=3,
        eval_points=2,
        precisions=("bfloat16",),
        collapse_pattern=None,
        steps=20,
        batch_size=8,
    ),
}


def model_config(config: CollapseTaskConfig, task: copying.CopyingTask):
    return collapse.causal_pre_ln_config(
        config.depth,
        config.heads,
        config.positional,
        width=config.width,
        vocab_size=task.vocab_size,
        num_classes=task.num_classes,
    )


def train_task(config: CollapseTaskConfig, task: copying.CopyingTask, progress: bool = False):
    """Train a model on ``task``; returns ``(params float32, rows)`` with the training loss and
    accuracy logged every tenth of the run."""
    mcfg = model_config(config, task)
    model = Transformer(mcfg, rngs=nnx.Rngs(config.seed))
    graphdef, state = nnx.split(model)
    tx = make_optimizer(
        TrainConfig(optimizer="adam", learning_rate=config.learning_rate, grad_clip=1.0)
    )
    opt_state = tx.init(state)

    def logits_of(params: ModelParams, tokens_N, valid_N):
        emb = collapse.embed_long(mcfg, tokens_N, dtype=jnp.float32, valid_N=valid_N)
        return forward(params, emb, copying.attention_mask(valid_N))

    def loss_fn(state, tokens_BxN, valid_BxN, labels_B):
        params = to_params(nnx.merge(graphdef, state))
        logits_BxC = jax.vmap(lambda t, v: logits_of(params, t, v))(tokens_BxN, valid_BxN)
        acc = jnp.mean(jnp.argmax(logits_BxC, -1) == labels_B)
        return cross_entropy(logits_BxC, labels_B), acc

    @jax.jit
    def step(state, opt_state, key):
        tokens, valid, labels = task.sample(key, config.batch_size)
        (loss, acc), grads = jax.value_and_grad(loss_fn, has_aux=True)(state, tokens, valid, labels)
        updates, opt_state = tx.update(grads, opt_state, state)
        return optax.apply_updates(state, updates), opt_state, loss, acc

    root = jax.random.fold_in(jax.random.key(config.seed), 1)
    rows, every = [], max(1, config.steps // 10)
    steps = range(config.steps)
    if progress:
        from tqdm.auto import tqdm

        steps = tqdm(steps, desc=f"train {task.name}", unit="step", leave=False, disable=None)
    for s in steps:
        state, opt_state, loss, acc = step(state, opt_state, jax.random.fold_in(root, s))
        if s % every == 0 or s == config.steps - 1:
            rows.append(dict(step=s, loss=float(loss), acc=float(acc)))
    return to_params(nnx.merge(graphdef, state)), rows


def evaluate(
    params: ModelParams,
    task: copying.CopyingTask,
    lengths,
    precisions,
    progress: bool = False,
) -> dict:
    """Accuracy, pair distance and bit identity of the confusable pair, by length and precision."""
    out = {}
    steps = [(p, n) for p in precisions for n in lengths]
    if progress:
        from tqdm.auto import tqdm

        steps = tqdm(steps, desc=f"evaluate {task.name}", unit="length", leave=False, disable=None)
    rows: dict[str, list] = {p: [] for p in precisions}
    for prec, n in steps:
        a, b = task.pair(n)
        ya, yb = collapse.pair_representations(params, a, b, prec)
        w_o = params.w_o.astype(ya.dtype)
        pred = [int(jnp.argmax(w_o @ ya)), int(jnp.argmax(w_o @ yb))]
        if task.name == "count_ones":
            acc = float(pred[0] == n)
        else:
            acc = (float(pred[0] == 0) + float(pred[1] == 1)) / 2
        rows[prec].append(
            dict(collapse.compare(ya, yb), accuracy=acc, same_prediction=pred[0] == pred[1])
        )
    for prec in precisions:
        same = [r["identical"] for r in rows[prec]]
        out[prec] = dict(
            accuracy=[r["accuracy"] for r in rows[prec]],
            distance=[r["distance"] for r in rows[prec]],
            identical=same,
            first_identical=collapse.first_true(lengths, same),
            # the two inputs' answers differ: one prediction for both is a collapse of the readout
            first_same_prediction=collapse.first_true(
                lengths, [r["same_prediction"] for r in rows[prec]]
            ),
            identical_from=collapse.identical_from(lengths, same),
        )
    return out


def run(config: CollapseTaskConfig, out_dir: str | None, progress: bool = False) -> dict:
    """Train and evaluate every (task, separators) run of ``config``; writes ``<name>.json`` and
    ``<name>.png`` under ``out_dir`` (None: nothing written). Returns the record."""
    t0 = time.perf_counter()
    tasks = []
    for name in config.tasks:
        for sep in config.separators:
            task = config.task(name, sep)
            t1 = time.perf_counter()
            params, rows = train_task(config, task, progress)
            lengths = config.eval_lengths(task)
            result = evaluate(params, task, lengths, config.precisions, progress)
            pattern = None
            if config.collapse_pattern is not None and sep is None:
                pattern = collapse.model_record(
                    params,
                    f"trained {name}",
                    collapse.length_grid(config.eval_max_len, config.eval_points),
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
                    precisions=result,
                    collapse=pattern,
                    seconds=round(time.perf_counter() - t1, 1),
                )
            )
    record = dict(
        config=dataclasses.asdict(config),
        seconds=round(time.perf_counter() - t0, 1),
        tasks=tasks,
    )
    if out_dir is not None:
        from transformer_theory.papers.barbero2024.plots import plot_task_accuracy

        os.makedirs(out_dir, exist_ok=True)
        jsonio.write_json(os.path.join(out_dir, f"{config.name}.json"), record)
        plot_task_accuracy(record, os.path.join(out_dir, f"{config.name}.png"))
    return record


def summary_lines(record: dict) -> list[str]:
    """One line per run: final training accuracy, then per precision the accuracy at the longest
    length, the first length where the pair gets one prediction and the first bit-identical one."""
    lines = []
    for t in record["tasks"]:
        parts = [f"{t['name']}: train acc {t['training'][-1]['acc']:.2f}"]
        for prec, r in t["precisions"].items():
            parts.append(
                f"{prec} acc@{t['lengths'][-1]}={r['accuracy'][-1]:.2f}, one prediction from "
                f"n={r['first_same_prediction']}, identical from n={r['first_identical']}"
            )
        lines.append("; ".join(parts))
    return lines
