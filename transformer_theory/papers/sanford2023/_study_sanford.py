"""The study of ``transformer-theory sanford`` (Sanford, Hsu & Telgarsky 2023's checked
constructions): refuse the sizes, build each unit, check it against the exact task, record, plot,
in that order. Its settings are :class:`.experiments.sanford.SanfordSettings` (read by their
fields: this module imports no experiment and no option); the maths it calls take plain
arguments.

:func:`configurations` lists one :class:`QSASettings` (``N, q, eps``), :class:`MatchSettings`
(``N, M, K``) or :class:`DisjSettings` (``q``) per configuration; :func:`run` checks each by its
stages in one loop, each maths module entered once, in stage order, each taking plain arguments
and returning what the next reads: the Match check's plan (:func:`._theory_costs.match_plan`),
the inputs and exact targets (:mod:`._tasks`: the qSA subsets and the samples, drawn lazily in
chunks; the Match inputs and labels; DISJ's pairs encoded as qSA instances), the units
(:mod:`._constructions_qsa`: :func:`._constructions_qsa.qsa_smallest`, the smallest ``m`` and
bits reaching ``eps``, then its sampled error; the reduction's units and their queries), the RIP
constants (:mod:`._theory_rip`), then the record (:mod:`._constructions_records`, which runs a
Match unit per float format). ``disj`` then goes on with the qSA lower bound's one-way protocol:
Alice's message (:mod:`._theory_message`), Bob's run (:func:`._constructions.run_streams`), its
record and the exact reduction (:mod:`._theory_disjointness`). :func:`run` writes the records,
:func:`summary_tables` and :func:`protocol_summary` are the command's tables, :func:`failed` its
verdict.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

from transformer_theory import jsonio, precision
from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa_unit
from transformer_theory.papers.sanford2023 import _constructions_records as checked
from transformer_theory.papers.sanford2023 import _constructions_registry as registry
from transformer_theory.papers.sanford2023 import _plots
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.papers.sanford2023 import _theory_costs as costs
from transformer_theory.papers.sanford2023 import _theory_disjointness as disjointness
from transformer_theory.papers.sanford2023 import _theory_message as alice_message
from transformer_theory.papers.sanford2023 import _theory_rip as rip
from transformer_theory.papers.sanford2023._constructions import run_streams
from transformer_theory.papers.sanford2023._records import (
    DisjRecord,
    MatchRecord,
    ProtocolRow,
    QSARecord,
    SanfordResult,
)

__all__ = [
    "DisjSettings",
    "MatchSettings",
    "QSASettings",
    "check_sizes",
    "configurations",
    "failed",
    "modulus",
    "protocol_summary",
    "run",
    "summary",
    "summary_tables",
]

#: The fields whose defaults are the ordinary values :func:`check_sizes` compares against.
_ORDINARY = ("dim", "modulus_power", "samples")


def check_sizes(settings: Any) -> None:
    """Refuse ``settings`` before any work (:func:`.._theory_costs.check_sizes` on its fields, the
    defaults of ``dim``, ``modulus_power`` and ``samples`` as their ordinary values): the error
    names the fields to change."""
    ordinary = {f.name: f.default for f in dataclasses.fields(settings) if f.name in _ORDINARY}
    costs.check_sizes(
        settings.units,
        settings.ns,
        settings.qs,
        settings.epss,
        dim=settings.dim,
        modulus_power=settings.modulus_power,
        window=settings.window,
        samples=settings.samples,
        ordinary=ordinary,
    )


@dataclasses.dataclass(frozen=True)
class QSASettings:
    """One qSA configuration: its named sizes ``N``, ``q``, ``eps``."""

    N: int
    q: int
    eps: float
    task: str = "qsa"

    @property
    def file_name(self) -> str:
        return f"qsa_N{self.N}_q{self.q}_eps{self.eps:g}.json"


@dataclasses.dataclass(frozen=True)
class MatchSettings:
    """One Match configuration: the unit and its named sizes ``N``, ``M``, ``K`` (``K`` is
    ``None`` for a unit without a window); ``unit`` is the registry's unit of ``task``, looked up
    once by :func:`configurations` and passed down (``None``: looked up by name)."""

    task: str
    N: int
    M: int
    K: int | None = None
    unit: registry.Unit | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def file_name(self) -> str:
        return f"{self.task}_N{self.N}_M{self.M}.json"


@dataclasses.dataclass(frozen=True)
class DisjSettings:
    """One ``disj`` configuration: the reduction and the protocol at ``q`` bits (``N = 2q + 1``);
    its rows go to ``disj.json``, not to a file of its own."""

    q: int
    task: str = "disj"


def modulus(seq_len: int, power: int) -> int:
    """``M = max(N^power, 4)``."""
    return max(seq_len**power, 4)


def configurations(settings: Any) -> list[QSASettings | MatchSettings | DisjSettings]:
    """Every configuration of ``settings`` (a ``SanfordSettings``), qSA first (``N x q x eps``),
    then each Match unit over ``N``, then ``disj`` at every ``q`` (when asked)."""
    configs: list[QSASettings | MatchSettings | DisjSettings] = []
    if "qsa" in settings.tasks:
        configs += [
            QSASettings(n, q, e) for n in settings.ns for q in settings.qs for e in settings.epss
        ]
    for name in settings.units:
        if name == "qsa":
            continue
        unit = registry.UNITS[name]  # the typed unit, looked up once (the settings checked names)
        k = settings.window if unit.windowed else None
        configs += [
            MatchSettings(name, n, modulus(n, settings.modulus_power), k, unit) for n in settings.ns
        ]
    if "disj" in settings.tasks:
        configs += [DisjSettings(q) for q in settings.qs]
    return configs


def run(
    config: Any,
    out_dir: str,
    *,
    progress: bool = True,
    on_record: Callable[[dict], None] | None = None,
    plot: bool = True,
) -> SanfordResult:
    """Check every configuration of ``config`` by the stages of
    :func:`.._constructions_records.qsa_record` or :func:`.._constructions_records.match_record`
    (the same results; the Match unit the one :func:`configurations` looked up), writing each
    record to ``out_dir/<file_name>`` and all of them to ``out_dir/sanford.json`` after every one
    (an interrupted run keeps what it finished; ``on_record(record)`` after each); ``disj``'s at
    each ``q`` by the stages of :func:`.._theory_disjointness.protocol_record` (the rows of
    :func:`.._theory_disjointness.protocol_table`) beside the exact reduction, written to
    ``out_dir/disj.json`` once all are done; then the figures. Refuses sizes first
    (``_theory_costs.check_sizes``). Returns a :class:`~._records.SanfordResult` (the rows typed,
    ``disj`` a :class:`~._records.DisjRecord` or None). Needs JAX's 64-bit mode.

    One loop, each stage's maths entered once per configuration and in stage order, whatever
    the task: the plan (:mod:`._theory_costs`), the inputs and their exact targets
    (:mod:`._tasks`), the units built, embedded and run on them (:mod:`._constructions_qsa`),
    their RIP constants (:mod:`._theory_rip`), the record (:mod:`._constructions_records`); for
    ``disj`` Alice's message (:mod:`._theory_message`), Bob's run
    (:func:`._constructions.run_streams`) and its record and the exact reduction
    (:mod:`._theory_disjointness`)."""
    precision.require_x64("config")
    configs = configurations(config)  # no work: the sizes are refused next, before any
    check_sizes(config)
    records, reduction, protocol = [], [], []
    for c in configs:
        is_qsa, is_disj = isinstance(c, QSASettings), isinstance(c, DisjSettings)
        is_match = not (is_qsa or is_disj)
        unit = None
        if is_match:
            unit = c.unit if c.unit is not None else registry.UNITS[c.task]
        # what the Match check costs: every input or a sample, in chunks (qSA's are fixed)
        plan = costs.match_plan(unit, c.N, c.M, config.window, config.samples) if is_match else None
        # the inputs and their exact targets (qSA's samples drawn lazily, chunk by chunk; DISJ's
        # every pair, encoded as qSA instances, and Alice's own)
        if is_qsa:
            subsets = ts.all_subsets(c.N, c.q)  # listed once: the search, the bits and w read them
            chunks = ts.qsa_sample_chunks(
                config.seed + 1, config.samples, c.N, c.q, config.dim, chunk=costs.QSA_SAMPLE_CHUNK
            )
        elif is_match:
            x, labels = ts.match_inputs(
                unit.task,
                c.N,
                c.M,
                config.window,
                samples=config.samples,
                seed=config.seed,
                exhaustive=plan.exhaustive,
            )
        else:
            inst = ts.protocol_instances(c.q)
            subsets = ts.all_subsets(2 * c.q + 1, c.q)  # every input of the unit's search
        # the units built and evaluated on them
        if is_qsa:
            search = qsa_unit.qsa_smallest(c.N, c.q, config.dim, c.eps, subsets, seed=config.seed)
            unit_qsa = search.construction
            sampled = None if unit_qsa is None else qsa_unit.qsa_sampled_error(unit_qsa, chunks)
        elif is_disj:
            # the fewest rows reaching 1/(2q) (UNIT_ROWS at seed 0) and, while m p < q is
            # possible at p >= 2, one row (where no protocol can decide: the witnesses), each
            # with the pairs' embedded streams and Alice's queries
            fewest = qsa_unit.UNIT_ROWS.get(c.q) if config.seed == 0 else None
            units = [
                qsa_unit.reduction_unit_of(c.q, m, subsets, seed=config.seed)
                for m in ((fewest, 1) if c.q > 2 else (fewest,))
            ]
            embedded = []
            for unit_disj, _ in units:
                stream, _ = qsa_unit.qsa_embed(unit_disj, inst.z_BxNxZ, inst.members_BxNxK)
                alice, _ = qsa_unit.qsa_embed(
                    unit_disj, inst.alice_z_AxNxZ, inst.alice_members_AxNxK
                )
                embedded.append((stream, qsa_unit.qsa_queries(unit_disj, alice, inst.position)))
        # their RIP constants, then the record
        if is_qsa:
            found = unit_qsa is not None and c.q < c.N
            report = rip.rip_constants(unit_qsa.u_ExK, c.q) if found else None
            record = checked.qsa_record_of(
                c.N, c.q, config.dim, c.eps, search, config.samples, sampled, report
            )
        elif is_match:
            record = checked.match_check(
                unit,
                x,
                labels,
                c.N,
                c.M,
                window=config.window,
                exhaustive=plan.exhaustive,
                chunk=plan.chunk,
            )
        if not is_disj:
            records.append(record)
            jsonio.write_json(os.path.join(out_dir, c.file_name), record)
            jsonio.write_json(os.path.join(out_dir, "sanford.json"), records)
            if on_record is not None:
                on_record(record)
            continue
        # DISJ: the fewest-row unit unquantized, then its message at p = 2, 3, ... up to the
        # first p at which Bob decides every pair (at most MAX_BITS); the one-row unit at p = 2,
        # ..., q - 1 (m p < q: none decides). Alice's message, Bob's run, its record
        quantized = range(2, disjointness.MAX_BITS + 1)
        schedule = [((None, *quantized), True), (tuple(range(2, c.q)), False)]
        for (unit_disj, worst), (stream, queries), (bits_list, until_decided) in zip(
            units, embedded, schedule[: len(units)], strict=True
        ):
            for bits in bits_list:
                message = alice_message.protocol_message(
                    inst, queries, stream, bits, unit_disj.params.w_o.dtype
                )
                out, _ = run_streams(unit_disj.params, message.stream_BxNxD)
                row = disjointness.protocol_row(inst, unit_disj.rows, worst, message, out)
                protocol.append(row)
                if until_decided and bits is not None and row["decides_all"]:
                    break
        # the reduction itself, exactly, on the same instances
        reduction.append(
            disjointness.reduction_check(
                c.q, inst.truth_B, inst.z_BxNxZ, inst.members_BxNxK, inst.position
            )
        )
    disj = None
    if "disj" in config.tasks:
        disj = jsonio.as_record(
            DisjRecord,
            {
                "reduction": reduction,
                "protocol": protocol,
                "match3_bound": disjointness.match3_bound_table(config.match3_trained),
            },
        )
        jsonio.write_json(os.path.join(out_dir, "disj.json"), disj)
    if plot and records:
        _plots.study_figures(records, out_dir)
    rows = tuple(jsonio.as_record(QSARecord | MatchRecord, r) for r in records)  # type: ignore[arg-type]
    return SanfordResult(rows, disj)


def failed(result: SanfordResult | QSARecord | MatchRecord) -> bool:
    """A construction missed: a qSA unit above ``eps`` for every ``m`` searched, a Match unit
    below 100% in float64, the reduction's equivalence broken, or a ``q`` at which no message of
    the unit decides DISJ on every pair. ``result`` is :func:`run`'s, or one record."""
    if isinstance(result, QSARecord):
        return result.m_min is None
    if isinstance(result, MatchRecord):
        return result.accuracy_by_dtype["float64"] < 1.0
    if any(failed(r) for r in result.rows):
        return True
    disj = result.disj
    if disj is None:
        return False
    reduction_ok = all(r.equivalence_holds and r.decided for r in disj.reduction)
    qs = {r.q for r in disj.reduction}
    decided = {r.q for r in disj.protocol if r.p is not None and r.decides_all}
    return not (reduction_ok and decided == qs)


