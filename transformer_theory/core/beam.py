"""Beam-search decoding (Conti 2024, §1.2.5) for any next-token model, and for the encoder-decoder.

Conti 2024 decodes greedily (append the argmax token) and mentions beam search: keep the
``beam_size`` prefixes of highest log-probability, extend each by every token, keep the best
``beam_size`` again. :func:`beam_search` does this for any ``logprob_fn(buffer, t)`` -- the
log-probabilities of the token after ``buffer[: t + 1]`` --, on a fixed buffer
``[bos, y_0, ..., y_{length-1}]`` (one shape for every step, one compile, as
:func:`~transformer_theory.core.encdec.greedy_decode`); :func:`beam_decode` plugs in the
Post-LN encoder-decoder. No end-of-sequence stop: every hypothesis has ``length`` tokens.

What beam search guarantees, and what it does not:

- ``beam_size = 1`` is greedy decoding;
- the returned log-probability is the teacher-forced log-probability of the returned sequence
  (:func:`sequence_logprob`), and it is at most the best over all ``V^length`` sequences, which
  a beam of ``V^(length - 1)`` hypotheses reaches (it keeps every prefix);
- a larger beam does NOT always find a sequence at least as likely as a smaller beam's: a prefix
  that ranks among the best ``k + 1`` but not the best ``k`` can push the smaller beam's
  eventual winner out of the larger beam. ``tests/core/test_beam.py`` builds such a model; on
  trained models it is rare, and the experiments report how often it happens.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from transformer_theory import _validate
from transformer_theory.core import encdec

LogprobFn = Callable[[jax.Array, jax.Array], jax.Array]


def beam_search(
    logprob_fn: LogprobFn, bos: int, length: int, beam_size: int, vocab_size: int
) -> tuple[jax.Array, jax.Array]:
    """Beam search over ``length`` tokens.

    Args:
      logprob_fn: ``(buffer, t) -> log_probs_V``: log-probabilities of the token that follows
        ``buffer[: t + 1]`` (the slots after ``t`` hold placeholders and must not matter, e.g. a
        causal decoder). ``buffer`` is int32 of length ``length + 1``.
      bos: the first buffer entry.
      length: tokens to generate.
      beam_size: hypotheses kept after every step.
      vocab_size: ``V``, the width of ``logprob_fn``'s output.
    Returns:
      ``(tokens, logprobs)``: ``tokens`` int32 ``(beam_size, length)`` (``bos`` excluded), best
      first, and their log-probabilities (``-inf`` for slots a small vocabulary cannot fill).
    """
    _validate.check_positive("length", length)
    _validate.check_positive("beam_size", beam_size)
    _validate.check_positive("vocab_size", vocab_size)
    if not 0 <= bos < vocab_size:
        raise ValueError(f"bos: expected a token id in [0, {vocab_size}), got {bos}")
    if not callable(logprob_fn):
        raise ValueError(
            f"logprob_fn: expected a callable (buffer, t) -> log_probs, got {logprob_fn!r}"
        )

    def step(t, carry):
        buf, scores = carry
        lp = jax.vmap(logprob_fn, in_axes=(0, None))(buf, t)
        cand = (scores[:, None] + lp).reshape(-1)
        best, idx = jax.lax.top_k(cand, beam_size)
        parent, tok = idx // vocab_size, (idx % vocab_size).astype(jnp.int32)
        return buf[parent].at[:, t + 1].set(tok), best

    dtype = jax.eval_shape(logprob_fn, jnp.zeros((length + 1,), jnp.int32), 0).dtype
    buf = jnp.full((beam_size, length + 1), bos, jnp.int32)
    # One live hypothesis at the start: copies of it would fill the beam with duplicates.
    scores = jnp.full((beam_size,), -jnp.inf, dtype).at[0].set(0.0)
    buf, scores = jax.lax.fori_loop(0, length, step, (buf, scores))
    return buf[:, 1:], scores


def _decoder_logprobs(params: encdec.Seq2SeqParams, src_N: jax.Array, length: int, **kwargs):
    z = encdec.encode(params.encoder, encdec.seq2seq_embed(params.embed, src_N), **kwargs)

    def logprob_fn(buf, t):
        y = encdec.decode(
            params.decoder, encdec.seq2seq_embed(params.embed, buf[:length]), z, **kwargs
        )
        return jax.nn.log_softmax(y[t] @ params.w_p)

    return logprob_fn


def _check_src(params: encdec.Seq2SeqParams, src_N: jax.Array) -> int:
    vocab = params.embed.shape[0]
    _validate.check_ndim("src_N", src_N, 1)
    _validate.check_token_ids("src_N", src_N, vocab)
    return vocab


def beam_decode(
    params: encdec.Seq2SeqParams,
    src_N: jax.Array,
    bos: int,
    length: int,
    beam_size: int,
    **kwargs,
) -> tuple[jax.Array, jax.Array]:
    """Beam search with the Post-LN encoder-decoder (Conti 2024, §1.2.5).

    Args:
      params: the model.
      src_N: source token ids.
      bos: the decoder's start token.
      length: tokens to generate.
      beam_size: hypotheses kept (1 = :func:`~transformer_theory.core.encdec.greedy_decode`).
      **kwargs: ``norm``, ``eps``, ``activation`` of the blocks.
    Returns:
      ``(tokens, logprobs)`` as :func:`beam_search`: ``(beam_size, length)`` hypotheses, best
      first, with their log-probabilities.
    """
    vocab = _check_src(params, src_N)
    _validate.check_positive("length", length)
    _validate.check_positive("beam_size", beam_size)  # before the encoder runs
    fn = _decoder_logprobs(params, src_N, length, **kwargs)
    return beam_search(fn, bos, length, beam_size, vocab)


def sequence_logprob(
    params: encdec.Seq2SeqParams, src_N: jax.Array, tokens_T: jax.Array, bos: int, **kwargs
) -> jax.Array:
    """Teacher-forced log-probability ``sum_t log p(y_t | y_<t, x)`` of ``tokens_T`` after
    ``bos``."""
    vocab = _check_src(params, src_N)
    _validate.check_ndim("tokens_T", tokens_T, 1)
    _validate.check_token_ids("tokens_T", tokens_T, vocab)
    if not 0 <= bos < vocab:
        raise ValueError(f"bos: expected a token id in [0, {vocab}), got {bos}")
    tokens = jnp.asarray(tokens_T, jnp.int32)
    inputs = jnp.concatenate([jnp.full((1,), bos, jnp.int32), tokens[:-1]])
    logits = encdec.seq2seq_logits(params, src_N, inputs, **kwargs)
    lp = jax.nn.log_softmax(logits, axis=-1)
    return jnp.sum(jnp.take_along_axis(lp, tokens[:, None], axis=-1))
