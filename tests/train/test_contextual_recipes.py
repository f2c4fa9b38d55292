"""The recipe variants of ``experiments/contextual_depth3_recipes.py``
(:mod:`transformer_theory.sweeps.recipes`): names refused by field, the optimizers' learning rates
against optax's own schedule read independently, and the script's one-line errors."""

import subprocess
import sys

import jax
import numpy as np
import pytest

from transformer_theory.sweeps import recipes


@pytest.mark.parametrize("bad", ["", "wide", "wide0", "wide-2", "lr", "lr0", "lrx", "Base", "cos"])
def test_a_bad_variant_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="variant: expected base, wideK, cosine, lrX or literal"):
        recipes.check_variant(bad)


@pytest.mark.parametrize("good", ["base", "wide16", "cosine", "lr1e-4", "literal"])
def test_a_good_variant_passes(good):
    assert recipes.check_variant(good) == good


def _first_update(tx, step_count):
    """Adam's first update of a unit gradient after ``step_count`` unit-gradient steps: its
    magnitude is the learning rate at that step (Adam's bias-corrected m / sqrt(v) is 1 for a
    constant gradient, up to eps)."""
    params = np.zeros(1)
    state = tx.init(params)
    update_fn = jax.jit(tx.update)
    for _ in range(step_count):
        update, state = update_fn(np.ones(1), state, params)
    return -float(update[0])


def test_the_learning_rates_are_the_recipe_s():
    # tolerance: Adam's eps = 1e-8 against a unit second moment, relative 1e-7
    assert _first_update(recipes.recipe_optimizer("base", 1000), 1) == pytest.approx(3e-4, 1e-7)
    assert _first_update(recipes.recipe_optimizer("lr1e-4", 1000), 1) == pytest.approx(1e-4, 1e-7)
    # cosine: a linear warm-up from 0 to 3e-4 over 200 steps, then cosine decay to 0 at `steps`
    tx = recipes.recipe_optimizer("cosine", 1000)
    assert _first_update(tx, 1) == 0.0
    assert _first_update(tx, 101) == pytest.approx(1.5e-4, 1e-6)
    decay = 3e-4 * 0.5 * (1 + np.cos(np.pi * 400 / 800))
    assert _first_update(tx, 601) == pytest.approx(decay, 1e-6)


def test_the_script_refuses_a_bad_variant_in_one_line(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "experiments/contextual_depth3_recipes.py",
            "wide0",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "variant" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
