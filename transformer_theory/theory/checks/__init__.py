"""Batched float64 checks of Chen & Zou's Propositions 7-10, their stronger affine form, and
controls.

For a batch of ``M`` models (one :class:`~transformer_theory.params.ModelParams` with a leading
model axis: random, constructed or trained) and dependent sets or a whole dataset:

- **Props. 7 / 8** (§11): ``sum_i lambda_i t_i = 0`` where ``t_i`` is the last-position stream after
  the first attention layer (Prop. 7, ``TF_1(X)[n-1]``) or the classifier output ``o_i`` (Prop. 8).
- **Props. 9 / 10** (§16): the same with ``lambda'_i = Z_i lambda_i``, ``Z_i`` the softmax
  denominator of the first layer's (only) head at the last query (eq. 18:
  ``sum_j sigma'(x_j, x_{n-1})``), computed from the model with
  ``core.attention.softmax_normalizer``.
- **Affine form** (the library's strengthening of Prop. 7): in scope, ``w_i t_i = a + M c_i`` with
  ``c_i`` the flattened one-hot
  sequence (``w_i = 1`` for ReLU, ``Z_i`` for one softmax head). One least-squares fit of all
  ``w_i t_i`` on ``[1, c_i]`` over the whole dataset tests every dependence ``lambda`` at once;
  its residual ``||W T - X beta||_F / ||W T||_F`` is ~ machine epsilon exactly when the form holds.

The statistic for a set is the relative residual ``||sum_i w_i t_i|| / sum_i |w_i| ||t_i||``
(scale-free: 0 when the relation holds, O(1) when it fails).

Why the scope is what it is (§11 proof): in ONE attention layer the contribution of key ``j`` to the
last query depends only on ``(token_j, j)`` and the shared last token, provided the last query's
score for key ``j`` depends on ``j`` alone besides the tokens (one-hot, sinusoidal absolute, ALiBi,
RoPE) and any norm before attention is token-wise (Barbero et al.'s ``norm1``). An MLP after
attention, a
final LayerNorm, a second layer or several softmax heads (each with its own ``Z``) break it: these
are the *controls*, reported beside the in-scope families with their residuals.

Tolerances (printed with each verdict), for unit roundoff ``eps`` of the dtype. They are
**heuristics with a measured margin, not proofs**:

- sets: ``tol = 16 * eps * (D + N + C)``. Each ``t_i`` is a sum of ``N`` weighted values, each a
  ``D``-long dot product, then a ``D``-long classifier row: Higham's ``gamma_k`` bound puts the
  forward error at ``~(D + N + D) eps`` times the sum of the absolute terms. The heuristic step is
  assuming that sum is within a factor 16 of ``||t_i||``, true for generic random models but not
  checked per model (a model with large cancelling terms could exceed it).
- affine: ``tol = 16 * eps * (D + N + C + p) * sqrt(s)`` with ``p`` the number of independent
  columns of ``[1, C]`` and ``s`` the number of streamed chunks: the same data error plus
  Householder QR's backward error ``~ p eps`` per TSQR step, assumed to accumulate like a random
  walk (the worst case grows like ``s``). The default exact-normal-equations method
  (``affine_residuals(method="normal")``) has no QR: its Gram counts and solve are exact, so its
  error budget is the data error plus the float64 sums of ``X^T W T`` over ``s`` chunks; the same
  formula covers it (``p`` bounds the columns each sum feeds, ``sqrt(s)`` the chunk sums).

Measured margin: in-scope residuals (float64, random models of every family) are 1e-16 .. 5e-16,
about 100x below the smallest tolerance (3.6e-14); on 10^6 sequences in 123 chunks the affine
residual is 3.8e-14 against 4.2e-12; controls sit at 1e-3 .. 1, ten orders of magnitude above. A
rigorous a-posteriori bound (``gamma_k`` times the computed ``sum |terms|`` of each model) is not
implemented.

Memory (streamed): the dataset goes through in chunks of ``b`` sequences; one chunk holds, per
model,
the residual streams ``(L+1) b N D``, the attention maps ``b N^2 sum_l H_l`` (twice: scores and
weights) and the QR workspace ``(p + Y + b)(p + Y)``, all in 8-byte floats, so peak bytes ~
``8 M [b ((L+1) N D + 2 N^2 sum_l H_l) + (p + Y + b)(p + Y)] + 8 (p+1)^2``, independent of the
dataset size (for ``M = 8, b = 4096, N = 12, D = 24, H = 4, p + Y = 140``: ~ 0.2 GB; 10^7
sequences stream through the same buffers). This is an upper bound: one-layer models are evaluated
at the last query only (``b (N D + H N)`` per model). Pass 1 keeps the ``(p+1)^2`` Gram counts and
one
``b x (N V + 1)`` design block. Measured (``experiments/verify_10m.py --limit 1000000``, M = 2,
b = 8192, N = 14, V = 17): peak resident memory 0.52 GB for the whole process, JAX included.

Modules: :mod:`.families` (the model families and which propositions are in scope), :mod:`.outputs`
(the batched last-query outputs and the per-set residuals), :mod:`.affine` (the affine form streamed
over a whole dataset), :mod:`.verdicts` (tolerances, verdicts, :func:`check_family`, random models),
:mod:`.first_layer` (the first layer as table lookups, the verifier's fast path). Shape letters as
in :mod:`transformer_theory.glossary` (``M`` models, ``S`` sets, ``B`` sequences, ``N`` length,
``D`` width ``d'``, ``C`` classes, ``Y`` the checked target's width -- ``D`` or ``C`` --, ``W`` rows
of a chunk, ``P = N V`` one-hot columns, ``p`` independent ones)."""

from transformer_theory.theory.checks.affine import (
    AffineResult,
    affine_residuals,
    independent_columns,
)
from transformer_theory.theory.checks.families import (
    FAMILIES,
    PROPOSITIONS,
    TOL_SAFETY,
    Family,
    prop_target,
)
from transformer_theory.theory.checks.outputs import (
    model_outputs,
    model_outputs_general,
    set_residuals,
    set_residuals_multi,
)
from transformer_theory.theory.checks.verdicts import (
    Verdict,
    affine_tolerance,
    check_family,
    random_models,
    set_tolerance,
)

__all__ = [
    "AffineResult",
    "FAMILIES",
    "Family",
    "PROPOSITIONS",
    "TOL_SAFETY",
    "Verdict",
    "affine_residuals",
    "affine_tolerance",
    "check_family",
    "independent_columns",
    "model_outputs",
    "model_outputs_general",
    "prop_target",
    "random_models",
    "set_residuals",
    "set_residuals_multi",
    "set_tolerance",
]
