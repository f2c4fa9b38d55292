"""The registry and the study behind ``transformer-theory sanford`` (settings in, records out), and
the trained experiments' configs: small, against references written here."""

import dataclasses
import importlib
import json
import math

import jax
import numpy as np
import pytest

from transformer_theory import jsonio, precision
from transformer_theory.papers.sanford2023 import _constructions_registry as registry
from transformer_theory.papers.sanford2023 import _records, _study_sanford
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.papers.sanford2023.experiments import sanford as study


def test_every_unit_names_a_registered_task_and_its_sizes():
    assert registry.NAMES == ("qsa", "match2", "match3bigram", "match3local", "match3local1")
    for name, unit in registry.UNITS.items():
        assert unit.name == name and unit.task in ts.MATCH_TASKS
        assert unit.sizes == (("N", "M", "K") if unit.task == "match3local" else ("N", "M"))
        assert unit.window_of(3) == (3 if unit.windowed else 0)
    with pytest.raises(ValueError, match="task"):
        registry.unit("match3")  # a task with no construction checked


def test_match_labels_dispatch_through_the_registry():
    # Match2 by a double loop written here, against the registry's labels
    x = np.random.default_rng(0).integers(0, 7, size=(20, 5))
    want = [[any((a + b) % 7 == 0 for b in row) for a in row] for row in x]
    np.testing.assert_array_equal(ts.MATCH_TASKS["match2"].labels(x, 7, 0), want)
    np.testing.assert_array_equal(ts.match_labels("match2", x, 7), want)


def test_exact_scale_is_log2_of_c_per_unit():
    n, m = 8, 64
    want = math.log2(m**2 * math.log(6 * n))
    for name in ("match2", "match3bigram"):
        assert registry.exact_scale(name, n, m) == pytest.approx(want, abs=1e-12)
    assert registry.exact_scale("match3local", n, m, 2) == registry.exact_scale(
        "match3local1", n, m, 2
    )


def test_configurations_have_named_sizes():
    settings = study.SanfordSettings(
        tasks=("qsa", "match2", "match3local"), ns=(4, 5), qs=(1,), epss=(0.1, 0.2), window=1
    )
    configs = _study_sanford.configurations(settings)
    assert configs[:4] == [
        _study_sanford.QSASettings(4, 1, 0.1),
        _study_sanford.QSASettings(4, 1, 0.2),
        _study_sanford.QSASettings(5, 1, 0.1),
        _study_sanford.QSASettings(5, 1, 0.2),
    ]
    assert configs[4:] == [
        _study_sanford.MatchSettings("match2", 4, 16),
        _study_sanford.MatchSettings("match2", 5, 25),
        _study_sanford.MatchSettings("match3local", 4, 16, 1),
        _study_sanford.MatchSettings("match3local", 5, 25, 1),
    ]
    assert configs[0].file_name == "qsa_N4_q1_eps0.1.json"
    assert configs[4].file_name == "match2_N4_M16.json"


def test_check_sizes_refuses_before_any_work():
    # the study names its fields; the command names their options (test_hardening)
    with pytest.raises(ValueError, match=r"^ns/qs: N = 64, q = 10.*lower ns or qs$"):
        _study_sanford.check_sizes(study.SanfordSettings(tasks=("qsa",), ns=(64,), qs=(10,)))
    with pytest.raises(ValueError, match="float64's exact range"):
        _study_sanford.check_sizes(
            study.SanfordSettings(tasks=("match2",), ns=(8,), modulus_power=9)
        )
    _study_sanford.check_sizes(study.SanfordSettings(tasks=("match2",), ns=(3,), samples=50))


