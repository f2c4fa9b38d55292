"""In-context question answering at Chen & Zou 2024, §9.1's size, trained with Adam: one layer
against two (Theorems 2 and 3). Also the example of a user's config file.

A config file is a Python file with ``get_config()`` returning an
:class:`~transformer_theory.sweeps.ExperimentSettings`; it imports only the public library and
runs from any directory::

    transformer-theory train --config experiments/reasoning_paper_adam.py \\
        --out results/reasoning_paper_adam
    transformer-theory plot results/reasoning_paper_adam

Flags still apply (``--seeds 0 1 2``, ``--steps 20000``: a finished run continues to the new step
count, bit for bit the run a fresh 20000-step command gives).

Result (measured with the command above on 2 shared CPU cores, 2 min 7 s in all;
``InContextQA(100, 100, 3)``, chance 0.01, seed 0, Adam lr 1e-3, held-out accuracy at steps 500,
1000, 1500, 2000): one layer 0.005, 0.009, 0.013, 0.019 -- chance, as Theorem 2 says; two layers
1.000 from step 500 on (29 s and 93 s). ``summary.csv`` has the final numbers.
"""

from transformer_theory.sweeps import ExperimentSettings


def get_config() -> ExperimentSettings:
    return ExperimentSettings(
        name="reasoning_paper_adam",
        title="In-context QA at §9.1's size (100 questions, 100 answers, k = 3), Adam lr 1e-3",
        heads={"reasoning": ((1,), (1, 1))},
        seeds=(0,),
        size="paper",
        optimizer="adam",
        learning_rate=1e-3,
        steps=2000,
    )
