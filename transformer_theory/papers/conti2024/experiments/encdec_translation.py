"""The encoder-decoder of Conti 2024 trained on the synthetic translation grammar: decoding and
heads (one layer with one head against one layer with eight, as in Conti 2024, §3.1).

Run by its study, :func:`.._study_encdec_translation.run` (train -> decode -> heads -> record
-> plot). Command (2 shared CPU cores)::

    python experiments/encdec_translation.py --size default --out results/encdec_translation
    transformer-theory heads results/encdec_translation --out results/encdec_heads

``--size smoke`` runs a tiny version (under a minute); ``--steps N``, ``--seeds 0 1`` and
``--set field=value`` (``--set beam_examples=64``) override the config. Re-running the same
command resumes killed runs from their checkpoints. Writes ``summary.{json,csv}`` (one row per
run, rewritten as each run finishes), ``heads.json`` (one record per head), ``curves.png`` and
``<run>_maps.png`` (Figures 11-12).

Result (2026-11-24, the command above on 2 CPU cores under a load average of 18: 359 s in all,
107 s and 112 s of training for 1,000 Adam steps each; 81 s on 2026-11-22 before the eos beams,
under less load; a re-run that finds the finished runs only evaluates):

- both models -- one layer, width 64, one head or eight heads -- translate every one of the 7,200
  held-out sentence pairs exactly (greedy exact match 1.000, token accuracy 1.000); teacher-forced
  held-out token accuracy is 0.95 at step 50 and 1.000 (to three decimals) from step 100;
- beams of 2 and 4 return the greedy sentences with the same log-probabilities on the 256
  sentences decoded with beams (0 sentences where a larger beam is less likely); the beam search
  that stops at ``<eos>`` with the GNMT length penalty (alpha 0.6) ends exactly at the
  reference's ``<eos>`` on 256/256 sentences with beams 1, 2, 4 (one head) and 256, 255, 255
  (eight heads);
- heads (64 held-out sentences), as printed: one head -- encoder rare-token (score 0.15, columns
  6-7: the end of the sentence), decoder rare-token (0.09, columns 0-1: ``<bos>``),
  cross-attention "other" with concentration 0.88 and 81% of its weight on the source word being
  translated (an alignment that reorders: in none of the three families); eight heads -- 4
  rare-token, 20 other, the cross-attention heads share the alignment (18-50% of each head's
  weight on the aligned word). Up to a permutation (Conti 2024, eq. 19-20): 26 of the 27 heads
  are rare-token (a permuted diagonal plus two key columns; the one-head cross-attention 0.07,
  0.29 as a permuted diagonal alone), one eight-head encoder head stays "other".

The smoke size (2 nouns, 1 adjective, 1 verb; width 16; 40 steps per model) takes about 20 s on
2 CPU cores and only checks that everything runs (``tests/papers/conti2024/test_translation.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from transformer_theory.nn.encdec import Seq2SeqConfig
from transformer_theory.papers.conti2024 import _theory_heads as heads
from transformer_theory.papers.conti2024._tasks import Translation
from transformer_theory.train import TrainSettings

__all__ = ["SIZES", "TranslationSettings", "get_config"]


@dataclasses.dataclass(frozen=True)
class TranslationSettings:
    """The encoder-decoder experiment.

    Attributes:
      name: names the output files.
      task: the translation grammar.
      models: model name -> :class:`~transformer_theory.nn.encdec.Seq2SeqConfig` (the vocabulary
        size is set from ``task``).
      train: optimizer, steps, batch size, logging and checkpoint intervals (``seed`` replaced by
        each run's seed).
      seeds: one run per model and seed.
      holdout: share of the sentence pairs held out.
      beam_sizes: beam sizes decoded on ``beam_examples`` held-out sentences.
      beam_examples: held-out sentences decoded with every beam size.
      eos_alpha: the same sentences are also decoded with every beam size by the beam search
        that stops at ``<eos>`` (:func:`~transformer_theory.core.beam.beam_decode_eos`) with the
        GNMT length penalty of this exponent.
      map_examples: held-out sentences whose attention maps classify the heads.
      head_options: how heads are classified.
    """

    name: str = "encdec_translation"
    task: Translation = Translation()
    models: Mapping[str, Seq2SeqConfig] = dataclasses.field(
        default_factory=lambda: {
            "1layer_1head": Seq2SeqConfig(vocab_size=1, width=64, num_heads=1, ffn_hidden=128),
            "1layer_8heads": Seq2SeqConfig(vocab_size=1, width=64, num_heads=8, ffn_hidden=128),
        }
    )
    train: TrainSettings = TrainSettings(
        steps=1000,
        batch_size=64,
        learning_rate=3e-3,
        optimizer="adam",
        grad_clip=1.0,
        log_every=50,
        checkpoint_every=500,
    )
    seeds: tuple[int, ...] = (0,)
    holdout: float = 0.5
    beam_sizes: tuple[int, ...] = (1, 2, 4)
    beam_examples: int = 256
    eos_alpha: float = 0.6
    map_examples: int = 64
    head_options: heads.HeadClassifySettings = heads.HeadClassifySettings()

    def __post_init__(self):
        if not isinstance(self.task, Translation):
            raise ValueError(f"task: expected a Translation, got {self.task!r}")
        if not self.models:
            raise ValueError("models: expected at least one model")
        fixed = {}
        for name, cfg in self.models.items():
            if not isinstance(cfg, Seq2SeqConfig):
                raise ValueError(f"models: {name!r} is not a Seq2SeqConfig")
            fixed[name] = cfg.replace(vocab_size=self.task.vocab_size)
        object.__setattr__(self, "models", fixed)
        seeds = tuple(int(s) for s in self.seeds)
        if not seeds or min(seeds) < 0 or len(set(seeds)) != len(seeds):
            raise ValueError(f"seeds: expected distinct non-negative integers, got {self.seeds!r}")
        object.__setattr__(self, "seeds", seeds)
        sizes = tuple(int(b) for b in self.beam_sizes)
        if not sizes or min(sizes) < 1 or sizes[0] != 1:
            raise ValueError(
                f"beam_sizes: expected positive sizes starting with 1 (greedy), got "
                f"{self.beam_sizes!r}"
            )
        object.__setattr__(self, "beam_sizes", sizes)
        if not (np.isfinite(self.eos_alpha) and self.eos_alpha >= 0):
            raise ValueError(f"eos_alpha: expected a finite exponent >= 0, got {self.eos_alpha}")
        if not 0 < self.holdout < 1:  # NaN fails too
            raise ValueError(f"holdout: expected a share in (0, 1), got {self.holdout}")
        for name in ("beam_examples", "map_examples"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: expected a positive count, got {getattr(self, name)}")

    def replace(self, **changes: Any) -> TranslationSettings:
        return dataclasses.replace(self, **changes)


SIZES = ("smoke", "default")


def get_config(size: str = "default") -> TranslationSettings:
    """The experiment at ``size`` (``"smoke"`` or ``"default"``, the one README quotes).

    Raises:
      ValueError: naming ``size`` when it is not one of :data:`SIZES`.
    """
    if size not in SIZES:
        raise ValueError(f"size: expected one of {', '.join(SIZES)}, got {size!r}")
    config = TranslationSettings()
    if size == "smoke":
        config = config.replace(
            task=Translation(num_nouns=2, num_adjectives=1, num_verbs=1),
            models={
                "1layer_1head": Seq2SeqConfig(vocab_size=1, width=16, num_heads=1, ffn_hidden=32),
                "1layer_2heads": Seq2SeqConfig(vocab_size=1, width=16, num_heads=2, ffn_hidden=32),
            },
            train=config.train.replace(steps=40, log_every=20, checkpoint_every=40),
            beam_sizes=(1, 2),
            beam_examples=8,
            map_examples=4,
        )
    return config
