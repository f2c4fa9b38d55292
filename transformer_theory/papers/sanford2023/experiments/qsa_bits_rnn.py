"""Sanford, Hsu & Telgarsky 2023's RNN bound in BITS: a two-pass GRU whose state is rounded to
``p`` bits per number after every step (memory ``m log2(2^p - 1)`` bits against ``floor(N/2)/2``,
our cut bound for the two-pass reading, and Sanford et al.'s ``(N - 1)/2`` for their one-pass RNN),
swept over state ``m`` x precision ``p`` so that cells fall on both sides of the threshold. The
attention half of the experiment: :mod:`.qsa_bits_attention`.

Command (2 shared CPU cores; ``--size smoke`` runs a few steps for the test)::

    python experiments/sanford_qsa_bits.py --model rnn --out results/qsa_bits_rnn

GRU at N = 8, q = 1 (the RNN bound's case), eps = 0.5, state 1, 2, 4, 8 x p = 2, 3, 8; d' = 1,
1,000 Adam steps of 256 inputs, 2,000 held-out inputs. Measured 2026-11-24 (README,
"Transformers against other networks"): 3 min 12 s, every cell at error 0.81-0.84 (output 0:
0.837), nothing learned; with ``--set widths=8,32 --set bits=3,8 --set steps=3000`` (4 min 12 s)
state 32 at p = 8 (256 bits) reaches error 0.116, all within eps.

Writes ``records.json`` (after each run) and ``qsa_bits.png``.
"""

from __future__ import annotations

import dataclasses

from transformer_theory.papers.sanford2023.experiments.qsa_bits_attention import QSABitsSettings

#: The study that runs this experiment (:func:`transformer_theory.papers.study_of`).
STUDY = "transformer_theory.papers.sanford2023._study_qsa_bits"

__all__ = ["STUDY", "SIZES", "QSABitsRNNSettings", "get_config"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> QSABitsRNNSettings:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = QSABitsRNNSettings()
    if size == "smoke":
        config = dataclasses.replace(config, steps=2, held_out=100, widths=(1,), bits=(2,))
    return config


@dataclasses.dataclass(frozen=True)
class QSABitsRNNSettings(QSABitsSettings):
    """The quantized qSA sweep of the two-pass GRU: :class:`.qsa_bits_attention.QSABitsSettings`
    at the RNN bound's case (``N = 8``, ``q = 1``), state ``m`` x precision ``p`` (``bits``)."""

    model: str = "rnn"
    seq_len: int = 8
    q: int = 1
    widths: tuple[int, ...] = (1, 2, 4, 8)
