"""The experiments the library ships, one config module per figure of Chen & Zou 2024.

Each module's ``get_config()`` returns an
:class:`~transformer_theory.harness.ExperimentConfig`; its docstring gives the exact command
and the result it produced. ``transformer-theory train --experiment NAME`` runs one;
``transformer-theory train --config FILE`` runs a user's file of the same form.
"""
