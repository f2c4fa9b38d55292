"""The studies behind ``efficient-attention`` and ``heads``, called from Python.

Settings in, records and files out: the lengths swept, the refusals before any work (naming the
option out of its ordinary range), the error study's inputs, the files each study writes (read
back with the standard ``csv`` module), and the head study on maps built here with a known kind.
Trained models are stood in for by
:class:`~transformer_theory.papers.conti2024._models_trained.LoadedRun`
objects holding arrays (the commands on real runs are tested in ``test_translation.py``).
"""

import csv
import json

import jax
import numpy as np
import pytest

from transformer_theory import budget, jsonio
from transformer_theory.papers.conti2024 import _models_efficient as efficient
from transformer_theory.papers.conti2024 import _models_trained as loading
from transformer_theory.papers.conti2024 import _study_efficient_attention as efficient_study
from transformer_theory.papers.conti2024 import _study_heads as head_study
from transformer_theory.papers.conti2024 import _theory_cost as estimates
from transformer_theory.papers.conti2024 import _theory_heads as heads
from transformer_theory.papers.conti2024.experiments.efficient_attention import EfficientSettings
from transformer_theory.papers.conti2024.experiments.heads import HeadsSettings
from transformer_theory.train import RunDirectoryError


def fake_run(name, maps=None, qkv=None):
    return loading.LoadedRun(
        name=name,
        kind="seq2seq",
        path="/nowhere",
        maps=lambda b: [(a, layer, m[:b]) for a, layer, m in maps or []],
        qkv=lambda b: [(a, layer, q[:b], k[:b], v[:b]) for a, layer, q, k, v in qkv or []],
    )


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# --- efficient attention --------------------------------------------------------------------


def test_lengths_double_up_to_the_maximum():
    assert estimates.lengths(256, 1000) == [256, 512, 1000]
    assert estimates.lengths(256, 1024) == [256, 512, 1024]
    assert estimates.lengths(64, 64) == [64]


@pytest.mark.parametrize(
    "changes, needle",
    [
        (dict(variants=("nonsense",)), "variants"),
        (dict(variants=()), "variants"),
        (dict(dim=7), "dim"),
        (dict(repeats=0), "repeats"),
        (dict(seed=-1), "seed"),
    ],
)
def test_settings_refuse_bad_values_by_name(changes, needle):
    with pytest.raises(ValueError, match=needle):
        EfficientSettings(**changes)


def test_settings_refuse_max_len_below_min_len_and_what_would_be_ignored():
    with pytest.raises(ValueError, match="max_len"):
        EfficientSettings(min_len=512, max_len=256)
    with pytest.raises(ValueError, match="^examples: .*--run"):
        EfficientSettings(examples=8)
    with pytest.raises(ValueError, match="^dim: not used with --jl"):
        EfficientSettings(jl=True, dim=8)
    assert EfficientSettings(jl=True, seed=3, examples=4, runs=("r",)).trained_examples() == 4


def test_memory_estimates_are_the_shape_arithmetic():
    s = EfficientSettings(variants=("dense", "taylor"), max_len=2048, dim=64)
    got = efficient_study.check_budgets(s)["memory"]
    n, d = 2048, 64
    # dense: scores, weights and a mask (9 n^2 bytes) plus q, k, v, out (16 n d), times 1.25
    assert got["cost"]["dense"] == pytest.approx(1.25 * (9 * n * n + 16 * n * d))
    assert got["cost"]["taylor"] == pytest.approx(1.25 * 2 * 16 * n * d)
    assert set(got["errors"]) == {"dense", "taylor"}  # the reference and the one approximation


