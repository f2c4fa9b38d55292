"""Training one softmax layer on Match2 and Match3 (the tasks of Sanford, Hsu & Telgarsky 2023):
one-layer transformers of growing query/key width on Match2 and on Match3 (same N, M), and a
two-layer one on Match3Bigram for contrast; held-out accuracy (per position) against the width.

This is a TRAINABILITY result, not a test of the Match3 impossibility theorem. The theorem (no
one-layer unit when ``m <= c N / (p H log log N)``, for sufficiently large N) says nothing here:
at N = 8, p = 32, H = 2 the right side is ``c * 8 / (64 * log log 8) = 0.17 c`` (natural logs;
0.08 c in base 2), below 1 unless the theorem's unspecified constant ``c`` exceeds 5.8. And one
layer of this residual width (``M + 16 >= M = 64``) can represent Match3: uniform attention over
one-hot tokens writes the token histogram into every position, and ``Match3(X)_i`` is a fixed
function of (``x_i``, histogram) on a finite set, which a wide enough ReLU MLP computes (the
models here have 64 hidden units; whether that is enough is not shown). Two layers of width 3
represent Match3Bigram exactly
(:func:`transformer_theory.papers.sanford2023.constructions.match3bigram_construction`). So a model at the
majority baseline shows that Adam did not find a solution at this budget, nothing more.

Models are the library's ONE parameter format (``init_params``; one-hot tokens, no positions, as
the tasks are permutation-invariant, an MLP after attention) read out at EVERY position through
``w_o`` applied to the last residual stream; Adam (Optax) on fresh balanced samples each step.

Command (this machine, 2 shared CPU cores; ``--smoke`` runs a few steps for the test)::

    python experiments/sanford_match_width.py --out results/sanford_match_width

took 2 min 46 s (N = 8, M = 64, 2 heads, widths 1, 4, 16, 1500 Adam steps of 128 sequences) and
gave held-out per-position accuracy (majority baseline in brackets): Match2, one layer: 0.9987,
0.9998, 1.0000 (0.569); Match3, one layer: 0.645, 0.648, 0.648 (0.650) -- the majority answer at
every width; Match3Bigram, two layers: 0.664, 0.665, 0.666 (0.594) -- above the baseline but far
from the exact depth-2 construction, which training did not find in this budget (representable,
not learned: a trainability result).

The larger sweep (1 and 4 heads, widths up to 64; 16 models)::

    python experiments/sanford_match_width.py --out results/match_width_large \
        --tasks match2,match3 --heads 1,4 --widths 1,4,16,64

took 11 min 29 s (cores shared with three other jobs) and gave, at m = 1, 4, 16, 64: Match2, 1
head: 0.9988, 0.9993, 1.0000, 1.0000; 4 heads: 0.9970, 1.0000, 1.0000, 1.0000 (baseline 0.569).
Match3, 1 head: 0.639, 0.637, 0.635, 0.649; 4 heads: 0.645, 0.657, 0.656, 0.662 (baseline 0.650;
sequence accuracy 0.046 at 4 heads, m = 64): four times the heads and 64 times the width move
Match3 by at most 1.2 points above the majority answer, while Match2 is exact from m = 4. Match3
is not learned by one trained layer here; that it cannot be represented is NOT shown.
"""

from __future__ import annotations

import argparse
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
import optax

from transformer_theory.cli._common import UsageError, name_list, positive_int, prepare_out_dir
from transformer_theory.core.forward import forward_trace
from transformer_theory.papers.sanford2023 import tasks as ts
from transformer_theory.papers.sanford2023.separations import run_and_save
from transformer_theory.params import ModelConfig, init_params

DEPTHS = {"match2": 1, "match3": 1, "match3bigram": 2}  # one layer each, two for the bigram


def per_position_logits(params, tokens_N):
    """``w_o`` applied to every position of the last residual stream: ``(N, C)``."""
    return forward_trace(params, tokens_N).streams_LxNxD[-1] @ params.w_o.T


