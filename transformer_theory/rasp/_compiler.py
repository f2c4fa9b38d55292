"""The compiler: RASP program -> graph -> value sets -> residual layout -> heads and MLPs ->
:class:`~transformer_theory.params.ModelParams`, run by
:func:`transformer_theory.core.forward_trace`.

The input is ``BOS x_0 .. x_{n-1}``: token ids ``0..|V|-1`` for the vocabulary, ``|V|`` for BOS
(the model's ``vocab_size`` is ``|V| + 1``), and the library's one-hot positional code of
``max_seq_len + 1`` positions (position 0 is BOS). BOS is what an empty selection attends to.

**Residual layout** (labelled, :attr:`CompiledProgram.labels`): the token one-hot ``tokens:v`` and
``bos``, the positions ``position:0`` (BOS) and ``indices:i`` (``i = position - 1``), then one
block per materialized node: a one-hot ``label:v`` per value of a categorical SOp, one
dimension ``label`` for a numerical SOp. Nothing is overwritten, so the final stream holds every
node's value at every position (what :func:`~transformer_theory.rasp.check` compares).

**Attention** (one head per ``Aggregate`` / ``SelectorWidth``; ``w_qk[key_dim, query_dim]``,
heads summed, softmax). The selector is a sum of ``m`` bilinear terms (one per conjunct of a
``SelectAnd``; a conjunct reading one key SOp and one query SOp is one table, any boolean
combination of its leaves; one reading several reads tuple SOps built by an MLP), each adding
``beta`` where it holds: a selected key scores ``beta m``, an unselected one at most
``beta (m - 1)``, BOS ``beta (m - 1/2)`` (mean) or ``beta m`` (width), and a BOS query scores BOS
``2 beta m`` (so BOS keeps its own, known stream). Single-input Maps of exact categorical SOps
are absorbed into the tables (``f`` applied to the table's rows), so they need no MLP. The value
of BOS is set so that an empty selection reads 0 (numerical) or the declared default
(categorical, its own one-hot dimension: tracr's issue #25 is an empty selection read as 0).

**The law for beta** (stated, not tuned). For a mean head with ``N = max_seq_len`` the weight off
the intended keys is at most ``eps_w = (N + 1) exp(-beta/2)`` (``w >= 1`` selected keys score
``beta`` against BOS's ``beta/2`` and the others' 0; an empty selection puts ``1 - N exp(-beta/2)``
on BOS), so a value of size ``<= V`` moves by at most ``2 V eps_w``. The head meets its tolerance
``tau`` with::

    beta = 2 ln(2 V (N + 1) / tau)

``tau = 1/12`` for a categorical head (a lookup unit reading up to three one-hot inputs decides
exactly while each is within ``1/4`` of its sum's threshold: ``3 tau <= 1/4``) and
``tau = g / (4 m)`` for a numerical head (``g`` the smallest gap of its value set, ``m`` the
number of numerical heads, whose errors can add along a chain). A ``SelectorWidth`` head writes
``x = 1/(w + 1)`` (BOS's weight among ``w + 1`` equal scores) with error ``<= N exp(-beta)``;
its decoder needs ``g/4`` with ``g = 1/((N + 1)(N + 2))``, so ``beta = ln(4 N (N + 1) (N + 2))``.

**MLPs** (one hidden layer, ReLU, ``b2 = 0``), every unit a clipped ramp
``step(z; lo, hi) = relu((z - lo)/(hi - lo)) - relu((z - hi)/(hi - lo))``, exactly 0 below ``lo``
and exactly 1 above ``hi``:

- a table over up to three categorical inputs: one step per combination ``c``,
  ``z = sum_i x_i[c_i]``, ``lo = k - 3/4``, ``hi = k - 1/4`` (``k`` inputs), writing ``f(c)``;
- one numerical input with sorted values ``s_1 < .. < s_m`` (beside up to two exact categorical
  ones, whose combination adds ``M (z - k)`` to the ramp's input, ``M`` the value range plus the
  ramp, so a combination that does not hold keeps the ramp at 0): ``f(s_1)`` from a unit that is
  1 at every token, plus ``f(s_{k+1}) - f(s_k)`` times a step at the midpoint ``t_k`` wherever
  ``f`` changes, ramping over half the gap (``hi - lo = (s_{k+1} - s_k)/2``, slope ``2/gap``: the
  discretisation constant follows from the value set, so ``SelectorWidth`` stays exact to
  ``N = max_seq_len``; a fixed slope ``c``, tracr's "large number", is guaranteed exact only
  while ``N (N + 1) <= c``). The output weights carry any sign: a negative ``f`` is not clipped
  (tracr PR #13).

**The rest of tracr's language**, each on the laws above:

- a numerical key or query of a ``Select``, and the second number of a ``SequenceMap`` of two
  numerical SOps (``LinearSequenceMap`` included), is read through a categorical copy: an MLP of
  the one-numerical-input table (one step per value at the midpoints, ramping over half the
  gap), exact while the number is within a quarter of its gap of its value (what the mean heads'
  ``tau`` guarantees); the copy costs one MLP sublayer before the table that reads it;
- a numerical aggregate's non-zero ``default`` ``d`` is BOS's value (an empty selection reads
  it), and the law's ``V`` is ``max(|values|, |d|)``;
- ``Full`` / ``ConstantSOp`` are tables over the indices (absorbed into the heads that read
  them); a ``ConstantSOp`` is compiled only where its meaning covers every length ``1..N``;
- a numerical ``SelectorWidth`` is the same head and decoder, the decoder writing the number
  ``w`` instead of a one-hot;
- ``causal="prefix"`` compiles :func:`~transformer_theory.rasp._language.prefix_program` (every
  selector AND-ed with ``j <= i``) under the causal mask, the mask itself standing for that
  conjunct: BOS is key 0 of every query, so the heads and their laws are unchanged, and a
  ``SelectorWidth`` counts the selected keys of the prefix.

Every unit is switched off at BOS by a weight on the ``bos`` dimension computed from BOS's known
stream, so BOS stays what the bookkeeping says. Chains of Maps are fused into one table over the
nearest attention outputs (or tokens, indices), so no program pays a layer for an MLP that can
share the previous attention's layer, and each head sits in the first layer after its inputs.
The layers are then the longest chain of the dependency graph counted in sublayers: one per
``Aggregate`` / ``SelectorWidth`` on it (the attention depth of Weiss et al. 2021,
:func:`attention_depth`, a lower bound), plus one for each MLP table on it that must run before
an attention with no attention before it in its layer (sort's ``(key, index)`` pairs, the
categorical copy of a number). They equal the attention depth where no such table lies on the
longest chain (every library program but ``sort`` and ``shuffle_dyck2``); sort-then-reverse has
attention depth 3 and compiles to 4 layers, all 4 with attention
(``tests/rasp/test_rasp.py``).

The format does not enter the constants (no constant buys back a roundoff); it enters the
predicted limit (:func:`transformer_theory.rasp.predicted_exact`).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

import jax.numpy as jnp
import numpy as np

from transformer_theory.params import (
    AttentionParams,
    LayerParams,
    MLPParams,
    ModelConfig,
    ModelParams,
)
from transformer_theory.rasp import _language as L

__all__ = ["CompiledProgram", "compile_program", "attention_depth", "MAX_VALUE_SET", "MAX_TABLE"]

MAX_VALUE_SET = 200_000
"""Largest value set the compiler enumerates (numerical means of long inputs grow like ``N^2``)."""
MAX_TABLE = 4096
"""Largest lookup table (combinations of categorical inputs) one fused MLP node may hold."""
CATEGORICAL_TOLERANCE = Fraction(1, 12)


def _sorted(values: set) -> list:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=repr)


@dataclasses.dataclass(eq=False)
class Node:
    """One node of the compiled graph: a base input, an MLP (table) or an attention head."""

    label: str
    op: str  # "tokens" | "indices" | "mlp" | "mean" | "width"
    numerical: bool
    values: list
    expect: Callable[[dict], list]  # the node's values from the interpreter's trace
    inputs: list[Node] = dataclasses.field(default_factory=list)
    fn: Callable[..., Any] | None = None
    terms: list[tuple[Node, Node, Callable[[Any, Any], bool]]] | None = None
    value: Node | None = None
    value_base: Node | None = None
    value_fn: Callable[[Any], Any] | None = None
    default: Any = None
    source: L.RASPExpr | None = None
    layer: int = -1
    frontier: list[Node] | None = None
    materialized: bool = False
    dims: slice | None = None
    beta: float | None = None
    tolerance: float | None = None
    ramps: list | None = None

    def __repr__(self) -> str:
        kind = "numerical" if self.numerical else "categorical"
        n = len(self.values)
        return f"Node({self.label!r}, {self.op}, {kind}, {n} values, layer {self.layer})"

    def dim(self, v: Any) -> int:
        """The residual dimension of value ``v`` (categorical) or of the number (numerical)."""
        if self.numerical:
            return self.dims.start
        return self.dims.start + self._index[v]

    def finish(self) -> None:
        self._index = {v: i for i, v in enumerate(self.values)}


def _numeric(values: set, label: str) -> list:
    if None in values:
        raise ValueError(
            f"{label}: its value is None at some position (tracr's meaning: a Map or SequenceMap "
            "with a None argument is None), and a numerical dimension holds no None: make it "
            "categorical, or give the aggregate that makes the None a default"
        )
    out = set()
    for v in values:
        try:
            out.add(Fraction(v))
        except (TypeError, ValueError):
            raise ValueError(f"{label}: numerical value {v!r} is not a number") from None
    return sorted(out)


def _mean_values(values: list, n: int, label: str, default: Any = 0) -> list:
    """Every mean of a multiset of ``1..n`` values (and ``default``, the empty selection)."""
    sums = {Fraction(0)}
    out = {Fraction(default)}
    for w in range(1, n + 1):
        sums = {s + v for s in sums for v in values}
        out |= {s / w for s in sums}
        if len(out) > MAX_VALUE_SET:
            raise ValueError(
                f"{label}: the numerical mean takes more than {MAX_VALUE_SET} values at "
                f"max_seq_len {n}; lower max_seq_len"
            )
    return sorted(out)


class _Builder:
    def __init__(self, vocab: Sequence[Hashable], n: int, causal: bool = False):
        self.vocab, self.n, self.causal = list(vocab), n, causal
        self.memo: dict[int, Node] = {}
        self.clean_memo: dict[int, Node] = {}
        self.nodes: list[Node] = []
        self.labels: set[str] = set()

    def add(self, node: Node) -> Node:
        """Append ``node``, its label made unique (``label#2``, ...) among the compiled nodes."""
        base, k = node.label, 1
        while node.label in self.labels:
            k += 1
            node.label = f"{base}#{k}"
        self.labels.add(node.label)
        node.finish()
        self.nodes.append(node)
        return node

    def mlp_values(self, label: str, fn, inputs: list[Node], numerical: bool) -> list:
        out = set()
        for combo in itertools.product(*(i.values for i in inputs)):
            try:
                out.add(fn(*combo))
            except Exception as err:  # a user's function on a value of the value set
                raise ValueError(f"{label}: f{combo!r} raised {err!r}") from None
        return _numeric(out, label) if numerical else _sorted(out)

    def node(self, e: L.SOp) -> Node:
        if e.id in self.memo:
            return self.memo[e.id]

        def expect(t, e=e):
            return t[e.id]

        if isinstance(e, L._Tokens):
            # the given order: token id k is vocab[k], and its one-hot is dimension k
            nd = Node("tokens", "tokens", False, list(self.vocab), expect, source=e)
        elif isinstance(e, L._Indices):
            nd = Node("indices", "indices", False, list(range(self.n)), expect, source=e)
        elif isinstance(e, (L.Full, L.ConstantSOp)):
            nd = self.constant(e, expect)
        elif isinstance(e, (L.Map, L.SequenceMap)):
            ins = [self.node(e.inner)] if isinstance(e, L.Map) else [self.node(e.a), self.node(e.b)]
            if len(ins) == 2 and all(i.numerical for i in ins):
                # a table reads one number: the one with fewer values through a categorical copy
                k = int(len(ins[1].values) > len(ins[0].values))
                ins[k] = self.categorical(ins[k])
            fn = functools.partial(L.apply, e)
            vals = self.mlp_values(e.label, fn, ins, e.numerical)
            nd = Node(e.label, "mlp", e.numerical, vals, expect, ins, fn, source=e)
        elif isinstance(e, L.Aggregate):
            terms = self.selector(e.selector)
            value = self.node(e.sop)
            if not value.numerical:
                vals = _sorted(set(value.values) | {e.default})
            else:
                default = e.default
                if default is None:  # tracr's meaning: None where the selection is empty
                    if self.possibly_empty(e.selector):
                        raise ValueError(
                            f"{e.label}: a numerical aggregate with default None means None "
                            "where its selection is empty (tracr's meaning), and a numerical "
                            "dimension holds no None: give it default=0"
                        )
                    default = 0
                vals = _mean_values(value.values, self.n, e.label, default)
            base, fn = _absorb(self.clean(value))
            nd = Node(
                e.label,
                "mean",
                e.numerical,
                vals,
                expect,
                terms=terms,
                value=value,
                value_base=base,
                value_fn=fn,
                default=(e.default or 0) if e.numerical else e.default,
                source=e,
            )
        elif isinstance(e, L.SelectorWidth):
            terms = self.selector(e.selector)
            scratch = self.add(
                Node(
                    f"{e.label}.scratch",
                    "width",
                    True,
                    [Fraction(1, k + 1) for k in range(self.n, -1, -1)],
                    lambda t, e=e: [Fraction(1, w + 1) for w in t[e.id]],
                    terms=terms,
                    source=e,
                )
            )
            widths = list(range(self.n + 1))
            nd = Node(
                e.label,
                "mlp",
                e.numerical,
                [Fraction(w) for w in widths] if e.numerical else widths,
                expect,
                [scratch],
                lambda x: int(1 / Fraction(x)) - 1,
                source=e,
            )
        else:
            raise ValueError(f"program: unknown operation {e!r}")
        self.memo[e.id] = self.add(nd)
        return nd

    def constant(self, e: L.Full | L.ConstantSOp, expect) -> Node:
        """A constant as a table over the indices (absorbed into the tables that read it)."""
        if isinstance(e, L.Full):
            values = [e.fill] * self.n
        else:
            k = len(e.values)
            if e.check_length or k < self.n:
                where = f"of length {k}" if e.check_length else f"up to length {k}"
                raise ValueError(
                    f"{e.label}: a constant of length {k} has a meaning only on inputs {where}; "
                    f"a model reading lengths 1..{self.n} would claim values it has not"
                    + (" (give check_length=False)" if e.check_length else "")
                )
            values = list(e.values)

        def fn(i, values=values):
            return values[i]

        vals = self.mlp_values(e.label, fn, [self.node(L.indices)], e.numerical)
        return Node(e.label, "mlp", e.numerical, vals, expect, [self.node(L.indices)], fn, source=e)

    def possibly_empty(self, sel: L.Selector) -> bool:
        """Can ``sel`` select no key at some query (False only where it provably cannot: a
        ``Select`` true on every pair of its value sets, or on every value paired with itself
        where keys and queries are the same SOp, since key ``i`` is always there, causal mask
        included; an ``Or`` with such a side)."""
        if isinstance(sel, L.SelectOr):
            return self.possibly_empty(sel.a) and self.possibly_empty(sel.b)
        if not isinstance(sel, L.Select):
            return True
        keys, queries = self.node(sel.keys).values, self.node(sel.queries).values
        try:
            if all(sel.predicate(k, q) for k in keys for q in queries):
                return False
            return not (sel.keys is sel.queries and all(sel.predicate(v, v) for v in keys))
        except Exception:  # a predicate that raises on a value: no proof
            return True

    def clean(self, nd: Node) -> Node:
        """An exact one-hot copy of an aggregate (read by later attention)."""
        if nd.op != "mean":
            return nd
        return self.copy(nd, "clean")

    def categorical(self, nd: Node) -> Node:
        """A one-hot copy of a numerical node (an MLP: one step per value, at the midpoints)."""
        return self.copy(nd, "categorical") if nd.numerical else nd

    def copy(self, nd: Node, what: str) -> Node:
        key = (what, id(nd))
        if key not in self.clean_memo:
            self.clean_memo[key] = self.add(
                Node(
                    f"{nd.label}.{what}",
                    "mlp",
                    False,
                    nd.values,
                    nd.expect,
                    [nd],
                    _identity,
                    source=nd.source,
                )
            )
        return self.clean_memo[key]

    def selector(self, sel: L.Selector) -> list[tuple[Node, Node, Callable]]:
        """The selector as AND-ed score terms ``(key node, query node, predicate)``: a head
        scores ``beta`` times the number of terms that hold, so it selects where all hold. A
        conjunct whose leaves read one key SOp and one query SOp is one bilinear table (any
        boolean combination of them); one that reads several becomes a table over tuple SOps
        (an MLP). Single-input Maps of categorical SOps are absorbed into the table."""
        terms = []
        for conj in _conjuncts(sel):
            if self.causal and getattr(conj, "is_causal_mask", False):
                continue  # the causal mask selects j <= i already
            leaves = conj.leaves()
            keys = list({lf.keys.id: lf.keys for lf in leaves}.values())
            queries = list({lf.queries.id: lf.queries for lf in leaves}.values())
            kpos = {e.id: i for i, e in enumerate(keys)}
            qpos = {e.id: i for i, e in enumerate(queries)}

            def pred(
                kv, qv, conj=conj, leaves=leaves, keys=keys, queries=queries, kpos=kpos, qpos=qpos
            ):
                kt = (kv,) if len(keys) == 1 else kv
                qt = (qv,) if len(queries) == 1 else qv
                bits = {
                    lf.id: lf.predicate(kt[kpos[lf.keys.id]], qt[qpos[lf.queries.id]])
                    for lf in leaves
                }
                return conj.combine(bits)

            kb, kf = _absorb(self.tuple_node(keys, conj))
            qb, qf = _absorb(self.tuple_node(queries, conj))
            terms.append((kb, qb, lambda k, q, p=pred, kf=kf, qf=qf: p(kf(k), qf(q))))
        return terms

    def tuple_node(self, sops: list[L.SOp], sel: L.Selector) -> Node:
        parts = [self.categorical(self.clean(self.node(s))) for s in sops]
        if len(parts) == 1:
            return parts[0]
        label = f"{sel.label}.tuple(" + ",".join(s.label for s in sops) + ")"
        key = ("tuple", id(sel), *(s.id for s in sops))
        if key in self.clean_memo:
            return self.clean_memo[key]

        def fn(*vs):
            return tuple(vs)

        vals = self.mlp_values(label, fn, parts, False)
        nd = self.add(
            Node(
                label,
                "mlp",
                False,
                vals,
                lambda t, ps=parts: [tuple(v) for v in zip(*(p.expect(t) for p in ps))],
                parts,
                fn,
            )
        )
        self.clean_memo[key] = nd
        return nd


def _identity(x: Any) -> Any:
    return x


def _conjuncts(sel: L.Selector) -> list[L.Selector]:
    if type(sel) is L.SelectAnd:
        return _conjuncts(sel.a) + _conjuncts(sel.b)
    return [sel]


def _absorb(nd: Node) -> tuple[Node, Callable[[Any], Any]]:
    """``(base, f)`` with ``nd = f(base)`` through single-input Maps of exact categorical nodes:
    a head reads ``base`` and applies ``f`` inside its (bilinear or value) table, so the Map
    needs no MLP of its own. A raw aggregate (its ``.clean`` copy) is never looked through."""
    fns = []
    while nd.op == "mlp" and len(nd.inputs) == 1:
        inner = nd.inputs[0]
        if inner.numerical or inner.op == "mean":
            break
        fns.append(nd.fn)
        nd = inner

    def f(v):
        for fn in reversed(fns):
            v = fn(v)
        return v

    return nd, f


def attention_depth(program: L.SOp) -> int:
    """The attention depth of Weiss et al. 2021: the longest chain of ``Aggregate`` /
    ``SelectorWidth`` operations in the program's dependency graph, a lower bound on the attention
    layers of any compilation that gives each such operation one head."""
    memo: dict[int, int] = {}

    def depth(e: L.RASPExpr) -> int:
        if e.id not in memo:
            below = max((depth(c) for c in e.children()), default=0)
            memo[e.id] = below + isinstance(e, (L.Aggregate, L.SelectorWidth))
        return memo[e.id]

    return depth(program)


def _feasible(frontier: list[Node]) -> bool:
    """Can one hidden layer read ``frontier`` exactly: up to three categorical inputs, or one
    numerical input beside up to two exact categorical ones (not a raw aggregate, whose error
    the numerical ramp's large weight would amplify)."""
    nums = [f for f in frontier if f.numerical]
    cats = [f for f in frontier if not f.numerical]
    combos = math.prod(len(f.values) for f in cats)
    if len(nums) > 1 or combos > MAX_TABLE:
        return False
    if nums:
        return (
            len(cats) <= 2
            and all(f.op != "mean" for f in cats)
            and (combos * len(nums[0].values) <= MAX_TABLE * 8)
        )
    return len(cats) <= 3


def _choose_frontier(nd: Node) -> list[Node] | None:
    """The inputs of ``nd``'s table: for each direct input, itself (materialized, one layer
    earlier if it is an MLP) or its own frontier (fused): the feasible choice of least layer,
    then fewest inputs."""
    options = []
    for i in nd.inputs:
        opts = [[i]]
        if i.op == "mlp" and i.frontier is not None:
            opts.insert(0, i.frontier)
        options.append(opts)
    best = None
    for choice in itertools.product(*options):
        fr: list[Node] = []
        for part in choice:
            fr += [f for f in part if f not in fr]
        if not _feasible(fr):
            continue
        cost = (max(_avail_mlp(f) for f in fr), len(fr))
        if best is None or cost < best[0]:
            best = (cost, fr)
    return None if best is None else best[1]


def _evaluate_fused(node: Node, assignment: dict[int, Any]) -> Any:
    if id(node) in assignment:
        return assignment[id(node)]
    return node.fn(*(_evaluate_fused(i, assignment) for i in node.inputs))


@dataclasses.dataclass(repr=False)
class CompiledProgram:
    """A compiled RASP program.

    Attributes:
      program: the RASP program (its output SOp).
      vocab: the input vocabulary (token id ``i`` is ``vocab[i]``; BOS is id ``len(vocab)``).
      max_seq_len: ``N``, the longest input (the model's ``seq_len`` is ``N + 1``: BOS first).
      causal: compiled under a causal mask.
      weights: the model with NumPy float64 leaves (use :meth:`params` for JAX arrays).
      labels: the residual dimensions' names.
      output: the node the unembedding reads; ``output_values`` its classes (categorical) or
        ``None`` (numerical: one logit, the number itself).
      unembedding: ``W_O`` of shape ``(C, D)``.
      nodes: every node of the compiled graph (materialized ones have ``dims``).
      attention_depth: Weiss et al. 2021's lower bound on the attention layers.
      constants: the per-head ``beta`` and tolerance, and the MLP ramp law, as a record.
      meaning: ``"full"`` (the program's meaning) or ``"prefix"`` (compiled with
        ``causal="prefix"``: ``program`` is then :func:`~transformer_theory.rasp._language.
        prefix_program` of the given one, whose meaning is the causal one).
    """

    program: L.SOp
    vocab: tuple
    max_seq_len: int
    causal: bool
    weights: ModelParams
    labels: tuple[str, ...]
    output: Node
    output_values: tuple | None
    unembedding: np.ndarray
    nodes: list[Node]
    attention_depth: int
    constants: dict
    meaning: str = "full"

    def __repr__(self) -> str:
        return f"CompiledProgram({self.program.label!r}: {self.summary()})"

    def summary(self) -> str:
        """One line of the sizes, e.g. ``2 layers (2 attention, attention depth 2), 2 heads,
        width 22, 5668 parameters, max_seq_len 4`` (singulars where a count is 1)."""
        z = self.sizes()

        def n(k: int, word: str) -> str:
            return f"{k} {word}{'' if k == 1 else 's'}"

        return (
            f"{n(z['layers'], 'layer')} ({z['attention_sublayers']} attention, attention depth "
            f"{z['attention_depth']}), {n(z['heads'], 'head')}, width {z['residual_width']}, "
            f"{n(z['parameters'], 'parameter')}, max_seq_len {self.max_seq_len}"
            + (", causal" if self.causal else "")
        )

    def params(self, dtype: Any = jnp.float64) -> ModelParams:
        """The model's :class:`ModelParams` in ``dtype`` (float64 needs ``jax_enable_x64``)."""
        return _cast(self.weights, dtype)

    @property
    def config(self) -> ModelConfig:
        return self.weights.config

    def token_ids(self, xs: Sequence[Hashable]) -> np.ndarray:
        """``BOS x_0 .. x_{n-1}`` as the model's token ids (ValueError for a foreign token)."""
        index = {v: i for i, v in enumerate(self.vocab)}
        bad = [x for x in xs if x not in index]
        if bad:
            raise ValueError(f"xs: tokens {bad[:3]} are not in the vocabulary {list(self.vocab)}")
        if len(xs) > self.max_seq_len:
            raise ValueError(f"xs: length {len(xs)} exceeds max_seq_len {self.max_seq_len}")
        return np.array([len(self.vocab)] + [index[x] for x in xs], np.int32)

    def embed(self, xs: Sequence[Hashable], dtype: Any = np.float64) -> np.ndarray:
        """The first ``n + 1`` rows of the length-``N + 1`` embedding (the library's one-hot code
        is laid out for the sequence's own length, so a shorter input is given as rows)."""
        ids = self.token_ids(xs)
        cfg = self.config
        h = np.zeros((len(ids), cfg.width), dtype)
        h[np.arange(len(ids)), ids] = 1
        h[np.arange(len(ids)), cfg.vocab_size + np.arange(len(ids))] = 1
        return h

    def sizes(self) -> dict[str, int]:
        """Layers, attention / MLP sublayers in use, heads, residual width, parameters."""
        heads = [n for n in self.nodes if n.op in ("mean", "width")]
        mlp_layers = {n.layer for n in self.nodes if n.op == "mlp" and n.materialized}
        arrays = [x for x in _leaves(self.weights)]
        return {
            "layers": self.config.depth,
            "attention_sublayers": len({n.layer for n in heads}),
            "mlp_sublayers": len(mlp_layers),
            "heads": len(heads),
            "residual_width": self.config.width,
            "mlp_hidden": self.config.mlp_hidden or 0,
            "parameters": int(sum(x.size for x in arrays)),
            "nonzero_parameters": int(sum(np.count_nonzero(np.asarray(x)) for x in arrays)),
            "attention_depth": self.attention_depth,
        }


def _leaves(params: ModelParams) -> list:
    import jax

    return jax.tree.leaves(params)


def _cast(params: ModelParams, dtype: Any) -> ModelParams:
    import jax

    return jax.tree.map(lambda x: jnp.asarray(x, dtype), params)


def compile_program(
    program: L.SOp,
    vocab: Sequence[Hashable],
    max_seq_len: int,
    causal: bool = False,
    *,
    softmax_scale: float | None = None,
    mlp_slope: float | None = None,
) -> CompiledProgram:
    """Compile ``program`` into :class:`~transformer_theory.params.ModelParams`.

    Args:
      program: the output SOp.
      vocab: the input tokens (hashable, distinct).
      max_seq_len: ``N``, the longest input the model reads.
      causal: ``True``: compile under a causal mask, refusing (naming the operation and the
        input) a program whose selectors pick a later key on some input (its meaning would
        change); ``"prefix"``: under a causal mask with the causal meaning (tracr's: every
        selector masked to keys ``j <= i``, so a ``SelectorWidth`` counts the prefix), compiled
        as :func:`~transformer_theory.rasp._language.prefix_program`, whose meaning that is.
      softmax_scale: override every head's ``beta`` (the law of the module docstring chooses it
        per head otherwise): to measure a construction constant's precision limit.
      mlp_slope: override the discretisation law: every numerical step ramps over ``1/slope``
        (tracr's "large_number"), instead of half the local gap.

    Returns:
      A :class:`CompiledProgram`.
    """
    if not isinstance(program, L.SOp):
        raise ValueError(f"program: expected a RASP SOp, got {type(program).__name__}")
    vocab = list(vocab)
    if not vocab or len(set(vocab)) != len(vocab):
        raise ValueError(f"vocab: expected distinct tokens, got {vocab}")
    if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, int) or max_seq_len < 1:
        raise ValueError(f"max_seq_len: expected a positive integer, got {max_seq_len!r}")
    for name, v in (("softmax_scale", softmax_scale), ("mlp_slope", mlp_slope)):
        if v is not None and not (isinstance(v, (int, float)) and 0 < v < math.inf):
            raise ValueError(f"{name}: expected a positive number, got {v!r}")
    if causal not in (False, True, "prefix"):
        raise ValueError(f"causal: expected False, True or 'prefix', got {causal!r}")
    meaning = "prefix" if causal == "prefix" else "full"
    if meaning == "prefix":  # the program whose meaning is the causal one (every selector masked)
        program = L.prefix_program(program)
    N = max_seq_len
    b = _Builder(vocab, N, bool(causal))
    out = b.node(program)
    if causal is True:
        _refuse_noncausal(b.nodes, program, vocab, N)
    _refuse_undefined(b.nodes, program, vocab, N)
    nodes = b.nodes  # children before parents
    # -- layers and fusion
    for nd in nodes:
        if nd.op in ("tokens", "indices"):
            nd.layer, nd.materialized = 0, True
        elif nd.op in ("mean", "width"):
            ins = [x for t in nd.terms for x in t[:2]]
            ins += [nd.value_base] if nd.value_base is not None else []
            for x in ins:
                x.materialized = True
            nd.layer = max((_avail_attn(x) for x in ins), default=0)
            nd.materialized = True
        else:
            fr = _choose_frontier(nd)
            if fr is None:
                raise ValueError(
                    f"{nd.label}: a one-hidden-layer table reads one numerical input (beside up "
                    "to two exact categorical ones) or up to three categorical ones, at most "
                    f"{MAX_TABLE} combinations; got {[f.label for f in nd.inputs]}: Map a "
                    "numerical input to a category first"
                )
            nd.frontier = fr
            nd.layer = max(_avail_mlp(f) for f in fr)
    for nd in nodes:
        if nd.op == "mlp" and nd.frontier is not None:
            for f in nd.frontier:
                f.materialized = True
    out.materialized = True
    depth = 1 + max(n.layer for n in nodes)
    # -- layout
    V = len(vocab)
    labels = [f"tokens:{v!r}" for v in vocab] + ["bos", "position:0 (BOS)"]
    labels += [f"indices:{i}" for i in range(N)]
    for nd in nodes:
        if nd.op in ("tokens", "indices"):
            continue
        if nd.materialized:
            start = len(labels)
            labels += [nd.label] if nd.numerical else [f"{nd.label}:{v!r}" for v in nd.values]
            nd.dims = slice(start, len(labels))
    for nd in nodes:
        if nd.op == "tokens":
            nd.dims = slice(0, V)
        elif nd.op == "indices":
            nd.dims = slice(V + 2, V + 2 + N)
    D = len(labels)
    bos, real = V, list(range(V))
    # -- constants
    numeric_heads = [n for n in nodes if n.op == "mean" and n.numerical]
    m = max(1, len(numeric_heads))
    for nd in nodes:
        if nd.op == "mean":
            if nd.numerical:
                vmax = float(max(abs(v) for v in [*nd.value.values, nd.default])) or 1.0
                tau = _min_gap(nd.values) / (4 * m)
            else:
                vmax, tau = 1.0, float(CATEGORICAL_TOLERANCE)
            nd.tolerance = tau
            nd.beta = softmax_scale or 2 * math.log(2 * vmax * (N + 1) / tau)
        elif nd.op == "width":
            nd.tolerance = 1 / (4 * (N + 1) * (N + 2))
            nd.beta = softmax_scale or math.log(4 * N * (N + 1) * (N + 2))
    # -- weights, layer by layer, tracking BOS's stream exactly
    x_bos = np.zeros(D)
    x_bos[bos] = 1
    x_bos[V + 1] = 1
    layers, hidden = [], []
    for layer in range(depth):
        heads = [n for n in nodes if n.op in ("mean", "width") and n.layer == layer]
        wqk, wv = [], []
        for nd in heads:
            q, v = _head(nd, D, bos, real, x_bos)
            wqk.append(q)
            wv.append(v)
        for nd in heads:
            x_bos[nd.dims] = 0
            if nd.op == "width":
                x_bos[nd.dims] = 1
            elif not nd.numerical:
                x_bos[nd.dim(nd.default)] = 1
            else:
                x_bos[nd.dims.start] = float(nd.default)
        if not heads:
            wqk, wv = [np.zeros((D, D))], [np.zeros((D, D))]
        units = []
        for nd in nodes:
            if nd.op == "mlp" and nd.materialized and nd.layer == layer:
                units += _mlp_units(nd, D, real, mlp_slope)
        hidden.append(units)
        layers.append((np.stack(wqk), np.stack(wv)))
    F = max(1, max(len(u) for u in hidden))
    param_layers = []
    for (wqk, wv), units in zip(layers, hidden):
        w1, b1, w2 = np.zeros((F, D)), np.zeros(F), np.zeros((D, F))
        for k, (w, c, o) in enumerate(units):
            w1[k], b1[k], w2[:, k] = w, c, o
            pre = w @ x_bos + c
            w1[k, bos] -= max(pre, 0.0) + 1.0  # off at BOS: BOS's stream stays known
        param_layers.append(
            LayerParams(
                attn=AttentionParams(w_v=wv, w_qk=wqk),
                mlp=MLPParams(w1=w1, b1=b1, w2=w2, b2=np.zeros(D)),
            )
        )
    if out.numerical:
        w_o = np.zeros((1, D))
        w_o[0, out.dims.start] = 1
        out_values = None
    else:
        w_o = np.zeros((len(out.values), D))
        w_o[np.arange(len(out.values)), np.arange(out.dims.start, out.dims.stop)] = 1
        out_values = tuple(out.values)
    cfg = ModelConfig(
        vocab_size=V + 1,
        seq_len=N + 1,
        width=D,
        num_classes=w_o.shape[0],
        heads=tuple(
            max(1, sum(1 for n in nodes if n.op in ("mean", "width") and n.layer == li))
            for li in range(depth)
        ),
        attention="softmax",
        causal=bool(causal),
        head_mean=False,
        positional="onehot",
        mlp_hidden=F,
    )
    # NumPy float64 leaves: exact whatever jax_enable_x64 says; params(dtype) makes JAX arrays
    params = ModelParams(layers=tuple(param_layers), w_o=w_o, config=cfg)
    constants = {
        "law": "beta = 2 ln(2 V (N+1) / tau) (mean heads), ln(4 N (N+1) (N+2)) (SelectorWidth); "
        "numerical steps ramp over half the local gap",
        "softmax_scale_override": softmax_scale,
        "mlp_slope_override": mlp_slope,
        "heads": [
            {
                "node": n.label,
                "layer": n.layer,
                "kind": n.op,
                "beta": n.beta,
                "tolerance": n.tolerance,
            }
            for n in nodes
            if n.op in ("mean", "width")
        ],
    }
    return CompiledProgram(
        program,
        tuple(vocab),
        N,
        bool(causal),
        params,
        tuple(labels),
        out,
        out_values,
        w_o,
        nodes,
        attention_depth(program),
        constants,
        meaning,
    )


