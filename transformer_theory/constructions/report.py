"""Build a construction for each requested theorem, check it, and tabulate the results.

One row per model: theorem, task, sizes, layers, heads, ``d'``, examples checked, accuracy, min
margin (plus the check mode and the seconds taken). Used by ``transformer-theory construct`` and
``experiments/constructions_paper_sizes.py``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import jax

from transformer_theory.constructions.check import check_construction
from transformer_theory.constructions.contextual import theorem6
from transformer_theory.constructions.memorization import theorem1
from transformer_theory.constructions.reasoning import theorem3
from transformer_theory.constructions.templates import theorem5
from transformer_theory.tasks import (
    InContextQA,
    InContextTemplateMatching,
    SequenceClassification,
    TemplateMatching,
    all_templates,
)

THEOREMS = (1, 3, 5, 6)


@dataclasses.dataclass(frozen=True)
class Sizes:
    """Task sizes for every theorem (each theorem reads the fields it needs).

    Attributes:
      alphabet: symbols of Theorems 1, 5, 6 (§9.1: 500, 210, 100).
      length: sequence length before the CLS (Theorem 1; §9.1: 6).
      num_sequences: ``N`` of Theorem 1.
      template_length: ``l`` of Theorem 5 (every equality pattern of length ``l``).
      ictm_template_length: ``l`` of Theorem 6 (every equality pattern of length ``l``; §9.1: 5).
      n_q, n_a, k: Theorem 3 (``n_q`` questions, ``n_a`` answers, ``k`` pairs; §9.1: 100, 100) and
        Theorem 6 (``n_a`` answers, ``k`` blocks).
    """

    alphabet: int = 4
    length: int = 3
    num_sequences: int = 24
    template_length: int = 3
    ictm_template_length: int = 2
    n_q: int = 4
    n_a: int = 4
    k: int = 2


def _builds(theorem: int, s: Sizes):
    """``[(label, task, builder)]`` for one theorem."""
    if theorem == 1:
        task = SequenceClassification(s.alphabet, s.length, s.num_sequences)
        return [
            ("1", task, theorem1, f"symbols={s.alphabet} length={s.length} N={s.num_sequences}")
        ]
    if theorem == 3:
        task = InContextQA(s.n_q, s.n_a, s.k)
        return [("3", task, theorem3, f"n_q={s.n_q} n_a={s.n_a} k={s.k}")]
    if theorem == 5:
        task = TemplateMatching(s.alphabet, all_templates(s.template_length))
        sz = f"symbols={s.alphabet} l={s.template_length} templates={len(task.templates)}"
        return [
            ("5 (1 head)", task, lambda t: theorem5(t, version="single"), sz),
            ("5 (n heads)", task, lambda t: theorem5(t, version="multi"), sz),
        ]
    if theorem == 6:
        templates = all_templates(s.ictm_template_length)
        task = InContextTemplateMatching(s.alphabet, s.n_a, templates, s.k)
        return [
            (
                "6",
                task,
                theorem6,
                f"symbols={s.alphabet} n_a={s.n_a} l={s.ictm_template_length} "
                f"templates={len(templates)} k={s.k}",
            )
        ]
    raise ValueError(f"theorem: expected one of {THEOREMS}, got {theorem}")


def construction_rows(
    theorems: Sequence[int],
    sizes: Sizes,
    *,
    samples: int | None = None,
    seed: int = 0,
    chunk_size: int = 4096,
    progress: bool = False,
) -> list[dict]:
    """Build and check each theorem's construction; ``samples=None`` checks every example.

    With ``samples`` set, a task whose whole dataset has at most ``samples`` examples is still
    checked exhaustively (sampling it would only repeat examples).
    """
    rows = []
    for th in theorems:
        for label, task, build, sz in _builds(int(th), sizes):
            t0 = time.perf_counter()
            params = build(task)
            sampled = samples is not None and task.size > samples
            res = check_construction(
                params,
                task,
                chunk_size,
                samples=samples if sampled else None,
                key=jax.random.PRNGKey(seed),
                progress=progress,
            )
            cfg = params.config
            rows.append(
                dict(
                    theorem=label,
                    task=type(task).__name__,
                    sizes=sz,
                    dataset_size=str(task.size),
                    layers=cfg.depth,
                    heads="/".join(map(str, cfg.heads)),
                    width=cfg.width,
                    examples=res["examples"],
                    mode=res["mode"],
                    accuracy=res["accuracy"],
                    min_margin=res["min_margin"],
                    seconds=round(time.perf_counter() - t0, 2),
                )
            )
    return rows


def format_table(rows: Sequence[dict]) -> str:
    """A plain-text table of :func:`construction_rows` output."""
    cols = [
        ("theorem", "theorem"),
        ("task", "task"),
        ("sizes", "sizes"),
        ("layers", "L"),
        ("heads", "heads"),
        ("width", "d'"),
        ("examples", "examples"),
        ("mode", "mode"),
        ("accuracy", "accuracy"),
        ("min_margin", "min margin"),
    ]

    def fmt(key, v):
        if key == "accuracy":
            return f"{v:.6f}"
        if key == "min_margin":
            return f"{v:.6g}"
        if key == "examples":
            return f"{v:,}"
        return str(v)

    cells = [[fmt(k, r[k]) for k, _ in cols] for r in rows]
    widths = [
        max(len(h), *(len(c[i]) for c in cells)) if cells else len(h)
        for i, (_, h) in enumerate(cols)
    ]
    lines = ["  ".join(h.ljust(w) for (_, h), w in zip(cols, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)
