"""Training experiments reproducing Chen & Zou's figures, one module per figure.

Each module defines ``NAME``, ``run(out, size="quick", seeds=..., tasks=None, steps=None,
progress=True)``
(returns summary rows, writes metrics/CSV/JSON/PNG under ``out``) and ``plot(out)``; its docstring
gives the exact command and the expected result. Run them with
``transformer-theory train --experiment NAME`` and redraw with ``transformer-theory plot DIR``.
"""

from __future__ import annotations

import importlib

REGISTRY = {
    "fig2_depth": "experiments.fig2_depth",
    "fig4_7_heads": "experiments.fig4_7_heads",
    "fig3_attention_maps": "experiments.fig3_attention_maps",
}


def get(name: str):
    """The experiment module registered as ``name``."""
    if name not in REGISTRY:
        raise ValueError(f"experiment: expected one of {sorted(REGISTRY)}, got {name!r}")
    return importlib.import_module(REGISTRY[name])
