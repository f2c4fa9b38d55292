r"""The one exact engine: any :class:`~transformer_theory.params.ModelParams` evaluated in
rationals or in arb balls, so a claim can be ``proved`` or ``certified`` (:mod:`.ledger`).

Two arithmetics, one forward pass (the same mathematics as :func:`transformer_theory.core.forward`:
embed, per layer :math:`z = H + \operatorname{attn}(\operatorname{norm}_1(H))` and
:math:`\mathrm{out} = z + \psi(\operatorname{norm}_2(z))`, the optional final norm, :math:`W_O` at
the read positions):

- ``"exact"``: every weight and input is a float64, hence a dyadic rational, taken at its exact
  value (:func:`fraction`); every operation is done in ``flint.fmpq``. Operations with no rational
  result (softmax, a norm's square root, :math:`1/\sqrt{E}` unless :math:`E` is a square, GELU)
  are refused with ``ArithmeticError``: use ``"enclosed"``.
- ``"enclosed"``: every operation in ``flint.arb`` balls at ``prec`` bits; the results are
  rigorous enclosures of the real-number model whose weights are the float64 values. Comparisons
  that a ball cannot decide (a hard-attention tie, a ReLU at 0 is fine) raise ``ArithmeticError``.

Constants the library computes in float64 (RoPE rotations, sinusoidal codes) are taken as given:
they are part of the model's weights. ALiBi slopes are powers of two and exact.

:func:`dyadic_last_streams` / :func:`dyadic_margins` are the batched fast path for the
construction architecture of Chen & Zou 2024 (ReLU attention, one-hot positions, no norm, no
MLP): integer numerators in float64 with a common power-of-two denominator, each product
refused unless it is provably below :math:`2^{53}` -- exact, and fast enough for 400,500 inputs.

The claims ledger routes every ``proved`` and ``certified`` check through this module. Every
ball operation with no exact result is one method of the ball arithmetic (:func:`balls`, which
checks with enclosures of their own use too), and the engine's own ledger rows
(:mod:`transformer_theory.claims.engine`) check those methods: while one fails, the ledger's rule
fails every enclosed check.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from transformer_theory import _validate

__all__ = [
    "ARITHMETICS",
    "Trace",
    "arb_matrix",
    "balls",
    "dyadic_last_streams",
    "dyadic_margins",
    "evaluate",
    "fraction",
    "margins",
]

ARITHMETICS = ("exact", "enclosed")
_EXACT = 2.0**53  # float64 holds every integer below this, and sums of them exactly


def fraction(x: float) -> Fraction:
    """The exact rational value of a float64 (every finite float64 is a dyadic rational)."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"x: expected a float64, got {x!r:.80}") from None
    if not math.isfinite(x):
        raise _NonFinite(f"x: the non-finite value {x!r} has no rational value")
    return Fraction(*x.as_integer_ratio())


class _NonFinite(ValueError, ArithmeticError):
    """A bad input (a ``ValueError`` naming it) that is also the arithmetic's refusal (an
    ``ArithmeticError``, as before)."""


def arb_matrix(a: Any) -> Any:
    """``a`` (float64; 1-D becomes a column) as a python-flint ball matrix of exact doubles."""
    import flint

    arr = np.asarray(a, np.float64)
    _validate.check_finite("a", arr)
    if arr.ndim == 1:
        arr = arr[:, None]
    return flint.arb_mat(arr.tolist())


# --------------------------------------------------------------------------------------- backends


