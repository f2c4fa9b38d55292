"""Theorem 1 of Peng, Narayanan & Papadimitriou 2024 with one-layer models that learn (our recipe,
:mod:`transformer_theory.papers.peng2024._models_one_pass`): ``g(f(x))`` in one pass on pair-token
prompts, head outputs rounded to ``p`` bits, trained with an auxiliary ``f(x)`` curriculum where
the bound is void and where ``R > 0``, beside the hand-built exact model
(:mod:`transformer_theory.papers.peng2024._constructions`).

Command (this machine, 2 shared CPU cores; ``--size smoke`` runs a few steps for the test)::

    python experiments/composition_one_pass.py --out results/composition_one_pass

Measured (2026-11-25, default size; 22 min 43 s wall, 17 min 12 s of CPU on the 2 cores shared
with two other training jobs; committed as ``experiments/results/peng2024_composition_one_pass
.json``): n = 6, so ``n log2 n = 15.5`` bits; 30,000 Adam steps (2e-3, cosine), 30% ``f(x)``
queries; 2,000 held-out ``g(f(x))`` prompts; chance error 0.833, the error of guessing ``g``'s
most frequent value 0.590 (on the same prompts). Every run converged (the rule of
:func:`~transformer_theory.papers.peng2024._models_one_pass.converged`). Error (bound), message bits
``H (d + 1) p``:

- where the bound is void: H = 2, d = 36 in float32 (2,368 bits) 0.000, at p = 4 (296 bits)
  0.0005, at p = 2 (148 bits) 0.603; H = 2, d = 8 in float32 (576 bits) 0.579;
- where ``R > 0``: H = 1, d = 2, p = 4 (12 bits) 0.716 (0.075); H = 1, d = 1, p = 4 (8 bits) 0.799
  (0.161); H = 2, d = 1, p = 2 (8 bits) 0.831 (0.161); H = 1, d = 1, p = 2 (4 bits) 0.765 (0.247);
- the hand-built model (:func:`~transformer_theory.papers.peng2024._constructions.build`, d = 49)
  is exact on 4,096 sampled prompts at p = 4 (400 bits; 2,786 errors at p = 3).

So the recipe learns one-pass composition at n = 6 where the bound is void, at 4 bits too, and
every ``R > 0`` cell converged, two of them (p = 4) beside a void cell of the same ``p`` that
learned. Their errors (0.72-0.83) lie far above the bound (0.08-0.25), and above the
most-frequent-value guess that needs no composition at all. What stops them is not shown to be
the bound: the same recipe also fails where the bound is void at d = 8 in float32 (576 bits) and
at p = 2 (148 bits). Between the bound's ``n log2 n = 15.5`` bits and the 296 bits at which the
recipe learned (the construction: 400) lies a factor of about 19 where neither the theorem nor
these runs say what one layer can do.

Probes with the same recipe (``one_pass.one_pass_record``, 2026-11-25; in the committed record
under ``probes``): at n = 6, p = 4, H = 2, d = 16 (136 bits) and d = 24 (200 bits) end at 0.600
and 0.603 (converged, the most-frequent-value guess), so the recipe's own threshold at 4 bits lies
between 200 and 296 bits; at n = 8, H = 2, d = 64, p = 4 (520 bits, 40,000 steps, 13 min) it ends
at 0.666 against the guess's 0.671: the recipe does not learn n = 8 in that budget.

Writes ``records.json`` (after each model), ``construction.json`` (the hand-built model's bits at
each ``n``) and ``composition_one_pass.png`` (error against the message bits ``H (d + 1) p``).
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate

__all__ = ["SIZES", "OnePassSettings", "get_config"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> OnePassSettings:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above (n = 6: void cells at float32, 4 and 2 bits, and the
    cells with ``R > 0``, 30,000 steps each)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = OnePassSettings(
        ns=(6,),
        cells=(
            (2, 36, 32),
            (2, 36, 4),
            (2, 36, 2),
            (2, 8, 32),
            (1, 2, 4),
            (1, 1, 4),
            (2, 1, 2),
            (1, 1, 2),
        ),
        steps=30000,
        learning_rate=2e-3,
        aux=0.3,
    )
    if size == "smoke":
        config = dataclasses.replace(
            config,
            ns=(2,),
            cells=((2, 8, 32), (1, 1, 2)),
            steps=4,
            held_out=50,
            construction_samples=64,
        )
    return config


@dataclasses.dataclass(frozen=True)
class OnePassSettings:
    """Every ``ns x cells`` (``cells``: ``(H, d, p)``, ``p = 32`` float32) trained with the recipe
    above: ``steps`` Adam steps of ``batch`` prompts, a fraction ``aux`` asking for ``f(x)``."""

    ns: tuple[int, ...] = (6,)
    cells: tuple[tuple[int, int, int], ...] = ((2, 36, 32),)
    steps: int = 20000
    batch: int = 128
    learning_rate: float = 3e-3
    aux: float = 0.3
    held_out: int = 2000
    seed: int = 0
    construction_samples: int = 4096

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        for name in ("steps", "batch", "learning_rate", "held_out", "construction_samples"):
            _validate.check_positive(name, getattr(self, name))
        for h, d, p in self.cells:
            if min(h, d) < 1 or p < 2:
                raise ValueError(f"cells: expected (H >= 1, d >= 1, p >= 2), got {(h, d, p)}")
        if min(self.ns) < 2:
            raise ValueError(f"ns: expected domain sizes >= 2, got {list(self.ns)}")
        if not 0 <= self.aux < 1:
            raise ValueError(f"aux: expected a fraction in [0, 1), got {self.aux}")
        if self.seed < 0:  # numpy seeds are non-negative
            raise ValueError(f"seed: expected an integer >= 0, got {self.seed}")
