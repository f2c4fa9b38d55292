"""Packaging glue beyond pyproject.toml: ship the committed experiment records as package data.

The claims ledger reads small committed records (``experiments/results/``) for its ``measured``
rows. A checkout reads them in place; a wheel carries a copy under ``transformer_theory/_results``
(this build step), with the committed ``CLAIMS.json`` (``claims.committed``), so
``transformer-theory claims`` from an installed package reports the same
statuses as from a checkout (:data:`transformer_theory.ledger.RESULTS_DIR`).
"""

import pathlib
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent
RESULTS = ROOT / "experiments" / "results"


class BuildWithResults(build_py):
    """``build_py``, then the committed records copied into the built package."""

    def run(self):
        super().run()
        if self.editable_mode or not RESULTS.is_dir():
            return
        target = pathlib.Path(self.build_lib) / "transformer_theory" / "_results"
        target.mkdir(parents=True, exist_ok=True)
        for path in sorted(RESULTS.iterdir()):
            if path.suffix in (".json", ".csv"):
                shutil.copy2(path, target / path.name)
        # the committed claims records, readable from an installed package (claims.committed)
        if (ROOT / "CLAIMS.json").is_file():
            shutil.copy2(ROOT / "CLAIMS.json", target / "CLAIMS.json")


setup(cmdclass={"build_py": BuildWithResults})
