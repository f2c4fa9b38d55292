"""Function composition against Peng, Narayanan & Papadimitriou 2024, Theorem 1, made informative:
one-layer transformers (``H`` heads, embedding ``d``, weights and activations fake-quantized to
``p`` bits, ``p = 32`` = float32) answer ``g(f(x))`` in ONE pass, in the table form of the prompt
(the prompts of ``_models_cot``, ``K = 2``, stride 2), at cells where the bound
``R / (3 n log n)``, ``R = n log2 n - H (d + 1) p``, is void (``R <= 0``) and cells where ``R > 0``,
with ONE recipe (Adam 3e-3 with a cosine decay, 4,000 steps of 128 prompts), so that a failure
where ``R > 0`` can be set beside the same recipe's success where the bound is void (what the
earlier runs, which learned nowhere, could not do; how far that goes at n = 4: below).

Command (this machine, 2 shared CPU cores; ``--size smoke`` runs a few steps for the test)::

    python experiments/composition_bound.py --out results/composition_bound

Measured (2026-11-25, default size: n = 4, so n log2 n = 8; 1,000 held-out prompts; chance error
0.75, error of guessing g's most frequent value 0.47 (a numpy simulation of 200,000 tables);
4 min 19 s wall, 2 min 24 s of CPU, on 2 shared cores at load average ~9). Error (bound):

- where the bound is void, H = 5, d = 16: float32 (R = -2712) 0.022; p = 8 (R = -672) 0.019;
  p = 4 (R = -332) 0.414; p = 2 (R = -162) 0.692 (bound 0 for all four);
- where R > 0: H = 1, d = 2, p = 2 (R = 2): 0.624 (0.083); H = 1, d = 1, p = 2 (R = 4): 0.674
  (0.167).

Every error lies above its bound, and the recipe learns one-pass composition where the bound is
void at 32 and 8 bits. But it does NOT learn at 2 bits even where the bound is void (0.692), and at
n = 4 the cells with ``R > 0`` exist only at ``p <= 3`` (``H (d + 1) p >= 8`` otherwise): so
their failure is this recipe's failure at 2 bits, not shown to be the bound's, and the room is
small (``R <= 4`` bits, bounds <= 0.17). ``peng2024.theorem1_trained`` states this count (R > 0
cells with a void cell of the same ``p`` that learned: 0 of 2). A test at larger n (R > 0 with
more room and at higher ``p``, e.g. n = 8: d = 1, p = 2 gives bound 0.28) needs a recipe that
learns one-pass composition at n = 8 where the bound is void, and this one does not:
``--size n8`` (n = 8, H = 9, d = 16, float32, 6,000 steps; 2026-11-25, about 5 min on the loaded
cores) ended at error 0.681, the error of guessing the most frequent value of g (0.676, a numpy
simulation), and was stopped before its ``R > 0`` cells, which could show nothing. Committed:
``experiments/results/peng2024_composition_bound.json`` (the default run).

Writes ``records.json`` (after each run) and ``composition_bound.png`` (error against the bound).

The table form keeps an entry's argument (its position) and value apart until a head sums them,
which is what stops this recipe beyond n = 4: :mod:`.composition_one_pass` (pair-token prompts, an
auxiliary curriculum, head outputs rounded to ``p`` bits) learns at n = 6 where the bound is void,
at 4 bits too, and sets its ``R > 0`` cells beside that and beside a hand-built exact model.
"""

from __future__ import annotations

import dataclasses

from transformer_theory.papers.peng2024.experiments.composition_cot import CoTSettings

__all__ = ["SIZES", "CompositionBoundSettings", "get_config"]

SIZES = ("smoke", "default", "n8")


def get_config(size: str = "default") -> CompositionBoundSettings:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above, ``"n8"`` the same at n = 8 (more room: bounds up to
    0.28) with 9 heads where the bound is void and 6,000 steps (it did not learn: see above)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = CompositionBoundSettings()
    if size == "smoke":
        config = dataclasses.replace(config, cells=((1, 1, 2),), steps=3, held_out=50)
    elif size == "n8":
        config = dataclasses.replace(
            config, ns=(8,), cells=((9, 16, 32), (1, 2, 2), (1, 1, 2)), steps=6000
        )
    return config


@dataclasses.dataclass(frozen=True)
class CompositionBoundSettings(CoTSettings):
    """The one-pass sweep: :class:`.composition_cot.CoTSettings` at the run quoted above, every
    ``ns x cells`` answering ``functions``-fold composition in ONE pass (``strides`` and
    ``target`` are not read)."""

    ns: tuple[int, ...] = (4,)
    functions: int = 2
    strides: tuple[int, ...] = (2,)
    cells: tuple[tuple[int, int, int], ...] = (
        (5, 16, 32),
        (5, 16, 8),
        (5, 16, 4),
        (5, 16, 2),
        (1, 2, 2),
        (1, 1, 2),
    )
    steps: int = 4000
    learning_rate: float = 3e-3
