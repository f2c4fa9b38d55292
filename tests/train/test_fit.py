"""``train.fit``: the one small-model loop, against closed forms and its own guarantees."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

from transformer_theory.train.fit import fit


def test_fit_reaches_the_least_squares_solution():
    # min ||A w - b||^2 has the closed-form solution NumPy's lstsq computes in float64; plain
    # gradient descent at step 1/L (L = 2 sigma_max^2) converges linearly to it.
    rng = np.random.default_rng(0)
    a = rng.normal(size=(20, 3))
    b = rng.normal(size=20)
    want = np.linalg.lstsq(a, b, rcond=None)[0]
    lip = 2 * np.linalg.norm(a, 2) ** 2
    with jax.enable_x64():
        result = fit(
            {"w": jnp.zeros(3, jnp.float64)},
            lambda p, a, b: jnp.sum((a @ p["w"] - b) ** 2),
            lambda t: (jnp.asarray(a), jnp.asarray(b)),
            optimizer=optax.sgd(1.0 / lip),
            steps=2000,
            log_every=500,
        )
        got = np.asarray(result.params["w"])
    # condition number of A here is < 3, so 2000 steps contract the error far below 1e-10
    np.testing.assert_allclose(got, want, atol=1e-10)
    assert [r["step"] for r in result.rows] == [0, 500, 1000, 1500, 1999]
    assert not result.diverged


def test_a_non_finite_step_is_not_applied_and_stops_the_fit():
    # the loss is finite for the first two steps, then log of a negative number
    def loss(p, t):
        return jnp.where(t < 2, jnp.sum(p["w"] ** 2), jnp.log(-1.0 - jnp.sum(p["w"] ** 2)))

    result = fit(
        {"w": jnp.ones(2)},
        loss,
        lambda t: (jnp.asarray(t),),
        optimizer=optax.sgd(0.25),
        steps=10,
    )
    assert result.diverged_step == 2
    # two applied steps of w <- w - 0.25 * 2w = w / 2
    np.testing.assert_array_equal(np.asarray(result.params["w"]), [0.25, 0.25])
    assert np.isnan(result.rows[-1]["loss"]) and result.rows[-1]["step"] == 2


def test_fit_trains_an_nnx_module_and_returns_one():
    model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
    x = jnp.asarray([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = x @ jnp.asarray([[2.0], [-1.0]]) + 0.5

    def loss(m, x, y):
        err = m(x) - y
        return jnp.mean(err**2), {"max_err": jnp.max(jnp.abs(err))}

    result = fit(
        model,
        loss,
        lambda t: (x, y),
        optimizer=optax.adam(0.05),
        steps=800,
        has_aux=True,
        log_every=100,
    )
    assert isinstance(result.params, nnx.Linear)
    assert result.rows[-1]["max_err"] < 1e-3  # an exact affine fit exists
    np.testing.assert_allclose(
        np.asarray(result.params.kernel[...]).ravel(), [2.0, -1.0], atol=1e-3
    )


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_fit_refuses_a_bad_step_count(bad):
    with pytest.raises(ValueError, match="steps"):
        fit(
            {"w": jnp.zeros(1)},
            lambda p: jnp.sum(p["w"]),
            lambda t: (),
            optimizer=optax.sgd(1.0),
            steps=bad,
        )
