"""The one progress bar of the library.

``tqdm.auto`` draws a notebook widget, which needs ``ipywidgets``; where a notebook kernel lacks
it, ``tqdm.auto`` warns (a ``TqdmWarning`` carrying the local path of the environment) and falls
back to text. :data:`tqdm` here is the widget bar only where ``ipywidgets`` is installed, and
tqdm's text bar everywhere else: the same bar, without the warning.
"""

from __future__ import annotations

import importlib.util

__all__ = ["tqdm"]

if importlib.util.find_spec("ipywidgets") is not None:
    from tqdm.auto import tqdm
else:
    from tqdm.std import tqdm
