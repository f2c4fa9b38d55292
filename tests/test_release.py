"""What every published copy carries: one version source, the license pyproject declares, citation
metadata and a changelog that agree with it."""

from __future__ import annotations

import pathlib
import re

import transformer_theory

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_version_has_one_source():
    pyproject = (ROOT / "pyproject.toml").read_text()
    project = pyproject.split("[project]", 1)[1].split("\n[", 1)[0]
    assert re.search(r"^version\s*=", project, re.M) is None, "a second, static version"
    assert 'dynamic = ["version"]' in project
    assert 'version = {attr = "transformer_theory.__version__"}' in pyproject
    assert re.fullmatch(r"\d+\.\d+\.\d+", transformer_theory.__version__)


def test_license_file_is_the_declared_apache_2():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'license = "Apache-2.0"' in pyproject
    assert 'license-files = ["LICENSE"]' in pyproject
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_citation_and_changelog_name_this_version():
    cff = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^cff-version: 1\.2\.0$", cff, re.M)
    assert re.search(rf'^version: "{re.escape(transformer_theory.__version__)}"$', cff, re.M)
    # the papers the library checks are listed for citation, by their arXiv identifiers
    for arxiv in (
        "2404.01601",
        "2406.04267",
        "2404.14994",
        "2311.00208",
        "2306.02896",
        "2402.08164",
    ):
        assert f"arXiv:{arxiv}" in cff
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{transformer_theory.__version__}]" in changelog
