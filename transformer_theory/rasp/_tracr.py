"""Differential testing against tracr (Lindner et al. 2023): the same program compiled by both
compilers and run on every input, every position compared, beside both interpreters.

tracr is never a dependency of this library (it is not on PyPI, is unmaintained and needs
dm-haiku): it is imported inside these functions only, and :data:`INSTALL` says how to install it
beside the library. ``tests/rasp/test_tracr_differential.py`` skips without it; the studies
beside tracr (:mod:`transformer_theory.rasp.experiments`) are built of these functions.

:func:`from_tracr` translates a tracr RASP program (tracr's own, or one written against this
library's tracr-compatible :mod:`transformer_theory.rasp.tracr`, which needs no tracr) into this
library's RASP node by node (``tokens``, ``indices``, ``length``, ``Full``, ``ConstantSOp``,
``Map``, ``SequenceMap``, ``Select`` with a comparison or a function, the selector combinations,
``Aggregate``, ``SelectorWidth``; numerical encodings kept, an aggregate that changes its SOp's
encoding read through an encoding-changing Map), with tracr's meaning of None
(``semantics="tracr"``: a None argument makes a Map or SequenceMap None, a comparison with None
raises, an aggregate's default is taken literally) and with ONE rewrite, an identity:
tracr's ``LinearSequenceMap(a, b, p, q)`` of two numerical means over equal selectors of
numerical Maps of one SOp becomes one mean of the Map ``p f + q g`` (the mean is linear and both
empty selections read 0), because a table reads one number directly (a second number costs a
categorical copy, one more MLP sublayer; ``pair_balance`` and the shuffle-Dyck programs use the
rewrite). Whatever the translation
does, :func:`compare` checks it: the two interpreters are compared on every input.

Decoding, the same rule on both sides: a categorical output is the argmax of its block (tracr:
its output encoder); a numerical output, and a numerical interpreter value, is the nearest value
of the output's value set (this compiler's enumeration of it), so two numbers agree iff they
round to the same value of the set; tracr's raw error is reported beside.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from transformer_theory.rasp import _check, _compile_graph
from transformer_theory.rasp import _compiler as compiler
from transformer_theory.rasp import _language as lang
from transformer_theory.rasp._records import TracrExactLength, TracrSizes

__all__ = [
    "INSTALL",
    "TRACR_COMMIT",
    "TRACR_PROGRAMS",
    "TracrComparison",
    "from_tracr",
    "tracr_programs",
    "compare",
    "compile_tracr",
    "exact_through",
    "failure_length",
    "ours_on_samples",
    "run_tracr",
    "tracr_sizes",
    "versions",
]

TRACR_COMMIT = "9ce2b8c82b6ba10e62e86cf6f390e7536d4fd2cd"
"""The tracr snapshot measured here (its last commit, 5 February 2024)."""

INSTALL = (
    "tracr is not on PyPI and is never a dependency of this library; install it beside it in "
    "its own environment: python -m venv /tmp/tracr-venv && git clone "
    "https://github.com/google-deepmind/tracr /tmp/tracr-src && /tmp/tracr-venv/bin/pip install "
    "-e . dm-haiku /tmp/tracr-src pytest hypothesis (tracr commit 9ce2b8c, dm-haiku 0.0.17 "
    "measured here), "
    "then run /tmp/tracr-venv/bin/python -m pytest tests/rasp/test_tracr_differential.py"
)

TRACR_PROGRAMS = (
    "length",
    "reverse",
    "histogram",
    "sort_unique",
    "sort",
    "sort_freq",
    "frac_prevs",
    "frac_prevs_causal",
    "shift_by_1",
    "detect_pattern",
    "pair_balance",
    "shuffle_dyck1",
    "shuffle_dyck2",
    "count_less_freq_2",
)
"""The names of :func:`tracr_programs` (known without importing tracr)."""


def _tracr_module(program: Any) -> Any:
    """The module ``program``'s classes come from: this library's tracr-compatible
    :mod:`transformer_theory.rasp.tracr.rasp`, or tracr's own ``tracr.rasp.rasp``."""
    if type(program).__module__.startswith("transformer_theory.rasp.tracr"):
        from transformer_theory.rasp.tracr import rasp as tr
    else:
        try:
            from tracr.rasp import rasp as tr
        except ImportError:
            raise ValueError(
                f"program: expected a tracr RASP expression, got {type(program).__name__}"
            ) from None
    return tr