def test_run_writes_every_record_and_the_summary_rows(tmp_path):
    jax.config.update("jax_enable_x64", True)
    settings = study.SanfordSettings(tasks=("match2",), ns=(3,), samples=50)
    result = _study_sanford.run(settings, str(tmp_path), plot=False)
    records = result.rows
    (record,) = records
    assert isinstance(record, _records.MatchRecord)
    assert result.disj is None and not _study_sanford.failed(result)
    assert not record.exhaustive and record.examples == 50  # 9^3 = 729 > 50 inputs
    assert record.accuracy_by_dtype["float64"] == 1.0 and not _study_sanford.failed(record)
    assert set(record.accuracy_by_dtype) == set(precision.FORMATS)
    bits = {name: int(jax.numpy.finfo(name).nmant) + 1 for name in precision.FORMATS}
    assert record.within_exact_range == {n: record.scale_log2 <= b for n, b in bits.items()}
    # the typed records are the files, field for field
    assert json.loads((tmp_path / "sanford.json").read_text()) == [jsonio.to_jsonable(record)[0]]
    saved = jsonio.read_record(str(tmp_path / "match2_N3_M9.json"), _records.MatchRecord)
    assert saved == record
    row = _study_sanford.summary(record)
    assert row["task"] == "match2" and row["M"] == 9 and row["float64"] == "1.0000"
    assert _study_sanford.summary_tables(result) == [[row]]


def test_failed_reads_the_record():
    qsa = dict(task="qsa", N=8, q=1, d_prime=2, epsilon=0.1, alpha=12, q_log_N=2.08, m_min=None)
    missed = jsonio.as_record(_records.QSARecord, qsa)
    assert _study_sanford.failed(missed) and _study_sanford.summary(missed)["result"] == "MISSED"
    assert "max_error" not in jsonio.to_jsonable(missed)[0]  # absent, as qsa_record leaves it
    assert not _study_sanford.failed(dataclasses.replace(missed, m_min=4))
    match = _records.MatchRecord(
        task="match2",
        N=3,
        M=9,
        window=None,
        examples=50,
        exhaustive=False,
        positive_rate=0.5,
        accuracy_by_dtype={"float64": 0.99},
        accuracy=0.99,
        scale_log2=3,
        within_exact_range={"float64": True},
        smallest_exact=None,
        smallest_exact_mantissa_bits=None,
    )
    assert _study_sanford.failed(match)
    assert not _study_sanford.failed(dataclasses.replace(match, accuracy_by_dtype={"float64": 1.0}))


CONFIGS = [
    "transformer_theory.papers.sanford2023.experiments.qsa_separation",
    "transformer_theory.papers.sanford2023.experiments.qsa_bits_attention",
    "transformer_theory.papers.sanford2023.experiments.qsa_bits_rnn",
    "transformer_theory.papers.sanford2023.experiments.match_width",
    "transformer_theory.papers.peng2024.experiments.composition_depth",
    "transformer_theory.papers.peng2024.experiments.composition_one_layer",
]


@pytest.mark.parametrize("name", CONFIGS, ids=[c.rsplit(".", 1)[1] for c in CONFIGS])
def test_every_config_has_a_smoke_and_a_default_size(name):
    module = importlib.import_module(name)
    assert {"smoke", "default"} <= set(module.SIZES)
    smoke, default = module.get_config("smoke"), module.get_config()
    assert type(smoke) is type(default) and smoke != default
    assert smoke.steps < default.steps
    assert "python experiments/" in module.__doc__
    with pytest.raises(ValueError, match="size"):
        module.get_config("huge")


def test_the_command_offers_exactly_the_registered_names():
    # every registered unit, then the set-disjointness reduction (a protocol, not a unit)
    assert study.TASKS == (*registry.NAMES, "disj")
    assert study.SanfordSettings().tasks == study.TASKS  # --task all, the default


@pytest.mark.parametrize(
    "change, field",
    [
        ({"tasks": ("match4",)}, "tasks"),
        ({"tasks": ("qsa",), "ns": (4,), "qs": (4,)}, "qs"),
        ({"ns": (8, 8)}, "ns"),
        ({"tasks": ("disj",), "qs": (7,)}, "qs"),
        ({"epss": (1.5,)}, "epss"),
        ({"epss": (float("nan"),)}, "epss"),
        ({"window": -1}, "window"),
        ({"samples": 0}, "samples"),
        ({"tasks": ("match3bigram",), "ns": (1,)}, "ns"),
    ],
)
def test_settings_name_the_refused_field(change, field):
    with pytest.raises(ValueError, match=f"^{field}: "):
        study.SanfordSettings(**change)
