"""Chen & Zou 2024, §14.2, Theorem 5: two layers parse a sequence into its template, then map it to
its label.

Layout (``TemplateMatching``): symbols ``[0, A)``, CLS ``A = d - 1``; ``n = l + 1``.
Notation: for a template ``t`` of length ``l`` let ``C(r) = {j < l : t_j = t_r}`` (the block of
the template's partition that holds position ``r``), ``c_r = |C(r)|``, ``E[r, j] = [t_r = t_j]``
(diagonal 1) and ``R = I + E`` on the first ``l`` positions, ``R[n-1, n-1] = 1``.

Layer 1 (parse, as printed up to correction 1): ``W_QK = I`` on the symbol block, so query ``i``
attends with weight 1 to every ``j`` holding the same symbol (the CLS attends to nothing);
``W_V = -I`` on the token block plus ``I_n`` on the position block. The position block of ``h_j``
becomes column ``j`` of ``R`` -- token-invariant, a function of the template alone (the token
block becomes ``(1 - c_j) x_j``, which the corrected layer 2 never reads).

Layer 2, single head (§14.2's ternary head, repaired): ``W_QK[d + r, d + n - 1] = g_r`` with
``g_r = B^{l-1-r}`` (the paper's ``alpha[:, n-1] = (3^{l-1}, ..., 1, 0)`` written into ``W_pp``
as Lemma 1 does), so the last position attends to key ``j`` with weight ``(R g)_j`` (key position
block times the query's own position coordinate, which holds 1); ``W_V`` = identity on the
position block only. Since ``E^2 = diag(c) E``, ``(R^2)[r, j] = [r = j] + (2 + c_r) [t_r = t_j]``
and the last stream is ``[e_CLS; v; 1]`` with, for ``r < l``::

    v_r = (R^2 g)_r = B^{l-1-r} + f(C(r)),   f(C) = (2 + |C|) S_C,   S_C = sum_{j in C} B^{l-1-j}

(:func:`template_code`; the tests compare it with the model's streams). Every template's vector
has the same ``e_CLS`` and trailing 1, so two are parallel only if they are equal, and they are
equal exactly when ``f(C(r)) = f(C'(r))`` for every ``r``. Lemma 3 then gives ``W_O``. Whether
distinct templates get distinct vectors depends on the base:

- ``B >= l + 4``: proved. The base-``B`` digits of ``v_r`` are row ``r`` of ``R^2``, at most
  ``3 + l < B``, so ``v`` determines ``E``, i.e. the template.
- ``B = 3`` (the paper's base, the default): no proof. A sufficient condition is that ``f``
  (with ``B = 3``) is injective on the non-empty subsets of ``{0, ..., l-1}``; an exact carry
  automaton (:mod:`.base3`, run by ``experiments/theorem5_base3_certify.py``) certifies that for
  every ``l <= 33`` and
  finds, at ``l = 34``, exponent sets ``E``, ``E'`` of sizes 18 and 24 with
  ``20 S_E = 26 S_E'``, so the sufficient condition fails from ``l = 34`` on and no certificate
  exists there (whether two whole templates then collide is open). The same script enumerates
  every template for ``l <= 12`` and finds the vectors distinct. In practice ``l`` is far
  smaller (``Bell(13) = 27,644,437`` templates), and :func:`theorem5` checks the vectors of the
  task's templates exactly (Python integers) before fitting Lemma 3, raising if two coincide.

Layer 2, ``n`` heads (the memorization route: Lemma 4 on the parsed sequence): head ``i < l``
attends to key ``j`` with weight ``R[i, j]`` (``W_QK[d + i, d + n - 1] = 1``) and copies the
position block, times ``n``, into coordinates ``[i n, (i+1) n)``; head ``l`` attends to the last
position with weight 1 (``W_QK[d+n-1, d+n-1] = 1``) with ``W_V = -n I``, cancelling the residual.
The last stream is the flattened ``R^2`` (columns ``0..l-1``), whose off-diagonal support is the
template's equality pattern: pairwise non-parallel. Width ``max{n^2, d + n}`` (Lemma 4 with
``n``-wide template columns as the tokens).

Corrections to the printed §14.2 (see :func:`theorem5_as_printed`, whose ``repair`` argument
applies the first two one at a time; the tests show each one's failure):

1. ``W_V^(1)``'s second term is printed with ``I_{n x n}`` in *columns* ``[0, n)`` (the token
   block), so it writes token ids, not positions, into the position block; it must read the
   position block (columns ``[d, d + n)``).
2. ``W_V^(2) = I`` also carries the token block ``(1 - c_j) x_j`` into the last position, so the
   representation depends on the substituted symbols whenever a wildcard repeats and a classifier
   fit on one sequence per template fails on the others; ``W_V^(2)`` is restricted to the position
   block.
3. A gap in the argument, not a failure: the printed proof takes the attention weights to be
   ``3^{l-1-j}`` (Lemma 1) and the last stream to be ``sum_j 3^{l-1-j} R[:, j] = R g``, whose
   ternary digits (0, 1, 2) spell out ``R``. But Lemma 1 needs one-hot positions, and layer 1 has
   replaced ``p_j`` by ``R[:, j]``: the weights are ``(R g)_j`` and the stream is ``R^2 g``, whose
   "digits" ``1 + (2 + c_r)`` exceed 2. No score linear in the key's position block gives key
   ``j`` the weight ``3^{l-1-j}`` for every template (a singleton key ``j`` scores ``2 u_j``, a key
   of the all-equal template ``u_j + sum u``). The repaired construction keeps the printed weights
   ``W_pp[:, n-1] = g`` and reads what they actually compute, ``v`` above; with base 3 it works
   (certified for ``l <= 33``, not proved), with ``B >= l + 4`` it is proved.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike

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
PAPER_BASE = 3  # §14.2's ternary weights 3^{l-1}, ..., 3^0


def template_code(template: Sequence[int], base: int = PAPER_BASE) -> tuple[int, ...]:
    """The position block ``v`` of the single-head model's last stream for ``template``, exactly.

    ``v_r = base^{l-1-r} + (2 + |C(r)|) sum_{j in C(r)} base^{l-1-j}`` with ``C(r)`` the positions
    holding the same wildcard as ``r`` (module docstring); Python integers, no rounding. The model
    computes these integers exactly in float64 while they stay below ``2^53`` (``l <= 30`` in
    base 3).

    Args:
      template: a wildcard tuple of length ``l >= 1`` (only its equality pattern matters).
      base: the digit base ``B >= 2`` of the layer-2 weights.
    """
    t = tuple(template)
    if not t:
        raise ValueError("template: expected a non-empty wildcard tuple")
    if not isinstance(base, (int, np.integer)) or isinstance(base, bool) or base < 2:
        raise ValueError(f"base: expected an integer >= 2, got {base!r}")
    l, base = len(t), int(base)
    out = []
    for r in range(l):
        block = [j for j in range(l) if t[j] == t[r]]
        out.append(base ** (l - 1 - r) + (2 + len(block)) * sum(base ** (l - 1 - j) for j in block))
    return tuple(out)


def _check_codes_distinct(templates, base: int) -> None:
    """``ValueError`` naming ``base`` if two templates get the same layer-2 vector (exact)."""
    seen: dict = {}
    for i, t in enumerate(templates):
        j = seen.setdefault(template_code(t, base), i)
        if j != i:
            raise ValueError(
                f"base: templates {j} {templates[j]} and {i} {t} get the same layer-2 vector in "
                f"base {base}, so no classifier separates them; use base >= l + 4 = "
                f"{len(t) + 4}, for which distinctness is proved"
            )


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
    block, read from the position block (corrected) or, as printed, from coordinates ``[0, n)``."""
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
    only (corrected) or ``I`` (printed)."""
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


def _fit_classifier(cfg, layers, reps_BxN, labels, num_classes, dtype) -> ModelParams:
    """Lemma 3 on the last-token streams of one representative per template."""
    D = cfg.width
    probe = assemble(cfg, layers, np.zeros((num_classes, D)), jnp.float64)
    feats = last_streams(probe, reps_BxN)
    w, _ = lemma3_classifier(feats, labels, num_classes)
    return assemble(cfg, layers, w.T, dtype)


def theorem5(
    task: TemplateMatching,
    *,
    version: str = SINGLE,
    base: int | None = None,
    dtype: DTypeLike = jnp.float64,
) -> ModelParams:
    """Theorem 5's two-layer model for a ``TemplateMatching`` task.

    Args:
      task: templates of one length ``l`` with pairwise different equality patterns and distinct
        labels.
      version: ``"single"`` -- one head per layer, ``d' = d + n`` (§14.2's ternary construction,
        repaired); ``"multi"`` -- ``n`` heads in layer 2 (Lemma 4 on the parsed sequence),
        ``d' = max{n^2, d + n}``.
      base: digit base of the single-head weights ``g_r = base^{l-1-r}``; default 3, the paper's
        (distinct vectors certified by computation for ``l <= 33``, not proved; see the module
        docstring). Any ``base >= l + 4`` is proved to work. Checked exactly before Lemma 3.
      dtype: parameter dtype.
    Returns:
      ``ModelParams`` with ``heads=(1, 1)`` or ``(1, n)``.
    Raises:
      ValueError: naming ``base`` if two of the task's templates get the same layer-2 vector.
    """
    if version not in (SINGLE, MULTI):
        raise ValueError(f"version: expected 'single' or 'multi', got {version!r}")
    A, templates, labels = _template_task(task)
    l = len(templates[0])
    d, n = A + 1, l + 1
    if version == SINGLE:
        B = PAPER_BASE if base is None else base
        if not isinstance(B, (int, np.integer)) or isinstance(B, bool) or B < 2:
            raise ValueError(f"base: expected an integer >= 2, got {base!r}")
        _check_codes_distinct(templates, int(B))
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


def theorem5_as_printed(
    task: TemplateMatching, *, repair: Iterable[str] = (), dtype: DTypeLike = jnp.float64
) -> ModelParams:
    """§14.2's single-head construction as printed (Lemma 3 fit on one sequence per template).

    ``W_QK^(1) = I`` on the ``A`` symbol coordinates (the paper's ``d``); ``W_V^(1) = -I_{A+1}``
    plus ``I_n`` placed in rows ``[A+1, A+1+n)`` and columns ``[0, n)``; layer 2 is Lemma 1 with
    ``alpha[:, n-1] = (3^{l-1}, ..., 3^0, 0)`` and ``W_V^(2) = I``.

    Args:
      repair: any of ``"w_v1"`` (the second term of ``W_V^(1)`` reads the position block,
        correction 1) and ``"w_v2"`` (``W_V^(2)`` restricted to the position block, correction 2),
        to show which correction each failure needs. With both, the model is exactly
        :func:`theorem5`'s default (base 3).
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
