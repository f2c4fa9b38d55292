"""Copy-first, copy-last and count-ones, trained small and evaluated long, at every precision,
with and without separators (Barbero et al. 2024, §4). Imports only the public library::

    python experiments/collapse_tasks.py --config collapse_tasks --out results/collapse_tasks
    python experiments/collapse_tasks.py --config smoke --out /tmp/smoke   # seconds

Writes ``<config>.json`` (per task and separator setting: training log, and per precision the
accuracy, the distance between the confusable pair's final representations, whether they are
bit-identical, and the first length where both inputs get one prediction) and ``<config>.png``
(accuracy against length beside those lengths). The configs are
:data:`transformer_theory.papers.barbero2024.collapse_tasks.CONFIGS`.

Result: not yet measured at the ``collapse_tasks`` size (1,500 Adam steps per task, evaluation to
length 2,048 at three precisions: longer than the 2-core machine could spare in the session that
wrote it; the smoke config runs in the tests and in notebook 07). Run the command above and record
the numbers here.

A reduced run, measured 2026-11-22 on 2 shared CPU cores in 295 s: the ``collapse_tasks`` config
with ``tasks=("copy_first", "copy_last"), steps=300, eval_max_len=512, eval_points=8,
collapse_pattern=None`` (``CONFIGS["collapse_tasks"].replace(...)`` passed to ``run``). Every run
reaches training accuracy 1.00 (lengths 2-16) in every precision; accuracy at the evaluated lengths
2, 4, 10, 22, 48, 105, 232, 512: copy-first 1.0 up to 22 and 0.5 (chance) from 48; copy-last
1.0 up to 48 and chance from 105; separators every 3 tokens change neither (bfloat16 copy-last
with separators drops to chance already at 48). The pair never became bit-identical up to 512 in
any precision: these small models fail by not generalizing in length (RoPE, trained to 16) long
before representational collapse could be the cause, so at this size the separators' predicted
effect on the collapse length cannot be seen in accuracy.
"""

from __future__ import annotations

import argparse
import sys

import jax


def main(argv=None) -> int:
    from transformer_theory.papers.barbero2024 import collapse_tasks

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
