"""The qSA lower bounds of Sanford, Hsu & Telgarsky 2023 in their own units, BITS: a softmax
attention unit whose query is rounded to ``p`` bits per coordinate (message ``m log2(2^p - 1)``
bits against the ``q`` bits set disjointness needs) and a two-pass GRU whose state is rounded to
``p`` bits per number after every step (memory ``m log2(2^p - 1)`` bits against ``floor(N/2)/2``,
our cut bound for the two-pass reading, and Sanford et al.'s ``(N - 1)/2`` for their one-pass RNN),
each swept over width ``m`` x precision ``p`` so that cells fall on BOTH sides of the threshold.
Quantization: :func:`transformer_theory.precision.fake_quantize` with a fixed scale (no
data-dependent scale rides along), straight-through gradients; Adam (Optax), fresh inputs.

Commands (2 shared CPU cores; ``--size smoke`` runs a few steps for the test)::

    python experiments/sanford_qsa_bits.py --model attention --out results/qsa_bits_attention
    python experiments/sanford_qsa_bits.py --model rnn --out results/qsa_bits_rnn

Defaults: attention at N = 9, q = 4 (the reduction needs N >= 2q + 1), eps = 1/(2q) = 0.125,
m = 1, 2, 4, 8, 16 x p = 2, 3, 8; GRU at N = 8, q = 1 (the RNN bound's case), eps = 0.5, state
1, 2, 4, 8 x p = 2, 3, 8; d' = 1, 1,000 steps of 256 inputs, 2,000 held-out inputs. A cell
below its threshold cannot reach eps by the theorem; whether a cell above it does is a training
result. Measured 2026-11-24 (full tables in README, "Transformers against other networks"):
attention, 4 min 23 s: the cells below 4 bits (1.6, 2.8, 3.2) at error 0.33-0.36 (output 0:
0.475), within eps on every held-out input only at m = 16, p = 8 (128 bits, error 0.051); GRU,
3 min 12 s: every cell 0.81-0.84 (output 0: 0.837), nothing learned; with
``--set widths=8,32 --set bits=3,8 --set steps=3000`` (4 min 12 s) state 32 at p = 8 (256 bits)
reaches error 0.116, all within eps.

This config: the ``attention`` sweep (the GRU's: :mod:`.qsa_bits_rnn`). Writes ``records.json``
(after each run) and ``qsa_bits.png``.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate

#: The study that runs this experiment (:func:`transformer_theory.papers.study_of`).
STUDY = "transformer_theory.papers.sanford2023._study_qsa_bits"

__all__ = ["STUDY", "SIZES", "QSABitsSettings", "get_config"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> QSABitsSettings:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = QSABitsSettings(model="attention")
    if size == "smoke":
        config = dataclasses.replace(config, steps=2, held_out=100, widths=(1,), bits=(2,))
    return config


@dataclasses.dataclass(frozen=True)
class QSABitsSettings:
    """The quantized qSA sweep (``experiments/sanford_qsa_bits.py``): ``model`` (attention or
    rnn) at every width x precision ``p`` (``bits``, each ``>= 2``), ``d' = 1``."""

    model: str = "attention"
    seq_len: int = 9
    q: int = 4
    widths: tuple[int, ...] = (1, 2, 4, 8, 16)
    bits: tuple[int, ...] = (2, 3, 8)
    learning_rate: float = 3e-3
    steps: int = 1000
    batch: int = 256
    held_out: int = 2000
    seed: int = 0

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        for name in ("seq_len", "q", "learning_rate", "steps", "batch", "held_out"):
            _validate.check_positive(name, getattr(self, name))
        if self.model not in ("attention", "rnn"):
            raise ValueError(f"model: expected attention or rnn, got {self.model!r}")
        if min(self.bits) < 2:
            raise ValueError(
                f"bits: expected every p >= 2 (sign and one level), got {list(self.bits)}"
            )
