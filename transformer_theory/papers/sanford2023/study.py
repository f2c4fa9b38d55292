"""The study behind ``transformer-theory sanford``: settings in, records out.

:class:`StudySettings` holds what the command parses (the units, the lengths ``N``, the qSA
sparsities and accuracies, the size options); :func:`configurations` lists one
:class:`QSAConfig` or :class:`MatchConfig` per configuration (named sizes: ``N, q, eps`` for qSA,
``N, M, K`` for a Match unit); :func:`check_sizes` refuses, before any work, sizes the check
cannot honestly run; :func:`run_study` checks every configuration (:mod:`.checks`), writing each
record and the list of all of them as it goes, and draws the figures (:mod:`.plots`)::

    settings = StudySettings(tasks=("match2",), ns=(4, 8))
    check_sizes(settings)
    records = run_study(settings, "results/sanford")
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable

from transformer_theory import budget, jsonio, precision
from transformer_theory.papers.sanford2023 import checks, registry
from transformer_theory.papers.sanford2023 import tasks as ts

__all__ = [
    "DEFAULTS",
    "MatchConfig",
    "QSAConfig",
    "StudySettings",
    "check_sizes",
    "configurations",
    "failed",
    "modulus",
    "record_of",
    "run_study",
    "summary",
]

# The defaults of the size options: the ordinary range an over-budget option is measured against.
DEFAULTS = {"--dim": 2, "--modulus-power": 2, "--samples": 100_000}


@dataclasses.dataclass(frozen=True)
class StudySettings:
    """What one ``sanford`` run checks (the command's options, converted once).

    Attributes:
      tasks: names from :data:`~.registry.NAMES` (``qsa`` and the Match units).
      ns: sequence lengths ``N``.
      qs: qSA sparsities ``q`` (each ``< N``).
      epss: qSA accuracies ``eps`` in ``(0, 1)``.
      dim: qSA ``d'``, the width of the averaged vectors.
      modulus_power: Match: ``M = max(N^power, 4)``.
      window: Match3Local's window ``K``.
      samples: sampled inputs where the input space is larger.
      seed: of the drawn matrix and the samples.
    """

    tasks: tuple[str, ...] = registry.NAMES
    ns: tuple[int, ...] = (4, 8, 16)
    qs: tuple[int, ...] = (1, 2)
    epss: tuple[float, ...] = (0.1,)
    dim: int = 2
    modulus_power: int = 2
    window: int = 2
    samples: int = 100_000
    seed: int = 0

    def options(self, **change: int) -> dict[str, int]:
        """The size options by name (``"--dim"``...), with ``change`` applied."""
        values = {"--dim": self.dim, "--modulus-power": self.modulus_power}
        return values | {"--samples": self.samples} | change


@dataclasses.dataclass(frozen=True)
class QSAConfig:
    """One qSA configuration: its named sizes ``N``, ``q``, ``eps``."""

    N: int
    q: int
    eps: float
    task: str = "qsa"

    @property
    def file_name(self) -> str:
        return f"qsa_N{self.N}_q{self.q}_eps{self.eps:g}.json"


@dataclasses.dataclass(frozen=True)
class MatchConfig:
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


def configurations(settings: StudySettings) -> list[QSAConfig | MatchConfig]:
    """Every configuration of ``settings``, qSA first (``N x q x eps``), then each Match unit
    over ``N``."""
    configs: list[QSAConfig | MatchConfig] = []
    if "qsa" in settings.tasks:
        configs += [
            QSAConfig(n, q, e) for n in settings.ns for q in settings.qs for e in settings.epss
        ]
    for name in settings.tasks:
        if name == "qsa":
            continue
        unit = registry.unit(name)
        k = settings.window if unit.windowed else None
        configs += [
            MatchConfig(name, n, modulus(n, settings.modulus_power), k) for n in settings.ns
        ]
    return configs


def record_of(config: QSAConfig | MatchConfig, settings: StudySettings) -> dict:
    """Check one configuration: :func:`~.checks.qsa_record` or :func:`~.checks.match_record`."""
    if isinstance(config, QSAConfig):
        return checks.qsa_record(
            config.N,
            config.q,
            config.eps,
            dim=settings.dim,
            samples=settings.samples,
            seed=settings.seed,
        )
    return checks.match_record(
        config.task,
        config.N,
        config.M,
        window=settings.window,
        samples=settings.samples,
        seed=settings.seed,
    )


def failed(record: dict) -> bool:
    """A construction missed: a qSA unit above ``eps`` for every ``m`` searched, or a Match unit
    below 100% in float64."""
    if record["task"] == "qsa":
        return record["m_min"] is None
    return record["accuracy_by_dtype"]["float64"] < 1.0


def summary(record: dict) -> dict:
    """One table row of a record: its sizes, then the qSA search or the accuracy per format
    (``*`` marks a format beyond its exact range)."""
    row = {"task": record["task"], "N": record["N"]}
    if record["task"] == "qsa":
        row |= {"q": record["q"], "eps": record["epsilon"], "m_min": record["m_min"]}
        if record["m_min"] is None:
            return row | {"result": "MISSED"}
        return row | {
            "error (all inputs)": record["max_error"],
            "sampled": record["sampled_max_error"],
            "bits": record["bits_min"],
            "bits (proof)": record["bits_proof"],
        }
    row |= {"M": record["M"], "K": record["window"]}
    row["inputs"] = "all" if record["exhaustive"] else "sampled"
    for name, value in record["accuracy_by_dtype"].items():
        star = "" if record["within_exact_range"][name] else "*"
        row[name] = f"{value:.4f}{star}"
    return row


def run_study(
    settings: StudySettings,
    out: str,
    *,
    on_record: Callable[[dict], None] | None = None,
    plot: bool = True,
) -> list[dict]:
    """Check every configuration of ``settings``; write each record to ``out/<file_name>`` and
    all of them to ``out/sanford.json`` after every one (an interrupted run keeps what it
    finished); ``on_record(record)`` after each; then the figures (:func:`~.plots.study_figures`).
    Call :func:`check_sizes` first: this runs what it is given. Needs ``jax_enable_x64`` (float64
    is one of the formats compared)."""
    records = []
    for config in configurations(settings):
        record = record_of(config, settings)
        records.append(record)
        jsonio.write_json(os.path.join(out, config.file_name), record)
        jsonio.write_json(os.path.join(out, "sanford.json"), records)
        if on_record is not None:
            on_record(record)
    if plot:
        from transformer_theory.papers.sanford2023 import plots

        plots.study_figures(records, out)
    return records


# ---------------------------------------------------------------------------------------------
# refusing sizes before any work


def _blame(settings, estimate, ok, options: list[str], rest: str) -> str:
    """The options to name when ``estimate(options)`` is not ``ok``, ``/``-joined: those of
    ``options`` above their default whose default alone makes it ok; else ``rest`` (the lists
    ``--n``, ``--q``, which have no single default) and those above their default."""
    values = settings.options()
    above = [o for o in options if values[o] > DEFAULTS[o]]
    alone = [o for o in above if ok(estimate(settings.options(**{o: DEFAULTS[o]})))]
    return "/".join(alone or dict.fromkeys([*rest.split("/"), *above]))


def _memory_ok(nbytes) -> bool:
    try:
        budget.check_memory(nbytes, what="", option="")
    except budget.BudgetError:
        return False
    return True


def _time_ok(seconds) -> bool:
    return math.isfinite(seconds) and seconds <= budget.time_budget()


def _check_memory(settings, estimate, what: str, options: list[str], rest: str) -> None:
    nbytes = estimate(settings.options())
    if not _memory_ok(nbytes):
        option = _blame(settings, estimate, _memory_ok, options, rest)
        budget.check_memory(nbytes, what=what, option=option)


def _check_qsa(settings: StudySettings, seconds: list) -> None:
    for n in settings.ns:
        for q in settings.qs:
            count = math.comb(n, q)
            if count > ts.ALL_SUBSETS_LIMIT:
                raise ValueError(
                    f"--n/--q: N = {n}, q = {q} has C(N, q) = {count:.3g} subsets to "
                    f"check exhaustively, more than the limit "
                    f"{ts.ALL_SUBSETS_LIMIT:,}; lower --n or --q"
                )
            at = f"N = {n}, q = {q}, d' = {settings.dim}"
            _check_memory(
                settings,
                lambda s, n=n, q=q: checks.qsa_bytes(n, q, s["--dim"]),
                f"the exhaustive qSA check at {at}",
                ["--dim"],
                "--n/--q",
            )
            _check_memory(
                settings,
                lambda s, n=n, q=q: checks.qsa_samples_bytes(n, q, s["--dim"], s["--samples"]),
                f"a chunk of the sampled qSA check at {at}",
                ["--dim"],
                "--n",
            )
            seconds.append(
                lambda s, n=n: (
                    len(settings.epss) * checks.qsa_samples_seconds(n, s["--dim"], s["--samples"])
                )
            )


def _check_match(settings: StudySettings, name: str, seconds: list) -> None:
    unit = registry.unit(name)
    power, window = settings.modulus_power, settings.window
    exact = precision.significand_bits("float64")
    for n in settings.ns:
        # M = max(N^power, 4) >= N^power, and the scale is at least log2 M (exact_scale): a
        # log2 M beyond float64's 53 bits is refused before M (10^12 digits...) is computed.
        log2_m = max(power * math.log2(n), 2.0)
        if log2_m > exact:
            m_text, scale_log2, scale = f"2^{log2_m:,.0f}", log2_m, f"at least 2^{log2_m:,.0f}"
        else:
            m = modulus(n, power)
            scale_log2 = registry.exact_scale(name, n, m, window)
            m_text, scale = f"{float(m):.3g}", f"2^{scale_log2:.1f}"
        if scale_log2 > exact:
            first = "--modulus-power" if power > DEFAULTS["--modulus-power"] else "--n"
            if unit.windowed and log2_m <= exact:
                # M fits: the positional scale c_1 ~ (N + 2K)^2 is what overflows.
                first = "--window" if window > 2 else first
            lower = (
                "--modulus-power, --n or --window" if unit.windowed else "--modulus-power or --n"
            )
            raise ValueError(
                f"{first}: {name} at N = {n}, M = {m_text} needs its scale "
                f"c = {scale} resolved to one unit, beyond float64's exact range "
                f"(2^53): a miss would be float64's precision, not the construction; lower {lower}"
            )
        _check_memory(
            settings,
            lambda s, n=n: checks.match_bytes_per_sequence(
                name, n, modulus(n, s["--modulus-power"]), window
            ),
            f"one {name} sequence at N = {n}, M = {m}",
            ["--modulus-power"],
            "--n",
        )
        count, exhaustive = checks.match_input_count(n, m, settings.samples)
        _check_memory(
            settings,
            lambda s, n=n: checks.match_inputs_bytes(
                name, n, modulus(n, s["--modulus-power"]), window, s["--samples"]
            ),
            f"the {count:,} {'' if exhaustive else 'sampled '}{name} inputs and their labels "
            f"at N = {n}, M = {m}",
            ["--samples", "--modulus-power"],
            "--n/--samples",
        )
        seconds.append(
            lambda s, n=n: checks.match_seconds(
                name, n, modulus(n, s["--modulus-power"]), window, s["--samples"]
            )
        )


def check_sizes(settings: StudySettings) -> None:
    """Refuse before any work: Match sizes beyond float64's exact range, qSA subset counts beyond
    the enumeration limit (``ValueError`` naming the option), memory or time beyond the budget
    (:class:`~transformer_theory.budget.BudgetError`), naming the option out of its ordinary
    range. Pure arithmetic on the settings: ``M = N^power`` is compared through ``log2`` before
    it is computed."""
    seconds: list = []  # estimate(options) -> seconds, one per configuration
    for name in settings.tasks:
        if name == "qsa":
            _check_qsa(settings, seconds)
        else:
            _check_match(settings, name, seconds)

    def total(s):
        return sum(f(s) for f in seconds)

    if not _time_ok(total(settings.options())):
        budget.check_seconds(
            total(settings.options()),
            what=f"running {settings.samples:,} sampled inputs per configuration (at least)",
            option=_blame(settings, total, _time_ok, ["--samples", "--dim"], "--n/--samples"),
        )
