"""Differential run against tracr (Lindner et al. 2023): writes
``experiments/results/rasp_tracr_differential.json``, the record docs/rasp.md and the ledger row
``rasp.tracr_differential`` quote.

The experiment (its settings, ``get_config(size)``, what it compares) is
:mod:`transformer_theory.rasp.experiments.tracr_differential`; this script reads its config (the
settings' fields are its options) and runs its study
(:func:`transformer_theory.rasp._study_tracr_differential.run`). Runs only where tracr is
installed, in its own environment (never a dependency of this library; the recipe is
``transformer_theory.rasp._tracr.INSTALL``)::

    /tmp/tracr-venv/bin/python experiments/rasp_tracr.py \\
        --out experiments/results/rasp_tracr_differential.json

About 6 minutes on 2 shared cores. Exit 1 if this compiler's model disagrees with its
interpreter anywhere, the interpreters disagree, or it needs more layers than tracr's.
"""

import dataclasses
import os

from transformer_theory.cli.scripts import script_options
from transformer_theory.papers import study_of
from transformer_theory.rasp.experiments import tracr_differential as experiment


@dataclasses.dataclass(frozen=True)
class DifferentialOutput:
    """Where the record goes.

    Attributes:
      out: the JSON record to write.
    """

    out: str


def main(argv: list[str] | None = None) -> int:
    config, output = script_options(
        argv,
        experiment.TracrDifferentialSettings,
        DifferentialOutput,
        description=__doc__.split("\n\n")[0],
    )
    from transformer_theory.precision import enable_x64

    enable_x64()  # float64 for the failure lengths; the models in float32
    out_dir, name = os.path.split(output.out)
    command = f"python experiments/rasp_tracr.py --out {output.out}"
    if config != experiment.get_config("default"):
        command += f" --samples {config.samples}"
    done = study_of(experiment).run(
        config, out_dir or ".", record_name=name, produced_by=command, progress=print
    )
    print(f"wrote {done.path}; programs failing: {list(done.failing) or 'none'}")
    return 1 if done.failing else 0


if __name__ == "__main__":
    raise SystemExit(main())
