"""An empty length batch is a clear error naming the argument, not a numpy reduction error."""

import numpy as np
import pytest

from transformer_theory.papers.formal_languages import _theory


def test_length_entry_names_the_empty_batch():
    with pytest.raises(ValueError, match="strings_BxN"):
        _theory.length_entry(None, "parity", np.zeros((0, 3), dtype=np.int32), True)
