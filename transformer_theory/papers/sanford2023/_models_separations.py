"""The trained qSA separation of Sanford, Hsu & Telgarsky 2023: the networks of
:mod:`.networks` trained with Adam (:func:`transformer_theory.train.fit.fit`) on q-sparse
averaging, each run returned as a JSON-ready record (:func:`qsa_trained_record`), and the sweeps
of the experiments (:mod:`.experiments.qsa_separation`, :mod:`.experiments.qsa_bits_attention`)
write every finished record as they go (:func:`run_and_save`).

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

import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from transformer_theory import jsonio, precision
from transformer_theory.papers.sanford2023 import _models as baselines
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.train.fit import fit

__all__ = [
    "QSA_MODELS",
    "build_qsa_model",
    "qsa_bit_threshold",
    "qsa_threshold",
    "qsa_trained_record",
    "run_and_save",
    "train_adam_cosine",
]

QSA_MODELS = ("attention", "fnn", "rnn")


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
    - ``rnn``: the state of :class:`~transformer_theory.papers.sanford2023._models.Recurrent` must
      hold ``>= floor(N/2) / 2`` bits. This is OUR derivation for the two-pass GRU, not the paper's
      number: cut the sequence after ``k = floor(N/2)`` positions; the first-pass state at ``k`` and
      the second-pass state at ``k`` are the only two messages from the first part to the second,
      and the second part's answers (its ``y_i`` cover positions ``1..k``, ``z_j = +-1``, ``q = d' =
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
    (:func:`transformer_theory.precision.fake_quantize`); the FNN has no quantized variant."""
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


def train_adam_cosine(
    model: nnx.Module,
    sample: Callable[[int], tuple],
    loss: Callable[..., jnp.ndarray],
    steps: int,
    learning_rate: float,
) -> tuple[nnx.Module, float]:
    """Adam with a cosine decay (to 5% of ``learning_rate``) on ``loss(model, *sample(t))`` for
    ``t < steps`` (:func:`transformer_theory.train.fit.fit`, the loss read at the last step only).
    Returns the trained model and the last loss."""
    if int(steps) < 1:
        raise ValueError(f"steps: expected >= 1, got {steps}")
    opt = optax.adam(optax.cosine_decay_schedule(learning_rate, steps, alpha=0.05))
    result = fit(model, loss, sample, optimizer=opt, steps=steps, log_every=steps)
    return result.params, result.final_loss


@nnx.jit
def _apply(model: nnx.Module, inputs: jnp.ndarray) -> jnp.ndarray:
    return model(inputs)  # one compiled call for a held-out set, not one dispatch per operation


def _qsa_batch(seed: int, num: int, seq_len: int, q: int, dim: int):
    inputs, target = ts.qsa_batch(seed, num, seq_len, q, dim)
    return jnp.asarray(inputs), jnp.asarray(target, jnp.float32)


def _qsa_loss(model, inputs, target_BxNxZ):
    return jnp.mean(jnp.sum((model(inputs) - target_BxNxZ) ** 2, axis=-1))


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
    # the bounds first, then build, train, measure (the network's size is read from the result)
    threshold = qsa_threshold(model, seq_len, q, dim)
    bits_needed = qsa_bit_threshold(model, seq_len, q, dim)
    net = build_qsa_model(model, seq_len, dim, width, seed, bits=bits)
    net, final_loss = train_adam_cosine(
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
    params = baselines.param_count(net)
    return {
        "task": "qsa",
        "model": model,
        "N": seq_len,
        "q": q,
        "d_prime": dim,
        "width": width,
        "params": params,
        "threshold": threshold,
        "bits": bits,
        "message_bits": None if bits is None else precision.grid_bits(width, bits),
        "bits_needed": bits_needed,
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


def run_and_save(
    runs: Sequence[tuple], train: Callable[..., dict], out: str, *, desc: str, progress: bool
) -> list[dict]:
    """``train(*run)`` for every run (a progress bar when ``progress``), all records written to
    ``out/records.json`` (:func:`transformer_theory.jsonio.write_json`) after every run, so an
    interrupted sweep keeps the runs it finished; each record gets ``seconds``, the time since
    the sweep started."""
    from transformer_theory.progress import tqdm

    records, start = [], time.time()
    for run in tqdm(runs, desc=desc, disable=not progress or None):
        records.append(train(*run) | {"seconds": round(time.time() - start, 1)})
        jsonio.write_json(os.path.join(out, "records.json"), records)
    if not records:
        jsonio.write_json(os.path.join(out, "records.json"), records)
    return records
