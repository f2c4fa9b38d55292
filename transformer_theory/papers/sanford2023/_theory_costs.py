"""What the checks of ``transformer-theory sanford`` cost before they run: peak bytes and a lower
bound on the seconds of each configuration (pure arithmetic on Python ints, so a size beyond the
budget is refused from its estimate before anything is allocated), and :func:`check_sizes`, which
refuses a grid of sizes on them. Errors name the arguments (``ns/qs: ...; lower ns or qs``);
the command turns them into its options.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

from transformer_theory import _validate, budget, precision
from transformer_theory.papers.sanford2023 import _constructions_registry as registry
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.papers.sanford2023._constructions_registry import Unit


def match_bytes_per_sequence(unit: Unit, seq_len: int, modulus: int, window: int = 1) -> int:
    """Peak bytes one sequence of ``unit`` costs in :func:`match_record`: four float64 buffers of
    ``(N + 2K + 1) x max(hidden, width)`` (MLP pre-activation, ReLU, the stream and the attention
    rows)."""
    k = unit.window_of(window)
    cols = max(unit.hidden(seq_len, modulus, k), unit.width, seq_len + 2 * k + 1)
    return 4 * 8 * (seq_len + 2 * k + 1) * cols


@dataclasses.dataclass(frozen=True)
class MatchPlan:
    """How one Match check runs (:func:`match_plan`): the bytes of one sequence, whether every
    input of ``[M]^N`` is checked, and the inputs run at once."""

    bytes_per_sequence: int
    exhaustive: bool
    chunk: int


def match_plan(unit: Unit, seq_len: int, modulus: int, window: int, samples: int) -> MatchPlan:
    """The plan of :func:`match_record`'s check: every sequence when there are at most
    ``samples`` (:func:`match_input_count`), run in chunks sized to a quarter of the memory budget
    (:func:`match_bytes_per_sequence` each, at most 2,000);
    :class:`~transformer_theory.budget.BudgetError` if not even one sequence fits."""
    per_seq = match_bytes_per_sequence(unit, seq_len, modulus, window)
    _, exhaustive = match_input_count(seq_len, modulus, samples)
    budget.check_memory(per_seq, what="one sequence of the Match check", option="seq_len/modulus")
    chunk = int(max(1, min(2000, budget.available_memory() // 4 // per_seq)))
    return MatchPlan(per_seq, exhaustive, chunk)


def qsa_bytes(seq_len: int, q: int, dim: int = 2) -> int:
    """A LOWER bound on the peak bytes of :func:`qsa_record`'s exhaustive check: the ``C(N, q)``
    subsets through the model at the smallest ``m = q`` (stream ``2 d' + 2 m`` floats, the
    attention row, its target and error, ``N`` floats each, float64 per position)."""
    seq_len = _validate.check_int_arg("seq_len", seq_len, 1)
    q = _validate.check_int_arg("q", q, 1)
    dim = _validate.check_int_arg("dim", dim, 1)
    return math.comb(int(seq_len), int(q)) * 8 * (2 * dim + 2 * q + 3 * seq_len)


# A LOWER bound on the seconds of one element of the sampled checks, for the time estimate: a qSA
# sample costs at least this per position and entry of its row (``N + d'``): measured 6e-7 to
# 8e-7 s at N = 4 and 16 (2026-11-24, the 2-core CPU); a Match sequence at least this per position
# and float format: measured 6e-7 (match2, N = 16) to 6e-5 s (match3local1). Ten times below the
# fastest measurement, so a run refused on it would take longer still.
SECONDS_PER_ELEMENT = 5e-8
QSA_SAMPLE_CHUNK = 5000  # the qSA check (qsa_record, the study) draws and runs samples in chunks


def qsa_samples_bytes(seq_len: int, q: int, dim: int, samples: int) -> int:
    """A LOWER bound on the peak bytes of one chunk of :func:`qsa_record`'s sampled check
    (``min(samples, 5000)`` inputs): the drawn ``z`` and its Gaussian and radius (``3 d'``), the
    ``N x N`` uniforms, their argsort and the membership (``3 N``), the stream (``2 d' + 2 m``,
    ``m >= q``), float64 per position. Pure arithmetic on Python ints."""
    chunk = min(int(samples), QSA_SAMPLE_CHUNK)
    return chunk * int(seq_len) * 8 * (5 * int(dim) + 3 * int(seq_len) + 2 * int(q))


def qsa_samples_seconds(seq_len: int, dim: int, samples: int) -> float:
    """A lower bound on the seconds of :func:`qsa_record`'s sampled check (see
    :data:`SECONDS_PER_ELEMENT`)."""
    return float(samples) * float(seq_len) * float(seq_len + dim) * SECONDS_PER_ELEMENT


def match_input_count(seq_len: int, modulus: int, samples: int) -> tuple[int, bool]:
    """``(count, exhaustive)``: all ``M^N`` sequences when there are at most ``samples``, else
    ``samples`` sampled ones. Compares ``N log2 M`` with ``log2 samples`` first, so a large ``N``
    or ``M`` never computes ``M^N``."""
    for name, value, low in (
        ("seq_len", seq_len, 1),
        ("modulus", modulus, 2),
        ("samples", samples, 1),
    ):
        _validate.check_int_arg(name, value, low)
    seq_len, modulus, samples = int(seq_len), int(modulus), int(samples)
    if seq_len * math.log2(modulus) > math.log2(samples) + 1:
        return samples, False
    total = modulus**seq_len  # <= 2 samples: small
    return (total, True) if total <= samples else (samples, False)


def match_inputs_bytes(unit: Unit, seq_len: int, modulus: int, window: int, samples: int) -> int:
    """Peak bytes of :func:`match_record`'s inputs and labels (made at once, before the chunked
    run): per sequence, the tokens and the generator's uniforms, permutation and plants (8 int64
    or float64 per position), the brute-force labels' ``N x N`` sums and their test for Match2 and
    Match3Bigram (17 bytes per pair), and for an exhaustive enumeration the Python tuples of
    ``itertools.product``."""
    count, exhaustive = match_input_count(seq_len, modulus, samples)
    n = int(seq_len)
    per = 64 * n
    if unit.task in ("match2", "match3bigram"):
        per += 17 * n * n
    if exhaustive:
        per += 56 + 8 * n
    return count * per


def match_seconds(unit: Unit, seq_len: int, modulus: int, window: int, samples: int) -> float:
    """A lower bound on the seconds of :func:`match_record` (see :data:`SECONDS_PER_ELEMENT`):
    every input through the unit in each of the formats
    (:data:`transformer_theory.precision.FORMATS`)."""
    k = unit.window_of(window)
    count, _ = match_input_count(seq_len, modulus, samples)
    return float(count) * len(precision.FORMATS) * (int(seq_len) + 2 * k + 1) * SECONDS_PER_ELEMENT


# ---------------------------------------------------------------------------------------------
# refusing a grid of sizes before any work
#
# An estimate is a function of the size arguments ``{"dim", "modulus_power", "samples"}``, so an
# over-budget one can name the argument out of its ordinary range (``ordinary``: its usual value).

_SIZE_FIELDS = ("dim", "modulus_power", "samples")


class _Grid:
    """The arguments of :func:`check_sizes`, read by the helpers below."""

    def __init__(self, units, ns, qs, epss, dim, modulus_power, window, samples, ordinary):
        self.units, self.ns, self.qs, self.epss = tuple(units), tuple(ns), tuple(qs), tuple(epss)
        self.dim, self.modulus_power, self.window = dim, modulus_power, window
        self.samples = samples
        given = {n: getattr(self, n) for n in _SIZE_FIELDS}
        self.ordinary = given | {k: v for k, v in dict(ordinary or {}).items() if k in given}


def _names(names: list[str]) -> str:
    return "/".join(names)


def _lower(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


def _sizes(grid: _Grid, **change: int) -> dict[str, int]:
    return {n: getattr(grid, n) for n in _SIZE_FIELDS} | change


def _blame(grid: _Grid, estimate, ok, fields: list[str], rest: list[str]) -> str:
    """The arguments to name when ``estimate(sizes)`` is not ``ok``, ``/``-joined: those of
    ``fields`` above their ordinary value whose ordinary value alone makes it ok; else ``rest``
    (the lists ``ns``, ``qs``, which have no single ordinary value) and those above it."""
    values, ordinary = _sizes(grid), grid.ordinary
    above = [f for f in fields if values[f] > ordinary[f]]
    alone = [f for f in above if ok(estimate(_sizes(grid, **{f: ordinary[f]})))]
    return _names(alone or list(dict.fromkeys([*rest, *above])))


def _memory_ok(nbytes) -> bool:
    try:
        budget.check_memory(nbytes, what="", option="")
    except budget.BudgetError:
        return False
    return True


def _time_ok(seconds) -> bool:
    return math.isfinite(seconds) and seconds <= budget.time_budget()


def _check_memory(grid: _Grid, estimate, what: str, fields: list[str], rest: list[str]) -> None:
    nbytes = estimate(_sizes(grid))
    if not _memory_ok(nbytes):
        option = _blame(grid, estimate, _memory_ok, fields, rest)
        budget.check_memory(nbytes, what=what, option=option)


def _check_qsa(grid: _Grid, seconds: list) -> None:
    for n in grid.ns:
        for q in grid.qs:
            count = math.comb(n, q)
            if count > ts.ALL_SUBSETS_LIMIT:
                raise ValueError(
                    f"ns/qs: N = {n}, q = {q} has C(N, q) = {count:.3g} subsets to check "
                    f"exhaustively, more than the limit {ts.ALL_SUBSETS_LIMIT:,}; lower ns or qs"
                )
            at = f"N = {n}, q = {q}, d' = {grid.dim}"
            _check_memory(
                grid,
                lambda s, n=n, q=q: qsa_bytes(n, q, s["dim"]),
                f"the exhaustive qSA check at {at}",
                ["dim"],
                ["ns", "qs"],
            )
            _check_memory(
                grid,
                lambda s, n=n, q=q: qsa_samples_bytes(n, q, s["dim"], s["samples"]),
                f"a chunk of the sampled qSA check at {at}",
                ["dim"],
                ["ns"],
            )
            seconds.append(
                lambda s, n=n: len(grid.epss) * qsa_samples_seconds(n, s["dim"], s["samples"])
            )


def _check_match(grid: _Grid, name: str, seconds: list) -> None:
    unit = registry.unit(name)
    power, window = grid.modulus_power, grid.window
    exact = precision.significand_bits("float64")
    for n in grid.ns:
        # M = max(N^power, 4) >= N^power, and the scale is at least log2 M (exact_scale): a
        # log2 M beyond float64's 53 bits is refused before M (10^12 digits...) is computed.
        log2_m = max(power * math.log2(n), 2.0)
        if log2_m > exact:
            m_text, scale_log2, scale = f"2^{log2_m:,.0f}", log2_m, f"at least 2^{log2_m:,.0f}"
        else:
            m = _modulus(n, power)
            scale_log2 = unit.scale_log2(n, m, window)
            m_text, scale = f"{float(m):.3g}", f"2^{scale_log2:.1f}"
        if scale_log2 > exact:
            first = "modulus_power" if power > grid.ordinary["modulus_power"] else "ns"
            if unit.windowed and log2_m <= exact:
                # M fits: the positional scale c_1 ~ (N + 2K)^2 is what overflows.
                first = "window" if window > 2 else first
            lower = ["modulus_power", "ns", "window"] if unit.windowed else ["modulus_power", "ns"]
            raise ValueError(
                f"{first}: {name} at N = {n}, M = {m_text} needs its scale c = {scale} resolved "
                f"to one unit, beyond float64's exact range (2^53): a miss would be float64's "
                f"precision, not the construction; lower {_lower(lower)}"
            )
        _check_memory(
            grid,
            lambda s, n=n: match_bytes_per_sequence(
                unit, n, _modulus(n, s["modulus_power"]), window
            ),
            f"one {name} sequence at N = {n}, M = {m}",
            ["modulus_power"],
            ["ns"],
        )
        count, exhaustive = match_input_count(n, m, grid.samples)
        _check_memory(
            grid,
            lambda s, n=n: match_inputs_bytes(
                unit, n, _modulus(n, s["modulus_power"]), window, s["samples"]
            ),
            f"the {count:,} {'' if exhaustive else 'sampled '}{name} inputs and their labels "
            f"at N = {n}, M = {m}",
            ["samples", "modulus_power"],
            ["ns", "samples"],
        )
        seconds.append(
            lambda s, n=n: match_seconds(
                unit, n, _modulus(n, s["modulus_power"]), window, s["samples"]
            )
        )


def _modulus(seq_len: int, power: int) -> int:
    return max(seq_len**power, 4)


def check_sizes(
    units: Sequence[str],
    ns: Sequence[int],
    qs: Sequence[int],
    epss: Sequence[float],
    *,
    dim: int,
    modulus_power: int,
    window: int,
    samples: int,
    ordinary: Mapping[str, int] | None = None,
) -> None:
    """Refuse, before any work, the grid of checks ``units`` (qSA and Match units by name) over
    ``ns`` x ``qs`` x ``epss`` at these sizes: Match sizes beyond float64's exact range, qSA
    subset counts beyond the enumeration limit (``ValueError``), memory or time beyond the budget
    (:class:`~transformer_theory.budget.BudgetError`). The message names the arguments to change
    at its head and after its last ``lower``, the one out of its ``ordinary`` value (``dim``,
    ``modulus_power``, ``samples``: what a user usually runs) first. Pure arithmetic:
    ``M = N^power`` is compared through ``log2`` before it is computed."""
    grid = _Grid(units, ns, qs, epss, dim, modulus_power, window, samples, ordinary)
    seconds: list = []  # estimate(sizes) -> seconds, one per configuration
    for name in grid.units:
        if name == "qsa":
            _check_qsa(grid, seconds)
        else:
            _check_match(grid, name, seconds)

    def total(s):
        return sum(f(s) for f in seconds)

    if not _time_ok(total(_sizes(grid))):
        budget.check_seconds(
            total(_sizes(grid)),
            what=f"running {grid.samples:,} sampled inputs per configuration (at least)",
            option=_blame(grid, total, _time_ok, ["samples", "dim"], ["ns", "samples"]),
        )
