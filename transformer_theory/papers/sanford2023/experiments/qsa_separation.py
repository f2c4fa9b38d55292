"""The qSA separation, trained (Sanford, Hsu & Telgarsky 2023): one softmax attention unit, a
fully connected ReLU network (3 weight layers) and a GRU, trained with Adam (Optax) on q-sparse
averaging; held-out error against width (query/key width m, hidden width, GRU state) and against
parameter count, with the theorems' thresholds drawn on the same plot.

Command (this machine, 2 shared CPU cores; ``--size smoke`` runs a few steps for the test)::

    python experiments/sanford_qsa_separation.py --out results/sanford_qsa

took 10 min 31 s (N = 16, q = 1, d' = 1, 3000 Adam steps of 256 fresh inputs, 2000 held-out
inputs; the cores shared with other jobs) and gave the held-out mean over inputs of ``max_i
||f(X)_i - qSA(X)_i||`` (outputting 0 scores 0.907; eps = 1/(2q) = 0.5), with the fraction of
inputs within eps and the parameter count:

- attention, m = 1, 2, 4, 8, 16: 0.906, 0.587, 0.025, 0.013, 0.007 (within eps: 0.01, 0.40, 1.0,
  1.0, 1.0; 99 to 1,089 parameters);
- FNN (3 weight layers), width 4, 16, 64, 256, 1024: 0.923, 0.936, 0.943, 0.782, 0.364 (within
  eps at width 1024: 0.92; 2,216 to 1,607,696 parameters);
- GRU, state 2, 4, 8, 16, 32, 64: 0.931, 0.927, 0.922, 0.906, 0.824, 0.220 (within eps at 64:
  0.9985; 219 to 18,881 parameters).

What this does and does not test: the widths here are float32 widths, and two of the three
bounds count BITS. The attention bound is ``m p >= q`` (query width times precision), met by
m = 1 in float32 (32 bits >= q = 1); the RNN bound is ``(N - 1)/2`` bits of memory, met by a
float32 GRU of state 2 (64 bits). So no cell here is below those two thresholds and "nothing
succeeds below its threshold" would be empty for them; ``experiments/sanford_qsa_bits.py``
quantizes the query and the state and sweeps width x precision across the thresholds. Only the
FNN bound counts width (``N d'/2 = 8``); FNN widths 4 fails, as it must, and so do 16-256, which
the bound allows: training needs far more. Attention reaches eps at m = 4 (m = 1 fails: a
1-dimensional score cannot single out an arbitrary key), the FNN needs width ~1024 (1.6 M
parameters against 297 for attention), the GRU a state of ~64 floats. Matched at ~1,000
parameters attention is at 0.013, the GRU (1,017) at 0.922, the FNN cannot even be built that
small.

Writes ``records.json`` (one record per model and width, after each run) and
``qsa_separation.png``.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate

__all__ = ["SIZES", "QSASeparationSettings", "get_config"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> QSASeparationSettings:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = QSASeparationSettings()
    if size == "smoke":
        widths = tuple((model, (2,)) for model, _ in config.widths)
        config = dataclasses.replace(
            config, seq_len=4, q=1, dim=1, steps=2, held_out=200, widths=widths
        )
    return config


@dataclasses.dataclass(frozen=True)
class QSASeparationSettings:
    """The float32 qSA separation (``experiments/sanford_qsa_separation.py``): every model of
    :data:`QSA_MODELS` at each of its widths on qSA at ``N = seq_len``, ``q``, ``d' = dim``."""

    seq_len: int = 16
    q: int = 1
    dim: int = 1
    steps: int = 3000
    batch: int = 256
    held_out: int = 2000
    seed: int = 0
    widths: tuple[tuple[str, tuple[int, ...]], ...] = (
        ("attention", (1, 2, 4, 8, 16)),
        ("fnn", (4, 16, 64, 256, 1024)),
        ("rnn", (2, 4, 8, 16, 32, 64)),
    )
    learning_rates: tuple[tuple[str, float], ...] = (
        ("attention", 3e-3),
        ("fnn", 1e-3),
        ("rnn", 3e-3),
    )

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        for name in ("seq_len", "q", "dim", "steps", "batch", "held_out"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name}: expected a positive integer, got {getattr(self, name)}")
        if self.q > self.seq_len:
            raise ValueError(f"q: expected q <= N = {self.seq_len}, got {self.q}")
