"""Chen & Zou 2024's trained experiments, one module per figure, each of the contract every paper's
experiments follow: one settings dataclass (a :class:`~transformer_theory.sweeps.ExperimentSettings`
whose docstring is the command's help), ``get_config(size)`` returning it, ``run(config, out_dir)``
(:func:`transformer_theory.sweeps.run_experiment`: train every run, summarize, draw).

- :mod:`.fig2_depth`: Figure 2, depth 1-4 on the four tasks (quick sizes);
- :mod:`.fig2_paper`: Figure 2 at §9.1's sizes, Adam, early stopping;
- :mod:`.fig3_attention_maps`: Figure 3, a trained two-layer model's attention beside Theorem 3's;
- :mod:`.fig4_7_heads`: Figures 4-7, heads per layer;

and, run by ``transformer-theory experiment NAME`` (each with its study ``_study_<name>.py``):

- :mod:`.constructions_paper_sizes`: Theorems 1, 3, 5, 6's constructions at §9.1's sizes;
- :mod:`.contextual_depth3_recipes`: training variants of the 3-layer contextual model;
- :mod:`.theorem5_base3_certify`: Theorem 5's construction in base 3, certified exactly;
- :mod:`.verify_10m`: the affine-form check streamed over 10^7+ sequences.

``transformer-theory train --experiment NAME`` runs one (:data:`NAMED`, the modules found on disk;
the fields a command line may change, size, seeds, tasks, depths, steps, optimizer and learning
rate, are ``train``'s options), as does ``transformer-theory experiment NAME --size smoke|default``;
``transformer-theory train --config FILE`` runs a user's file of the same form. An output
directory records its experiment by the module's dotted name, so ``transformer-theory plot DIR``
rebuilds the same settings (:func:`transformer_theory.sweeps.read_record`).
"""

from __future__ import annotations

import importlib
import os
import pkgutil

from transformer_theory.sweeps import ExperimentError, ExperimentSettings

__all__ = ["NAMED", "module_name", "named_config", "shipped_defaults"]

#: The study of the training sweeps (Chen & Zou's figures); a module naming it is a sweep.
SWEEP_STUDY = "transformer_theory.sweeps.directory"


def _sweeps() -> tuple[str, ...]:
    here = os.path.dirname(os.path.abspath(__file__))
    names = (m.name for m in pkgutil.iter_modules([here]) if not m.name.startswith("_"))
    return tuple(
        sorted(
            name
            for name in names
            if getattr(importlib.import_module(f"{__name__}.{name}"), "STUDY", None) == SWEEP_STUDY
        )
    )


#: The shipped training sweeps: every module of this package whose ``STUDY`` is the sweep's
#: (:data:`SWEEP_STUDY`), found on disk (a new ``<name>.py`` of that form is a new named sweep).
#: The package's other experiments (the exact certificates and streamed checks of the proofs)
#: run with ``transformer-theory experiment NAME`` only.
NAMED = _sweeps()


def module_name(name: str) -> str:
    """The dotted module of the shipped experiment ``name`` (what an output directory records)."""
    if name not in NAMED:
        raise ExperimentError(f"unknown experiment {name!r}; choose from {', '.join(NAMED)}")
    return f"{__name__}.{name}"


def named_config(name: str, size: str = "default") -> ExperimentSettings:
    """The settings of the shipped experiment ``name`` (one of :data:`NAMED`) at ``size``."""
    return importlib.import_module(module_name(name)).get_config(size)


def shipped_defaults() -> tuple[str, str]:
    """``(sizes, optimizers)``: per shipped experiment, its setup sizes (the default first) and each
    setup's optimizer and learning rate at its default size, read from the configs themselves
    (``train --help`` shows them, so they cannot drift from what a run does)."""
    sizes, optimizers = [], {}
    for name in NAMED:
        config = named_config(name)
        others = [s for s in config.sizes if s != config.size]
        sizes.append(f"{name}: {config.size} (default){''.join(', ' + s for s in others)}")
        rates: dict[str, dict[float, list[str]]] = {}
        for task in config.selected_tasks:
            train = config.setup(task).train
            rates.setdefault(train.optimizer, {}).setdefault(train.learning_rate, []).append(task)
        parts = []
        for opt, by_rate in rates.items():
            (usual, _), *others = sorted(by_rate.items(), key=lambda kv: -len(kv[1]))
            parts.append(
                f"{opt} lr {usual:g}"
                + "".join(f" ({lr:g} for {', '.join(tasks)})" for lr, tasks in others)
            )
        optimizers.setdefault(" or ".join(parts), []).append(name)
    optimizer = "; ".join(f"{text} for {', '.join(names)}" for text, names in optimizers.items())
    return "; ".join(sizes), optimizer