class TracrComparison:
    """tracr's meaning of a :class:`Comparison` in a ``Select``: a None key or query raises
    ``ValueError`` (tracr's ``Comparison.__call__``), where this library's comparison says
    False (order) or compares with ``==``."""

    def __init__(self, comparison: lang.Comparison):
        self.comparison = comparison

    def __call__(self, key: Any, query: Any) -> bool:
        if key is None or query is None:
            raise ValueError(f"{'key' if key is None else 'query'} is None!")
        return self.comparison(key, query)

    def __repr__(self) -> str:
        return f"Comparison.{self.comparison.name}"


def _identity(x: Any) -> Any:
    return x


def from_tracr(program: Any, nodes: dict[int, lang.RASPExpr] | None = None) -> lang.SOp:
    """This library's RASP program for a tracr RASP program (see the module docstring), from
    tracr's own classes or this library's tracr-compatible ones
    (:mod:`transformer_theory.rasp.tracr`), with tracr's meaning of None
    (``semantics="tracr"``: a None argument makes a Map or SequenceMap None, an Aggregate's
    default is taken literally, a comparison with None raises). Labels are tracr's names where a
    program named a node, readable ones otherwise.

    ``nodes``, where given, receives every translated expression by ``id`` of its tracr node.

    Raises:
      ValueError: naming the tracr expression this translation has no counterpart for.
    """
    tr = _tracr_module(program)
    defaults = set(tr._default_name_by_class.values())
    memo: dict[int, Any] = {}

    def numerical(e) -> bool:
        return tr.is_numerical(e)

    def label(e) -> str | None:
        return None if e.name in defaults else e.name

    def sel(e) -> lang.Selector:
        if id(e) in memo:
            return memo[id(e)][1]
        if isinstance(e, tr.Select):
            pred = e.predicate
            if isinstance(pred, tr.Comparison):
                pred = TracrComparison(lang.Comparison[pred.name])
            out = lang.Select(sop(e.keys), sop(e.queries), pred, label=label(e))
        elif isinstance(e, tr.SelectorAnd):
            out = lang.SelectAnd(sel(e.fst), sel(e.snd), label=label(e))
        elif isinstance(e, tr.SelectorOr):
            out = lang.SelectOr(sel(e.fst), sel(e.snd), label=label(e))
        elif isinstance(e, tr.SelectorNot):
            out = lang.SelectNot(sel(e.inner), label=label(e))
        else:
            raise ValueError(f"program: no counterpart for tracr's {type(e).__name__} {e.label}")
        memo[id(e)] = (e, out)
        return out

    def linear_mean(e):
        """The one rewrite: ``p mean_S(f(x)) + q mean_S(g(x))`` -> ``mean_S(p f(x) + q g(x))``."""
        a, b = e.fst, e.snd
        if not all(
            isinstance(s, tr.Aggregate)
            and numerical(s)
            and isinstance(s.selector, tr.Select)
            and isinstance(s.sop, tr.Map)
            and numerical(s.sop)
            for s in (a, b)
        ):
            return None
        sa, sb = a.selector, b.selector
        same = (
            sa.keys is sb.keys
            and sa.queries is sb.queries
            and sa.predicate == sb.predicate
            and a.sop.inner is b.sop.inner
            and a.default == 0
            and b.default == 0
        )
        if not same:
            return None
        f, g, p, q = a.sop.f, b.sop.f, e.fst_fac, e.snd_fac
        step = lang.Map(
            lambda x: p * f(x) + q * g(x),
            sop(a.sop.inner),
            numerical=True,
            label=f"{label(e) or 'linear_sequence_map'}.step",
            semantics="tracr",
        )
        return lang.Aggregate(sel(sa), step, default=0, label=label(e), semantics="tracr")

    def sop(e) -> lang.SOp:
        if id(e) in memo:
            return memo[id(e)][1]
        if isinstance(e, (tr.TokensType, tr.IndicesType)):
            out = lang.tokens if isinstance(e, tr.TokensType) else lang.indices
            if numerical(e):  # tracr's validator refuses it; the meaning is the same numbers
                out = lang.Map(_identity, out, numerical=True, label=f"numerical({out.label})")
        elif isinstance(e, tr.LengthType):
            out = lang.SelectorWidth(
                lang.Select(lang.tokens, lang.tokens, lang.Comparison.TRUE), label="length"
            )
        elif isinstance(e, tr.Full):
            out = lang.Full(e.fill, numerical=numerical(e), label=label(e))
        elif isinstance(e, tr.ConstantSOp):
            out = lang.ConstantSOp(
                e.value, numerical=numerical(e), check_length=e.check_length, label=label(e)
            )
        elif isinstance(e, tr.Map):
            out = lang.Map(
                e.f, sop(e.inner), numerical=numerical(e), label=label(e), semantics="tracr"
            )
        elif isinstance(e, tr.LinearSequenceMap) and numerical(e) and linear_mean(e) is not None:
            out = linear_mean(e)
        elif isinstance(e, tr.LinearSequenceMap) and numerical(e):
            out = lang.LinearSequenceMap(
                sop(e.fst), sop(e.snd), e.fst_fac, e.snd_fac, label=label(e), semantics="tracr"
            )
        elif isinstance(e, tr.SequenceMap):
            out = lang.SequenceMap(
                e.f,
                sop(e.fst),
                sop(e.snd),
                numerical=numerical(e),
                label=label(e),
                semantics="tracr",
            )
        elif isinstance(e, tr.Aggregate):
            # an aggregate that changes its SOp's encoding (tracr's validator refuses it): the
            # SOp through an encoding-changing Map first (a numerical mean of the numbers; a
            # categorical aggregate of their categories, tracr's mean where one value is read)
            inner = sop(e.sop)
            if numerical(e) != inner.numerical:
                encoding = "numerical" if numerical(e) else "categorical"
                inner = lang.Map(
                    _identity,
                    inner,
                    numerical=numerical(e),
                    label=f"{encoding}({inner.label})",
                    semantics="tracr",
                )
            out = lang.Aggregate(
                sel(e.selector), inner, default=e.default, label=label(e), semantics="tracr"
            )
        elif isinstance(e, tr.SelectorWidth):
            out = lang.SelectorWidth(sel(e.selector), numerical=numerical(e), label=label(e))
        else:
            raise ValueError(f"program: no counterpart for tracr's {type(e).__name__} {e.label}")
        memo[id(e)] = (e, out)
        return out

    out = sop(program)
    if nodes is not None:
        nodes.update({k: v for k, (_, v) in memo.items()})
    return out


