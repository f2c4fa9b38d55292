"""The checked constructions of Sanford, Hsu & Telgarsky 2023: the study behind
``transformer-theory sanford`` -- build each unit, check it against the exact task, record, plot.

:class:`SanfordSettings` is the command's options (one field each); :func:`configurations` lists
one :class:`QSASettings` (``N, q, eps``) or :class:`MatchSettings` (``N, M, K``) per configuration;
:func:`qsa_record` searches the smallest ``m`` (and bits) at which the qSA unit reaches ``eps``,
:func:`match_record` measures a Match unit per float format; ``disj`` runs the qSA lower bound's
reduction from set disjointness (``_theory_disjointness``). Sizes the check cannot honestly
run are refused first (``_theory_costs.check_sizes``). Commands::

    transformer-theory sanford --task qsa --n 8,16 --q 1,2 --eps 0.1 --out results/sanford
    transformer-theory sanford --task disj --q 1,2,3,4 --out results/disj
    transformer-theory experiment sanford --size smoke

The ``default`` size is the command's defaults (every unit at ``N = 4, 8, 16``, 100,000 samples:
minutes on 2 CPU cores); ``smoke`` checks Match2 and qSA at ``N = 4`` in seconds. Needs JAX's
64-bit mode (float64 is one of the formats compared). Writes one JSON record per configuration
(``<task>_N<N>_....json``), all of them to ``sanford.json``, ``disj.json`` and the figures.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

from transformer_theory import _validate, jsonio, precision
from transformer_theory.papers.sanford2023 import _constructions_registry as registry
from transformer_theory.papers.sanford2023 import _plots, _theory_costs
from transformer_theory.papers.sanford2023 import _theory_disjointness as disjointness
from transformer_theory.papers.sanford2023._constructions_records import match_record, qsa_record
from transformer_theory.papers.sanford2023._theory_disjointness import match3_bound_row
from transformer_theory.papers.sanford2023.experiments._records import (
    DisjRecord,
    MatchRecord,
    ProtocolRow,
    QSARecord,
    SanfordResult,
)
from transformer_theory.settings import setting

__all__ = [
    "TASKS",
    "MatchSettings",
    "QSASettings",
    "SIZES",
    "DisjRecord",
    "MatchRecord",
    "QSARecord",
    "SanfordResult",
    "SanfordSettings",
    "configurations",
    "failed",
    "check_sizes",
    "get_config",
    "match3_bound_row",
    "match3_bound_table",
    "modulus",
    "protocol_summary",
    "run",
    "summary",
    "summary_tables",
]

#: Every name ``--task`` accepts: the checked units, then ``disj`` (the lower bound's reduction).
TASKS: tuple[str, ...] = (*registry.NAMES, "disj")
#: ``disj`` checks all ``4^q`` pairs exactly: ``q = 6`` is 4,096 pairs.
DISJ_MAX_Q = 6
SIZES = ("smoke", "default")
#: The study computes in float64: its entry points turn JAX's 64-bit mode on.
X64 = True


def _repeated(values) -> list:
    return sorted({v for v in values if list(values).count(v) > 1})


@dataclasses.dataclass(frozen=True)
class SanfordSettings:
    """What one ``transformer-theory sanford`` run checks (its options, one field each).

    Attributes:
      tasks: comma list of qsa, match2, match3bigram, match3local, match3local1, disj or 'all'.
      ns: lengths N (comma list).
      qs: qSA and disj: sparsities q (comma list).
      epss: qSA: accuracies eps in (0, 1) (comma list).
      dim: qSA: d', width of the z_i.
      modulus_power: Match: M = max(N^power, 4) (N^2 by default, the issue's M = N^2).
      window: Match3Local: window K.
      samples: sampled inputs where the input space is larger.
      seed: seed of the drawn matrix and the samples.
    """

    tasks: tuple[str, ...] = setting(TASKS, flag="--task", metavar="NAMES")
    ns: tuple[int, ...] = setting((4, 8, 16), flag="--n", metavar="N,...")
    qs: tuple[int, ...] = setting((1, 2), flag="--q", metavar="Q,...")
    epss: tuple[float, ...] = setting((0.1,), flag="--eps", metavar="EPS,...")
    dim: int = setting(2, positive=True)
    modulus_power: int = setting(2, positive=True)
    window: int = 2
    samples: int = setting(100_000, positive=True)
    seed: int = 0

    #: The fields ``--task disj`` alone reads; it refuses the others (they would be ignored).
    DISJ_READS = ("tasks", "qs", "seed")

    def __post_init__(self):
        if tuple(self.tasks) == ("all",):  # the command line's word for every task
            object.__setattr__(self, "tasks", TASKS)
        unknown = [t for t in self.tasks if t not in TASKS]
        if not self.tasks or unknown:
            raise ValueError(
                f"tasks: unknown {', '.join(map(repr, unknown)) or 'empty selection'}; "
                f"choose from {', '.join(TASKS)} or 'all'"
            )
        for name, low in (("ns", 1), ("qs", 1)):
            values = getattr(self, name)
            if not values or min(values) < low:
                raise ValueError(f"{name}: expected integers >= {low}, got {list(values)}")
            if repeated := _repeated(values):  # each configuration would run twice
                raise ValueError(f"{name}: {', '.join(map(str, repeated))} given more than once")
        if not self.epss or any(not 1e-12 <= v < 1.0 for v in self.epss):
            raise ValueError(f"epss: every value must be >= 1e-12 and < 1.0, got {list(self.epss)}")
        for name, low in (("dim", 1), ("modulus_power", 1), ("window", 0), ("samples", 1)):
            _validate.check_int_arg(name, getattr(self, name), low)
        _validate.check_seed("seed", self.seed)
        if "disj" in self.tasks and max(self.qs) > DISJ_MAX_Q:
            q = max(self.qs)
            # the count written out only while it is short (4^q of a huge q would take forever)
            pairs = f"{4**q:,}" if q <= 40 else f"4^{q}"
            times = f"{4 ** (q - DISJ_MAX_Q):,}" if q <= 40 else f"4^{q - DISJ_MAX_Q}"
            raise ValueError(
                f"qs: disj checks all 4^q pairs exactly: q = {q} is {pairs} pairs, {times} times "
                f"the {4**DISJ_MAX_Q:,} of q = {DISJ_MAX_Q} (the largest allowed); expected "
                f"q <= {DISJ_MAX_Q}"
            )
        if "qsa" in self.tasks and max(self.qs) >= min(self.ns):
            raise ValueError(
                f"qs: every q must be < every N (N = {list(self.ns)}, q = {list(self.qs)})"
            )
        if any(t.startswith("match3") for t in self.tasks) and min(self.ns) < 2:
            raise ValueError("ns: Match3Bigram needs N >= 2")

    @property
    def units(self) -> tuple[str, ...]:
        """The checked units of :attr:`tasks` (every task but ``disj``)."""
        return tuple(t for t in self.tasks if t != "disj")


def match3_bound_table() -> list[dict]:
    """Where Match3's one-layer bound binds (:func:`.._theory_disjointness.match3_bound_table`)
    at the sizes the library uses: every size of the trained one-layer Match3 models of the
    ``match_width`` experiment (``p = 32``, float32 words), then the Match3Local units."""
    from transformer_theory.papers.sanford2023.experiments import match_width

    trained = []
    for size in match_width.SIZES:
        cfg = match_width.get_config(size)
        if "match3" in cfg.tasks:
            trained += [
                (f"match_width {size}", cfg.seq_len, m, 32, h, cfg.modulus)
                for h in cfg.heads
                for m in cfg.widths
            ]
    return disjointness.match3_bound_table(trained)


def check_sizes(settings: SanfordSettings) -> None:
    """Refuse ``settings`` before any work (:func:`.._theory_costs.check_sizes` on its fields, the
    defaults of ``dim``, ``modulus_power`` and ``samples`` as their ordinary values): the error
    names the fields to change."""
    ordinary = {
        f.name: f.default
        for f in dataclasses.fields(SanfordSettings)
        if f.name in ("dim", "modulus_power", "samples")
    }
    _theory_costs.check_sizes(
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


def get_config(size: str = "default") -> SanfordSettings:
    """The settings of ``size`` (:data:`SIZES`): ``"smoke"`` checks qSA and Match2 at ``N = 4``
    in seconds, ``"default"`` is the command's defaults."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    if size == "smoke":
        return SanfordSettings(tasks=("qsa", "match2"), ns=(4,), qs=(1,), samples=200)
    return SanfordSettings()


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
    ``None`` for a unit without a window)."""

    task: str
    N: int
    M: int
    K: int | None = None

    @property
    def file_name(self) -> str:
        return f"{self.task}_N{self.N}_M{self.M}.json"


def modulus(seq_len: int, power: int) -> int:
    """``M = max(N^power, 4)``."""
    return max(seq_len**power, 4)


def configurations(settings: SanfordSettings) -> list[QSASettings | MatchSettings]:
    """Every configuration of ``settings``, qSA first (``N x q x eps``), then each Match unit
    over ``N`` (``disj`` has none: it is checked at every ``q``)."""
    configs: list[QSASettings | MatchSettings] = []
    if "qsa" in settings.tasks:
        configs += [
            QSASettings(n, q, e) for n in settings.ns for q in settings.qs for e in settings.epss
        ]
    for name in settings.units:
        if name == "qsa":
            continue
        unit = registry.unit(name)
        k = settings.window if unit.windowed else None
        configs += [
            MatchSettings(name, n, modulus(n, settings.modulus_power), k) for n in settings.ns
        ]
    return configs


def run(
    config: SanfordSettings,
    out_dir: str,
    *,
    progress: bool = True,
    on_record: Callable[[dict], None] | None = None,
    plot: bool = True,
) -> SanfordResult:
    """Check every configuration of ``config`` (:func:`record_of`), writing each record to
    ``out_dir/<file_name>`` and all of them to ``out_dir/sanford.json`` after every one (an
    interrupted run keeps what it finished; ``on_record(record)`` after each), then the figures;
    then ``disj`` if asked (``out_dir/disj.json``). Refuses sizes first
    (``_theory_costs.check_sizes``). Returns a :class:`~._records.SanfordResult` (the rows
    typed, ``disj`` a :class:`~._records.DisjRecord` or None). Needs JAX's 64-bit mode."""
    precision.require_x64("config")
    check_sizes(config)
    records = []
    for c in configurations(config):
        record = record_of(c, config)
        records.append(record)
        jsonio.write_json(os.path.join(out_dir, c.file_name), record)
        jsonio.write_json(os.path.join(out_dir, "sanford.json"), records)
        if on_record is not None:
            on_record(record)
    if plot and records:
        _plots.study_figures(records, out_dir)
    disj = None
    if "disj" in config.tasks:
        disj = jsonio.as_record(
            DisjRecord,
            {
                "reduction": [disjointness.reduction_record(q) for q in config.qs],
                "protocol": disjointness.protocol_table(tuple(config.qs), seed=config.seed),
                "match3_bound": match3_bound_table(),
            },
        )
        jsonio.write_json(os.path.join(out_dir, "disj.json"), disj)
    rows = tuple(jsonio.as_record(QSARecord | MatchRecord, r) for r in records)  # type: ignore[arg-type]
    return SanfordResult(rows, disj)


def record_of(config: QSASettings | MatchSettings, settings: SanfordSettings) -> dict:
    """Check one configuration: :func:`qsa_record` or :func:`match_record`."""
    if isinstance(config, QSASettings):
        return qsa_record(
            config.N,
            config.q,
            config.eps,
            dim=settings.dim,
            samples=settings.samples,
            seed=settings.seed,
        )
    return match_record(
        config.task,
        config.N,
        config.M,
        window=settings.window,
        samples=settings.samples,
        seed=settings.seed,
    )


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
