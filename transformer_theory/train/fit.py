"""``fit``: the one Optax loop for the papers' small models (no run directory, no checkpoints).

:func:`transformer_theory.train.loop.train` is the full runner (run directories, resume bit for
bit, checkpoints, Ctrl-C, metrics files). The companion papers' experiments train many small
models in memory -- Sanford et al. 2023's separations, the formal-language models trained with
hard attention, Barbero et al. 2024's copy tasks, the Match3 width sweep -- and each used to carry
its own ``value_and_grad`` loop. :func:`fit` is that loop written once:

- ``params`` is any pytree of arrays (a :class:`~transformer_theory.params.ModelParams`, an
  ``nnx.State``) or a Flax NNX module (split into its ``nnx.Param`` leaves and the rest, merged
  back for every loss call and for the result);
- ``batch(t)`` returns the arguments of step ``t`` (host arrays, or a PRNG key that the loss uses
  to sample on device), so a run is a function of its seed;
- ``loss_fn(params, *batch)`` returns the loss, or ``(loss, aux)`` with ``has_aux=True`` (a dict
  of scalars, logged with the loss);
- one jitted step (``value_and_grad`` -> ``optimizer.update`` -> ``apply_updates``); a step whose
  loss or gradients are not finite is not applied, and the fit stops there with
  ``diverged_step`` set (never a silent NaN model);
- ``log_every``: every that many steps (and at the last) the loss and ``aux`` are read into
  ``rows``; ``losses`` holds every step's loss when ``log_every`` is 1 (the default reads it
  every step, which small models afford).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import nnx

from transformer_theory import _validate

__all__ = ["FitResult", "fit"]


@dataclasses.dataclass
class FitResult:
    """What :func:`fit` returns.

    Attributes:
      params: the trained parameters (the same kind as passed: pytree or NNX module); after a
        divergence, those before the diverging step.
      rows: one dict per logged step: ``step``, ``loss`` and the ``aux`` scalars.
      losses: every logged loss, in order (``[r["loss"] for r in rows]``).
      diverged_step: the step whose loss or gradient was not finite, or ``None``.
    """

    params: Any
    rows: list[dict]
    diverged_step: int | None = None

    @property
    def losses(self) -> list[float]:
        return [r["loss"] for r in self.rows]

    @property
    def final_loss(self) -> float:
        return self.rows[-1]["loss"] if self.rows else float("nan")

    @property
    def diverged(self) -> bool:
        return self.diverged_step is not None


def _finite(tree) -> jax.Array:
    leaves = [jnp.all(jnp.isfinite(x)) for x in jax.tree.leaves(tree)]
    return jnp.all(jnp.stack(leaves)) if leaves else jnp.bool_(True)


def fit(
    params: Any,
    loss_fn: Callable[..., Any],
    batch: Callable[[int], tuple],
    *,
    optimizer: optax.GradientTransformation,
    steps: int,
    has_aux: bool = False,
    log_every: int = 1,
    progress: str | None = None,
) -> FitResult:
    """Minimize ``loss_fn(params, *batch(t))`` for ``t = 0 .. steps - 1`` with ``optimizer``.

    Args:
      params: a pytree of arrays or a Flax NNX module.
      loss_fn: ``(params, *batch) -> loss`` or ``(loss, aux)`` when ``has_aux``; for a module it
        receives the module.
      batch: ``t -> tuple`` of the step's arguments.
      optimizer: an Optax transformation (schedules included).
      steps: number of updates, >= 1.
      log_every: read the loss (and aux) every this many steps and at the last step.
      progress: a description shows a progress bar (to a terminal only); ``None`` shows none.

    Returns:
      :class:`FitResult`. A step with a non-finite loss or gradient is not applied: the result
      holds the parameters before it and ``diverged_step``, and its row has the non-finite loss.
    """
    _validate.check_int_arg("steps", steps)
    _validate.check_int_arg("log_every", log_every)
    module = isinstance(params, nnx.Module)
    if module:
        graphdef, trainable, rest = nnx.split(params, nnx.Param, ...)

        def objective(p, *args):
            return loss_fn(nnx.merge(graphdef, p, rest), *args)

    else:
        trainable = params
        objective = loss_fn

    grad_fn = jax.value_and_grad(objective, has_aux=has_aux)

    @jax.jit
    def step(p, state, *args):
        value, grads = grad_fn(p, *args)
        loss, aux = value if has_aux else (value, {})
        updates, new_state = optimizer.update(grads, state, p)
        new_p = optax.apply_updates(p, updates)
        ok = jnp.isfinite(loss) & _finite(grads)
        keep = lambda new, old: jax.tree.map(lambda a, b: jnp.where(ok, a, b), new, old)  # noqa: E731
        return keep(new_p, p), keep(new_state, state), loss, aux, ok

    state = optimizer.init(trainable)
    rows: list[dict] = []
    diverged = None
    counter = range(int(steps))
    if progress is not None:
        from transformer_theory.progress import tqdm

        counter = tqdm(counter, desc=progress, unit="step", leave=False, disable=None)
    for t in counter:
        trainable, state, loss, aux, ok = step(trainable, state, *batch(t))
        last = t == int(steps) - 1
        if t % int(log_every) == 0 or last or not bool(ok):
            rows.append({"step": t, "loss": float(loss), **{k: float(v) for k, v in aux.items()}})
        if not bool(ok):
            diverged = t
            break
    result = nnx.merge(graphdef, trainable, rest) if module else trainable
    return FitResult(params=result, rows=rows, diverged_step=diverged)
