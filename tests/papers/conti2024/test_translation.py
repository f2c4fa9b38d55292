"""Smoke tests of the encoder-decoder experiment and of the commands that read trained models:
``heads`` and ``efficient-attention`` on an encoder-decoder run and on a depth-experiment run."""

import json
import os

import pytest

from transformer_theory.cli import main as cli_main
from transformer_theory.papers.chen_zou2024.experiments import named_config
from transformer_theory.papers.conti2024 import _models_translation as translation
from transformer_theory.papers.conti2024 import _study_encdec_translation
from transformer_theory.papers.conti2024._records import TranslationRun
from transformer_theory.papers.conti2024.experiments import encdec_translation
from transformer_theory.sweeps import run_experiment


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One tiny encoder-decoder run and one tiny depth run (trained once for the module)."""
    root = tmp_path_factory.mktemp("trained")
    config = encdec_translation.get_config("smoke")
    config = config.replace(models={"1layer_2heads": config.models["1layer_2heads"]})
    result = _study_encdec_translation.run(config, str(root / "encdec"), progress=False)
    rows, files = result.runs, list(result.files)
    depth = named_config("fig2_depth").replace(tasks=("reasoning",), steps=2)
    depth = depth.replace(heads={"reasoning": ((1, 1),)})
    run_experiment(depth, str(root / "depth"), progress=False)
    return root, rows, files


def test_translation_experiment_writes_its_outputs(trained):
    root, rows, files = trained
    assert all(os.path.exists(f) for f in files)
    (row,) = rows  # a typed run; summary.json holds its flat row, which reads back the same
    assert row.run == "1layer_2heads_seed0" and row.steps == 40
    assert 0 <= row.greedy_exact_match <= row.greedy_token_accuracy <= 1
    assert "beam2_below_smaller_beam" in row.beams and sum(row.head_kinds.values()) == 6
    with open(root / "encdec" / "summary.json") as f:
        (flat,) = json.load(f)
    assert flat == json.loads(json.dumps(row.row())) and TranslationRun.from_row(flat)
    with open(root / "encdec" / "heads.json") as f:
        heads = json.load(f)
    # one layer, 2 heads, three attentions (encoder, decoder, cross)
    assert len(heads) == 6 and {h["attention"] for h in heads} == {"encoder", "decoder", "cross"}
    assert all("share_on_aligned_word" in h for h in heads if h["attention"] == "cross")
    # the run directory reads back into the same parameters' decoding
    params, cfg, data, name = translation.load_run(str(root / "encdec" / row.run))
    assert name == row.run and cfg.num_heads == 2


@pytest.mark.parametrize("which", ["encdec", "depth/reasoning_heads1-1_seed0", "depth"])
def test_heads_command_on_trained_models(trained, which, tmp_path, capsys):
    root, _, _ = trained
    code = cli_main(["heads", str(root / which), "--out", str(tmp_path), "--examples", "4"])
    assert code == 0
    with open(tmp_path / "heads.json") as f:
        recs = json.load(f)
    assert recs and all(
        r["kind"] in ("positional", "rare_token", "syntactic", "other", "empty") for r in recs
    )
    assert all(0 <= r["score"] <= 1 for r in recs)
    assert (tmp_path / "heads.csv").exists()


def test_efficient_attention_command(trained, tmp_path, capsys):
    root, _, _ = trained
    argv = [
        "efficient-attention",
        "--out",
        str(tmp_path),
        "--min-len",
        "32",
        "--max-len",
        "64",
        "--error-len",
        "16",
        "--error-batch",
        "1",
        "--repeats",
        "1",
        "--examples",
        "2",
        "--variants",
        "taylor,dense",
        "--run",
        str(root / "encdec"),
        "--run",
        str(root / "depth" / "reasoning_heads1-1_seed0"),
        "--no-progress",
    ]
    assert cli_main(argv) == 0
    with open(tmp_path / "cost.json") as f:
        cost = json.load(f)
    assert {r["n"] for r in cost["records"]} == {32, 64} and "XLA" in cost["memory"]
    with open(tmp_path / "errors.json") as f:
        errors = json.load(f)
    sources = {r["inputs"] for r in errors}
    assert len(sources) == 4 and all(r["variant"] == "taylor" for r in errors)
    assert (tmp_path / "cost.png").exists() and (tmp_path / "errors.png").exists()


def test_the_config_has_its_sizes_and_names_an_unknown_one():
    from transformer_theory.papers.conti2024.experiments import encdec_translation

    smoke, default = (encdec_translation.get_config(s) for s in ("smoke", "default"))
    assert (
        smoke.train.steps < default.train.steps
        and default == encdec_translation.TranslationSettings()
    )
    assert encdec_translation.get_config("smoke") == smoke
    with pytest.raises(ValueError, match="size"):
        encdec_translation.get_config("huge")


def test_the_split_is_the_translation_grammar_with_its_bos():
    import jax
    import numpy as np

    from transformer_theory.papers.conti2024._tasks import BOS, Translation

    task = Translation(num_nouns=2, num_adjectives=1, num_verbs=1)
    data = translation.split_translation(task, jax.random.key(0), holdout=0.25)
    src, tgt = map(np.asarray, task.all_pairs())
    assert data.bos == BOS and data.split.holdout == 0.25
    assert data.src_eval_BxN.shape[0] == data.split.eval_size == round(0.25 * src.shape[0])
    # every pair lands in exactly one side, unchanged
    pairs = {(tuple(s), tuple(t)) for s, t in zip(src, tgt)}
    got = [
        (tuple(s), tuple(t))
        for a, b in (
            (data.src_train_BxN, data.tgt_train_BxT),
            (data.src_eval_BxN, data.tgt_eval_BxT),
        )
        for s, t in zip(a, b)
    ]
    assert len(got) == len(pairs) and set(got) == pairs


def test_the_script_runs_the_smoke_size(tmp_path, capsys):
    """``experiments/encdec_translation.py --size smoke`` (one model, a few steps) through
    :func:`encdec_translation.run` into tmp_path."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[3] / "experiments" / "encdec_translation.py"
    spec = importlib.util.spec_from_file_location("encdec_translation_script", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "smoke"
    argv = ["--size", "smoke", "--steps", "4", "--out", str(out), "--no-progress"]
    assert script.main(argv) == 0
    printed = capsys.readouterr().out
    assert "1layer_1head_seed0: greedy exact match" in printed and "done in" in printed
    with open(out / "summary.json") as f:
        rows = json.load(f)
    assert [r["run"] for r in rows] == ["1layer_1head_seed0", "1layer_2heads_seed0"]
    assert all(r["steps"] == 4 for r in rows) and (out / "summary.csv").exists()


def test_a_stopped_translation_run_resumes_bit_for_bit(tmp_path):
    """The seq2seq trainer drives the shared runner: a run stopped after 3 steps and resumed ends
    on the parameters and metric rows of the uninterrupted run."""
    import jax
    import numpy as np
    from flax import nnx

    from transformer_theory.nn.encdec import EncoderDecoder, Seq2SeqConfig
    from transformer_theory.papers.conti2024._tasks import Translation
    from transformer_theory.train import TrainSettings
    from transformer_theory.train import seq2seq as s2s

    task = Translation(num_nouns=2, num_adjectives=1, num_verbs=1)
    data = translation.split_translation(task, jax.random.key(0), holdout=0.25)
    cfg = Seq2SeqConfig(vocab_size=task.vocab_size, width=8, num_heads=1, ffn_hidden=16)
    tc = TrainSettings(steps=6, batch_size=4, learning_rate=1e-2, optimizer="adam", log_every=2)
    tc = tc.replace(checkpoint_every=3)

    def train(out, **kw):
        model = EncoderDecoder(cfg, rngs=nnx.Rngs(0))
        return s2s.train_seq2seq(model, data, tc, str(out), progress=False, **kw)

    full, full_rows = train(tmp_path / "full")
    train(tmp_path / "part", stop_after=3)
    part, part_rows = train(tmp_path / "part")
    for a, b in zip(jax.tree.leaves(part), jax.tree.leaves(full)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))

    def strip(rows):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]

    assert strip(part_rows) == strip(full_rows) and [r["step"] for r in full_rows] == [0, 2, 4, 6]
