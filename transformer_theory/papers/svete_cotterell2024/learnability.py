"""Can a small transformer LEARN an n-gram LM? (the follow-up question of the lecture slides:
Svete et al. 2024 study learnability against ``n``, ``|Sigma|`` and the rank of the LM's
representation.) The trained experiment of :mod:`.configs.ngram_learnability`.

For random n-gram LMs (:meth:`.tasks.NGramLM.random`: Dirichlet rows, or logits of rank ``r``
through a softmax), train a one-layer causal transformer LM with ``n - 1`` softmax heads, the
Svete & Cotterell positional code and an MLP (Flax NNX, Optax Adam through
:func:`transformer_theory.train.fit`, cross-entropy on fresh samples of the LM, EOS included) and
measure the KL divergence from the true LM over the first ``L + 1`` outcomes
(:func:`.soft.kl_first_outcomes`, exhaustive) per symbol, beside the hard-attention
construction of Theorem 3.1 (exact: the reference point) and the unigram fit (what a model that
ignores the history reaches).

- :class:`LearnabilityConfig`: the grid and the training budget.
- :func:`model_config`, :func:`train`, :func:`unigram_fit`: one model, one fit, one baseline.
- :func:`run`: every cell of the grid, ``ngram_learnability.json`` rewritten after each.
"""

from __future__ import annotations

import dataclasses
import os
import time

import numpy as np

from transformer_theory.papers.svete_cotterell2024.tasks import NGramLM
from transformer_theory.params import ModelConfig, ModelParams

__all__ = ["LearnabilityConfig", "model_config", "run", "train", "unigram_fit"]


@dataclasses.dataclass(frozen=True)
class LearnabilityConfig:
    """The learnability grid.

    Attributes:
      size: the name :func:`.configs.ngram_learnability.get_config` gave it.
      grid: ``(order, alphabet, rank)`` cells; ``rank`` None for Dirichlet rows.
      steps: Adam steps per model.
      batch: sampled strings per step.
      eval_len: the KL is over the first ``eval_len + 1`` outcomes; strings are sampled up to
        ``eval_len + 2`` symbols.
      learning_rate: Adam's step size.
      width_extra: residual width beyond ``V + 2 (n - 1)``.
      hidden_per_history: MLP units per ``V^(n-1)``.
      scale: the logit scale of the low-rank LMs.
      seed: seed of the LMs, the initialization and the samples.
    """

    size: str = "default"
    grid: tuple[tuple[int, int, int | None], ...] = tuple(
        (order, alphabet, rank) for order in (2, 3) for alphabet in (2, 4) for rank in (None, 1)
    )
    steps: int = 600
    batch: int = 64
    eval_len: int = 6
    learning_rate: float = 3e-3
    width_extra: int = 16
    hidden_per_history: int = 4
    scale: float = 3.0
    seed: int = 0


def model_config(
    alphabet: int, order: int, max_len: int, width_extra: int, hidden: int
) -> ModelConfig:
    """A one-layer causal LM with ``n - 1`` softmax heads and the ``"svete"`` code, read like the
    constructions (``BOS^{n-1} y``, ``bos_pad = n - 1``), ``V + 2 (n - 1) + width_extra`` wide."""
    w = order - 1
    V = alphabet + 1
    return ModelConfig(
        vocab_size=V,
        seq_len=max_len + w,
        width=V + 2 * w + width_extra,
        num_classes=V,
        heads=(w,),
        attention="softmax",
        causal=True,
        head_mean=False,
        positional="svete",
        positional_window=w,
        mlp_hidden=hidden,
        causal_lm=True,
        bos_pad=w,
    )


