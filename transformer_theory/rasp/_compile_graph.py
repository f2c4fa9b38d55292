"""Compiler stage 1, the graph and its value sets: every RASP node of the program becomes a
:class:`~transformer_theory.rasp._compile_ir.Node` (a base input, an MLP table or an attention
head) with the finite set of values it takes on inputs up to ``max_seq_len`` (enumerated from its
inputs' sets, means of multisets for a numerical aggregate), selectors become AND-ed score terms,
single-input Maps of exact categorical nodes are absorbed into the tables that read them, numbers
a table or a selector cannot read directly get categorical copies. The laws are in
:mod:`transformer_theory.rasp._compiler`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

from transformer_theory.rasp import _language as lang
from transformer_theory.rasp._compile_ir import Node

__all__ = ["MAX_VALUE_SET", "attention_depth", "build_graph"]

MAX_VALUE_SET = 200_000
"""Largest value set the compiler enumerates (numerical means of long inputs grow like ``N^2``)."""


def _sorted(values: set) -> list:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=repr)


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

    def node(self, e: lang.SOp) -> Node:
        if e.id in self.memo:
            return self.memo[e.id]

        def expect(t, e=e):
            return t[e.id]

        if isinstance(e, lang._Tokens):
            # the given order: token id k is vocab[k], and its one-hot is dimension k
            nd = Node("tokens", "tokens", False, list(self.vocab), expect, source=e)
        elif isinstance(e, lang._Indices):
            nd = Node("indices", "indices", False, list(range(self.n)), expect, source=e)
        elif isinstance(e, (lang.Full, lang.ConstantSOp)):
            nd = self.constant(e, expect)
        elif isinstance(e, (lang.Map, lang.SequenceMap)):
            ins = (
                [self.node(e.inner)]
                if isinstance(e, lang.Map)
                else [self.node(e.a), self.node(e.b)]
            )
            linear = isinstance(e, lang.LinearSequenceMap) and e.numerical
            linear = linear and all(i.numerical for i in ins)
            if len(ins) == 2 and all(i.numerical for i in ins) and not linear:
                # a table reads one number: the one with fewer values through a categorical copy
                k = int(len(ins[1].values) > len(ins[0].values))
                ins[k] = self.categorical(ins[k])
            fn = functools.partial(lang.apply, e)
            vals = self.mlp_values(e.label, fn, ins, e.numerical)
            nd = Node(e.label, "mlp", e.numerical, vals, expect, ins, fn, source=e)
            if linear:
                nd.linear = (e.p, e.q)
        elif isinstance(e, lang.Aggregate):
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
        elif isinstance(e, lang.SelectorWidth):
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

    def constant(self, e: lang.Full | lang.ConstantSOp, expect) -> Node:
        """A constant as a table over the indices (absorbed into the tables that read it)."""
        if isinstance(e, lang.Full):
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

        vals = self.mlp_values(e.label, fn, [self.node(lang.indices)], e.numerical)
        return Node(
            e.label, "mlp", e.numerical, vals, expect, [self.node(lang.indices)], fn, source=e
        )

    def possibly_empty(self, sel: lang.Selector) -> bool:
        """Can ``sel`` select no key at some query (False only where it provably cannot: a
        ``Select`` true on every pair of its value sets, or on every value paired with itself
        where keys and queries are the same SOp, since key ``i`` is always there, causal mask
        included; an ``Or`` with such a side)."""
        if isinstance(sel, lang.SelectOr):
            return self.possibly_empty(sel.a) and self.possibly_empty(sel.b)
        if not isinstance(sel, lang.Select):
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

    def selector(self, sel: lang.Selector) -> list[tuple[Node, Node, Callable]]:
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

    def tuple_node(self, sops: list[lang.SOp], sel: lang.Selector) -> Node:
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


def build_graph(
    program: lang.SOp, vocab: Sequence[Hashable], max_seq_len: int, causal: bool
) -> tuple[list[Node], Node]:
    """``(nodes, output)``: the compiled graph, children before parents, and the output node."""
    b = _Builder(vocab, max_seq_len, causal)
    out = b.node(program)
    return b.nodes, out


def _identity(x: Any) -> Any:
    return x


def _conjuncts(sel: lang.Selector) -> list[lang.Selector]:
    if type(sel) is lang.SelectAnd:
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


def attention_depth(program: lang.SOp) -> int:
    """The attention depth of Weiss et al. 2021: the longest chain of ``Aggregate`` /
    ``SelectorWidth`` operations in the program's dependency graph, a lower bound on the attention
    layers of any compilation that gives each such operation one head."""
    memo: dict[int, int] = {}

    def depth(e: lang.RASPExpr) -> int:
        if e.id not in memo:
            below = max((depth(c) for c in e.children()), default=0)
            memo[e.id] = below + isinstance(e, (lang.Aggregate, lang.SelectorWidth))
        return memo[e.id]

    return depth(program)
