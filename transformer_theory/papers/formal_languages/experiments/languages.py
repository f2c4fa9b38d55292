"""Every row of Strobl et al. 2024's formal-language table that the library builds, checked:
MAJORITY, PARITY (with and without Chiang & Cholak's LayerNorm), Dyck-1, Dyck-(k, D) (hard and
softmax), SHUFFLE-DYCK-1/2/3 and the counter languages BoolExp-3, ``a^n b^n``, ``a^n b^n c^n``
-- each recognizer on every short string and on samples beyond, in float64 -- and PARITY's
margin and cross-entropy against ``n`` in float32 and float64.

Command (what ``transformer-theory languages`` runs; its options are :class:`TableSettings`'s
fields)::

    transformer-theory languages --out results/languages
    transformer-theory experiment languages --out results/languages

Writes ``languages_<row>.json`` per row as it finishes, ``languages.json`` (every row),
``parity_precision.json`` (the sweep) and the figures ``languages_margin.png`` (smallest margin
against length) and ``parity_precision.png``. The smoke size runs in seconds; the default
(every string of lengths 1-10 over two symbols, up to 2^14 strings of a length over more, 64
samples per length 16-256, the sweep at lengths 64-2048) about a minute of CPU.

Result (the default, float64): every row right on every string checked, its smallest margin the
derived one -- MAJORITY ``1/n``, PARITY ``4/n^2`` (``4 sqrt 5`` with the LayerNorm), Dyck-1
``1/(2n)``, Dyck-(k, D) ``1/(4n)``, the counter languages ``1/(2n)``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import Any

from transformer_theory import _validate, budget, precision
from transformer_theory.jsonio import as_record, write_json
from transformer_theory.papers.formal_languages import _plots, _theory, _theory_table
from transformer_theory.settings import check_minimums, setting

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = [
    "MAX_EXHAUSTIVE",
    "MAX_PARITY_LENGTH",
    "SIZES",
    "Estimate",
    "LanguageRow",
    "LanguagesResult",
    "ParityPrecisionRow",
    "TableSettings",
    "check_budget",
    "estimate",
    "get_config",
    "run",
]

SIZES = ("smoke", "default")
MAX_EXHAUSTIVE = 16  # 2^16 strings of one length: the most the exhaustive check enumerates
MAX_PARITY_LENGTH = 8192  # 5 n^2 float64 entries per string: 2.7 GB at this length
MAX_DYCK_K = 8
MAX_DYCK_DEPTH = 32
DEFAULT_SAMPLES = 64
DEFAULT_PARITY_SAMPLES = 8


@dataclasses.dataclass(frozen=True)
class TableSettings:
    """What one run of the table checks (the options of ``transformer-theory languages``).

    Attributes:
      rows: comma list of the rows to check, or 'all' (the rows: majority, parity,
        parity_no_layernorm, dyck1, dyck_k, dyck_k_softmax, shuffle_dyck_1, shuffle_dyck_2,
        shuffle_dyck_3, boolexp_3, anbn, anbncn).
      max_len: longest sampled length (powers of 2 from 16, then this one).
      exhaustive_up_to: check every string of lengths 1..this (at most 16; over more than two
        symbols, up to the longest length with at most 2^14 strings).
      samples: strings per sampled length (default 64; refused when no length is sampled, i.e.
        --max-len <= --exhaustive-up-to).
      parity_lengths: PARITY precision sweep: string lengths (comma list, each <= 8192; 'none'
        skips the sweep).
      parity_samples: strings per PARITY sweep length (default 8; refused with --parity-lengths
        none).
      parity_precisions: the sweep's float formats.
      seed: seed of the sampled strings, length n using seed + n (default 0; refused when
        nothing is sampled).
      dyck_k: bracket types k of the Dyck-(k, D) rows (at most 8).
      dyck_depth: depth D of the Dyck-(k, D) rows (at most 32).
    """

    rows: tuple[str, ...] = setting(_theory_table.ROWS, metavar="NAME[,NAME...]")
    max_len: int = setting(256, positive=True)
    exhaustive_up_to: int = setting(10, positive=True)
    samples: int | None = setting(None, positive=True)
    parity_lengths: tuple[int, ...] = setting((64, 256, 1024, 2048))
    parity_samples: int | None = setting(None, positive=True)
    parity_precisions: tuple[str, ...] = setting(("float32", "float64"), option=False)
    seed: int | None = setting(None, minimum=0)
    dyck_k: int = setting(2, positive=True)
    dyck_depth: int = setting(2, positive=True)

    def __post_init__(self) -> None:
        if tuple(self.rows) == ("all",):  # the command line's word for every row
            object.__setattr__(self, "rows", _theory_table.ROWS)
        check_minimums(self)  # the positive fields, declared beside them
        if not self.rows:
            raise ValueError("rows: expected at least one row")
        for name in self.rows:
            _validate.check_choice("rows", name, _theory_table.ROWS)
        for name in self.parity_precisions:
            _validate.check_choice("parity_precisions", name, precision.FORMATS)
        for name in ("max_len", "exhaustive_up_to", "dyck_k", "dyck_depth"):
            _validate.check_int_arg(name, getattr(self, name))
        for name in ("samples", "parity_samples"):
            if getattr(self, name) is not None:
                _validate.check_int_arg(name, getattr(self, name))
        if self.seed is not None:
            _validate.check_seed("seed", self.seed)
        if self.exhaustive_up_to > MAX_EXHAUSTIVE:
            raise ValueError(
                f"exhaustive_up_to: at most {MAX_EXHAUSTIVE} (2^L strings per length), "
                f"got {self.exhaustive_up_to}"
            )
        if self.exhaustive_up_to > self.max_len:
            raise ValueError(
                f"exhaustive_up_to: {self.exhaustive_up_to} exceeds --max-len {self.max_len}"
            )
        if self.dyck_k > MAX_DYCK_K:
            raise ValueError(f"dyck_k: at most {MAX_DYCK_K}, got {self.dyck_k}")
        if self.dyck_depth > MAX_DYCK_DEPTH:
            raise ValueError(f"dyck_depth: at most {MAX_DYCK_DEPTH}, got {self.dyck_depth}")
        for n in self.parity_lengths:
            if not 1 <= _validate.check_int_arg("parity_lengths", n) <= MAX_PARITY_LENGTH:
                raise ValueError(
                    f"parity_lengths: every length must be in 1..{MAX_PARITY_LENGTH}, "
                    f"got {self.parity_lengths}"
                )
        # Options that do not apply are refused, not silently ignored.
        if self.samples is not None and not self.sampled_lengths:
            raise ValueError(
                f"samples: no length is sampled (--max-len {self.max_len} <= --exhaustive-up-to "
                f"{self.exhaustive_up_to}: every length is checked exhaustively); drop --samples"
            )
        if self.parity_samples is not None and not self.parity_lengths:
            raise ValueError("parity_samples: the sweep is off (--parity-lengths none)")
        if self.seed is not None and not self.sampled_lengths and not self.parity_lengths:
            raise ValueError("seed: nothing is sampled (every length is exhaustive, no sweep)")

    @property
    def sampled_lengths(self) -> list[int]:
        """:func:`._theory_table.sampled_lengths` of ``max_len`` and ``exhaustive_up_to``."""
        return _theory_table.sampled_lengths(self.max_len, self.exhaustive_up_to)

    @property
    def sample_count(self) -> int:
        """``samples``, or its default."""
        return DEFAULT_SAMPLES if self.samples is None else self.samples

    @property
    def parity_sample_count(self) -> int:
        """``parity_samples``, or its default."""
        return DEFAULT_PARITY_SAMPLES if self.parity_samples is None else self.parity_samples

    @property
    def seed_value(self) -> int:
        """``seed``, or 0."""
        return 0 if self.seed is None else self.seed


def get_config(size: str = "default") -> TableSettings:
    """The table at ``size``: ``"default"`` (the command's defaults) or ``"smoke"`` (every row,
    every string of lengths 1-4, 4 samples at length 16, the sweep at length 16)."""
    if size == "default":
        return TableSettings()
    if size == "smoke":
        return TableSettings(
            max_len=16, exhaustive_up_to=4, samples=4, parity_lengths=(16,), parity_samples=2
        )
    raise ValueError(f"size: expected one of {list(SIZES)}, got {size!r}")


@dataclasses.dataclass(frozen=True)
class Estimate:
    """Peak memory (bytes) and attention-map entries of the two parts of a run (the rows, from
    :func:`._theory_table.row_cost`; PARITY's sweep, from :func:`._theory.precision_cost`);
    ``*_seconds`` at :data:`._theory.ENTRIES_PER_SECOND`."""

    rows_bytes: float
    rows_entries: float
    sweep_bytes: float
    sweep_entries: float

    @property
    def rows_seconds(self) -> float:
        return self.rows_entries / _theory.ENTRIES_PER_SECOND

    @property
    def sweep_seconds(self) -> float:
        return self.sweep_entries / _theory.ENTRIES_PER_SECOND

    @property
    def peak_bytes(self) -> float:
        return max(self.rows_bytes, self.sweep_bytes)

    @property
    def entries(self) -> float:
        return self.rows_entries + self.sweep_entries

    @property
    def seconds(self) -> float:
        return self.rows_seconds + self.sweep_seconds


def estimate(settings: TableSettings) -> Estimate:
    """What :func:`run` with ``settings`` costs. Plain arithmetic, nothing allocated."""
    costs = [
        _theory_table.row_cost(
            name,
            settings.exhaustive_up_to,
            settings.sampled_lengths,
            settings.sample_count,
            k=settings.dyck_k,
            depth=settings.dyck_depth,
        )
        for name in settings.rows
    ]
    sweep_bytes, sweep_entries = _theory.precision_cost(
        settings.parity_lengths, settings.parity_sample_count, settings.parity_precisions
    )
    return Estimate(max(c[0] for c in costs), sum(c[1] for c in costs), sweep_bytes, sweep_entries)


def check_budget(settings: TableSettings) -> str:
    """Refuse (:class:`transformer_theory.budget.BudgetError`, naming the options to lower) a
    run that would not fit in memory or would run past the time budget, from :func:`estimate`;
    return the estimate's summary line."""
    cost = estimate(settings)
    budget.check_memory(
        cost.rows_bytes,
        what=f"checking {settings.sample_count} strings of length "
        f"{max(settings.sampled_lengths, default=0)}",
        option="--max-len/--samples",
    )
    budget.check_memory(
        cost.sweep_bytes,
        what=f"the PARITY sweep ({settings.parity_sample_count} strings of length "
        f"{max(settings.parity_lengths, default=0)})",
        option="--parity-lengths/--parity-samples",
    )
    budget.check_seconds(
        cost.seconds,
        what=f"{cost.entries:.3g} attention-map entries",
        option="--max-len/--samples"
        if cost.rows_seconds >= cost.sweep_seconds
        else "--parity-lengths/--parity-samples",
    )
    return (
        f"estimate: peak {budget.format_bytes(cost.peak_bytes)}, "
        f"{cost.entries:.3g} attention-map entries "
        f"(about {budget.format_seconds(cost.seconds)} of computation, plus compilation)"
    )


def run(
    config: TableSettings,
    out_dir: str | None = None,
    *,
    progress: bool = True,
    on_rows: Callable[[tuple[LanguageRow, ...]], None] | None = None,
) -> LanguagesResult:
    """The table: each row built and checked (:func:`._theory_table.row_record`), then PARITY's
    sweep (:func:`._theory.parity_precision_records`), every finished record written to
    ``out_dir`` as it goes (when given), then the figures. Needs JAX's 64-bit mode.

    Args:
      config: what to check.
      out_dir: an existing directory for the records and figures, or ``None`` for none.
      progress: progress bars (to a terminal).
      on_rows: called with the row records once they are all done, before the sweep (the
        command prints its first table there).

    Returns:
      a :class:`LanguagesResult`: the table's rows, the row records, the sweep records, whether
      a recognizer misclassified a string, and whether Ctrl-C stopped the run.
    """
    precision.require_x64("config")
    records: list[dict] = []
    sweep: list[dict] = []
    interrupted = False
    try:
        for name in _bar(config.rows, "rows", progress):  # build and check each row
            records.append(
                _theory_table.row_record(
                    name,
                    exhaustive_up_to=config.exhaustive_up_to,
                    sampled_lengths=config.sampled_lengths,
                    samples=config.sample_count,
                    seed=config.seed_value,
                    k=config.dyck_k,
                    depth=config.dyck_depth,
                )
            )
            _record(out_dir, f"languages_{name}.json", records[-1])
        _record(out_dir, "languages.json", records)
        if on_rows is not None:
            on_rows(_typed(records))
        for length in _bar(config.parity_lengths, "parity precision", progress):
            sweep += _theory.parity_precision_records(
                [length],
                dtypes=config.parity_precisions,
                samples=config.parity_sample_count,
                seed=config.seed_value,
            )
            _record(out_dir, "parity_precision.json", sweep)
    except KeyboardInterrupt:
        interrupted = True
    _record(out_dir, "languages.json", records)
    _record(out_dir, "parity_precision.json", sweep)
    if out_dir is not None and not interrupted:
        _plots.margins_by_length(records, os.path.join(out_dir, "languages_margin.png"))
        if sweep:
            _plots.parity_precision(sweep, os.path.join(out_dir, "parity_precision.png"))
    rows = _typed(records)
    return LanguagesResult(
        rows=tuple(row_table(rows)),
        records=rows,
        precision=tuple(as_record(ParityPrecisionRow, r) for r in sweep),
        failed=any(r.accuracy < 1.0 for r in rows),
        interrupted=interrupted,
    )


def _typed(records: list[dict]) -> tuple[LanguageRow, ...]:
    return tuple(as_record(LanguageRow, r) for r in records)


@dataclasses.dataclass(frozen=True, kw_only=True)
class LanguageRow:
    """One row of the table (:func:`._theory_table.row_record`; ``languages_<name>.json``): the
    language, the construction and how it attends, where it comes from, the format, the lengths
    and strings checked, accuracy, smallest signed margin and the per-length entries (data whose
    keys depend on the construction)."""

    language: str
    construction: str
    attention: str
    positional: str
    source: str
    dtype: str
    lengths_checked: tuple[int, ...]
    exhaustive_up_to: int
    strings_checked: int
    accuracy: float
    min_margin: float
    by_length: tuple[dict[str, Any], ...]


@dataclasses.dataclass(frozen=True)
class ParityPrecisionRow:
    """One length, format and LayerNorm choice of PARITY's sweep
    (:func:`._theory.parity_precision_records`; ``parity_precision.json``)."""

    n: int
    dtype: str
    layer_norm: bool
    strings: int
    accuracy: float
    min_margin: float
    max_cross_entropy_bits: float
    mean_cross_entropy_bits: float


@dataclasses.dataclass(frozen=True)
class LanguagesResult:
    """What :func:`run` returns.

    Attributes:
      rows: the table's rows (:func:`row_table`).
      records: the row records (``languages.json``), one per construction.
      precision: PARITY's sweep records (``parity_precision.json``).
      failed: a recognizer misclassified a string.
      interrupted: Ctrl-C stopped the run (then the records hold the finished part, written to
        ``out_dir``, and no figure is drawn).
    """

    rows: tuple[dict[str, Any], ...]
    records: tuple[LanguageRow, ...]
    precision: tuple[ParityPrecisionRow, ...]
    failed: bool
    interrupted: bool


def _record(out_dir: str | None, name: str, blob: object) -> None:
    if out_dir is not None:
        write_json(os.path.join(out_dir, name), blob)


def _bar(items, desc: str, progress: bool):
    if not progress:
        return items
    from transformer_theory.progress import tqdm

    return tqdm(items, desc=desc, disable=None)


def row_table(records: Sequence[LanguageRow]) -> list[dict]:
    """The row records as table rows: construction, attention, positional code, strings
    checked, lengths (``min-max``), accuracy (4 decimals), smallest margin, the precision."""
    return [
        {
            "construction": r.construction,
            "attention": r.attention,
            "positional": r.positional,
            "strings": r.strings_checked,
            "lengths": f"{min(r.lengths_checked)}-{max(r.lengths_checked)}"
            if r.lengths_checked
            else "-",
            "accuracy": f"{r.accuracy:.4f}",
            "min margin": r.min_margin,
            "precision": r.dtype,
        }
        for r in records
    ]


def precision_table(records: Sequence[ParityPrecisionRow]) -> list[dict]:
    """PARITY's sweep records as table rows: ``n``, format, LayerNorm (``eps=0`` or ``no``),
    strings, accuracy (4 decimals), smallest margin, largest cross-entropy in bits."""
    return [
        {
            "n": r.n,
            "dtype": r.dtype,
            "LayerNorm": "eps=0" if r.layer_norm else "no",
            "strings": r.strings,
            "accuracy": f"{r.accuracy:.4f}",
            "min margin": r.min_margin,
            "max CE (bits)": f"{r.max_cross_entropy_bits:.6g}",
        }
        for r in records
    ]
