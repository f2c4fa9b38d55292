"""The study of ``transformer-theory ngram --space`` (Svete & Cotterell 2024's sizes): every
construction built at each n x ``|Sigma|`` and counted against the closed forms
(:func:`._theory_space.space_table`), recorded and drawn, in that order. Its settings are
:class:`.experiments.ngram_space.SpaceSettings`, read by their fields; its record is typed
(:mod:`._records`). :func:`table_rows` is the command's table.
"""

from __future__ import annotations

import os
from typing import Any

from transformer_theory.jsonio import write_json
from transformer_theory.papers.svete_cotterell2024._records import SpaceRecord, SpaceResult

__all__ = ["OUTPUTS", "run", "table_rows"]

#: The files :func:`run` writes into its output directory.
OUTPUTS: tuple[str, ...] = ("ngram_space.json", "ngram_space.png")


def run(config: Any, out_dir: str | None = None, *, progress: bool = False) -> SpaceResult:
    """:func:`._theory_space.space_table` over ``config.orders x config.alphabets`` (every
    construction), with ``out_dir`` written to ``ngram_space.json`` and drawn to
    ``ngram_space.png`` (:func:`._plots.space_figure`). Needs JAX's 64-bit mode. (``progress``:
    the experiments' common signature; the table has no progress bar.)

    Returns:
      a :class:`~._records.SpaceResult`: the records, and whether every model's counts equal the
      closed forms and stay within the printed heads and layers.
    """
    from transformer_theory.papers.svete_cotterell2024 import _plots as plots
    from transformer_theory.papers.svete_cotterell2024 import _theory_space as space

    rows = space.space_table(config.orders, config.alphabets, seed=config.seed)
    records = tuple(SpaceRecord(**r) for r in rows)
    result = SpaceResult(
        records=records,
        all_match=all(r.matches for r in records),
        within_printed=all(r.within_printed for r in records),
    )
    if out_dir is not None:
        write_json(os.path.join(out_dir, "ngram_space.json"), result)
        plots.space_figure(rows, os.path.join(out_dir, "ngram_space.png"))
    return result


def table_rows(result: SpaceResult) -> list[dict]:
    """The records of :func:`run` as the command's table rows (``exact_to``: the derived exact
    length in float64/float32, ``-`` where none is derived)."""

    def exact(r: SpaceRecord, f: str):
        v = r.exact_to[f]
        return "-" if v is None else v

    return [
        {
            "construction": r.construction,
            "n": r.order,
            "|Sigma|": r.alphabet,
            "width": r.width,
            "layers": r.layers,
            "heads": r.heads,
            "params": r.params,
            "nonzero": r.nonzero_structural,
            "table": r.table,
            "sig_bits": r.significand_bits,
            "exp_bits": r.exponent_bits,
            "exact_f64": exact(r, "float64"),
            "exact_f32": exact(r, "float32"),
            "formula": "=" if r.matches else "DIFFERS",
        }
        for r in result.records
    ]