def tracr_programs(max_seq_len: int) -> dict[str, tuple[Any, list, bool]]:
    """tracr's own library programs (``tracr.compiler.lib``), as its tests build them:
    ``name -> (tracr program, vocabulary, causal)``. ``sort`` needs numerical tokens (tracr's
    ``make_sort`` adds ``min_key * i / max_seq_len`` to the key)."""
    from tracr.compiler import lib
    from tracr.rasp import rasp as tr

    programs = {
        "length": (lib.make_length(), list("abc"), False),
        "reverse": (lib.make_reverse(tr.tokens), list("abc"), False),
        "histogram": (lib.make_hist(), list("abc"), False),
        "sort_unique": (lib.make_sort_unique(tr.tokens, tr.tokens), [1, 2, 3], False),
        "sort": (
            lib.make_sort(tr.tokens, tr.tokens, max_seq_len=max_seq_len, min_key=1),
            [1, 2, 3],
            False,
        ),
        "sort_freq": (lib.make_sort_freq(max_seq_len), list("abc"), False),
        "frac_prevs": (lib.make_frac_prevs(tr.tokens == "a"), list("ab"), False),
        "frac_prevs_causal": (lib.make_frac_prevs(tr.tokens == "a"), list("ab"), True),
        "shift_by_1": (lib.shift_by(1, tr.tokens), list("abc"), False),
        "detect_pattern": (lib.detect_pattern(tr.tokens, "abc"), list("abc"), False),
        "pair_balance": (lib.make_pair_balance(tr.tokens, "(", ")"), list("()"), False),
        "shuffle_dyck1": (lib.make_shuffle_dyck(["()"]), list("()"), False),
        "shuffle_dyck2": (lib.make_shuffle_dyck2(), list("(){}"), False),
        "count_less_freq_2": (lib.make_count_less_freq(2), list("abc"), False),
    }
    assert tuple(programs) == TRACR_PROGRAMS
    return programs


