"""Dyck-(k, D) after Yao et al. 2021 (the Dyck-k row of Strobl et al. 2024's table): the hard and
softmax recognizers of :mod:`.._constructions_dyck_k` checked against a
stack on every short string and on sampled members and hard non-members, for k = 2, 3 and
D = 1-4, and their smallest margin against ``n`` in float32 and float64.

Command::

    transformer-theory experiment dyck_k --out results/dyck_k

Writes ``dyck_k.json`` (``records``: one per recognizer, k and D, with every length's accuracy,
smallest signed margin and the derived-margin check; ``precision``: the margin sweep per float
format; ``settings``) and ``dyck_k_margin.png`` (smallest margin and margin times ``n`` against
``n``, per recognizer and format).

Takes about 66 s of CPU (61.6 s user, 4.9 s system; 7 min 17 s wall on the 2-core CPU shared
with up to seven other jobs, 1.1 GB peak, 2026-11-25); the smoke size seconds of CPU.

Result (2026-11-25, this command): all 16 records (hard and softmax, k = 2 and 3, D = 1-4; D + 2
layers) right on every string checked -- 21,941 strings for k = 2 (every string of length <= 7,
then 32 sampled at 16, 64 and 256) and 9,427 for k = 3 (length <= 5, the same samples) -- with
the derived margins: members exactly ``1/(4n)``, non-members at most ``-3/(4n)`` within ``16 n u``
(smallest signed margin times ``n``: 0.25 everywhere), and leftmost-hard layers giving exactly
the average-hard margins. Margin sweep (Dyck-(2, 4), 16 strings per length, ``n = 17 .. 1025``):
every string right in float32 and float64, for both recognizers; the smallest margin times ``n``
is 0.25 in float64 and 0.24997 (hard) / 0.24999 (softmax) in float32 at ``n = 1025``, the members'
margin error at most 3.1e-8 in float32 against the ``16 n u`` = 9.8e-4 allowed. No float32
misclassification up to ``n = 1025``: the level heads' gap ``1/(2n)`` stays far above their
score error at these lengths.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate, budget
from transformer_theory.papers.formal_languages import _theory_dyck_k
from transformer_theory.papers.formal_languages._constructions_dyck_k import ATTENTIONS
from transformer_theory.papers.formal_languages._tasks_dyck_k import ALL_STRINGS_LIMIT

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = ["SIZES", "DyckKSettings", "get_config"]

SIZES = ("smoke", "default")


def _int(name: str, value: object, minimum: int) -> int:
    return _validate.check_int_arg(name, value, minimum=minimum)


@dataclasses.dataclass(frozen=True)
class DyckKSettings:
    """What :func:`run` checks (:func:`get_config` chooses the sizes).

    Attributes:
      size: the config size that made these settings (recorded with the results).
      exhaustive: ``(k, E)`` pairs: every string of length ``<= E`` over ``2k`` symbols.
      depths: the depths ``D`` checked for every ``k``.
      attentions: the recognizers (:data:`ATTENTIONS`).
      sampled_lengths: even lengths of the sampled members and hard non-members.
      samples: strings per sampled length.
      precision_k, precision_depth: the recognizer of the margin-against-``n`` sweep.
      precision_lengths: its string lengths.
      precision_samples: its strings per length.
      dtypes: its float formats.
      seed: seed of the samples (length ``n`` uses ``seed + n``).
    """

    size: str = "default"
    exhaustive: tuple[tuple[int, int], ...] = ((2, 7), (3, 5))
    depths: tuple[int, ...] = (1, 2, 3, 4)
    attentions: tuple[str, ...] = ATTENTIONS
    sampled_lengths: tuple[int, ...] = (16, 64, 256)
    samples: int = 32
    precision_k: int = 2
    precision_depth: int = 4
    precision_lengths: tuple[int, ...] = (16, 64, 256, 1024)
    precision_samples: int = 16
    dtypes: tuple[str, ...] = ("float32", "float64")
    seed: int = 0

    def __post_init__(self) -> None:
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        for name in ("precision_k", "precision_depth"):
            _validate.check_positive(name, getattr(self, name))
        for k, e in self.exhaustive:
            _int("exhaustive", k, 1)
            _int("exhaustive", e, 0)
            budget.check_count("exhaustive", (2 * k) ** e, ALL_STRINGS_LIMIT, unit="strings")
        for d in self.depths:
            _int("depths", d, 1)
        for a in self.attentions:
            _validate.check_choice("attentions", a, ATTENTIONS)
        for n in (*self.sampled_lengths, *self.precision_lengths):
            if _int("sampled_lengths", n, 2) % 2:
                raise ValueError(f"sampled_lengths: lengths must be even, got {n}")
        for name in self.dtypes:
            _validate.check_choice("dtypes", name, _theory_dyck_k.DTYPES)
        _int("samples", self.samples, 1)
        _int("precision_samples", self.precision_samples, 1)
        _int("seed", self.seed, 0)


def get_config(size: str = "default") -> DyckKSettings:
    """The experiment at ``size``: ``"default"`` (what README quotes: every string of length
    <= 7 for k = 2 and <= 5 for k = 3, D = 1-4, 32 samples at lengths 16, 64, 256, both
    recognizers; the margin sweep of Dyck-(2, 4) at lengths 16-1024 in float32 and float64) or
    ``"smoke"`` (k = 2, D = 2, the hard recognizer, every string of length <= 4, the sweep at
    length 16 in float64)."""
    if size == "default":
        return DyckKSettings()
    if size == "smoke":
        return DyckKSettings(
            size="smoke",
            exhaustive=((2, 4),),
            depths=(2,),
            attentions=("hard",),
            sampled_lengths=(),
            precision_depth=2,
            precision_lengths=(16,),
            precision_samples=4,
            dtypes=("float64",),
        )
    raise ValueError(f"size: expected one of {list(SIZES)}, got {size!r}")
