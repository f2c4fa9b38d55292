"""Theorem 1 of Peng, Narayanan & Papadimitriou 2024 with one-layer models that learn: ``g(f(x))``
in ONE pass on the pair-token prompts of :mod:`._tasks` (:func:`._tasks.pair_sample`), trained
where the bound is void and where ``R = n log2 n - H (d + 1) p > 0``, beside the hand-built model
that is exact (:func:`._constructions.build`).

The recipe (ours): a one-layer :class:`~.networks.CompositionTransformer` (``H`` heads, width
``d``, its head outputs -- the messages the theorem counts -- rounded to ``p`` bits,
``quantize="messages"``; ``p = 32``: float32) trained with Adam and a cosine decay on fresh
prompts, a fraction ``aux`` of which ask for ``f(x)`` instead of ``g(f(x))`` (a curriculum: the
fetch is learned first; without it no run learned past the error of guessing ``g``'s most frequent
value, 2026-11-25). Only ``g(f(x))`` queries are evaluated. Each record says whether the run
converged (its logged training loss over the last tenth of the steps within 5% of the tenth
before, or below 0.01): a run that stopped while still improving decides nothing. A run's stages
are given to it: its prompts (:func:`._tasks.one_pass_data`) and its bound
(:func:`._theory.one_pass_bounds`) go into :func:`one_pass_run`, which trains the model and runs
it (:mod:`._models`); :func:`one_pass_record` calls the three in that order.

Per prompt the error of the best answer that ignores ``f`` (``g``'s most frequent value) is
recorded as ``mode_error``: a one-layer model that never fetches ``f(x)`` can reach it, so a model
at ``mode_error`` has learned nothing about the composition.
"""

from __future__ import annotations

from collections.abc import Callable

import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from transformer_theory._validate import check_int_arg
from transformer_theory.papers.peng2024 import _tasks as tasks
from transformer_theory.papers.peng2024 import _theory as theory
from transformer_theory.papers.peng2024._models import CompositionTransformer, errors, param_count
from transformer_theory.train.fit import fit

__all__ = ["converged", "mode_error", "one_pass_record", "one_pass_run"]


def mode_error(tokens_BxN: np.ndarray, answers_B: np.ndarray, n: int) -> float:
    """Error of answering ``g``'s most frequent value (the smallest on ties), read from the ``g``
    entries of :func:`._tasks.pair_sample` prompts."""
    g_vals = (tokens_BxN[:, n : 2 * n] - n * n) % n
    counts = np.apply_along_axis(np.bincount, 1, g_vals, minlength=n)
    return float(np.mean(np.argmax(counts, axis=1) != answers_B))


def converged(losses: list[float], window: float = 0.1, tolerance: float = 0.05) -> bool:
    """Whether the mean of the last ``window`` of ``losses`` is within ``tolerance`` (relative) of
    the window before it, or below 0.01."""
    k = max(1, int(len(losses) * window))
    if len(losses) < 2 * k:
        return False
    last, before = float(np.mean(losses[-k:])), float(np.mean(losses[-2 * k : -k]))
    return last < 0.01 or abs(last - before) <= tolerance * before


def one_pass_run(
    vocab: int,
    n: int,
    heads: int,
    width: int,
    bits: int | None,
    tokens_BxN: np.ndarray,
    answers_B: np.ndarray,
    sample: Callable[[int], tuple[np.ndarray, np.ndarray]],
    bounds: dict,
    *,
    steps: int,
    learning_rate: float = 3e-3,
    aux: float = 0.3,
    seed: int = 0,
) -> dict:
    """Train one model of the recipe above (``vocab`` tokens, ``sample(t)`` the prompts of step
    ``t``: :func:`._tasks.one_pass_data`) and evaluate it on the held-out ``g(f(x))`` prompts
    ``tokens_BxN``, ``answers_B``: the record of the run, its error beside ``bounds`` (Theorem
    1's ``bound``, ``R`` and the chance error at its ``(n, H, d, p)``:
    :func:`._theory.one_pass_bounds`) and :func:`mode_error`."""
    n = check_int_arg("n", n, 2)
    steps = check_int_arg("steps", steps, 1)

    def batch(t):
        x, y = sample(t)
        return jnp.asarray(x), jnp.asarray(y)

    net = CompositionTransformer(
        vocab,
        2 * n + 1,
        width,
        heads,
        1,
        n,
        bits=bits,
        quantize="messages",
        rngs=nnx.Rngs(seed),
    )

    def loss(model, x_BxN, y_B):
        return optax.softmax_cross_entropy_with_integer_labels(model(x_BxN), y_B).mean()

    opt = optax.adam(optax.cosine_decay_schedule(learning_rate, steps, alpha=0.05))
    result = fit(net, loss, batch, optimizer=opt, steps=steps, log_every=max(1, steps // 100))
    wrong = errors(result.params, tokens_BxN, answers_B)
    return {
        "task": "composition_one_pass_pairs",
        "n": n,
        "heads": heads,
        "d": width,
        "p": 32 if bits is None else int(bits),
        "quantize": "messages",
        "params": param_count(net),
        "steps": steps,
        "aux": aux,
        "examples": len(tokens_BxN),
        "final_loss": result.losses[-1],
        "converged": converged(result.losses),
        "error": wrong / len(tokens_BxN),
        "bound": bounds["bound"],
        "R": bounds["R"],
        "chance_error": bounds["chance_error"],
        "mode_error": mode_error(tokens_BxN, answers_B, n),
    }


def one_pass_record(
    n: int,
    heads: int,
    width: int,
    bits: int | None,
    *,
    steps: int,
    batch: int = 128,
    learning_rate: float = 3e-3,
    aux: float = 0.3,
    seed: int = 0,
    held_out: int = 2000,
) -> dict:
    """One run of the recipe above, its stages in order: its prompts
    (:func:`._tasks.one_pass_data`, ``held_out`` new ``g(f(x))`` prompts to evaluate on), the
    bound at its ``(n, H, d, p)`` (:func:`._theory.one_pass_bounds`), the model trained and
    evaluated (:func:`one_pass_run`): its error beside Peng et al.'s bound, ``R``, chance and
    :func:`mode_error`."""
    n = check_int_arg("n", n, 2)
    steps = check_int_arg("steps", steps, 1)
    vocab, tokens, answers, sample = tasks.one_pass_data(
        n, batch=batch, aux=aux, seed=seed, held_out=held_out
    )
    bounds = theory.one_pass_bounds(n, heads, width, 32 if bits is None else int(bits))
    return one_pass_run(
        vocab,
        n,
        heads,
        width,
        bits,
        tokens,
        answers,
        sample,
        bounds,
        steps=steps,
        learning_rate=learning_rate,
        aux=aux,
        seed=seed,
    )
