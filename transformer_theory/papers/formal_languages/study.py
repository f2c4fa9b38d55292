"""The formal-language table as a study: settings in, records out (what ``transformer-theory
languages`` runs, callable from Python).

- :class:`TableSettings`: which recognizers, which lengths exhaustively and on samples, PARITY's
  precision sweep.
- :func:`estimate`: peak memory and attention-map entries of a run, from the settings alone
  (nothing allocated), for a caller to refuse what would not fit.
- :func:`check_rows`: one record per recognizer (:func:`.checks.recognizer_record`), in float64.
- :func:`parity_sweep`: PARITY with and without Chiang & Cholak's LayerNorm against ``n``, in
  each float format (:func:`.checks.parity_precision_records`).
- :func:`run`: both, writing every finished record as it goes (``languages_<row>.json``,
  ``languages.json``, ``parity_precision.json``) and, at the end, the two figures of
  :mod:`.plots`; Ctrl-C returns what was finished, written.
- :func:`row_table`, :func:`precision_table`: the records as table rows for
  :func:`transformer_theory.cli._common.format_table`.

float64 is one of the formats compared: the caller enables ``jax_enable_x64`` before any array is
made (:func:`run` and the command do).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

from transformer_theory import _validate, precision
from transformer_theory.jsonio import write_json
from transformer_theory.papers.formal_languages import checks
from transformer_theory.papers.formal_languages.constructions import RECOGNIZERS

__all__ = [
    "MAX_EXHAUSTIVE",
    "MAX_PARITY_LENGTH",
    "Estimate",
    "TableSettings",
    "check_rows",
    "estimate",
    "parity_sweep",
    "precision_table",
    "row_table",
    "run",
    "sampled_lengths",
    "save",
]

MAX_EXHAUSTIVE = 16  # 2^16 strings of one length: the most the exhaustive check enumerates
MAX_PARITY_LENGTH = 8192  # 5 n^2 float64 entries per string: 2.7 GB at this length


def sampled_lengths(max_len: int, exhaustive_up_to: int) -> list[int]:
    """The lengths checked on samples: powers of 2 from 16 below ``max_len``, then ``max_len``,
    those above ``exhaustive_up_to`` (the rest are checked on every string)."""
    lengths, n = [], 16
    while n < max_len:
        lengths.append(n)
        n *= 2
    lengths.append(max_len)
    return [n for n in lengths if n > exhaustive_up_to]


@dataclasses.dataclass(frozen=True)
class TableSettings:
    """What one run of the table checks.

    Attributes:
      rows: recognizers of :data:`~.constructions.RECOGNIZERS`, in order.
      max_len: the longest sampled length (:func:`sampled_lengths`).
      exhaustive_up_to: every string of lengths ``1..exhaustive_up_to`` is checked (at most
        :data:`MAX_EXHAUSTIVE`).
      samples: balanced strings per sampled length.
      parity_lengths: string lengths of PARITY's precision sweep (``()``: no sweep), each at most
        :data:`MAX_PARITY_LENGTH`.
      parity_samples: strings per sweep length.
      parity_precisions: the float formats of the sweep (names of
        :data:`transformer_theory.precision.FORMATS`).
      seed: seed of the sampled strings (length ``n`` uses ``seed + n``).
    """

    rows: tuple[str, ...] = RECOGNIZERS
    max_len: int = 256
    exhaustive_up_to: int = 10
    samples: int = 64
    parity_lengths: tuple[int, ...] = (64, 256, 1024, 2048)
    parity_samples: int = 8
    parity_precisions: tuple[str, ...] = ("float32", "float64")
    seed: int = 0

    def __post_init__(self) -> None:
        for name in self.rows:
            _validate.check_choice("rows", name, RECOGNIZERS)
        for name in self.parity_precisions:
            _validate.check_choice("parity_precisions", name, precision.FORMATS)
        for name in ("max_len", "exhaustive_up_to", "samples", "parity_samples"):
            _validate.check_int_arg(name, getattr(self, name))
        _validate.check_int_arg("seed", self.seed, minimum=0)
        if self.exhaustive_up_to > MAX_EXHAUSTIVE:
            raise ValueError(
                f"exhaustive_up_to: at most {MAX_EXHAUSTIVE} (2^L strings per length), "
                f"got {self.exhaustive_up_to}"
            )
        for n in self.parity_lengths:
            _validate.check_int_arg("parity_lengths", n)
        if any(n > MAX_PARITY_LENGTH for n in self.parity_lengths):
            raise ValueError(
                f"parity_lengths: every length must be in 1..{MAX_PARITY_LENGTH}, "
                f"got {self.parity_lengths}"
            )

    @property
    def sampled_lengths(self) -> list[int]:
        """:func:`sampled_lengths` of ``max_len`` and ``exhaustive_up_to``."""
        return sampled_lengths(self.max_len, self.exhaustive_up_to)


@dataclasses.dataclass(frozen=True)
class Estimate:
    """Peak memory (bytes) and attention-map entries of the two parts of a run, from
    :func:`.checks.record_cost` and :func:`.checks.precision_cost`; ``*_seconds`` at
    :data:`.checks.ENTRIES_PER_SECOND`."""

    rows_bytes: float
    rows_entries: float
    sweep_bytes: float
    sweep_entries: float

    @property
    def rows_seconds(self) -> float:
        return self.rows_entries / checks.ENTRIES_PER_SECOND

    @property
    def sweep_seconds(self) -> float:
        return self.sweep_entries / checks.ENTRIES_PER_SECOND

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
    """What :func:`run` with ``settings`` costs (every recognizer row costs the same; the sweep
    in the formats of ``settings.parity_precisions``). Plain arithmetic, nothing allocated."""
    rows_bytes, per_row = checks.record_cost(
        settings.exhaustive_up_to, settings.sampled_lengths, settings.samples
    )
    sweep_bytes, sweep_entries = checks.precision_cost(
        settings.parity_lengths, settings.parity_samples, settings.parity_precisions
    )
    return Estimate(rows_bytes, len(settings.rows) * per_row, sweep_bytes, sweep_entries)


def _bar(items, desc: str, unit: str, progress: bool):
    if not progress:
        return items
    from transformer_theory.progress import tqdm

    return tqdm(items, desc=desc, unit=unit, disable=None)


def check_rows(
    settings: TableSettings,
    *,
    out_dir: str | None = None,
    records: list[dict] | None = None,
    progress: bool = False,
) -> list[dict]:
    """One :func:`.checks.recognizer_record` (float64) per row of ``settings``, appended to
    ``records`` as each finishes (pass a list to keep the finished rows after a Ctrl-C); with
    ``out_dir`` each is written to ``languages_<row>.json`` at once. Returns ``records``."""
    records = [] if records is None else records
    for name in _bar(settings.rows, "recognizers", "row", progress):
        rec = checks.recognizer_record(
            name,
            exhaustive_up_to=settings.exhaustive_up_to,
            sampled_lengths=settings.sampled_lengths,
            samples=settings.samples,
            seed=settings.seed,
        )
        records.append(rec)
        if out_dir is not None:
            write_json(os.path.join(out_dir, f"languages_{name}.json"), rec)
    return records


def parity_sweep(
    settings: TableSettings,
    *,
    out_dir: str | None = None,
    records: list[dict] | None = None,
    progress: bool = False,
) -> list[dict]:
    """PARITY's precision sweep (:func:`.checks.parity_precision_records`) one length at a time,
    appended to ``records``; with ``out_dir``, ``parity_precision.json`` is rewritten after each
    length. Returns ``records``."""
    records = [] if records is None else records
    for length in _bar(settings.parity_lengths, "parity precision", "length", progress):
        records += checks.parity_precision_records(
            [length],
            dtypes=settings.parity_precisions,
            samples=settings.parity_samples,
            seed=settings.seed,
        )
        if out_dir is not None:
            write_json(os.path.join(out_dir, "parity_precision.json"), records)
    return records


def save(out_dir: str, records: list[dict], sweep: list[dict]) -> None:
    """Write ``languages.json`` (every recognizer record) and ``parity_precision.json``."""
    write_json(os.path.join(out_dir, "languages.json"), records)
    write_json(os.path.join(out_dir, "parity_precision.json"), sweep)


def run(
    settings: TableSettings,
    out_dir: str | None = None,
    *,
    progress: bool = False,
    on_rows: Callable[[list[dict]], None] | None = None,
) -> dict:
    """The table: :func:`check_rows`, then :func:`parity_sweep`, every finished record written
    to ``out_dir`` as it goes (when given), then the figures ``languages_margin.png`` and
    ``parity_precision.png`` (:mod:`.plots`).

    Args:
      settings: what to check.
      out_dir: an existing directory for the records and figures, or ``None`` for none.
      progress: progress bars (to a terminal).
      on_rows: called with the recognizer records once they are all done, before the sweep (the
        command prints its first table there).

    Returns:
      ``{"records", "precision", "failed", "interrupted"}``: the recognizer records, the sweep
      records, whether a recognizer misclassified a string, and whether Ctrl-C stopped the run
      (then the records hold the finished part, written to ``out_dir``, and no figure is drawn).
    """
    import jax

    jax.config.update("jax_enable_x64", True)  # float64 is one of the formats compared
    records: list[dict] = []
    sweep: list[dict] = []
    interrupted = False
    try:
        check_rows(settings, out_dir=out_dir, records=records, progress=progress)
        if out_dir is not None:
            save(out_dir, records, sweep)
        if on_rows is not None:
            on_rows(records)
        parity_sweep(settings, out_dir=out_dir, records=sweep, progress=progress)
    except KeyboardInterrupt:
        interrupted = True
    if out_dir is not None:
        save(out_dir, records, sweep)
        if not interrupted:
            from transformer_theory.papers.formal_languages import plots

            plots.margins_by_length(records, os.path.join(out_dir, "languages_margin.png"))
            if sweep:
                plots.parity_precision(sweep, os.path.join(out_dir, "parity_precision.png"))
    return {
        "records": records,
        "precision": sweep,
        "failed": any(r["accuracy"] < 1.0 for r in records),
        "interrupted": interrupted,
    }


def row_table(records: list[dict]) -> list[dict]:
    """The recognizer records as table rows: construction, attention, positional code, strings
    checked, lengths (``min-max``), accuracy (4 decimals), smallest margin."""
    rows = []
    for r in records:
        lengths = r["lengths_checked"]
        rows.append(
            {
                "construction": r["construction"],
                "attention": r["attention"],
                "positional": r["positional"],
                "strings": r["strings_checked"],
                "lengths": f"{min(lengths)}-{max(lengths)}" if lengths else "-",
                "accuracy": f"{r['accuracy']:.4f}",
                "min margin": r["min_margin"],
            }
        )
    return rows


def precision_table(records: list[dict]) -> list[dict]:
    """PARITY's sweep records as table rows: ``n``, format, LayerNorm (``eps=0`` or ``no``),
    strings, accuracy (4 decimals), smallest margin, largest cross-entropy in bits."""
    return [
        {
            "n": r["n"],
            "dtype": r["dtype"],
            "LayerNorm": "eps=0" if r["layer_norm"] else "no",
            "strings": r["strings"],
            "accuracy": f"{r['accuracy']:.4f}",
            "min margin": r["min_margin"],
            "max CE (bits)": f"{r['max_cross_entropy_bits']:.6g}",
        }
        for r in records
    ]
