"""The qSA separation, trained (Sanford, Hsu & Telgarsky 2023): one softmax attention unit, a
fully connected ReLU network (3 weight layers) and a GRU, trained with Adam (Optax) on q-sparse
averaging; held-out error against width (query/key width m, hidden width, GRU state) and against
parameter count, with the theorems' thresholds drawn on the same plot.

Command (this machine, 2 shared CPU cores; ``--smoke`` runs a few steps for the test)::

    python experiments/sanford_qsa_separation.py --out results/sanford_qsa

took 10 min 31 s (N = 16, q = 1, d' = 1, 3000 Adam steps of 256 fresh inputs, 2000 held-out
inputs; the cores shared with other jobs) and gave the held-out mean over inputs of ``max_i
||f(X)_i - qSA(X)_i||`` (outputting 0 scores 0.907; eps = 1/(2q) = 0.5), with the fraction of
inputs within eps and the parameter count:

- attention, m = 1, 2, 4, 8, 16: 0.906, 0.587, 0.025, 0.013, 0.007 (within eps: 0.01, 0.40, 1.0,
  1.0, 1.0; 99 to 1,089 parameters);
- FNN (3 weight layers), width 4, 16, 64, 256, 1024: 0.923, 0.936, 0.943, 0.782, 0.364 (within
  eps at width 1024: 0.92; 2,216 to 1,607,696 parameters);
- GRU, state 2, 4, 8, 16, 32, 64: 0.931, 0.927, 0.922, 0.906, 0.824, 0.220 (within eps at 64:
  0.9985; 219 to 18,881 parameters).

What this does and does not test: the widths here are float32 widths, and two of the three
bounds count BITS. The attention bound is ``m p >= q`` (query width times precision), met by
m = 1 in float32 (32 bits >= q = 1); the RNN bound is ``(N - 1)/2`` bits of memory, met by a
float32 GRU of state 2 (64 bits). So no cell here is below those two thresholds and "nothing
succeeds below its threshold" would be empty for them; ``experiments/sanford_qsa_bits.py``
quantizes the query and the state and sweeps width x precision across the thresholds. Only the
FNN bound counts width (``N d'/2 = 8``); FNN widths 4 fails, as it must, and so do 16-256, which
the bound allows: training needs far more. Attention reaches eps at m = 4 (m = 1 fails: a
1-dimensional score cannot single out an arbitrary key), the FNN needs width ~1024 (1.6 M
parameters against 297 for attention), the GRU a state of ~64 floats. Matched at ~1,000
parameters attention is at 0.013, the GRU (1,017) at 0.922, the FNN cannot even be built that
small.
"""

from __future__ import annotations

import argparse
import os
import sys

from transformer_theory.cli._common import UsageError, positive_int, prepare_out_dir
from transformer_theory.papers.sanford2023 import separations as sep

WIDTHS = {
    "attention": [1, 2, 4, 8, 16],
    "fnn": [4, 16, 64, 256, 1024],
    "rnn": [2, 4, 8, 16, 32, 64],
}
LEARNING_RATES = {"attention": 3e-3, "fnn": 1e-3, "rnn": 3e-3}


def plot(records, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for i, model in enumerate(sep.QSA_MODELS):
        rows = [r for r in records if r["model"] == model]
        if not rows:
            continue
        color = f"C{i}"
        left.plot([r["width"] for r in rows], [r["mean_max_error"] for r in rows], "o-", c=color)
        right.plot([r["params"] for r in rows], [r["mean_max_error"] for r in rows], "o-", c=color)
        label = {"attention": "attention, m", "fnn": "FNN, width", "rnn": "GRU, state"}[model]
        left.plot([], [], "o-", c=color, label=label)
        bound = rows[0]["threshold"]
        if bound is not None:
            left.axvline(bound, c=color, ls=":", label=f"bound: {bound:g}")
    r0 = records[0]
    for ax in (left, right):
        ax.axhline(r0["epsilon"], c="k", ls="--", lw=0.8)
        ax.axhline(r0["zero_error"], c="gray", ls="-.", lw=0.8)
        ax.set_xscale("log")
    left.text(1, r0["epsilon"], " eps = 1/(2q)", va="bottom", fontsize=7)
    left.text(1, r0["zero_error"], " output 0", va="bottom", fontsize=7)
    left.set(xlabel="width / embedding dimension", ylabel="held-out mean of max_i error")
    right.set(xlabel="trainable parameters")
    left.legend(fontsize=7)
    fig.suptitle(f"qSA, N = {r0['N']}, q = {r0['q']}, d' = {r0['d_prime']}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--smoke", action="store_true", help="tiny sizes and a few steps (tests)")
    p.add_argument("--seq-len", type=positive_int, default=16, help="N (default 16)")
    p.add_argument("--q", type=positive_int, default=1, help="subset size q (default 1)")
    p.add_argument("--dim", type=positive_int, default=1, help="d' (default 1)")
    p.add_argument("--steps", type=positive_int, default=3000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    try:
        if args.q > args.seq_len:
            raise UsageError(f"--q: expected q <= N = {args.seq_len}, got {args.q}")
        out = prepare_out_dir(args.out)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    n, q, dim, steps = (4, 1, 1, 2) if args.smoke else (args.seq_len, args.q, args.dim, args.steps)
    widths = {m: [2] for m in WIDTHS} if args.smoke else WIDTHS
    runs = [(m, w) for m in sep.QSA_MODELS for w in widths[m]]
    held_out = 200 if args.smoke else 2000
    records = sep.run_and_save(
        runs,
        lambda model, width: sep.qsa_trained_record(
            model,
            n,
            q,
            dim,
            width,
            steps=steps,
            learning_rate=LEARNING_RATES[model],
            seed=args.seed,
            held_out=held_out,
        ),
        out,
        desc="qSA models",
        progress=not args.smoke,
    )
    plot(records, os.path.join(out, "qsa_separation.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
