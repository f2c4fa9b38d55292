"""Trained models read back from their directories, for the analyses (heads, efficient attention).

:func:`load_runs` accepts what ``transformer-theory train`` and the encoder-decoder experiment
write:

- a run directory of a depth experiment (``<out>/<run>/``, whose parent holds
  ``experiment.json``): that run's Chen & Zou 2024 model and its held-out sequences;
- a depth experiment directory (``experiment.json``): every run of it that has a checkpoint;
- a run directory of the encoder-decoder experiment (:mod:`._models_translation`): the model and its
  held-out sentence pairs;
- an encoder-decoder experiment directory: every such run inside it.

Each comes back as a :class:`LoadedRun` that gives its attention maps and its queries, keys and
values on up to ``examples`` held-out inputs (:mod:`transformer_theory.nn.activations`).
:func:`read_runs` is :func:`load_runs` for a user's directory: whatever goes wrong while reading a
checkpoint comes back as one :class:`~transformer_theory.train.RunDirectoryError` line naming the
directory.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence

import numpy as np

from transformer_theory.nn import activations
from transformer_theory.papers.conti2024 import _models_translation as translation
from transformer_theory.sweeps.config import ExperimentError
from transformer_theory.sweeps.directory import EXPERIMENT_FILE, read_record
from transformer_theory.sweeps.runs import build_data, trained_params
from transformer_theory.train import RunDirectoryError, rundir
from transformer_theory.train.checkpoint import latest_step
from transformer_theory.train.rundir import RUN_FILE
from transformer_theory.train.seq2seq import decoder_inputs

__all__ = ["LoadedRun", "load_runs", "read_runs", "trained_inputs", "unfinished_notes"]

# What LoadedRun.maps and LoadedRun.qkv return: (attention, layer, maps_BxHxQxK) and
# (attention, layer, q, k, v) with q, k, v of shape (B, H, N, E).
Maps = list[tuple[str, int, np.ndarray]]
QKV = list[tuple[str, int, np.ndarray, np.ndarray, np.ndarray]]


@dataclasses.dataclass
class LoadedRun:
    """A trained model and the held-out inputs the analyses read it on.

    Attributes:
      name: the run's name (its directory's).
      kind: ``"depth"`` (Chen & Zou 2024's model) or ``"seq2seq"`` (the encoder-decoder).
      path: its directory.
      maps: ``examples -> [(attention, layer, maps_BxHxQxK)]``.
      qkv: ``examples -> [(attention, layer, q, k, v)]`` (bidirectional attentions only).
      unfinished: None, or what a reader must know of a run whose training was cut short (its
        latest checkpoint holds fewer steps than its target: :func:`.rundir.unfinished`).
    """

    name: str
    kind: str
    path: str
    maps: Callable[[int], Maps]
    qkv: Callable[[int], QKV]
    unfinished: str | None = None


def _depth_run(out: str, spec) -> LoadedRun:
    params = trained_params(spec, out)
    tokens = build_data(spec).eval_tokens_BxN
    return LoadedRun(
        name=spec.name,
        kind="depth",
        path=os.path.join(out, spec.name),
        maps=lambda b: activations.depth_maps(params, tokens[:b]),
        qkv=lambda b: activations.depth_qkv(params, tokens[:b]),
        unfinished=rundir.unfinished(os.path.join(out, spec.name)),
    )


def _seq2seq_run(run_dir: str) -> LoadedRun:
    params, cfg, data, name = translation.load_run(run_dir)
    src, tgt = data.src_eval_BxN, data.tgt_eval_BxT
    return LoadedRun(
        name=name,
        kind="seq2seq",
        path=run_dir,
        maps=lambda b: activations.seq2seq_maps(
            params, src[:b], decoder_inputs(tgt[:b]), norm=cfg.norm
        ),
        qkv=lambda b: activations.seq2seq_qkv(params, src[:b], norm=cfg.norm),
        unfinished=rundir.unfinished(run_dir),
    )


def _experiment_runs(out: str, only: str | None = None) -> list[LoadedRun]:
    config, _ = read_record(out)
    specs = [s for s in config.run_specs if only is None or s.name == only]
    if only is not None and not specs:
        raise ExperimentError(f"{out}/{EXPERIMENT_FILE} lists no run named {only!r}")
    found = [
        _depth_run(out, s)
        for s in specs
        if latest_step(os.path.join(out, s.name, "checkpoints")) is not None
    ]
    if not found:
        raise RunDirectoryError(f"{out}: none of its runs has a checkpoint yet")
    return found


def load_runs(path: str) -> list[LoadedRun]:
    """The trained model(s) in ``path`` (see the module docstring).

    Raises :class:`~transformer_theory.train.RunDirectoryError` or
    :class:`~transformer_theory.sweeps.ExperimentError` naming the directory when it holds
    none of these.
    """
    path = os.path.abspath(path)
    if not os.path.isdir(path):
        raise RunDirectoryError(f"{path}: not a directory")
    if translation.is_translation_run(path):
        return [_seq2seq_run(path)]
    if os.path.exists(os.path.join(path, EXPERIMENT_FILE)):
        return _experiment_runs(path)
    parent = os.path.dirname(path)
    if os.path.exists(os.path.join(path, RUN_FILE)) and os.path.exists(
        os.path.join(parent, EXPERIMENT_FILE)
    ):
        return _experiment_runs(parent, only=os.path.basename(path))
    inner = sorted(
        os.path.join(path, d)
        for d in os.listdir(path)
        if translation.is_translation_run(os.path.join(path, d))
    )
    if inner:
        return [_seq2seq_run(d) for d in inner]
    raise RunDirectoryError(
        f"{path}: no trained model here -- expected a run or experiment directory written by "
        "`transformer-theory train`, or by the encoder-decoder experiment"
    )


def read_runs(path: str) -> list[LoadedRun]:
    """:func:`load_runs`, with every failure to read a run -- a missing run file, or a checkpoint
    whose data files are missing or corrupted (Orbax and TensorStore raise ``ValueError``,
    ``FileNotFoundError``, ``KeyError``...) -- turned into one line naming the directory and what
    is wrong.

    Raises:
      RunDirectoryError: no trained model in ``path``, or one that cannot be read.
      ExperimentError: an experiment directory whose record is wrong (from :func:`load_runs`).
    """
    try:
        return load_runs(path)
    except (ExperimentError, RunDirectoryError):
        raise
    except Exception as err:  # noqa: BLE001 -- whatever the checkpoint reader raises
        first = (str(err).strip().splitlines() or [""])[0]
        if len(first) > 240:
            first = first[:240] + "..."
        raise RunDirectoryError(
            f"{os.path.abspath(path)}: cannot read the trained model, a checkpoint file is "
            f"missing or corrupted ({type(err).__name__}: {first})"
        ) from None


def unfinished_notes(runs: list[LoadedRun]) -> list[str]:
    """One line per run whose training was cut short (``"note: ..."``), for the commands that
    read trained models to print before their results: an unfinished run is read as it is."""
    return [f"note: {r.unfinished}" for r in runs if r.unfinished]


def trained_inputs(
    runs: Sequence[LoadedRun], examples: int
) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """``[(name, q, k, v)]``, one per run: every bidirectional head of the run on ``examples``
    held-out inputs, heads and layers stacked along the first axis (``q`` of shape
    ``(examples x heads, N, E)``)."""
    out = []
    for loaded in runs:
        qs, ks, vs = [], [], []
        for _attention, _layer, q, k, v in loaded.qkv(examples):
            qs.append(q.reshape((-1,) + q.shape[2:]))
            ks.append(k.reshape((-1,) + k.shape[2:]))
            vs.append(v.reshape((-1,) + v.shape[2:]))
        out.append((loaded.name, np.concatenate(qs), np.concatenate(ks), np.concatenate(vs)))
    return out
