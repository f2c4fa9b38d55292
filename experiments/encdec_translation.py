"""The encoder-decoder of Conti 2024 on the synthetic translation grammar (one head against eight).

A thin entry: ``--size`` -> :func:`transformer_theory.papers.conti2024.experiments.
encdec_translation.get_config` (with ``--steps``, ``--seeds`` and ``--set field=value``) -> its
``run``. The experiment module's docstring gives the command, what it writes, how long it takes
and the result::

    python experiments/encdec_translation.py --size default --out results/encdec_translation

``--smoke`` is ``--size smoke``.
"""

import sys
import time

from transformer_theory.cli._common import add_output, parse_script_args, refuse, script_parser
from transformer_theory.cli._options import override
from transformer_theory.papers.conti2024.experiments import encdec_translation as experiment
from transformer_theory.settings import OptionError


def main(argv=None) -> int:
    parser = script_parser(__doc__.split("\n\n")[0])
    add_output(parser, None, progress=True)
    parser.add_argument("--size", choices=experiment.SIZES, default="default", help="the size")
    parser.add_argument("--smoke", action="store_true", help="the same as --size smoke")
    parser.add_argument("--steps", type=int, default=None, help="training steps per run")
    parser.add_argument("--seeds", nargs="+", default=None, help="seeds (words or a comma list)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    args = parse_script_args(parser, argv)
    if args.out is None:
        refuse(parser, "--out: required; see --help")
    config = experiment.get_config("smoke" if args.smoke else args.size)
    if args.steps is not None:
        if args.steps < 1:
            refuse(parser, f"--steps: expected a positive integer, got {args.steps}")
        config = config.replace(train=config.train.replace(steps=args.steps))
    try:
        if args.seeds is not None:
            config = override(config, ["seeds=" + ",".join(args.seeds)])
        config = override(config, args.set)
    except OptionError as err:
        refuse(parser, err)
    t0 = time.perf_counter()

    def report(run):  # a TranslationRun (the study's typed record)
        kinds = [(k, v) for k, v in run.head_kinds.items() if v]
        kinds += [(f"permuted_{k}", v) for k, v in run.head_kinds_permuted.items() if v]
        print(
            f"{run.run}: greedy exact match {run.greedy_exact_match:.3f}, token accuracy "
            f"{run.greedy_token_accuracy:.3f} on {run.heldout} held-out sentences; heads "
            + ", ".join(f"{k} {v}" for k, v in kinds),
            flush=True,
        )

    result = experiment.run(config, args.out, progress=args.progress, on_result=report)
    print(f"done in {time.perf_counter() - t0:.0f} s")
    for path in result.files:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
