"""Template matching, the generalization task of Chen & Zou 2024, §4.3 (Definition 1).

A template ``t`` is a string of ``l`` wildcards; a substitution map ``s`` is an injection from the
template's wildcards to the symbols ``[0, alphabet_size)``, and ``sub(t, s)_i = s(t_i)``. The
dataset
is every ``(sub(t, s), f(t))`` for ``t`` in the template set and ``s`` every injective map of
``t``'s
wildcards, so a template with ``w`` distinct wildcards contributes ``A(alphabet_size, w)`` distinct
sequences and ``size = sum_t A(alphabet_size, w_t)``. (Maps that differ only on wildcards a template
does not use give the same sequence; counting them, as a literal reading of §4.3's ``n_map`` maps
would, only repeats rows.) Token ids: symbols ``[0, alphabet_size)``, CLS ``alphabet_size``
appended,
``seq_len = l + 1``.

Two templates with the same equality pattern (e.g. ``(0, 1)`` and ``(1, 0)``) produce the same
sequences, so they are rejected. Templates are decoded through their canonical form (wildcards
renamed
``0, 1, ...`` by first occurrence, a restricted growth string); the map's Lehmer digits give the
symbols of wildcards ``0, 1, ...`` in that order.

Exhaustive order: template by template (block ``b`` = template ``b``), and inside a template the
injective maps in lexicographic order of ``(s(0), s(1), ...)``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory.tasks import unrank
from transformer_theory.tasks._base import Task, _compiled, _sample_count, check_int_arg


def canonical(template: Sequence[int]) -> tuple[int, ...]:
    """Rename wildcards ``0, 1, ...`` in order of first occurrence: the template's equality
    pattern."""
    names: dict = {}
    return tuple(names.setdefault(w, len(names)) for w in template)


def all_templates(length: int) -> tuple[tuple[int, ...], ...]:
    """Every equality pattern of ``length`` wildcards (restricted growth strings), lexicographic.

    There are Bell(``length``) of them: 1, 2, 5, 15, 52, ... ``all_templates(2) == ((0, 0), (0,
    1))``,
    Table 1's ``αα`` and ``αβ``.
    """
    length = check_int_arg("length", length)
    out: list[tuple[int, ...]] = [(0,)]
    for _ in range(length - 1):
        out = [t + (w,) for t in out for w in range(max(t) + 2)]
    return tuple(out)


def normalize_templates(
    templates: Iterable[Iterable[int]], alphabet_size: int
) -> tuple[tuple[int, ...], ...]:
    """Validate a template set (shared with the in-context task) and return it as a tuple of int
    tuples."""
    try:
        tpls = tuple(tuple(int(w) for w in t) for t in templates)
    except TypeError as err:
        raise ValueError(
            f"templates: expected a sequence of wildcard tuples, got {templates!r}"
        ) from err
    if not tpls or any(len(t) == 0 for t in tpls):
        raise ValueError(f"templates: expected at least one non-empty template, got {templates!r}")
    if len({len(t) for t in tpls}) != 1:
        raise ValueError(
            "templates: all templates must have the same length, "
            f"got lengths {[len(t) for t in tpls]}"
        )
    seen: dict = {}
    for i, t in enumerate(tpls):
        j = seen.setdefault(canonical(t), i)
        if j != i:
            raise ValueError(
                f"templates: templates {j} {tpls[j]} and {i} {t} have the same equality pattern"
            )
    need = max(len(set(t)) for t in tpls)
    if alphabet_size < need:
        raise ValueError(
            f"alphabet_size: a template has {need} distinct wildcards, so at least "
            f"{need} symbols are needed, got {alphabet_size}"
        )
    return tpls


@dataclasses.dataclass(frozen=True)
class TemplateMatching(Task):
    """The dataset ``D_tm`` of Chen & Zou 2024, §4.3 (generalization) with every injective
    substitution map.

    Attributes:
      alphabet_size: number of word symbols (§9.1 uses 210).
      templates: wildcard tuples of one length ``l``, e.g. ``((0, 0), (0, 1))``; wildcard ids are
        arbitrary ints, only their equality pattern matters.
      labels: the template labeling map ``f`` as a tuple (``labels[i] = f(templates[i])``), default
        ``range(len(templates))``; ``num_classes = max(labels) + 1``.
    """

    alphabet_size: int
    templates: tuple
    labels: tuple | None = None

    all_templates = staticmethod(all_templates)

    def __post_init__(self):
        object.__setattr__(
            self, "alphabet_size", check_int_arg("alphabet_size", self.alphabet_size)
        )
        object.__setattr__(
            self, "templates", normalize_templates(self.templates, self.alphabet_size)
        )
        labels = tuple(range(len(self.templates))) if self.labels is None else self.labels
        try:
            labels = tuple(check_int_arg("labels", y, minimum=0) for y in labels)
        except TypeError as err:
            raise ValueError(f"labels: expected a sequence of ints, got {self.labels!r}") from err
        if len(labels) != len(self.templates):
            raise ValueError(
                f"labels: expected one label per template ({len(self.templates)}), got "
                f"{len(labels)}"
            )
        object.__setattr__(self, "labels", labels)

    @property
    def num_symbols(self) -> int:
        return self.alphabet_size

    @property
    def template_length(self) -> int:
        return len(self.templates[0])

    @property
    def wildcard_counts(self) -> tuple[int, ...]:
        return tuple(len(set(t)) for t in self.templates)

    @property
    def vocab_size(self) -> int:
        return self.alphabet_size + 1

    @property
    def seq_len(self) -> int:
        return self.template_length + 1

    @property
    def num_classes(self) -> int:
        return max(self.labels) + 1

    @property
    def size(self) -> int:
        return sum(unrank.num_injections(self.alphabet_size, w) for w in self.wildcard_counts)

    def _size_formula(self) -> str:
        counts = self.wildcard_counts
        return " + ".join(
            (f"{counts.count(w)}·" if counts.count(w) > 1 else "") + f"A({self.alphabet_size},{w})"
            for w in sorted(set(counts))
        )

    @functools.cached_property
    def _space(self) -> unrank.BlockRadix:
        width = max(self.wildcard_counts)
        x = self.alphabet_size
        return unrank.BlockRadix(
            tuple(tuple(x - i for i in range(w)) + (1,) * (width - w) for w in self.wildcard_counts)
        )

    @functools.cached_property
    def _canonical_templates(self) -> np.ndarray:
        return np.array([canonical(t) for t in self.templates], np.int32)

    def sample_balanced(self, key: jax.Array, num: int) -> tuple[jax.Array, jax.Array]:
        """``num`` examples, each drawing its template uniformly and then an injective
        substitution uniformly (with replacement), reproducible by ``key``.

        Template ``i`` is a block of the index space, so this is one compiled call for every
        ``num`` (drawing per template would compile once per template and per count).
        """
        return _compiled(self, "sample_balanced")(key, _sample_count(key, num))

    def _decode(self, block, digits_U):
        substitution = unrank.unrank_injection(digits_U)
        sequence = substitution[jnp.asarray(self._canonical_templates)[block]]
        tokens = jnp.concatenate([sequence, jnp.full((1,), self.alphabet_size, jnp.int32)])
        return tokens, jnp.asarray(np.array(self.labels, np.int32))[block]
