"""Chen & Zou 2024, §15, Theorem 6: three layers, ``2l`` heads, ``d' = d + n + l + 2`` -- parse,
copy, match.

Layout (``InContextTemplateMatching``): symbols ``[0, A)``, answers ``[A, A + n_a)``, response sign
``r = d - 1``. Context block ``b < k`` starts at ``s_b = b (l + 2)``: question ``s_b + u``
(``u < l``), ``r`` at ``s_b + l``, answer at ``s_b + l + 1``; the query block starts at
``s_k = k (l + 2)`` and ends with the final ``r`` at ``n - 1 = s_k + l``. The ``l + 2`` padding
coordinates ``d + n + rel``, ``rel = 0, ..., l + 1``, are indexed by the relative position inside
a block: ``rel < l`` the question positions, ``rel = l`` the ``r`` slot, ``rel = l + 1`` the answer
slot. Layer 1 writes template rows into the first ``l`` of them only; the ``r`` and answer slots
stay zero on every input (nothing attends to an ``r`` or answer key in layer 1).

For a block with question template ``t`` let ``E[u, v] = [t_u = t_v]`` (``u, v < l``).

- Layer 1 (parse, 1 head): ``W_QK = I`` on the symbol block, constrained to the block (Lemma 2,
  ``-M`` on ``W_pp`` across blocks, ``M`` = the bound + 1); ``W_V`` maps position ``p_j`` to the
  padding coordinate ``rel(j)``. Question position ``u`` of a block then carries row ``E[u]`` in
  the padding (the positions stay one-hot, so Lemma 1 still applies to layer 2).
- Layer 2 (copy + pre-match, 1 head, Lemma 1): every position of context block ``b`` attends to
  its answer; context position ``s_b + u`` (``u <= l``) also attends to ``s_k + u``; the final ``r``
  attends to every context answer. ``W_V = diag(I_d, -I)``. Context question position ``(b, u)``
  now holds ``a_b`` in the answer block and ``D_b[u] = E_b[u] - E_q[u]`` in the padding (zero for
  every ``u`` iff block ``b`` has the query's template); the final ``r`` holds ``sum_b a_b``.
- Layer 3 (match, ``2l`` heads): head ``h < l`` scores key ``j`` by ``+ padding_h(j) * r(n-1)``,
  head ``l + h`` by ``- padding_h(j) * r(n-1)`` (``W_QK[d + n + h, d - 1] = +-1``; the final ``r``
  coordinate is 1). So layer 3 reads the FIRST ``l`` padding coordinates, ``d + n + h`` for
  ``h < l``, where the template rows are. A context block whose template differs from the
  query's has some ``D_b[u, h] != 0`` (in fact two, ``D`` is symmetric), so one of the two heads
  attends to it with weight ``|D_b[u, h]| = 1``; with ``W_V = -I`` and eq. 2's ``1/(2l)`` the
  last position loses ``gamma_b >= 2 / (2l) = 1/l`` times ``a_b``. Query-block keys carry no
  answer; the final ``r`` and the context ``r``/answer positions have zero padding, so nothing
  else is subtracted.
- ``W_O`` reads the answer block: the correct answer scores 1, answers absent from the context 0,
  the other context answers ``1 - gamma_b <= 1 - 1/l``; margin ``>= 1/l``. (The printed claim
  ``gamma_i >= 1`` would need ``W_V^(3) = -l I``; correctness only needs ``gamma_b > 0``.)

Corrections to the printed §15 (see :func:`theorem6_as_printed`):

1. ``W_QK^(1)``'s first term is printed as ``[[I_{d1}, 0], [I_{(d'-d1) x d1}, 0]]``; the
   rectangular identity lets a key's answer/sign/position coordinates match query symbols. Only
   the symbol block ``I_{d1}`` is meant ("each token only focuses on the position of the same
   token").
2. ``alpha^(2)``'s second term is printed with ``0_{(l+2) x (d-(l+1))}``; it is an ``n x n`` map,
   so the block is ``(l+2) x (n - (l+1))``.
3. As printed, the final ``r`` attends only to its own block in layer 2, so it never collects the
   context answers: every answer logit is ``<= 0`` and the correct answer ties with the answers
   absent from the context. The printed final output ``sum_i a_i - sum_{i != r} gamma_i a_i``
   presupposes ``alpha^(2)[answer_b, n-1] = 1``, which we add. We drop the printed attention of the
   final ``r`` to its own block: it would give the final ``r`` non-zero padding, so in layer 3 it
   would attend to itself and subtract the collected ``sum_b a_b`` uniformly.
   With its padding zero, the final ``r`` queries layer 3 through its sign coordinate (constant 1)
   instead of its padding.
4. Layer 3's ``M_i`` is printed on the *last* ``l`` coordinates of ``d'``, i.e. the padding slots
   ``rel = 2, ..., l + 1``. Those miss the template rows ``rel = 0, 1`` and include the ``r`` and
   answer slots ``rel = l, l + 1``, which are zero on every input (for ``l = 2`` the last two
   coordinates are exactly those two slots, so the printed layer 3 reads nothing at all). The
   template rows live in the FIRST ``l`` padding coordinates, ``rel = 0, ..., l - 1``, which is
   what :func:`theorem6` reads.
"""

from __future__ import annotations

from collections.abc import Iterable

import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike

from transformer_theory.constructions._common import assemble, check_task, construction_config
from transformer_theory.constructions.attention import constrained_attention, instructive_attention
from transformer_theory.params import ModelParams
from transformer_theory.tasks import InContextTemplateMatching


