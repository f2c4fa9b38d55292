"""What Barbero et al. 2024's two grid studies (:mod:`._study_collapse`,
:mod:`._study_oversquash`) share: the grid of their settings (:func:`grid_of`, read by the
fields ``depths``, ``heads``, ``positionals``, ``seeds``, ``width`` both have) and the
:data:`Guard` their calls are entered in. Their record's resume is :mod:`._records`'.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from transformer_theory.papers.barbero2024._models import GridModel, model_grid

__all__ = ["Guard", "grid_of"]

#: A context manager factory entered around each JAX call (the command passes one that holds
#: Ctrl-C until the call returns).
Guard = Callable[[], contextlib.AbstractContextManager]


def grid_of(config: Any) -> list[GridModel]:
    """The models of ``config`` (every ``depths x heads x positionals x seeds`` at ``width``:
    :func:`~._models.model_grid`, the largest's size refused first)."""
    return model_grid(config.depths, config.heads, config.positionals, config.seeds, config.width)
