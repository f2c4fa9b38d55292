"""This compiler beside tracr (Lindner et al. 2023) on tracr's own library programs, one row
each: layers, residual width and parameters of both compiled models (at ``size``); this
compiler's exact length in float32 by enumeration (the model compiled for ``enumerate`` checked
on every input of every length up to it, every node at every position) and by certificate
(:func:`transformer_theory.rasp.certified_length`, lengths up to ``certify``); tracr's exact
length in float32 at its default constants (``mlp_exactness=100``) and at
``mlp_exactness=1000``: its model compiled for ``tracr_len``, ``samples`` seeded inputs of each
length ``1..`` against its own interpreter, the last length before the first wrong position.

Needs tracr (:data:`transformer_theory.rasp._tracr.INSTALL`); the script reads this config::

    /tmp/tracr-venv/bin/python experiments/rasp_table.py --out experiments/results/rasp_table.json

The study, :func:`transformer_theory.rasp._study_tracr_table.run`, measures one program at a
time and writes the whole record (valid JSON, the programs not yet measured named) after each
row, resuming from the rows of a record measured with the same settings; its
:func:`~transformer_theory.rasp._study_tracr_table.markdown` is ``docs/rasp.md``'s table.
"""

from __future__ import annotations

import dataclasses

from transformer_theory.settings import check_minimums, setting

__all__ = ["SIZES", "TracrTableSettings", "get_config"]


@dataclasses.dataclass(frozen=True)
class TracrTableSettings:
    """What the table beside tracr measures.

    Attributes:
      size: max_seq_len of the size columns.
      enumerate: max_seq_len enumerated.
      certify: longest length certified.
      tracr_len: tracr's max_seq_len.
      samples: seeded inputs per length (tracr).
      only: measure only these programs (several words or a comma list), again.
    """

    size: int = setting(5, positive=True)
    enumerate: int = setting(5, positive=True)  # noqa: A003 - the option's word
    certify: int = setting(32, positive=True)
    tracr_len: int = setting(16, positive=True)
    samples: int = setting(8, positive=True)
    only: tuple[str, ...] | None = setting(None, words=True)

    def __post_init__(self) -> None:
        check_minimums(self)

    def measured(self) -> dict[str, int]:
        """The settings a row was measured with (the record's ``settings``; ``only`` picks rows,
        it measures nothing differently)."""
        return {
            "size": self.size,
            "enumerate": self.enumerate,
            "certify": self.certify,
            "tracr_len": self.tracr_len,
            "samples": self.samples,
        }


SIZES = ("smoke", "default")


def get_config(size: str = "default") -> TracrTableSettings:
    """The table of ``docs/rasp.md`` (``"default"``: sizes at 5, every input up to 5, certified
    up to 32, tracr compiled for 16 on 8 inputs of each length), or one program, ``length``, at
    lengths 3 / 3 / 8 / 4 with 2 inputs per length (``"smoke"``).

    Raises:
      ValueError: naming ``size`` when it is not one of :data:`SIZES`.
    """
    if size not in SIZES:
        raise ValueError(f"size: expected one of {', '.join(SIZES)}, got {size!r}")
    if size == "smoke":
        return TracrTableSettings(
            size=3, enumerate=3, certify=8, tracr_len=4, samples=2, only=("length",)
        )
    return TracrTableSettings()