class _Rationals:
    name = "exact"

    def __init__(self) -> None:
        import flint

        self.flint = flint

    def scalar(self, x: float) -> Any:
        return self.flint.fmpq(*fraction(x).as_integer_ratio())

    def matrix(self, a: Any) -> Any:
        arr = np.asarray(a, np.float64)
        if arr.ndim == 1:
            arr = arr[:, None]
        if not np.all(np.isfinite(arr)):
            raise ArithmeticError("non-finite weights have no rational value")
        rows = [[self.scalar(v) for v in row] for row in arr.tolist()]
        return self.flint.fmpq_mat(rows) if rows and rows[0] else self.flint.fmpq_mat(*arr.shape)

    def zeros(self, r: int, c: int) -> Any:
        return self.flint.fmpq_mat(r, c)

    def one(self) -> Any:
        return self.flint.fmpq(1)

    def relu(self, x: Any) -> Any:
        return x if x > 0 else self.flint.fmpq(0)

    def exp(self, x: Any) -> Any:
        raise ArithmeticError("softmax needs exp, which has no rational value: use 'enclosed'")

    def rsqrt(self, x: Any) -> Any:
        raise ArithmeticError("a norm needs a square root: use 'enclosed'")

    def sqrt_int(self, k: int) -> Any:
        r = math.isqrt(k)
        if r * r != k:
            raise ArithmeticError(f"1/sqrt({k}) is irrational: use 'enclosed'")
        return self.flint.fmpq(r)

    def gelu(self, x: Any) -> Any:
        raise ArithmeticError("GELU has no rational value: use 'enclosed'")

    def div(self, a: Any, b: Any) -> Any:
        return a / b

    def sqrt(self, x: Any) -> Any:
        raise ArithmeticError("a square root has no rational value: use 'enclosed'")

    def log(self, x: Any) -> Any:
        raise ArithmeticError("a logarithm has no rational value: use 'enclosed'")

    def greater(self, a: Any, b: Any) -> bool:
        return bool(a > b)

    def equal(self, a: Any, b: Any) -> bool:
        return bool(a == b)


class _Balls:
    """The ball arithmetic every enclosure of the library goes through: the forward pass
    (:func:`evaluate`) and the checks that enclose a quantity of their own (:func:`balls`).
    Each operation with no exact result (``exp``, ``log``, ``sqrt``, ``rsqrt``, ``div``,
    ``gelu``) is one method here, so the exact engine's own ledger rows
    (:mod:`transformer_theory.claims.engine`) check the very code every enclosure runs."""

    name = "enclosed"

    def __init__(self, prec: int) -> None:
        import flint

        self.flint = flint
        self.prec = prec

    def scalar(self, x: float) -> Any:
        return self.flint.arb(float(x))

    def matrix(self, a: Any) -> Any:
        arr = np.asarray(a, np.float64)
        if not np.all(np.isfinite(arr)):
            raise ArithmeticError("non-finite weights")
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.size == 0:
            return self.flint.arb_mat(*arr.shape)
        return self.flint.arb_mat(arr.tolist())

    def zeros(self, r: int, c: int) -> Any:
        return self.flint.arb_mat(r, c)

    def one(self) -> Any:
        return self.flint.arb(1)

    def relu(self, x: Any) -> Any:
        return x.nonnegative_part() if not x > 0 else x

    def exp(self, x: Any) -> Any:
        return x.exp()

    def log(self, x: Any) -> Any:
        if not x > 0:
            raise ArithmeticError("a logarithm's argument is not certainly positive")
        return x.log()

    def div(self, a: Any, b: Any) -> Any:
        return a / b

    def sqrt(self, x: Any) -> Any:
        return x.sqrt()

    def rsqrt(self, x: Any) -> Any:
        if not x > 0:
            raise ArithmeticError("a norm's variance + eps is not certainly positive")
        return x.rsqrt()

    def sqrt_int(self, k: int) -> Any:
        return self.flint.arb(k).sqrt()

    def gelu(self, x: Any) -> Any:
        # jax.nn.gelu's default (approximate=True): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        c = (self.flint.arb(2) / self.flint.arb.pi()).sqrt()
        k = self.flint.arb(0.044715)
        return 0.5 * x * (1 + (c * (x + k * x * x * x)).tanh())

    def greater(self, a: Any, b: Any) -> bool:
        if a > b:
            return True
        if a <= b:
            return False
        raise ArithmeticError("a hard-attention comparison is not decided by the balls")

    def equal(self, a: Any, b: Any) -> bool:
        if a > b or a < b:
            return False
        if (a - b).is_exact() and (a - b).is_zero():
            return True
        raise ArithmeticError("a hard-attention tie is not decided by the balls")


def balls(prec: int = 128) -> _Balls:
    """The engine's ball arithmetic at ``prec`` bits, for a check that encloses a quantity of its
    own (a cross-entropy's log, a bound's exp): ``balls().log(x)``, ``.exp``, ``.sqrt``,
    ``.rsqrt``, ``.div(a, b)``, ``.scalar(float)``. Going through it (not arb's methods
    directly) puts the check's enclosures under the engine's own ledger rows
    (:mod:`transformer_theory.claims.engine`): a broken operation fails them, and with them
    every enclosed row."""
    _check_prec(prec)
    return _Balls(prec)


