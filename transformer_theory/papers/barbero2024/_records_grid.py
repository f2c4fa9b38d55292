"""A grid study's record written as its models are measured (Barbero et al. 2024's
``collapse.json`` and ``oversquash.json``): :func:`record_grid` takes the grid, the models an
earlier run finished (:func:`._records.models_to_keep`) and the new measurements, in grid order,
as they come, and rewrites the record after each (valid JSON at every moment); a Ctrl-C raises
:class:`Interrupted` with the models written so far. The measurements are the study's
(:func:`._theory_collapse.model_record`, :func:`._theory_oversquash.oversquash_record`): this
module only writes them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from transformer_theory import jsonio
from transformer_theory.papers.barbero2024._models import GridModel

__all__ = ["Interrupted", "record_grid"]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run, after ``finished`` of ``total`` models were written to ``path``."""

    def __init__(self, finished: int, total: int, path: str) -> None:
        super().__init__(f"{finished} of {total} model(s) finished and saved in {path}")
        self.finished, self.total, self.path = finished, total, path


def record_grid(
    grid: Sequence[GridModel],
    measured: Iterable[dict],
    path: str,
    block: dict,
    *,
    done: dict[str, dict],
    on_model: Callable[[Any], None] | None,
    kind: type,
) -> dict:
    """The record of every model of ``grid``: those in ``done`` (finished models, by name) kept
    as they are, the others taken from ``measured`` (the records of the models not in ``done``,
    in grid order; an iterator is read one model at a time, so each is measured only when its
    turn comes), rewriting ``path`` after each new one and then calling ``on_model`` with it as
    the typed record ``kind`` (:class:`~._records.CollapseModel`,
    :class:`~._records.OversquashModel`); ``seconds`` counts the finished models' own. A Ctrl-C
    raises :class:`Interrupted` with the models written so far."""
    t0 = time.perf_counter()
    earlier = sum(m.get("seconds", 0.0) for m in done.values())
    fresh = iter(measured)
    models: list[dict] = []

    def save(complete: bool) -> dict:
        elapsed = round(earlier + time.perf_counter() - t0, 1)
        record = dict(settings=block, complete=complete, seconds=elapsed, models=models)
        jsonio.write_json(path, record)
        return record

    try:
        for model in grid:
            if model.name in done:
                models.append(done[model.name])
                continue
            models.append(next(fresh))
            save(complete=False)
            if on_model is not None:
                on_model(jsonio.as_record(kind, models[-1]))
        return save(complete=True)
    except KeyboardInterrupt:
        raise Interrupted(len(models), len(grid), path) from None
