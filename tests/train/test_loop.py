"""Training loop: learning happens, a killed run resumes bit for bit, §9.1 initialization and
patterns."""

import os

import jax
import numpy as np
import pytest

from transformer_theory import tasks
from transformer_theory.constructions.reasoning import theorem3
from transformer_theory.core.forward import forward_trace
from transformer_theory.train import (
    DataSettings,
    TaskData,
    TrainSettings,
    first_layer_pattern,
    paper_init,
    train,
)


def _mem_setup(num=16):
    task = tasks.SequenceClassification(4, 2, num, seed=0)
    config = task.model_config(heads=(1,))
    params = paper_init(jax.random.key(0), config, task, w_v="identity")
    data = TaskData(task, jax.random.key(1), DataSettings(eval_on_train=True))
    return task, params, data


def test_train_learning_happens_on_tiny_memorization_set():
    _, params, data = _mem_setup()
    res = train(
        params,
        data,
        TrainSettings(steps=300, batch_size=16, learning_rate=0.1, grad_clip=1.0, log_every=100),
        progress=False,
    )
    first, last = res.metrics[0], res.metrics[-1]
    assert [r["step"] for r in res.metrics] == [0, 100, 200, 300]
    # "well below": at least a factor 10 (initial loss is about log(16) + the random logit spread).
    assert last["eval_loss"] < 0.1 * first["eval_loss"], (first, last)
    assert last["eval_acc"] == 1.0


def test_train_resume_after_kill_is_bitwise(tmp_path):
    task = tasks.InContextQA(3, 3, 2)
    config = task.model_config(heads=(1, 1))
    params = paper_init(jax.random.key(0), config, task, w_v="identity")
    data = TaskData(task, jax.random.key(2), DataSettings(holdout=0.25))
    # Adam: its moment estimates must be restored too, or the resumed run drifts.
    tc = TrainSettings(
        steps=12,
        batch_size=8,
        learning_rate=0.01,
        optimizer="adam",
        log_every=3,
        checkpoint_every=6,
        seed=4,
    )
    full = train(params, data, tc, str(tmp_path / "full"), progress=False)
    killed = train(params, data, tc, str(tmp_path / "resumed"), stop_after=6, progress=False)
    assert killed.steps_done == 6 and killed.metrics[-1]["step"] == 6
    assert sorted(os.listdir(tmp_path / "resumed" / "checkpoints")) == ["6"]
    # A fresh process would rebuild the same initial model; it must be ignored in favour of step 6.
    resumed = train(params, data, tc, str(tmp_path / "resumed"), progress=False)
    assert resumed.steps_done == 12
    for a, b in zip(jax.tree.leaves(full.params), jax.tree.leaves(resumed.params)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))

    def strip(rows):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]

    assert strip(full.metrics) == strip(resumed.metrics)
    assert [r["step"] for r in resumed.metrics] == [0, 3, 6, 9, 12]
    # Sanity: the comparison can fail -- a different seed gives different parameters.
    other = train(params, data, tc.replace(seed=5), None, progress=False)
    assert any(
        not np.array_equal(np.asarray(a), np.asarray(b))
        for a, b in zip(jax.tree.leaves(full.params), jax.tree.leaves(other.params))
    )


def test_train_paper_init_follows_section_9_1():
    task = tasks.InContextQA(3, 3, 2)
    config = task.model_config(heads=(2, 1))
    p = paper_init(jax.random.key(0), config, task, w_v="ones")
    w_qk2, w_o = np.asarray(p.layers[1].attn.w_qk), np.asarray(p.w_o)
    assert (
        (w_qk2 >= 0).all() and (w_qk2 < 1).all() and w_qk2.std() > 0.2
    )  # uniform [0, 1): std 0.289
    assert (w_o >= 0).all() and (w_o < 1).all()
    assert (np.asarray(p.layers[0].attn.w_v) == 1.0).all()
    q = paper_init(jax.random.key(0), config, task, w_v="identity")
    np.testing.assert_array_equal(np.asarray(q.layers[1].attn.w_v[0]), np.eye(config.width))
    mem = tasks.SequenceClassification(4, 2, 8)
    m = paper_init(jax.random.key(0), mem.model_config(heads=(1,)), mem)
    assert (np.asarray(m.layers[0].attn.w_qk) < 1).all() and np.asarray(
        m.layers[0].attn.w_qk
    ).std() > 0.2


