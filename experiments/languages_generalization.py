"""The upper-bound rows of Strobl et al. 2024's table (Hahn 2020) as an experiment: train small
transformers on PARITY and Dyck-1 at short lengths, WITH the attention of the row, and evaluate
them at longer ones beside the constructed recognizers
(:mod:`transformer_theory.papers.formal_languages.constructions`).

What is trained (:mod:`transformer_theory.papers.formal_languages.hard_training`; two layers of two heads, an MLP
of 32, the same positional code and masking as the construction of the row; Adam on fresh balanced
samples of lengths 4-16 at every step):

- ``softmax``: a softmax transformer;
- ``leftmost-hard (straight-through)``: a leftmost-hard transformer, trained with the
  straight-through estimator -- the forward pass IS leftmost-hard attention, the backward pass
  uses the softmax gradient of the same scores; evaluated with ``attention="hard_leftmost"``;
- ``average-hard (straight-through)`` (Dyck-1 only, whose construction is average-hard): the same
  with average-hard attention;
- ``softmax weights read with leftmost-hard (soft-then-hard)``: the softmax model's weights
  evaluated with leftmost-hard attention, a model nobody trained, kept for comparison only;
- ``constructed``: the recognizer built by hand (PARITY: Chiang & Cholak 2022, softmax; Dyck-1:
  average-hard after Yao et al. 2021).

What this shows and does not: Hahn 2020 proves that for every leftmost-hard transformer, PARITY and
Dyck-1 are misrecognized at SOME length (an asymptotic statement about every parameter setting).
A trained model that fails at length 64 is one parameter setting found by one optimizer in a few
hundred steps; it neither confirms the theorem (the failure may be the optimizer's) nor could a
success refute it (the theorem allows any finite range of lengths to be right). The experiment
shows what these training runs reach, by length, next to constructions that do not break.

Command (the default; 2-core CPU shared with seven other jobs; ``--smoke`` for the test)::

    python experiments/languages_generalization.py --out results/languages_generalization

The numbers it gave are in README.md ("The upper-bound rows, as an experiment").
"""

from __future__ import annotations

import argparse
import os
import time

import jax.numpy as jnp
import numpy as np

from transformer_theory.jsonio import dumps_json, write_json
from transformer_theory.papers.formal_languages import constructions as recognizers
from transformer_theory.papers.formal_languages import hard_training

TRAIN_LENGTHS = (4, 8, 12, 16)
EVAL_LENGTHS = (8, 16, 32, 64, 128, 256)
# Training modes per language: leftmost-hard is Hahn's row; average-hard is Dyck-1's construction.
MODES = {
    "parity": ("softmax", "straight_through_leftmost"),
    "dyck1": ("softmax", "straight_through_leftmost", "straight_through_average"),
}
LABELS = {
    "softmax": "softmax (trained)",
    "straight_through_leftmost": "leftmost-hard (trained, straight-through)",
    "straight_through_average": "average-hard (trained, straight-through)",
}
SOFT_THEN_HARD = "softmax weights read with leftmost-hard (soft-then-hard, not trained)"


def _seeds(text: str) -> list[int]:
    try:
        seeds = [int(x) for x in text.split(",")]
    except ValueError:
        msg = f"expected a comma list of integers, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if not seeds or min(seeds) < 0:
        raise argparse.ArgumentTypeError(f"expected non-negative seeds, got {text!r}")
    return seeds


def main(argv=None) -> int:
    from transformer_theory.cli._common import positive_int

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=positive_int, default=300)
    p.add_argument("--batch", type=positive_int, default=32)
    p.add_argument("--samples", type=positive_int, default=128, help="evaluation strings/length")
    p.add_argument("--seeds", type=_seeds, default=[0], help="comma list of training seeds")
    p.add_argument("--smoke", action="store_true", help="a few steps on one length (the test)")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    modes, train_lengths, eval_lengths = MODES, TRAIN_LENGTHS, EVAL_LENGTHS
    if args.smoke:
        args.steps, args.samples, args.batch, args.seeds = 2, 8, 8, [0]
        # One training (the straight-through loop has its own smoke test in tests/languages).
        modes = {"parity": ("softmax",)}
        train_lengths, eval_lengths = (4,), (4,)
    records, start = [], time.time()

    def evaluate(language, name, model, seed, losses):
        accs = [
            hard_training.accuracy(model, language, n, args.samples, 1000 + n) for n in eval_lengths
        ]
        rec = {
            "language": language,
            "model": name,
            "seed": seed,
            "train_lengths": list(train_lengths),
            "eval_lengths": list(eval_lengths),
            "accuracy": accs,
            "final_loss": None if losses is None else float(np.mean(losses[-20:])),
            "steps": None if losses is None else len(losses),
        }
        records.append(rec)
        print(dumps_json(rec), flush=True)

    for language, language_modes in modes.items():
        for seed in args.seeds:
            for mode in language_modes:
                params, losses = hard_training.train(
                    language,
                    mode,
                    steps=args.steps,
                    batch=args.batch,
                    seed=seed,
                    lengths=train_lengths,
                    small=args.smoke,
                )
                model = hard_training.deployed(params, mode)
                evaluate(language, LABELS[mode], model, seed, losses)
                if mode == "softmax":
                    hard = hard_training.deployed(params, "straight_through_leftmost")
                    evaluate(language, SOFT_THEN_HARD, hard, seed, None)
        evaluate(
            language, "constructed", recognizers.build(language, dtype=jnp.float32), None, None
        )
    seconds = time.time() - start
    settings = {k: v for k, v in vars(args).items() if k != "out"}
    write_json(
        os.path.join(args.out, "languages_generalization.json"),
        {"records": records, "seconds": seconds, "settings": settings},
    )
    _plot(records, args.out)
    print(f"took {seconds:.0f} s")
    return 0


def _plot(records, out) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    languages = sorted({r["language"] for r in records})
    fig, axes = plt.subplots(1, len(languages), figsize=(6 * len(languages), 4), squeeze=False)
    for ax, language in zip(axes[0], languages):
        rows = [r for r in records if r["language"] == language]
        for name in dict.fromkeys(r["model"] for r in rows):
            accs = np.array([r["accuracy"] for r in rows if r["model"] == name])
            ax.plot(rows[0]["eval_lengths"], accs.mean(0), marker="o", label=f"{name}")
        ax.axvline(max(rows[0]["train_lengths"]), color="gray", ls=":", lw=1)
        ax.set(xscale="log", ylim=(0.4, 1.02), xlabel="string length", ylabel="accuracy")
        ax.set_title(f"{language}: trained on lengths up to {max(rows[0]['train_lengths'])}")
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "languages_generalization.png"), dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
