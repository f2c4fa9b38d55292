"""This library's own variants of Svete & Cotterell's (2024) constructions, NOT the paper's
(the paper's are in :mod:`._constructions`; :func:`._constructions.build` builds either by name).

- **3.2-direct, one head per layer** (:class:`Direct32`): layer ``l`` holds 3.1's head with
  offset ``h = l``, reading the id block directly (no composition, unlike the paper's 3.2) and so
  still needing ``n - 1`` code pairs; the last layer carries the MLP.
- **3.3-slots, one head, one layer** (:class:`Slots33`). The score ``c(t) . (1, j, .., j^{2w})``
  with ``c(t)`` the coefficients of ``-prod_{h<w} (j - t + h)^2`` is exactly 0 on the window
  ``t-w+1..t`` and at most ``-1`` elsewhere, so average-hard attention averages the window; each
  symbol sits in the slot ``j mod w`` of its position, so the average keeps the order, and a unit
  per (history, ``t mod w``) reads it. The paper's 3.3 (:class:`._constructions.Paper33`) needs a
  ReLU inside the score, which the library's bilinear ``W_QK`` cannot express; this variant stays
  in the library's one parameter format.

:data:`VARIANTS` is their part of the registry.
"""

from __future__ import annotations

import numpy as np

from transformer_theory.papers.svete_cotterell2024._constructions_layout import Construction, Layout

__all__ = ["VARIANTS", "Direct32", "Slots33"]


class Direct32(Construction):
    """3.2-direct: 3.1's heads one per layer (``n - 1`` layers, one head each)."""

    name = "3.2-direct"
    paper = False

    def heads(self, w: int) -> tuple[int, ...]:
        return (1,) * w

    def offsets(self, w: int) -> list[tuple[int, int, int]]:
        return [(h, 0, h) for h in range(w)]

    def attention(self, layout: Layout, beta: float) -> list[tuple[np.ndarray, np.ndarray]]:
        blocks = [self.block(layout, h) for h in range(layout.w)]
        w_qk, w_v = self.offset_heads(layout, beta, blocks)
        return [(w_qk[h : h + 1], w_v[h : h + 1]) for h in range(layout.w)]


class Slots33(Construction):
    """3.3-slots: one head averages the window (the ``"ngram_window"`` code), the symbols kept
    in order by their slot ``j mod w``; ``A w`` units, one per (history, ``t mod w``)."""

    name = "3.3-slots"
    paper = False
    code = "ngram_window"

    def heads(self, w: int) -> tuple[int, ...]:
        return (1,)

    def offsets(self, w: int) -> list[tuple[int, int, int]]:
        return [(0, 0, -1)]

    def units(self, A: int, w: int) -> int:
        return A * w

    def sparse_beta(self, max_len: int, order: int) -> float:
        """The scores are integers with a lead of at least 1 already: ``beta = 1``."""
        return 1.0

    def _code(self, layout: Layout) -> tuple[int, int, int]:
        # the ngram_window code: powers (2w+1), coefficients (2w+1), onehot(t mod w) (w),
        # slots onehot(y_t) (x) onehot(t mod w) (V w, symbol-major)
        powers0, coeffs0 = layout.pos0, layout.pos0 + 2 * layout.w + 1
        residue0 = coeffs0 + 2 * layout.w + 1
        return powers0, coeffs0, residue0

    def attention(self, layout: Layout, beta: float) -> list[tuple[np.ndarray, np.ndarray]]:
        w, D = layout.w, layout.D
        powers0, coeffs0, residue0 = self._code(layout)
        slots0 = residue0 + w
        store = self.stored(layout.V, w)
        w_qk = np.zeros((1, D, D))
        for k in range(2 * w + 1):
            w_qk[0, powers0 + k, coeffs0 + k] = beta  # key powers . query coefficients
        w_v = np.zeros((1, D, D))
        w_v[0, layout.store0 : layout.store0 + store, slots0 : slots0 + store] = np.eye(store)
        return [(w_qk, w_v)]

    def mlp(self, layout: Layout, hist_AxN: np.ndarray) -> tuple[np.ndarray, ...]:
        """Unit ``(a, r)``: the query's residue is ``r = t mod w``; the window's ``k``-th symbol
        (oldest first, position ``t - w + 1 + k``) sits in slot ``(r + 1 + k) mod w``. The average
        gives each slot weight ``1/w``, hence the factor ``w``."""
        w, D, A = layout.w, layout.D, layout.A
        residue0 = self._code(layout)[2]
        units = self.units(A, w)
        w1, b1, w2 = np.zeros((units, D)), np.zeros(units), np.zeros((D, units))
        for a in range(A):
            for r in range(w):
                u = a * w + r
                for k in range(w):
                    w1[u, layout.store0 + hist_AxN[a, k] * w + (r + 1 + k) % w] = w
                w1[u, residue0 + r] = 1.0
                b1[u] = -float(w)
                w2[layout.ind0 + a, u] = 1.0
        return w1, b1, w2


#: This library's variants, by name.
VARIANTS: dict[str, Construction] = {c.name: c for c in (Direct32(), Slots33())}
