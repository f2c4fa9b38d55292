"""The tutorial notebooks are a researcher's first contact with the library, so they import only
public names: a paper's package (its ``__all__``), its ``experiments.<name>`` modules and the
spine's public modules, never a module or name whose dotted path has a ``_`` component (the paper
packages' private role modules ``_tasks``, ``_theory_*``... may move between releases)."""

import ast
from pathlib import Path

import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
SCRIPTS = sorted(NOTEBOOK_DIR.glob("*.py"))


def _private_imports(source: str) -> list[str]:
    """Every ``transformer_theory`` import in ``source`` whose dotted path (module, then the
    imported name) has a component starting with ``_`` (dunders like ``__future__`` aside)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            paths = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            paths = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for path in paths:
            parts = path.split(".")
            if parts[0] != "transformer_theory":
                continue
            if any(p.startswith("_") and not p.startswith("__") for p in parts):
                found.append(f"line {node.lineno}: {path}")
    return found


def test_the_check_sees_private_imports():
    """The parser flags private modules and names, in both import forms, and nothing public."""
    source = (
        "from transformer_theory.papers.barbero2024 import _theory_collapse as c\n"
        "from transformer_theory.papers.conti2024._tasks import BOS\n"
        "import transformer_theory.papers.sanford2023._tasks\n"
        "from transformer_theory.papers import barbero2024\n"
        "from transformer_theory.papers.barbero2024.experiments import collapse\n"
        "from __future__ import annotations\n"
        "from transformer_theory import __version__\n"
    )
    assert len(_private_imports(source)) == 3


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_notebook_imports_only_public_names(path):
    private = _private_imports(path.read_text())
    assert not private, (
        f"{path.name} imports private names (export them from the paper's __init__ or use a "
        f"public function): {private}"
    )