def summary_tables(result: SanfordResult) -> list[list[dict]]:
    """The command's tables of ``result.rows``: the qSA rows, then the Match rows (either left
    out when there is none), each row :func:`summary`'s."""
    tables = [
        [summary(r) for r in result.rows if isinstance(r, QSARecord)],
        [summary(r) for r in result.rows if isinstance(r, MatchRecord)],
    ]
    return [t for t in tables if t]


def summary(record: QSARecord | MatchRecord) -> dict:
    """One table row of a record: its sizes, then the qSA search or the accuracy per format
    (``*`` marks a format beyond its exact range)."""
    row: dict = {"task": record.task, "N": record.N}
    if isinstance(record, QSARecord):
        row |= {"q": record.q, "eps": record.epsilon, "m_min": record.m_min}
        if record.m_min is None:
            return row | {"result": "MISSED"}
        return row | {
            "error (all inputs)": record.max_error,
            "sampled": record.sampled_max_error,
            "bits": record.bits_min,
            "bits (proof)": record.bits_proof,
        }
    row |= {"M": record.M, "K": record.window}
    row["inputs"] = "all" if record.exhaustive else "sampled"
    for name, value in record.accuracy_by_dtype.items():
        star = "" if record.within_exact_range[name] else "*"
        row[name] = f"{value:.4f}{star}"
    return row


def protocol_summary(record: ProtocolRow | dict) -> dict:
    """One table row of a :func:`protocol_record` (a :class:`~._records.ProtocolRow`, or the
    dict :func:`.._theory_disjointness.protocol_table` gives): sizes, message bits against
    DISJ's ``q``, the verdict and the witness."""
    if isinstance(record, dict):
        record = jsonio.as_record(ProtocolRow, record)
    witness = record.wrong_pair
    return {
        "q": record.q,
        "N": record.N,
        "m": record.m,
        "p": record.p,
        "bits m p": record.message_bits,
        "DISJ q": record.disj_bits,
        "messages": f"{record.distinct_messages}/{2**record.q}",
        "decides all": "yes" if record.decides_all else "NO",
        "witness (a; b)": None
        if witness is None
        else "".join(map(str, witness["a"])) + ";" + "".join(map(str, witness["b"])),
    }
