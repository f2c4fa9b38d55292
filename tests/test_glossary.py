"""Every shape suffix in the package uses the letters of the one glossary."""

import re
from pathlib import Path

from transformer_theory.glossary import GLOSSARY

PACKAGE = Path(__file__).resolve().parents[1] / "transformer_theory"
# a lowercase name, an underscore, then letters joined by "x": tokens_BxN, scores_QxK, w_MxWxY
SUFFIX = re.compile(r"\b[a-z][a-z0-9_]*?_((?:[A-Z]x)*[A-Z])\b")


def test_every_suffix_letter_is_in_the_glossary():
    unknown = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            for m in SUFFIX.finditer(line):
                for letter in m.group(1).split("x"):
                    if letter not in GLOSSARY:
                        unknown.setdefault(letter, f"{path.relative_to(PACKAGE)}:{lineno}")
    assert not unknown, f"shape letters missing from transformer_theory/glossary.py: {unknown}"


def test_the_glossary_regex_reads_suffixes():
    """The scan is not vacuous: it parses the suffixes the library uses."""
    found = [m.group(1) for m in SUFFIX.finditer("tokens_BxN + scores_QxK * w_o - mask_NxN")]
    assert found == ["BxN", "QxK", "NxN"]
