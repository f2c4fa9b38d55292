"""Every attention head of trained models classified (Conti 2024, §3.1.2): positional
(``Sigma_1``), syntactic (``Sigma_2(w)``), rare-token (``Sigma_3``), other or empty, plainly and up
to a permutation (eq. 19-20). Commands (after the encoder-decoder experiment)::

    transformer-theory heads results/encdec_translation --out results/heads
    transformer-theory experiment heads --size smoke

:class:`HeadsSettings` are the command's options (the classifier's
:class:`.._theory_heads.HeadClassifySettings` plus the run directory and the examples); the
study, :func:`.._study_heads.run`, reads every head of every trained run
(:mod:`.._models_trained`) on its held-out inputs, refuses options whose family covers a whole
map (naming the field and the run: every head would fit it), classifies each head
(:func:`.._theory_heads.classify_model`), draws each run's heads (:func:`.._plots.head_grid`) and
writes ``heads.json`` and ``heads.csv``::

    study = run(HeadsSettings(run_dir="results/encdec_translation"), "results/heads")
    summary_rows(study.records)  # (from the study) the kinds counted per run
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.papers.conti2024._theory_heads import HeadClassifySettings
from transformer_theory.settings import setting

__all__ = ["SIZES", "HeadsSettings", "get_config"]


@dataclasses.dataclass(frozen=True)
class HeadsSettings(HeadClassifySettings):
    """What one ``heads`` run classifies: the classifier's options and where the models are.

    Attributes:
      run_dir: a run or experiment directory (transformer-theory train, or the encoder-decoder
        experiment).
      examples: held-out inputs per model.
      max_offset: positional heads may sit on diagonals ``j = i + o``, ``|o| <= this``.
      bandwidth: w of the syntactic band.
      max_columns: rare-token heads: at most this many attended columns.
      slack: a simpler family wins within this score of the best.
    """

    run_dir: str = setting("results/encdec_translation", flag="RUN_DIR")
    examples: int = setting(64, positive=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        _validate.check_int_arg("examples", self.examples)
        _validate.check_int_arg("max_columns", self.max_columns)
        if not self.slack > 0:
            raise ValueError(f"slack: expected a fraction in (0, 1], got {self.slack}")


SIZES = ("smoke", "default")


def get_config(size: str = "default") -> HeadsSettings:
    """The heads of ``results/encdec_translation`` (the encoder-decoder experiment's output) on 64
    held-out inputs per model (``"default"``) or 4 (``"smoke"``).

    Raises:
      ValueError: naming ``size`` when it is not one of :data:`SIZES`.
    """
    if size not in SIZES:
        raise ValueError(f"size: expected one of {', '.join(SIZES)}, got {size!r}")
    return HeadsSettings(examples=4 if size == "smoke" else 64)