def _check_prec(prec: Any) -> None:
    """A working precision flint can hold: an int of 2 to 2^20 bits."""
    _validate.check_int_arg("prec", prec, 2)
    if prec > 2**20:
        raise ValueError(f"prec: expected at most 2^20 bits, got {prec}")


def _backend(arithmetic: str, prec: int) -> Any:
    if arithmetic == "exact":
        return _Rationals()
    if arithmetic == "enclosed":
        return _Balls(prec)
    raise ValueError(f"arithmetic: expected one of {', '.join(ARITHMETICS)}, got {arithmetic!r}")


# ------------------------------------------------------------------------------------ the pass


@dataclasses.dataclass
class Trace:
    """One sequence through one model, in one arithmetic.

    Attributes:
      arithmetic: ``"exact"`` (entries ``flint.fmpq``) or ``"enclosed"`` (``flint.arb``).
      streams: the residual stream ``N x D`` after the embedding and after each layer (a flint
        matrix each; ``streams[-1]`` is the last layer's, before the final norm).
      weights: ``weights[layer][head]`` the ``N x N`` attention weights (lists of rows).
      logits: the classifier output ``W_O norm3(h_i)`` at every position ``i`` (a list of rows of
        ``C`` values); the library's ``forward`` reads the last row.
      scores: ``scores[layer][head]`` the ``N x N`` scores before masking and the nonlinearity
        (query rows, key columns; lists of rows).
      normalizers: ``normalizers[layer][head][i]`` the softmax denominator ``Z_i = sum_j
        exp(s_ij)`` over the keys query ``i`` may attend (unshifted; ``"enclosed"`` softmax layers
        only, ``None`` elsewhere): Chen & Zou 2024's ``Z`` in Propositions 9-10.
    """

    arithmetic: str
    streams: list
    weights: list
    logits: list
    scores: list = dataclasses.field(default_factory=list)
    normalizers: list = dataclasses.field(default_factory=list)


def _rows(m: Any) -> list[list]:
    return [[m[i, j] for j in range(m.ncols())] for i in range(m.nrows())]


def _from_rows(be: Any, rows: list[list], ncols: int) -> Any:
    out = be.zeros(len(rows), ncols)
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            out[i, j] = v
    return out


def _norm(be: Any, kind: str, m: Any, scale: Any, bias: Any, eps: float) -> Any:
    rows = _rows(m)
    D = m.ncols()
    s = np.ones(D) if scale is None else np.asarray(scale, np.float64)
    b = np.zeros(D) if bias is None else np.asarray(bias, np.float64)
    out = []
    e = be.scalar(eps)
    for r in rows:
        mu = be.div(sum(r, be.scalar(0.0)), be.scalar(D))
        if kind == "rmsnorm":
            inv = be.rsqrt(be.div(sum((v * v for v in r), be.scalar(0.0)), be.scalar(D)) + e)
            y = [v * inv for v in r]
        elif kind in ("layernorm", "layernorm_sigma"):
            var = be.div(sum(((v - mu) * (v - mu) for v in r), be.scalar(0.0)), be.scalar(D))
            if kind == "layernorm":
                y = [(v - mu) * be.rsqrt(var + e) for v in r]
            else:
                sigma = be.sqrt(var) if be.name == "enclosed" else be.rsqrt(var)
                y = [be.div(v - mu, sigma + e) for v in r]
        else:
            raise ValueError(f"norm: no exact version of {kind!r}")
        out.append([v * be.scalar(si) + be.scalar(bi) for v, si, bi in zip(y, s, b)])
    return _from_rows(be, out, D)


