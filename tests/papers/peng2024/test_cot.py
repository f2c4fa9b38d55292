"""Chain-of-thought composition (Peng et al. 2024, Theorem 2): the prompts against a brute-force
composition written here (every function pair and query at n = 2, 3), teacher forcing's targets,
the autoregressive loop on hand-built models (an exact pointer-chasing oracle and one that errs
once), causality of the model, and the config's smoke run."""

import importlib.util
import json
import math
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from transformer_theory.papers.peng2024 import _models_cot as cot
from transformer_theory.papers.peng2024 import _theory as theory
from transformer_theory.papers.peng2024._models import CompositionTransformer
from transformer_theory.papers.peng2024.experiments.composition_cot import CoTSettings

EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"


def _brute_force(prompt, n, functions):
    """Read each table as a Python dict and follow the query through them, one function at a
    time (the specification, independent of cot_sample's vectorized indexing)."""
    tables = []
    for k in range(functions):
        entries = prompt[k * n : (k + 1) * n]
        tables.append({k * n + i: int(v) for i, v in enumerate(entries)})
    value, chain = int(prompt[-1]), []
    for table in tables:
        value = table[value]
        chain.append(value)
    return chain


@pytest.mark.parametrize("n, functions", [(2, 2), (3, 2), (2, 3)])
def test_every_function_and_query_is_drawn_and_composed_exactly(n, functions):
    # n^(n K) * n tuples (f_1, ..., f_K, x): 32, 2187 (n = 3, K = 2: 729 x 3), 128
    prompt, chain = cot.cot_sample(0, 40_000, n, functions)
    assert prompt.shape == (40_000, functions * n + 1) and chain.shape == (40_000, functions)
    for row, answers in zip(prompt, chain):
        assert _brute_force(row, n, functions) == answers.tolist()
    # every table entry lies in its domain D_k = [k n, (k + 1) n), the query in D_0
    for k in range(functions):
        block = prompt[:, k * n : (k + 1) * n]
        assert block.min() >= (k + 1) * n and block.max() < (k + 2) * n
    assert prompt[:, -1].max() < n
    seen = {tuple(r) for r in prompt}
    assert len(seen) == n ** (n * functions) * n  # exhaustive: each (f_1, ..., f_K, x) occurs


def test_teacher_forcing_strides():
    prompt, chain = cot.cot_sample(1, 5, 4, 4)
    for stride, picks in ((1, [0, 1, 2, 3]), (2, [1, 3]), (4, [3])):
        x, y = cot.teacher_forcing(prompt, chain, stride)
        np.testing.assert_array_equal(y, chain[:, picks])
        np.testing.assert_array_equal(x[:, : prompt.shape[1]], prompt)
        np.testing.assert_array_equal(x[:, prompt.shape[1] :], chain[:, picks[:-1]])
    with pytest.raises(ValueError, match="stride"):
        cot.teacher_forcing(prompt, chain, 3)


def _oracle(num_hops, mistake_at=None):
    """A hand-built model: the last token y names the position of its table entry, so num_hops
    lookups give f^(num_hops)(y); ``mistake_at`` (a prompt length) answers token 0 there."""

    def model(tokens_BxN):
        tokens_BxN = np.asarray(tokens_BxN)
        value = tokens_BxN[:, -1]
        for _ in range(num_hops):
            value = tokens_BxN[np.arange(len(value)), value]
        if mistake_at is not None and tokens_BxN.shape[1] == mistake_at:
            value = np.zeros_like(value)
        return np.eye(int(tokens_BxN.max()) + 2)[value]

    return model


