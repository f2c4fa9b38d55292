"""Mutants of Peng et al. 2024's rows stronger than measured: the bound's formula and the
library's construction broken, each row must leave its expected status."""

import math

import numpy as np

from tests.mutants import mutant, status_of
from transformer_theory.papers.peng2024 import _checks as checks
from transformer_theory.papers.peng2024 import _constructions as construction
from transformer_theory.papers.peng2024 import _theory as theory


@mutant("peng2024.theorem1_bound")
def test_a_bound_in_natural_logs(monkeypatch):
    def natural(n, heads, width, bits):
        nlogn = n * math.log(n)
        return max(0.0, (nlogn - heads * (width + 1) * bits) / (3 * nlogn))

    monkeypatch.setattr(theory, "peng_error_bound", natural)
    assert status_of("peng2024.theorem1_bound") == "unreproduced"


@mutant("peng2024.theorem1_bound")
def test_a_bound_that_is_never_void(monkeypatch):
    def absolute(n, heads, width, bits):
        nlogn = n * math.log2(n)
        return abs(nlogn - heads * (width + 1) * bits) / (3 * nlogn)

    monkeypatch.setattr(theory, "peng_error_bound", absolute)
    assert status_of("peng2024.theorem1_bound") == "unreproduced"


@mutant("peng2024.theorem1_bound")
def test_a_bound_check_that_skips_cells_is_incomplete(monkeypatch):
    # the exact value "unavailable" at d = 16: the cells are skipped, and the tally sees it
    real = checks.exact_bound
    monkeypatch.setattr(
        checks, "exact_bound", lambda n, h, d, p: None if d == 16 else real(n, h, d, p)
    )
    assert status_of("peng2024.theorem1_bound") == "failed"


@mutant("peng2024.theorem1_construction")
def test_a_construction_reading_the_wrong_answer(monkeypatch):
    """The readout's columns rotated: every answer c is read as c + 1 (mod n)."""
    real = construction.build

    def rotated(n, bits=None):
        model = real(n, bits)
        k = np.asarray(model.readout.kernel[...])
        model.readout.kernel[...] = np.roll(k, 1, axis=1)
        return model

    monkeypatch.setattr(construction, "build", rotated)
    assert status_of("peng2024.theorem1_construction", ns=[2], max_bits=3) == "unreproduced"
