"""Copy-first, copy-last and count-ones, trained small and evaluated long, at every precision,
with and without separators (Barbero et al. 2024, §4). Imports only the public library::

    python experiments/collapse_tasks.py --out results/collapse_tasks
    python experiments/collapse_tasks.py --size smoke --out /tmp/smoke   # under a minute

The experiment is defined by
:mod:`transformer_theory.papers.barbero2024.configs.collapse_tasks` (``get_config(size)``; its
docstring gives what the run writes, how long it takes and the result it produced) and run by
:func:`transformer_theory.papers.barbero2024.collapse_tasks.run`; this script parses the options.
``--config collapse_tasks`` and ``--config smoke`` are the older names of the two sizes.
"""

from __future__ import annotations

import argparse
import sys

import jax

# --config NAME (the script's older option) -> the size it names
OLD_NAMES = {"collapse_tasks": "default", "smoke": "smoke"}


def main(argv: list[str] | None = None) -> int:
    from transformer_theory.papers.barbero2024 import collapse_tasks
    from transformer_theory.papers.barbero2024.configs import collapse_tasks as configs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=configs.SIZES, default=None, help="default: default")
    parser.add_argument("--config", choices=sorted(OLD_NAMES), default=None, help="older --size")
    parser.add_argument("--out", default="results/collapse_tasks", help="output directory")
    parser.add_argument("--steps", type=int, default=None, help="override the training steps")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.size is not None and args.config is not None:
        parser.error("--config: give --size or --config, not both")
    size = args.size or OLD_NAMES.get(args.config, "default")
    config = configs.get_config(size)
    if args.steps is not None:
        if args.steps < 1:
            parser.error(f"--steps: expected a positive integer, got {args.steps}")
        config = config.replace(steps=args.steps)
    jax.config.update("jax_enable_x64", True)
    record = collapse_tasks.run(config, args.out, progress=not args.no_progress)
    print("\n".join(collapse_tasks.summary_lines(record)))
    print(f"{record['seconds']} s; {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
