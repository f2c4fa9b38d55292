"""A run directory belongs to ONE run: its settings are recorded, compared, never relabelled.

:func:`~transformer_theory.train.train` writes into ``out_dir``:

- ``run.json``: the run's *settings* (:func:`run_settings`: the caller's description -- task,
  heads, seed, size, initialization --, the task instance, every field of the model config, the
  data split and the optimizer; flat, JSON-able) and two *fingerprints* (SHA-256 of the initial
  parameters and of the held-out set), written when the run starts; and, once a run diverged,
  its ``status`` (``{"state": "diverged", "step": ..., "reason": ...}``);
- ``metrics.json`` / ``metrics.csv``: the logged rows (:data:`METRIC_FIELDS`);
- ``checkpoints/``: Orbax checkpoints (:mod:`.checkpoint`).

Resuming (:func:`check_run_dir`) compares the requested settings with ``run.json`` and refuses,
naming every setting that differs, when they do not agree -- a paper-size request never continues
a quick run, an Adam request never continues an SGD run. The fingerprints catch what the listed
settings cannot (a changed initialization in code, another task class with the same repr).

Steps are not a setting but a target: **a run continues to N**. The batch of step ``s`` depends on
``s`` alone (``fold_in(key, s)``) and the learning rate is constant, so training a finished
2000-step run to 3000 steps gives, bit for bit on one device, the run a fresh 3000-step command
gives. Logging and checkpoint intervals are not settings either (they change what is written, not
the trajectory). A directory that already holds MORE steps than requested is refused: its
parameters at the smaller count are gone, and relabelling them would be a silent wrong answer.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from typing import Any

import jax
import numpy as np

from transformer_theory.jsonio import to_jsonable, write_json
from transformer_theory.train import checkpoint

__all__ = [
    "METRICS_FILE",
    "METRIC_FIELDS",
    "PROGRESS_FIELDS",
    "RUN_FILE",
    "RunDirectoryError",
    "check_run_dir",
    "fingerprint",
    "read_metrics",
    "read_run_file",
    "run_settings",
    "unfinished",
    "write_run_file",
]

RUN_FILE = "run.json"
METRICS_FILE = "metrics.json"
METRIC_FIELDS = ("step", "train_loss", "train_acc", "eval_loss", "eval_acc", "seconds")
# TrainSettings fields that say how long and how often to write, not what the trajectory is.
PROGRESS_FIELDS = ("steps", "log_every", "checkpoint_every")
_SHOWN = 4  # differing settings named in a message before "and N more"


class RunDirectoryError(ValueError):
    """``out_dir`` does not hold the requested run (other settings, more steps, unreadable files).

    Attributes:
      setting: the first setting that differs (``"steps"`` when the directory holds more steps
        than requested; ``None`` for unreadable files).
    """

    def __init__(self, message: str, setting: str | None = None):
        super().__init__(message)
        self.setting = setting


def _jsonable(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists), so comparisons are exact."""
    return to_jsonable(value)[0]


def run_settings(
    model_config: Any, task: Any, data_config: Any, train_config: Any, meta: dict | None = None
) -> dict:
    """Everything that defines a run's trajectory, as a flat JSON-able dict.

    Keys: the caller's ``meta`` (task name, heads, seed, size, initialization, ...), then
    ``task_instance`` (the task's repr), ``model.<field>`` for every field of the
    :class:`~transformer_theory.params.ModelConfig`, ``data.<field>`` of the
    :class:`~transformer_theory.train.DataSettings` and ``train.<field>`` of the
    :class:`~transformer_theory.train.TrainSettings` except :data:`PROGRESS_FIELDS`.
    """
    settings = {k: _jsonable(v) for k, v in (meta or {}).items()}
    settings["task_instance"] = repr(task)
    for prefix, cfg in (("model", model_config), ("data", data_config), ("train", train_config)):
        for field in dataclasses.fields(cfg):
            if prefix == "train" and field.name in PROGRESS_FIELDS:
                continue
            settings[f"{prefix}.{field.name}"] = _jsonable(getattr(cfg, field.name))
    return settings


def fingerprint(tree: Any) -> str:
    """SHA-256 of the arrays of a pytree (shapes, dtypes and bytes, in tree order)."""
    digest = hashlib.sha256()
    for leaf in jax.tree.leaves(tree):
        arr = np.ascontiguousarray(np.asarray(leaf))
        digest.update(f"{arr.shape}{arr.dtype}".encode())
        digest.update(arr.tobytes())
    return digest.hexdigest()


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _read_json(path: str, what: str) -> Any:
    """Strict JSON (a ``NaN`` literal is refused, as :mod:`transformer_theory.jsonio` reads)."""
    try:
        with open(path, "rb") as f:
            return json.loads(f.read().decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError) as err:
        raise RunDirectoryError(f"{path}: not a JSON {what} ({type(err).__name__})") from None
    except OSError as err:
        raise RunDirectoryError(f"{path}: cannot read ({err.strerror or err})") from None


