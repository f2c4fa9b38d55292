"""What every n-gram construction shares: the residual stream's blocks, the unit code ``u`` whose
cosine picks one key, the AND units that turn copied symbols into a history indicator, and the
output matrix that holds the n-gram's table.

- :class:`Layout`: where each block of the residual stream starts (``D`` coordinates).
- :func:`score_gap`: ``1 - max_{s != t} <u(t), u(s)>``, the lead of the target key (3.1/3.2).
- :class:`Construction`: one construction as a set of choices (positional code, heads per layer,
  where the history is stored, the attention weights, the MLP), with the shared defaults; the
  paper's subclasses are in :mod:`._constructions`, this library's variants in
  :mod:`._constructions_variants`,
  and :func:`._constructions.build` assembles any of them into a
  :class:`~transformer_theory.params.ModelParams`.

Shapes: ``V = |Sigma| + 1`` input ids (BOS last), ``w = n - 1``, ``A`` histories, ``D`` width.
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["Construction", "Layout", "score_gap"]


def _theta(s: np.ndarray) -> np.ndarray:
    """The angle of ``u(s) = (sin theta, cos theta)``: ``theta = arcsin(sqrt(1/s))``."""
    return np.arcsin(np.sqrt(1.0 / np.asarray(s, np.float64)))


def score_gap(t: np.ndarray | int) -> np.ndarray:
    """The exact gap ``1 - max_{s != t} <u(t), u(s)>`` of the 3.1/3.2 score at shifted position
    ``t``.

    ``<u(t), u(s)> = cos(theta_t - theta_s)`` and ``theta`` decreases in ``s``, so the runner-up
    is a neighbour: ``gap = min_{s = t +- 1} 2 sin^2((theta_t - theta_s) / 2)`` (the form that
    does not cancel), ``~ 1 / (8 t^3)`` for large ``t``. ``t >= 1``; at ``t = 1`` only ``s = 2``.
    """
    t = np.asarray(t, np.float64)
    up = 2.0 * np.sin((_theta(t) - _theta(t + 1)) / 2.0) ** 2
    down = np.where(t > 1, 2.0 * np.sin((_theta(np.maximum(t - 1, 1)) - _theta(t)) / 2.0) ** 2, up)
    return np.minimum(up, down)


@dataclasses.dataclass(frozen=True)
class Layout:
    """The residual stream of one construction for one LM, in blocks: the one-hot id ``[0, V)``,
    the positional code from ``pos0``, the stored history (blocks of ``V``, or 3.3-slots' slot
    block) from ``store0``, the ``A`` history indicators from ``ind0``; ``D`` in all."""

    V: int
    w: int
    A: int
    pos0: int
    store0: int
    ind0: int
    D: int


class Construction:
    """One construction: the choices :func:`._constructions.build` reads (defaults: 3.1's).

    Attributes:
      name: the registry name (``"3.1"``, ``"3.2-direct"``, ...).
      paper: True for the paper's own constructions, False for this library's variants.
      code: the positional code (:mod:`transformer_theory.core.positional`).
    """

    name: str = ""
    paper: bool = True
    code: str = "svete"

    def pairs(self, w: int) -> int:
        """``positional_window``: the code pairs ``u(t + h)`` laid out (one per offset)."""
        return w

    def heads(self, w: int) -> tuple[int, ...]:
        """Heads per layer."""
        return (w,)

    def offsets(self, w: int) -> list[tuple[int, int, int]]:
        """``(layer, head, offset)`` of every head: query ``i`` attends to key ``max(i - h, 0)``;
        offset -1: the head averages the window instead."""
        return [(0, h, h) for h in range(w)]

    def last_offset(self, w: int) -> int:
        """The largest key-pair offset a head reads (the last shifted position is ``t`` plus it)."""
        return w - 1

    def stored(self, V: int, w: int) -> int:
        """Coordinates of the stored history (``w`` blocks of ``V``)."""
        return w * V

    def block(self, layout: Layout, h: int) -> int:
        """First coordinate of history block ``h`` (the id at position ``t - h``)."""
        return layout.store0 + h * layout.V

    def units(self, A: int, w: int) -> int:
        """The MLP's hidden units (one AND unit per history)."""
        return A

    def sparse_beta(self, max_len: int, order: int) -> float:
        """The score multiplier that makes sparsemax one-hot up to ``max_len`` symbols.

        Sparsemax puts all weight on the top key when it leads the runner-up by at least 1; the
        smallest lead of the ``u`` score among the shifted positions ``t + h`` (``t <= max_len +
        n - 1``, ``h`` up to :meth:`last_offset`) is :func:`score_gap` at the largest one (the gap
        decreases in ``t``), so ``beta = 1 / gap`` (times ``1 + 1e-6`` against rounding).
        """
        last = max_len + (order - 1) + self.last_offset(order - 1)
        gaps = score_gap(np.arange(1, last + 1))
        return float((1.0 + 1e-6) / gaps.min())

    def attention(self, layout: Layout, beta: float) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(W_QK, W_V)`` of every layer, ``(H, D, D)`` each."""
        raise NotImplementedError

    def mlp(self, layout: Layout, hist_AxN: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(W1, b1, W2)`` of the last layer's MLP: unit ``a`` fires iff block ``h`` holds
        ``hist[a][w - 1 - h]`` for every ``h`` (an AND, ``relu(sum - (w - 1))``) and writes 1
        into history indicator ``a``."""
        w, D, A = layout.w, layout.D, layout.A
        w1, b1, w2 = np.zeros((A, D)), np.zeros(A), np.zeros((D, A))
        for a in range(A):
            for h in range(w):
                w1[a, self.block(layout, h) + hist_AxN[a, w - 1 - h]] = 1.0
            b1[a] = -(w - 1.0)
            w2[layout.ind0 + a, a] = 1.0
        return w1, b1, w2

    @staticmethod
    def offset_heads(layout: Layout, beta: float, blocks: list[int]) -> tuple[np.ndarray, ...]:
        """3.1's heads: head ``h`` scores key pair ``h`` (``u(j + h)``) against query pair 0
        (``u(t)``), so it attends to offset ``h``, and copies the id block into ``blocks[h]``;
        ``(W_QK, W_V)``, ``(w, D, D)`` each."""
        w, D, V, pos0 = layout.w, layout.D, layout.V, layout.pos0
        w_qk, w_v = np.zeros((w, D, D)), np.zeros((w, D, D))
        for h in range(w):
            for c in range(2):  # W_QK[key coord, query coord]
                w_qk[h, pos0 + 2 * h + c, pos0 + c] = beta
            w_v[h, blocks[h] : blocks[h] + V, 0:V] = np.eye(V)
        return w_qk, w_v
