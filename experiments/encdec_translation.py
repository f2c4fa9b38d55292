"""The encoder-decoder of Conti 2024 trained on the synthetic translation grammar: decoding and
heads (one layer with one head against one layer with eight, as in Conti 2024, §3.1).

Command (2 shared CPU cores)::

    python experiments/encdec_translation.py --out results/encdec_translation
    transformer-theory heads results/encdec_translation --out results/encdec_heads

``--smoke`` runs a tiny version (seconds); ``--steps N`` and ``--seeds 0 1`` override the config
(:func:`transformer_theory.experiments.translation.get_config`). Re-running the same command
resumes killed runs from their checkpoints. Writes ``summary.{json,csv}`` (one row per run),
``heads.json`` (one record per head), ``curves.png`` and ``<run>_maps.png`` (Figures 11-12).

Result: RESULT_PLACEHOLDER
"""

import argparse
import sys
import time

from transformer_theory.experiments import translation


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (seconds)")
    parser.add_argument("--steps", type=int, default=None, help="training steps per run")
    parser.add_argument("--seeds", type=int, nargs="+", default=None, help="seeds")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    args = parser.parse_args(argv)
    config = translation.get_config(smoke=args.smoke)
    if args.steps is not None:
        if args.steps < 1:
            parser.error(f"--steps: expected a positive integer, got {args.steps}")
        config = config.replace(train=config.train.replace(steps=args.steps))
    if args.seeds is not None:
        try:
            config = config.replace(seeds=tuple(args.seeds))
        except ValueError as err:
            parser.error(f"--seeds: {err}")
    t0 = time.perf_counter()

    def report(row):
        print(
            f"{row['run']}: greedy exact match {row['greedy_exact_match']:.3f}, token accuracy "
            f"{row['greedy_token_accuracy']:.3f} on {row['heldout']} held-out sentences; heads "
            + ", ".join(f"{k[6:]} {v}" for k, v in row.items() if k.startswith("heads_") and v),
            flush=True,
        )

    _, files = translation.run_translation(
        config, args.out, progress=not args.no_progress, on_result=report
    )
    print(f"done in {time.perf_counter() - t0:.0f} s")
    for path in files:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
