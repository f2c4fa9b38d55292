"""The records Barbero et al. 2024's studies write and return, typed: the grid studies'
(``collapse.json``, ``oversquash.json``: :class:`CollapseRecord`, :class:`OversquashRecord`) and
the trained tasks' (``<name>.json``: :class:`TasksRecord`).

A grid study's record is rewritten after each model (valid JSON at every moment:
:func:`._records_grid.record_grid`), resumed from the finished models by a run with the same
settings (:func:`models_to_keep`, here), refused to a run with other settings
(:class:`SettingsDiffer`) unless it starts fresh.

The record's ``settings`` block is the settings' fields by name (``depths``, ``max_len``, ...),
lists for tuples, then what they derive (``lengths``, ``tokens``). A block written before the
keys were the field names (``depth: "1,2"``, ``positional: [...]``) is read as its fields
(:func:`recorded_settings`), so those runs resume too.
"""

from __future__ import annotations

import argparse
import dataclasses
import os

from transformer_theory import jsonio
from transformer_theory.settings import split_list

__all__ = [
    "MODEL_FIELDS",
    "ModelCollapse",
    "Asymptotic",
    "CollapseCurve",
    "CollapseModel",
    "CollapseRecord",
    "Fit",
    "OversquashModel",
    "OversquashRecord",
    "Provenance",
    "SettingsDiffer",
    "CollapseBlock",
    "OversquashBlock",
    "StudyResult",
    "TaskEvaluation",
    "TaskRun",
    "TasksConfig",
    "TasksRecord",
    "TrainingRow",
    "check_resumable",
    "finished_models",
    "models_to_keep",
    "recorded_settings",
    "settings_block",
]

#: The fields every finished model record holds, by study (a model missing one is measured
#: again on resume, not read back to fail later with a ``KeyError``).
MODEL_FIELDS = {
    "collapse": ("name", "lengths", "precisions", "rate", "asymptotic", "verdict",
                 "predicted_limit", "seconds"),
    "oversquash": ("name", "depth", "length", "sensitivity", "sensitivity_final", "path_weight",
                   "path_weight_residual", "path_count", "early_late_ratio"),
}  # fmt: skip
# The keys of the settings blocks written before they were the field names (comma text then).
_OLD_KEYS = {"depth": "depths", "positional": "positionals"}


@dataclasses.dataclass(frozen=True)
class StudyResult:
    """What a finished run returns: the ``record`` written to ``json_path``, typed
    (:class:`CollapseRecord`, :class:`OversquashRecord`), and the figure's ``figure_path``."""

    record: CollapseRecord | OversquashRecord
    json_path: str
    figure_path: str


# --- the typed records (the JSON files' layout, field for field) -------------------------------

record = dataclasses.dataclass(frozen=True, kw_only=True)


@record
class Provenance:
    """How a committed result was made (``experiments/results/barbero2024_*.json``): the
    command, the date, the code, the machine, the wall (and CPU) seconds and the size run."""

    command: str
    produced_by: str
    date: str
    code: str
    machine: str
    wall_seconds: int | float
    cpu_seconds: int | float | None = jsonio.optional(jsonio.ABSENT)
    size: str


@record
class Fit:
    """One power law fitted over the lengths (:func:`~._theory_collapse.fit_rate`)."""

    slope: float | None
    constant: float | None
    fit_from: int | None
    fit_to: int | None
    points: int


@record
class Asymptotic:
    """The rate on the asymptotic range, the plateau test and the verdict
    (:func:`~._theory_collapse.asymptotic_rate`)."""

    slope: float | None
    tail_from: int | None
    tail_to: int | None
    tail_points: int
    change: float | None
    change_from: int | None
    plateau: bool
    plateau_value: float | None
    verdict: str


@record
class CollapseCurve:
    """One precision of one model: the distances by length, bit identity, the fits."""

    distance: tuple[float, ...]
    identical: tuple[bool, ...]
    equal_coords: tuple[int, ...]
    width: int
    first_identical: int | None
    identical_from: int | None
    rate: Fit
    rounding_dominates_from: int | None = jsonio.optional(jsonio.ABSENT)  # beside float64 only
    asymptotic: Asymptotic


@record
class ModelCollapse:
    """One model's collapse on a pattern (:func:`~._theory_collapse.model_record`): the lengths
    and tokens, the curve per precision, the float64 rate, the verdict and the derived limit."""

    name: str
    pattern: str
    separator_every: int | None
    lengths: tuple[int, ...]
    tokens: tuple[int, ...]
    precisions: dict[str, CollapseCurve]
    rate: Fit
    asymptotic: Asymptotic
    verdict: str
    predicted_limit: float | None


