"""The exact engine's enclosures as ledger rows of their own.

Every ``certified`` / ``bounded`` row computed in arb balls rests on :mod:`transformer_theory.
exact`'s enclosures being enclosures. These rows check that, operation by operation, on seeded
random inputs: the ball the engine returns must contain an interval that contains the true value,
computed independently here with Python's :mod:`decimal` at 60 significant digits (``exp``,
``ln`` and ``sqrt`` are correctly rounded there, so the true value lies within one unit of the
last digit) and :class:`fractions.Fraction` (division, sums, means, variances, exactly). Each ball
is compared with its reference interval exactly: the ball's midpoint and radius are dyadic
rationals (``arb.mid().man_exp()``), so containment is decided in rationals, never in floats.

A broken engine moves these rows: an ``exp`` that drops its radius returns a point that contains
no interval of positive width (the mutant tests in ``tests/test_engine_claims.py``). It also moves
every other row computed in balls: :func:`faults` runs these checks on a few seeded inputs (once
per process, again whenever one of the operations is replaced) and the ledger's rule
(:func:`transformer_theory.ledger.derive_status`) fails any ``enclosed`` check while the engine
has a fault: an enclosure computed by an unsound engine certifies nothing.

The operations, as every enclosure calls them (the methods of the engine's ball arithmetic,
:func:`transformer_theory.exact.balls`): ``exp``, ``log``, ``div``, ``sqrt``, ``rsqrt``,
``sqrt_int``, ``gelu``, the softmax weights of :func:`transformer_theory.exact._weights` and the
norms of :func:`transformer_theory.exact._norm` (LayerNorm, RMSNorm, LayerNorm with sigma + eps).
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from transformer_theory.claims import judges
from transformer_theory.ledger import Checked, Continuum, Row, Tally

__all__ = ["CLAIMS", "contains", "endpoints", "faults"]

PAPER = "transformer_theory (the exact engine)"
_DIGITS = 60
# |reference - true| <= this relative error (one unit of the 60th digit, doubled for safety)
_REL = Fraction(2, 10**59)
_SIZES = {"quick": {"samples": 48, "seed": 0}, "full": {"samples": 2000, "seed": 0}}


def endpoints(ball: Any) -> tuple[Fraction, Fraction]:
    """The exact rational endpoints ``mid - rad, mid + rad`` of an arb ball."""
    m, e = ball.mid().man_exp()
    r, f = ball.rad().man_exp()
    mid = Fraction(int(m)) * Fraction(2) ** int(e)
    rad = Fraction(int(r)) * Fraction(2) ** int(f)
    return mid - rad, mid + rad


def contains(ball: Any, lo: Fraction, hi: Fraction) -> bool:
    """The ball contains the whole interval ``[lo, hi]`` (decided in rationals)."""
    if not ball.is_finite():
        return False
    b_lo, b_hi = endpoints(ball)
    return b_lo <= lo and hi <= b_hi


def _ctx() -> decimal.Context:
    return decimal.Context(prec=_DIGITS, rounding=decimal.ROUND_HALF_EVEN)


def _interval(d: decimal.Decimal, ctx: decimal.Context) -> tuple[Fraction, Fraction]:
    """The true value's interval around ``d``: the point where every operation of ``ctx`` was
    exact (a perfect square's root, a terminating quotient), else one unit of the last digit,
    doubled."""
    v = Fraction(d)
    if not ctx.flags[decimal.Inexact]:
        return v, v
    w = abs(v) * _REL
    return v - w * 2, v + w * 2


def _dec(x: Fraction, ctx: decimal.Context) -> decimal.Decimal:
    return ctx.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))


def _exp_iv(x: Fraction) -> tuple[Fraction, Fraction]:
    # the division that makes x a Decimal rounds too: the interval is widened by two units
    ctx = _ctx()
    return _interval(ctx.exp(_dec(x, ctx)), ctx)


def _sqrt_iv(x: Fraction) -> tuple[Fraction, Fraction]:
    ctx = _ctx()
    return _interval(ctx.sqrt(_dec(x, ctx)), ctx)


def _ln_iv(x: Fraction) -> tuple[Fraction, Fraction]:
    ctx = _ctx()
    lo, hi = _interval(ctx.ln(_dec(x, ctx)), ctx)
    if lo == hi:  # ln 1 = 0 exactly
        return lo, hi
    pad = _REL * 4  # ln's absolute error from the rounded argument: |d ln| = |dx / x|
    return lo - pad, hi + pad


def _div_iv(
    a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]
) -> tuple[Fraction, Fraction]:
    """``a / b`` for intervals with ``b > 0``."""
    q = [a[0] / b[0], a[0] / b[1], a[1] / b[0], a[1] / b[1]]
    return min(q), max(q)


def _mul_iv(
    a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]
) -> tuple[Fraction, Fraction]:
    q = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return min(q), max(q)


def _tanh_iv(x: Fraction) -> tuple[Fraction, Fraction]:
    # tanh x = 1 - 2 / (exp(2x) + 1), increasing in exp(2x)
    lo, hi = _exp_iv(2 * x)
    return 1 - Fraction(2) / (lo + 1), 1 - Fraction(2) / (hi + 1)


def _balls():
    from transformer_theory import exact

    return exact, exact._Balls(128)


# ------------------------------------------------------------------------------------ the checks
def _check(
    what: str, draw: Callable[[np.random.Generator], Any], one: Callable[[Any], list]
) -> Callable[..., Checked]:
    """A check over ``samples`` seeded draws: ``one(x)`` returns ``[(ball, lo, hi), ...]``."""
    domain = Continuum(what)

    def check(samples: int, seed: int) -> Checked:
        import flint

        covered = domain.sample(samples, seed, lambda s, i: i, what="inputs")
        tally = Tally(covered)
        rng = np.random.default_rng(seed)
        outside = 0
        first = None
        widest = Fraction(0)
        with flint.ctx.workprec(128):
            for i in range(samples):
                x = draw(rng)
                for ball, lo, hi in one(x):
                    if not contains(ball, lo, hi):
                        outside += 1
                        if first is None:
                            first = {"input": repr(x), "ball": str(ball), "lo": str(float(lo))}
                    elif lo != 0:
                        b_lo, b_hi = endpoints(ball)
                        widest = max(widest, (b_hi - b_lo) / abs(lo))
                tally.record(i)
        return Checked(
            "exact",
            tally,
            {
                "inputs": samples,
                "outside": outside,
                "first_outside": first,
                "widest_relative_diameter": float(widest),
            },
        )

    check.domain = domain  # type: ignore[attr-defined]
    return check


def _floats(lo: float, hi: float) -> Callable[[np.random.Generator], float]:
    return lambda rng: float(rng.uniform(lo, hi))


def _exp_one(x: float) -> list:
    import flint

    _, be = _balls()
    return [(be.exp(flint.arb(x)), *_exp_iv(Fraction(x)))]


def _rsqrt_one(x: float) -> list:
    import flint

    _, be = _balls()
    lo, hi = _sqrt_iv(Fraction(x))
    return [(be.rsqrt(flint.arb(x)), 1 / hi, 1 / lo)]


def _sqrt_one(pair: tuple[int, float]) -> list:
    import flint

    _, be = _balls()
    k, x = pair
    return [
        (be.sqrt_int(int(k)), *_sqrt_iv(Fraction(int(k)))),
        (be.sqrt(flint.arb(x)), *_sqrt_iv(Fraction(x))),
    ]


def _div_one(pair: tuple[float, float]) -> list:
    import flint

    _, be = _balls()
    a, b = pair
    q = Fraction(a) / Fraction(b)
    return [(be.div(flint.arb(a), flint.arb(b)), q, q)]


def _log_one(x: float) -> list:
    import flint

    _, be = _balls()
    return [(be.log(flint.arb(x)), *_ln_iv(Fraction(x)))]


def _gelu_one(x: float) -> list:
    import flint

    _, be = _balls()
    # the engine takes sqrt(2 / pi) with arb's pi: enclose pi between two 60-digit rationals
    digits = 314159265358979323846264338327950288419716939937510582097494
    pi = (Fraction(digits, 10**59), Fraction(digits + 1, 10**59))
    c = _sqrt_iv(Fraction(2) / pi[1])[0], _sqrt_iv(Fraction(2) / pi[0])[1]
    fx = Fraction(x)
    k = Fraction(0.044715)
    inner = _mul_iv(c, (fx + k * fx**3, fx + k * fx**3))
    t_lo, _ = _tanh_iv(inner[0])
    _, t_hi = _tanh_iv(inner[1])
    half = Fraction(1, 2) * fx
    lo, hi = _mul_iv((half, half), (1 + t_lo, 1 + t_hi))
    return [(be.gelu(flint.arb(x)), lo, hi)]


def _softmax_one(row: list[float]) -> list:
    import flint

    exact, be = _balls()
    scores = [[flint.arb(v) for v in row]]
    mask = np.ones((1, len(row)), dtype=bool)
    weights = exact._weights(be, "softmax", scores, mask)[0]
    ivs = [_exp_iv(Fraction(v)) for v in row]
    out = []
    for j, w in enumerate(weights):
        rest_lo = sum(iv[0] for k, iv in enumerate(ivs) if k != j)
        rest_hi = sum(iv[1] for k, iv in enumerate(ivs) if k != j)
        lo = ivs[j][0] / (ivs[j][0] + rest_hi)
        hi = ivs[j][1] / (ivs[j][1] + rest_lo)
        out.append((w, lo, hi))
    return out


def _norm_one(kind: str) -> Callable[[Any], list]:
    def one(sample: tuple[list[float], list[float], list[float], float]) -> list:
        import flint

        exact, be = _balls()
        v, scale, bias, eps = sample
        m = flint.arb_mat([v])
        got = exact._norm(be, kind, m, np.array(scale), np.array(bias), eps)
        x = [Fraction(t) for t in v]
        D = len(x)
        mu = sum(x) / D
        e = Fraction(eps)
        out = []
        if kind == "rmsnorm":
            lo, hi = _sqrt_iv(sum(t * t for t in x) / D + e)
            inv = (1 / hi, 1 / lo)
            ys = [_mul_iv((t, t), inv) for t in x]
        else:
            var = sum((t - mu) ** 2 for t in x) / D
            if kind == "layernorm":
                lo, hi = _sqrt_iv(var + e)
                ys = [_div_iv((t - mu, t - mu), (lo, hi)) for t in x]
            else:  # layernorm_sigma: (x - mu) / (sigma + eps)
                lo, hi = _sqrt_iv(var)
                ys = [_div_iv((t - mu, t - mu), (lo + e, hi + e)) for t in x]
        for j, y in enumerate(ys):
            s, b = Fraction(scale[j]), Fraction(bias[j])
            y2 = _mul_iv(y, (s, s))
            out.append((got[0, j], y2[0] + b, y2[1] + b))
        return out

    return one


def _norm_draw(rng: np.random.Generator) -> tuple:
    D = int(rng.integers(2, 7))
    v = [float(t) for t in rng.normal(0, 3, D)]
    scale = [float(t) for t in rng.uniform(0.5, 2, D)]
    bias = [float(t) for t in rng.normal(0, 1, D)]
    return v, scale, bias, float(rng.choice([1e-5, 1e-6, 0.5]))


# -------------------------------------------------------------------------------------- the rows
_OPS: list[tuple[str, str, str, Callable[[np.random.Generator], Any], Callable[[Any], list]]] = [
    ("exp", "exp x", "every float64 x in [-30, 30]", _floats(-30, 30), _exp_one),
    (
        "rsqrt",
        "1 / sqrt x (a norm's inverse deviation)",
        "every float64 x in (0, 1000]",
        _floats(1e-6, 1000),
        _rsqrt_one,
    ),
    (
        "sqrt",
        "sqrt k (the attention scale 1/sqrt d) and sqrt x (a norm's sigma)",
        "every integer k in [1, 10^6] and every float64 x in (0, 1000]",
        lambda rng: (int(rng.integers(1, 10**6)), float(rng.uniform(1e-6, 1000))),
        _sqrt_one,
    ),
    (
        "division",
        "a / b",
        "every float64 pair (a, b) with |a| <= 10^3, 10^-3 <= |b| <= 10^3",
        lambda rng: (
            float(rng.uniform(-1e3, 1e3)),
            float(rng.choice([-1, 1]) * rng.uniform(1e-3, 1e3)),
        ),
        _div_one,
    ),
    (
        "log",
        "ln x (the engine's log, as the cross-entropy checks call it)",
        "every float64 x in (0, 10^4]",
        _floats(1e-4, 1e4),
        _log_one,
    ),
    ("gelu", "GELU x (tanh form)", "every float64 x in [-8, 8]", _floats(-8, 8), _gelu_one),
    (
        "softmax",
        "the softmax weights of a score row (exact._weights)",
        "every float64 score row of length 1-8 with entries in [-20, 20]",
        lambda rng: [float(t) for t in rng.uniform(-20, 20, int(rng.integers(1, 9)))],
        _softmax_one,
    ),
    (
        "layernorm",
        "LayerNorm (x - mu) / sqrt(var + eps) * scale + bias (exact._norm)",
        "every float64 row of width 2-6, scale, bias and eps",
        _norm_draw,
        _norm_one("layernorm"),
    ),
    (
        "rmsnorm",
        "RMSNorm x / sqrt(mean x^2 + eps) * scale + bias (exact._norm)",
        "every float64 row of width 2-6, scale, bias and eps",
        _norm_draw,
        _norm_one("rmsnorm"),
    ),
    (
        "layernorm_sigma",
        "LayerNorm (x - mu) / (sigma + eps) * scale + bias (exact._norm)",
        "every float64 row of width 2-6, scale, bias and eps",
        _norm_draw,
        _norm_one("layernorm_sigma"),
    ),
]


def _row(name: str, op: str, what: str, draw: Any, one: Any) -> Row:
    check = _check(what, draw, one)
    return Row(
        id=f"exact.ball_{name}",
        paper=PAPER,
        place=f"transformer_theory.exact: {op}",
        statement=(
            f"The exact engine's arb ball for {op} contains the true value, for {what}: "
            "checked on seeded random inputs against intervals computed independently in "
            "60-digit decimal and Fractions, compared in rationals"
        ),
        domain=check.domain,
        check=check,
        judge=judges.exactly(
            "outside",
            0,
            figure="{outside} of {inputs} balls miss the reference value; widest relative "
            "diameter {widest_relative_diameter}",
        ),
        sizes=_SIZES,
        expected="finding",
        note=(
            "Seeded samples, not every input: a statement about every float is verified here, "
            "never proved. The references are Python's decimal module (correctly rounded exp, "
            "ln, sqrt) and exact Fractions."
        ),
    )


CLAIMS: list[Row] = [_row(*op) for op in _OPS]


# ------------------------------------------------------------------- the engine checks itself
#: The seeded inputs :func:`faults` checks each operation on (a few: it runs once per process).
_SELF_TEST = {"samples": 4, "seed": 1}
#: The engine's code every enclosure runs through: a replaced one is checked again.
_ENGINE_PARTS = (
    "exp",
    "log",
    "div",
    "sqrt",
    "rsqrt",
    "sqrt_int",
    "gelu",
    "scalar",
    "matrix",
    "relu",
)
_faults_cache: list = []  # [(parts, faults)]: the parts held, so an id is never reused


def _parts() -> tuple:
    from transformer_theory import exact

    return (
        exact._Balls,
        exact._weights,
        exact._norm,
        *(getattr(exact._Balls, name) for name in _ENGINE_PARTS),
    )


def faults() -> tuple[str, ...]:
    """The exact engine's operations whose enclosures miss the independently computed value on
    the self-test's seeded inputs (``()`` for a sound engine): the rows of :data:`CLAIMS` run
    small. Cached while the engine's code is the same objects; checked again once one is
    replaced. The ledger fails every ``enclosed`` check while this is not empty."""
    parts = _parts()
    if _faults_cache and all(a is b for a, b in zip(_faults_cache[0][0], parts)):
        return _faults_cache[0][1]
    found = []
    for row in CLAIMS:
        try:
            missed = row.check(**_SELF_TEST).values["outside"]
        except Exception:  # an engine that raises on its own inputs is broken too
            missed = 1
        if missed:
            found.append(row.id.removeprefix("exact.ball_"))
    _faults_cache[:] = [(parts, tuple(found))]
    return tuple(found)
