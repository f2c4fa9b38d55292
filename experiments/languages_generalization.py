"""Hahn 2020's rows (Strobl et al. 2024) as an experiment: trained models beside the constructions.

A thin entry: the experiment (its settings, sizes, the command's result, the run) is
:mod:`transformer_theory.papers.formal_languages.experiments.languages_generalization`. Command::

    python experiments/languages_generalization.py --out results/languages_generalization

``--size smoke`` (or ``--smoke``) runs the smoke size; ``--steps``, ``--batch``, ``--samples`` and
``--seeds`` (options made from the settings' fields) and ``--set field=value`` override the size's
values.
"""

from __future__ import annotations

import dataclasses
import sys

from jsonargparse import ArgumentError

from transformer_theory.cli._options import CommandParser, add_settings, one_line, override
from transformer_theory.papers.formal_languages.experiments import (
    languages_generalization as experiment,
)
from transformer_theory.papers.formal_languages.experiments.languages_generalization import (
    GeneralizationSettings,
)
from transformer_theory.settings import OptionError
from transformer_theory.tables import table

LABELS, SOFT_THEN_HARD = experiment.LABELS, experiment.SOFT_THEN_HARD
OVERRIDES = ("steps", "batch", "samples", "seeds")

__all__ = ["LABELS", "SOFT_THEN_HARD", "main"]


def main(argv: list[str] | None = None) -> int:
    p = CommandParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--size", choices=experiment.SIZES, default="default")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (the test)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    fields = [f.name for f in dataclasses.fields(GeneralizationSettings)]
    skip = [f for f in fields if f not in OVERRIDES]
    add_settings(p, GeneralizationSettings, skip=skip, defaults=dict.fromkeys(OVERRIDES))
    try:
        args = p.parse_args(argv)
    except ArgumentError as err:
        print(f"error: {one_line(p, err)}", file=sys.stderr)
        return 2
    config = experiment.get_config("smoke" if args.smoke else args.size)
    given = {n: getattr(args, n) for n in OVERRIDES if getattr(args, n) is not None}
    try:
        config = override(dataclasses.replace(config, **given), args.set)
    except (OptionError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    result = experiment.run(config, args.out)
    print(table(experiment.table(result["records"])))
    print(f"took {result['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