def compile_tracr(
    program: Any,
    vocab: Sequence[Hashable],
    max_seq_len: int,
    causal: bool,
    mlp_exactness: int = 100,
) -> Any:
    """tracr's compiled model (its default constants: ``mlp_exactness = 100``)."""
    import jax
    from tracr.compiler import compiling

    with jax.numpy_rank_promotion("allow"):
        return compiling.compile_rasp_to_model(
            program,
            set(vocab),
            max_seq_len,
            causal=causal,
            compiler_bos="BOS",
            mlp_exactness=mlp_exactness,
        )


def tracr_sizes(model: Any) -> TracrSizes:
    """tracr's compiled model's layers, residual width (its residual labels) and parameters."""
    import jax

    leaves = jax.tree.leaves(model.params)
    return TracrSizes(
        layers=int(model.model_config.num_layers),
        width=len(model.residual_labels),
        parameters=int(sum(np.asarray(x).size for x in leaves)),
    )


def exact_through(
    program: Any,
    vocab: Sequence[Hashable],
    max_seq_len: int,
    causal: bool,
    mlp_exactness: int,
    samples: int,
    seed: int = 0,
) -> TracrExactLength:
    """tracr's model compiled for ``max_seq_len`` at ``mlp_exactness`` on ``samples`` seeded
    inputs of each length ``1..max_seq_len`` against tracr's interpreter (a causal program's
    meaning at a position is its prefix's; numbers decoded to the nearest value of the value set
    this compiler enumerates): the last length before the first wrong position, and that
    position. Positions where tracr's interpreter says None are skipped, as tracr's own tests
    skip them."""
    from tracr.rasp import rasp as tr

    model = compile_tracr(program, vocab, max_seq_len, causal, mlp_exactness)
    rng = np.random.default_rng(seed)
    near = _decoder(model, program, vocab, max_seq_len)
    for length in range(1, max_seq_len + 1):
        inputs = _seeded_inputs(rng, vocab, length, samples)
        got, _ = run_tracr(model, inputs, "float32")
        for k, xs in enumerate(inputs):
            want = tr.evaluate(program, xs)
            if causal:
                want = [tr.evaluate(program, xs[: i + 1])[i] for i in range(len(xs))]
            for i, (g, w) in enumerate(zip(got[k], want)):
                if w is not None and near(g) != near(w):
                    first = {"input": xs, "position": i, "want": repr(w), "got": repr(g)}
                    return TracrExactLength(length - 1, max_seq_len, first)
    return TracrExactLength(max_seq_len, max_seq_len, None)


def run_tracr(
    model: Any, inputs: Sequence[Sequence[Hashable]], dtype: str = "float32"
) -> tuple[list[list], list[list] | None]:
    """tracr's compiled model on ``inputs`` (its own Haiku forward, jitted and batched per length,
    its parameters cast to ``dtype``): ``(decoded, raw)`` per input and position, BOS dropped;
    ``raw`` is the unembedded number for a numerical output (None for a categorical one)."""
    import jax
    import jax.numpy as jnp

    cache = model.__dict__.setdefault("_runners", {})
    if dtype not in cache:
        params = jax.tree.map(lambda a: jnp.asarray(a, getattr(jnp, dtype)), model.params)

        def fwd(tokens):
            with jax.numpy_rank_promotion("allow"):
                return model.forward(params, tokens).unembedded_output

        cache[dtype] = jax.jit(fwd)
    run = cache[dtype]
    numerical = not hasattr(model.output_encoder, "encoding_map")
    decoded: list = [None] * len(inputs)
    raw: list = [None] * len(inputs)
    by_len: dict[int, list[int]] = {}
    for k, xs in enumerate(inputs):
        by_len.setdefault(len(xs), []).append(k)
    for _, ks in sorted(by_len.items()):
        for start in range(0, len(ks), 512):
            chunk = ks[start : start + 512]
            ids = np.array([model.input_encoder.encode(["BOS"] + list(inputs[k])) for k in chunk])
            with jax.numpy_rank_promotion("allow"):
                out = np.asarray(run(jnp.asarray(ids)), np.float64)
            for k, row in zip(chunk, out):
                row = row[1:]
                if numerical:
                    raw[k] = [float(v) for v in row]
                    decoded[k] = raw[k]
                else:
                    decoded[k] = model.output_encoder.decode([int(v) for v in row])
    return decoded, (raw if numerical else None)


