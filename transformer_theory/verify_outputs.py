"""Reports of ``transformer-theory verify`` and ``certify``: the suite and the certifiers return
records, this module formats and writes them.

- :func:`format_table`: the verdict table printed by the command;
- :func:`clear_outputs`: remove the files a previous run left in ``--out`` (before computing);
- :func:`save_witnesses`: found witnesses as ``witness_<family>.npz``
  (:func:`transformer_theory.saveload.save_model`);
- :func:`write_outputs`: ``verify.json``, ``verify.csv``, ``verify.png``
  (:func:`transformer_theory.plotting.residuals_by_family`).
"""

from __future__ import annotations

import dataclasses
import glob
import os
from collections.abc import Sequence
from typing import Any

from transformer_theory import plotting, saveload
from transformer_theory.jsonio import to_jsonable, write_csv, write_json
from transformer_theory.theory import checks

COLUMNS = (
    "proposition",
    "family",
    "attention",
    "heads",
    "layers",
    "models",
    "sets",
    "max_residual",
    "tolerance",
    "holds",
    "expected",
)
CSV_COLUMNS = ("dataset", *COLUMNS, "precision")


def format_table(verdicts: Sequence[checks.Verdict]) -> str:
    """The verdict table (one line per proposition x family x dataset)."""
    head = (
        f"{'dataset':<18} {'prop':<6} {'family':<17} {'attn':<7} {'heads':<5} {'L':>1} "
        f"{'M':>3} {'sets':>5} {'max_resid':>10} {'tolerance':>10} {'holds':<5} "
        f"{'expected':<8} {'':<4}"
    )
    lines = [head, "-" * len(head)]
    for v in verdicts:
        flag = "FAIL" if v.failed else ("ok" if v.holds == v.expected else "note")
        lines.append(
            f"{v.dataset:<18} {v.proposition:<6} {v.family:<17} {v.attention:<7} "
            f"{v.heads:<5} {v.layers:>1} {v.models:>3} {v.sets:>5} "
            f"{v.max_residual:>10.2e} {v.tolerance:>10.2e} {str(v.holds):<5} "
            f"{str(v.expected):<8} {flag:<4}"
        )
    return "\n".join(lines)


OWNED_PATTERNS = ("verify.json", "verify.csv", "verify.png", "witness_*.npz")


def clear_outputs(out_dir: str) -> list[str]:
    """Remove the files a verify run owns in ``out_dir`` (its three reports and its witnesses).

    Called before a run computes anything, so that ``out_dir`` never mixes two runs: the witness
    files present afterwards are exactly those the new ``verify.json`` lists. Other files in the
    directory are left alone. Returns the paths removed.
    """
    removed = []
    for pattern in OWNED_PATTERNS:
        for path in sorted(glob.glob(os.path.join(out_dir, pattern))):
            os.remove(path)
            removed.append(path)
    return removed


def witness_file_name(record: Any) -> str:
    """``witness_<family>.npz``: one file per family searched."""
    slug = "".join(ch if ch.isalnum() else "_" for ch in record.family).strip("_")
    return f"witness_{slug}.npz"


def save_witnesses(out_dir: str, records: Sequence[Any]) -> list[dict]:
    """Save every found witness's model next to the report; return the records as dictionaries
    (``params_path`` set where a model was saved)."""
    out = []
    for rec in records:
        if rec.params is not None:
            rec = dataclasses.replace(
                rec,
                params_path=saveload.save_model(
                    os.path.join(out_dir, witness_file_name(rec)), rec.params
                ),
            )
        out.append(rec.to_dict())
    return out


def witness_line(record: dict) -> str:
    """One line for a witness record (found or not, with its margin and scope)."""
    family = record["family"]
    if record["found"]:
        text = (
            f"witness found for {family}: every example correct, float64 min margin "
            f"{record['min_margin']:.3e} > {record['tolerance']:.1e}"
        )
        if record["in_scope"]:
            text += " -- CONTRADICTS the one-layer theorem (bug or discovery)"
    else:
        text = (
            f"no witness found for {family} after {record['restarts']} restarts x "
            f"{record['steps']} Adam steps (best float64 min margin {record['min_margin']:.3e}); "
            "evidence, not proof"
        )
    return f"[witness] {text}"


def certificate_line(record: dict) -> str:
    """What a certificate record (``CertificateRecord.to_dict()``) shows, as one sentence."""
    family, n = record["family"], record["num_examples"]
    if record["verdict"] == "impossible":
        cert = record["certificate"]
        text = (
            f"IMPOSSIBLE for {family}: no such model classifies all {n} examples; certificate on "
            f"{len(cert['examples'])} examples (ending with token {cert['last_token']}), "
            "re-verified exactly."
        )
        contradictions = record.get("contradictions") or []
        if contradictions:
            more = f" ({len(contradictions)} such groups)" if len(contradictions) > 1 else ""
            text = (
                f"IMPOSSIBLE for every model of every depth: rows {list(contradictions[0])} hold "
                f"the same sequence under different labels{more}. " + text
            )
        return text
    groups = record["groups"]
    undecided = sum(g["status"] == "undecided" for g in groups)
    if undecided:
        return (
            f"no certificate for {family}: {undecided} of {len(groups)} last-token group(s) "
            "undecided (the solver gave no answer or the time limit was reached); the others "
            "are feasible. This proves nothing either way."
        )
    return (
        f"no certificate for {family}: the linear relaxation is feasible. This proves nothing: "
        "the relaxation allows every linear map of the counts."
    )


def bound_line(record: dict) -> str:
    """The accuracy bound of one family (``BoundRecord.to_dict()``), as one sentence."""
    kind = (
        "exact: the relaxation attains it"
        if record["exact"]
        else "a sound upper bound, perhaps not tight"
    )
    return (
        f"accuracy at most {record['upper_bound_fraction']} = {record['upper_bound']:.4f} "
        f"({record['num_cores']} certified infeasible subsets; {kind})"
    )


def write_outputs(
    out_dir: str, verdicts: Sequence[checks.Verdict], extra_records: Sequence[dict] = ()
) -> list[str]:
    """Write ``verify.json`` (every record, each with a ``kind``), ``verify.csv`` (the proposition
    verdicts) and ``verify.png`` (residuals per family, log scale) to ``out_dir``; returns the
    paths."""
    pj, pc, pp = (os.path.join(out_dir, f"verify.{e}") for e in ("json", "csv", "png"))
    # Strict JSON: a non-finite value (a residual of an overflowing model) is null, and its
    # record names it under "nonfinite".
    records = []
    for record in [v.to_dict() for v in verdicts] + list(extra_records):
        clean, bad = to_jsonable(record, default_str=True)
        if bad and isinstance(clean, dict):
            clean["nonfinite"] = bad
        records.append(clean)
    write_json(pj, records)
    write_csv(pc, [v.to_dict() for v in verdicts], CSV_COLUMNS, extrasaction="ignore")
    plotting.residuals_by_family(verdicts, pp)
    return [pj, pc, pp]
