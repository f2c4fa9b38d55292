"""The study of Chen & Zou 2024's ``constructions_paper_sizes`` experiment: its settings
(:class:`.experiments.constructions_paper_sizes.PaperSizesSettings`, read by their fields) -> the
plan (§9.1's sizes, sampled: :func:`~transformer_theory.constructions.sizes.paper_sizes`; the
exhaustive grid: :func:`~transformer_theory.constructions.sizes.exhaustive_grid`) -> each
theorem's constructions built and checked (:func:`~transformer_theory.constructions.study.
construction_rows`, float64: the experiment declares ``X64``) -> ``construct_<part>.json``
rewritten after each theorem.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

from transformer_theory.constructions.sizes import exhaustive_grid, paper_sizes
from transformer_theory.constructions.study import ConstructionRow, construction_rows
from transformer_theory.jsonio import write_json

__all__ = ["PaperSizesRecord", "PaperSizesRun", "run"]


@dataclasses.dataclass(frozen=True)
class PaperSizesRecord:
    """``construct_<part>.json``: the samples per paper-size construction, the seed, the rows so
    far (one :class:`~transformer_theory.constructions.study.ConstructionRow` per model) and every
    planned size (``theorem`` and its sizes' fields)."""

    samples: int
    seed: int
    rows: tuple[ConstructionRow, ...]
    sizes: tuple[dict[str, Any], ...]


@dataclasses.dataclass(frozen=True)
class PaperSizesRun:
    """What :func:`run` checked (``record``) and where it wrote it (``path``)."""

    record: PaperSizesRecord
    path: str

    @property
    def rows(self) -> tuple[ConstructionRow, ...]:
        """The rows (the table ``experiment`` prints)."""
        return self.record.rows

    @property
    def exact(self) -> bool:
        """Every row classified every example it checked."""
        return all(r.exact for r in self.record.rows)


def run(
    config: Any,
    out_dir: str,
    *,
    progress: bool = True,
    on_rows: Callable[[list[ConstructionRow]], None] | None = None,
) -> PaperSizesRun:
    """Build and check every planned construction of ``config``, rewriting
    ``out_dir/construct_<part>.json`` after each theorem (partial results survive an
    interruption); ``on_rows(rows)`` gets each theorem's rows as they finish."""
    plan = []
    if config.part in ("paper", "all"):
        plan += [(t, s, config.samples) for t, s in paper_sizes(config.tiny)]
    if config.part in ("grid", "all"):
        plan += [(t, s, None) for t, s in exhaustive_grid(config.tiny)]
    sizes = tuple(dict(theorem=t, **dataclasses.asdict(s)) for t, s, _ in plan)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"construct_{config.part}.json")
    rows: list[ConstructionRow] = []
    record = PaperSizesRecord(config.samples, config.seed, (), sizes)
    for theorem, theorem_sizes, n_samples in plan:
        new = construction_rows(
            [theorem],
            theorem_sizes,
            samples=n_samples,
            seed=config.seed,
            chunk_size=config.chunk_size,
            progress=progress,
        )
        rows += new
        record = dataclasses.replace(record, rows=tuple(rows))
        write_json(path, record, indent=2)
        if on_rows is not None:
            on_rows(new)
    return PaperSizesRun(record, path)