@record
class CollapseModel(ModelCollapse):
    """One model of ``collapse.json``: its grid labels, its collapse (the fields of
    :class:`ModelCollapse`) and the seconds it took."""

    depth: int
    heads: int
    positional: str
    seed: int
    seconds: float


@record
class CollapseBlock:
    """The ``settings`` block of ``collapse.json``: the settings' fields, ``points`` counted and
    the ``lengths`` measured."""

    depths: tuple[int, ...]
    heads: tuple[int, ...]
    positionals: tuple[str, ...]
    seeds: tuple[int, ...]
    max_len: int
    points: int
    precisions: tuple[str, ...]
    pattern: str
    separator_every: int | None
    width: int
    lengths: tuple[int, ...]


@record
class CollapseRecord:
    """``collapse.json``: the settings block, whether every model finished, the models."""

    provenance: Provenance | None = jsonio.optional(jsonio.ABSENT)  # the committed results' only
    settings: CollapseBlock
    complete: bool
    seconds: float
    models: tuple[CollapseModel, ...]


@record
class OversquashModel:
    """One model of ``oversquash.json``: sensitivities, path weights and counts by position
    (one row per layer count), their first/last-quarter ratios and, with the bound, the bound
    and whether it holds."""

    depth: int
    heads: int
    positional: str
    seed: int
    name: str
    length: int
    sensitivity: tuple[tuple[float, ...], ...]
    sensitivity_final: tuple[float, ...]
    path_weight: tuple[tuple[float, ...], ...]
    path_weight_residual: tuple[tuple[float, ...], ...]
    path_count: tuple[str, ...]
    early_late_ratio: float
    path_early_late_ratio: float
    residual_path_early_late_ratio: float
    bound_edge: tuple[tuple[float, ...], ...] | None = jsonio.optional()
    bound_edge_final: tuple[float, ...] | None = jsonio.optional()
    bound_attention: tuple[tuple[float, ...], ...] | None = jsonio.optional()
    bound_attention_final: tuple[float, ...] | None = jsonio.optional()
    bound_holds: bool | None = jsonio.optional()
    bound_ratio_max: float | None = jsonio.optional()


@record
class OversquashBlock:
    """The ``settings`` block of ``oversquash.json``: the settings' fields and the input's
    ``tokens``."""

    depths: tuple[int, ...]
    heads: tuple[int, ...]
    positionals: tuple[str, ...]
    seeds: tuple[int, ...]
    length: int
    pattern: str
    width: int
    bound: bool
    tokens: tuple[int, ...]


@record
class OversquashRecord:
    """``oversquash.json``: the settings block, whether every model finished, the models."""

    provenance: Provenance | None = jsonio.optional(jsonio.ABSENT)
    settings: OversquashBlock
    complete: bool
    seconds: float
    models: tuple[OversquashModel, ...]


@record
class TrainingRow:
    """One logged training step of a trained task: the step, its loss and accuracy."""

    step: int
    loss: float
    acc: float


@record
class TaskEvaluation:
    """One precision of a trained task evaluated long (:func:`~._theory_collapse.evaluate`):
    accuracy, pair distance and bit identity by length, and the first lengths where the pair is
    bit-identical and where both inputs get one prediction."""

    accuracy: tuple[float, ...]
    distance: tuple[float, ...]
    identical: tuple[bool, ...]
    first_identical: int | None
    first_same_prediction: int | None
    identical_from: int | None


@record
class TaskRun:
    """One (task, separators) run: the training log, the step it diverged at (None: it did not)
    and per precision its evaluation; ``collapse`` for a run without separators when asked."""

    name: str
    task: str
    separator_every: int | None
    train_min_len: int
    train_max_len: int
    lengths: tuple[int, ...]
    training: tuple[TrainingRow, ...]
    diverged_step: int | None
    precisions: dict[str, TaskEvaluation]
    collapse: ModelCollapse | None
    seconds: float


@record
class TasksConfig:
    """The ``config`` block of ``<name>.json`` of ``collapse_tasks``: the settings' fields by
    name (``CollapseTaskSettings``'; lists for tuples)."""

    name: str
    tasks: tuple[str, ...]
    separators: tuple[int | None, ...]
    positional: str
    depth: int
    heads: int
    width: int
    train_min_len: int
    train_max_len: int
    count_max_len: int
    eval_max_len: int
    eval_points: int
    precisions: tuple[str, ...]
    collapse_pattern: str | None
    steps: int
    batch_size: int
    learning_rate: float
    seed: int


