"""In-context template matching, the contextual-generalization task of Chen & Zou 2024, §4.4.

§4.4 is loose; this is the dataset made precise. Given templates ``T = (t_0, ..., t_{T-1})`` of one
length ``l`` (distinct equality patterns), ``n_a`` answers and ``k`` context blocks, an example is
fixed by

- ``pi``: ``k`` DISTINCT templates chosen in order (a ``k``-permutation of ``[T]``);
- ``pi'``: ``k`` distinct answers in order (a ``k``-permutation of ``[n_a]``), as in §4.2;
- ``s_0, ..., s_{k-1}``: one substitution map per context block, ``s_i`` an injective map of
  ``t_{pi_i}``'s wildcards to the symbols ``[0, alphabet_size)``;
- ``c in [k]`` and ``s_k``: the query repeats template ``t_{pi_c}`` under its own injective map
  ``s_k``.

The ``k + 1`` maps are chosen INDEPENDENTLY: they may coincide and blocks may share symbols. This is
the simplest reading that matches the paper's own examples: Table 1's ``aa → 1 ab → 2 aa → 1`` uses
the
same map for the query as for its context block, and every Table 1 example maps ``α`` to ``a`` in
both
blocks. (§4.4 writes ``s_{pi''_0}, ..., s_{pi''_{k-1}}`` "k different" maps; read literally over the
whole wildcard alphabet, "different" maps can still act identically on a template's wildcards, so
the
constraint would not make the sequences differ anyway.) The sequence is

``E = (sub(t_{pi_0}, s_0), r, a_{pi'_0}, ..., sub(t_{pi_{k-1}}, s_{k-1}), r, a_{pi'_{k-1}},
sub(t_{pi_c}, s_k), r)``

of length ``k(l+2) + l + 1`` with label ``pi'_c`` (answer index in ``[0, n_a)``). Token ids: symbols
``[0, alphabet_size)``, answers ``[alphabet_size, alphabet_size + n_a)``, ``r`` last. Distinct
parameter tuples give distinct sequences (templates are distinct patterns and each block's pattern
is
readable from its symbols), so the exact size is

``size = A(n_a, k) · sum over (pi, c) of prod_i m(t_{pi_i}) · m(t_{pi_c})``,  ``m(t) =
A(alphabet_size, w_t)``,

``w_t`` the number of distinct wildcards of ``t``; :func:`ictm_size` evaluates it with a
symmetric-polynomial recursion (no enumeration). When all templates have ``w`` wildcards this is
``A(T,k) · A(n_a,k) · k · A(X,w)^(k+1)``.

Index space: because ``m`` depends on the template, examples are grouped into blocks by
``(gamma, c)``, ``gamma_i`` the wildcard-count group of ``t_{pi_i}``; inside a block the digits are
(template choice per position: Lehmer code within its group, in position order; answers; each
block's
map; the query's map), a fixed mixed radix. Blocks are ordered lexicographically by ``(gamma, c)``.
There are ``groups**k · k`` blocks (at most ``10**6``).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Iterable

import jax.numpy as jnp
import numpy as np

from transformer_theory.tasks import unrank
from transformer_theory.tasks._base import Task, check_int_arg
from transformer_theory.tasks.template_matching import canonical, normalize_templates

MAX_BLOCKS = 10**6


def ictm_size(alphabet_size: int, n_a: int, wildcard_counts: Iterable[int], k: int) -> int:
    """Exact ``|D_IC-TM|`` (see the module docstring) from each template's wildcard count.

    ``sum_{pi,c} prod_i m_{pi_i} · m_{pi_c}
    = k! · sum_{|S|=k} (prod_{s in S} m_s)(sum_{s in S} m_s)``;
    ``e_j`` / ``f_j`` accumulate ``sum_{|S|=j} prod m`` and ``sum_{|S|=j} (prod m)(sum m)``.
    """
    e = [1] + [0] * k
    f = [0] * (k + 1)
    for w in wildcard_counts:
        m = unrank.num_injections(alphabet_size, w)
        for j in range(k, 0, -1):
            f[j] += m * f[j - 1] + m * m * e[j - 1]
            e[j] += m * e[j - 1]
    return unrank.num_injections(n_a, k) * math.factorial(k) * f[k]


@dataclasses.dataclass(frozen=True)
class InContextTemplateMatching(Task):
    """The dataset ``D_IC-TM`` of Chen & Zou 2024, §4.4 (contextual generalization), made precise
    above.

    Attributes:
      alphabet_size: number of word symbols ``X`` (§9.1 uses ``d1 = 100``).
      n_a: number of answer tokens (= ``num_classes``; §9.1 uses ``d2 = 100``).
      templates: wildcard tuples of one length ``l`` (§9.1: ``l = 5``), distinct equality patterns.
      k: context blocks, ``1 <= k <= min(len(templates), n_a)``.
    """

    alphabet_size: int
    n_a: int
    templates: tuple
    k: int

    def __post_init__(self):
        for name in ("alphabet_size", "n_a", "k"):
            object.__setattr__(self, name, check_int_arg(name, getattr(self, name)))
        object.__setattr__(
            self, "templates", normalize_templates(self.templates, self.alphabet_size)
        )
        if self.k > len(self.templates):
            raise ValueError(
                f"k: the context needs k distinct templates, but k={self.k} > "
                f"{len(self.templates)} templates"
            )
        if self.k > self.n_a:
            raise ValueError(
                f"k: the context needs k distinct answers, but k={self.k} > n_a={self.n_a}"
            )
        blocks = len(self._groups) ** self.k * self.k
        if blocks > MAX_BLOCKS:
            raise ValueError(
                f"k: {blocks} index blocks (wildcard-count groups ** k · k) exceed "
                f"{MAX_BLOCKS}; use a smaller k"
            )

    # layout
    @property
    def num_symbols(self) -> int:
        return self.alphabet_size

    @property
    def answer_start(self) -> int:
        return self.alphabet_size

    @property
    def num_answers(self) -> int:
        return self.n_a

    @property
    def response_token(self) -> int:
        return self.alphabet_size + self.n_a

    @property
    def template_length(self) -> int:
        return len(self.templates[0])

    @property
    def wildcard_counts(self) -> tuple[int, ...]:
        return tuple(len(set(t)) for t in self.templates)

    @property
    def vocab_size(self) -> int:
        return self.alphabet_size + self.n_a + 1

    @property
    def seq_len(self) -> int:
        return self.k * (self.template_length + 2) + self.template_length + 1

    @property
    def num_classes(self) -> int:
        return self.n_a

    @property
    def size(self) -> int:
        return ictm_size(self.alphabet_size, self.n_a, self.wildcard_counts, self.k)

    def _size_formula(self) -> str:
        return (
            f"A({self.n_a},{self.k}) · Σ_(π,c) Π_i A({self.alphabet_size},w(t_πi)) · "
            f"A({self.alphabet_size},w(t_πc))"
        )

    # index space
    @functools.cached_property
    def _groups(self) -> tuple[int, ...]:
        """The distinct wildcard counts, ascending; group ``g`` = templates with ``_groups[g]``
        wildcards."""
        return tuple(sorted(set(self.wildcard_counts)))

    @functools.cached_property
    def _block_tables(self):
        """Radices per block plus the ``(gamma_per_block, c_per_block)`` that define each block."""
        k, x, groups = self.k, self.alphabet_size, self._groups
        width = max(groups)
        group_size = [sum(1 for w in self.wildcard_counts if w == g) for g in groups]
        radices, gammas, cs = [], [], []
        for gamma in itertools.product(range(len(groups)), repeat=k):
            if any(gamma.count(g) > group_size[g] for g in range(len(groups))):
                continue  # not enough distinct templates in some group: an empty block
            tpl = tuple(group_size[g] - gamma[:i].count(g) for i, g in enumerate(gamma))
            ans = tuple(self.n_a - i for i in range(k))
            maps = tuple(r for g in gamma for r in _map_radices(x, groups[g], width))
            for c in range(k):
                radices.append(tpl + ans + maps + _map_radices(x, groups[gamma[c]], width))
                gammas.append(gamma)
                cs.append(c)
        return (
            unrank.BlockRadix(tuple(radices)),
            np.array(gammas, np.int32).reshape(-1, k),
            np.array(cs, np.int32),
        )

    @property
    def _space(self) -> unrank.BlockRadix:
        return self._block_tables[0]

    def _decode(self, block, digits_U):
        _, gamma_per_block, c_per_block = self._block_tables
        k, x = self.k, self.alphabet_size
        width = max(self._groups)
        gamma = jnp.asarray(gamma_per_block)[block]
        c = jnp.asarray(c_per_block)[block]
        group_of_template = jnp.asarray(
            np.array([self._groups.index(w) for w in self.wildcard_counts], np.int32)
        )
        canonical_templates = jnp.asarray(
            np.array([canonical(t) for t in self.templates], np.int32)
        )
        # templates: position i takes the d-th unused template of its group
        free_templates = jnp.ones((len(self.templates),), bool)
        tpl = []
        for i in range(k):
            t = unrank.nth_free(free_templates & (group_of_template == gamma[i]), digits_U[i])
            tpl.append(t)
            free_templates = unrank.take_out(free_templates, t)
        answers = unrank.unrank_injection(digits_U[k : 2 * k])
        r = jnp.full((1,), self.response_token, jnp.int32)
        parts = []
        for i in range(k + 1):
            lo = 2 * k + i * width
            substitution = unrank.unrank_injection(digits_U[lo : lo + width])
            t = tpl[i] if i < k else jnp.stack(tpl)[c]
            parts.append(substitution[canonical_templates[t]])
            parts.append(r)
            if i < k:
                parts.append((answers[i] + x)[None].astype(jnp.int32))
        return jnp.concatenate(parts), answers[c].astype(jnp.int32)


def _map_radices(x: int, w: int, width: int) -> tuple[int, ...]:
    """Lehmer radices of an injective map of ``w`` wildcards into ``x`` symbols, padded to
    ``width``."""
    return tuple(x - i for i in range(w)) + (1,) * (width - w)