def read_run_file(out_dir: str) -> dict | None:
    """``run.json`` of ``out_dir`` (``{"settings": ..., "fingerprints": ...}``), or None."""
    path = os.path.join(out_dir, RUN_FILE)
    if not os.path.exists(path):
        return None
    record = _read_json(path, "run record")
    if not (
        isinstance(record, dict)
        and isinstance(record.get("settings"), dict)
        and isinstance(record.get("fingerprints"), dict)
    ):
        raise RunDirectoryError(f"{path}: expected an object with 'settings' and 'fingerprints'")
    return record


def write_run_file(
    out_dir: str, settings: dict, fingerprints: dict, status: dict | None = None
) -> None:
    """``run.json`` (strict JSON, written atomically); ``status`` only once the run diverged."""
    record = {"settings": settings, "fingerprints": fingerprints}
    if status is not None:
        record["status"] = status
    write_json(os.path.join(out_dir, RUN_FILE), record)


def read_metrics(path: str) -> dict:
    """A ``metrics.json`` (``{"meta": {...}, "rows": [{step, ..., eval_acc}, ...]}``), checked.

    Raises :class:`RunDirectoryError` naming the file when it is not such an object.
    """
    record = _read_json(path, "metrics record")
    rows = record.get("rows") if isinstance(record, dict) else None
    if not (
        isinstance(record.get("meta") if isinstance(record, dict) else None, dict)
        and isinstance(rows, list)
        and all(isinstance(r, dict) and set(METRIC_FIELDS) <= set(r) for r in rows)
    ):
        raise RunDirectoryError(
            f"{path}: expected an object with 'meta' and 'rows' (each row with "
            f"{', '.join(METRIC_FIELDS)})"
        )
    return record


def unfinished(out_dir: str) -> str | None:
    """What a reader of ``out_dir``'s model should know when its training was cut short (Ctrl-C,
    a kill, a crash): how many of its target steps its latest checkpoint holds. None when
    ``metrics.json`` says the run finished (its target reached, stopped early or diverged) or does
    not say (no such file, or written before runs recorded it)."""
    path = os.path.join(out_dir, METRICS_FILE)
    if not os.path.exists(path):
        return None
    record = read_metrics(path)
    if record.get("finished") is not False:
        return None
    latest = checkpoint.latest_step(os.path.join(out_dir, "checkpoints"))
    return (
        f"{out_dir} is an unfinished run: its checkpoint holds {latest or 0} of "
        f"{record.get('target_steps', '?')} steps (training was cut short; the same training "
        "command continues it)"
    )


def _describe(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _differences(recorded: dict, requested: dict) -> list[str]:
    """Keys whose values differ or that only one side has, in ``requested``'s order."""
    keys = list(requested) + [k for k in recorded if k not in requested]
    return [
        k for k in keys if k not in recorded or k not in requested or recorded[k] != requested[k]
    ]


def check_run_dir(
    out_dir: str,
    settings: dict,
    steps: int,
    fingerprints: dict | None = None,
) -> int | None:
    """Raise :class:`RunDirectoryError` unless ``out_dir`` can hold the requested run.

    ``out_dir`` may be missing or empty of runs (a fresh start), or hold this run -- the same
    ``settings`` (and ``fingerprints``, when given) -- at most ``steps`` steps into it. Returns the
    step of its latest checkpoint (None for a fresh start).
    """
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise RunDirectoryError(f"{out_dir} exists and is not a directory; remove it")
    directory = os.path.join(out_dir, "checkpoints")
    if os.path.lexists(directory) and (os.path.islink(directory) or not os.path.isdir(directory)):
        raise RunDirectoryError(
            f"{directory} is not a directory (a run keeps its checkpoints there); remove it, or "
            f"{out_dir} to train this run again"
        )
    latest = checkpoint.latest_step(directory)
    record = read_run_file(out_dir)
    if record is None:
        if latest is not None:
            raise RunDirectoryError(
                f"{out_dir} holds checkpoints but no {RUN_FILE} (written before runs recorded "
                "their settings), so its settings cannot be compared; delete it or use another "
                "output directory"
            )
        return None
    differ = _differences(record["settings"], settings)
    if differ:
        shown = "; ".join(
            f"{k}: {_describe(record['settings'].get(k))} there, "
            f"{_describe(settings.get(k))} requested"
            for k in differ[:_SHOWN]
        )
        more = f" (and {len(differ) - _SHOWN} more)" if len(differ) > _SHOWN else ""
        raise RunDirectoryError(
            f"{out_dir} holds a run with other settings -- {shown}{more}; use another output "
            "directory (or delete this one)",
            setting=differ[0],
        )
    if fingerprints is not None:
        differ = [k for k in fingerprints if record["fingerprints"].get(k) != fingerprints[k]]
        if differ:
            raise RunDirectoryError(
                f"{out_dir}: {', '.join(differ)} differ although every recorded setting agrees "
                "(did the code that builds the model or the data change?); use another output "
                "directory",
                setting=differ[0],
            )
    if latest is not None and latest > steps:
        raise RunDirectoryError(
            f"{out_dir} already holds {latest} steps, more than the {steps} requested; a run "
            "continues to a larger step count but never goes back (its parameters at "
            f"step {steps} are not kept); use another output directory",
            setting="steps",
        )
    return latest
