"""This compiler beside tracr (Lindner et al. 2023) on tracr's own library programs: writes
``experiments/results/rasp_table.json``, from which ``docs/rasp.md``'s table is generated.

The experiment (its settings, ``get_config(size)``, what each column measures) is
:mod:`transformer_theory.rasp.experiments.tracr_table`; this script reads its config (the
settings' fields are its options) and runs its study
(:func:`transformer_theory.rasp._study_tracr_table.run`: one row at a time, the whole record
written after each, resumed from the rows measured with the same settings). Runs only where
tracr is installed, in its own environment (the recipe is
``transformer_theory.rasp._tracr.INSTALL``)::

    /tmp/tracr-venv/bin/python experiments/rasp_table.py --out experiments/results/rasp_table.json
    python experiments/rasp_table.py --print experiments/results/rasp_table.json  # the table
"""

import dataclasses
import os
import sys

from transformer_theory.cli.scripts import EXIT_USAGE, script_options
from transformer_theory.papers import study_of
from transformer_theory.rasp.experiments import tracr_table as experiment
from transformer_theory.settings import setting


@dataclasses.dataclass(frozen=True)
class TableOutput:
    """Where the record goes, or the record to print.

    Attributes:
      out: the JSON record to write (and resume from).
      print: print RECORD's table as Markdown (no tracr needed).
      restart: ignore the rows already in --out.
    """

    out: str | None = None
    print: str | None = setting(None, metavar="RECORD")  # noqa: A003 - the option's word
    restart: bool = False


def _produced_by(config: experiment.TracrTableSettings) -> str:
    """The command that measures ``config``'s rows (the record's ``produced_by``)."""
    return (
        "/tmp/tracr-venv/bin/python experiments/rasp_table.py "
        f"--size {config.size} --enumerate {config.enumerate} --certify {config.certify} "
        f"--tracr-len {config.tracr_len} --samples {config.samples}"
    )


def _commit() -> str:
    """The short commit of this checkout (``unknown`` outside a git checkout), marked where
    tracked files have uncommitted changes."""
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return (head or "unknown") + (" (with uncommitted changes)" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    config, output = script_options(
        argv, experiment.TracrTableSettings, TableOutput, description=__doc__.split("\n\n")[0]
    )
    from transformer_theory import jsonio
    from transformer_theory.rasp._records import TracrTable

    study = study_of(experiment)
    if output.print:
        print(study.markdown(jsonio.read_record(output.print, TracrTable)))
        return 0
    if not output.out:
        print("rasp_table.py: error: --out: required (or --print RECORD)", file=sys.stderr)
        return EXIT_USAGE
    from transformer_theory.precision import enable_x64
    from transformer_theory.settings import naming_options

    enable_x64()  # an entry point: float64 beside the float32 models, as the record was measured
    try:  # before any work: the settings' checks cannot see tracr's program names
        with naming_options(experiment.TracrTableSettings):
            study.check_config(config)
    except ValueError as err:
        print(f"rasp_table.py: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    out_dir, name = os.path.split(output.out)
    record = study.run(
        config,
        out_dir or ".",
        record_name=name,
        restart=output.restart,
        produced_by=_produced_by(config),
        commit=_commit(),  # the code this process imported, read once at its start
        progress=lambda s: print(s, file=sys.stderr, flush=True),
    )
    print(study.markdown(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
