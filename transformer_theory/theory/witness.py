"""Witness search: models OUTSIDE a theorem's scope that classify a set the certificate rules out.

Chen & Zou 2024 proves (Theorem 2, §13.1; Props. 9-10, §16) that no one-layer ReLU model with any
number
of heads, and no one-layer single-head softmax model, classifies all four sequences of the §13.1
toy set; :mod:`transformer_theory.theory.certificates` certifies this exactly. The paper leaves
several softmax heads open ("extending to multiple head case is left for future study"), and says
nothing of a one-layer model with an MLP. A *witness* settles such a case positively: parameters,
in the library's :class:`~transformer_theory.params.ModelParams` format, whose float64 outputs put
every example on the right side of every margin.

:func:`search_witness` runs Adam (Optax) on the mean cross-entropy, for several restarts at once
(restart ``r`` starts from ``init_params(fold_in(key, r), config)``; the restarts are a vmapped
batch of models and the whole run is one ``jit``-compiled ``lax.scan``). The best restart is then
re-evaluated in float64 with :func:`transformer_theory.core.forward` and its minimum margin
``min_i (o_i[y_i] - max_{c != y_i} o_i[c])`` is reported. A witness counts as found only if that
margin exceeds ``margin_tol * max(1, max |o|)`` (default ``1e-8``: float64 evaluation of these
small models is accurate to ~1e-14 relative, so a margin above the tolerance is not a rounding
artefact). A failed search is evidence, never proof: the record says how many restarts and
steps were tried and nothing more.

A found witness travels in its record (``WitnessRecord.params``); the commands save it with
:func:`transformer_theory.saveload.save_model` and
:func:`~transformer_theory.saveload.load_model` reads it back (this module writes no files).
"""

from __future__ import annotations

import dataclasses
import functools
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.core.forward import forward
from transformer_theory.params import (
    ModelConfig,
    ModelParams,
    cast_params,
    config_dict,
    init_params,
)
from transformer_theory.precision import require_x64


@dataclasses.dataclass
class WitnessRecord:
    """Outcome of :func:`search_witness`.

    Attributes:
      family: a short description of the searched family (e.g. ``"softmax, 1 layer, 2 heads"``).
      found: every float64 margin exceeds the tolerance.
      min_margin: the float64 minimum margin of the best restart (negative: a misclassified
        example).
      tolerance: the margin a witness had to exceed.
      accuracy: float64 accuracy of the best restart on the dataset.
      steps: Adam steps per restart; restarts: restarts run; best_restart: index of the one kept.
      params: the witness model (float64, one model) when found, else None; not serialized.
      params_path: where the caller saved the witness, if it did.
      in_scope: True if a theorem says no model of this family can succeed (then ``found`` would
        contradict the theory: a bug, or a discovery).
      config: the model config as a dictionary.
    """

    family: str
    found: bool
    min_margin: float
    tolerance: float
    accuracy: float
    steps: int
    restarts: int
    best_restart: int
    num_examples: int
    seconds: float
    config: dict
    params: ModelParams | None = dataclasses.field(default=None, repr=False, compare=False)
    params_path: str | None = None
    in_scope: bool = False

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "params"}
        d["kind"] = "witness"
        return d


def describe_family(config: ModelConfig) -> str:
    """``"softmax, 1 layer, 2 heads"``-style description of a config (plus MLP / norms)."""
    layers = config.depth
    heads = config.heads[0] if len(set(config.heads)) == 1 else "/".join(map(str, config.heads))
    s = (
        f"{config.attention}, {layers} layer{'s' if layers > 1 else ''}, "
        f"{heads} head{'s' if heads != 1 else ''}"
    )
    if config.mlp_hidden is not None:
        s += f", MLP({config.mlp_hidden})"
    if config.final_norm is not None:
        s += f", final {config.final_norm}"
    return s


def in_certificate_scope(config: ModelConfig) -> bool:
    """True if Chen & Zou's one-layer theorems (and hence the certificate's LP) cover ``config``.

    One layer, no MLP, no final norm, and ReLU attention with any heads or softmax with one head.
    """
    if config.depth != 1 or config.mlp_hidden is not None or config.final_norm is not None:
        return False
    return config.attention == "relu" or (config.attention == "softmax" and config.heads[0] == 1)