def _weights(be: Any, kind: str, scores: list[list], mask: np.ndarray) -> list[list]:
    n = len(scores)
    out = []
    for i in range(n):
        allowed = [j for j in range(len(scores[i])) if mask[i, j]]
        row = [be.scalar(0.0)] * len(scores[i])
        if not allowed:
            out.append(row)
            continue
        if kind == "relu":
            for j in allowed:
                row[j] = be.relu(scores[i][j])
        elif kind == "softmax":
            if be.name == "exact":
                be.exp(scores[i][0])  # raises: exp has no rational value
            # shift by a float midpoint: exact algebra, smaller balls
            top = max(float(scores[i][j].mid()) for j in allowed)
            e = {j: be.exp(scores[i][j] - top) for j in allowed}
            z = sum(e.values(), be.scalar(0.0))
            for j in allowed:
                row[j] = be.div(e[j], z)
        elif kind in ("hard_leftmost", "hard_average"):
            best = [allowed[0]]
            for j in allowed[1:]:
                if be.greater(scores[i][j], scores[i][best[0]]):
                    best = [j]
                elif be.equal(scores[i][j], scores[i][best[0]]):
                    best.append(j)
            if kind == "hard_leftmost":
                best = best[:1]
            for j in best:
                row[j] = be.div(be.one(), be.scalar(len(best)))
        else:
            raise ArithmeticError(f"no exact version of attention={kind!r}")
        out.append(row)
    return out


def _layer_scores(be: Any, layer: Any, cfg: Any, x: Any, n: int) -> list[Any]:
    """Per head, the ``N x N`` score matrix (query rows, key columns)."""
    a = layer.attn
    H = int(np.shape(a.w_v)[0])
    xt = x.transpose()
    out = []
    for h in range(H):
        if cfg.qk_dim is None:
            s = x * (be.matrix(np.asarray(a.w_qk[h], np.float64)).transpose() * xt)
            key_dim = cfg.width
        else:
            q = x * be.matrix(np.asarray(a.w_q[h], np.float64)).transpose()  # N x E
            k = x * be.matrix(np.asarray(a.w_k[h], np.float64)).transpose()
            if cfg.relative == "rope":
                rot = _rope_matrices(n, int(cfg.qk_dim))
                q, k = _rotate(be, q, rot), _rotate(be, k, rot)
            s = q * k.transpose()
            key_dim = int(cfg.qk_dim)
        if cfg.scale_scores:
            s = s * be.div(be.one(), be.sqrt_int(key_dim))
        if cfg.relative == "alibi":
            s = s + be.matrix(_alibi(n, H)[h])
        elif cfg.relative not in (None, "rope"):
            raise ArithmeticError(f"no exact version of relative={cfg.relative!r}")
        out.append(s)
    return out


def _rotate(be: Any, m: Any, rot: Sequence[np.ndarray]) -> Any:
    """Row ``i`` of ``m`` replaced by ``rot[i] @ m_i`` (RoPE at position ``i``)."""
    rows = []
    for i in range(m.nrows()):
        col = _from_rows(be, [[m[i, j]] for j in range(m.ncols())], 1)
        rows.append([v[0] for v in _rows(be.matrix(rot[i]) * col)])
    return _from_rows(be, rows, m.ncols())


def _rope_matrices(n: int, K: int) -> tuple[np.ndarray, ...]:
    """The library's RoPE rotation at positions ``0..n-1`` as float64 ``K x K`` matrices (RoPE is
    linear: the image of the identity), so that ``rope(x, p) = R[p] @ x``."""
    import jax
    import jax.numpy as jnp

    from transformer_theory.core import positional
    from transformer_theory.precision import require_x64

    require_x64("params")  # RoPE's sines and cosines, taken from the library in float64
    eye = jnp.eye(K, dtype=jnp.float64)
    rot = jax.vmap(lambda p: positional.rope(eye, jnp.full((K,), p)))(jnp.arange(n))
    return tuple(np.asarray(r, np.float64).T for r in rot)


def _alibi(n: int, H: int) -> np.ndarray:
    """The library's ALiBi bias ``(H, N, N)`` in float64 (slopes are powers of two: exact)."""
    import jax
    import jax.numpy as jnp

    from transformer_theory.core import positional
    from transformer_theory.precision import require_x64

    require_x64("params")  # ALiBi's bias, taken from the library in float64
    slopes = positional.alibi_slopes(H, jnp.float64)
    return np.asarray(jax.vmap(lambda s: positional.alibi_bias(n, s, jnp.float64))(slopes))


