"""Certify Theorem 5's single-head construction in the paper's base 3 (Chen & Zou 2024, §14.2):
distinct templates get distinct layer-2 vectors, for every template length ``l`` up to a bound.

The experiment (its settings, ``get_config(size)``, the four certificates, how long they take
and what they found) is
:mod:`transformer_theory.papers.chen_zou2024.experiments.theorem5_base3_certify`, the same as
``transformer-theory experiment theorem5_base3_certify``; this script reads its config: the
settings' fields are its options (``--blocks 20``), ``--size smoke`` (``--smoke``) its tiny
bounds::

    python experiments/theorem5_base3_certify.py --out results/theorem5_base3

Prints one line per certificate, writes ``theorem5_base3_certify.json``; exit 1 when a
certificate fails.
"""

import sys

from transformer_theory.cli.scripts import script_settings
from transformer_theory.papers import study_of
from transformer_theory.papers.chen_zou2024.experiments import theorem5_base3_certify as experiment
from transformer_theory.precision import enable_x64


def main(argv=None) -> int:
    config, output = script_settings(
        argv,
        experiment.get_config,
        experiment.SIZES,
        description=__doc__.split("\n\n")[0],
        out="results/theorem5_base3",
    )
    enable_x64()  # an entry point: the model's streams are compared in float64
    study = study_of(experiment)
    result = study.run(config, output.out)
    print("\n".join(study.summary_lines(result)))
    return 0 if result.certificate.holds else 1


if __name__ == "__main__":
    sys.exit(main())
