"""Reports of ``transformer-theory verify`` and ``certify``: the suite and the certifiers return
records, this module formats and writes them.

- :func:`run_certify`: certify's study: a loaded dataset's contradictions, each family's
  certificate and the accuracy bound, then ``certify.json``;
- :func:`run_verify`: verify's study: the suite (:func:`.theory.suite.run_suite`) run on built
  datasets, its witnesses saved and its reports written, in that order, into a cleared directory;
- :func:`format_table`: the verdict table printed by the command;
- :func:`clear_outputs`: remove the files a previous run left in ``--out`` (before computing);
- :func:`suite_lines`: the certificate and bound lines printed by the command;
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
from transformer_theory.jsonio import optional, to_jsonable, write_csv, write_json
from transformer_theory.tables import Column, table
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


def _flag(v: checks.Verdict) -> str:
    return "FAIL" if v.failed else ("ok" if v.holds == v.expected else "note")


#: The verdict table's columns (:func:`transformer_theory.tables.table`).
VERDICT_COLUMNS = (
    Column("dataset"),
    Column("proposition", "prop"),
    Column("family"),
    Column("attention", "attn"),
    Column("heads"),
    Column("layers", "L", align=">"),
    Column("models", "M", align=">"),
    Column("sets", align=">"),
    Column("max_residual", "max_resid", fmt=".2e", align=">"),
    Column("tolerance", fmt=".2e", align=">"),
    Column("holds"),
    Column("expected"),
    Column("flag", "", of=_flag),
)


def format_table(verdicts: Sequence[checks.Verdict]) -> str:
    """The verdict table (one line per proposition x family x dataset; the last column says
    ``ok``, ``note`` where a verdict differs from its expected one out of scope, or ``FAIL``)."""
    return table(verdicts, VERDICT_COLUMNS)


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


def save_witnesses(out_dir: str, records: Sequence[Any]) -> list[Any]:
    """Save every found witness's model next to the report; return the records
    (:class:`~transformer_theory.theory.witness.WitnessRecord`) with ``params_path`` set where
    a model was saved."""
    out = []
    for rec in records:
        if rec.params is not None:
            rec = dataclasses.replace(
                rec,
                params_path=saveload.save_model(
                    os.path.join(out_dir, witness_file_name(rec)), rec.params
                ),
            )
        out.append(rec)
    return out


def suite_lines(records: Sequence[dict]) -> list[str]:
    """The lines ``verify`` prints for the suite's certificate and bound records
    (:func:`transformer_theory.theory.suite.run_suite`'s second value)."""
    lines = []
    for r in records:
        if r.get("kind") == "certificate":
            lines.append(f"[certificate] {r['dataset']}: {certificate_line(r)}")
        elif r.get("kind") == "accuracy_bound":
            lines.append(
                f"[bound] {r['dataset']}: {r['family']} accuracy <= "
                f"{r['upper_bound_fraction']} ({r['method']}, exact={r['exact']})"
            )
    return lines


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


@dataclasses.dataclass(frozen=True)
class CertifyEntry:
    """One family of ``certify.json``: its certificate record (``CertificateRecord.to_dict()``)
    and, unless no bound was asked for, the accuracy bound (``BoundRecord.to_dict()`` with the
    ``family`` it is reported for: the two families share one relaxation)."""

    certificate: dict[str, Any]
    bound: dict[str, Any] | None = optional()


@dataclasses.dataclass(frozen=True, kw_only=True)
class CertifyRecord:
    """``certify.json`` (``transformer-theory certify``): the dataset's summary, the file, the
    groups of rows that hold one sequence under different labels, one entry per family."""

    kind: str = "certify"
    dataset: saveload.DatasetSummary
    file: str
    contradictions: tuple[tuple[int, ...], ...]
    results: tuple[CertifyEntry, ...]


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


@dataclasses.dataclass(frozen=True)
class VerifyRun:
    """What :func:`run_verify` computed and wrote.

    Attributes:
      verdicts: one :class:`~transformer_theory.theory.checks.Verdict` per (dataset, family,
        proposition).
      suite_records: the certificate and bound records (:func:`suite_lines` prints them).
      witnesses: the witness searches' records, ``params_path`` set where a model was saved.
      files: ``verify.json``, ``verify.csv``, ``verify.png``.
    """

    verdicts: tuple[checks.Verdict, ...]
    suite_records: tuple[dict, ...]
    witnesses: tuple[Any, ...]
    files: tuple[str, ...]

    @property
    def failed(self) -> list[checks.Verdict]:
        """The in-scope verdicts that failed (a bug or a discovery)."""
        return [v for v in self.verdicts if v.failed]

    @property
    def witness_failed(self) -> bool:
        """Whether a witness was found inside a theorem's scope."""
        return any(w.found and w.in_scope for w in self.witnesses)


def run_verify(
    settings: Any,
    datasets: Sequence[Any],
    out_dir: str,
    *,
    on_step: Any = None,
) -> VerifyRun:
    """The verification suite for resolved ``settings`` (a
    :class:`~transformer_theory.theory.suite.VerifySettings`) on the built ``datasets``
    (:func:`~transformer_theory.theory.suite.build_datasets`), written to ``out_dir``: the files
    an earlier run left there removed first (:func:`clear_outputs`), the models sharded over the
    local devices when ``settings.shard`` and there are several, the witnesses saved
    (:func:`save_witnesses`), then ``verify.json/csv/png`` (:func:`write_outputs`).
    ``on_step(label)`` is called after each job of the suite."""
    import jax

    from transformer_theory import parallel
    from transformer_theory.theory import suite

    clear_outputs(out_dir)
    mesh = None
    if settings.shard and jax.local_device_count() > 1:
        mesh = parallel.make_mesh(settings.models)
    verdicts, extra, found = suite.run_suite(settings, datasets, mesh=mesh, on_step=on_step)
    witnesses = save_witnesses(out_dir, found) if settings.witnesses else []
    files = write_outputs(out_dir, verdicts, extra + [w.to_dict() for w in witnesses])
    return VerifyRun(tuple(verdicts), tuple(extra), tuple(witnesses), tuple(files))


@dataclasses.dataclass(frozen=True)
class FamilyCertificate:
    """One family's part of :func:`run_certify`, as it finishes: the certificate record
    (:class:`~transformer_theory.theory.certificates.CertificateRecord`), the accuracy bound
    (a ``BoundRecord``, shared by the families; ``None`` when none was asked for) and the entry
    ``certify.json`` holds for it."""

    family: str
    certificate: Any
    bound: Any
    entry: CertifyEntry


def run_certify(
    data: Any,
    out_dir: str,
    *,
    file: str,
    families: Sequence[str],
    bound: str = "exact",
    minimize: bool = True,
    deadline: float | None = None,
    on_contradictions: Any = None,
    on_family: Any = None,
) -> CertifyRecord:
    """``transformer-theory certify``'s study on a loaded dataset ``data``
    (:func:`~transformer_theory.saveload.load_dataset` of ``file``): the groups of rows holding
    one sequence under different labels (``on_contradictions(groups)``), then per family of
    ``families`` its certificate (:func:`~transformer_theory.theory.certificates.certify_dataset`)
    and, unless ``bound == "none"``, the accuracy bound by ``bound`` (computed once: the families
    share one relaxation), each family passed to ``on_family`` (a :class:`FamilyCertificate`) as
    it finishes; then ``out_dir/certify.json`` (the :class:`CertifyRecord` returned).
    ``deadline``: a ``time.perf_counter()`` time after which groups are left undecided."""
    from transformer_theory.theory import certificates

    tokens, labels = data.tokens_BxN, data.labels_B
    contradictions = certificates.contradictory_rows(tokens, labels)
    if on_contradictions is not None:
        on_contradictions(contradictions)
    results, shared = [], None
    for fam in families:
        rec = certificates.certify_dataset(
            tokens,
            labels,
            data.vocab_size,
            data.num_classes,
            fam,
            minimize=minimize,
            deadline=deadline,
        )
        family_bound = None
        if bound != "none":
            if shared is None:
                shared = certificates.accuracy_upper_bound(
                    tokens,
                    labels,
                    data.vocab_size,
                    data.num_classes,
                    fam,
                    method=bound,
                    minimize=minimize,
                    deadline=deadline,
                )
            family_bound = dict(shared.to_dict(), family=fam)
        entry = CertifyEntry(rec.to_dict(), family_bound)
        results.append(entry)
        if on_family is not None:
            on_family(FamilyCertificate(fam, rec, shared if bound != "none" else None, entry))
    record = CertifyRecord(
        dataset=data.summary(),
        file=os.path.abspath(file),
        contradictions=tuple(tuple(rows) for rows in contradictions),
        results=tuple(results),
    )
    write_json(os.path.join(out_dir, "certify.json"), record)
    return record
