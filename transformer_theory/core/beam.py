"""Beam-search decoding (Conti 2024, §1.2.5) for any next-token model, and for the encoder-decoder.

Conti 2024 decodes greedily (append the argmax token) and mentions beam search: keep the
``beam_size`` prefixes of highest log-probability, extend each by every token, keep the best
``beam_size`` again. :func:`beam_search` does this for any ``logprob_fn(buffer, t)`` -- the
log-probabilities of the token after ``buffer[: t + 1]`` --, on a fixed buffer
``[bos, y_0, ..., y_{length-1}]`` (one shape for every step, one compile, as
:func:`~transformer_theory.core.encdec.greedy_decode`); :func:`beam_decode` plugs in the
Post-LN encoder-decoder. No end-of-sequence stop: every hypothesis has ``length`` tokens.

:func:`beam_search_eos` / :func:`beam_decode_eos` are the decoder users of fairseq and Hugging
Face recognise (our implementation of their rules, not their code):

- a candidate that ends in ``eos`` and ranks among the ``beam_size`` best candidates of its step
  (by raw log-probability, as fairseq and Hugging Face rank them) is *finished*: it leaves the
  beam and joins the finished hypotheses, scored ``log p(y) / lp(|y|)`` with ``|y|`` its token
  count including ``eos`` and the length penalty ``lp(m) = ((5 + m) / 6)^alpha`` (GNMT, Wu et al.
  2016) or ``m^alpha`` (``penalty="power"``); ``alpha = 0`` scores by log-probability;
- the beam continues with the ``beam_size`` best candidates that do not end in ``eos``;
- with ``early_stopping`` (fairseq's rule) the search stops once ``beam_size`` hypotheses have
  finished; otherwise it runs to ``max_len``. Hypotheses still in the beam at ``max_len`` are
  kept unfinished (Hugging Face's rule), with ``|y| = max_len`` and no ``eos`` probability;
- the ``beam_size`` finished hypotheses of highest score are returned, best first. Where more
  hypotheses finish in one step than places are left, the best by score are kept (fairseq keeps
  the first by raw rank).

With ``beam_size = 1`` and ``alpha = 0`` this is greedy decoding that stops at ``eos``; with a
beam that keeps every prefix it is exact: the returned hypothesis maximises the score over all
hypotheses (``tests/core/test_beam.py`` checks both against brute-force enumeration on random
lookup-table models, and narrow beams against a plain-Python transcription of the rules above).

What beam search guarantees, and what it does not:

- ``beam_size = 1`` is greedy decoding;
- the returned log-probability is the teacher-forced log-probability of the returned sequence
  (:func:`sequence_logprob`), and it is at most the best over all ``V^length`` sequences, which
  a beam of ``V^(length - 1)`` hypotheses reaches (it keeps every prefix);
- a larger beam does NOT always find a sequence at least as likely as a smaller beam's: a prefix
  that ranks among the best ``k + 1`` but not the best ``k`` can push the smaller beam's
  eventual winner out of the larger beam. ``tests/core/test_beam.py`` builds such a language
  model (every row a distribution over ``{a, b, c}``): ``p(a) = .45, p(b) = .44``; after ``a``,
  ``a`` .46 and ``b`` .44; after ``b``, ``a`` and ``b`` .5 each; after ``aa``, ``a`` certain;
  after ``ba`` and ``bb``, uniform. The beam of 1 follows ``a, a, a`` (``.45 * .46 = .207``);
  the beam of 2 keeps ``ba`` and ``bb`` (``.22`` each, above ``aa``'s ``.207``) and ends at
  ``.22 / 3 = .073``. On trained models it is rare, and the experiments report how often it
  happens.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike, DTypeLike

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


PENALTIES = ("gnmt", "power")


class Hypotheses(NamedTuple):
    """Finished hypotheses of :func:`beam_search_eos`, best first (``K = beam_size``).

    Attributes:
      tokens_KxL: int32, each hypothesis's tokens (``bos`` excluded) up to and including ``eos``,
        then ``eos`` as padding; ``L = max_len``.
      lengths_K: tokens up to and including ``eos`` (``max_len`` for one cut at ``max_len``).
      logprobs_K: ``log p(y)`` of those tokens.
      scores_K: ``logprobs / lp(lengths)``, the ranking key (``-inf``: an empty slot).
      finished_K: whether the hypothesis ended in ``eos``.
    """

    tokens_KxL: jax.Array
    lengths_K: jax.Array
    logprobs_K: jax.Array
    scores_K: jax.Array
    finished_K: jax.Array


def length_penalty(
    length: ArrayLike, alpha: float, penalty: str = "gnmt", dtype: DTypeLike = jnp.float32
) -> jax.Array:
    """``((5 + m) / 6)^alpha`` (GNMT, Wu et al. 2016) or ``m^alpha`` (``"power"``), in
    ``dtype`` (the scores')."""
    m = jnp.asarray(length).astype(dtype)
    return ((5.0 + m) / 6.0) ** alpha if penalty == "gnmt" else m**alpha


def _check_eos_args(eos, bos, vocab_size, alpha, penalty):
    if not (isinstance(eos, int) and 0 <= eos < vocab_size):
        raise ValueError(f"eos: expected a token id in [0, {vocab_size}), got {eos!r}")
    if not 0 <= bos < vocab_size:
        raise ValueError(f"bos: expected a token id in [0, {vocab_size}), got {bos}")
    _validate.check_finite("alpha", alpha)
    if alpha < 0:
        raise ValueError(f"alpha: expected a non-negative length-penalty exponent, got {alpha}")
    _validate.check_choice("penalty", penalty, PENALTIES)


def beam_search_eos(
    logprob_fn: LogprobFn,
    bos: int,
    eos: int,
    max_len: int,
    beam_size: int,
    vocab_size: int,
    *,
    alpha: float = 0.0,
    penalty: str = "gnmt",
    early_stopping: bool = True,
) -> Hypotheses:
    """Beam search that stops hypotheses at ``eos`` and ranks them with a length penalty (the
    rules are in the module docstring).

    Args:
      logprob_fn: as in :func:`beam_search`; ``buffer`` has length ``max_len + 1``.
      bos: the first buffer entry.
      eos: the end-of-sequence token.
      max_len: at most this many tokens per hypothesis (``eos`` included).
      beam_size: ``k``, hypotheses kept in the beam and returned.
      vocab_size: ``V``.
      alpha: length-penalty exponent (0: rank by log-probability).
      penalty: ``"gnmt"`` (``((5 + m) / 6)^alpha``) or ``"power"`` (``m^alpha``).
      early_stopping: stop once ``k`` hypotheses have ended in ``eos`` (fairseq); else run to
        ``max_len``.
    Returns:
      :class:`Hypotheses`, best first.
    """
    _validate.check_positive("max_len", max_len)
    _validate.check_positive("beam_size", beam_size)
    _validate.check_positive("vocab_size", vocab_size)
    _check_eos_args(eos, bos, vocab_size, alpha, penalty)
    if not callable(logprob_fn):
        raise ValueError(
            f"logprob_fn: expected a callable (buffer, t) -> log_probs, got {logprob_fn!r}"
        )
    k, length = beam_size, max_len
    dtype = jax.eval_shape(logprob_fn, jnp.zeros((length + 1,), jnp.int32), 0).dtype
    ninf = jnp.asarray(-jnp.inf, dtype)
    top = min(k, k * vocab_size)

    def merge(fin, tokens, lengths, lps, scores, ended):
        """The ``k`` best by score of the finished hypotheses and the new ones (ties: the older)."""
        all_ = [jnp.concatenate([a, b]) for a, b in zip(fin, (tokens, lengths, lps, scores, ended))]
        _, idx = jax.lax.top_k(all_[3], k)
        return tuple(a[idx] for a in all_)

    def step(t, carry):
        buf, alive, fin, count, done = carry
        lp = jax.vmap(logprob_fn, in_axes=(0, None))(buf, t).astype(dtype)
        cand = (alive[:, None] + lp).reshape(-1)
        # 1. eos candidates among the k best candidates of the step finish.
        best, idx = jax.lax.top_k(cand, top)
        parent, tok = idx // vocab_size, idx % vocab_size
        ends = (tok == eos) & jnp.isfinite(best)
        toks = buf[parent, 1:]
        pos = jnp.arange(length)
        toks = jnp.where(pos[None, :] >= t, eos, toks).astype(jnp.int32)
        m = jnp.full((top,), t + 1, jnp.int32)
        score = jnp.where(ends, best / length_penalty(t + 1, alpha, penalty, dtype), ninf)
        new_fin = merge(fin, toks, m, best, score, ends)
        # 2. the beam goes on with the k best candidates that do not end in eos.
        cont = jnp.where(jnp.arange(vocab_size)[None, :] == eos, ninf, lp)
        cand2 = (alive[:, None] + cont).reshape(-1)
        best2, idx2 = jax.lax.top_k(cand2, k)
        new_buf = buf[idx2 // vocab_size].at[:, t + 1].set((idx2 % vocab_size).astype(jnp.int32))
        new_count = count + jnp.sum(ends, dtype=jnp.int32)
        keep = lambda new, old: jax.tree.map(lambda a, b: jnp.where(done, b, a), new, old)  # noqa: E731
        buf, alive, fin = keep((new_buf, best2, new_fin), (buf, alive, fin))
        count = jnp.where(done, count, new_count)
        done = done | (early_stopping & (count >= k))
        return buf, alive, fin, count, done

    buf = jnp.full((k, length + 1), bos, jnp.int32)
    alive = jnp.full((k,), ninf).at[0].set(0.0)  # one live hypothesis at the start
    fin = (
        jnp.full((k, length), eos, jnp.int32),
        jnp.zeros((k,), jnp.int32),
        jnp.full((k,), ninf),
        jnp.full((k,), ninf),
        jnp.zeros((k,), bool),
    )
    carry = (buf, alive, fin, jnp.zeros((), jnp.int32), jnp.zeros((), bool))
    buf, alive, fin, _, done = jax.lax.fori_loop(0, length, step, carry)
    # Hypotheses still in the beam at max_len: kept unfinished, |y| = max_len.
    cut = jnp.where(done, ninf, alive / length_penalty(length, alpha, penalty, dtype))
    fin = merge(
        fin,
        buf[:, 1:],
        jnp.full((k,), length, jnp.int32),
        jnp.where(done, ninf, alive),
        cut,
        jnp.zeros((k,), bool),
    )
    return Hypotheses(*fin)


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
    **kwargs: Any,
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


def beam_decode_eos(
    params: encdec.Seq2SeqParams,
    src_N: jax.Array,
    bos: int,
    eos: int,
    max_len: int,
    beam_size: int,
    *,
    alpha: float = 0.0,
    penalty: str = "gnmt",
    early_stopping: bool = True,
    **kwargs: Any,
) -> Hypotheses:
    """:func:`beam_search_eos` with the Post-LN encoder-decoder: hypotheses stop at ``eos`` and
    are ranked with a length penalty (``alpha``, ``penalty``); ``**kwargs`` as
    :func:`beam_decode`."""
    vocab = _check_src(params, src_N)
    _validate.check_positive("max_len", max_len)
    _validate.check_positive("beam_size", beam_size)
    _check_eos_args(eos, bos, vocab, alpha, penalty)
    fn = _decoder_logprobs(params, src_N, max_len, **kwargs)
    return beam_search_eos(
        fn,
        bos,
        eos,
        max_len,
        beam_size,
        vocab,
        alpha=alpha,
        penalty=penalty,
        early_stopping=early_stopping,
    )


def sequence_logprob(
    params: encdec.Seq2SeqParams, src_N: jax.Array, tokens_T: jax.Array, bos: int, **kwargs: Any
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