def test_train_reasoning_pattern_is_theorem3_copy_map():
    """Independent reference of §13.2's alpha^(1): block-diagonal 1 - I over q-r-a triples and the
    final pair."""
    k = 3
    task = tasks.InContextQA(4, 4, k)
    config = task.model_config()
    d, n = config.vocab_size, config.seq_len
    block = np.array([i // 3 for i in range(3 * k)] + [k, k])
    alpha = ((block[:, None] == block[None, :]) & ~np.eye(n, dtype=bool)).astype(float)
    w = first_layer_pattern(task, config)
    np.testing.assert_array_equal(w[d : d + n, d : d + n], alpha)
    assert np.count_nonzero(w) == np.count_nonzero(alpha)
    # Under ReLU with one-hot inputs the initial first-layer map IS alpha (row = query i: alpha[j,
    # i]^T).
    p = paper_init(jax.random.key(0), config.replace(heads=(1,)), task, w_v="identity")
    tokens, _ = task.sample(jax.random.key(3), 4)
    maps = jax.jit(jax.vmap(lambda t: forward_trace(p, t).attention[0][0]))(tokens)
    for map_NxN in np.asarray(maps):
        np.testing.assert_array_equal(map_NxN, alpha.T)
    np.testing.assert_array_equal(np.asarray(theorem3(task).layers[0].attn.w_qk[0]), w)


def test_train_contextual_pattern_confines_attention_to_blocks():
    """§15's first layer (with -1 for -inf): ReLU attention never crosses a question block, and
    within
    a block query i attends to key j exactly when the symbols are equal."""
    task = tasks.InContextTemplateMatching(4, 3, tasks.all_templates(2), 2)
    l, k = 2, 2
    config = task.model_config(heads=(1,), width=task.vocab_size + task.seq_len + l + 2)
    p = paper_init(jax.random.key(0), config, task, w_v="identity")
    block = np.array([i // (l + 2) for i in range(k * (l + 2))] + [k] * (l + 1))
    tokens, _ = task.sample(jax.random.key(1), 16)
    maps = np.asarray(
        jax.jit(jax.vmap(lambda t: forward_trace(p, t).attention[0][0]))(tokens)
    )  # [query i, key j]
    for t, w in zip(np.asarray(tokens), maps):
        same_sym = (t[:, None] == t[None, :]) & (t[:, None] < 4)
        want = (same_sym & (block[:, None] == block[None, :])).astype(float)
        np.testing.assert_array_equal(w, want)


def test_train_generalization_pattern_parses_equal_symbols():
    task = tasks.TemplateMatching(5, tasks.all_templates(3))
    config = task.model_config()
    w = first_layer_pattern(task, config)
    ref = np.zeros((config.width, config.width))
    ref[:5, :5] = np.eye(5)
    np.testing.assert_array_equal(w, ref)
    assert (
        first_layer_pattern(
            tasks.SequenceClassification(4, 2, 8),
            tasks.SequenceClassification(4, 2, 8).model_config(),
        )
        is None
    )


@pytest.mark.parametrize(
    "bad", [dict(steps=0), dict(batch_size=-1), dict(optimizer="rmsprop"), dict(learning_rate=0.0)]
)
def test_train_config_errors_name_the_argument(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        TrainSettings(**bad)


def test_train_rejects_mismatched_data():
    task, params, data = _mem_setup()
    other = tasks.InContextQA(3, 3, 2)
    with pytest.raises(ValueError, match="data"):
        train(params, TaskData(other, jax.random.key(0)), TrainSettings(steps=1), progress=False)
    with pytest.raises(ValueError, match="model"):
        train("params", data, TrainSettings(steps=1), progress=False)


def test_train_balanced_template_data_puts_chance_at_one_over_classes():
    """Template matching is dominated by the all-distinct template (720 of 1000 sequences here);
    with
    balance_classes every class weighs 1/C, so a constant guess scores exactly 1/C on the held-out
    set."""
    task = tasks.TemplateMatching(10, tasks.all_templates(3))
    plain = TaskData(task, jax.random.key(0), DataSettings(holdout=0.2))
    bal = TaskData(task, jax.random.key(0), DataSettings(holdout=0.2, balance_classes=True))
    labels, w = np.asarray(bal.eval_labels_B), np.asarray(bal.eval_weights_B, np.float64)
    np.testing.assert_array_equal(labels, np.asarray(plain.eval_labels_B))  # same split
    assert abs(w.sum() - 1.0) < 1e-6
    majority = np.bincount(labels).argmax()
    assert np.mean(labels == majority) > 0.6  # unbalanced: the constant guess looks good
    for c in range(5):
        assert abs(w[labels == c].sum() - 0.2) < 1e-6  # balanced: it scores 1/5
    tokens, batch_labels = bal.batch(jax.random.key(3), 2000)
    counts = np.bincount(np.asarray(batch_labels), minlength=5)
    assert counts.min() > 300 and counts.max() < 500  # ~400 each (binomial sd ~18)