def test_only_the_option_whose_default_fits_is_blamed(monkeypatch):
    monkeypatch.setenv("TT_MEMORY_BUDGET", "512M")
    # A window at n = 2^24 needs ~90 GiB; at the default n = 16384 it fits at either width, so
    # max_len is the field to lower, not dim (also above its default); the study names fields,
    # the command their options (test_efficient.py).
    s = EfficientSettings(variants=("sliding_window",), max_len=2**24, dim=128)
    with pytest.raises(budget.BudgetError) as err:
        efficient_study.check_budgets(s)
    assert err.value.option == "max_len" and str(err.value).startswith("max_len: timing")
    # Dense at the default length does not fit 512 MiB either: both fields are named.
    s = EfficientSettings(variants=("dense",), max_len=2**18, dim=128)
    with pytest.raises(budget.BudgetError) as err:
        efficient_study.check_budgets(s)
    assert err.value.option == "max_len/dim"


# One size of random inputs for every test below: JAX compiles each shape once.
SMALL = dict(error_len=16, error_batch=2, dim=8)


def test_error_sources_random_then_trained_and_seeded(tmp_path):
    sources = efficient.random_sources(5, 2, 16, 8)
    labels = [label for label, *_ in sources]
    assert labels == ["random iid, n=16", "random local, n=16"]
    assert all(q.shape == (2, 16, 8) for _, q, _, _ in sources)
    key = jax.random.fold_in(jax.random.key(5), 0)  # the iid draw: the seed, then its index
    np.testing.assert_array_equal(
        sources[0][1], jax.random.normal(jax.random.split(key, 3)[0], (2, 16, 8))
    )
    rng = np.random.default_rng(0)
    qkv = [("encoder", 0, *(rng.normal(size=(5, 2, 6, 4)) for _ in range(3)))]
    runs = [fake_run("r", qkv=qkv)]
    ((name, q, k, v),) = loading.trained_inputs(runs, 32)
    # examples (32 asked, the run holds 5) x heads (2), stacked
    assert name == "r" and q.shape == k.shape == v.shape == (10, 6, 4)
    np.testing.assert_array_equal(q[2:4], qkv[0][2][1])  # example 1's two heads
    s = EfficientSettings(variants=("taylor", "dense"), seed=5, min_len=8, max_len=8, **SMALL)
    s = s.replace(repeats=1)
    result = efficient_study.run(s, str(tmp_path), progress=False, runs=runs)
    assert [(r.inputs, r.examples) for r in result.errors] == [
        ("random iid, n=16", 2), ("random local, n=16", 2), ("trained r, n=6", 10),
    ]  # fmt: skip
    assert [r.error for r in result.errors[:2]] == [
        r.error for _, q, k, v in sources for r in efficient.error_vs_budget(
            q, k, v, variants=("taylor",), seed=5
        )
    ]  # fmt: skip
    result = efficient_study.run(s.replace(variants=("dense",)), str(tmp_path), runs=runs)
    assert result.errors == []  # no approximation: no error study


def test_trained_inputs_too_large_are_refused_naming_examples(monkeypatch, tmp_path):
    s = EfficientSettings(variants=("taylor",), examples=64, runs=("big",), **SMALL)
    qkv = [("encoder", 0, *(np.ones((64, 8, 512, 4), np.float32) for _ in range(3)))]
    monkeypatch.setenv("TT_MEMORY_BUDGET", "16M")  # the 64 x 8 heads at n = 512 need more
    with pytest.raises(budget.BudgetError, match="^examples: "):
        efficient_study.run(s, str(tmp_path), progress=False, runs=[fake_run("big", qkv=qkv)])
    assert not (tmp_path / "errors.json").exists()  # refused before any error work


