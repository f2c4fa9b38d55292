"""The study of the ``ngram_learnability`` experiment (Svete & Cotterell 2024's follow-up
question: can a small transformer LEARN an n-gram LM?): for each cell of the settings' grid, train,
then measure the KL per symbol of the trained model, the unigram fit and the Theorem 3.1
construction, and record. Its settings are
:class:`.experiments.ngram_learnability.LearnabilitySettings`, read by their fields (this module
imports no experiment and no option); its record is typed (:mod:`._records`).
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any

from transformer_theory.papers.svete_cotterell2024._records import (
    LearnabilityResult,
    LearnabilityRow,
)
from transformer_theory.precision import require_x64

__all__ = ["run"]


def run(config: Any, out_dir: str | None, *, progress: bool = True) -> LearnabilityResult:
    """Every cell of ``config.grid``: train, then the KL per symbol of the trained model, the
    unigram fit and the 3.1 construction. With ``out_dir``, ``ngram_learnability.json`` (``rows``,
    ``seconds``, ``config``) is rewritten after every cell. Needs JAX's 64-bit mode (the KL sums
    run in float64; the trained model stays float32).

    Returns:
      a :class:`~._records.LearnabilityResult`: a :class:`~._records.LearnabilityRow` per cell.
    """
    from transformer_theory.jsonio import write_json
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024._models import train, unigram_fit
    from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM
    from transformer_theory.papers.svete_cotterell2024._theory_soft import kl_first_outcomes

    require_x64("config")
    max_len = config.eval_len + 2
    rows: list[LearnabilityRow] = []
    t0 = time.time()
    result = LearnabilityResult((), 0.0, dataclasses.asdict(config))
    for order, alphabet, rank in config.grid:
        lm = NGramLM.random(config.seed, alphabet, order, rank=rank, scale=config.scale)
        hidden = config.hidden_per_history * (alphabet + 1) ** (order - 1)
        params, loss = train(
            lm,
            max_len,
            config.steps,
            config.batch,
            config.seed,
            hidden,
            learning_rate=config.learning_rate,
            width_extra=config.width_extra,
            progress=f"n={order} |Sigma|={alphabet}" if progress else None,
        )
        kl = kl_first_outcomes(lm, params, config.eval_len)
        uni_lm = cn.build(unigram_fit(lm, max_len), "3.1")
        uni = kl_first_outcomes(lm, uni_lm, config.eval_len)
        exact = kl_first_outcomes(lm, cn.build(lm, "3.1", max_len=max_len), config.eval_len)
        n_sym = config.eval_len + 1
        rows.append(
            LearnabilityRow(
                order=order,
                alphabet=alphabet,
                rank=rank or "full",
                steps=config.steps,
                final_loss=float(loss),
                kl_per_symbol_trained=float(kl / n_sym),
                kl_per_symbol_unigram=float(uni / n_sym),
                kl_per_symbol_construction=float(exact / n_sym),
            )
        )
        result = LearnabilityResult(tuple(rows), time.time() - t0, result.config)
        if out_dir is not None:
            write_json(os.path.join(out_dir, "ngram_learnability.json"), result)
    return result
