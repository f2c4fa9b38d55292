"""The study of ``transformer-theory ngram --space`` (Svete & Cotterell 2024's sizes): every
construction built at each n x ``|Sigma|`` (:mod:`._tasks`, :mod:`._constructions`), its derived
exact lengths (:mod:`._theory_precision`), counted against the closed forms
(:func:`._theory_space.space_record`), recorded and drawn, in that order. Its settings are
:class:`.experiments.ngram_space.SpaceSettings`, read by their fields; its record is typed
(:mod:`._records`). :func:`table_rows` is the command's table.
"""

from __future__ import annotations

import os
from typing import Any

from transformer_theory.jsonio import write_json
from transformer_theory.papers.svete_cotterell2024._records import SpaceRecord, SpaceResult
from transformer_theory.precision import dtype_of, require_x64

__all__ = ["OUTPUTS", "run", "table_rows"]

#: The files :func:`run` writes into its output directory.
OUTPUTS: tuple[str, ...] = ("ngram_space.json", "ngram_space.png")


def run(config: Any, out_dir: str | None = None, *, progress: bool = False) -> SpaceResult:
    """What :func:`._theory_space.space_table` gives over ``config.orders x config.alphabets``
    (every construction), a stage at a time: the random LMs (:class:`._tasks.NGramLM`), then per
    LM the models (:mod:`._constructions`), their derived exact lengths
    (:func:`._theory_precision.predicted_exact_length`) and their records
    (:func:`._theory_space.space_record`); with ``out_dir`` written to ``ngram_space.json`` and
    drawn to ``ngram_space.png`` (:func:`._plots.space_figure`). Needs JAX's 64-bit mode.
    (``progress``: the experiments' common signature; the table has no progress bar.)

    Returns:
      a :class:`~._records.SpaceResult`: the records, and whether every model's counts equal the
      closed forms and stay within the printed heads and layers.
    """
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024 import _plots as plots
    from transformer_theory.papers.svete_cotterell2024 import _theory_precision as precision_scan
    from transformer_theory.papers.svete_cotterell2024 import _theory_space as space
    from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM

    require_x64("config")
    constructions = space.SPACE_CONSTRUCTIONS
    lms = [NGramLM.random(config.seed, S, n) for n in config.orders for S in config.alphabets]
    rows = []
    for lm in lms:
        models = {
            c: cn.build_paper33(lm) if c == "3.3" else cn.build(lm, c, max_len=8)
            for c in constructions
        }
        exact = {
            c: {
                f: None
                if c == "3.3"
                else precision_scan.predicted_exact_length(c, lm.order, dtype_of(f))
                for f in space.FORMATS
            }
            for c in constructions
        }
        rows += [space.space_record(lm, c, models[c], exact[c]) for c in constructions]
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
