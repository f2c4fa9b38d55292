"""``theory/`` holds mathematics: no module under it plots or touches files (the commands and
:mod:`transformer_theory.saveload` do that at the edge)."""

import pathlib
import re

import pytest

import transformer_theory.theory

THEORY = pathlib.Path(transformer_theory.theory.__file__).parent
FORBIDDEN = {
    "matplotlib": r"\bmatplotlib\b",
    "open(": r"(?<![\w.])open\(",
    "np.save / np.savez": r"\bnp\.save",
    "json.dump": r"\bjson\.dump\b",
    "savefig": r"\bsavefig\(",
    "write_text / write_bytes": r"\.write_(text|bytes)\(",
    "os.makedirs / os.remove": r"\bos\.(makedirs|mkdir|remove|unlink)\(",
}
MODULES = sorted(THEORY.rglob("*.py"))


def test_the_theory_package_has_modules():
    assert len(MODULES) >= 5


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_no_plotting_and_no_file_writes_in_theory(path):
    text = path.read_text()
    found = [name for name, pattern in FORBIDDEN.items() if re.search(pattern, text)]
    assert not found, f"{path.name} uses {found}: move it to the edge (cli/, saveload.py)"
