"""Function composition against Peng, Narayanan & Papadimitriou 2024, Theorem 1, at a controlled
precision: one-layer and two-layer transformers (``H`` heads, embedding ``d``) whose weights and
activations are fake-quantized to ``p`` bits while they train and when they are evaluated
(symmetric uniform rounding, max-abs scale, straight-through estimator:
:func:`transformer_theory.papers.sanford2023.networks.fake_quantize`), or kept in float32 (``p = 32``), trained
with Adam (Optax) on ``g(f(a))`` prompts. The plot puts the held-out error against the bound
``R / (3 n log n)``, ``R = n log n - H (d + 1) p``: a one-layer point must lie on or above the
diagonal; the two-layer model is not covered by the bound.

Unlike ``composition_one_layer.py`` (the library's one-hot parameter format, whose residual width
is ``vocabulary + positions + d``), the model here has a true embedding of width ``d``, so the
``d`` of the bound is the width of everything one position sends.

Command (this machine, 2 shared CPU cores; ``--smoke`` runs a few steps for the test)::

    python experiments/composition_depth.py --out results/composition_depth

Measured (n = 16, H = 1, 2000 Adam steps, 2000 held-out prompts, chance error 15/16 = 0.9375;
the run was stopped after 29 of its 32 models, 35 min on 2 shared cores: the two-layer d = 16 at
p = 4, 8, 32 are missing). Held-out error (bound in brackets):

- one layer, d = 2: p = 2, 4, 8, 32: 0.939 (0.302), 0.933 (0.271), 0.910 (0.208), 0.903 (0);
- one layer, d = 4: 0.943 (0.281), 0.913 (0.229), 0.889 (0.125), 0.889 (0);
- one layer, d = 8: 0.938 (0.240), 0.868 (0.146), 0.848 (0), 0.852 (0);
- one layer, d = 16: 0.938 (0.156), 0.843 (0), 0.827 (0), 0.824 (0);
- two layers, d = 2: 0.938, 0.918, 0.895, 0.893; d = 4: 0.938, 0.896, 0.902, 0.903;
  d = 8: 0.932, 0.874, 0.854, 0.860; d = 16, p = 2: 0.938.

No model at this budget learns the task (errors 0.82-0.94; p = 2 at chance at every width), and
the two layers do no better, so this run shows neither the depth separation nor anything about
the bound: a run that never learns says nothing about the best error a model of that size can
reach, and an error above a lower bound is what any model gives (the bound is 0, i.e. void, once
``H (d + 1) p >= n log n = 64``, which is every p = 32 cell). What was measured is only that
these training runs did not learn composition at n = 16 in 2,000 steps. A test of the bound needs
n large enough that ``R > 0`` with room and models trained to convergence; that was not run.
"""

from __future__ import annotations

import argparse
import os
import sys

from transformer_theory.cli._common import UsageError, positive_int, prepare_out_dir
from transformer_theory.papers.sanford2023 import separations as sep


def _positive_list(text):
    """argparse type: a comma list of positive integers (``2,4,8``)."""
    return [positive_int(t) for t in text.split(",")]


def plot(records, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    markers = {2: "v", 4: "s", 8: "D", 32: "o"}
    for layers, color in ((1, "C0"), (2, "C3")):
        for p, marker in markers.items():
            rows = [r for r in records if r["layers"] == layers and r["p"] == p]
            if rows:
                ax.scatter(
                    [r["bound"] for r in rows],
                    [r["error"] for r in rows],
                    c=color,
                    marker=marker,
                    label=f"{layers} layer(s), p = {p}",
                )
    top = max(r["chance_error"] for r in records)
    ax.plot([0, top], [0, top], "k--", lw=0.8, label="error = bound")
    ax.axhline(top, c="gray", ls="-.", lw=0.8, label="chance")
    r0 = records[0]
    ax.set(
        xlabel="Peng et al. bound R / (3 n log n)",
        ylabel="held-out error",
        title=f"g(f(a)), n = {r0['n']}, H = {r0['heads']}, d = {sorted({r['d'] for r in records})}",
    )
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--smoke", action="store_true", help="tiny sizes and a few steps (tests)")
    p.add_argument("--n", type=positive_int, default=16, help="domain size n (default 16)")
    p.add_argument("--heads", type=positive_int, default=1, help="H (default 1)")
    p.add_argument("--widths", type=_positive_list, default=[2, 4, 8, 16], help="embeddings d")
    p.add_argument(
        "--bits", type=_positive_list, default=[2, 4, 8, 32], help="p (32 = float32, no rounding)"
    )
    p.add_argument("--layers", type=_positive_list, default=[1, 2], help="depths")
    p.add_argument("--steps", type=positive_int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    try:
        if any(b < 2 for b in args.bits):
            raise UsageError(f"--bits: expected every p >= 2, got {args.bits}")
        if args.n < 2:
            raise UsageError(f"--n: expected a domain size >= 2 (log n > 0), got {args.n}")
        out = prepare_out_dir(args.out)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    n, steps = (4, 2) if args.smoke else (args.n, args.steps)
    held_out = 200 if args.smoke else 2000
    bits = [None if b == 32 else b for b in args.bits]
    runs = [(layers, d, b) for layers in args.layers for d in args.widths for b in bits]
    if args.smoke:
        runs = [(1, 2, 4)]  # the quantized path; depth 2 only repeats the block
    records = sep.run_and_save(
        runs,
        lambda layers, d, b: sep.composition_trained_record(
            n, layers, args.heads, d, b, steps=steps, seed=args.seed, held_out=held_out
        ),
        out,
        desc="composition models",
        progress=not args.smoke,
    )
    plot(records, os.path.join(out, "composition_depth.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
