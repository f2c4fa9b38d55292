"""Hahn 2020's rows (Strobl et al. 2024) as an experiment: trained models beside the constructions.

A thin entry: the experiment (its settings, sizes, the command's result) is
:mod:`transformer_theory.papers.formal_languages.experiments.languages_generalization`, its study
:mod:`transformer_theory.papers.formal_languages._study_languages_generalization`. Command::

    python experiments/languages_generalization.py --out results/languages_generalization

``--size smoke`` (or ``--smoke``) runs the smoke size; ``--steps``, ``--batch``, ``--samples`` and
``--seeds`` (options made from the settings' fields) and ``--set field=value`` override the size's
values.
"""

import dataclasses
import sys

from transformer_theory.cli.scripts import EXIT_USAGE, override, script_run
from transformer_theory.papers.formal_languages import _study_languages_generalization as study
from transformer_theory.papers.formal_languages.experiments import (
    languages_generalization as experiment,
)
from transformer_theory.settings import OptionError, setting
from transformer_theory.tables import table

LABELS, SOFT_THEN_HARD = study.LABELS, study.SOFT_THEN_HARD

__all__ = ["LABELS", "SOFT_THEN_HARD", "main"]


@dataclasses.dataclass(frozen=True)
class GeneralizationOptions:
    """The size's values the script changes by an option of their own (none: the size's).

    Attributes:
      steps: Adam's steps.
      batch: strings per step.
      samples: balanced evaluation strings per length.
      seeds: training seeds, several words or a comma list.
    """

    steps: int | None = setting(None, positive=True)
    batch: int | None = setting(None, positive=True)
    samples: int | None = setting(None, positive=True)
    seeds: tuple[int, ...] | None = setting(None, minimum=0, words=True)


def main(argv: list[str] | None = None) -> int:
    given = script_run(
        argv, experiment, GeneralizationOptions, description=__doc__.split("\n\n")[0]
    )
    config = experiment.get_config(given.size)
    changes = {k: v for k, v in dataclasses.asdict(given.options).items() if v is not None}
    try:
        config = override(dataclasses.replace(config, **changes), given.sets)
    except (OptionError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    result = study.run(config, given.out)
    print(table(study.table(result.records)))
    print(f"took {result.seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
