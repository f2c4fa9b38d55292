"""Iterated function composition with chain of thought (Peng, Narayanan & Papadimitriou 2024,
Theorem 2: a transformer layer needs ``Omega(sqrt(n / (H d p)))`` CoT steps for iterated
composition), as a task, an autoregressive evaluation and a trained experiment.

The prompt (this library's table form, not the paper's text prompt): ``K`` functions
``f_k: D_{k-1} -> D_k`` on domains of ``n`` elements with disjoint token ranges
``D_k = [k n, (k + 1) n)``, each written as its table of values in argument order (the token at
position ``(k - 1) n + i`` is ``f_k(i)``, a token of ``D_k``), then the query ``x`` (a token of
``D_0``). The answer is ``f_K(...f_1(x))``, a token of ``D_K``. In this layout a token ``y`` is
also the position of the table entry that maps it, so one composition step ("hop") is one
attention lookup of the position named by the last token: what a single layer can learn.

Chain of thought with stride ``s`` (``s`` divides ``K``): the model writes ``S = K / s`` tokens,
the values after ``s, 2 s, ..., K`` hops, each token one forward pass of the SAME one-layer model
on the growing prompt; the last token written is the answer. ``s = 1`` is full CoT (``f_1(x)``,
``f_2(f_1(x))``, ...), ``s = K`` answers at once (with ``K = 2``: Theorem 1's ``g(f(x))``). The
model is trained with teacher forcing (the true chain as input, the cross entropy at all ``S``
positions, causal attention) and evaluated autoregressively on its own tokens (:func:`generate`).
The number of steps a recipe needs for a target accuracy is the smallest ``S`` whose model reaches
it (:func:`._theory.steps_needed`); it is an upper bound, for that recipe, on the steps the
theorem counts.

Shape letters: :mod:`transformer_theory.glossary` (``N``: a prompt's positions, ``T``: the
target tokens, one per composed function or CoT step).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from transformer_theory._validate import check_int_arg, check_seed
from transformer_theory.papers.peng2024._models import causal_one_layer, param_count
from transformer_theory.papers.peng2024._tasks import cot_length, cot_vocab
from transformer_theory.train.fit import fit

__all__ = [
    "cot_bound",
    "cot_model_record",
    "cot_record",
    "cot_sample",
    "cot_vocab",
    "generate",
    "teacher_forcing",
]


def cot_sample(seed: int, num: int, n: int, functions: int) -> tuple[np.ndarray, np.ndarray]:
    """``num`` prompts of ``K = functions`` uniformly random functions on domains of ``n``.

    Returns ``(prompt_BxN, chain_BxT)``: ``N = K n + 1`` (the ``K`` tables, the query), ``T = K``,
    ``chain[:, k - 1] = f_k(...f_1(x))`` as token ids (``chain[:, -1]`` is the answer).
    """
    num = check_int_arg("num", num, 1)
    n = check_int_arg("n", n, 1)
    functions = check_int_arg("functions", functions, 1)
    check_seed("seed", seed)
    rng = np.random.default_rng(seed)
    tables = rng.integers(0, n, size=(num, functions, n))
    value_B = rng.integers(0, n, size=num)  # the query, as an index in D_0
    query_B = value_B.copy()
    chain = []
    for k in range(functions):
        value_B = tables[np.arange(num), k, value_B]
        chain.append(value_B + (k + 1) * n)
    offsets_K = (np.arange(functions) + 1) * n
    tables = (tables + offsets_K[None, :, None]).reshape(num, functions * n)
    return np.concatenate([tables, query_B[:, None]], axis=1), np.stack(chain, axis=1)


def _check_stride(functions: int, stride: int) -> int:
    stride = check_int_arg("stride", stride, 1)
    if functions % stride:
        raise ValueError(f"stride: expected a divisor of functions = {functions}, got {stride}")
    return stride


def teacher_forcing(
    prompt_BxN: np.ndarray, chain_BxT: np.ndarray, stride: int
) -> tuple[np.ndarray, np.ndarray]:
    """Inputs and targets of teacher forcing at ``stride``: ``(inputs_BxN, targets_BxT)``, the
    prompt followed by the true CoT tokens but the last (``N = K n + S``), and the ``T = S`` CoT
    tokens ``chain[:, s - 1 :: s]``, read from the last ``S`` positions of the inputs."""
    stride = _check_stride(chain_BxT.shape[1], stride)
    targets_BxT = chain_BxT[:, stride - 1 :: stride]
    return np.concatenate([prompt_BxN, targets_BxT[:, :-1]], axis=1), targets_BxT


def generate(
    model: Callable[[jax.Array], jax.Array], prompt_BxN: jax.Array, steps: int
) -> jax.Array:
    """Greedy chain of thought: ``steps`` times, ``model`` (``tokens_BxN -> logits_BxV`` at the
    last position) runs on the growing prompt and its argmax is appended. Returns the written
    tokens ``(B, steps)``; the last column is the answer."""
    steps = check_int_arg("steps", steps, 1)
    tokens = jnp.asarray(prompt_BxN)
    written = []
    for _ in range(steps):
        nxt_B = jnp.argmax(model(tokens), axis=-1).astype(tokens.dtype)
        written.append(nxt_B)
        tokens = jnp.concatenate([tokens, nxt_B[:, None]], axis=1)
    return jnp.stack(written, axis=1)


def cot_bound(n: int, heads: int, width: int, bits: int) -> float:
    """``sqrt(n / (H d p))``, the quantity inside Theorem 2's ``Omega`` (the theorem's constant is
    not given, so this is a scale, not a number of steps)."""
    for name, value in (("n", n), ("heads", heads), ("width", width), ("bits", bits)):
        check_int_arg(name, value, 1)
    return math.sqrt(n / (heads * width * bits))


@nnx.jit
def _last_logits(model: nnx.Module, tokens_BxN: jax.Array) -> jax.Array:
    return model(tokens_BxN)


def cot_record(
    n: int,
    functions: int,
    stride: int,
    heads: int,
    width: int,
    bits: int | None,
    *,
    steps: int = 1500,
    batch: int = 128,
    learning_rate: float = 1e-2,
    seed: int = 0,
    held_out: int = 1000,
) -> dict:
    """Train a one-layer causal :class:`~.networks.CompositionTransformer` (``heads``, embedding
    ``width``, weights and activations fake-quantized to ``bits``, ``None`` = float32) with
    teacher forcing at ``stride`` (Adam, cosine decay to 5%, fresh prompts each step) and evaluate
    it autoregressively (:func:`generate`) on ``held_out`` new prompts: the answer's accuracy, the
    accuracy of every written token, and :func:`cot_bound`. The model is built here (sized by
    :func:`._tasks.cot_vocab` and :func:`._tasks.cot_length`, seeded ``seed``), then
    :func:`cot_model_record`; a study builds it itself and calls that."""
    stride = _check_stride(check_int_arg("functions", functions, 1), stride)
    check_int_arg("steps", steps, 1)
    vocab = cot_vocab(n, functions)
    net = causal_one_layer(vocab, cot_length(n, functions, stride), width, heads, bits, seed)
    return cot_model_record(
        net,
        n,
        functions,
        stride,
        heads,
        width,
        bits,
        size=param_count(net),
        steps=steps,
        batch=batch,
        learning_rate=learning_rate,
        seed=seed,
        held_out=held_out,
    )


def cot_model_record(
    net: nnx.Module,
    n: int,
    functions: int,
    stride: int,
    heads: int,
    width: int,
    bits: int | None,
    *,
    size: int,
    steps: int = 1500,
    batch: int = 128,
    learning_rate: float = 1e-2,
    seed: int = 0,
    held_out: int = 1000,
) -> dict:
    """:func:`cot_record` of a model already built: ``net`` a one-layer causal
    :class:`~.networks.CompositionTransformer` reading :func:`._tasks.cot_vocab` tokens at
    :func:`._tasks.cot_length` positions (``heads``, ``width``, ``bits`` as it was built with,
    ``size`` its :func:`~._models.param_count`), trained from its initial weights with teacher
    forcing at ``stride`` and evaluated autoregressively on ``held_out`` new prompts; the
    training and held-out prompts are seeded from ``seed``."""
    stride = _check_stride(check_int_arg("functions", functions, 1), stride)
    check_int_arg("steps", steps, 1)
    cot_steps = functions // stride

    def sample(t):
        prompt, chain = cot_sample(seed * 1_000_003 + t + 1, batch, n, functions)
        x, y = teacher_forcing(prompt, chain, stride)
        return jnp.asarray(x), jnp.asarray(y)

    def loss(model, x_BxN, y_BxT):
        logits = model.all_logits(x_BxN)[:, -cot_steps:]
        return optax.softmax_cross_entropy_with_integer_labels(logits, y_BxT).mean()

    opt = optax.adam(optax.cosine_decay_schedule(learning_rate, steps, alpha=0.05))
    result = fit(net, loss, sample, optimizer=opt, steps=steps, log_every=max(1, steps // 10))
    prompt, chain = cot_sample(10**9 + seed, held_out, n, functions)
    written = np.asarray(
        generate(lambda t: _last_logits(result.params, t), jnp.asarray(prompt), cot_steps)
    )
    truth = chain[:, stride - 1 :: stride]
    p = 32 if bits is None else int(bits)
    return {
        "task": "composition_cot",
        "n": n,
        "functions": functions,
        "stride": stride,
        "cot_steps": cot_steps,
        "heads": heads,
        "d": width,
        "p": p,
        "quantized": bits is not None,
        "params": size,
        "steps": steps,
        "examples": held_out,
        "final_loss": result.final_loss,
        "accuracy": float(np.mean(written[:, -1] == truth[:, -1])),
        "token_accuracy": [float(a) for a in np.mean(written == truth, axis=0)],
        "chance_accuracy": 1 / n,
        "cot_bound": cot_bound(n, heads, width, p),
    }
