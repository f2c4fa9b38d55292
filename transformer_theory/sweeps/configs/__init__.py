"""The experiments the library ships, one config module per figure of Chen & Zou 2024.

- :mod:`.fig2_depth`: Figure 2, depth 1-4 on the four tasks (quick sizes);
- :mod:`.fig2_paper`: Figure 2 at §9.1's sizes, Adam, early stopping;
- :mod:`.fig3_attention_maps`: Figure 3, a trained two-layer model's attention beside Theorem 3's;
- :mod:`.fig4_7_heads`: Figures 4-7, heads per layer.

Each module's ``get_config()`` returns an
:class:`~transformer_theory.sweeps.ExperimentSettings` (``fig2_paper`` is ``fig2_depth``'s runs with
§9.1's setups); its docstring gives the exact command and the result it produced. The config is
the one settings object: the fields a command line may change (size, seeds, tasks, depths, steps,
optimizer, learning rate) are ``train``'s options, each defined once by its field (type, bound,
help). The sweeps find them on disk
(:data:`~transformer_theory.sweeps.NAMED`): ``transformer-theory train --experiment NAME`` runs
one; ``transformer-theory train --config FILE`` runs a user's file of the same form.
"""

__all__ = ["fig2_depth", "fig2_paper", "fig3_attention_maps", "fig4_7_heads"]
