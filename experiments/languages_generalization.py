"""The upper-bound rows of the recognizer table as an experiment: train small transformers on
PARITY and Dyck-1 at short lengths, evaluate at longer ones, beside the constructed recognizers
(:mod:`transformer_theory.constructions.languages`), which do not break.

Trained models use the library's ONE parameter format (``init_params``; two layers of two heads,
an MLP, the same positional code and masking as the construction of the row: PARITY bidirectional
with the Chiang & Cholak 2022 code ``(i/n, (-1)^i)`` and a final LayerNorm, Dyck-1 causal with no
positional code), Adam (Optax) on fresh balanced samples of the training lengths at every step.
Hard attention has no gradient, so leftmost-hard models are trained *soft-then-hard*: the softmax
model's weights are evaluated with ``attention="hard_leftmost"`` (no straight-through estimator).
Accuracy is on balanced samples from :func:`transformer_theory.tasks.languages.sample`.

Command (this machine, 2 CPU cores shared with four other jobs; ``--smoke`` for the test)::

    python experiments/languages_generalization.py --out results/languages_generalization

took 463 s (1500 Adam steps of 64 strings per language, evaluation on 256 balanced strings per
length) and gave accuracy at lengths 8, 16, 32, 64, 128, 256 (trained on 4-16):

- PARITY, trained softmax: 0.85, 0.75, 0.58, 0.52, 0.54, 0.52 (final loss 0.37: it does not even
  fit the training lengths); soft-then-hard: 0.50 everywhere; constructed: 1.00 everywhere.
- Dyck-1, trained softmax: 1.00, 1.00, 0.91, 0.64, 0.64, 0.68 (final loss 1.5e-5: perfect in the
  training range, broken from twice its longest length); soft-then-hard: 0.50 everywhere (one
  class for every string); constructed: 1.00 everywhere.

"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

from transformer_theory.constructions import languages as recognizers
from transformer_theory.core.forward import forward
from transformer_theory.params import ModelConfig, init_params
from transformer_theory.tasks import languages as tasks

TRAIN_LENGTHS = {"parity": (4, 8, 12, 16), "dyck1": (4, 8, 12, 16)}
EVAL_LENGTHS = (8, 16, 32, 64, 128, 256)


def model_config(language: str, attention: str = "softmax", small: bool = False) -> ModelConfig:
    """The trained model of a row: same code and masking as the row's construction (``small``:
    one head, one layer, no MLP -- the smoke test's, which compiles fast)."""
    common = dict(heads=(2, 2), attention=attention, mlp_hidden=32, scale_scores=True)
    if small:
        common.update(heads=(1,), mlp_hidden=None)
    if language == "parity":
        return ModelConfig(
            tasks.VOCAB_SIZE, 2, 16, 2, positional="chiang_cholak", final_norm="layernorm", **common
        )
    return ModelConfig(tasks.VOCAB_SIZE, 2, 16, 2, causal=True, positional="none", **common)


@jax.jit
def _logits(params, inputs_BxN):
    return jax.vmap(lambda t: forward(params, t))(inputs_BxN)


def accuracy(params, language: str, length: int, samples: int, seed: int) -> float:
    strings, labels = tasks.sample(language, length, samples, seed=seed)
    inputs = recognizers.recognizer_inputs(strings)
    chunk = max(1, 2**21 // (length + 1) ** 2)
    preds = np.concatenate(
        [np.argmax(_logits(params, inputs[i : i + chunk]), -1) for i in range(0, samples, chunk)]
    )
    return float(np.mean(preds == labels))


def train(language: str, steps: int, batch: int, seed: int, lengths, small=False) -> tuple:
    """Adam on cross-entropy; each step draws one training length and a fresh balanced batch."""
    params = init_params(jax.random.key(seed), model_config(language, small=small))
    tx = optax.adam(3e-3)
    state = tx.init(params)

    @functools.partial(jax.jit, donate_argnums=(0, 1))
    def step(params, state, inputs, labels):
        def loss_fn(p):
            logits = jax.vmap(lambda t: forward(p, t))(inputs)
            return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    rng = np.random.default_rng(seed)
    losses = []
    for k in range(steps):
        length = int(rng.choice(lengths))
        strings, labels = tasks.sample(language, length, batch, seed=seed * 100_003 + k)
        params, state, loss = step(
            params, state, recognizers.recognizer_inputs(strings), jnp.asarray(labels, jnp.int32)
        )
        losses.append(float(loss))
    return params, losses


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--samples", type=int, default=256, help="evaluation strings per length")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--smoke", action="store_true", help="a few steps on one length (the test)")
    args = p.parse_args(argv)
    if min(args.steps, args.batch, args.samples) < 1:
        p.error("--steps, --batch, --samples: expected positive integers")
    os.makedirs(args.out, exist_ok=True)
    languages, train_lengths, eval_lengths = ("parity", "dyck1"), TRAIN_LENGTHS, EVAL_LENGTHS
    if args.smoke:
        args.steps, args.samples, args.batch = 2, 8, 8
        languages, train_lengths, eval_lengths = ("parity",), {"parity": (4,)}, (4,)
    records, start = [], time.time()
    for language in languages:
        params, losses = train(
            language, args.steps, args.batch, args.seed, train_lengths[language], small=args.smoke
        )
        models = {
            "trained softmax": params,
            "trained leftmost-hard (soft-then-hard)": params.replace(
                config=params.config.replace(attention="hard_leftmost")
            ),
            "constructed": recognizers.build(language, dtype=jnp.float32),
        }
        for name, model in models.items():
            accs = [accuracy(model, language, n, args.samples, args.seed + n) for n in eval_lengths]
            rec = {
                "language": language,
                "model": name,
                "train_lengths": list(train_lengths[language]),
                "eval_lengths": list(eval_lengths),
                "accuracy": accs,
                "final_loss": float(np.mean(losses[-20:])) if "trained" in name else None,
            }
            records.append(rec)
            print(json.dumps(rec))
    with open(os.path.join(args.out, "languages_generalization.json"), "w") as fh:
        json.dump({"records": records, "seconds": time.time() - start}, fh, indent=1)
    _plot(records, args.out)
    print(f"took {time.time() - start:.0f} s")
    return 0


def _plot(records, out) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    languages = sorted({r["language"] for r in records})
    fig, axes = plt.subplots(1, len(languages), figsize=(5 * len(languages), 3.6), squeeze=False)
    for ax, language in zip(axes[0], languages):
        for r in (r for r in records if r["language"] == language):
            ax.plot(r["eval_lengths"], r["accuracy"], marker="o", label=r["model"])
        ax.axvline(max(r["train_lengths"]), color="gray", ls=":", lw=1)
        ax.set(xscale="log", ylim=(0.4, 1.02), xlabel="string length", ylabel="accuracy")
        ax.set_title(f"{language}: trained up to length {max(r['train_lengths'])}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "languages_generalization.png"), dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