def _check_inputs(tokens_BxN, labels_B, config: ModelConfig):
    if not isinstance(config, ModelConfig):
        raise ValueError(f"config: expected a ModelConfig, got {type(config).__name__}")
    tokens = np.asarray(tokens_BxN)
    labels = np.asarray(labels_B)
    _validate.check_ndim("tokens_BxN", tokens, 2)
    _validate.check_ndim("labels_B", labels, 1)
    _validate.check_token_ids("tokens_BxN", tokens, config.vocab_size)
    _validate.check_int("labels_B", labels)
    if tokens.shape[0] == 0:
        raise ValueError("tokens_BxN: expected at least one example")
    if tokens.shape[1] != config.seq_len:
        raise ValueError(
            f"tokens_BxN: sequences of length {tokens.shape[1]} but config.seq_len = "
            f"{config.seq_len}"
        )
    if labels.shape[0] != tokens.shape[0]:
        raise ValueError(f"labels_B: expected {tokens.shape[0]} labels, got {labels.shape[0]}")
    if labels.min() < 0 or labels.max() >= config.num_classes:
        raise ValueError(
            f"labels_B: labels must lie in [0, {config.num_classes}), got "
            f"{labels.min()}..{labels.max()}"
        )
    return tokens.astype(np.int32), labels.astype(np.int32)


def margins(params: ModelParams, tokens_BxN: ArrayLike, labels_B: ArrayLike) -> jax.Array:
    """Per-example margins ``o_i[y_i] - max_{c != y_i} o_i[c]`` (positive = correct), in the params'
    dtype."""
    logits = jax.vmap(lambda t: forward(params, t))(jnp.asarray(tokens_BxN))
    true = jnp.take_along_axis(logits, jnp.asarray(labels_B)[:, None], axis=1)[:, 0]
    others = jnp.where(jax.nn.one_hot(labels_B, logits.shape[1], dtype=bool), -jnp.inf, logits)
    return true - jnp.max(others, axis=1)


def _margins_and_scale(params, tokens, labels):
    logits = jax.vmap(lambda t: forward(params, t))(tokens)
    return margins(params, tokens, labels), jnp.max(jnp.abs(logits))


@functools.partial(jax.jit, static_argnames=("config", "steps", "restarts"))
def _train(config, key, tokens, labels, steps, restarts, learning_rate, init_scale):
    """Adam on the mean cross-entropy, ``restarts`` models at once (one compiled program).

    Returns the batched parameters and each restart's float margins ``(R, B)`` and logit scale
    ``(R,)``.
    """
    keys = jax.vmap(lambda r: jax.random.fold_in(key, r))(jnp.arange(restarts))
    params = jax.vmap(lambda k: init_params(k, config, dtype=jnp.float64, scale=init_scale))(keys)
    opt = optax.adam(learning_rate)

    def loss_one(p):
        logits = jax.vmap(lambda t: forward(p, t))(tokens)
        return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, labels))

    def total(pb):  # restarts are independent: the sum's gradient is each restart's own gradient
        return jnp.sum(jax.vmap(loss_one)(pb))

    def step(carry, _):
        p, s = carry
        g = jax.grad(total)(p)
        upd, s = opt.update(g, s, p)
        return (optax.apply_updates(p, upd), s), None

    (params, _), _ = jax.lax.scan(step, (params, opt.init(params)), None, length=steps)
    m_MxB, scale_M = jax.vmap(lambda p: _margins_and_scale(p, tokens, labels))(params)
    return params, m_MxB, scale_M


_COMPILED: dict = {}
# XLA's backend optimizations cost most of the compile time of the training scan (about 4x on
# CPU) and buy little for models this small; the search then runs in seconds end to end.
_FAST_COMPILE = {"xla_backend_optimization_level": 0}


def _compiled_train(static, tokens, labels):
    """The compiled training program for ``static = (config, steps, restarts)``, cached."""
    cache_key = (static, tokens.shape, labels.shape)
    if cache_key not in _COMPILED:
        config, steps, restarts = static
        lowered = _train.lower(
            config, jax.random.PRNGKey(0), tokens, labels, steps, restarts, 0.0, 0.0
        )
        try:
            _COMPILED[cache_key] = lowered.compile(compiler_options=_FAST_COMPILE)
        except Exception:  # noqa: BLE001 -- a backend without this option: compile normally
            _COMPILED[cache_key] = lowered.compile()
    return _COMPILED[cache_key]