def _embed(params: Any, inputs: Any) -> np.ndarray:
    """The float64 embedding of integer ``inputs`` (the library's, eq. 3), or ``inputs`` itself."""
    arr = np.asarray(inputs)
    if np.issubdtype(arr.dtype, np.integer):
        import jax.numpy as jnp

        from transformer_theory.core.forward import embed_tokens
        from transformer_theory.precision import require_x64

        cfg = params.config
        if arr.ndim != 1:
            raise ValueError(f"inputs: expected one sequence of token ids, got shape {arr.shape}")
        if arr.size and (arr.min() < 0 or arr.max() >= cfg.vocab_size):
            raise ValueError(f"inputs: token ids must lie in [0, {cfg.vocab_size})")
        require_x64("inputs")  # token ids are embedded by the library in float64
        h = embed_tokens(
            jnp.asarray(arr),
            cfg.vocab_size,
            cfg.width,
            cfg.positional,
            dtype=jnp.float64,
            window=cfg.positional_window,
        )
        return np.asarray(h, np.float64)
    if arr.ndim != 2 or arr.shape[1] != params.config.width:
        raise ValueError(f"inputs: expected token ids or an N x {params.config.width} embedding")
    _validate.check_finite("inputs", arr)
    return np.asarray(arr, np.float64)


def _one_model(params: Any, what: str) -> Any:
    """Validate ``params`` (one finite model consistent with its config); return its config."""
    from transformer_theory.params import validate_params

    validate_params(params, finite=True)
    if params.batch_shape:
        raise ValueError(f"params: {what} takes ONE model (no batch axis)")
    return params.config


def evaluate(
    params: Any,
    inputs: Any,
    *,
    arithmetic: str = "exact",
    prec: int = 128,
    mask_NxN: np.ndarray | None = None,
) -> Trace:
    """``params`` on one sequence, every operation in ``arithmetic`` (module docstring).

    Args:
      params: one model (no batch axis), any :class:`~transformer_theory.params.ModelConfig`.
      inputs: token ids ``(N,)`` (embedded by the library in float64, then taken exactly) or an
        embedding ``(N, D)``.
      arithmetic: ``"exact"`` (rationals) or ``"enclosed"`` (arb balls).
      prec: the balls' working precision in bits (``"enclosed"`` only).
      mask_NxN: optional boolean mask (True = may attend), combined with ``config.causal``.

    Raises:
      ValueError: bad arguments (named).
      ArithmeticError: an operation this arithmetic cannot do (softmax or a norm in rationals, a
        tie the balls cannot decide).
    """
    import flint

    cfg = _one_model(params, "evaluate")
    _check_prec(prec)
    be = _backend(arithmetic, prec)
    with flint.ctx.workprec(prec):
        h0 = _embed(params, inputs)
        n = h0.shape[0]
        mask = np.ones((n, n), bool) if mask_NxN is None else np.asarray(mask_NxN, bool)
        if mask.shape != (n, n):
            raise ValueError(f"mask_NxN: expected shape ({n}, {n}), got {mask.shape}")
        if cfg.causal:
            mask = mask & np.tril(np.ones((n, n), bool))
        h = be.matrix(h0)
        streams, all_weights, all_scores, all_z = [h], [], [], []
        for lay in params.layers:
            x = h
            if lay.norm1 is not None:
                x = _norm(be, cfg.norm1, x, lay.norm1.scale, lay.norm1.bias, cfg.norm_eps)
            heads = []
            layer_weights = []
            scores = _layer_scores(be, lay, cfg, x, n)
            all_scores.append([_rows(s) for s in scores])
            if cfg.attention == "softmax" and be.name == "enclosed":
                all_z.append(
                    [
                        [
                            sum((be.exp(s[i, j]) for j in range(n) if mask[i, j]), be.scalar(0.0))
                            for i in range(n)
                        ]
                        for s in scores
                    ]
                )
            else:
                all_z.append(None)
            for hd, s in enumerate(scores):
                w = _weights(be, cfg.attention, _rows(s), mask)
                layer_weights.append(w)
                values = x * be.matrix(np.asarray(lay.attn.w_v[hd], np.float64)).transpose()
                heads.append(_from_rows(be, w, n) * values)
            total = heads[0]
            for other in heads[1:]:
                total = total + other
            if cfg.head_mean and len(heads) > 1:
                total = total * be.div(be.one(), be.scalar(len(heads)))
            z = h + total
            if lay.mlp is not None:
                u = z
                if lay.norm2 is not None:
                    u = _norm(be, cfg.norm2, u, lay.norm2.scale, lay.norm2.bias, cfg.norm_eps)
                m = lay.mlp
                pre = u * be.matrix(np.asarray(m.w1, np.float64)).transpose()
                b1 = np.asarray(m.b1, np.float64)
                act = be.relu if cfg.mlp_activation == "relu" else be.gelu
                pre = _from_rows(
                    be,
                    [[act(v + be.scalar(b)) for v, b in zip(row, b1)] for row in _rows(pre)],
                    pre.ncols(),
                )
                out = pre * be.matrix(np.asarray(m.w2, np.float64)).transpose()
                b2 = np.asarray(m.b2, np.float64)
                out = _from_rows(
                    be, [[v + be.scalar(b) for v, b in zip(row, b2)] for row in _rows(out)], len(b2)
                )
                z = z + out
            h = z
            streams.append(h)
            all_weights.append(layer_weights)
        last = h
        if params.final_norm is not None:
            fn = params.final_norm
            last = _norm(be, cfg.final_norm, last, fn.scale, fn.bias, cfg.norm_eps)
        logits = _rows(last * be.matrix(np.asarray(params.w_o, np.float64)).transpose())
        return Trace(be.name, streams, all_weights, logits, all_scores, all_z)


