"""How long the n-gram constructions stay exact in a float format (Svete & Cotterell 2024,
Theorems 3.1-3.3): measured by running the model, and derived from the score's gap.

- :func:`selection_scan`: the longest string length ``L`` such that the model's attention is the
  proof's (3.1/3.2: the one key ``t - h``; 3.3-slots: the ``n - 1`` window keys uniformly) at every
  query of every length up to ``L``, in the parameters' dtype; the model is run at every length,
  since its rounding depends on the length (:func:`attention_scan` given the heads' offsets,
  :func:`intended_attention`, :func:`first_wrong_query`).
- :func:`paper33_scan`: the same for the paper's 3.3, on sampled strings (its decoding reads the
  symbols; :func:`decoding_scan` given the decoded histories and the histories the strings have).
- :func:`predicted_exact_length`: the limit derived from the score's gap and the dtype's rounding
  (a sufficient condition, so the measured limit is at least this); :func:`window_budget`:
  3.3-slots' largest intermediate.

Significand bits come from :func:`transformer_theory.precision.significand_bits`. Shapes use the
letters of :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate
from transformer_theory.core.forward import forward_trace, lm_inputs
from transformer_theory.core.positional import window_score_polynomial
from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
from transformer_theory.papers.svete_cotterell2024._constructions_run import paper33_decoded
from transformer_theory.papers.svete_cotterell2024._tasks import (
    sampled_strings,
    string_history_ids,
)
from transformer_theory.params import ModelParams
from transformer_theory.precision import significand_bits

__all__ = [
    "attention_scan",
    "decoding_scan",
    "first_wrong_query",
    "intended_attention",
    "paper33_scan",
    "predicted_exact_length",
    "selection_scan",
    "window_budget",
]


def intended_attention(offset: int, window: int, num_positions: int) -> np.ndarray:
    """The weights the proof prescribes, ``(N, N)`` float64 (query ``i``, key ``j``): one-hot on
    ``max(i - offset, 0)`` (a 3.1/3.2 head of that offset), or for ``offset = -1`` uniform on the
    window ``max(0, i - window + 1) .. i`` (3.3-slots)."""
    i = np.arange(num_positions)[:, None]
    j = np.arange(num_positions)[None, :]
    if offset < 0:
        inside = (j <= i) & (j >= np.maximum(i - window + 1, 0))
        return inside / inside.sum(axis=1, keepdims=True)
    return (j == np.maximum(i - offset, 0)).astype(np.float64)


@jax.jit
def _attention_maps(params, tokens_N):
    # the model's own forward, jitted as a user runs it; only the maps are kept
    return forward_trace(params, tokens_N).attention


def first_wrong_query(
    params: ModelParams, construction: str, maps: Any, *, first_query: int = 0
) -> int | None:
    """The first query ``i >= first_query`` at which some head's attention in ``maps`` (one
    ``(H, N, N)`` array per layer, as :func:`~transformer_theory.core.forward_trace` returns) is
    not the proof's: a different support, or a weight more than 8 ulps of the dtype from the
    prescribed one (sparsemax's ``z - tau`` may round a 1 to ``1 - ulp``). None if every query is
    the proof's. The heads' offsets are :func:`._constructions.head_offsets` of ``construction``."""
    offsets = cn.head_offsets(construction, params.config.bos_pad + 1)
    return _first_wrong(params, offsets, maps, first_query)


def _first_wrong(params: ModelParams, offsets, maps: Any, first_query: int) -> int | None:
    # first_wrong_query with the heads' (layer, head, offset) given
    cfg = params.config
    dtype = params.w_o.dtype
    tol = 8 * float(jnp.finfo(dtype).eps)
    bad = None
    for layer, head, offset in offsets:
        got = np.asarray(maps[layer][head], np.float64)
        want = intended_attention(offset, cfg.bos_pad, got.shape[0])
        wrong = np.any(((got > 0) != (want > 0)) | (np.abs(got - want) > tol), axis=1)
        wrong[:first_query] = False
        if wrong.any():
            i = int(np.flatnonzero(wrong)[0])
            bad = i if bad is None else min(bad, i)
    return bad


def selection_scan(params: ModelParams, construction: str, *, max_length: int = 32) -> dict:
    """The longest string length ``L`` such that, at EVERY length ``0..L``, the model's attention
    at every query is the proof's (3.1/3.2: the one key ``t - h``; 3.3-slots: the window keys
    uniformly), in the parameters' dtype.

    Why every length is run: the scores' rounding depends on the sequence length, not only on the
    query and key (XLA picks the dot's reduction order, and whether it fuses a multiply-add, from
    the shapes). Measured on a 2-core x86 CPU: a 3.3-slots model for a 4-gram over 3 symbols in
    float32 attends wrongly at input position 10 in runs of 11-16 and 33-42 positions but not in
    runs of 17-32, so one long run certifies nothing about shorter inputs (the scan this replaces
    reported "exact to length 9" for a model wrong at length 8). The model is therefore run -- its
    own jitted :func:`~transformer_theory.core.forward_trace`, on one input -- at each input
    length ``w + L`` for ``L = 0..max_length`` and every query that predicts (``i >= w - 1``) is
    checked, so the returned length is true by construction for that forward on this machine. The
    construction's scores read only the positional code, which no layer writes, so the tokens do
    not matter (the input is ``BOS^w 0^L``; the tests check token independence). A batched
    or differently compiled run may round differently beyond :func:`predicted_exact_length`,
    which holds for any summation order.

    Args:
      params: a model from :func:`~._constructions.build` with hard or
        sparse attention.
      construction: the name it was built as (checked against its layout).
      max_length: the longest string length run (one compilation per length).

    Returns:
      ``longest_exact_length`` (-1 when even the empty string fails; None when every length up to
      ``max_length`` is exact -- then the model is exact at least that far),
      ``first_failing_length`` / ``first_failing_position`` (the string length and the 0-based
      input position of the first wrong query, or None), ``checked_up_to`` (``max_length``) and
      ``method``.
    """
    cn.check_built_as(params, construction, "params")
    offsets = cn.head_offsets(construction, params.config.bos_pad + 1)
    return attention_scan(params, offsets, max_length=max_length)


def attention_scan(
    params: ModelParams, offsets: Sequence[tuple[int, int, int]], *, max_length: int = 32
) -> dict:
    """:func:`selection_scan` of a model whose heads attend as ``offsets`` says (``(layer, head,
    offset)`` per head, :func:`._constructions.head_offsets` of the construction it was built
    as): the same record."""
    _validate.check_positive("max_length", max_length, allow_zero=True)
    cfg = params.config
    if cfg.attention == "softmax":
        raise ValueError("params: softmax attention never selects exactly; use soft_kl")
    w = cfg.bos_pad
    record = {
        "longest_exact_length": None,
        "first_failing_length": None,
        "first_failing_position": None,
        "checked_up_to": int(max_length),
        "method": "the model run at every string length 0..max_length, every query checked",
    }
    for length in range(max_length + 1):
        tokens = lm_inputs(cfg, jnp.zeros((length,), jnp.int32))
        bad = _first_wrong(params, offsets, _attention_maps(params, tokens), w - 1)
        if bad is not None:
            record.update(
                longest_exact_length=length - 1,
                first_failing_length=length,
                first_failing_position=bad,
            )
            break
    return record


def paper33_scan(
    model: cn.Paper33, *, max_length: int = 48, samples: int = 32, seed: int = 0
) -> dict:
    """Where the paper's 3.3 (:class:`~._constructions.Paper33`) stops
    decoding the right history, in its dtype: the longest string length ``L`` such that at every
    length ``0..L`` every position of ``samples`` seeded random strings (and the all-0 string,
    :func:`._tasks.sampled_strings`) decodes, by the authors' argmax
    (:func:`._constructions_run.paper33_decoded`), the history it has (:func:`decoding_scan`).

    Unlike 3.1/3.2/3.3-slots the decoding reads the symbols, so this is a check on sampled inputs,
    not on every input; it is run at every length (one compilation each) for the reason
    :func:`selection_scan` gives. What breaks is the values ``10^-t``: float32's smallest normal
    number is about ``10^-38``, float64's ``10^-308``; below, the rescaled decimals lose their
    digits. ``max_onehot_error`` is the largest distance of the decoded one-hot from exact 0/1
    among the exact lengths (the ``10^n`` gain of the digit steps amplifies rounding).
    """
    if not isinstance(model, cn.Paper33):
        raise ValueError(f"model: expected the paper's 3.3 (Paper33), got {type(model).__name__}")
    _validate.check_positive("max_length", max_length, allow_zero=True)
    _validate.check_positive("samples", samples)
    strings = sampled_strings(model.alphabet_size, max_length, samples=samples, seed=seed)
    want = [string_history_ids(model.alphabet_size, model.order, s) for s in strings]
    decoded = (paper33_decoded(model, jnp.asarray(s)) for s in strings)
    return decoding_scan(decoded, want, order=model.order, samples=samples)


def decoding_scan(
    decoded_by_length: Iterable[tuple[Any, Any]],
    want_by_length: Sequence[np.ndarray],
    *,
    order: int,
    samples: int,
) -> dict:
    """:func:`paper33_scan`'s record, from the answers of the paper's 3.3 for an ``order``-gram
    LM and the histories its strings have, at each length ``0..max_length``.

    ``decoded_by_length``: per length, ``(decoded ids (B, L + 1), largest one-hot error per string
    (B,))`` (:func:`._constructions_run.paper33_decoded`), read in order and no further than the
    first failing length (so an iterator runs the model only that far). ``want_by_length``: the
    histories of the same strings (:func:`._tasks.string_history_ids`); ``max_length`` is its
    length - 1. ``samples``: the random strings per length besides the all-0 one (the record's
    ``method`` says so)."""
    max_length = len(want_by_length) - 1
    record = {
        "longest_exact_length": None,
        "first_failing_length": None,
        "first_failing_position": None,
        "checked_up_to": int(max_length),
        "max_onehot_error": 0.0,
        "method": f"the model run at every string length 0..max_length on {samples} random "
        "strings and the all-0 string, every position's decoded history checked",
    }
    for length, ((decoded, err), want) in enumerate(zip(decoded_by_length, want_by_length)):
        wrong = np.flatnonzero(np.any(np.asarray(decoded) != want, axis=0))
        if wrong.size:
            record.update(
                longest_exact_length=length - 1,
                first_failing_length=length,
                first_failing_position=int(wrong[0]) + order - 2,  # 0-based input position
            )
            break
        record["max_onehot_error"] = max(record["max_onehot_error"], float(np.max(err)))
    return record


def window_budget(t: int, window: int) -> float:
    """3.3: ``sum_k |c_k(t)| t^k``, the largest magnitude any product or partial sum of the score
    at query ``t`` reaches (``c`` from :func:`window_score_polynomial`, key powers ``j^k <=
    t^k``). While it is below ``2^p`` every step is an exact integer operation in a ``p``-bit
    significand, so the window's scores are exactly 0 -- the ties average-hard attention needs."""
    c = window_score_polynomial(int(t), window)
    return float(np.sum(np.abs(c) * float(t) ** np.arange(len(c))))


