"""Every row of Strobl et al. 2024's formal-language table that the library builds, checked:
MAJORITY, PARITY (with and without Chiang & Cholak's LayerNorm), Dyck-1, Dyck-(k, D) (hard and
softmax), SHUFFLE-DYCK-1/2/3 and the counter languages BoolExp-3, ``a^n b^n``, ``a^n b^n c^n``
-- each recognizer on every short string and on samples beyond, in float64 -- and PARITY's
margin and cross-entropy against ``n`` in float32 and float64.

The settings (:class:`TableSettings`, one field per option of ``transformer-theory languages``)
and the sizes (:func:`get_config`); the study that builds, checks, records and plots is
:mod:`.._study_languages` (its ``run``, found by :func:`transformer_theory.papers.study_of`).
Command::

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

from transformer_theory import _validate, precision
from transformer_theory.papers.formal_languages import _theory_table
from transformer_theory.settings import check_minimums, setting

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = ["MAX_EXHAUSTIVE", "MAX_PARITY_LENGTH", "SIZES", "TableSettings", "get_config"]

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