def margins(
    params: Any,
    inputs: Sequence[Any],
    labels: Sequence[int],
    *,
    arithmetic: str = "exact",
    prec: int = 128,
    position: int = -1,
) -> dict[str, Any]:
    r"""The classification margin :math:`o_y - \max_{c \neq y} o_c` at ``position`` of every input.

    Returns ``dict(min_margin, worst, margins)``: in ``"exact"`` the margins are
    :class:`fractions.Fraction`; in ``"enclosed"`` ``min_margin`` is the smallest lower end of a
    margin ball (a float rounded down, so ``min_margin > 0`` certifies every input), and
    ``margins`` the balls as strings.
    """
    for name, v in (("inputs", inputs), ("labels", labels)):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
            raise ValueError(f"{name}: expected a sequence, got {v!r:.80}")
    if len(inputs) != len(labels):
        raise ValueError(f"labels: expected {len(inputs)} labels, got {len(labels)}")
    if not len(inputs):
        raise ValueError("inputs: expected at least one input")
    cfg = _one_model(params, "margins")
    _check_labels(labels, cfg.num_classes)
    if isinstance(position, bool) or not isinstance(position, (int, np.integer)):
        raise ValueError(f"position: expected an int, got {position!r}")
    out, worst, best = [], None, None
    for index, (x, y) in enumerate(zip(inputs, labels)):
        logits = evaluate(params, x, arithmetic=arithmetic, prec=prec).logits
        if not -len(logits) <= position < len(logits):
            raise ValueError(
                f"position: expected -{len(logits)}..{len(logits) - 1} for input {index} "
                f"of length {len(logits)}, got {position}"
            )
        row = list(logits[position])
        correct = row.pop(int(y))
        rival = row[0]
        for v in row[1:]:
            if arithmetic == "exact":
                rival = v if v > rival else rival
            else:
                rival = rival.max(v) if hasattr(rival, "max") else _arb_max(rival, v)
        m = correct - rival if row else correct
        if arithmetic == "exact":
            value = Fraction(int(m.p), int(m.q))
            out.append(value)
        else:
            value = _arb_lower(m)
            out.append(str(m))
        if best is None or value < best:
            best, worst = value, index
    return {"min_margin": best, "worst": worst, "margins": out}


def _check_labels(labels: Any, num_classes: int) -> np.ndarray:
    """Labels as an int array, each a class of a classifier with at least two classes."""
    if num_classes < 2:
        raise ValueError(
            f"params: a margin o_y - max_(c != y) o_c needs at least two classes, the config has "
            f"num_classes={num_classes}"
        )
    arr = np.asarray(labels)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"labels: expected a list of integer class ids, got {labels!r:.80}")
    if arr.size and (arr.min() < 0 or arr.max() >= num_classes):
        raise ValueError(
            f"labels: class ids must lie in [0, {num_classes}), got min {arr.min()} and max "
            f"{arr.max()}"
        )
    return arr.astype(np.int64)


def _arb_max(a: Any, b: Any) -> Any:
    if a > b:
        return a
    if b > a:
        return b
    return a.union(b)


def _arb_lower(x: Any) -> float:
    """The lower end of a ball, rounded down to a float64."""
    lo = float(x.lower()) if hasattr(x, "lower") else float(x.mid()) - float(x.rad())
    return math.nextafter(lo, -math.inf)


