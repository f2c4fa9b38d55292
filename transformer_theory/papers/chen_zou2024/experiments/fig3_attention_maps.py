"""Figure 3 of Chen & Zou 2024 (§6.2): attention maps of a trained two-layer model on in-context QA
inputs ``A=1B=2A=`` and ``A=1B=2B=``, next to the maps of Theorem 3's constructed model (§13.2).

Trains one two-layer, one-head model on ``InContextQA(n_q, n_a, k=2)`` (quick: 6 questions and 6
answers, the quick reasoning setup; paper: 100 and 100, the paper reasoning setup with k = 2), then
draws the trained and the constructed maps
(:mod:`transformer_theory.sweeps.attention_maps`) and reports the share of the trained
model's attention on the construction's copy and match positions.

Command (quick, about 10 s on 2 CPU cores)::

    transformer-theory train --experiment fig3_attention_maps --size quick --seeds 0 \\
        --out results/fig3_quick

Writes ``fig3_attention_maps.png`` and ``fig3_attention.json`` (plus the run's metrics and
checkpoints, from which ``transformer-theory plot results/fig3_quick`` redraws the figure).

Expected (measured, quick, seed 0): the trained model answers both inputs correctly; 84% and 85%
of its layer-1 mass lie on the copy blocks (it starts from the constructed copy pattern, §9.1, so
this part is inherited, not discovered) and 50% and 49% of its layer-2 last row lie on the matching
block (uniform attention would put 3/8), mostly on that block's response sign. The construction's
shares are 1.0 and 3/5 (its last row also reads its own final ``q r`` pair with weight 1 each).

Also ``transformer-theory experiment fig3_attention_maps --size smoke`` (two steps, seconds).
"""

import dataclasses

from transformer_theory import tasks
from transformer_theory.sweeps import SETUPS, ExperimentSettings

#: The study that runs this experiment (:func:`transformer_theory.papers.study_of`).
STUDY = "transformer_theory.sweeps.directory"

#: ``default``: the figure (quick setups, seed 0); ``smoke``: the same run for two steps.
SIZES = ("smoke", "default")


@dataclasses.dataclass(frozen=True)
class AttentionMapsSettings(ExperimentSettings):
    """Chen & Zou 2024, Figure 3: a trained two-layer one-head model's attention maps on in-context
    QA beside Theorem 3's construction (the fields a command line may change are ``train``'s
    options)."""


def get_config(size: str = "default") -> AttentionMapsSettings:
    """The figure's run (``default``) or the same run for two steps (``smoke``)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    paper = dict(SETUPS["paper"])
    paper["reasoning"] = paper["reasoning"].replace(task=tasks.InContextQA(100, 100, 2))
    config = AttentionMapsSettings(
        name="fig3_attention_maps",
        title=(
            "Chen & Zou 2024, Figure 3: trained two-layer model vs Theorem 3's construction "
            "(red: copy / match positions)"
        ),
        heads={"reasoning": ((1, 1),)},
        seeds=(0,),
        analysis="attention_maps",
        setups={"quick": SETUPS["quick"], "paper": paper},
    )
    return config.replace(steps=2) if size == "smoke" else config