def _all_inputs(vocab: Sequence, max_len: int) -> list[list]:
    return [list(t) for n in range(1, max_len + 1) for t in itertools.product(vocab, repeat=n)]


def versions() -> str:
    """The packages a comparison with tracr ran on, as a record says them:
    ``"jax 0.10.2, dm-haiku 0.0.17, numpy 2.4.6"`` (``not installed`` for a missing one)."""
    import importlib.metadata

    def version(package: str) -> str:
        try:
            return importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    return ", ".join(f"{p} {version(p)}" for p in ("jax", "dm-haiku", "numpy"))


def _seeded_inputs(
    rng: np.random.Generator, vocab: Sequence[Hashable], length: int, samples: int
) -> list[list]:
    """``samples`` inputs of ``length`` tokens drawn uniformly from ``vocab`` by ``rng``."""
    return [[vocab[i] for i in rng.integers(len(vocab), size=length)] for _ in range(samples)]


def _decoder(
    model: Any, program: Any, vocab: Sequence[Hashable], max_seq_len: int
) -> Callable[[Any], Any]:
    """How an answer of tracr's ``model`` of ``program`` is read: a numerical output as the
    nearest value of the value set this compiler enumerates for it, a categorical one as it is."""
    if hasattr(model.output_encoder, "encoding_map"):  # categorical (run_tracr decodes it)
        return lambda v: v
    return _nearest(_compile_graph._Builder(vocab, max_seq_len).node(from_tracr(program)).values)


def _nearest(values: list) -> Callable[[Any], Any]:
    nums = np.array([float(v) for v in values])

    def f(x):
        if x is None:
            return None
        return values[int(np.argmin(np.abs(nums - float(x))))]

    return f


def compare(
    name: str,
    program: Any,
    vocab: Sequence[Hashable],
    max_seq_len: int,
    causal: bool = False,
    *,
    dtype: str = "float32",
    max_reported: int = 3,
) -> dict[str, Any]:
    """``program`` (a tracr RASP program) compiled by tracr and, translated, by this compiler;
    both models and both interpreters on EVERY input over ``vocab`` up to ``max_seq_len``, every
    position, None included, the models in ``dtype``.

    Returns a record: ``inputs``, ``positions``; ``interpreters_disagree`` (positions where the
    two interpreters differ: a translation error); per side (``tracr``, ``ours``) the positions
    where the compiled model differs from its own interpreter, split into those where the
    interpreter says None (``at_none``, which tracr's tests skip) and the rest, with examples;
    ``layers`` of each, this program's attention depth, heads and residual widths; for a
    numerical output tracr's largest raw error.
    """
    import jax
    from tracr.rasp import rasp as tr

    ours = from_tracr(program)
    model = compile_tracr(program, vocab, max_seq_len, causal)
    compiled = compiler.compile(ours, vocab, max_seq_len, causal)
    inputs = _all_inputs(vocab, max_seq_len)
    numerical = compiled.output.numerical
    near = _nearest(compiled.output.values) if numerical else (lambda v: v)
    tracr_out, tracr_raw = run_tracr(model, inputs, dtype)
    ours_out = _check.run(compiled, inputs, dtype)
    rec: dict[str, Any] = {
        "program": name,
        "vocab": [repr(v) for v in vocab],
        "max_seq_len": max_seq_len,
        "causal": causal,
        "dtype": dtype,
        "inputs": len(inputs),
        "positions": sum(map(len, inputs)),
        "interpreter_none_positions": 0,
        "interpreters_disagree": 0,
        "interpreter_examples": [],
        "tracr": {"disagree": 0, "at_none": 0, "examples": []},
        "ours": {"disagree": 0, "at_none": 0, "examples": []},
    }
    err = 0.0
    with jax.numpy_rank_promotion("allow"):
        for k, xs in enumerate(inputs):
            want_t = tr.evaluate(program, xs)
            if causal:  # tracr's interpreter is non-causal: its causal meaning is the prefix's
                want_t = [tr.evaluate(program, xs[: i + 1])[i] for i in range(len(xs))]
            want_o = lang.evaluate(ours, xs)
            for i in range(len(xs)):
                t, o = near(want_t[i]), near(want_o[i])
                rec["interpreter_none_positions"] += o is None
                if t != o:
                    rec["interpreters_disagree"] += 1
                    if len(rec["interpreter_examples"]) < max_reported:
                        rec["interpreter_examples"].append(
                            {"input": xs, "position": i, "tracr": repr(t), "ours": repr(o)}
                        )
                for side, got, want in (
                    ("tracr", near(tracr_out[k][i]), t),
                    ("ours", ours_out[k][i], o),
                ):
                    if got != want:
                        s = rec[side]
                        s["disagree"] += 1
                        s["at_none"] += want is None
                        if len(s["examples"]) < max_reported:
                            s["examples"].append(
                                {"input": xs, "position": i, "want": repr(want), "got": repr(got)}
                            )
                if tracr_raw is not None and o is not None:
                    err = max(err, abs(tracr_raw[k][i] - float(Fraction(want_o[i]))))
    sizes = compiled.sizes()
    rec["layers"] = {"tracr": int(model.model_config.num_layers), "ours": sizes["layers"]}
    rec["attention_depth"] = sizes["attention_depth"]
    rec["attention_sublayers_ours"] = sizes["attention_sublayers"]
    rec["heads"] = {
        "tracr_per_layer_max": int(model.model_config.num_heads),
        "ours": sizes["heads"],
    }
    rec["residual_width"] = {"tracr": len(model.residual_labels), "ours": sizes["residual_width"]}
    if tracr_raw is not None:
        rec["tracr_max_abs_error"] = err
    return rec


