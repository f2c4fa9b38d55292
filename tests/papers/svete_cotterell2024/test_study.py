"""The n-gram study callable from Python (``_study_ngram.run``), its estimate and table, the
registry of constructions (whose is each), and the figures."""

import dataclasses
import functools
import json

import jax
import numpy as np
import pytest

from transformer_theory import jsonio
from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
from transformer_theory.papers.svete_cotterell2024 import _constructions_run as running
from transformer_theory.papers.svete_cotterell2024 import _constructions_variants as variants
from transformer_theory.papers.svete_cotterell2024 import _study_ngram as study
from transformer_theory.papers.svete_cotterell2024 import _tasks as tasks
from transformer_theory.papers.svete_cotterell2024 import _theory_cost as cost
from transformer_theory.papers.svete_cotterell2024 import _theory_equivalence as equivalence
from transformer_theory.papers.svete_cotterell2024 import _theory_soft as soft
from transformer_theory.papers.svete_cotterell2024._records import (
    BetaNeeded,
    KLPoint,
    ModelRecord,
    SoftRow,
)
from transformer_theory.papers.svete_cotterell2024._theory_ngram import float64_failures
from transformer_theory.papers.svete_cotterell2024.experiments.ngram import NGramSettings


def test_registry_says_whose_each_construction_is():
    assert tuple(cn.REGISTRY) == cn.CONSTRUCTIONS
    assert {n for n, c in cn.REGISTRY.items() if c.paper} == {"3.1", "3.2"}
    assert set(variants.VARIANTS) == {"3.2-direct", "3.3-slots"}
    assert all(not c.paper for c in variants.VARIANTS.values())
    lm = tasks.NGramLM.random(0, 2, 4)
    for name in cn.CONSTRUCTIONS:
        params = cn.build(lm, name, max_len=3)
        cn.check_built_as(params, name)  # the registry's layout is the one build lays out
        heads = [h for layer, h, _ in cn.head_offsets(name, 4)]
        assert len(heads) == sum(params.config.heads)


def test_study_run_writes_what_the_checks_return(tmp_path):
    """Two models (the paper's 3.1 and 3.3, float64): each record's equivalence keys are
    equivalence.equivalence_record's on the same LM, the masses agree with the n-gram's forward
    recursion (an independent sum), and ngram.json holds the same records, complete."""
    settings = NGramSettings(
        order=2, alphabet=2, max_len=2, constructions=("3.1", "3.3"), precisions=("float64",)
    )
    settings = dataclasses.replace(settings, scan_limit=2)
    result = study.run(settings, str(tmp_path))
    assert [r.construction for r in result.records] == ["3.1", "3.3"]
    lm = tasks.NGramLM.random(0, 2, 2, zero_fraction=0.2)
    direct = equivalence.equivalence_record(lm, cn.build(lm, "3.1", max_len=2), 2)
    rec = result.records[0]
    assert {k: getattr(rec, k) for k in direct} == direct
    for rec in result.records:
        assert rec.equivalent and rec.strings == 7
        assert rec.mass_transformer == pytest.approx(lm.mass_up_to(2), abs=1e-12)
        assert rec.scan["longest_exact_length"] is None
    saved = json.loads((tmp_path / "ngram.json").read_text())
    assert saved["complete"] is True and saved["settings"]["order"] == 2
    assert saved["records"] == jsonio.to_jsonable(result.records)[0]
    assert "kl" not in saved["records"][0] and saved["records"][1]["predicted_exact_length"] is None
    assert "soft" not in saved and result.soft is None  # no softmax: no soft study, no key
    back = jsonio.read_record(str(tmp_path / "ngram.json"), study.NGramResult)
    assert jsonio.to_jsonable(back)[0] == jsonio.to_jsonable(result)[0] == saved
    assert (tmp_path / "ngram_precision.png").stat().st_size > 0
    assert float64_failures(result.records) == []
    rows = study.table_rows(result)
    assert [r["exact_to"] for r in rows] == [">=2", ">=2"] and rows[1]["derived"] is None


