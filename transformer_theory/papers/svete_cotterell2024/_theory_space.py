"""How big each n-gram construction is, counted on the BUILT model, beside the library's closed
forms and what the source texts print about size (Svete & Cotterell 2024, Theorem 5.1).

What the seeds print: the lecture slides state Theorems 3.1-3.3 as ``n - 1`` heads and one layer,
one head and ``n - 1`` layers, one head and one layer, and then only "Space complexity has been
addressed in Theorem 5.1 of Svete and Cotterell (2024)" and "Lower bound is quite loose". The
statement of Theorem 5.1 (its quantities and its bound) is NOT printed in any seed, so nothing
here checks it; what is checked is what is printed (heads and layers) and this library's own
closed forms (:func:`formula`, derived from :mod:`._constructions` /
:mod:`._constructions_variants`) against the
sizes counted from the arrays of the built models (:func:`count`).

Result (2026-11-25, ``transformer-theory ngram --space --orders 2,3,4,5 --alphabets 1,2,3,4 --out
DIR``, 13 s): all 80 built models equal the closed forms; none uses more heads or layers than
printed (the paper's 3.2 uses ``max(n - 2, 1)`` layers, one fewer than printed). At ``n = 5``,
``|Sigma| = 4`` (``A = 341``): widths 374 (3.1, 3.2-direct), 365 (3.2), 408 (3.3-slots), 341
(the paper's 3.3, its AND layer); stored numbers 1,376,661 / 1,050,811 / 1,449,764 / 12,966
(dense ``D x D`` attention matrices; the paper's 3.3 has none); non-zero structural weights 2,074
/ 2,067 / 9,577 / 2,005 beside the table's 1,705 log-probabilities. Bits: 3.1/3.2/3.2-direct's
structural weights are small integers (1-2 significand bits, 2 exponent bits), 3.3-slots' too
(1-2 and 2-3); the paper's 3.3 stores ``10^k`` and ``-1 + 10^-n`` (52-53 significand bits,
4-6 exponent bits, growing with ``n``). The derived exact length (hard attention) is 48,279
(float64) / 51 (float32) for 3.1 at ``n = 5``, 45 / none for 3.3-slots.

Shapes: ``S = |Sigma|``, ``V = S + 1`` ids (BOS last), ``w = n - 1``, ``A = sum_{k=0}^{w} S^k``
histories (BOS-padded ones included), ``D`` the residual width.

- :data:`SPACE_CONSTRUCTIONS`: every construction measured (the paper's 3.1, 3.2, 3.3 and the
  library's 3.2-direct, 3.3-slots).
- :data:`PRINTED_SHAPE`: the (layers, heads per layer) the slides print for each theorem.
- :func:`significand_bits_needed` / :func:`exponent_bits_needed`: the bits a float format needs to
  hold a set of float64 values exactly.
- :func:`count`: the sizes of one built model, counted from its arrays.
- :func:`formula`: the library's closed forms of the same sizes in ``n`` and ``S``.
- :func:`space_table`: one record per construction and ``(n, S)``: counted, closed form, printed,
  the bits the weights need and the derived exact length per float format.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import numpy as np

from transformer_theory import _validate
from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
from transformer_theory.papers.svete_cotterell2024 import _theory_precision as precision_scan
from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM, num_histories
from transformer_theory.params import ModelParams
from transformer_theory.precision import dtype_of, require_x64

__all__ = [
    "PRINTED_SHAPE",
    "SIZE_KEYS",
    "SPACE_CONSTRUCTIONS",
    "FORMATS",
    "count",
    "exponent_bits_needed",
    "formula",
    "printed_shape",
    "significand_bits_needed",
    "space_record",
    "space_table",
]

#: Every construction measured: the paper's 3.1, 3.2, 3.3 and this library's 3.2-direct, 3.3-slots.
SPACE_CONSTRUCTIONS: tuple[str, ...] = ("3.1", "3.2", "3.2-direct", "3.3", "3.3-slots")
#: The sizes :func:`count` and :func:`formula` both give.
SIZE_KEYS: tuple[str, ...] = ("width", "layers", "heads", "params", "nonzero_structural", "table")
#: What the slides print (Theorems 3.1-3.3): ``(layers, heads per layer)`` as functions of ``n``.
PRINTED_SHAPE: dict[str, str] = {
    "3.1": "n - 1 heads, 1 layer",
    "3.2": "1 head, n - 1 layers",
    "3.3": "1 head, 1 layer",
}
_THEOREM = {"3.1": "3.1", "3.2": "3.2", "3.2-direct": "3.2", "3.3": "3.3", "3.3-slots": "3.3"}
#: The float formats of a record's ``exact_to``.
FORMATS: tuple[str, ...] = ("float64", "float32", "bfloat16")


def printed_shape(construction: str, order: int) -> tuple[int, int]:
    """``(layers, heads per layer)`` the slides print for the theorem ``construction`` builds
    (3.2-direct is a 3.2, 3.3-slots a 3.3)."""
    _validate.check_choice("construction", construction, SPACE_CONSTRUCTIONS)
    _validate.check_positive("order", order)
    w = order - 1
    return {"3.1": (1, w), "3.2": (w, 1), "3.3": (1, 1)}[_THEOREM[construction]]


def significand_bits_needed(values: Any) -> int:
    """The fewest significand bits (the implicit one included) that hold every finite non-zero
    value of ``values`` exactly: the bit length of the odd part of its float64 significand; 0 for
    no such value. A value stored in float64 is what is measured (``1 - 10^-n`` is not a dyadic
    number, so its float64 rounding needs the full 53)."""
    x = np.asarray(values, np.float64).ravel()
    x = np.abs(x[np.isfinite(x) & (x != 0)])
    if x.size == 0:
        return 0
    mant, _ = np.frexp(x)  # x = mant 2^e, mant in [0.5, 1)
    ints = (mant * 2.0**53).astype(np.int64)  # exact: mant has at most 53 significant bits
    low = ints & -ints  # the lowest set bit
    return int(np.max(53 - np.log2(low).astype(np.int64)))


def exponent_bits_needed(values: Any) -> int:
    """The fewest IEEE exponent-field bits ``e`` whose normal range ``[2^(2 - 2^(e-1)),
    2^(2^(e-1)))`` holds every finite non-zero magnitude of ``values`` (float32 has 8, float64
    11); 0 for no such value."""
    x = np.asarray(values, np.float64).ravel()
    x = np.abs(x[np.isfinite(x) & (x != 0)])
    if x.size == 0:
        return 0
    _, exps = np.frexp(x)  # x in [2^(e-1), 2^e)
    lo, hi = int(np.min(exps)) - 1, int(np.max(exps)) - 1  # binary exponents
    e = 2
    while not (hi <= 2 ** (e - 1) - 1 and lo >= 2 - 2 ** (e - 1)):
        e += 1
    return e


def _leaves(model: ModelParams | cn.Paper33, A: int) -> tuple[list[np.ndarray], np.ndarray]:
    """(structural arrays, the n-gram table) of a built model for an LM of ``A`` histories, as
    float64."""
    if isinstance(model, cn.Paper33):
        table = model.log_probs_CxA
        rest = [model.digit_w, model.digit_b, model.digit_out, model.and_w, model.and_b]
    else:
        w_o = np.asarray(model.w_o, np.float64)
        table = w_o[:, w_o.shape[1] - A :]  # W_O's last A columns
        rest = [leaf for layer in model.layers for leaf in jax.tree_util.tree_leaves(layer)]
        rest.append(w_o[:, : w_o.shape[1] - A])
    return [np.asarray(a, np.float64) for a in rest], np.asarray(table, np.float64)


def count(model: ModelParams | cn.Paper33) -> dict:
    """The sizes of one built model, counted from its arrays (nothing derived).

    Returns:
      ``width``: the residual width ``D`` (:class:`ModelParams`; for the paper's 3.3, which has no
      residual stream, the widest vector it computes: the digit layers' ``V n`` or the ``A`` AND
      units); ``layers``, ``heads`` (in all); ``params``: every stored number, the table included;
      ``nonzero_structural``: the non-zero entries outside the table; ``table``: the table's
      entries (``W_O`` or ``log_probs_CxA``: the n-gram's log-probabilities, ``V A``);
      ``table_nonzero``; ``significand_bits`` / ``exponent_bits``: what the structural weights
      need (:func:`significand_bits_needed`, :func:`exponent_bits_needed`); ``table_bits``: the
      table's significand bits (the LM's own log-probabilities: 53 for a random LM).
    """
    if isinstance(model, cn.Paper33):
        A = model.log_probs_CxA.shape[1]
    else:
        A = num_histories(model.config.vocab_size - 1, model.config.bos_pad + 1)
    return _count(model, A)


def _count(model: ModelParams | cn.Paper33, A: int) -> dict:
    # count of a model built for an LM of A histories
    rest, table = _leaves(model, A)
    if isinstance(model, cn.Paper33):
        width = max(model.digit_w.shape[1], model.and_w.shape[0])
        layers, heads = 1, 1
    else:
        width = model.config.width
        layers, heads = len(model.layers), sum(int(x.shape[0]) for x in _qk(model))
    structural = np.concatenate([a.ravel() for a in rest])
    return {
        "width": int(width),
        "layers": layers,
        "heads": heads,
        "params": int(structural.size + table.size),
        "nonzero_structural": int(np.count_nonzero(structural)),
        "table": int(table.size),
        "table_nonzero": int(np.count_nonzero(table)),
        "significand_bits": significand_bits_needed(structural),
        "exponent_bits": exponent_bits_needed(structural),
        "table_bits": significand_bits_needed(table),
    }


def _qk(model: ModelParams) -> list[Any]:
    return [layer.attn.w_qk for layer in model.layers]


def formula(construction: str, order: int, alphabet_size: int) -> dict:
    """The library's closed forms of :data:`SIZE_KEYS` in ``n`` and ``S`` (read off the builders
    in :mod:`._constructions` and :mod:`._constructions_variants`, hard attention).

    With ``V = S + 1``, ``w = n - 1``, ``A = sum_{k<=w} S^k``, ``MLP(F) = 2 F D + F + D``, ``[w >
    1]`` the AND bias ``-(w - 1)`` being non-zero:

    - 3.1: ``D = V + 2w + wV + A``, 1 layer of ``w`` heads, ``2 w D^2 + MLP(A) + V D`` numbers,
      ``2w + wV + A w + A [w > 1] + A`` non-zero outside the table;
    - 3.2 (``L = max(w - 1, 1)`` layers of one head, two fixed code pairs): ``D = V + 4 + (w - 1)
      V + A``, ``2 L D^2 + MLP(A) + V D``, ``2L + (w - 1) V + A w + A [w > 1] + A``;
    - 3.2-direct: 3.1's ``D`` and non-zeros, ``w`` layers of one head;
    - 3.3-slots: ``D = V + 2(2w + 1) + w(1 + V) + wV + A``, one head, ``2 D^2 + MLP(A w) + V D``,
      ``(2w + 1) + wV + A w (w + 1) + 2 A w``;
    - the paper's 3.3: width ``max(V n, A)``, ``2 w V^2 n w + w V n + A V w + A`` numbers besides
      the table, ``V (n w + w(w - 1)) + 2 V w + V w (w + 1) + A w + A [w > 1]`` non-zero.

    The table is ``V A`` everywhere.
    """
    _validate.check_choice("construction", construction, SPACE_CONSTRUCTIONS)
    _validate.check_positive("alphabet_size", alphabet_size)
    if not isinstance(order, int) or order < 2:
        raise ValueError(f"order: expected an integer >= 2, got {order!r}")
    n, S = order, alphabet_size
    # A in closed form, as the formulas are (not _tasks' enumeration, which they are checked with)
    V, w, A = S + 1, n - 1, sum(S**k for k in range(n))
    bias = A if w > 1 else 0
    table = V * A

    def mlp(units: int, D: int) -> int:
        return 2 * units * D + units + D

    if construction == "3.3":
        return {
            "width": max(V * n, A),
            "layers": 1,
            "heads": 1,
            "params": 2 * w * V * n * V * w + w * V * n + A * V * w + A + table,
            "nonzero_structural": V * (n * w + w * (w - 1))
            + 2 * V * w
            + V * w * (w + 1)
            + A * w
            + bias,
            "table": table,
        }
    if construction == "3.3-slots":
        D = V + 2 * (2 * w + 1) + w * (1 + V) + w * V + A
        return {
            "width": D,
            "layers": 1,
            "heads": 1,
            "params": 2 * D * D + mlp(A * w, D) + V * D,
            "nonzero_structural": (2 * w + 1) + w * V + A * w * (w + 1) + 2 * A * w,
            "table": table,
        }
    if construction == "3.2":
        L = max(w - 1, 1)
        D = V + 4 + (w - 1) * V + A
        return {
            "width": D,
            "layers": L,
            "heads": L,
            "params": 2 * L * D * D + mlp(A, D) + V * D,
            "nonzero_structural": 2 * L + (w - 1) * V + A * w + bias + A,
            "table": table,
        }
    D = V + 2 * w + w * V + A
    return {
        "width": D,
        "layers": 1 if construction == "3.1" else w,
        "heads": w,
        "params": 2 * w * D * D + mlp(A, D) + V * D,
        "nonzero_structural": 2 * w + w * V + A * w + bias + A,
        "table": table,
    }


def _build(lm: NGramLM, construction: str) -> ModelParams | cn.Paper33:
    if construction == "3.3":
        return cn.build_paper33(lm)
    return cn.build(lm, construction, max_len=8)


def space_record(
    lm: NGramLM,
    construction: str,
    model: ModelParams | cn.Paper33,
    exact_to: dict[str, int | None],
) -> dict:
    """The record of ``model``, ``construction`` built (float64, hard attention) for ``lm``:
    ``lm``'s size, the counts (:func:`count`) beside :func:`formula` (``formula``, ``matches``:
    every key of :data:`SIZE_KEYS` equal) and the printed shape (``printed_layers``,
    ``printed_heads`` in all, ``within_printed``: no more layers and heads than printed), and
    ``exact_to``, the string length the derivation guarantees exact per float format of
    :data:`FORMATS` (:func:`._theory_precision.predicted_exact_length`, given; None for the
    paper's 3.3)."""
    c, n, S = construction, lm.order, lm.alphabet_size
    counted = _count(model, len(lm.log_probs_AxC))  # the table: one row per history
    want = formula(c, n, S)
    p_layers, p_heads = printed_shape(c, n)
    return {
        "construction": c,
        "paper": c in ("3.1", "3.2", "3.3"),
        "order": n,
        "alphabet": S,
        "histories": len(lm.log_probs_AxC),
        **counted,
        "formula": want,
        "matches": all(counted[k] == want[k] for k in SIZE_KEYS),
        "printed_layers": p_layers,
        "printed_heads": p_layers * p_heads,
        "within_printed": counted["layers"] <= p_layers and counted["heads"] <= p_layers * p_heads,
        "log2_params": math.log2(counted["params"]),
        "exact_to": exact_to,
    }


def space_table(
    orders: tuple[int, ...] | list[int],
    alphabet_sizes: tuple[int, ...] | list[int],
    *,
    constructions: tuple[str, ...] | list[str] = SPACE_CONSTRUCTIONS,
    seed: int = 0,
) -> list[dict]:
    """One record per construction and ``(n, S)`` (:func:`space_record`): each model built
    (float64, hard attention) for ``NGramLM.random(seed, S, n)``, with ``exact_to`` from
    :func:`._theory_precision.predicted_exact_length` (up to ``10^7``) per float format (None
    for the paper's 3.3, which has no derived bound; its digits need ``10^-t``: see
    :func:`._constructions.build_paper33`).

    Needs JAX's 64-bit mode (the models are built in float64). ``n >= 2``; sizes grow like
    ``S^(n-1)`` (width) and its square
    (the dense ``W_QK``/``W_V`` arrays), so keep ``S^(n-1)`` to a few hundred.
    """
    for name, values in (("orders", orders), ("alphabet_sizes", alphabet_sizes)):
        if not values:
            raise ValueError(f"{name}: expected at least one value")
    for n in orders:
        if not isinstance(n, int) or n < 2:
            raise ValueError(f"orders: expected integers >= 2, got {n!r}")
    for S in alphabet_sizes:
        _validate.check_positive("alphabet_sizes", S)
    for c in constructions:
        _validate.check_choice("constructions", c, SPACE_CONSTRUCTIONS)
    require_x64("space_table")

    records = []
    for n in orders:
        for S in alphabet_sizes:
            lm = NGramLM.random(seed, S, n)
            for c in constructions:
                exact = {
                    f: None
                    if c == "3.3"
                    else precision_scan.predicted_exact_length(c, n, dtype_of(f))
                    for f in FORMATS
                }
                records.append(space_record(lm, c, _build(lm, c), exact))
    return records
