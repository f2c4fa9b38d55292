"""Every notebook in ``notebooks/`` is paired with its percent script, and executes (notebooks
nobody runs rot).

Execution: CI runs every notebook once, in the documentation build (``.ci/run``: MyST-NB at smoke
size, a cell that raises fails the build), so the test suite does not run them a second time (they
are ~3 minutes of its CPU). ``TT_EXECUTE_NOTEBOOKS=1 python -m pytest tests/test_notebooks.py``
executes them here without Sphinx: each in a fresh kernel with ``TT_NOTEBOOK_SMOKE=1`` in its
environment (notebooks read it to pick small configs), within ``NOTEBOOK_TIMEOUT_S`` seconds in
total (enforced per cell through nbclient's ``timeout_func`` as the time left); a cell that raises
fails the test with the cell's traceback. New notebooks are picked up automatically.
"""

import os
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
# A smoke-sized notebook needs ~10-30 s (kernel start, JAX import, a few compiles); 300 s leaves
# room
# for a loaded 2-core CI machine without letting a runaway notebook stall the suite.
NOTEBOOK_TIMEOUT_S = 300


@pytest.mark.skipif(
    os.environ.get("TT_EXECUTE_NOTEBOOKS") != "1",
    reason="the docs build executes every notebook in CI; TT_EXECUTE_NOTEBOOKS=1 runs them here",
)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path, monkeypatch):
    monkeypatch.setenv("TT_NOTEBOOK_SMOKE", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")  # headless: figures render, nothing opens a window
    nb = nbformat.read(path, as_version=4)
    deadline = time.monotonic() + NOTEBOOK_TIMEOUT_S

    def time_left(_cell):
        left = int(deadline - time.monotonic())
        if left <= 0:
            pytest.fail(f"{path.name}: exceeded the {NOTEBOOK_TIMEOUT_S} s notebook budget")
        return left

    client = nbclient.NotebookClient(
        nb,
        timeout_func=time_left,
        kernel_name="python3",
        startup_timeout=120,
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute()
    except nbclient.exceptions.CellTimeoutError:
        pytest.fail(f"{path.name}: exceeded the {NOTEBOOK_TIMEOUT_S} s notebook budget")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_paired_with_its_percent_script(path):
    """Each notebook is kept as a jupytext percent script paired with its ``.ipynb``; the two must
    hold the same cells (``jupytext --sync notebooks/*.py`` after editing either)."""
    jupytext = pytest.importorskip("jupytext")
    script = path.with_suffix(".py")
    assert script.exists(), f"{path.name} has no paired percent script {script.name}"
    a = [(c.cell_type, c.source.strip()) for c in nbformat.read(path, as_version=4).cells]
    b = [(c.cell_type, c.source.strip()) for c in jupytext.read(script).cells]
    assert a == b, f"{path.name} and {script.name} differ: run jupytext --sync {script}"


def test_notebooks_found():
    """The glob is not silently empty (a moved folder would otherwise pass vacuously)."""
    assert NOTEBOOKS, f"no notebooks under {NOTEBOOK_DIR}"
    assert os.path.isdir(NOTEBOOK_DIR)