def _record(**fields) -> ModelRecord:
    """A model record with made-up numbers (no model), ``fields`` replaced."""
    one = ModelRecord(
        *("3.1", "hard", "float64", 3, 2, 2, None, (2,), 8, 8),
        *(7, True, 0.0, 0.0, 0, 0, True, 1.0, 1.0),
    )
    return dataclasses.replace(one, **fields)


def test_failures_are_float64_hard_or_sparse_records_only():
    def rec(precision, attention, equivalent):
        return _record(precision=precision, attention=attention, equivalent=equivalent)

    records = [
        rec("float64", "hard", False),
        rec("float32", "hard", False),  # a lower precision breaking is a measurement
        rec("float64", "softmax", False),  # exact only as beta -> inf
        rec("float64", "sparse", True),
    ]
    assert float64_failures(records) == [records[0]]


def test_estimate_uses_the_closed_forms():
    """The table's bytes are 8 A (|Sigma| + 1) with A counted by tasks.num_histories; an order
    far beyond memory is estimated instantly (inf), not by building anything."""
    for alphabet, order in [(2, 3), (3, 4), (1, 5)]:
        want = 8.0 * tasks.num_histories(alphabet, order) * (alphabet + 1)
        assert cost.table_bytes(alphabet, order) == pytest.approx(want)
    small = study.estimate(NGramSettings(order=2, alphabet=2, max_len=2))
    big = study.estimate(NGramSettings(order=2, alphabet=2, max_len=6))
    assert all(0 < a < b for a, b in zip(small, big))
    assert big == cost.estimate(2, 2, 6, models=5 * 3, scan_limit=40)
    huge = cost.estimate(10, 10**12, 8, models=1, scan_limit=40)
    assert huge == (float("inf"), float("inf"))


def test_settings_refuse_what_the_study_cannot_run():
    with pytest.raises(ValueError, match="constructions"):
        NGramSettings(constructions=("3.4",))
    with pytest.raises(ValueError, match="constructions"):
        NGramSettings(constructions=("3.3",), attention="sparse")
    with pytest.raises(ValueError, match="beta"):
        NGramSettings(attention="softmax", constructions=("3.1",))
    with pytest.raises(ValueError, match="precisions"):
        NGramSettings(precisions=("float8",))


def test_soft_study_kl_falls_with_beta():
    """3.3-slots' integer score gap: the KL over the first 2 outcomes falls with beta to 0 (to
    float64 rounding) and stays a divergence (>= 0)."""
    jax.config.update("jax_enable_x64", True)
    lm = tasks.NGramLM.random(5, 2, 2)
    ref = tasks.reference(lm, 2, exhaustive_limit=None)
    answers = functools.partial(running.softmax_log_probs, lm, "3.3-slots", ref.strings)
    (row,) = soft.soft_study(lm, ref, {"3.3-slots": answers}, 1, [], 1e-3)
    kls = np.array([c.kl for c in row.kl_by_beta])
    assert np.all(kls >= -1e-14) and np.all(np.diff(kls) <= 1e-14) and kls[-1] < 1e-12
    assert row.beta_needed == () and row.target_kl == 1e-3


def test_figures_are_drawn_from_records_alone(tmp_path):
    """The figures read only the records' keys (no model): the soft figure from soft_study's rows,
    and no precision figure when no record has a scan (softmax runs)."""
    from transformer_theory.papers.svete_cotterell2024 import _plots as plots

    soft_rows = [
        SoftRow(
            construction="3.1",
            max_len=2,
            kl_by_beta=(KLPoint(beta=1.0, kl=0.1), KLPoint(beta=10.0, kl=0.0)),
            target_kl=1e-3,
            beta_needed=(BetaNeeded(length=0, beta=5.0), BetaNeeded(length=2, beta=None)),
        )
    ]
    path = plots.soft_figure(soft_rows, str(tmp_path / "soft.png"))
    assert (tmp_path / "soft.png").stat().st_size > 0 and path.endswith("soft.png")
    softmax_record = _record(attention="softmax", kl=0.1)
    assert plots.precision_figure([softmax_record], str(tmp_path / "p.png")) is None
    assert not (tmp_path / "p.png").exists()
