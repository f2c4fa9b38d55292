"""The study of :mod:`transformer_theory.rasp.experiments.tracr_differential`: tracr's library
programs compiled by both compilers (:func:`~transformer_theory.rasp._tracr.compare`, every input
up to each program's length), then tracr's failure lengths with its default constants
(:func:`~transformer_theory.rasp._tracr.failure_length`) beside this compiler's model on the same
seeded inputs (:func:`~transformer_theory.rasp._tracr.ours_on_samples`); the record is written to
``rasp_tracr_differential.json``. Needs tracr
(:data:`transformer_theory.rasp._tracr.INSTALL`)."""

from __future__ import annotations

import dataclasses
import datetime
import os
import platform
from collections.abc import Callable, Sequence
from typing import Any

from transformer_theory import jsonio
from transformer_theory.rasp import _tracr

__all__ = ["RECORD", "STUDY_DEFAULT_LENGTH", "STUDY_LENGTHS", "DifferentialRun", "record", "run"]

RECORD = "rasp_tracr_differential.json"

# per program: the longest input compared exhaustively (every input up to it)
STUDY_LENGTHS = {"frac_prevs": 8, "frac_prevs_causal": 8, "pair_balance": 8, "shuffle_dyck1": 8}
STUDY_DEFAULT_LENGTH = 5


@dataclasses.dataclass(frozen=True)
class DifferentialRun:
    """What :func:`run` wrote: the record (the JSON's fields, as
    ``docs/_ext/results_figures.py`` and the ledger row ``rasp.tracr_differential`` read them),
    its path, and the programs where this compiler's model disagrees with its interpreter, the
    interpreters disagree or this compiler needs more layers than tracr's (none, when the
    differential holds)."""

    record: dict[str, Any]
    path: str
    failing: tuple[str, ...]


def record(
    *,
    lengths: dict[str, int] | None = None,
    default_length: int = STUDY_DEFAULT_LENGTH,
    failure_samples: int = 4,
    frac_prevs_lengths: Sequence[int] = (16, 32, 48, 64, 72, 80, 88, 96, 128, 256),
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The differential record: :func:`~transformer_theory.rasp._tracr.compare` for every program
    of :func:`~transformer_theory.rasp._tracr.tracr_programs` (every input up to its length), and
    tracr's failure lengths with its default constants: ``length`` and ``reverse`` compiled for
    16 on seeded inputs of every length 1..16 (float32 and, with 64-bit mode on, float64),
    ``frac_prevs`` compiled for each of ``frac_prevs_lengths`` on seeded inputs of that length,
    beside this compiler's model of the same program on as many seeded inputs of the same
    lengths."""
    import jax

    lengths = {**STUDY_LENGTHS, **(lengths or {})}
    say = progress or (lambda s: None)
    rec: dict[str, Any] = {
        "tracr_commit": _tracr.TRACR_COMMIT,
        "programs": [],
        "failure_lengths": {},
    }
    for name in _tracr.TRACR_PROGRAMS:
        n = lengths.get(name, default_length)
        program, vocab, causal = _tracr.tracr_programs(n)[name]
        rec["programs"].append(_tracr.compare(name, program, vocab, n, causal))
        last = rec["programs"][-1]
        say(f"{name}: {last['inputs']} inputs, layers {last['layers']}")
    progs = _tracr.tracr_programs(16)
    for name in ("length", "reverse"):
        program, vocab, _ = progs[name]
        rows = {}
        for dtype in ("float32", "float64"):
            if dtype == "float64" and not jax.config.jax_enable_x64:
                continue
            rows[dtype] = _tracr.failure_length(
                program, vocab, 16, range(1, 17), samples=failure_samples, dtype=dtype
            )
        ours = _tracr.ours_on_samples(program, vocab, 16, range(1, 17), failure_samples)
        rec["failure_lengths"][name] = {"tracr": rows, "ours_float32": ours}
        say(f"{name}: tracr first failure {rows['float32']['first_failure']}")
    program, vocab, _ = progs["frac_prevs"]
    rows = []
    for n in frac_prevs_lengths:
        t = _tracr.failure_length(program, vocab, n, [n], samples=failure_samples)
        ours = _tracr.ours_on_samples(program, vocab, n, [n], failure_samples)
        rows.append(
            {
                "compiled_for": n,
                "tracr_wrong_inputs": t["rows"][0]["wrong_inputs"],
                "tracr_max_abs_error": t["rows"][0]["max_abs_error"],
                "ours_wrong_positions": ours["wrong_positions"],
                "ours_min_margin": ours["min_margin"],
            }
        )
        say(f"frac_prevs at {n}: {rows[-1]}")
    rec["failure_lengths"]["frac_prevs"] = {
        "inputs": f"{failure_samples} seeded inputs of the compiled length, float32",
        "tracr_first_failure": next(
            (r["compiled_for"] for r in rows if r["tracr_wrong_inputs"]), None
        ),
        "rows": rows,
    }
    return rec


def run(
    config: Any,
    out_dir: str,
    *,
    record_name: str = RECORD,
    produced_by: str = "",
    progress: Callable[[str], None] | None = None,
) -> DifferentialRun:
    """Measure (:func:`record`, ``config.samples`` seeded inputs per failure length:
    :class:`~transformer_theory.rasp.experiments.tracr_differential.TracrDifferentialSettings`),
    say what produced it (``produced_by``, the caller's command, then tracr's commit, the
    versions, the machine and the date), write ``out_dir/record_name``; returns the
    :class:`DifferentialRun`."""
    path = os.path.join(out_dir, record_name)
    rec = record(failure_samples=config.samples, progress=progress)
    rec["produced_by"] = (
        f"{produced_by} (tracr {_tracr.TRACR_COMMIT[:7]}, "
        + _tracr.versions()
        + f", {platform.machine()} CPU, {datetime.date.today().isoformat()})"
    )
    os.makedirs(out_dir, exist_ok=True)
    jsonio.write_json(path, rec)
    failing = tuple(
        p["program"]
        for p in rec["programs"]
        if p["ours"]["disagree"]
        or p["interpreters_disagree"]
        or p["layers"]["ours"] > p["layers"]["tracr"]
    )
    return DifferentialRun(rec, path, failing)
