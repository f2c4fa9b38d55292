"""Function composition (Peng, Narayanan & Papadimitriou 2024, Theorem 1): train one-layer and
two-layer softmax transformers (``H`` heads, width ``d``) on ``g(f(a))`` prompts and compare the
held-out error, evaluated in float32 and bfloat16, with the bound ``R / (3 n log n)``, ``R = n log n
- H (d + 1) p`` (``p`` = the format's bits: 32 / 16). The bound covers one layer only.

Models are the library's ONE parameter format (one-hot tokens plus one-hot positions, classifier
at the last position, ``forward``); Adam (Optax) on fresh prompts each step.

Command (this machine, 2 shared CPU cores; ``--smoke`` for the test)::

    python experiments/composition_one_layer.py --out results/composition

Result (partial: the run was stopped after 198 s, when the one-layer widths 1 and 4 were done, to
free the shared cores; widths 16 and the two-layer models were not measured): n = 16, H = 1,
800 steps, chance error 0.9375. d = 1: error 0.8125 in float32 (bound 0: R <= 0) and 0.812 in
bfloat16 (bound 0.167); d = 4: 0.811 / 0.8105 (bounds 0 / 0). The measured errors lie far above
the lower bound, which is void (R <= 0) for every realistic format once d >= 4 at this n.
"""

from __future__ import annotations

import argparse
import os
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

from transformer_theory.core.forward import forward
from transformer_theory.jsonio import dumps_json, write_json
from transformer_theory.papers.peng2024 import tasks as comp
from transformer_theory.params import ModelConfig, init_params

FORMATS = {"float32": 32, "bfloat16": 16}


def train_one(n, depth, width, heads, steps, batch, seed):
    vocab = comp.composition_vocab(n)
    seq_len = 4 * n + 2
    cfg = ModelConfig(
        vocab_size=vocab,
        seq_len=seq_len,
        width=vocab + seq_len + width,
        num_classes=vocab,
        heads=(heads,) * depth,
        attention="softmax",
        qk_dim=width,
        scale_scores=True,
        mlp_hidden=4 * width,
    )
    params = init_params(jax.random.key(seed), cfg)
    opt = optax.adam(3e-3)
    state = opt.init(params)

    def loss_fn(p, x_BxN, y_B):
        logits = jax.vmap(lambda t: forward(p, t))(x_BxN)
        return optax.softmax_cross_entropy_with_integer_labels(logits, y_B).mean()

    @jax.jit
    def step(p, s, x_BxN, y_B):
        loss, grads = jax.value_and_grad(loss_fn)(p, x_BxN, y_B)
        updates, s = opt.update(grads, s, p)
        return optax.apply_updates(p, updates), s, loss

    for t in range(steps):
        x, y = comp.composition_sample(seed * 100_000 + t, batch, n)
        params, state, _ = step(params, state, jnp.asarray(x), jnp.asarray(y))
    x, y = comp.composition_sample(10**9 + seed, 2000, n)
    records = []
    for name, bits in FORMATS.items():
        pred = _predict(jax.tree.map(lambda a, dt=name: a.astype(dt), params), x)
        records.append(
            {
                "n": n,
                "layers": depth,
                "heads": heads,
                "d": width,
                "format": name,
                "p": bits,
                "error": float(np.mean(pred != y)),
                "bound": comp.peng_error_bound(n, heads, width, bits),
                "chance_error": 1 - 1 / n,
            }
        )
    return records


def _predict(params, x_BxN):
    logits = jax.vmap(lambda t: forward(params, t))(jnp.asarray(x_BxN))
    return np.asarray(jnp.argmax(logits, -1))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--smoke", action="store_true", help="tiny sizes and a few steps (tests)")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    n = 4 if args.smoke else 16
    steps = 2 if args.smoke else 800
    widths = [2] if args.smoke else [1, 4, 16]
    records, start = [], time.time()
    for depth in (1, 2):
        for width in widths:
            for rec in train_one(n, depth, width, 1, steps, 128, seed=0):
                records.append(rec)
                print(dumps_json(rec), f"[{time.time() - start:.0f} s]", flush=True)
    write_json(os.path.join(args.out, "records.json"), records)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for depth in (1, 2):
        for name in FORMATS:
            rows = [r for r in records if r["layers"] == depth and r["format"] == name]
            ax.plot(
                [r["d"] for r in rows],
                [r["error"] for r in rows],
                "o-",
                label=f"{depth} layer(s), {name}",
            )
    for name in FORMATS:
        rows = [r for r in records if r["layers"] == 1 and r["format"] == name]
        ax.plot(
            [r["d"] for r in rows],
            [r["bound"] for r in rows],
            "k--",
            alpha=0.5,
            label=f"Peng et al. bound, p = {FORMATS[name]}",
        )
    ax.set(
        xscale="log", xlabel="width d (H = 1)", ylabel="held-out error", title=f"g(f(a)), n = {n}"
    )
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "composition.png"), dpi=120)


if __name__ == "__main__":
    main()