@record
class TasksRecord:
    """``<name>.json`` of ``collapse_tasks``: the settings by field (``config``), whether every
    run finished, the seconds and the runs."""

    config: TasksConfig
    complete: bool
    seconds: float
    tasks: tuple[TaskRun, ...]


class SettingsDiffer(ValueError):
    """``path`` holds a run with other settings than the one asked: ``setting`` (a field of the
    settings, e.g. ``max_len``, or what they derive, e.g. ``lengths``) is the first that differs,
    ``recorded`` its value there and ``asked`` the new one (all None when the file cannot be read
    as a run)."""

    def __init__(self, path: str, setting: str | None, recorded: object, asked: object) -> None:
        if setting is None:
            text = f"{path} exists but is not a run's record (unreadable or without settings)"
        else:
            text = (
                f"{path} holds a run with other settings ({setting}: {recorded} there, {asked} "
                "asked)"
            )
        super().__init__(text)
        self.path, self.setting, self.recorded, self.asked = path, setting, recorded, asked


def settings_block(settings: object, **derived: object) -> dict:
    """The ``settings`` block of a record: every field of the settings dataclass by name (tuples
    as lists), then ``derived``."""
    block = {
        f.name: list(v) if isinstance(v := getattr(settings, f.name), tuple) else v
        for f in dataclasses.fields(settings)
    }
    return block | derived


def recorded_settings(block: dict) -> dict:
    """A record's settings block by field name: one written before the keys were the field names
    (``depth: "1,2"``, ``heads: "1"``, ``seeds: "0"``, ``positional``) is read as ``depths: [1,
    2]``, ``heads: [1]``, ``seeds: [0]``, ``positionals``."""
    out = {}
    for key, value in block.items():
        key = _OLD_KEYS.get(key, key)
        if key in ("depths", "heads", "seeds") and isinstance(value, str):
            try:
                value = [int(v) for v in split_list(value)]
            except (ValueError, argparse.ArgumentTypeError):
                pass  # left as written: it differs from any asked value
        out[key] = value
    return out


def _read_settings(path: str) -> dict | None:
    try:
        record = jsonio.read_json(path)
    except (OSError, ValueError):
        return None
    block = record.get("settings") if isinstance(record, dict) else None
    return recorded_settings(block) if isinstance(block, dict) else None


def check_resumable(path: str, block: dict) -> None:
    """Nothing when there is no ``path`` or it records a run with this settings ``block``
    (:func:`settings_block`): a run there resumes. Else :class:`SettingsDiffer` naming the first
    setting that differs, so that finished work is never overwritten by a run that did not ask
    to."""
    if not os.path.exists(path):
        return
    recorded = _read_settings(path)
    if recorded is None:
        raise SettingsDiffer(path, None, None, None)
    for key in dict.fromkeys([*block, *recorded]):
        if recorded.get(key) != block.get(key):
            raise SettingsDiffer(path, key, recorded.get(key), block.get(key))


def finished_models(path: str, block: dict, study: str = "collapse") -> dict[str, dict]:
    """The models an earlier run with the same settings ``block`` finished, by name; none when
    there is no such file, it cannot be read, or its settings differ. A model record that lacks
    one of ``MODEL_FIELDS[study]`` (or, for collapse, a precision of ``block``), or does not fit
    the study's typed model record (:class:`CollapseModel`, :class:`OversquashModel`: one an
    older version wrote), is not finished: it is left out, to be measured again."""
    if not os.path.exists(path) or _read_settings(path) != block:
        return {}
    precisions = block.get("precisions", []) if study == "collapse" else []

    def finished(m: object) -> bool:
        if not isinstance(m, dict) or not all(k in m for k in MODEL_FIELDS[study]):
            return False
        if precisions and not (
            isinstance(m["precisions"], dict) and all(p in m["precisions"] for p in precisions)
        ):
            return False
        try:
            jsonio.as_record(CollapseModel if study == "collapse" else OversquashModel, m)
        except (TypeError, ValueError):
            return False
        return True

    models = jsonio.read_json(path).get("models")
    return {m["name"]: m for m in (models if isinstance(models, list) else []) if finished(m)}


def models_to_keep(path: str, block: dict, study: str, *, fresh: bool) -> dict[str, dict]:
    """The finished models a run with the settings ``block`` keeps from ``path``, by name: none
    when ``fresh`` (the run overwrites it), else :func:`finished_models` once
    :func:`check_resumable` has refused a record of other settings."""
    if fresh:
        return {}
    check_resumable(path, block)
    return finished_models(path, block, study)