def train(
    lm: NGramLM,
    max_len: int,
    steps: int,
    batch: int,
    seed: int,
    hidden: int,
    *,
    learning_rate: float = 3e-3,
    width_extra: int = 16,
    progress: str | None = None,
) -> tuple[ModelParams, float]:
    """Adam on the cross-entropy of ``batch`` fresh samples of ``lm`` per step (sample seed
    ``seed * 100003 + step``), strings cut at ``max_len``; returns the trained parameters and the
    last step's loss (before its update)."""
    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

    from transformer_theory.core.forward import forward_all
    from transformer_theory.nn.transformer import Transformer, to_params
    from transformer_theory.papers.svete_cotterell2024.tasks import lm_batch
    from transformer_theory.train.fit import fit

    cfg = model_config(lm.alphabet_size, lm.order, max_len, width_extra, hidden)
    model = Transformer(cfg, rngs=nnx.Rngs(seed))

    def loss_fn(module, inputs, targets, weights):
        params = to_params(module)
        logits = jax.vmap(lambda x: forward_all(params, x))(inputs)
        ce = optax.softmax_cross_entropy_with_integer_labels(logits, targets)
        return jnp.sum(ce * weights) / jnp.sum(weights)

    def batch_at(step):
        strings, lengths = lm.sample(seed * 100_003 + step, batch, max_len)
        return lm_batch(strings, lengths, cfg.bos_pad, lm.bos, lm.eos)

    result = fit(
        model,
        loss_fn,
        batch_at,
        optimizer=optax.adam(learning_rate),
        steps=steps,
        log_every=steps,
        progress=progress,
    )
    return to_params(result.params), result.final_loss


def unigram_fit(lm: NGramLM, max_len: int) -> NGramLM:
    """The best history-free model of ``lm``'s symbols (its expected next-symbol distribution
    under the LM's own history frequencies, up to ``max_len``), as an n-gram table."""
    probs = np.exp(lm.log_probs_AxC)
    counts = np.zeros(lm.alphabet_size + 1)
    for length in range(max_len + 1):
        strings = lm.strings_of_length(length)
        weight = np.exp(lm.log_prob(strings))
        ids = lm.string_history_ids(strings)
        counts += (weight[:, None, None] * probs[ids]).sum(axis=(0, 1))
    row = counts / counts.sum()
    table = np.tile(np.log(row), (len(probs), 1))
    return NGramLM(lm.alphabet_size, lm.order, table)


def run(config: LearnabilityConfig, out_dir: str | None, *, progress: bool = True) -> dict:
    """Every cell of ``config.grid``: train, then the KL per symbol of the trained model, the
    unigram fit and the 3.1 construction. With ``out_dir``, ``ngram_learnability.json`` (``rows``,
    ``seconds``, ``config``) is rewritten after every cell. Sets ``jax_enable_x64`` (the KL sums
    run in float64; the trained model stays float32).

    Returns:
      ``{"rows": [...], "seconds": ..., "config": ...}``: one row per cell with ``order``,
      ``alphabet``, ``rank`` (``"full"`` for Dirichlet rows), ``steps``, ``final_loss`` and
      ``kl_per_symbol_{trained,unigram,construction}``.
    """
    import jax

    from transformer_theory.jsonio import write_json
    from transformer_theory.papers.svete_cotterell2024 import constructions as cn
    from transformer_theory.papers.svete_cotterell2024.soft import kl_first_outcomes

    jax.config.update("jax_enable_x64", True)
    max_len = config.eval_len + 2
    rows: list[dict] = []
    t0 = time.time()
    result: dict = {"rows": rows, "seconds": 0.0, "config": dataclasses.asdict(config)}
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
            {
                "order": order,
                "alphabet": alphabet,
                "rank": rank or "full",
                "steps": config.steps,
                "final_loss": loss,
                "kl_per_symbol_trained": kl / n_sym,
                "kl_per_symbol_unigram": uni / n_sym,
                "kl_per_symbol_construction": exact / n_sym,
            }
        )
        result["seconds"] = time.time() - t0
        if out_dir is not None:
            write_json(os.path.join(out_dir, "ngram_learnability.json"), result)
    return result
