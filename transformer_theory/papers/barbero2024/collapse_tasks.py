"""Trained tasks that show representational collapse (Barbero et al. 2024, §4): copy the first
token, copy the last token, count the ones -- with and without interleaved separators.

A small causal Pre-LN transformer (Flax NNX, Optax Adam, float32) is trained on each task of
:mod:`transformer_theory.papers.barbero2024.tasks` at short content lengths (``train_min_len ..
train_max_len``, every length in one left-padded, masked batch), then evaluated at growing lengths
in every precision (parameters and activations cast to float64, float32, bfloat16). At each length
the task's confusable pair (the two marked bits; ``n`` and ``n + 1`` ones) runs through two
separate forward passes (:func:`~.collapse.pair_representations`): the predictions give the
accuracy, the two final representations give the distance and whether they are bit-identical --
so accuracy is plotted beside the collapse length of the same model.

The configs: :mod:`transformer_theory.papers.barbero2024.configs.collapse_tasks` (``get_config``:
sizes ``"smoke"`` and ``"default"``, the command and the result it produced); the script
``experiments/collapse_tasks.py`` runs one.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Sequence

import jax
import jax.numpy as jnp
from flax import nnx

from transformer_theory import _validate, jsonio
from transformer_theory.core.forward import forward
from transformer_theory.core.positional import embed_long
from transformer_theory.nn import Transformer, to_params
from transformer_theory.papers.barbero2024 import collapse
from transformer_theory.papers.barbero2024 import tasks as copying
from transformer_theory.papers.barbero2024.models import POSITIONAL, causal_pre_ln_config
from transformer_theory.params import ModelConfig, ModelParams
from transformer_theory.train.fit import fit
from transformer_theory.train.loop import TrainConfig, cross_entropy, make_optimizer

__all__ = ["CollapseTaskConfig", "evaluate", "model_config", "run", "summary_lines", "train_task"]


@dataclasses.dataclass(frozen=True)
class CollapseTaskConfig:
    """One experiment: which tasks, which model, how it trains, where it is evaluated.

    Attributes:
      name: names the output files.
      tasks: names from :data:`~transformer_theory.papers.barbero2024.tasks.TASKS`.
      separators: for each entry a run: ``None`` (plain) or ``k`` (a separator after every ``k``
        content tokens, Barbero et al. 2024's remedy).
      positional: the model's positional code (:data:`~.models.POSITIONAL`).
      depth, heads, width: the model.
      train_min_len, train_max_len: content lengths the copying tasks train on.
      count_max_len: ``count_ones`` trains on ``1 .. count_max_len`` ones and is evaluated at
        every count ``1 .. count_max_len - 1`` (the pair ``n, n + 1`` must both have a class; a
        count beyond the trained ones has none); its classes are ``0 .. count_max_len``.
      eval_max_len, eval_points: evaluation lengths (geometric from ``train_min_len``).
      precisions: evaluation precisions.
      collapse_pattern: also measure the trained model's collapse on this pattern with its last
        token repeated (:func:`~.collapse.model_record`, lengths up to ``eval_max_len``), for the
        runs without separators; None: skip.
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

    def __post_init__(self) -> None:
        for t in self.tasks:
            _validate.check_choice("tasks", t, copying.TASKS)
        for p in self.precisions:
            _validate.check_choice("precisions", p, collapse.PRECISIONS)
        for k in self.separators:
            if k is not None:
                _validate.check_positive("separators", k)
        _validate.check_choice("positional", self.positional, POSITIONAL)
        for name in ("depth", "heads", "width", "steps", "batch_size", "eval_points"):
            _validate.check_positive(name, getattr(self, name))
        if self.eval_max_len < self.train_max_len:
            raise ValueError(
                f"eval_max_len: expected at least train_max_len = {self.train_max_len}, got "
                f"{self.eval_max_len}"
            )

    def replace(self, **changes: object) -> CollapseTaskConfig:
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


def model_config(config: CollapseTaskConfig, task: copying.CopyingTask) -> ModelConfig:
    """The model :func:`train_task` trains on ``task``: :func:`~.models.causal_pre_ln_config` of
    ``config`` with the task's vocabulary and classes."""
    return causal_pre_ln_config(
        config.depth,
        config.heads,
        config.positional,
        width=config.width,
        vocab_size=task.vocab_size,
        num_classes=task.num_classes,
    )


def train_task(
    config: CollapseTaskConfig, task: copying.CopyingTask, progress: bool = False
) -> tuple[ModelParams, list[dict], int | None]:
    """Train a model on ``task`` (:func:`~transformer_theory.train.fit.fit`: Adam with gradient
    clipping at 1, batches drawn on device from ``fold_in(key(seed + 1), step)``).

    Returns:
      ``(params, rows, diverged_step)``: the float32 parameters, the training loss and accuracy
      logged every tenth of the run (and at the last step), and the step whose loss or gradient
      was not finite (None: none was).
    """
    mcfg = model_config(config, task)
    model = Transformer(mcfg, rngs=nnx.Rngs(config.seed))
    tx = make_optimizer(
        TrainConfig(optimizer="adam", learning_rate=config.learning_rate, grad_clip=1.0)
    )

    def logits_of(params: ModelParams, tokens_N: jax.Array, valid_N: jax.Array) -> jax.Array:
        emb = embed_long(mcfg, tokens_N, dtype=jnp.float32, valid_N=valid_N)
        return forward(params, emb, copying.attention_mask(valid_N))

    def loss_fn(module: Transformer, key: jax.Array) -> tuple[jax.Array, dict]:
        tokens_BxN, valid_BxN, labels_B = task.sample(key, config.batch_size)
        params = to_params(module)
        logits_BxC = jax.vmap(lambda t, v: logits_of(params, t, v))(tokens_BxN, valid_BxN)
        acc = jnp.mean(jnp.argmax(logits_BxC, -1) == labels_B)
        return cross_entropy(logits_BxC, labels_B), dict(acc=acc)

    root = jax.random.fold_in(jax.random.key(config.seed), 1)
    result = fit(
        model,
        loss_fn,
        lambda s: (jax.random.fold_in(root, s),),
        optimizer=tx,
        steps=config.steps,
        has_aux=True,
        log_every=max(1, config.steps // 10),
        progress=f"train {task.name}" if progress else None,
    )
    return to_params(result.params), result.rows, result.diverged_step


def evaluate(
    params: ModelParams,
    task: copying.CopyingTask,
    lengths: Sequence[int],
    precisions: Sequence[str],
    progress: bool = False,
) -> dict:
    """Accuracy, pair distance and bit identity of the confusable pair, by length and precision."""
    out = {}
    steps = [(p, n) for p in precisions for n in lengths]
    if progress:
        from transformer_theory.progress import tqdm

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


def run(config: CollapseTaskConfig, out_dir: str | None, *, progress: bool = False) -> dict:
    """Train and evaluate every (task, separators) run of ``config``.

    Writes ``<name>.json`` under ``out_dir`` after each finished run (``complete`` False until the
    last; valid JSON at every moment) and ``<name>.png`` at the end; ``out_dir`` None writes
    nothing. Returns the record: ``config``, ``complete``, ``seconds`` and per run ``tasks``
    (training log, ``diverged_step``, and per precision accuracy, distance, bit identity).
    """
    t0 = time.perf_counter()
    tasks: list[dict] = []
    path = None
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, f"{config.name}.json")

    def record(complete: bool) -> dict:
        out = dict(
            config=dataclasses.asdict(config),
            complete=complete,
            seconds=round(time.perf_counter() - t0, 1),
            tasks=tasks,
        )
        if path is not None:
            jsonio.write_json(path, out)
        return out

    for name in config.tasks:
        for sep in config.separators:
            task = config.task(name, sep)
            t1 = time.perf_counter()
            params, rows, diverged = train_task(config, task, progress)
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
                    diverged_step=diverged,
                    precisions=result,
                    collapse=pattern,
                    seconds=round(time.perf_counter() - t1, 1),
                )
            )
            record(complete=False)
    final = record(complete=True)
    if out_dir is not None:
        from transformer_theory.papers.barbero2024.plots import plot_task_accuracy

        plot_task_accuracy(final, os.path.join(out_dir, f"{config.name}.png"))
    return final


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
