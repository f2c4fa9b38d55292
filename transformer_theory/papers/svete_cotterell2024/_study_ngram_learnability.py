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
    """Every cell of ``config.grid``, a stage at a time: the n-gram LM, its training samples and
    its answers on every string up to ``eval_len + 2`` (:mod:`._tasks`); the trained model and
    the unigram fit (:mod:`._models`); the Theorem 3.1 construction of the LM and of the unigram
    fit (:mod:`._constructions`), and every model's log-probabilities
    (:mod:`._constructions_run`); the KL per symbol of
    each (:func:`._theory_soft.kl_of`); the row. With ``out_dir``, ``ngram_learnability.json``
    (``rows``, ``seconds``, ``config``) is rewritten after every cell. Needs JAX's 64-bit mode
    (the KL sums run in float64; the trained model stays float32).

    Returns:
      a :class:`~._records.LearnabilityResult`: a :class:`~._records.LearnabilityRow` per cell.
    """
    from transformer_theory.jsonio import write_json
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024 import _constructions_run as running
    from transformer_theory.papers.svete_cotterell2024 import _models as models
    from transformer_theory.papers.svete_cotterell2024 import _tasks as tasks
    from transformer_theory.papers.svete_cotterell2024._theory_soft import kl_of

    require_x64("config")
    max_len = config.eval_len + 2
    rows: list[LearnabilityRow] = []
    t0 = time.time()
    result = LearnabilityResult((), 0.0, dataclasses.asdict(config))
    for order, alphabet, rank in config.grid:
        # the LM, its samples, its answers (every string up to max_len)
        lm = tasks.NGramLM.random(config.seed, alphabet, order, rank=rank, scale=config.scale)
        batches = tasks.lm_batches(lm, config.seed, config.batch, max_len)
        ref = tasks.reference(lm, max_len, exhaustive_limit=None)
        ids = [lm.string_history_ids(s) for s in ref.strings]
        # the trained model and the unigram fit
        hidden = config.hidden_per_history * (alphabet + 1) ** (order - 1)
        model_config = models.model_config(alphabet, order, max_len, config.width_extra, hidden)
        params, loss = models.train(
            model_config,
            batches,
            config.steps,
            config.seed,
            learning_rate=config.learning_rate,
            progress=f"n={order} |Sigma|={alphabet}" if progress else None,
        )
        uni_lm = models.unigram_of(lm, ref, ids)
        # the constructions (the unigram fit's at the default length), every model's log q
        compared = {
            "trained": params,
            "unigram": cn.build(uni_lm, "3.1"),
            "construction": cn.build(lm, "3.1", max_len=max_len),
        }
        strings = ref.strings[: config.eval_len + 2]
        log_q = {
            name: [running.transformer_log_probs(p, s) for s in strings]
            for name, p in compared.items()
        }
        kl = {name: kl_of(ref.log_probs, got, config.eval_len) for name, got in log_q.items()}
        n_sym = config.eval_len + 1
        rows.append(
            LearnabilityRow(
                order=order,
                alphabet=alphabet,
                rank=rank or "full",
                steps=config.steps,
                final_loss=float(loss),
                kl_per_symbol_trained=float(kl["trained"] / n_sym),
                kl_per_symbol_unigram=float(kl["unigram"] / n_sym),
                kl_per_symbol_construction=float(kl["construction"] / n_sym),
            )
        )
        result = LearnabilityResult(tuple(rows), time.time() - t0, result.config)
        if out_dir is not None:
            write_json(os.path.join(out_dir, "ngram_learnability.json"), result)
    return result