def _avail_attn(x: Node) -> int:
    return 0 if x.op in ("tokens", "indices") else x.layer + 1


def _avail_mlp(x: Node) -> int:
    if x.op in ("tokens", "indices"):
        return 0
    return x.layer if x.op in ("mean", "width") else x.layer + 1


def _min_gap(values: list) -> float:
    gaps = [float(b - a) for a, b in zip(values, values[1:])]
    return min(gaps, default=1.0)


def _head(nd: Node, D: int, bos: int, real: list[int], x_bos: np.ndarray):
    """``(w_qk, w_v)`` of one head: ``beta`` per term that holds, BOS at ``beta (m - 1/2)``
    (mean) or ``beta m`` (width) for ``m`` terms, ``2 beta m`` from BOS to itself; values through
    the absorbed Map; BOS's value column set so BOS writes the empty selection's value."""
    beta, m = nd.beta, len(nd.terms)
    wqk = np.zeros((D, D))
    for key, query, pred in nd.terms:
        for kv in key.values:
            for qv in query.values:
                try:
                    hit = pred(kv, qv)
                except Exception as err:  # a user's predicate on a pair of its value sets
                    raise ValueError(
                        f"{nd.label}: its selector's predicate raised {err!r} on key {kv!r} "
                        f"({key.label}), query {qv!r} ({query.label})"
                    ) from None
                if hit:
                    wqk[key.dim(kv), query.dim(qv)] += beta
    wqk[bos, real] = beta * (m if nd.op == "width" else m - 0.5)
    wqk[bos, bos] = 2 * beta * m
    wv = np.zeros((D, D))
    if nd.op == "mean":
        base, fn = nd.value_base, nd.value_fn
        if nd.numerical and base.numerical:
            wv[nd.dims.start, base.dims.start] = 1
        else:
            for v in base.values:
                y = fn(v)
                if nd.numerical:
                    wv[nd.dims.start, base.dim(v)] = float(y)
                else:
                    wv[nd.dim(y), base.dim(v)] = 1
    target = np.zeros(D)
    if nd.op == "width":
        target[nd.dims.start] = 1
    elif not nd.numerical:
        target[nd.dim(nd.default)] = 1
    else:
        target[nd.dims.start] = float(nd.default)
    wv[:, bos] += target - wv @ x_bos
    return wqk, wv