def test_generate_chases_pointers_and_feeds_back_its_own_tokens():
    n, functions = 5, 4
    prompt, chain = cot.cot_sample(2, 64, n, functions)
    for stride in (1, 2, 4):
        written = np.asarray(cot.generate(_oracle(stride), prompt, functions // stride))
        np.testing.assert_array_equal(written, chain[:, stride - 1 :: stride])
    # a wrong first token is what the second step reads: token 0 (in D_0) is mapped by f_1
    written = np.asarray(cot.generate(_oracle(1, mistake_at=prompt.shape[1]), prompt, 2))
    assert (written[:, 0] == 0).all()
    np.testing.assert_array_equal(written[:, 1], prompt[:, 0])


def test_causal_model_ignores_later_tokens_even_quantized():
    net = CompositionTransformer(13, 12, 4, 2, 1, 13, bits=3, causal=True, rngs=nnx.Rngs(0))
    a = jnp.asarray(np.random.default_rng(0).integers(0, 13, size=(3, 12)))
    b = a.at[:, 8:].set((a[:, 8:] + 5) % 13)
    both = nnx.jit(lambda m, t: (m.all_logits(t), m(t)))  # compiled once per shape
    (la, last_a), (lb, _) = both(net, a), both(net, b)
    np.testing.assert_array_equal(np.asarray(la[:, :8]), np.asarray(lb[:, :8]))
    assert not np.array_equal(np.asarray(la[:, 8:]), np.asarray(lb[:, 8:]))
    # the last-position call is the last row of all_logits, and a prefix's own last position
    # (what generate reads) equals that row of the whole sequence's logits
    np.testing.assert_allclose(np.asarray(last_a), np.asarray(la[:, -1]), rtol=1e-6, atol=1e-6)
    _, last_prefix = both(net, a[:, :8])
    np.testing.assert_allclose(np.asarray(last_prefix), np.asarray(la[:, 7]), rtol=1e-5, atol=1e-5)


def test_cot_bound_and_steps_needed():
    assert cot.cot_bound(64, 1, 4, 4) == 2.0
    assert math.isclose(cot.cot_bound(16, 2, 8, 2), math.sqrt(16 / 32))
    with pytest.raises(ValueError, match="width"):
        cot.cot_bound(16, 1, 0, 4)
    rows = [
        {
            "n": 4,
            "functions": 2,
            "heads": 1,
            "d": 4,
            "p": 4,
            "cot_steps": s,
            "accuracy": a,
            "cot_bound": 0.5,
        }
        for s, a in ((2, 0.95), (1, 0.3))
    ] + [
        {
            "n": 8,
            "functions": 2,
            "heads": 1,
            "d": 4,
            "p": 4,
            "cot_steps": s,
            "accuracy": 0.2,
            "cot_bound": 0.7,
        }
        for s in (1, 2)
    ]
    got = {r["n"]: r["steps_needed"] for r in theory.steps_needed(rows, 0.9)}
    assert got == {4: 2, 8: None}
    with pytest.raises(ValueError, match="target"):
        theory.steps_needed(rows, 0.0)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: cot.cot_sample(0, 0, 4, 2), "num"),
        (lambda: cot.cot_sample(0, 4, 4, 0), "functions"),
        (lambda: cot.cot_record(4, 4, 3, 1, 4, 4, steps=1), "stride"),
        (lambda: cot.generate(_oracle(1), np.zeros((1, 3), int), 0), "steps"),
        (lambda: CoTSettings(strides=(3,)), "stride"),
    ],
)
def test_bad_arguments_name_themselves(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_composition_cot_smoke(tmp_path):
    spec = importlib.util.spec_from_file_location("cc", EXPERIMENTS / "composition_cot.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--smoke", "--out", str(tmp_path)]) == 0
    records = json.loads((tmp_path / "records.json").read_text())
    assert [(r["stride"], r["cot_steps"]) for r in records] == [(1, 2)]
    assert all(
        0 <= r["accuracy"] <= 1 and len(r["token_accuracy"]) == r["cot_steps"] for r in records
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert len(summary) == 1 and summary[0]["cot_bound"] == 0.5
    assert (tmp_path / "composition_cot.png").exists()


def test_composition_bound_smoke(tmp_path):
    spec = importlib.util.spec_from_file_location("cb", EXPERIMENTS / "composition_bound.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--smoke", "--out", str(tmp_path)]) == 0
    (r,) = json.loads((tmp_path / "records.json").read_text())
    # n = 4, H = 1, d = 1, p = 2: R = 8 - 4 = 4, bound 4 / 24; one pass (K = 2, stride 2)
    assert (r["cot_steps"], r["R"]) == (1, 4.0) and math.isclose(r["bound"], 4 / 24)
    assert math.isclose(r["error"], 1 - r["accuracy"])
    assert (tmp_path / "composition_bound.png").exists()