def _layout(task):
    check_task("task", task, InContextTemplateMatching)
    A, n_a, k = task.alphabet_size, task.n_a, task.k
    l = len(task.templates[0])
    d, n = A + n_a + 1, k * (l + 2) + l + 1
    check_task("task", task, InContextTemplateMatching, vocab_size=d, seq_len=n, num_classes=n_a)
    block = np.minimum(np.arange(n) // (l + 2), k)  # the query block is block k
    rel = np.arange(n) - block * (l + 2)
    return A, n_a, k, l, d, n, block, rel


def _parse_layer(A, d, n, D, block, rel, base_qk, magnitude):
    allowed = block[:, None] == block[None, :]
    w_qk = constrained_attention(allowed, d, D, base_qk, magnitude)
    w_v = np.zeros((D, D))
    w_v[d + n + rel, d + np.arange(n)] = 1.0
    return w_qk[None], w_v[None]


def _copy_alpha(k, l, n, *, final_r_to_answers: bool, final_r_to_query_block: bool) -> np.ndarray:
    """``alpha^(2)[key, query]`` of layer 2 (see the module docstring)."""
    alpha = np.zeros((n, n))
    s_k = k * (l + 2)
    for b in range(k):
        s_b = b * (l + 2)
        ans = s_b + l + 1
        alpha[ans, s_b : s_b + l + 2] = 1.0
        for u in range(l + 1):
            alpha[s_k + u, s_b + u] = 1.0
        if final_r_to_answers:
            alpha[ans, n - 1] = 1.0
    if final_r_to_query_block:
        alpha[s_k:n, n - 1] = 1.0
    return alpha


def _answer_readout(A, n_a, D) -> np.ndarray:
    w_o = np.zeros((n_a, D))
    w_o[:, A : A + n_a] = np.eye(n_a)
    return w_o


PRINTED_REPAIRS = ("w_qk1", "m_coords", "final_r")


def _build(task, magnitude, dtype, repairs) -> ModelParams:
    A, n_a, k, l, d, n, block, rel = _layout(task)
    D = d + n + l + 2
    pad = d + n  # first padding coordinate (rel = 0)
    base = np.zeros((D, D))
    base[:A, :A] = np.eye(A)
    if "w_qk1" not in repairs:
        base[A:, :A] += np.eye(D - A, A)  # the printed rectangular I_{(d'-d1) x d1}
    layer1 = _parse_layer(A, d, n, D, block, rel, base, magnitude)
    fixed_r = "final_r" in repairs
    alpha = _copy_alpha(k, l, n, final_r_to_answers=fixed_r, final_r_to_query_block=not fixed_r)
    w_v2 = np.eye(D)
    w_v2[d:, d:] *= -1.0
    layer2 = (instructive_attention(alpha, d, D)[None], w_v2[None])
    w_qk3 = np.zeros((2 * l, D, D))
    for h in range(l):
        key = pad + h if "m_coords" in repairs else D - l + h
        query = d - 1 if fixed_r else key  # the final r's sign coordinate, or (printed) its padding
        w_qk3[h, key, query] = 1.0
        w_qk3[l + h, key, query] = -1.0
    w_v3 = np.broadcast_to(-np.eye(D), (2 * l, D, D))
    cfg = construction_config(d, n, D, n_a, (1, 1, 2 * l))
    return assemble(cfg, [layer1, layer2, (w_qk3, w_v3)], _answer_readout(A, n_a, D), dtype)


def theorem6(
    task: InContextTemplateMatching,
    *,
    magnitude: float | None = None,
    dtype: DTypeLike = jnp.float64,
) -> ModelParams:
    """Theorem 6's three-layer model for an ``InContextTemplateMatching`` task (corrected §15).

    Args:
      task: the in-context template matching task (distinct templates in the context).
      magnitude: Lemma 2 mask magnitude of layer 1 (default: the bound + 1 = 2).
      dtype: parameter dtype.
    Returns:
      ``ModelParams`` with ``heads=(1, 1, 2l)``, ``width = d + n + l + 2``, ``num_classes = n_a``;
      the correct answer scores 1 and every other answer at most ``1 - 1/l``.
    """
    return _build(task, magnitude, dtype, PRINTED_REPAIRS)


def theorem6_as_printed(
    task: InContextTemplateMatching,
    *,
    repair: Iterable[str] = (),
    magnitude: float | None = None,
    dtype: DTypeLike = jnp.float64,
) -> ModelParams:
    """§15 as printed: ``W_QK^(1) = [[I_{d1}, 0], [I_{(d'-d1) x d1}, 0]] + W_pp`` (Lemma 2 mask),
    ``alpha^(2)`` with the final ``r`` attending to its own block, layer 3's ``M_i`` on the last
    ``l`` coordinates of ``d'`` (padding slots ``2 .. l + 1``; query side: the final ``r``'s
    padding), ``W_V^(3) = -I``.

    ``W_O`` is the intended answer readout (the printed block sizes ``(d' - d x d2)`` are not well
    formed) and ``alpha^(2)``'s second term is ``n`` wide (correction 2; as printed it has no
    shape).

    Args:
      repair: any of ``"w_qk1"``, ``"m_coords"``, ``"final_r"`` (corrections 1, 4, 3 of the module
        docstring); all three give exactly :func:`theorem6`.
    """
    bad = set(repair) - set(PRINTED_REPAIRS)
    if bad:
        raise ValueError(
            f"repair: unknown repairs {sorted(bad)}; expected a subset of {PRINTED_REPAIRS}"
        )
    return _build(task, magnitude, dtype, tuple(repair))