# ---------------------------------------------------------------------- the batched dyadic path


def _exact_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for integer-valued float64 arrays, refused unless provably exact (< 2^53)."""
    bound = float(np.abs(a).sum(axis=-1).max(initial=0.0)) * float(np.abs(b).max(initial=0.0))
    if not bound < _EXACT:
        raise ArithmeticError(f"integer product may exceed 2^53 (bound {bound:.3g})")
    return a @ b


def _integer_weights(w: np.ndarray, name: str) -> tuple[np.ndarray, int]:
    """``(W_int, s)`` with ``W = W_int / 2^s`` and ``W_int`` integer-valued (``s <= 40``)."""
    w = np.asarray(w, np.float64)
    if not np.all(np.isfinite(w)):
        raise ArithmeticError(f"{name}: non-finite weights")
    for shift in range(41):
        scaled = w * 2.0**shift  # exact: a power of two
        if np.array_equal(scaled, np.round(scaled)):
            return scaled, shift
    raise ArithmeticError(f"{name}: not dyadic with denominator <= 2^40; the exact pass needs it")


def dyadic_last_streams(params: Any, tokens_BxN: np.ndarray) -> tuple[np.ndarray, int]:
    """The last-token streams of ``params`` on ``tokens_BxN`` in exact arithmetic: integer-valued
    float64 numerators ``X_BxD`` and one common integer denominator.

    The construction architecture only (ReLU attention, bidirectional, eq. 2's head mean, one-hot
    positions, no norm, no MLP); anything else raises ``ArithmeticError`` (use :func:`evaluate`).
    """
    cfg = _one_model(params, "dyadic_last_streams")
    if (cfg.attention, cfg.causal, cfg.head_mean, cfg.positional) != (
        "relu",
        False,
        True,
        "onehot",
    ) or any(lp.mlp is not None or lp.norm1 is not None for lp in params.layers):
        raise ArithmeticError("the dyadic pass covers the constructions' architecture only")
    if cfg.qk_dim is not None or cfg.relative is not None or cfg.scale_scores:
        raise ArithmeticError("the dyadic pass covers w_qk heads without relative terms only")
    tokens = np.asarray(tokens_BxN)
    if tokens.ndim != 2 or (tokens.size and not np.issubdtype(tokens.dtype, np.integer)):
        raise ValueError(f"tokens_BxN: expected a 2-d array of token ids, got {tokens.shape}")
    if tokens.shape[1] != cfg.seq_len:
        raise ValueError(
            f"tokens_BxN: expected sequences of length seq_len={cfg.seq_len}, got {tokens.shape}"
        )
    if tokens.size and (tokens.min() < 0 or tokens.max() >= cfg.vocab_size):
        raise ValueError(f"tokens_BxN: token ids must lie in [0, {cfg.vocab_size})")
    tokens = tokens.astype(np.int64)
    B, n = tokens.shape
    d, D = cfg.vocab_size, cfg.width
    x = np.zeros((B, n, D))
    x[np.arange(B)[:, None], np.arange(n)[None, :], tokens] = 1.0  # eq. 3: token one-hot
    x[:, np.arange(n), d + np.arange(n)] = 1.0  # one-hot positions
    den = 1
    for index, lp in enumerate(params.layers):
        qk = [_integer_weights(w, f"layer {index} w_qk") for w in np.asarray(lp.attn.w_qk)]
        vv = [_integer_weights(w, f"layer {index} w_v") for w in np.asarray(lp.attn.w_v)]
        m = len(qk)
        top = max(sq + sv for (_, sq), (_, sv) in zip(qk, vv))
        # head h contributes relu(X Wqk X^T) (X Wv^T) / (den^3 2^(sq+sv)); common denominator
        # m den^3 2^top.
        total = x * float(m * den * den * 2**top)
        if not np.abs(total).max() < _EXACT:
            raise ArithmeticError("stream numerators reach 2^53")
        xt = np.swapaxes(x, 1, 2)
        for (w_qk, sq), (w_v, sv) in zip(qk, vv):
            q = _exact_matmul(x, w_qk.T)  # row i: W_QK h_i
            scores = np.maximum(_exact_matmul(q, xt), 0.0)  # [b, i, j] = relu(h_j^T W_QK h_i)
            values = _exact_matmul(x, w_v.T)
            total = total + _exact_matmul(scores, values) * float(2 ** (top - sq - sv))
            if not np.abs(total).max() < _EXACT:
                raise ArithmeticError("stream numerators reach 2^53")
        den = m * den**3 * 2**top
        g = math.gcd(den, int(np.gcd.reduce(np.abs(total).astype(np.int64), axis=None)))
        x, den = total / g, den // g
    return x[:, -1, :], den


def _dyadic_integers(w: np.ndarray) -> tuple[np.ndarray, int]:
    """``(W_int, E)`` with ``W = W_int / 2^E`` exactly, ``W_int`` an object array of Python ints."""
    w = np.asarray(w, np.float64)
    if not np.all(np.isfinite(w)):
        raise ArithmeticError("W_O: non-finite entries")
    mant, expo = np.frexp(w)  # w = mant 2^expo, mant in [0.5, 1) with 53 bits
    ints = np.ldexp(mant, 53).astype(np.int64)  # exact
    nz = ints != 0
    shift = 53 - expo
    big_e = int(shift[nz].max()) if nz.any() else 0
    out = ints.astype(object)
    lefts = (big_e - shift).astype(object)
    out[nz] = np.array([int(v) << int(s) for v, s in zip(out[nz], lefts[nz])], dtype=object)
    out[~nz] = 0
    return out, big_e


def dyadic_margins(params: Any, tokens_BxN: np.ndarray, labels_B: np.ndarray) -> dict[str, Any]:
    r"""Exact margins :math:`o_y - \max_{c \neq y} o_c` of ``params`` on every input (dyadic path).

    Returns ``dict(min_margin=Fraction, worst=index of the input with the smallest margin,
    distinct=number of distinct (last stream, label) pairs, denominator=den)``.
    """
    cfg = _one_model(params, "dyadic_margins")
    if np.ndim(tokens_BxN) != 2:
        raise ValueError(f"tokens_BxN: expected a 2-d array of token ids, got {tokens_BxN!r:.80}")
    if np.ndim(labels_B) != 1:
        raise ValueError(f"labels_B: expected a 1-d array of class ids, got {labels_B!r:.80}")
    if len(labels_B) != len(tokens_BxN):
        raise ValueError(f"labels_B: expected {len(tokens_BxN)} labels, got {len(labels_B)}")
    if not len(labels_B):
        raise ValueError("tokens_BxN: expected at least one input")
    labels = _check_labels(labels_B, cfg.num_classes)
    xs, den = [], 1
    for lo in range(0, len(labels), 2048):
        x, dn = dyadic_last_streams(params, np.asarray(tokens_BxN)[lo : lo + 2048])
        lcm = den * dn // math.gcd(den, dn)
        xs = [a * float(lcm // den) for a in xs]
        xs.append(x * float(lcm // dn))
        den = lcm
        if xs and not np.abs(xs[-1]).max(initial=0) < _EXACT:
            raise ArithmeticError("stream numerators reach 2^53")
    x_BxD = np.concatenate(xs)
    rows, first, inverse = np.unique(
        np.column_stack([x_BxD, labels]), axis=0, return_index=True, return_inverse=True
    )
    w_o = np.asarray(params.w_o, np.float64)
    if np.array_equal(w_o, np.round(w_o)):
        logits = _exact_matmul(rows[:, :-1], w_o.T).astype(np.int64).astype(object)
        big_e = 0
    else:
        w_int, big_e = _dyadic_integers(w_o)
        logits = np.empty((len(rows), w_o.shape[0]), dtype=object)
        for r, row in enumerate(rows[:, :-1]):
            nz = np.flatnonzero(row)
            vals = np.array([int(v) for v in row[nz]], dtype=object)
            logits[r] = w_int[:, nz].dot(vals) if len(nz) else 0
    best = None
    for r in range(len(rows)):
        y = int(rows[r, -1])
        row = list(logits[r])
        correct = row.pop(y)
        margin = correct - max(row) if row else correct
        if best is None or margin < best[0]:
            best = (margin, r)
    min_margin = Fraction(int(best[0]), den * 2**big_e)
    worst = int(first[best[1]])
    return dict(min_margin=min_margin, worst=worst, distinct=len(rows), denominator=den)