def predicted_exact_length(
    construction: str,
    order: int,
    dtype: Any,
    *,
    limit: int = 10**7,
    attention: str = "hard",
    max_len: int | None = None,
) -> int | None:
    """The longest string length the derivation guarantees exact in ``dtype`` (a lower bound on
    :func:`selection_scan`'s measurement).

    3.1/3.2/3.2-direct: the score ``fl(a_1 b_1 + a_2 b_2)`` of code entries ``fl(sqrt(fl(1/s)))``
    is within ``5u`` of ``<u(t), u(s)>`` (``u = 2^-p``: ``1.5u`` per entry, ``u`` per product and
    sum), so the peak stays unique while
    :func:`~._constructions.score_gap` exceeds ``10u``, at every shifted
    position up to ``t + h`` (``h``: the largest offset, ``n - 2``, or 1 for 3.2's two fixed
    pairs); this holds in either order of the two products, with or without a fused multiply-add,
    so whatever the compiler picks. 3.3-slots: while :func:`window_budget` stays
    below ``2^p`` (exact integer arithmetic). Sparse 3.1/3.2 also needs the scaled lead to stay
    >= 1, which :func:`~._constructions.sparse_beta` guarantees up to the
    ``max_len`` it was built for (and no further): the bound is the smaller of the two. Found by
    bisection over ``t`` (both bounds decrease
    monotonically in ``t``); returns ``limit`` when it holds that far and None when it does not
    guarantee even the empty string.
    """
    _validate.check_choice("construction", construction, cn.CONSTRUCTIONS)
    _validate.check_choice("attention", attention, ("hard", "sparse"))
    if attention == "sparse" and construction != "3.3-slots":
        if max_len is None:
            raise ValueError("max_len: sparse 3.1/3.2 are exact up to the max_len built for")
        hard = predicted_exact_length(construction, order, dtype, limit=limit)
        return None if hard is None else min(hard, max_len)
    p = significand_bits(dtype)
    w = order - 1
    if construction == "3.3-slots":

        def holds(t):
            return window_budget(t, w) < 2.0**p

        last_shift = 0
    else:

        def holds(t):
            return bool(cn.score_gap(t) > 10 * 2.0**-p)

        last_shift = 1 if construction == "3.2" else w - 1
    if not holds(1 + last_shift):
        return None
    lo, hi = 1, limit
    if holds(hi + last_shift):
        return limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if holds(mid + last_shift) else (lo, mid)
    # lo = last 1-based query position t that is safe; input position t - 1; string length t-1-w
    return lo - 1 - w if lo - 1 - w >= 0 else None
