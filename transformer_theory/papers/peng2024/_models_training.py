"""The trained function-composition experiments of Peng, Narayanan & Papadimitriou 2024 (Theorem 1):

- :func:`composition_trained_record`: a :class:`~.networks.CompositionTransformer` (true embedding
  of width ``d``, weights and activations fake-quantized to ``p`` bits) trained on ``g(f(a))``,
  its held-out error beside the bound ``R / (3 n log n)``; swept by :func:`run_composition_depth`
  (``experiments/composition_depth.py``);
- :func:`one_layer_records`: the library's ONE parameter format (one-hot tokens and positions,
  classifier at the last position) trained in float32 and evaluated in float32 and bfloat16; swept
  by :func:`run_one_layer` (``experiments/composition_one_layer.py``).

Both train with Adam (:func:`transformer_theory.train.fit.fit`) on fresh prompts each step and
write every finished record as they go (``out_dir/records.json``). Configs: :mod:`.configs`.
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

from transformer_theory import _validate, jsonio, precision
from transformer_theory.core.forward import forward
from transformer_theory.papers.peng2024 import _tasks as comp
from transformer_theory.papers.peng2024 import _theory as theory
from transformer_theory.papers.peng2024._models import CompositionTransformer, param_count
from transformer_theory.params import ModelConfig, ModelParams, init_params
from transformer_theory.train.fit import fit

__all__ = [
    "EVAL_FORMATS",
    "composition_trained_record",
    "one_layer_records",
]


@nnx.jit
def _apply(model: nnx.Module, inputs: jax.Array) -> jax.Array:
    return model(inputs)  # one compiled call for a held-out set, not one dispatch per operation


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
    """Train a :class:`~.networks.CompositionTransformer` (``layers``, ``heads``, embedding
    ``width``, weights and activations fake-quantized to ``bits`` bits during training and
    evaluation, ``None`` = float32) on ``g(f(a))`` prompts with domains of ``n`` (Adam with a
    cosine decay to 5%) and measure its held-out error next to Peng et al. 2024's bound ``R / (3 n
    log n)`` (``p = bits``, 32 for float32; the bound covers ``layers = 1`` only)."""
    if int(steps) < 1:
        raise ValueError(f"steps: expected >= 1, got {steps}")
    vocab = comp.composition_vocab(n)
    seq_len = 4 * n + 2
    net = CompositionTransformer(
        vocab, seq_len, width, heads, layers, vocab, bits=bits, rngs=nnx.Rngs(seed)
    )
    params = param_count(net)

    def sample(t):
        x, y = comp.composition_sample(seed * 1_000_003 + t + 1, batch, n)
        return jnp.asarray(x), jnp.asarray(y)

    def loss(model, x_BxN, y_B):
        return optax.softmax_cross_entropy_with_integer_labels(model(x_BxN), y_B).mean()

    opt = optax.adam(optax.cosine_decay_schedule(learning_rate, steps, alpha=0.05))
    result = fit(net, loss, sample, optimizer=opt, steps=steps, log_every=steps)
    x, y = comp.composition_sample(10**9 + seed, held_out, n)
    pred = np.asarray(jnp.argmax(_apply(result.params, jnp.asarray(x)), -1))
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
        "final_loss": result.final_loss,
        "error": float(np.mean(pred != y)),
        "bound": theory.peng_error_bound(n, heads, width, p),
        "chance_error": 1 - 1 / n,
    }


def _sweep(
    runs: Sequence[tuple],
    train: Callable[..., list[dict]],
    out_dir: str,
    *,
    desc: str,
    progress: bool,
) -> list[dict]:
    """``train(*run)`` (a list of records) for every run, all records so far written to
    ``out_dir/records.json`` after each run; each record gets ``seconds`` since the start and
    ``run``, the run's settings.

    A rerun never loses a finished record: until it completes, ``records.json`` holds its new
    records AND the previous file's records of runs it has not yet redone (matched by ``run``;
    a record without one, from an older file, is kept until the sweep completes). Nothing is
    written before the first run finishes; a sweep of no runs writes ``[]``."""
    from transformer_theory.progress import tqdm

    path = os.path.join(out_dir, "records.json")
    previous: list[dict] = []
    if os.path.exists(path):
        try:
            loaded = jsonio.read_json(path)
            if isinstance(loaded, list):
                previous = [r for r in loaded if isinstance(r, dict)]
        except (OSError, ValueError):
            previous = []
    records: list[dict] = []
    done: set[str] = set()
    start = time.time()
    for run in tqdm(runs, desc=desc, disable=not progress or None):
        key = repr(tuple(run))
        extra = {"seconds": round(time.time() - start, 1), "run": key}
        records += [r | extra for r in train(*run)]
        done.add(key)
        finished = len(done) == len(runs)
        kept = [] if finished else [r for r in previous if r.get("run") not in done]
        jsonio.write_json(path, records + kept)
    if not runs:
        jsonio.write_json(path, records)
    return records


#: The formats the one-layer models are evaluated in, with the ``p`` of the bound.
EVAL_FORMATS = ("float32", "bfloat16")


def _one_layer_config(n: int, depth: int, width: int, heads: int) -> ModelConfig:
    vocab = comp.composition_vocab(n)
    seq_len = 4 * n + 2
    return ModelConfig(
        vocab_size=vocab,
        seq_len=seq_len,
        width=vocab + seq_len + width,
        num_classes=vocab,
        heads=(heads,) * depth,
        attention="softmax",
        qk_dim=width,
        scale_scores=True,
        mlp_hidden=4 * width,
    )


def _predict(params: ModelParams, x_BxN: np.ndarray) -> np.ndarray:
    logits = jax.vmap(lambda t: forward(params, t))(jnp.asarray(x_BxN))
    return np.asarray(jnp.argmax(logits, -1))


def one_layer_records(
    n: int, depth: int, width: int, heads: int, steps: int, batch: int, seed: int
) -> list[dict]:
    """Train the library-format model (``depth`` layers, ``heads`` heads, query/key width
    ``width``) with Adam (3e-3) on ``g(f(a))`` and evaluate it on 2,000 held-out prompts in each
    of :data:`EVAL_FORMATS`: one record per format with the error and the bound at ``p`` = the
    format's bits (32, 16)."""
    for name, value, low in (
        ("n", n, 2),
        ("depth", depth, 1),
        ("width", width, 1),
        ("heads", heads, 1),
        ("steps", steps, 1),
        ("batch", batch, 1),
        ("seed", seed, 0),
    ):
        _validate.check_int_arg(name, value, low)
    params = init_params(jax.random.key(seed), _one_layer_config(n, depth, width, heads))

    def loss_fn(p, x_BxN, y_B):
        logits = jax.vmap(lambda t: forward(p, t))(x_BxN)
        return optax.softmax_cross_entropy_with_integer_labels(logits, y_B).mean()

    def batch_of(t):
        x, y = comp.composition_sample(seed * 100_000 + t, batch, n)
        return jnp.asarray(x), jnp.asarray(y)

    result = fit(
        params, loss_fn, batch_of, optimizer=optax.adam(3e-3), steps=steps, log_every=steps
    )
    x, y = comp.composition_sample(10**9 + seed, 2000, n)
    records = []
    for name in EVAL_FORMATS:
        bits = 8 * jnp.dtype(precision.dtype_of(name)).itemsize
        cast = jax.tree.map(lambda a, dt=name: a.astype(dt), result.params)
        pred = _predict(cast, x)
        records.append(
            {
                "n": n,
                "layers": depth,
                "heads": heads,
                "d": width,
                "format": name,
                "p": bits,
                "error": float(np.mean(pred != y)),
                "bound": theory.peng_error_bound(n, heads, width, bits),
                "chance_error": 1 - 1 / n,
            }
        )
    return records
