"""Chen & Zou 2024, §12: Lemma 4 and Theorem 1 -- one layer, ``n`` heads, ``d' = max{nd, d+n}``
memorizes.

Lemma 4 (layer). Sequence ``x_0 .. x_{k-1}, c`` of length ``n = k + 1`` (``c`` the CLS / response
sign, the last token id ``d - 1``). Head ``i < k`` attends from the last position to key ``i`` only
(Lemma 1 with ``alpha_i = e_i e_{n-1}^T``) and ``W_V_i = n * [copy the token block into
coordinates [i d, (i+1) d)]``; head ``k`` has ``alpha_k = e_{n-1} e_{n-1}^T`` and
``W_V_k = -n I`` (it cancels the residual ``h_{n-1}``). With eq. 2's ``1/m = 1/n`` the last stream
is exactly ``[x_0; x_1; ...; x_{k-1}; 0]``: distinct sequences give distinct 0/1 vectors with the
same number ``k`` of ones, hence pairwise non-parallel vectors.

Theorem 1 (classifier). Lemma 3 on those vectors (computed by running the layer) gives ``W_O``.

Notes on the printed text (``d`` here counts the response sign as a token, as the library's
vocabulary does; the paper's ``d`` does not):

- Lemma 4 displays ``alpha_i[:, n-1] = n [0_{i d}; x_i; 0]``. That vector has ``d'`` entries
  where an attention-map column has ``n``: it is the head's *value* ``W_V_i H alpha_i[:, n-1]``,
  not its map; the map is the one-hot ``e_i`` of the next sentence (implemented; the tests check
  that the display is the value). A slip the text itself resolves, not a correction.
- Widths: the heads write ``k d`` coordinates and the eq. 3 embedding needs ``d + n``, so the layer
  needs ``d' >= max{k d, d + n}``. Lemma 4 prints ``max{k d, d + k}``, short of the embedding
  when ``k d < d + n`` (``k = 1``, or ``k = 2`` over one symbol: the tests show
  :func:`lemma4_layer` refusing it); Theorem 1 prints ``max{n d, d + n}``, ``d`` more than
  needed and always enough. :func:`theorem1` uses Theorem 1's width, :func:`lemma4_layer` accepts
  any width from ``max{k d, d + n}``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike

from transformer_theory import _validate
from transformer_theory.constructions._common import (
    assemble,
    check_task,
    construction_config,
    last_streams,
)
from transformer_theory.constructions.attention import instructive_attention
from transformer_theory.constructions.classifier import lemma3_classifier
from transformer_theory.params import ModelParams
from transformer_theory.tasks import SequenceClassification


def lemma4_layer(
    vocab_size: int, seq_len: int, width: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 4's one layer: ``(w_qk_HxDxD, w_v_HxDxD)`` with ``H = n`` heads, in float64.

    Args:
      vocab_size: ``d`` (the CLS is a token; its one-hot is cancelled with the residual).
      seq_len: ``n = k + 1``.
      width: ``d'``; default ``max{n d, d + n}`` (Theorem 1), minimum ``max{k d, d + n}`` (the
        copies and the embedding; see the module docstring).
    """
    _validate.check_positive("vocab_size", vocab_size)
    _validate.check_positive("seq_len", seq_len)
    d, n = vocab_size, seq_len
    need = max((n - 1) * d, d + n)
    D = max(n * d, d + n) if width is None else int(width)
    if D < need:
        raise ValueError(f"width: Lemma 4 needs d' >= max(k d, d + n) = {need}, got {D}")
    w_qk = np.zeros((n, D, D))
    w_v = np.zeros((n, D, D))
    for i in range(n - 1):
        alpha = np.zeros((n, n))
        alpha[i, n - 1] = 1.0  # key i, query n-1
        w_qk[i] = instructive_attention(alpha, d, D)
        w_v[i, i * d : (i + 1) * d, :d] = n * np.eye(d)
    alpha = np.zeros((n, n))
    alpha[n - 1, n - 1] = 1.0
    w_qk[n - 1] = instructive_attention(alpha, d, D)
    w_v[n - 1] = -n * np.eye(D)
    return w_qk, w_v


def theorem1(
    task: SequenceClassification, *, dtype: DTypeLike = jnp.float64, progress: bool = False
) -> ModelParams:
    """Theorem 1: a one-layer, ``n``-head ReLU transformer that classifies every sequence of
    ``task``.

    Args:
      task: a ``SequenceClassification`` (token ids ``[0, d-1)`` then CLS ``d - 1``, distinct
        labels).
      dtype: parameter dtype (float64 by default; needs ``jax_enable_x64``).
      progress: tqdm bar for Lemma 3.
    Returns:
      ``ModelParams`` with config ``heads=(n,)``, ``width=max{nd, d+n}``, ``num_classes`` of the
      task.
    """
    check_task("task", task, SequenceClassification)
    d, n = task.vocab_size, task.seq_len
    tokens, labels = task.all()
    tokens = np.asarray(tokens)
    labels = np.asarray(labels)
    if tokens.shape[0] and not np.all(tokens[:, -1] == d - 1):
        raise ValueError("task: every sequence must end with the CLS token (id vocab_size - 1)")
    D = max(n * d, d + n)
    w_qk, w_v = lemma4_layer(d, n, D)
    cfg = construction_config(d, n, D, task.num_classes, (n,))
    # Lemma 3 is fit on the layer's actual last-token streams (not on the formula), in float64.
    layer_only = assemble(cfg, [(w_qk, w_v)], np.zeros((task.num_classes, D)), jnp.float64)
    feats = last_streams(layer_only, tokens)
    w, _ = lemma3_classifier(feats, labels, task.num_classes, progress=progress)
    return assemble(cfg, [(w_qk, w_v)], w.T, dtype)
