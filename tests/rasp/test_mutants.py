"""Mutants of the ``rasp.*`` ledger rows: the compiled model's output value map negated (the head,
or for an MLP-computed output the MLP's output rows, that writes the output node), and the row
must no longer reach ``finding``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.mutants import mutant, status_of
from transformer_theory.rasp import _compiler as compiler
from transformer_theory.rasp._library import PROGRAMS


def negate_output_writer(compiled: compiler.CompiledProgram) -> compiler.CompiledProgram:
    """``compiled`` with the rows writing its output node's dimensions negated (every layer's
    attention value maps and MLP output maps: only the output node's writer touches them)."""
    w = compiled.weights
    dims = compiled.output.dims
    layers = []
    for lay in w.layers:
        w_v = np.array(lay.attn.w_v, np.float64)
        w_v[:, dims, :] *= -1.0
        lay = lay.replace(attn=lay.attn.replace(w_v=w_v))
        if lay.mlp is not None:
            lay = lay.replace(mlp=_negate_mlp_out(lay.mlp, dims))
        layers.append(lay)
    return dataclasses.replace(compiled, weights=w.replace(layers=tuple(layers)))


def _negate_mlp_out(mlp, dims):
    w2, b2 = np.array(mlp.w2, np.float64), np.array(mlp.b2, np.float64)  # (D, F), (D,)
    w2[dims] *= -1.0
    b2[dims] *= -1.0
    return mlp.replace(w2=w2, b2=b2)


@pytest.fixture
def broken(monkeypatch):
    real = compiler.compile

    def compile_broken(*args, **kwargs):
        return negate_output_writer(real(*args, **kwargs))

    monkeypatch.setattr(compiler, "compile", compile_broken)


@mutant("rasp.length")
def test_length_mutant(broken):
    assert status_of("rasp.length") != "finding"


@mutant("rasp.reverse")
def test_reverse_mutant(broken):
    assert status_of("rasp.reverse") != "finding"


@mutant("rasp.histogram")
def test_histogram_mutant(broken):
    assert status_of("rasp.histogram") != "finding"


@mutant("rasp.sort")
def test_sort_mutant(broken):
    assert status_of("rasp.sort") != "finding"


@mutant("rasp.frac_prevs")
def test_frac_prevs_mutant(broken):
    assert status_of("rasp.frac_prevs") != "finding"


@mutant("rasp.dyck1")
def test_dyck1_mutant(broken):
    assert status_of("rasp.dyck1") != "finding"


@mutant("rasp.reverse_float32_length64")
def test_reverse_float32_length64_mutant(broken):
    assert status_of("rasp.reverse_float32_length64", samples=2) != "finding"


@pytest.fixture
def loose_softmax(monkeypatch):
    """Every head's softmax scale forced to 0.1 (the law's is about 5 to 20 at these lengths)."""
    real = compiler.compile

    def compile_loose(*args, **kwargs):
        kwargs["softmax_scale"] = 0.1
        return real(*args, **kwargs)

    monkeypatch.setattr(compiler, "compile", compile_loose)


@mutant(
    "rasp.certified.length",
    "rasp.certified.reverse",
    "rasp.certified.histogram",
    "rasp.certified.sort",
    "rasp.certified.sort_unique",
    "rasp.certified.sort_by_frequency",
    "rasp.certified.frac_prevs",
    "rasp.certified.shift",
    "rasp.certified.detect_pattern",
    "rasp.certified.pair_balance",
    "rasp.certified.shuffle_dyck1",
    "rasp.certified.shuffle_dyck2",
    "rasp.certified.majority",
    "rasp.certified.dyck1",
    "rasp.certified.parity",
)
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_certified_rows_mutant_loosened_softmax_scale(loose_softmax, program):
    """A softmax scale of 0.1 leaks too much weight: the certificate fails at the first length,
    and the row is no longer a finding."""
    assert status_of(f"rasp.certified.{program}") != "finding"


@mutant("rasp.length", "rasp.dyck1")
def test_an_input_left_out_is_seen(monkeypatch):
    """A check that evaluates one input fewer than the inputs up to N: incomplete, failed."""
    import transformer_theory.rasp.claims as rc

    real = rc.ledger_check

    def short(*args, **kwargs):
        v = real(*args, **kwargs)
        v["inputs"] -= 1
        return v

    monkeypatch.setattr(rc, "ledger_check", short)
    assert status_of("rasp.length") == "failed"
    assert status_of("rasp.dyck1") == "failed"
