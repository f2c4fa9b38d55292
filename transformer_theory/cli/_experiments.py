"""What ``transformer-theory experiment`` knows of the papers' experiments: where they are
(:func:`discover`: the modules ``transformer_theory/papers/<paper>/experiments/<name>.py``), what
each does in one sentence (:func:`summary`) and how long a size took when measured
(:func:`check_seconds`, refused beyond ``TT_TIME_BUDGET`` before any work)."""

from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType
from typing import Any

from transformer_theory import budget

__all__ = [
    "MEASURED_SECONDS",
    "SMOKE_SECONDS",
    "UNMEASURED_SECONDS",
    "WORK_FIELDS",
    "check_seconds",
    "discover",
    "summary",
]


def discover() -> dict[str, tuple[str, ModuleType]]:
    """Every experiment module of every paper: ``name -> (paper, module)``.

    A name must be unique across papers (a test checks it), so ``experiment NAME`` is unambiguous.
    """
    import transformer_theory.papers as papers

    found: dict[str, tuple[str, ModuleType]] = {}
    for paper in sorted(m.name for m in pkgutil.iter_modules(papers.__path__) if m.ispkg):
        package = f"transformer_theory.papers.{paper}.experiments"
        try:
            experiments = importlib.import_module(package)
        except ModuleNotFoundError as err:
            if err.name != package:
                raise
            continue  # a paper without trained experiments
        for info in sorted(pkgutil.iter_modules(experiments.__path__), key=lambda m: m.name):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{package}.{info.name}")
            if info.name in found:
                raise RuntimeError(
                    f"experiment name {info.name!r} is defined by {found[info.name][0]} and {paper}"
                )
            found[info.name] = (paper, module)
    return found


def summary(module: ModuleType) -> str:
    """The docstring's first sentence (its first paragraph up to the first full stop)."""
    paragraph = " ".join((module.__doc__ or "").strip().split("\n\n")[0].split())
    end = re.search(r"(?<!\bal)\.\s+[A-Z(]", paragraph)  # not the "." of "et al."
    return paragraph if end is None else paragraph[: end.start() + 1]


#: Seconds the sizes took when measured, as their config modules' docstrings quote them (wall
#: time on 2 shared CPU cores): ``(name, size) -> seconds``.
MEASURED_SECONDS: dict[tuple[str, str], float] = {
    ("collapse_tasks", "default"): 295,
    ("encdec_translation", "default"): 359,
    ("dyck_k", "default"): 437,
    ("languages_generalization", "default"): 1100,
    ("composition_bound", "default"): 259,
    ("composition_cot", "default"): 1640,
    ("composition_depth", "default"): 2100,
    ("composition_one_pass", "default"): 1363,
    ("match_width", "default"): 166,
    ("match_width", "large"): 689,
    ("qsa_bits_attention", "default"): 263,
    ("qsa_bits_rnn", "default"): 192,
    ("qsa_separation", "default"): 631,
    ("ngram_exactness", "default"): 630,
    ("ngram", "default"): 310,  # 5 min 10 s, 2026-12-03, beside a CI run
    ("ngram_learnability", "default"): 286,
    # Chen & Zou's figures (docs/_sources/manual.md's table): fig2_paper's 48 runs took 3.4 h of
    # per-run seconds on both cores; the quick ones minutes.
    ("fig2_depth", "default"): 161,
    ("fig2_paper", "default"): 12240,
    ("fig3_attention_maps", "default"): 10,
    ("fig4_7_heads", "default"): 186,
}
#: Seconds assumed for a size not measured: every size but ``smoke`` trains for minutes.
UNMEASURED_SECONDS = 60.0
#: Seconds assumed for ``smoke`` (every smoke size runs in seconds: the tests run them).
SMOKE_SECONDS = 10.0
#: The settings fields the work grows with linearly (a tuple field by its length): an override
#: scales the size's estimate by ``new / shipped`` for each (``--set steps=...``).
WORK_FIELDS = ("steps", "batch", "batch_size", "samples", "examples", "repeats", "seeds")


def _amount(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, tuple | list):
        return len(value)
    return None


def check_seconds(name: str, size: str, config: Any = None, shipped: Any = None) -> float:
    """The estimated seconds of ``experiment NAME --size SIZE`` (:data:`MEASURED_SECONDS`;
    :data:`UNMEASURED_SECONDS` for another size, :data:`SMOKE_SECONDS` for ``smoke``), scaled
    by every :data:`WORK_FIELDS` field that ``config`` (the settings after ``--set``) changes
    from ``shipped`` (the size's own settings), refused (``BudgetError``, exit 2) beyond
    ``TT_TIME_BUDGET`` before anything is written."""
    if size == "smoke":
        estimate = SMOKE_SECONDS
    else:
        estimate = MEASURED_SECONDS.get((name, size), UNMEASURED_SECONDS)
    option, scaled, largest = "--size", [], 1.0
    if config is not None and shipped is not None:
        for field in WORK_FIELDS:
            new = _amount(getattr(config, field, None))
            old = _amount(getattr(shipped, field, None))
            if new is None or not old or new == old:
                continue
            ratio = new / old
            estimate *= ratio
            scaled.append(f"{field} {new:,} for {old:,}")
            if ratio > largest:
                option, largest = f"--set {field}", ratio
    basis = "as measured" if (name, size) in MEASURED_SECONDS else "as assumed for that size"
    what = f"{name} at size {size} ({basis}"
    what += f", scaled by {', '.join(scaled)})" if scaled else ")"
    return budget.check_seconds(estimate, what=what, option=option)