def _step(w: np.ndarray, c: float, lo: float, hi: float, out: np.ndarray):
    """Units of ``out * step(w.x + c; lo, hi)``: two ReLUs, exactly 0 below lo, 1 above hi."""
    s = 1.0 / (hi - lo)
    return [(w * s, (c - lo) * s, out), (w * s, (c - hi) * s, -out)]


def _encode(nd: Node, y: Any, D: int) -> np.ndarray:
    o = np.zeros(D)
    if nd.numerical:
        o[nd.dims.start] = float(y)
    else:
        o[nd.dim(y)] = 1
    return o


def _mlp_units(nd: Node, D: int, real: list[int], slope: float | None) -> list:
    """The hidden units of a materialized MLP node: ``(w1 row, b1, w2 column)`` triples."""
    nums = [f for f in nd.frontier if f.numerical]
    cats = [f for f in nd.frontier if not f.numerical]
    k = len(cats)
    units = []
    nd.ramps = []  # per combination: (sign, lo, hi) of each ramp over z = sign * x
    for combo in itertools.product(*(f.values for f in cats)):
        match = np.zeros(D)  # sum of the combination's one-hot entries: k iff it holds
        for f, v in zip(cats, combo):
            match[f.dim(v)] += 1
        assign = {id(f): v for f, v in zip(cats, combo)}
        if not nums:
            o = _encode(nd, _evaluate_fused(nd, assign), D)
            if np.any(o):
                units += _step(match, 0.0, k - 0.75, k - 0.25, o)
            continue
        (x,) = nums
        s = x.values
        ys = [_evaluate_fused(nd, {**assign, id(x): v}) for v in s]
        low, high = float(s[0]), float(s[-1])
        base = _encode(nd, ys[0], D)
        steps = []
        for i in range(len(s) - 1):
            if ys[i + 1] == ys[i]:
                continue
            t = float(s[i] + s[i + 1]) / 2
            half = float(s[i + 1] - s[i]) / 4 if slope is None else 0.5 / slope
            delta = _encode(nd, ys[i + 1], D) - _encode(nd, ys[i], D)
            # A ramp's pre-activation grows with the distance from its threshold; ramp on the
            # side with the shorter reach ("x >= t", or "x <= t" as 1 - it), so the rounding of
            # the saturated units stays small (the float law in rasp.predicted_exact).
            up = high - t <= t - low
            if not up:
                base = base + delta
            steps.append((t, half, delta, up))
        if np.any(base):
            if k:
                units += _step(match, 0.0, k - 0.75, k - 0.25, base)
            else:
                one = np.zeros(D)
                one[real] = 1
                units.append((one, 0.0, base))
        ramps = []
        big = high - low + 1.0
        for t, half, delta, up in steps:
            # z = +-x + M (match - k): a combination that does not hold pushes z below lo
            sign = 1.0 if up else -1.0
            w = (big + 4 * half) * match
            w[x.dims.start] += sign
            lo, hi = sign * t - half, sign * t + half
            units += _step(w, -(big + 4 * half) * k, lo, hi, sign * delta)
            ramps.append((sign, lo, hi))
        nd.ramps.append(ramps)
    return units