def test_run_writes_what_it_returns(tmp_path):
    s = EfficientSettings(variants=("taylor", "dense"), min_len=32, max_len=32, repeats=1, **SMALL)
    result = efficient_study.run(s, str(tmp_path), progress=False, runs=[])
    assert result.lengths == [32] and result.slopes == {}  # one length: no slope
    assert [(r.variant, r.n) for r in result.cost] == [("taylor", 32), ("dense", 32)]
    cost = jsonio.read_json(str(tmp_path / "cost.json"))
    assert cost["records"] == jsonio.to_jsonable(result.cost)[0] and cost["seconds_lower_bound"] > 0
    rows = read_csv(tmp_path / "cost.csv")
    assert [(r["variant"], int(r["n"])) for r in rows] == [("taylor", 32), ("dense", 32)]
    assert rows[0]["budget"] == "" and float(rows[1]["seconds"]) == result.cost[1].seconds
    errors = read_csv(tmp_path / "errors.csv")
    assert [r["inputs"] for r in errors] == ["random iid, n=16", "random local, n=16"]
    assert [float(r["error"]) for r in errors] == [r.error for r in result.errors]
    assert all((tmp_path / f).exists() for f in ("cost.png", "errors.png", "errors.json"))
    summary = efficient_study.summary_rows(result)
    assert [r["variant"] for r in summary] == ["taylor", "dense"]
    assert all(r["slope time"] == r["slope memory"] == "n/a" for r in summary)
    assert summary[1]["ms per call"] == pytest.approx(result.cost[1].seconds * 1e3)


# --- heads ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def head_maps():
    """One layer of three heads built with a known kind, on four inputs (B, H, Q, K)."""
    rng = np.random.default_rng(3)
    kinds = ("positional", "rare_token", "syntactic")
    m = np.stack([[heads.synthetic_head(k, 10, rng) for k in kinds] for _ in range(4)])
    return kinds, [("encoder", 0, m)]


def test_head_study_classifies_and_writes(head_maps, tmp_path):
    kinds, maps = head_maps
    runs = [fake_run("a", maps=maps), fake_run("b", maps=maps)]
    seen = []
    settings = HeadsSettings(examples=3)
    study = head_study.run(settings, str(tmp_path), runs=runs, on_run=lambda n, r: seen.append(n))
    assert seen == ["a", "b"] and len(study.records) == 6
    assert [r.kind for r in study.records] == list(kinds) * 2
    assert all(r.examples == 3 and r.model == "seq2seq" for r in study.records)
    assert jsonio.read_json(str(tmp_path / "heads.json")) == json.loads(
        jsonio.dumps_json(study.records)
    )
    rows = read_csv(tmp_path / "heads.csv")
    assert tuple(rows[0]) == head_study.CSV_COLUMNS
    for row, rec in zip(rows, study.records):
        assert row["kind"] == rec.kind and float(row["score"]) == rec.score
        assert json.loads(row["fit"]) == rec.fit
        assert row["kind_permuted"] == rec.permuted.kind
        assert json.loads(row["fit_permuted"]) == rec.permuted.fit
    assert sorted(study.figures) == sorted(str(tmp_path / f"{n}_heads.png") for n in "ab")
    summary = head_study.summary_rows(study.records)
    assert [(r["run"], r["classification"]) for r in summary] == [
        ("a", "plain"), ("a", "up to a permutation"), ("b", "plain"), ("b", "up to a permutation"),
    ]  # fmt: skip
    assert all(sum(r[k] for k in heads.KINDS) == r["heads"] == 3 for r in summary)
    assert summary[0]["positional"] == summary[0]["rare_token"] == summary[0]["syntactic"] == 1


def test_head_study_refuses_an_option_covering_a_map(head_maps, tmp_path):
    _, maps = head_maps
    settings = HeadsSettings(bandwidth=9, examples=2)
    with pytest.raises(ValueError, match="^bandwidth: wide: w = 9"):
        head_study.run(settings, str(tmp_path), runs=[fake_run("wide", maps=maps)])
    assert not (tmp_path / "heads.json").exists()  # refused before any record is written


# --- loading --------------------------------------------------------------------------------


def test_read_runs_names_the_directory_whatever_goes_wrong(tmp_path, monkeypatch):
    with pytest.raises(RunDirectoryError, match="no trained model here"):
        loading.read_runs(str(tmp_path))

    def broken(path):
        raise ValueError("a missing array\nsecond line")

    monkeypatch.setattr(loading, "load_runs", broken)
    with pytest.raises(RunDirectoryError) as err:
        loading.read_runs(str(tmp_path))
    message = str(err.value)
    assert message.startswith(f"{tmp_path}: cannot read the trained model")
    assert message.endswith("(ValueError: a missing array)") and "second" not in message
