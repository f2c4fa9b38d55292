"""Chen & Zou 2024, §14.2, Theorem 5: two layers parse a sequence into its template, then map it to
its label.

Layout (``TemplateMatching``): symbols ``[0, A)``, CLS ``A = d - 1``; ``n = l + 1``.
Notation: for a template ``t`` of length ``l`` let ``E[r, j] = [t_r = t_j]`` (diagonal 1),
``c_r = sum_j E[r, j]`` (multiplicity of ``t_r``) and ``R = I + E`` on the first ``l`` positions,
``R[n-1, n-1] = 1``.

Layer 1 (parse, as printed up to correction 1): ``W_QK = I`` on the symbol block, so query ``i``
attends with weight 1 to every ``j`` holding the same symbol (the CLS attends to nothing);
``W_V = -I`` on the token block plus ``I_n`` on the position block. The position block of ``h_j``
becomes column ``j`` of ``R`` -- token-invariant, a function of the template alone (the token
block becomes ``(1 - c_j) x_j``, which the corrected layer 2 never reads).

Layer 2, single head (§14.2's ternary version): the last position attends to key ``j`` with
weight ``f_j = (R g)_j``, ``g_r = B^{l-1-r}``, through ``W_QK[d + r, d + n - 1] = g_r`` (key
position ``r`` times the query's own position, which holds 1); ``W_V`` = identity on the position
block only. The last stream is ``[e_CLS; R^2 g; 1]``, where
``(R^2)[r, j] = [r = j] + (2 + c_r) [t_r = t_j]`` has base-``B`` digits ``<= 3 + l < B`` for
``B >= l + 4``: the digits of row ``r`` reveal which positions share ``t_r``, so distinct templates
give distinct vectors; all share the constant coordinates, so they are pairwise non-parallel.
Lemma 3 then gives ``W_O``.

Layer 2, ``n`` heads (the memorization route: Lemma 4 on the parsed sequence): head ``i < l``
attends to key ``j`` with weight ``R[i, j]`` (``W_QK[d + i, d + n - 1] = 1``) and copies the
position block, times ``n``, into coordinates ``[i n, (i+1) n)``; head ``l`` attends to the last
position with weight 1 (``W_QK[d+n-1, d+n-1] = 1``) with ``W_V = -n I``, cancelling the residual.
The last stream is the flattened ``R^2`` (columns ``0..l-1``), whose off-diagonal support is the
template's equality pattern: pairwise non-parallel. Width ``max{n^2, d + n}`` (Lemma 4 with
``n``-wide template columns as the tokens).

Corrections to the printed §14.2 (see :func:`theorem5_as_printed`, whose ``repair`` argument
applies them one at a time):

1. ``W_V^(1)``'s second term is printed with ``I_{n x n}`` in *columns* ``[0, n)`` (the token
   block), so it writes token ids, not positions, into the position block; it must read the
   position block (columns ``[d, d + n)``).
2. ``W_V^(2) = I`` also carries the token block ``(1 - c_j) x_j`` into the last position, so the
   representation depends on the substituted symbols whenever a wildcard repeats and a classifier
   fit on one sequence per template fails on the others; ``W_V^(2)`` is restricted to the position
   block.
3. Not a failure but a gap in the argument: the ternary head is built with Lemma 1
   (``W_pp[:, n-1] = (3^{l-1}, ..., 1, 0)``), but Lemma 1 needs one-hot positions and layer 1 has
   replaced ``p_j`` by ``R[:, j]``; the weights are ``(R g_3)_j``, not ``3^{l-1-j}``, and the
   digits of ``R^2 g_3`` reach ``3 + c_r > 2``, so the ternary decoding argument does not apply.
   No position-only functional of layer 1's output can isolate key ``j`` (every one mixes the
   positions that share a token), so we keep the weights ``(R g)_j`` and default to the base
   ``B = l + 4`` for which the digit argument holds. (With both repairs, the printed base 3 still
   separates all Bell(l) templates for every ``l <= 9`` by exhaustive enumeration; the tests check
   small ``l``.)
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from transformer_theory.constructions._common import (
    assemble,
    check_task,
    construction_config,
    last_streams,
)
from transformer_theory.constructions.classifier import lemma3_classifier
from transformer_theory.params import ModelParams
from transformer_theory.tasks import TemplateMatching
from transformer_theory.tasks.template_matching import canonical

SINGLE, MULTI = "single", "multi"


def _template_task(task) -> tuple[int, tuple, np.ndarray]:
    """``(A, templates, labels)`` of a ``TemplateMatching`` task, validated for Theorem 5."""
    check_task("task", task, TemplateMatching)
    A = task.alphabet_size
    templates = tuple(tuple(t) for t in task.templates)
    if not templates:
        raise ValueError("task.templates: expected at least one template")
    l = len(templates[0])
    if any(len(t) != l for t in templates):
        raise ValueError("task.templates: all templates must have the same length")
    check_task("task", task, TemplateMatching, vocab_size=A + 1, seq_len=l + 1)
    if len({canonical(t) for t in templates}) != len(templates):
        raise ValueError(
            "task.templates: two templates have the same equality pattern, so they "
            "generate the same sequences"
        )
    labels = getattr(task, "labels", None)
    labels = np.arange(len(templates)) if labels is None else np.asarray(labels)
    if len(np.unique(labels)) != len(labels):
        raise ValueError(
            "task.labels: Theorem 5's classifier (Lemma 3) needs a distinct label per template"
        )
    return A, templates, labels


def _representatives(templates, A: int) -> np.ndarray:
    """One sequence per template (wildcards -> symbols 0, 1, ... in order of appearance), CLS ``A``
    appended."""
    return np.array([canonical(t) + (A,) for t in templates], dtype=np.int32)


def _parse_layer(
    A: int, n: int, D: int, *, printed_w_v1: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Layer 1: ``W_QK = I`` on the symbols; ``W_V = -I`` on tokens + ``I_n`` into the position
    block,
    read from the position block (corrected) or, as printed, from coordinates ``[0, n)``."""
    d = A + 1
    w_qk = np.zeros((D, D))
    w_qk[:A, :A] = np.eye(A)
    w_v = np.zeros((D, D))
    w_v[:d, :d] = -np.eye(d)
    src = 0 if printed_w_v1 else d
    w_v[d : d + n, src : src + n] += np.eye(n)
    return w_qk[None], w_v[None]


