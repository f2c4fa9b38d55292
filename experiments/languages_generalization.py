"""Hahn 2020's rows (Strobl et al. 2024) as an experiment: trained models beside the constructions.

PARITY, Dyck-1 and Dyck-(2, 3) models trained at short lengths, with softmax and with leftmost-hard
attention (straight-through, and an annealed-softmax curriculum ending straight-through),
evaluated at longer ones beside the constructed recognizers.

A thin entry: the config is
:mod:`transformer_theory.papers.formal_languages.configs.languages_generalization` (its docstring
gives the command, the time and the result), the run
:func:`transformer_theory.papers.formal_languages.generalization.run`. Command::

    python experiments/languages_generalization.py --out results/languages_generalization

``--size smoke`` (or ``--smoke``) runs the smoke size; ``--steps``, ``--batch``, ``--samples`` and
``--seeds`` override the size's values.
"""

from __future__ import annotations

import argparse
import dataclasses

from transformer_theory.cli._common import comma_list, format_table, positive_int
from transformer_theory.papers.formal_languages import generalization
from transformer_theory.papers.formal_languages.configs import languages_generalization as configs
from transformer_theory.papers.formal_languages.generalization import LABELS, SOFT_THEN_HARD

__all__ = ["LABELS", "SOFT_THEN_HARD", "main"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--size", choices=configs.SIZES, default="default")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (the test)")
    p.add_argument("--steps", type=positive_int, help="training steps (default: the size's)")
    p.add_argument("--batch", type=positive_int, help="strings per step (default: the size's)")
    p.add_argument("--samples", type=positive_int, help="evaluation strings per length")
    p.add_argument("--seeds", type=comma_list(int, minimum=0), help="comma list of training seeds")
    args = p.parse_args(argv)
    config = configs.get_config("smoke" if args.smoke else args.size)
    overrides = {
        name: getattr(args, name)
        for name in ("steps", "batch", "samples")
        if getattr(args, name) is not None
    }
    if args.seeds is not None:
        overrides["seeds"] = tuple(args.seeds)
    config = dataclasses.replace(config, **overrides)
    result = generalization.run(config, args.out)
    print(format_table(generalization.table(result["records"])))
    print(f"took {result['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