def failure_length(
    program: Any,
    vocab: Sequence[Hashable],
    max_seq_len: int,
    lengths: Sequence[int],
    *,
    samples: int = 16,
    dtype: str = "float32",
    seed: int = 0,
) -> dict[str, Any]:
    """tracr's model of ``program`` compiled for ``max_seq_len`` with its default constants, on
    ``samples`` seeded inputs of each of ``lengths`` against its own interpreter (numerical
    outputs decoded to the nearest value of the value set this compiler enumerates): the first
    length with a wrong position, and per length the wrong inputs and the largest raw error of a
    numerical output."""
    from tracr.rasp import rasp as tr

    model = compile_tracr(program, vocab, max_seq_len, False)
    near = _decoder(model, program, vocab, max_seq_len)
    rng = np.random.default_rng(seed)
    rows = []
    for n in lengths:
        inputs = _seeded_inputs(rng, vocab, n, samples)
        got, raw = run_tracr(model, inputs, dtype)
        wrong, err = 0, 0.0
        for k, xs in enumerate(inputs):
            want = tr.evaluate(program, xs)
            wrong += any(near(g) != near(w) for g, w in zip(got[k], want))
            if raw is not None:
                err = max(err, max(abs(r - w) for r, w in zip(raw[k], want)))
        rows.append({"length": n, "wrong_inputs": wrong, "max_abs_error": err if raw else None})
    first = next((r["length"] for r in rows if r["wrong_inputs"]), None)
    return {
        "max_seq_len": max_seq_len,
        "dtype": dtype,
        "samples_per_length": samples,
        "first_failure": first,
        "rows": rows,
        "constants": "tracr defaults: mlp_exactness 100, softmax_coldness 100",
        "checked_up_to": max(lengths) if first is None else first,
        "finite": math.isfinite(max((r["max_abs_error"] or 0.0) for r in rows)),
    }


def ours_on_samples(
    program: Any,
    vocab: Sequence[Hashable],
    max_seq_len: int,
    lengths: Sequence[int],
    samples: int,
) -> dict[str, Any]:
    """This compiler's model of the translated ``program`` in float32 on ``samples`` seeded
    inputs of each length (:func:`rasp.check`'s draws), every node at every position."""
    compiled = compiler.compile(from_tracr(program), vocab, max_seq_len)
    rec = _check.check(
        compiled,
        dtype="float32",
        lengths=list(lengths),
        max_inputs=0,
        samples_per_length=samples,
        max_reported=1,
    )
    return {
        "inputs": rec["inputs_checked"],
        "wrong_positions": rec["output_disagreements"],
        "exact": rec["exact"],
        "min_margin": rec["min_margin"],
    }
