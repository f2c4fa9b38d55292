"""Copy-first, copy-last and count-ones, trained small and evaluated long, at every precision,
with and without separators (Barbero et al. 2024, §4). Imports only the public library::

    python experiments/collapse_tasks.py --config collapse_tasks --out results/collapse_tasks
    python experiments/collapse_tasks.py --config smoke --out /tmp/smoke   # seconds

Writes ``<config>.json`` (per task and separator setting: training log, and per precision the
accuracy, the distance between the confusable pair's final representations, whether they are
bit-identical, and the first length where both inputs get one prediction) and ``<config>.png``
(accuracy against length beside those lengths). The configs are
:data:`transformer_theory.experiments.collapse_tasks.CONFIGS`.

Result: not yet measured at the ``collapse_tasks`` size (1,500 Adam steps per task, evaluation to
length 2,048 at three precisions: longer than the 2-core machine could spare in the session that
wrote it; the smoke config runs in the tests and in notebook 07). Run the command above and record
the numbers here.
"""

from __future__ import annotations

import argparse
import sys

import jax


def main(argv=None) -> int:
    from transformer_theory.experiments import collapse_tasks

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = ", ".join(collapse_tasks.CONFIGS)
    parser.add_argument("--config", default="collapse_tasks", help=names)
    parser.add_argument("--out", default="results/collapse_tasks", help="output directory")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.config not in collapse_tasks.CONFIGS:
        parser.error(f"--config: choose from {', '.join(collapse_tasks.CONFIGS)}")
    jax.config.update("jax_enable_x64", True)
    record = collapse_tasks.run(
        collapse_tasks.CONFIGS[args.config], args.out, progress=not args.no_progress
    )
    print("\n".join(collapse_tasks.summary_lines(record)))
    print(f"{record['seconds']} s; {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