def train_one(task, seq_len, modulus, depth, qk_dim, heads, steps, batch, seed):
    cfg = ModelConfig(
        vocab_size=modulus,
        seq_len=seq_len,
        width=modulus + 16,
        num_classes=2,
        heads=(heads,) * depth,
        attention="softmax",
        positional="none",
        qk_dim=qk_dim,
        scale_scores=True,
        mlp_hidden=64,
    )
    params = init_params(jax.random.key(seed), cfg)
    opt = optax.adam(3e-3)
    state = opt.init(params)

    def loss_fn(p, x_BxN, y_BxN):
        logits = jax.vmap(lambda t: per_position_logits(p, t))(x_BxN)
        return optax.softmax_cross_entropy_with_integer_labels(logits, y_BxN).mean()

    @jax.jit
    def step(p, s, x_BxN, y_BxN):
        loss, grads = jax.value_and_grad(loss_fn)(p, x_BxN, y_BxN)
        updates, s = opt.update(grads, s, p)
        return optax.apply_updates(p, updates), s, loss

    for t in range(steps):
        x, y = ts.match_sample(task, seed * 100_000 + t, batch, seq_len, modulus)
        params, state, loss = step(params, state, jnp.asarray(x), jnp.asarray(y, jnp.int32))
    x, y = ts.match_sample(task, 10**9 + seed, 2000, seq_len, modulus)
    logits = jax.jit(jax.vmap(lambda t: per_position_logits(params, t)))(jnp.asarray(x))
    pred = np.asarray(jnp.argmax(logits, -1))
    return {
        "task": task,
        "N": seq_len,
        "M": modulus,
        "depth": depth,
        "heads": heads,
        "qk_dim": qk_dim,
        "steps": steps,
        "final_loss": float(loss),
        "accuracy": float(np.mean(pred == y)),
        "sequence_accuracy": float(np.mean(np.all(pred == y, axis=1))),
        "positive_rate": float(y.mean()),
        "majority_baseline": float(max(y.mean(), 1 - y.mean())),
    }


def _positive_list(text):
    """argparse type: a comma list of positive integers (``1,4,16``)."""
    return [positive_int(t) for t in text.split(",")]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--smoke", action="store_true", help="tiny sizes and a few steps (tests)")
    p.add_argument("--widths", type=_positive_list, default=[1, 4, 16], help="query/key widths m")
    p.add_argument("--heads", type=_positive_list, default=[2], help="heads per layer")
    p.add_argument("--tasks", default="match2,match3,match3bigram", help="comma list of tasks")
    p.add_argument("--steps", type=positive_int, default=1500)
    args = p.parse_args(argv)
    try:
        tasks = name_list(args.tasks, DEPTHS, "--tasks")
        out = prepare_out_dir(args.out)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    n, m = (6, 16) if args.smoke else (8, 64)
    steps = 2 if args.smoke else args.steps
    widths, heads = ([2], [2]) if args.smoke else (args.widths, args.heads)
    runs = [(task, DEPTHS[task], h, w) for task in tasks for h in heads for w in widths]
    records = run_and_save(
        runs,
        lambda task, depth, h, width: train_one(task, n, m, depth, width, h, steps, 128, seed=0),
        out,
        desc="Match models",
        progress=not args.smoke,
    )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for task in tasks:
        for h in heads:
            rows = [r for r in records if r["task"] == task and r["heads"] == h]
            ax.plot(
                [r["qk_dim"] for r in rows],
                [r["accuracy"] for r in rows],
                "o-",
                label=f"{task}, {DEPTHS[task]} layer(s), {h} head(s)",
            )
    ax.set(
        xscale="log",
        xlabel="query/key width m",
        ylabel="held-out accuracy",
        title=f"N = {n}, M = {m}",
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "match_width.png"), dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
