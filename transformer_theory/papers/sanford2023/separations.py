"""Trained separations: the networks of :mod:`transformer_theory.papers.sanford2023.networks` trained with Optax
on q-sparse averaging (Sanford, Hsu & Telgarsky 2023) and on function composition (Peng,
Narayanan & Papadimitriou 2024), each run returned as a JSON-ready record. Plots are drawn by the
experiment scripts that call these (``experiments/sanford_qsa_separation.py``,
``experiments/composition_depth.py``).

Encoding of a qSA input (the same for every network, so the comparison is fair): ``x_i = (z_i,
1[y_i], e_i)`` of width ``d' + 2N`` -- the vector, the indicator row of the q-subset ``y_i`` and
a one-hot position. Sanford et al. write ``y_i`` as a list of ``q`` indices (``d = d' + q + 1``);
the indicator carries the same information and lets a trained unit read it linearly. Their lower
bounds do not depend on the encoding (they hold for any input map). Shape letters:
:mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from transformer_theory import jsonio
from transformer_theory.papers.peng2024 import tasks as comp
from transformer_theory.papers.sanford2023 import networks as baselines
from transformer_theory.papers.sanford2023 import tasks as ts

QSA_MODELS = ("attention", "fnn", "rnn")


def qsa_features(z_BxNxY: np.ndarray, members_BxNxK: np.ndarray) -> np.ndarray:
    """``x_i = (z_i, 1[y_i], e_i)``: shape ``(B, N, d' + 2N)``, float32."""
    z = np.asarray(z_BxNxY, np.float32)
    members = np.asarray(members_BxNxK, np.float32)
    if z.ndim != 3 or members.shape != z.shape[:2] + (z.shape[1],):
        raise ValueError(
            f"members_BxNxK: expected shape {z.shape[:2] + (z.shape[1],)}, got {members.shape}"
        )
    eye = np.broadcast_to(np.eye(z.shape[1], dtype=np.float32), members.shape)
    return np.concatenate([z, members, eye], axis=-1)


def qsa_threshold(model: str, seq_len: int, q: int, dim: int) -> float | None:
    """The numbers of Sanford et al. 2023's qSA bounds as the slides state them: ``q`` for the
    attention unit (query/key width ``m >= q``; their construction uses ``m >~ q log N``), ``N d' /
    2`` for the fully connected network's width (at accuracy ``1/(2q)``, ``q < N/2``), ``(N - 1) /
    2`` for the RNN's memory (stated for ``q = 1, d' = 1`` only; ``None`` otherwise). Only the
    FNN's is a width; the RNN's memory and, at ``p``-bit precision, attention's ``m p`` count BITS,
    so compare float32 widths with :func:`qsa_bit_threshold` through quantized models, not with
    these numbers."""
    if model == "attention":
        return float(q)
    if model == "fnn":
        return seq_len * dim / 2
    if model == "rnn":
        return (seq_len - 1) / 2 if q == 1 and dim == 1 else None
    raise ValueError(f"model: expected one of {QSA_MODELS}, got {model!r}")


def qsa_bit_threshold(model: str, seq_len: int, q: int, dim: int) -> float | None:
    """The bits below which no network of ``model`` ``eps``-approximates qSA (``eps = 1/(2q)``),
    in the units the lower bounds count (``None`` where no bound applies):

    - ``attention``: the query ``Q(x_i)`` must carry ``>= q`` bits (Sanford et al. 2023: Alice
      sends ``Q(x_{2q+1})``, ``m p`` bits, and Bob answers one bit; set disjointness of ``q`` bits
      needs ``q + 1`` bits of deterministic communication, so ``m p >= q``; the reduction needs
      ``N >= 2q + 1`` and ``eps < 1/q``, which ``1/(2q)`` meets);
    - ``rnn``: the state of :class:`~transformer_theory.papers.sanford2023.networks.Recurrent` must hold ``>=
      floor(N/2) / 2`` bits. This is OUR derivation for the two-pass GRU, not the paper's number:
      cut the sequence after ``k = floor(N/2)`` positions; the first-pass state at ``k`` and the
      second-pass state at ``k`` are the only two messages from the first part to the second, and
      the second part's answers (its ``y_i`` cover positions ``1..k``, ``z_j = +-1``, ``q = d' =
      1``, ``eps < 1``) reveal ``k`` free bits, so ``2 bits >= k``. Sanford et al.'s ``(N - 1)/2``
      (:func:`qsa_threshold`) is for their one-pass RNN.
    - ``fnn``: ``None`` (their bound counts width, not bits).
    """
    if model == "attention":
        return float(q) if seq_len >= 2 * q + 1 else None
    if model == "rnn":
        return (seq_len // 2) / 2 if q == 1 and dim == 1 else None
    if model == "fnn":
        return None
    raise ValueError(f"model: expected one of {QSA_MODELS}, got {model!r}")


def build_qsa_model(
    model: str, seq_len: int, dim: int, width: int, seed: int, *, bits: int | None = None
) -> nnx.Module:
    """The ``model`` network with ``width`` (query/key width, hidden width or GRU state) for qSA
    inputs of length ``seq_len`` and vectors of width ``dim``. ``bits``: the attention unit's
    query, or the GRU's state, rounded to ``bits`` bits per number on a fixed grid
    (:func:`~transformer_theory.papers.sanford2023.networks.fake_quantize`); the FNN has no quantized variant."""
    rngs = nnx.Rngs(seed)
    features = dim + 2 * seq_len
    if model == "attention":
        return baselines.SparseAveragingAttention(features, width, dim, query_bits=bits, rngs=rngs)
    if model == "fnn":
        if bits is not None:
            raise ValueError("bits: the fully connected network has no quantized variant")
        return baselines.FullyConnected(seq_len, features, width, dim, rngs=rngs)
    if model == "rnn":
        return baselines.Recurrent(features, width, dim, state_bits=bits, rngs=rngs)
    raise ValueError(f"model: expected one of {QSA_MODELS}, got {model!r}")


def fit(
    model: nnx.Module,
    sample: Callable[[int], tuple],
    loss: Callable[..., jax.Array],
    steps: int,
    learning_rate: float,
) -> tuple[nnx.Module, float]:
    """Adam with a cosine decay on ``loss(model, *sample(t))`` for ``t < steps``, in the functional
    form ``nnx.split -> jax.jit -> nnx.merge``. Returns the trained model and the last loss."""
    if int(steps) < 1:
        raise ValueError(f"steps: expected >= 1, got {steps}")
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)
    opt = optax.adam(optax.cosine_decay_schedule(learning_rate, steps, alpha=0.05))
    state = opt.init(params)

    @jax.jit
    def step(params, state, *batch):
        value, grads = jax.value_and_grad(lambda p: loss(nnx.merge(graphdef, p, rest), *batch))(
            params
        )
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value

    value = jnp.nan
    for t in range(steps):
        params, state, value = step(params, state, *sample(t))
    return nnx.merge(graphdef, params, rest), float(value)


@nnx.jit
def _apply(model, inputs):
    return model(inputs)  # one compiled call for a held-out set, not one dispatch per operation


def _qsa_batch(seed: int, num: int, seq_len: int, q: int, dim: int):
    z, members = ts.qsa_sample(seed, num, seq_len, q, dim)
    return (
        jnp.asarray(qsa_features(z, members)),
        jnp.asarray(ts.qsa_target(z, members), jnp.float32),
    )


def _qsa_loss(model, inputs, target_BxNxY):
    return jnp.mean(jnp.sum((model(inputs) - target_BxNxY) ** 2, axis=-1))


def qsa_trained_record(
    model: str,
    seq_len: int,
    q: int,
    dim: int,
    width: int,
    *,
    steps: int = 2000,
    batch: int = 256,
    learning_rate: float = 3e-3,
    seed: int = 0,
    held_out: int = 2000,
    bits: int | None = None,
) -> dict:
    """Train ``model`` (``attention / fnn / rnn``) of ``width`` on fresh qSA batches (mean squared
    error) and measure on ``held_out`` new inputs the per-example worst position error ``max_i
    ||f(X)_i - qSA(X)_i||`` (its mean and maximum) and the fraction of examples within ``eps =
    1/(2q)``, the accuracy of the FNN bound. ``zero_error``: the same for the all-zero output.

    ``bits``: quantize the attention query / the GRU state (:func:`build_qsa_model`);
    ``message_bits`` is then what it can hold (``width log2(2^bits - 1)``) beside
    ``bits_needed`` (:func:`qsa_bit_threshold`), both in bits."""
    for name, v in (("seq_len", seq_len), ("q", q), ("dim", dim), ("width", width)):
        if int(v) < 1:
            raise ValueError(f"{name}: expected a positive integer, got {v}")
    net = build_qsa_model(model, seq_len, dim, width, seed, bits=bits)
    params = baselines.param_count(net)
    net, final_loss = fit(
        net,
        lambda t: _qsa_batch(seed * 1_000_003 + t + 1, batch, seq_len, q, dim),
        _qsa_loss,
        steps,
        learning_rate,
    )
    inputs, target = _qsa_batch(10**9 + seed, held_out, seq_len, q, dim)
    worst_B = np.asarray(jnp.linalg.norm(_apply(net, inputs) - target, axis=-1).max(axis=-1))
    zero_B = np.asarray(jnp.linalg.norm(target, axis=-1).max(axis=-1))
    eps = 1 / (2 * q)
    return {
        "task": "qsa",
        "model": model,
        "N": seq_len,
        "q": q,
        "d_prime": dim,
        "width": width,
        "params": params,
        "threshold": qsa_threshold(model, seq_len, q, dim),
        "bits": bits,
        "message_bits": None if bits is None else baselines.grid_bits(width, bits),
        "bits_needed": qsa_bit_threshold(model, seq_len, q, dim),
        "steps": steps,
        "examples": held_out,
        "final_loss": final_loss,
        "mean_max_error": float(worst_B.mean()),
        "max_error": float(worst_B.max()),
        "epsilon": eps,
        "within_epsilon": float(np.mean(worst_B <= eps)),
        "zero_error": float(zero_B.mean()),
        "exhaustive": False,
    }


def composition_trained_record(
    n: int,
    layers: int,
    heads: int,
    width: int,
    bits: int | None,
    *,
    steps: int = 1500,
    batch: int = 128,
    learning_rate: float = 3e-3,
    seed: int = 0,
    held_out: int = 2000,
) -> dict:
    """Train a :class:`~transformer_theory.papers.sanford2023.networks.CompositionTransformer` (``layers``,
    ``heads``, embedding ``width``, weights and activations fake-quantized to ``bits`` bits during
    training and evaluation, ``None`` = float32) on ``g(f(a))`` prompts with domains of ``n`` and
    measure its held-out error next to Peng et al. 2024's bound ``R / (3 n log n)`` (``p = bits``,
    32 for float32; the bound covers ``layers = 1`` only)."""
    vocab = comp.composition_vocab(n)
    seq_len = 4 * n + 2
    net = baselines.CompositionTransformer(
        vocab, seq_len, width, heads, layers, vocab, bits=bits, rngs=nnx.Rngs(seed)
    )
    params = baselines.param_count(net)

    def sample(t):
        x, y = comp.composition_sample(seed * 1_000_003 + t + 1, batch, n)
        return jnp.asarray(x), jnp.asarray(y)

    def loss(model, x_BxN, y_B):
        return optax.softmax_cross_entropy_with_integer_labels(model(x_BxN), y_B).mean()

    net, final_loss = fit(net, sample, loss, steps, learning_rate)
    x, y = comp.composition_sample(10**9 + seed, held_out, n)
    pred = np.asarray(jnp.argmax(_apply(net, jnp.asarray(x)), -1))
    p = 32 if bits is None else int(bits)
    return {
        "task": "composition",
        "n": n,
        "layers": layers,
        "heads": heads,
        "d": width,
        "p": p,
        "quantized": bits is not None,
        "params": params,
        "steps": steps,
        "examples": held_out,
        "final_loss": final_loss,
        "error": float(np.mean(pred != y)),
        "bound": comp.peng_error_bound(n, heads, width, p),
        "chance_error": 1 - 1 / n,
    }


def run_and_save(
    runs: Sequence[tuple], train: Callable[..., dict], out: str, *, desc: str, progress: bool
) -> list[dict]:
    """``train(*run)`` for every run (a progress bar when ``progress``), each record printed as
    one JSON line as it lands, all of them written to ``out/records.json``
    (:func:`transformer_theory.jsonio.write_json`) after every run, so an interrupted sweep keeps
    the runs it finished."""
    from tqdm.auto import tqdm

    records, start = [], time.time()
    for run in tqdm(runs, desc=desc, disable=not progress):
        records.append(train(*run))
        print(jsonio.dumps_json(records[-1]), f"[{time.time() - start:.0f} s]", flush=True)
        jsonio.write_json(os.path.join(out, "records.json"), records)
    if not records:
        jsonio.write_json(os.path.join(out, "records.json"), records)
    return records
