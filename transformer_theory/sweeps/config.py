"""An experiment is a typed frozen :class:`ExperimentSettings`, from a module or a user's file.

The library's own are Chen & Zou 2024's figures, the modules of
``transformer_theory.papers.chen_zou2024.experiments`` (each ``get_config(size)`` returns a
subclass of :class:`ExperimentSettings` whose docstring is the command's help); a user's
experiment is a Python file with a ``get_config()`` that returns an :class:`ExperimentSettings`
(the big_vision / nanodo convention), e.g. ``my_sweep.py``::

    from transformer_theory.sweeps import ExperimentSettings

    def get_config():
        return ExperimentSettings(
            name="my_sweep",
            heads={"reasoning": [(1,), (2,), (1, 1)]},
            seeds=(0, 1),
            optimizer="adam",
            learning_rate=1e-3,
        )

and ``transformer-theory train --config my_sweep.py`` runs it. :func:`resolve` turns either kind
of source (a module's dotted name or a file path) into the config; nothing here names a paper.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import math
import os
import re
import sys
import typing
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from transformer_theory import _validate
from transformer_theory import tasks as tasklib
from transformer_theory.settings import setting
from transformer_theory.sweeps.setups import SETUPS, TaskSetup

if TYPE_CHECKING:
    from transformer_theory.sweeps.specs import RunSpec

__all__ = [
    "ANALYSES",
    "INITS",
    "OPTIMIZERS",
    "ExperimentSettings",
    "ExperimentError",
    "config_from_file",
    "config_from_module",
    "resolve",
]


ANALYSES = ("curves", "attention_maps")
INITS = ("paper", "random")
Optimizer = Literal["sgd", "adam"]
OPTIMIZERS = typing.get_args(Optimizer)


class ExperimentError(ValueError):
    """A config that cannot be found or loaded, or an experiment directory that cannot be read."""


def _heads_config(task: str, heads) -> tuple[int, ...]:
    try:
        values = tuple(int(h) for h in heads)
        ok = bool(values) and all(v >= 1 and v == h for v, h in zip(values, heads))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(
            f"heads: {task!r} needs heads per layer as positive integers, e.g. (1, 1), "
            f"got {heads!r}"
        )
    return values


@dataclasses.dataclass(frozen=True)
class ExperimentSettings:
    """Which runs an experiment trains and how it draws them.

    A run is (task, heads per layer, seed); the runs are every ``heads`` entry of every selected
    task, for every seed, each trained with the task's :class:`~.setups.TaskSetup` of ``size``.
    The fields a command line may change (:data:`~.directory.OVERRIDABLE`) are the options of
    ``transformer-theory train``, their help the entries below; the others are the config's own.

    Attributes:
      name: identifies the experiment (``experiment.json``; the figure is ``<name>.png``).
      heads: task name -> heads-per-layer configurations, e.g. ``{"reasoning": [(1,), (1, 1)]}``
        (one layer, then two single-head layers). Task names are keys of the setup tables.
      title: the figure's title (default: ``name``).
      seeds: the seeds; a run's initialization, data split and batches follow from its seed.
      size: the setup table: quick or paper (the library's SETUPS), or a key of the config's own
        setups.
      tasks: the tasks to run (memorization, reasoning, generalization, contextual), a subset of
        the config's, in the order given (None: all).
      depths: only the heads configurations with these layer counts (None: all), e.g. to
        continue the deep runs of a sweep or to split a sweep over processes.
      steps: train every run to this many steps; a finished shorter run continues to it (None:
        each setup's count).
      optimizer: sgd or adam for every run (None: each setup's).
      learning_rate: the learning rate of every run (None: each setup's).
      init: ``"paper"`` (Chen & Zou 2024, §9.1) or ``"random"``.
      analysis: ``"curves"`` (held-out accuracy and loss against steps, one column per task, one
        line per heads configuration) or ``"attention_maps"`` (Figure 3: a trained two-layer
        in-context QA model beside Theorem 3's construction).
      setups: size -> task name -> :class:`~.setups.TaskSetup` (None: the library's
        :data:`~.setups.SETUPS`); bring your own to add a size or change a task.
    """

    name: str = setting(option=False)
    heads: Mapping[str, Sequence[Sequence[int]]] = setting(option=False)
    title: str = setting("", option=False)
    seeds: Sequence[int] = (0,)
    size: str = "quick"
    tasks: Sequence[str] | None = None
    depths: Sequence[int] | None = None
    steps: int | None = setting(None, positive=True)
    optimizer: Optimizer | None = setting(None, metavar="{" + ",".join(OPTIMIZERS) + "}")
    learning_rate: float | None = setting(None, flag="--lr", metavar="LR", positive=True)
    init: str = setting("paper", option=False)
    analysis: str = setting("curves", option=False)
    setups: Mapping[str, Mapping[str, TaskSetup]] | None = setting(None, option=False)

    def __post_init__(self):
        def put(field, value):
            object.__setattr__(self, field, value)

        _validate.check_file_name("name", self.name)  # names become paths under --out
        _validate.check_file_name("size", self.size)
        tables = SETUPS if self.setups is None else self.setups
        if not isinstance(tables, Mapping) or not tables:
            raise ValueError(
                f"setups: expected a mapping size -> task -> TaskSetup, got {tables!r}"
            )
        if self.size not in tables:
            raise ValueError(f"size: expected one of {', '.join(tables)}, got {self.size!r}")
        table = tables[self.size]
        if not isinstance(self.heads, Mapping) or not self.heads:
            raise ValueError("heads: expected a non-empty mapping task -> heads configurations")
        heads = {}
        for task, configs in self.heads.items():
            _validate.check_file_name("heads", task)  # a run directory's name starts with it
            if task not in table:
                raise ValueError(
                    f"heads: unknown task {task!r}; the {self.size!r} setups have "
                    f"{', '.join(table)}"
                )
            if (
                isinstance(configs, (str, bytes))
                or not isinstance(configs, Sequence)
                or not configs
            ):
                raise ValueError(f"heads: {task!r} needs a non-empty list like [(1,), (1, 1)]")
            heads[task] = tuple(_heads_config(task, h) for h in configs)
        put("heads", heads)
        for task, setup in table.items():
            if not isinstance(setup, TaskSetup):
                raise ValueError(f"setups: {self.size!r} / {task!r} is not a TaskSetup")
        try:
            seeds = tuple(int(s) for s in self.seeds)
        except (TypeError, ValueError):
            raise ValueError(f"seeds: expected integers, got {self.seeds!r}") from None
        if not seeds or min(seeds) < 0 or len(set(seeds)) != len(seeds):
            raise ValueError(f"seeds: expected distinct non-negative integers, got {self.seeds!r}")
        if max(seeds) > 2**63 - 1:  # a seed becomes a jax.random.key: a C long (OverflowError)
            raise ValueError(f"seeds: expected integers in 0..2**63 - 1, got {max(seeds)}")
        put("seeds", seeds)
        if self.tasks is not None:
            tasks = (self.tasks,) if isinstance(self.tasks, str) else tuple(self.tasks)
            unknown = [t for t in tasks if t not in heads]
            if not tasks or unknown or len(set(tasks)) != len(tasks):
                raise ValueError(
                    f"tasks: expected distinct names from {', '.join(heads)}, got {self.tasks!r}"
                )
            put("tasks", tasks)
        if self.depths is not None:
            try:
                depths = tuple(int(d) for d in self.depths)
            except (TypeError, ValueError):
                raise ValueError(f"depths: expected integers, got {self.depths!r}") from None
            have = sorted({len(h) for t in self.selected_tasks for h in heads[t]})
            if not depths or len(set(depths)) != len(depths) or not set(depths) <= set(have):
                raise ValueError(
                    f"depths: expected distinct layer counts from {have}, got {self.depths!r}"
                )
            put("depths", depths)
        if self.analysis not in ANALYSES:
            raise ValueError(f"analysis: expected one of {ANALYSES}, got {self.analysis!r}")
        if self.analysis == "attention_maps":
            task = table["reasoning"].task if "reasoning" in table else None
            if not (
                "reasoning" in self.selected_tasks
                and (1, 1) in heads["reasoning"]
                and isinstance(task, tasklib.InContextQA)
                and task.k == 2
            ):
                raise ValueError(
                    "analysis: 'attention_maps' (Figure 3) needs the reasoning task, on an "
                    "InContextQA with k = 2, with heads (1, 1)"
                )
        if self.steps is not None and not (isinstance(self.steps, int) and self.steps >= 1):
            raise ValueError(f"steps: expected a positive integer or None, got {self.steps!r}")
        if self.optimizer is not None and self.optimizer not in OPTIMIZERS:
            raise ValueError(
                f"optimizer: expected one of {OPTIMIZERS} or None, got {self.optimizer!r}"
            )
        if self.learning_rate is not None and not (
            isinstance(self.learning_rate, (int, float))
            and math.isfinite(self.learning_rate)
            and self.learning_rate > 0
        ):
            raise ValueError(
                f"learning_rate: expected a positive number or None, got {self.learning_rate!r}"
            )
        if self.init not in INITS:
            raise ValueError(f"init: expected one of {INITS}, got {self.init!r}")

    def replace(self, **changes: Any) -> ExperimentSettings:
        return dataclasses.replace(self, **changes)

    @property
    def selected_tasks(self) -> tuple[str, ...]:
        return tuple(self.heads) if self.tasks is None else tuple(self.tasks)

    @property
    def sizes(self) -> tuple[str, ...]:
        return tuple(SETUPS if self.setups is None else self.setups)

    def setup(self, task: str) -> TaskSetup:
        """The :class:`~.setups.TaskSetup` of ``task`` at this config's size."""
        return (SETUPS if self.setups is None else self.setups)[self.size][task]

    @functools.cached_property
    def run_specs(self) -> tuple[RunSpec, ...]:
        """Every run, as :class:`~.runs.RunSpec`: tasks, then heads configurations, then seeds
        (computed once per config: a config is frozen)."""
        from transformer_theory.sweeps.specs import RunSpec

        return tuple(
            RunSpec(
                task,
                heads,
                seed,
                self.size,
                self.steps,
                init=self.init,
                optimizer=self.optimizer,
                learning_rate=self.learning_rate,
                setup=self.setup(task),
            )
            for task in self.selected_tasks
            for heads in self.heads[task]
            if self.depths is None or len(heads) in self.depths
            for seed in self.seeds
        )

    def runs(self) -> list[RunSpec]:
        """:attr:`run_specs` as a list."""
        return list(self.run_specs)

    @property
    def drawn_run(self) -> RunSpec | None:
        """The run the analysis draws by itself: for ``"attention_maps"`` (Figure 3) the first
        seed's reasoning run with heads ``(1, 1)`` (``__post_init__`` has checked there is one);
        None for ``"curves"``, which draws every run."""
        if self.analysis != "attention_maps":
            return None
        return next(s for s in self.run_specs if s.task == "reasoning" and s.heads == (1, 1))


def config_from_module(name: str) -> ExperimentSettings:
    """The :class:`ExperimentSettings` of the experiment module ``name`` (a dotted module name,
    e.g. ``transformer_theory.papers.chen_zou2024.experiments.fig2_depth``): its
    ``get_config("default")`` (an output directory records the overridable fields besides,
    :data:`~.directory.OVERRIDABLE`).
    Raises :class:`ExperimentError` naming the module when it cannot be imported or returns
    something else than an :class:`ExperimentSettings`."""
    try:
        module = importlib.import_module(name)
    except ImportError as err:
        raise ExperimentError(f"{name}: no such experiment module ({err})") from None
    get_config = getattr(module, "get_config", None)
    config = get_config("default") if callable(get_config) else None
    if not isinstance(config, ExperimentSettings):
        raise ExperimentError(f"{name}: its get_config('default') is not an ExperimentSettings")
    return config


def config_from_file(path: str) -> ExperimentSettings:
    """The :class:`ExperimentSettings` returned by ``get_config()`` of the Python file ``path``.

    The file is executed as a module of its own (nothing is added to ``sys.path``). Raises
    :class:`ExperimentError` naming the file when it is missing, fails to run, has no
    ``get_config`` or returns something else than an :class:`ExperimentSettings`.
    """
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise ExperimentError(f"{path}: no such file")
    if not path.endswith(".py"):
        raise ExperimentError(f"{path}: expected a Python file (.py) with get_config()")
    module_name = "_transformer_theory_config_" + re.sub(r"\W", "_", path)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses defined in the file look their module up
    try:
        spec.loader.exec_module(module)
        get_config = getattr(module, "get_config", None)
        if not callable(get_config):
            raise ExperimentError(f"{path}: defines no get_config()")
        config = get_config()
    except ExperimentError:
        raise
    except Exception as err:  # the user's code: report it in one line, whatever it raised
        raise ExperimentError(f"{path}: {type(err).__name__}: {err}") from None
    finally:
        sys.modules.pop(module_name, None)
    if not isinstance(config, ExperimentSettings):
        raise ExperimentError(
            f"{path}: get_config() returned {type(config).__name__}, expected an ExperimentSettings"
        )
    return config


def resolve(source: str) -> ExperimentSettings:
    """The path of a config file, or an experiment module's dotted name -> its config."""
    if source.endswith(".py") or os.sep in source:
        return config_from_file(source)
    if "." not in source:
        raise ExperimentError(
            f"unknown experiment {source!r}: expected a config file or an experiment module's "
            "dotted name (transformer_theory.papers.chen_zou2024.experiments.NAME)"
        )
    return config_from_module(source)