def search_witness(
    tokens_BxN: ArrayLike,
    labels_B: ArrayLike,
    config: ModelConfig,
    key: jax.Array,
    steps: int = 500,
    *,
    restarts: int = 8,
    learning_rate: float = 0.01,
    init_scale: float = 1.0,
    margin_tol: float = 1e-8,
) -> WitnessRecord:
    """Search for parameters of ``config`` that classify every example, and verify them in float64.

    Args:
      tokens_BxN: integer token ids, ``N == config.seq_len``.
      labels_B: labels in ``[0, config.num_classes)``.
      config: the family searched (any :class:`ModelConfig`; typically one outside the certificate's
        scope: several softmax heads, an MLP, two layers).
      key: PRNG key; restart ``r`` uses ``fold_in(key, r)``.
      steps: Adam steps per restart.
      restarts: independent restarts, trained together as a vmapped batch.
      learning_rate: Adam step size.
      init_scale: ``init_params(..., scale=init_scale)``.
      margin_tol: relative margin a witness must exceed (times ``max(1, max |o|)``).

    Returns:
      A :class:`WitnessRecord` (``found``, float64 ``min_margin``, accuracy, the model if found).
    """
    tokens, labels = _check_inputs(tokens_BxN, labels_B, config)
    _validate.check_positive("steps", steps)
    _validate.check_positive("restarts", restarts)
    _validate.check_positive("learning_rate", learning_rate)
    _validate.check_positive("margin_tol", margin_tol)
    t0 = time.perf_counter()
    # float64 throughout: the verification must be float64, and these models are tiny.
    require_x64("config")
    tok, lab = jnp.asarray(tokens), jnp.asarray(labels)
    static = (config, int(steps), int(restarts))
    lr, sc = jnp.asarray(learning_rate, jnp.float64), jnp.asarray(init_scale, jnp.float64)
    batch, m_MxB, scale_M = _compiled_train(static, tok, lab)(key, tok, lab, lr, sc)
    m_MxB = np.asarray(m_MxB)
    rel = m_MxB.min(axis=1) / np.maximum(1.0, np.asarray(scale_M))
    best = int(np.nanargmax(np.where(np.isnan(rel), -np.inf, rel)))
    params = cast_params(jax.tree.map(lambda x: x[best], batch), jnp.float64)
    # Re-evaluated outside the training program, one model at a time, as a user would.
    m_B, scale = jax.jit(_margins_and_scale)(params, tok, lab)
    m_B, scale = np.asarray(m_B, np.float64), float(scale)
    min_margin = float(m_B.min())
    tol = margin_tol * max(1.0, scale)
    found = bool(np.isfinite(min_margin) and min_margin > tol)
    family = describe_family(config)
    scope = in_certificate_scope(config)
    return WitnessRecord(
        family=family,
        found=found,
        min_margin=min_margin,
        tolerance=tol,
        accuracy=float(np.mean(m_B > 0)),
        steps=int(steps),
        restarts=int(restarts),
        best_restart=best,
        num_examples=int(len(labels)),
        seconds=time.perf_counter() - t0,
        config=config_dict(config),
        params=params if found else None,
        in_scope=scope,
    )


# Families of the default witness run on Theorem 2's toy set: (name, config overrides).
DEFAULT_FAMILIES = (
    ("softmax, 1 layer, 1 head (in scope: must fail)", dict(heads=(1,), attention="softmax")),
    ("softmax, 1 layer, 2 heads", dict(heads=(2,), attention="softmax")),
    ("softmax, 1 layer, 4 heads", dict(heads=(4,), attention="softmax")),
    ("relu, 1 layer + MLP", dict(heads=(1,), attention="relu", mlp_hidden=16)),
    ("relu, 2 layers", dict(heads=(1, 1), attention="relu")),
)


def default_witness_searches(
    key: jax.Array, steps: int = 500, restarts: int = 8
) -> list[WitnessRecord]:
    """Witness searches on Theorem 2's toy set (§13.1) for the default families.

    The toy set is ``tasks.toy.toy_icl()`` (layout of ``InContextQA(2, 2, 2)``, ``d' = d + n``).
    The first family is in scope (one softmax head): a found witness there would contradict
    Prop. 10, so it is a control. Returns a list of :class:`WitnessRecord` (a found witness's
    model in ``record.params``).
    """
    from transformer_theory.tasks import toy

    tokens, labels = toy.toy_icl()
    task = toy.TABLE1_REASONING_TASK
    records = []
    for i, (_name, over) in enumerate(DEFAULT_FAMILIES):
        cfg = task.model_config(**over)
        rec = search_witness(
            tokens,
            labels,
            cfg,
            jax.random.fold_in(key, i),
            steps,
            restarts=restarts,
        )
        records.append(rec)
    return records
