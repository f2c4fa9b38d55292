"""The differential run against tracr (Lindner et al. 2023): tracr's own library programs
compiled by tracr and, translated node by node, by this compiler; both models in float32 and
both interpreters on every input up to each program's length, every position; tracr's failure
lengths with its default constants beside this compiler's model.

Needs tracr (:data:`transformer_theory.rasp._tracr.INSTALL`); the script reads this config and
writes the record that ``docs/rasp.md`` and the ledger row ``rasp.tracr_differential`` quote::

    /tmp/tracr-venv/bin/python experiments/rasp_tracr.py \\
        --out experiments/results/rasp_tracr_differential.json

About 6 minutes on 2 shared cores. The study is
:func:`transformer_theory.rasp._study_tracr_differential.run`.
"""

from __future__ import annotations

import dataclasses

from transformer_theory.settings import check_minimums, setting

__all__ = ["SIZES", "TracrDifferentialSettings", "get_config"]


@dataclasses.dataclass(frozen=True)
class TracrDifferentialSettings:
    """How many inputs the differential run draws.

    Attributes:
      samples: seeded inputs per failure length.
    """

    samples: int = setting(4, positive=True)

    def __post_init__(self) -> None:
        check_minimums(self)


SIZES = ("smoke", "default")


def get_config(size: str = "default") -> TracrDifferentialSettings:
    """4 seeded inputs per failure length (``"default"``, the committed record's), or 1
    (``"smoke"``).

    Raises:
      ValueError: naming ``size`` when it is not one of :data:`SIZES`.
    """
    if size not in SIZES:
        raise ValueError(f"size: expected one of {', '.join(SIZES)}, got {size!r}")
    return TracrDifferentialSettings(samples=1 if size == "smoke" else 4)
