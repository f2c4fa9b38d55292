"""Build a construction for each requested theorem, check it, and tabulate the results.

One row per model: theorem, task, sizes, layers, heads, ``d'``, examples checked, accuracy, min
margin and min relative margin (plus the check mode and the seconds taken). Used by
``transformer-theory construct`` and ``experiments/constructions_paper_sizes.py``; the sizes are
:mod:`.sizes`, what they cost (checked before anything is built, :func:`check_budget`) :mod:`.cost`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import jax

from transformer_theory.constructions.check import check_construction
from transformer_theory.constructions.contextual import theorem6
from transformer_theory.constructions.cost import SECONDS_PER_WORK, memory_bytes, shapes
from transformer_theory.constructions.memorization import theorem1
from transformer_theory.constructions.reasoning import theorem3
from transformer_theory.constructions.sizes import SIZE_FIELDS, THEOREMS, ConstructSettings, Sizes
from transformer_theory.constructions.templates import theorem5
from transformer_theory.params import ModelParams
from transformer_theory.tables import Column
from transformer_theory.tasks import (
    InContextQA,
    InContextTemplateMatching,
    SequenceClassification,
    Task,
    TemplateMatching,
    all_templates,
)

# A task's own field, where its name differs from the Sizes field that sets it.
_TASK_FIELD = {"alphabet_size": "alphabet"}


def check_budget(s: ConstructSettings) -> tuple[list[Planned], float]:
    """The planned rows of ``s`` and the estimated seconds of checking them, refused before
    anything large is built: ``BudgetError`` when a construction's memory (from its sizes alone)
    or the checks' time exceeds the budget, ``ValueError`` naming the Sizes field when a task
    refuses its sizes."""
    from transformer_theory import budget

    available = budget.available_memory()
    for theorem in s.theorem:
        for shape in shapes(theorem, s):
            need = memory_bytes(shape, s.chunk_size)
            part = max((k for k in need if k != "total"), key=need.get)
            budget.check_memory(
                need["total"],
                what=f"theorem {shape.label} at these sizes (mostly {part}: "
                f"{budget.format_bytes(need[part])}; d' = {shape.width})",
                option=", ".join(SIZE_FIELDS[theorem]),
                available=available,
            )
    try:
        planned = plan(s.theorem, s)
    except ValueError as err:  # a task's own check names its field: name the Sizes field
        field, sep, rest = str(err).partition(":")
        raise ValueError(f"{_TASK_FIELD.get(field.strip(), field.strip())}:{rest}") from None
    total, options = 0.0, set()
    for p in planned:
        count = p.task.size if is_exhaustive(p.task, s.samples) else s.samples
        shape = next(sh for sh in shapes(p.theorem, s) if sh.label == p.label)
        n, d = shape.seq_len, shape.width
        total += SECONDS_PER_WORK * float(count) * n * d * (n + d) * sum(shape.heads)
        options.update(SIZE_FIELDS[p.theorem])
    budget.check_seconds(
        total,
        what="checking every example of these constructions",
        option="samples or " + "/".join(sorted(options)),
    )
    return planned, total


@dataclasses.dataclass(frozen=True)
class Planned:
    """One row to build and check: the task (validated) and the builder."""

    theorem: int
    label: str
    task: Task
    build: Callable[[Any], ModelParams]
    sizes: str


def plan(theorems: Sequence[int], s: Sizes) -> list[Planned]:
    """Build (and so validate) the task of every row; ``ValueError`` from the task names its
    field (``k: ...``). Call after :func:`memory_bytes` has cleared the sizes: Theorems 5 and 6
    enumerate all ``Bell(l)`` templates."""
    out = []
    for theorem in theorems:
        theorem = int(theorem)
        if theorem == 1:
            task = SequenceClassification(s.alphabet, s.length, s.num_sequences)
            sz = f"symbols={s.alphabet} length={s.length} N={s.num_sequences}"
            out.append(Planned(1, "1", task, theorem1, sz))
        elif theorem == 3:
            task = InContextQA(s.n_q, s.n_a, s.k)
            out.append(Planned(3, "3", task, theorem3, f"n_q={s.n_q} n_a={s.n_a} k={s.k}"))
        elif theorem == 5:
            task = TemplateMatching(s.alphabet, all_templates(s.template_length))
            sz = f"symbols={s.alphabet} l={s.template_length} templates={len(task.templates)}"
            out.append(Planned(5, "5 (1 head)", task, lambda t: theorem5(t, version="single"), sz))
            out.append(Planned(5, "5 (n heads)", task, lambda t: theorem5(t, version="multi"), sz))
        elif theorem == 6:
            templates = all_templates(s.ictm_template_length)
            task = InContextTemplateMatching(s.alphabet, s.n_a, templates, s.k)
            sz = (
                f"symbols={s.alphabet} n_a={s.n_a} l={s.ictm_template_length} "
                f"templates={len(templates)} k={s.k}"
            )
            out.append(Planned(6, "6", task, theorem6, sz))
        else:
            raise ValueError(f"theorem: expected one of {THEOREMS}, got {theorem}")
    return out


def is_exhaustive(task: Task, samples: int | None) -> bool:
    """Whether a check with ``samples`` enumerates the whole dataset: ``samples=None``, or a
    dataset of at most ``samples`` examples (sampling it would only repeat examples)."""
    return samples is None or task.size <= samples


LONG_CHECK = 10**7  # examples: an exhaustive check this long gets a hint about --samples


@dataclasses.dataclass(frozen=True)
class ConstructionRow:
    """One construction built and checked: theorem, task, its sizes and dataset size, the
    model's layers, heads (per layer, ``1/1``) and width ``d'``, the examples checked (``mode``
    ``exhaustive`` or ``sampled``), accuracy, smallest margin and relative margin, seconds."""

    theorem: str
    task: str
    sizes: str
    dataset_size: str
    layers: int
    heads: str
    width: int
    examples: int
    mode: str
    accuracy: float
    min_margin: float
    min_relative_margin: float
    seconds: float

    @property
    def exact(self) -> bool:
        """Every example classified, with a positive margin."""
        return self.accuracy == 1.0 and self.min_margin > 0


@dataclasses.dataclass(frozen=True)
class ConstructRecord:
    """``construct.json`` (``transformer-theory construct``): the sizes, the sampling, the rows."""

    sizes: dict[str, Any]
    samples: int | None
    seed: int
    rows: tuple[ConstructionRow, ...]


def check_plan(
    planned: Sequence[Planned],
    *,
    samples: int | None = None,
    seed: int = 0,
    chunk_size: int = 4096,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> list[ConstructionRow]:
    """Build and check every planned row; see :func:`construction_rows`."""
    rows = []
    for p in planned:
        t0 = time.perf_counter()
        exhaustive = is_exhaustive(p.task, samples)
        count = p.task.size if exhaustive else samples
        if log is not None:
            what = f"all {count:,} examples" if exhaustive else f"{count:,} sampled examples"
            hint = (
                " (a long run: a number of samples checks a uniform sample)"
                if count >= LONG_CHECK
                else ""
            )
            log(f"theorem {p.label}, {p.sizes}: building, then checking {what}{hint}")
        params = p.build(p.task)
        res = check_construction(
            params,
            p.task,
            chunk_size,
            samples=None if exhaustive else samples,
            key=jax.random.PRNGKey(seed),
            progress=progress,
            log=None if log is None else (lambda msg, p=p: log(f"theorem {p.label}: {msg}")),
        )
        cfg = params.config
        rows.append(
            ConstructionRow(
                theorem=p.label,
                task=type(p.task).__name__,
                sizes=p.sizes,
                dataset_size=str(p.task.size),
                layers=cfg.depth,
                heads="/".join(map(str, cfg.heads)),
                width=cfg.width,
                examples=res["examples"],
                mode=res["mode"],
                accuracy=res["accuracy"],
                min_margin=res["min_margin"],
                min_relative_margin=res["min_relative_margin"],
                seconds=round(time.perf_counter() - t0, 2),
            )
        )
    return rows


def construction_rows(
    theorems: Sequence[int],
    sizes: Sizes,
    *,
    samples: int | None = None,
    seed: int = 0,
    chunk_size: int = 4096,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> list[ConstructionRow]:
    """Build and check each theorem's construction; ``samples=None`` checks every example.

    With ``samples`` set, a task whose whole dataset has at most ``samples`` examples is still
    checked exhaustively (sampling it would only repeat examples). ``progress`` shows a tqdm bar
    per check; ``log`` receives one line per row before its check (what is checked) and one with
    the estimated time left.
    """
    return check_plan(
        plan(theorems, sizes),
        samples=samples,
        seed=seed,
        chunk_size=chunk_size,
        progress=progress,
        log=log,
    )


#: The columns of :func:`construction_rows` output for :func:`transformer_theory.tables.table`.
TABLE_COLUMNS = (
    Column("theorem"),
    Column("task"),
    Column("sizes"),
    Column("layers", "L"),
    Column("heads"),
    Column("width", "d'"),
    Column("examples", fmt=","),
    Column("mode"),
    Column("accuracy", fmt=".6f"),
    Column("min_margin", "min margin", fmt=".6g"),
    Column("min_relative_margin", "relative", fmt=".3g"),
)


def run(
    settings: Any,
    out_dir: str,
    *,
    planned: Sequence[Planned] | None = None,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> ConstructRecord:
    """``transformer-theory construct``'s study: every planned row of ``settings`` (a
    :class:`~.sizes.ConstructSettings`) built and checked (:func:`check_plan`), then
    ``out_dir/construct.json`` written (:class:`ConstructRecord`, returned).

    ``planned``: :func:`check_budget` ``(settings)``'s rows when the caller has checked them
    already (the command does, before any work); else checked here.
    """
    import os

    from transformer_theory.jsonio import write_json

    if planned is None:
        planned, _ = check_budget(settings)
    rows = check_plan(
        planned,
        samples=settings.samples,
        seed=settings.seed,
        chunk_size=settings.chunk_size,
        progress=progress,
        log=log,
    )
    record = ConstructRecord(
        dataclasses.asdict(settings.sizes), settings.samples, settings.seed, tuple(rows)
    )
    os.makedirs(out_dir, exist_ok=True)
    write_json(os.path.join(out_dir, "construct.json"), record, indent=2)
    return record
