"""The study of Chen & Zou 2024's ``verify_10m`` experiment: its settings
(:class:`.experiments.verify_10m.Verify10MSettings`, read by their fields) -> the task (or its
first ``limit`` sequences) and the family's random models -> the affine-form residuals streamed
over every sequence (:func:`transformer_theory.theory.checks.affine_residuals`, float64: the
experiment declares ``X64``) -> the verdict against :func:`~transformer_theory.theory.checks.
affine_tolerance` -> ``verify_10m.json``; :func:`summary_lines` says what it found.
"""

from __future__ import annotations

import dataclasses
import os
import resource
import time
from typing import Any

from transformer_theory.jsonio import write_json
from transformer_theory.tasks import InContextQA
from transformer_theory.theory import checks

__all__ = ["FILE", "Prefix", "Verify10MRecord", "run", "summary_lines"]

FILE = "verify_10m.json"


class Prefix:
    """The first ``limit`` examples of a task (same ``chunks`` interface)."""

    def __init__(self, task: Any, limit: int) -> None:
        self.task, self.limit = task, limit

    def chunks(self, chunk_size: int) -> Any:
        return self.task.chunks(chunk_size, 0, min(self.limit, self.task.size))


@dataclasses.dataclass(frozen=True)
class Verify10MRecord:
    """``verify_10m.json``: the task, the family, what was tested and the verdict.

    Attributes:
      task: ``(n_q, n_a, k)`` of InContextQA.
      family, models, method: the family checked, its random models, the solver.
      sequences, rank, relations: sequences streamed; independent columns of ``[1, C]``; the
        independent dependences tested at once (``sequences - rank``).
      max_residual, tolerance: the largest residual over the models, and the bound an in-scope
        family's residual stays under (:func:`~transformer_theory.theory.checks.affine_tolerance`).
      in_scope: whether Props. 8/10 cover the family (a control's residual is expected large).
      holds: ``max_residual <= tolerance``.
      seconds, peak_rss_gb: the check's wall time and the process's peak memory.
      path: where the record was written.
    """

    task: tuple[int, int, int]
    family: str
    models: int
    method: str
    sequences: int
    rank: int
    relations: int
    max_residual: float
    tolerance: float
    in_scope: bool
    holds: bool
    seconds: float
    peak_rss_gb: float
    path: str

    @property
    def failed(self) -> bool:
        """An in-scope family whose residual exceeds the tolerance: a bug or a discovery."""
        return self.in_scope and not self.holds

    @property
    def rows(self) -> list[dict]:
        """The record as one row (the table ``experiment`` prints)."""
        row = dataclasses.asdict(self)
        del row["path"]
        return [row]


def run(config: Any, out_dir: str, *, progress: bool = True) -> Verify10MRecord:
    """Stream the affine-form check of ``config`` and write ``out_dir/verify_10m.json``."""
    task = InContextQA(config.n_q, config.n_a, config.k)
    data = task if config.limit is None else Prefix(task, config.limit)
    fam = checks.FAMILIES[config.family]
    params = checks.random_models(
        fam, task.vocab_size, task.seq_len, task.num_classes, config.seed, config.models
    )
    t0 = time.perf_counter()
    res = checks.affine_residuals(
        params,
        data,
        weighted=fam.weighted("affine"),
        chunk_size=config.chunk_size,
        progress=progress,
        method=config.method,
    )
    seconds = time.perf_counter() - t0
    tol = checks.affine_tolerance(params.w_o.dtype, params.config, res.rank, res.num_chunks)
    worst = float(res.residual_M.max())
    os.makedirs(out_dir, exist_ok=True)
    record = Verify10MRecord(
        task=(config.n_q, config.n_a, config.k),
        family=config.family,
        models=config.models,
        method=config.method,
        sequences=int(res.num_sequences),
        rank=int(res.rank),
        relations=int(res.relations),
        max_residual=worst,
        tolerance=float(tol),
        in_scope=bool(fam.in_scope("affine")),
        holds=bool(worst <= tol),
        seconds=round(seconds, 2),
        peak_rss_gb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 3),
        path=os.path.join(out_dir, FILE),
    )
    write_json(record.path, record)
    return record


def summary_lines(record: Verify10MRecord) -> list[str]:
    """What the check found, as the script prints it, then the file written."""
    r = record
    return [
        f"{r.family} on InContextQA{r.task}: {r.sequences:,} sequences, "
        f"rank {r.rank}, {r.relations:,} independent dependences tested at once",
        f"max residual {r.max_residual:.3e} (tolerance {r.tolerance:.2e}, in scope: {r.in_scope})",
        f"{r.seconds:.1f}s ({r.models * r.sequences / r.seconds:,.0f} model*sequence evals/s "
        f"incl. pass 1); peak RSS {r.peak_rss_gb:.2f} GB",
        f"wrote {r.path}",
    ]
