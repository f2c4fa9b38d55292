"""Recipes for the 3-layer contextual generalization model at §9.1's size (Chen & Zou 2024).

The experiment (the variants, their settings, ``get_config(size)`` and what they measured) is
:mod:`transformer_theory.papers.chen_zou2024.experiments.contextual_depth3_recipes`, the same as
``transformer-theory experiment contextual_depth3_recipes``; this script reads its config (the
settings' fields are its options, ``VARIANT`` the first; ``--size smoke`` / ``--smoke`` one
evaluation)::

    python experiments/contextual_depth3_recipes.py cosine --seed 0 --steps 8000

Prints each evaluation as it comes and writes ``<variant>_seed<seed>.jsonl`` under ``--out``.
"""

import dataclasses
import sys

from transformer_theory.cli.scripts import script_settings
from transformer_theory.papers import study_of
from transformer_theory.papers.chen_zou2024.experiments import (
    contextual_depth3_recipes as experiment,
)


def main(argv=None) -> int:
    config, output = script_settings(
        argv,
        experiment.get_config,
        experiment.SIZES,
        description=__doc__.split("\n\n")[0],
        out="results/contextual_depth3_recipes",
    )

    def show(row):
        print(config.variant, f"seed {config.seed}", dataclasses.asdict(row), flush=True)

    result = study_of(experiment).run(config, output.out, on_eval=show)
    print(f"wrote {result.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