def _digit_head(
    A: int, l: int, D: int, base: float, *, printed_w_v2: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Single-head layer 2: weights ``(R g)_j`` with ``g_r = base^{l-1-r}``; ``W_V`` = positions
    only
    (corrected) or ``I`` (printed)."""
    d, n = A + 1, l + 1
    w_qk = np.zeros((D, D))
    for r in range(l):
        w_qk[d + r, d + n - 1] = float(base) ** (l - 1 - r)
    if printed_w_v2:
        w_v = np.eye(D)
    else:
        w_v = np.zeros((D, D))
        w_v[d : d + n, d : d + n] = np.eye(n)
    return w_qk[None], w_v[None]


def _fit_classifier(cfg, layers, reps_TxN, labels, num_classes, dtype) -> ModelParams:
    """Lemma 3 on the last-token streams of one representative per template."""
    D = cfg.width
    probe = assemble(cfg, layers, np.zeros((num_classes, D)), jnp.float64)
    feats = last_streams(probe, reps_TxN)
    w, _ = lemma3_classifier(feats, labels, num_classes)
    return assemble(cfg, layers, w.T, dtype)


def theorem5(
    task, *, version: str = SINGLE, base: int | None = None, dtype=jnp.float64
) -> ModelParams:
    """Theorem 5's two-layer model for a ``TemplateMatching`` task.

    Args:
      task: templates of one length ``l`` with pairwise different equality patterns and distinct
        labels.
      version: ``"single"`` -- one head per layer, ``d' = d + n`` (§14.2's ternary construction,
        corrected); ``"multi"`` -- ``n`` heads in layer 2 (Lemma 4 on the parsed sequence),
        ``d' = max{n^2, d + n}``.
      base: digit base of the single-head weights ``g_r = base^{l-1-r}``; default ``l + 4``, the
        smallest base covered by the digit argument. Smaller bases (the printed 3) are allowed;
        Lemma 3 raises if two templates then get parallel vectors.
      dtype: parameter dtype.
    Returns:
      ``ModelParams`` with ``heads=(1, 1)`` or ``(1, n)``.
    """
    if version not in (SINGLE, MULTI):
        raise ValueError(f"version: expected 'single' or 'multi', got {version!r}")
    A, templates, labels = _template_task(task)
    l = len(templates[0])
    d, n = A + 1, l + 1
    if version == SINGLE:
        B = l + 4 if base is None else base
        if not isinstance(B, (int, np.integer)) or B < 2:
            raise ValueError(f"base: expected an integer >= 2, got {base!r}")
        D = d + n
        layer2 = _digit_head(A, l, D, B)
        heads = (1, 1)
    else:
        if base is not None:
            raise ValueError("base: only the single-head version has a digit base")
        D = max(n * n, d + n)
        w_qk2 = np.zeros((n, D, D))
        w_v2 = np.zeros((n, D, D))
        for i in range(l):
            w_qk2[i, d + i, d + n - 1] = 1.0
            w_v2[i, i * n : (i + 1) * n, d : d + n] = n * np.eye(n)
        w_qk2[l, d + n - 1, d + n - 1] = 1.0
        w_v2[l] = -n * np.eye(D)
        layer2 = (w_qk2, w_v2)
        heads = (1, n)
    layers = [_parse_layer(A, n, D), layer2]
    cfg = construction_config(d, n, D, task.num_classes, heads)
    return _fit_classifier(
        cfg, layers, _representatives(templates, A), labels, task.num_classes, dtype
    )


PRINTED_REPAIRS = ("w_v1", "w_v2")


def theorem5_as_printed(task, *, repair=(), dtype=jnp.float64) -> ModelParams:
    """§14.2's single-head construction as printed (Lemma 3 fit on one sequence per template).

    ``W_QK^(1) = I`` on the ``A`` symbol coordinates (the paper's ``d``); ``W_V^(1) = -I_{A+1}``
    plus
    ``I_n`` placed in rows ``[A+1, A+1+n)`` and columns ``[0, n)``; layer 2 is Lemma 1 with
    ``alpha[:, n-1] = (3^{l-1}, ..., 3^0, 0)`` and ``W_V^(2) = I``.

    Args:
      repair: any of ``"w_v1"`` (the second term of ``W_V^(1)`` reads the position block, correction
        1)
        and ``"w_v2"`` (``W_V^(2)`` restricted to the position block, correction 3), to show which
        correction each failure needs.
    Raises:
      ValueError: from Lemma 3 when two templates' representatives already get parallel vectors.
    """
    bad = set(repair) - set(PRINTED_REPAIRS)
    if bad:
        raise ValueError(
            f"repair: unknown repairs {sorted(bad)}; expected a subset of {PRINTED_REPAIRS}"
        )
    A, templates, labels = _template_task(task)
    l = len(templates[0])
    d, n = A + 1, l + 1
    D = d + n
    layers = [
        _parse_layer(A, n, D, printed_w_v1="w_v1" not in repair),
        _digit_head(A, l, D, 3, printed_w_v2="w_v2" not in repair),
    ]
    cfg = construction_config(d, n, D, task.num_classes, (1, 1))
    return _fit_classifier(
        cfg, layers, _representatives(templates, A), labels, task.num_classes, dtype
    )
