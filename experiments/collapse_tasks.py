"""Copy-first, copy-last and count-ones, trained small and evaluated long, at every precision,
with and without separators (Barbero et al. 2024, §4). Imports only the public library::

    python experiments/collapse_tasks.py --out results/collapse_tasks
    python experiments/collapse_tasks.py --size smoke --out /tmp/smoke   # under a minute
    python experiments/collapse_tasks.py --set steps=300 --set eval_max_len=512 --out /tmp/short

The experiment (its settings, ``get_config(size)``, what the run writes, how long it takes and
the result it produced) is
:mod:`transformer_theory.papers.barbero2024.experiments.collapse_tasks`, the same as
``transformer-theory experiment collapse_tasks``; ``--set field=value`` changes one of its
fields. ``--config collapse_tasks`` and ``--config smoke`` are the older names of the two sizes.
"""

from __future__ import annotations

import sys

from transformer_theory.cli._common import add_output, parse_script_args, refuse, script_parser
from transformer_theory.cli._options import override
from transformer_theory.papers.barbero2024.experiments import collapse_tasks
from transformer_theory.precision import enable_x64
from transformer_theory.settings import OptionError

# --config NAME (the script's older option) -> the size it names
OLD_NAMES = {"collapse_tasks": "default", "smoke": "smoke"}


def main(argv: list[str] | None = None) -> int:
    parser = script_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=collapse_tasks.SIZES, default=None, help="default")
    parser.add_argument("--config", choices=sorted(OLD_NAMES), default=None, help="older --size")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    add_output(parser, "results/collapse_tasks", progress=True)
    args = parse_script_args(parser, argv)
    if args.size is not None and args.config is not None:
        refuse(parser, "--config: give --size or --config, not both")
    size = args.size or OLD_NAMES.get(args.config, "default")
    try:
        config = override(collapse_tasks.get_config(size), args.set)
    except OptionError as err:
        refuse(parser, err)
    enable_x64()
    record = collapse_tasks.run(config, args.out, progress=args.progress)
    print("\n".join(collapse_tasks.summary_lines(record)))
    print(f"{record.seconds} s; {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
