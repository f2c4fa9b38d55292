"""The NNX encoder-decoder: one parameter format with the core, attention maps, and training.

The module must compute exactly ``core.encdec.seq2seq_logits`` on its ``Seq2SeqParams`` (float64),
its maps must be the softmax of the projected queries and keys written here in NumPy, and a small
model trained with teacher forcing must translate the grammar's sentences exactly.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from tests.helpers import assert_close
from transformer_theory.core import encdec
from transformer_theory.nn.encdec import (
    EncoderDecoder,
    Seq2SeqConfig,
    attention_maps,
    from_params,
    to_params,
)
from transformer_theory.papers.conti2024._models_translation import split_translation
from transformer_theory.papers.conti2024._tasks import Translation, token_accuracy
from transformer_theory.train import TrainSettings, rundir
from transformer_theory.train import seq2seq as s2s

CONFIG = Seq2SeqConfig(vocab_size=11, width=8, num_heads=2, ffn_hidden=12, num_layers=1)


@functools.cache
def model64():
    return EncoderDecoder(CONFIG, rngs=nnx.Rngs(0), dtype=jnp.float64)


def test_module_is_the_functional_model_on_the_same_params():
    model = model64()
    p = to_params(model)
    assert isinstance(p, encdec.Seq2SeqParams)
    assert len(jax.tree.leaves(nnx.state(model, nnx.Param))) == len(jax.tree.leaves(p))
    src = jax.random.randint(jax.random.key(1), (3, 5), 0, 11)
    tgt = jax.random.randint(jax.random.key(2), (3, 4), 0, 11)
    out = jax.jit(lambda s, t: model(s, t))(src, tgt)
    ref = jax.jit(jax.vmap(lambda s, t: encdec.seq2seq_logits(p, s, t)))(src, tgt)
    assert out.shape == (3, 4, 11)
    assert_close(out, ref)
    back = to_params(from_params(p, CONFIG))
    for a, b in zip(jax.tree.leaves(back), jax.tree.leaves(p)):
        np.testing.assert_array_equal(a, b)


def np_layernorm_sigma(x, g, b, eps=1e-6):
    mu = x.mean(-1, keepdims=True)
    return g * (x - mu) / (x.std(-1, keepdims=True) + eps) + b


def test_attention_maps_are_the_softmax_of_the_heads():
    p = jax.tree.map(np.asarray, to_params(model64()))
    src, tgt = np.array([3, 1, 4, 1, 5]), np.array([1, 9, 2])
    maps = jax.jit(lambda s, t: attention_maps(to_params(model64()), s, t))(src, tgt)
    assert maps["encoder"].shape == (1, 2, 5, 5)
    assert maps["decoder"].shape == (1, 2, 3, 3) and maps["cross"].shape == (1, 2, 3, 5)
    # Encoder self-attention from the embedding, written out (Conti 2024, §1.2.2, eq. 1).
    d = 8
    pos = np.arange(5)[:, None] / 10000 ** (2 * (np.arange(d) // 2) / d)[None]
    pe = np.where(np.arange(d) % 2 == 0, np.sin(pos), np.cos(pos))
    x = p.embed[src] * np.sqrt(d) + pe
    a = p.encoder[0].attn
    for h in range(2):
        s = (x @ a.w_q[h]) @ (x @ a.w_k[h]).T / np.sqrt(a.w_q.shape[2])
        w = np.exp(s - s.max(1, keepdims=True))
        assert_close(maps["encoder"][0, h], w / w.sum(1, keepdims=True))
    dec = np.asarray(maps["decoder"][0])
    assert np.all(np.triu(dec, 1) == 0)  # masked (causal) self-attention, Conti 2024, eq. 10
    for m in maps.values():
        assert_close(np.asarray(m).sum(-1), np.ones(m.shape[:-1]))


def test_config_and_params_are_checked():
    with pytest.raises(ValueError, match="num_heads"):
        Seq2SeqConfig(vocab_size=5, width=6, num_heads=4)
    with pytest.raises(ValueError, match="width"):
        Seq2SeqConfig(vocab_size=5, width=7)
    with pytest.raises(ValueError, match="params.embed"):
        from_params(to_params(model64()), CONFIG.replace(vocab_size=12))


def test_trained_model_translates_and_resumes(tmp_path):
    # 2 nouns, 1 adjective, 1 verb: 16 sentence pairs, every one in training (holdout 1/16).
    task = Translation(num_nouns=2, num_adjectives=1, num_verbs=1, optional_adjectives=False)
    data = split_translation(task, jax.random.key(0), holdout=1 / 16)
    cfg = Seq2SeqConfig(vocab_size=task.vocab_size, width=16, num_heads=2, ffn_hidden=32)
    model = EncoderDecoder(cfg, rngs=nnx.Rngs(0))
    tc = TrainSettings(
        steps=150,
        batch_size=16,
        learning_rate=1e-2,
        optimizer="adam",
        log_every=50,
        checkpoint_every=75,
    )
    out = str(tmp_path / "run")
    params, rows = s2s.train_seq2seq(model, data, tc, out, progress=False)
    assert rows[-1]["train_loss"] < 0.05 < rows[0]["eval_loss"]
    src = np.concatenate([data.src_train_BxN, data.src_eval_BxN])
    ref = np.concatenate([data.tgt_train_BxT, data.tgt_eval_BxT])
    decoded, _ = s2s.decode_all(params, src, task.target_len)
    scores = token_accuracy(decoded, ref)
    assert scores["exact_match"] >= 15 / 16, scores
    # The directory holds this run: restoring gives the final parameters; other settings refused.
    restored = s2s.restore_seq2seq(out, EncoderDecoder(cfg, rngs=nnx.Rngs(0)), tc)
    for a, b in zip(jax.tree.leaves(restored), jax.tree.leaves(params)):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(rundir.RunDirectoryError, match="learning_rate"):
        s2s.train_seq2seq(model, data, tc.replace(learning_rate=0.5), out, progress=False)
