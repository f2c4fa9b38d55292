"""The companion papers, one package each, built on the spine (core, params, tasks, constructions,
theory, nn, train) of Chen & Zou 2024.

A paper's package imports the spine and never another paper's private names; the spine never
imports a paper (``tests/test_layout.py`` enforces both).

- :mod:`.chen_zou2024`: Chen & Zou 2024's own claims (the spine is its pipeline).
- :mod:`.sanford2023`: Sanford, Hsu & Telgarsky 2023 (q-sparse averaging, Match2 / Match3).
- :mod:`.peng2024`: Peng, Narayanan & Papadimitriou 2024 (function composition).
- :mod:`.svete_cotterell2024`: Svete & Cotterell 2024 (n-gram language models).
- :mod:`.formal_languages`: the formal-language table of Strobl et al. 2024.
- :mod:`.barbero2024`: Barbero et al. 2024 (representational collapse, over-squashing).
- :mod:`.conti2024`: Conti 2024 (efficient attention, head kinds, the encoder-decoder).

An experiment of a paper is pure data: ``<paper>/experiments/<name>.py`` holds one settings
dataclass and ``get_config(size)``; the study that runs it is ``<paper>/_study_<name>.py`` (or the
module its ``STUDY`` names), found by :func:`study_of`::

    from transformer_theory.papers import study_of
    from transformer_theory.papers.peng2024.experiments import composition_cot

    record = study_of(composition_cot).run(composition_cot.get_config("smoke"), "results/cot")
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = [
    "barbero2024",
    "chen_zou2024",
    "conti2024",
    "formal_languages",
    "peng2024",
    "sanford2023",
    "study_of",
    "svete_cotterell2024",
]


def study_of(experiment: ModuleType) -> ModuleType:
    """The study module of the experiment module ``experiment`` (its ``run(config, out_dir, ...)``
    builds, checks, records and plots): the module named by ``experiment.STUDY`` when it has one,
    else ``<paper>._study_<name>`` beside ``<paper>.experiments.<name>``.

    Raises:
      ValueError: ``experiment`` is not a paper's experiment module (named in the message).
    """
    paper, sep, name = experiment.__name__.rpartition(".experiments.")
    study = getattr(experiment, "STUDY", None)
    if study is None:
        if not sep or "." in name:
            raise ValueError(
                f"experiment: {experiment.__name__} is not a module "
                "transformer_theory.papers.<paper>.experiments.<name>"
            )
        study = f"{paper}._study_{name}"
    return importlib.import_module(study)
