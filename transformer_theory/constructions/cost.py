"""What a construction costs, from its sizes alone (nothing is built): the number of templates
(:func:`bell`, exact, capped), each construction's dimensions (:func:`shapes`) and its peak memory
(:func:`memory_bytes`), and the seconds per unit of checking work (:data:`SECONDS_PER_WORK`), so
a caller can refuse sizes that cannot fit (``construct --theorem 3 --n-q 100000`` would need two
``100013 x 100013`` float64 matrices per layer).
"""

from __future__ import annotations

import dataclasses

from transformer_theory.constructions.sizes import THEOREMS, Sizes

# Seconds per unit of checking work, ``examples x n D (n + D) sum(H)`` (the forward pass's
# multiply-adds, up to a constant), fitted on this project's 2-core development machine while it
# was shared (load average ~15), 2026-11-24: `construct --theorem 3 --n-q 10 --n-a 10 -k 3`
# checked 1,555,200 examples (n = 11, d' = 32) in 214.9 s, 4.6e-9 s per unit. On an idle machine
# the estimate is high by a few times: it is meant to refuse hours, not to plan minutes.
SECONDS_PER_WORK = 4.5e-9


# More templates than any machine can hold (2^64 tuples; Bell(26) is already larger). Shapes
# count templates up to this and stop there, so that a huge ``l`` (say 10^12, whose Bell number
# has more digits than memory holds) is sized in microseconds and refused by its memory estimate.
TEMPLATE_COUNT_CAP = 2**64


def bell(l: int, cap: int | None = None) -> int:
    """The number of templates (set partitions) of length ``l`` (Bell triangle, exact).

    With ``cap``, stop as soon as the count is known to exceed ``cap`` and return ``cap + 1`` (a
    lower bound, after at most ~30 rows for ``cap = 2^64``: Bell numbers grow faster than
    exponentially); ``bell(l, cap) == bell(l)`` whenever ``bell(l) <= cap``.
    """
    row = [1]
    for _ in range(l):
        if cap is not None and row[-1] > cap:  # row[-1] = Bell(i + 1) <= Bell(l)
            return cap + 1
        nxt = [row[-1]]
        for x in row:
            nxt.append(nxt[-1] + x)
        row = nxt
    if cap is not None and row[0] > cap:
        return cap + 1
    return row[0]


@dataclasses.dataclass(frozen=True)
class Shape:
    """The dimensions of one construction, from the sizes alone (nothing is built).

    Attributes:
      label: the row's theorem label (``"5 (1 head)"``).
      seq_len, width, heads, num_classes: ``n``, ``d'``, heads per layer, ``C``.
      lemma3_vectors: the vectors Lemma 3 is fit on (0 when the classifier is written down).
      templates: template tuples the task holds (``Bell(l)``, or ``TEMPLATE_COUNT_CAP + 1`` when
        larger: more than any memory holds; 0 for other tasks).
    """

    label: str
    seq_len: int
    width: int
    heads: tuple[int, ...]
    num_classes: int
    lemma3_vectors: int = 0
    templates: int = 0
    template_length: int = 0


def shapes(theorem: int, s: Sizes) -> list[Shape]:
    """The :class:`Shape` of every row :func:`plan` makes for ``theorem`` (integer arithmetic; a
    template count beyond :data:`TEMPLATE_COUNT_CAP` is given as ``TEMPLATE_COUNT_CAP + 1``)."""
    if theorem == 1:
        d, n = s.alphabet + 1, s.length + 1
        N = s.num_sequences
        return [Shape("1", n, max(n * d, d + n), (n,), N, lemma3_vectors=N)]
    if theorem == 3:
        d, n = s.n_q + s.n_a + 1, 3 * s.k + 2
        return [Shape("3", n, d + n, (1, 1), s.n_a)]
    if theorem == 5:
        l = s.template_length
        d, n, T = s.alphabet + 1, l + 1, bell(l, TEMPLATE_COUNT_CAP)
        common = dict(num_classes=T, lemma3_vectors=T, templates=T, template_length=l)
        return [
            Shape("5 (1 head)", n, d + n, (1, 1), **common),
            Shape("5 (n heads)", n, max(n * n, d + n), (1, n), **common),
        ]
    if theorem == 6:
        l = s.ictm_template_length
        d, n = s.alphabet + s.n_a + 1, s.k * (l + 2) + l + 1
        return [
            Shape(
                "6",
                n,
                d + n + l + 2,
                (1, 1, 2 * l),
                s.n_a,
                templates=bell(l, TEMPLATE_COUNT_CAP),
                template_length=l,
            )
        ]
    raise ValueError(f"theorem: expected one of {THEOREMS}, got {theorem}")


def memory_bytes(shape: Shape, chunk_size: int) -> dict[str, int]:
    """Estimated peak bytes of building and checking one construction, by part.

    Parts: ``weights`` (``W_QK`` and ``W_V`` of every head in float64, three copies: the NumPy
    construction, the probe model Lemma 3 reads its vectors from, the final model), ``lemma3``
    (its ``B x B`` score matrix plus three ``B x D`` arrays), ``classifier`` (``W_O`` twice),
    ``check`` (one chunk through the forward pass: per-head values ``chunk x H x n x D`` twice,
    scores, streams), ``templates`` (the task's template tuples). ``total`` is their sum; it is an
    estimate (within a factor of about 2), meant to refuse sizes that cannot fit, not to budget.
    """
    n, D, H = shape.seq_len, shape.width, max(shape.heads)
    B, C = shape.lemma3_vectors, shape.num_classes
    parts = dict(
        weights=8 * 3 * 2 * sum(shape.heads) * D * D,
        lemma3=8 * (B * B + 3 * B * D),
        classifier=8 * 2 * C * D,
        check=8 * chunk_size * (2 * H * n * D + H * n * n + (len(shape.heads) + 1) * n * D),
        templates=2 * shape.templates * (64 + 8 * shape.template_length),
    )
    parts["total"] = sum(parts.values())
    return parts
