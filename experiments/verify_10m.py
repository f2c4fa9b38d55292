"""The affine-form check (Props. 8/10, all dependences at once) streamed over 10^7+ sequences.

The experiment (its settings, ``get_config(size)``, the measured run and its result) is
:mod:`transformer_theory.papers.chen_zou2024.experiments.verify_10m`, the same as
``transformer-theory experiment verify_10m``; this script reads its config (the settings'
fields are its options, ``--size smoke`` / ``--smoke`` a few thousand sequences)::

    python experiments/verify_10m.py --n-q 8 --n-a 8 --k 4 --models 2 --family relu-3h

Prints what it tested and the verdict, writes ``verify_10m.json`` under ``--out``; exit 1 when an
in-scope family's residual exceeds the tolerance.
"""

import sys

from transformer_theory.cli.scripts import script_settings
from transformer_theory.papers import study_of
from transformer_theory.papers.chen_zou2024.experiments import verify_10m as experiment
from transformer_theory.precision import enable_x64


def main(argv=None) -> int:
    config, output = script_settings(
        argv,
        experiment.get_config,
        experiment.SIZES,
        description=__doc__.split("\n\n")[0],
        out="results/verify_10m",
    )
    enable_x64()  # an entry point: the verification runs in float64
    study = study_of(experiment)
    record = study.run(config, output.out, progress=output.progress)
    print("\n".join(study.summary_lines(record)))
    return 1 if record.failed else 0


if __name__ == "__main__":
    sys.exit(main())