def _refuse_undefined(nodes: list[Node], program: L.SOp, vocab: list, N: int) -> None:
    """Refuse, at compile time, a program the interpreter gives no value on some input (a
    categorical aggregate whose selected keys carry different values, tracr's validator's
    "width > 1 that requires aggregation"; a user's function raising): every input while there
    are at most 512 of a length, then 4 seeded ones at half the length and at ``N``. Run only
    where a categorical aggregate reads more than one value (else nothing can be undefined but a
    raising function, which the value-set inference already called on every value)."""
    if not any(
        n.op == "mean" and not n.numerical and len(set(n.value.values) - {n.default}) > 1
        for n in nodes
    ):
        return
    rng = np.random.default_rng(0)
    for n in range(1, N + 1):
        if len(vocab) ** n <= 512:
            inputs = [list(t) for t in itertools.product(vocab, repeat=n)]
        elif n in (max(1, N // 2), N):
            inputs = [[vocab[i] for i in rng.integers(len(vocab), size=n)] for _ in range(4)]
        else:
            continue
        for xs in inputs:
            try:
                L.evaluate_all(program, xs)
            except ValueError as err:
                if "categorical aggregate over different values" not in str(err):
                    return  # a predicate raising on a value: the head's table names its node
                raise ValueError(
                    f"{err} (no value to compile: a categorical aggregate moves one value)"
                ) from None


def _refuse_noncausal(nodes: list[Node], program: L.SOp, vocab: list, N: int) -> None:
    """Refuse a program whose selectors pick a later key on some input (every input while there
    are at most 2000 of a length, 64 random ones of each longer length, seeded)."""
    rng = np.random.default_rng(0)
    heads = [n for n in nodes if n.op in ("mean", "width")]
    for n in range(1, N + 1):
        if len(vocab) ** n <= 2000:
            inputs = [list(t) for t in itertools.product(vocab, repeat=n)]
        else:
            inputs = [[vocab[i] for i in rng.integers(len(vocab), size=n)] for _ in range(64)]
        for xs in inputs:
            trace = L.evaluate_all(program, xs)
            for h in heads:
                vals = [(k.expect(trace), q.expect(trace), p) for k, q, p in h.terms]
                for i in range(n):
                    for j in range(i + 1, n):
                        if all(p(kv[j], qv[i]) for kv, qv, p in vals):
                            name = h.source.label if h.source is not None else h.label
                            raise ValueError(
                                f"causal: {name} selects key {j} at query {i} on input {xs}; "
                                "its meaning changes under a causal mask"
                            )
