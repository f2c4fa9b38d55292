"""The domains Chen & Zou 2024's statements quantify over, as
:mod:`transformer_theory.domains` objects shared by the rows (:mod:`._claims_verifier`,
:mod:`._claims_construction`) and their checks (:mod:`._checks_verifier`,
:mod:`._checks_construction`).

The paper's theorems and lemmas quantify over every size of a task (every ``n_q, n_a, k`` of
in-context QA, every alphabet and template length, ...): a :class:`~transformer_theory.domains.
Family` with several size parameters is enumerated here along the diagonal ``s`` = the sum of
the parameters (every size tuple appears at exactly one ``s``), so ``family.upto(S)`` is every
size tuple whose parameters sum to at most ``S``. The size of each member is counted here,
independently of the checks (a formula, or this module's own enumeration), and a check records
what it evaluated in a :class:`~transformer_theory.domains.Tally` of it: a task it skipped, or an
input its pass dropped, leaves the tally short.

"There exists a transformer ..." is an :class:`~transformer_theory.domains.Exists` over the task
family (the library's construction is the candidate witness); a statement about real numbers
(attention scores, weights, vectors) is a :class:`~transformer_theory.domains.Continuum`.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from typing import Any

from transformer_theory.domains import (
    Continuum,
    Counted,
    Domain,
    Enumerated,
    Exists,
    Family,
    Product,
    Record,
    Trained,
)

__all__ = [
    "CERT_FAMILIES",
    "ONE_LAYER_WEIGHTS",
    "TaskFamily",
    "bell",
    "templates",
]


def templates(length: int) -> list[tuple[int, ...]]:
    """Every template of ``length`` (Definition 1: a word over wildcards, up to renaming), as
    restricted growth strings: the first occurrences of the wildcards appear in order 0, 1, ...
    (an enumeration of the set partitions of the positions, independent of the library's)."""
    out: list[tuple[int, ...]] = []

    def grow(prefix: tuple[int, ...], used: int) -> None:
        if len(prefix) == length:
            out.append(prefix)
            return
        for w in range(used + 1):
            grow(prefix + (w,), max(used, w + 1))

    grow((), 0)
    return out


@functools.cache
def bell(n: int) -> int:
    """The number of templates of length ``n`` (the Bell number), by the Bell triangle."""
    row = [1]
    for _ in range(n - 1):
        nxt = [row[-1]]
        for v in row:
            nxt.append(nxt[-1] + v)
        row = nxt
    return row[-1]


# ------------------------------------------------------------------ the one-layer certificates

#: The two one-layer families the exact certificates cover (Theorem 2's ReLU attention with any
#: number of heads; §16's single softmax head).
CERT_FAMILIES = Enumerated(
    "the one-layer families: ReLU attention with any number of heads, one softmax head",
    ("relu_any_heads", "softmax_one_head"),
    what="attention type",
)
#: Every real weight of a one-layer model of a family (any embedding width, any W_QK, W_V, W_O).
ONE_LAYER_WEIGHTS = Continuum("every real weight of a one-layer model of the family")
#: What an exact Farkas certificate covers: the whole continuum of weights at once.
CERTIFICATE_BOX = "an exact Farkas certificate of the linear relaxation, re-verified in rationals"


# ------------------------------------------------------------------------- task families


class TaskFamily:
    """A task family of the paper (every size tuple of ``make``'s parameters), as a
    :class:`~transformer_theory.domains.Family` along the diagonal ``s`` = the sum of the
    parameters: ``family.member(s)`` counts every input (or ``unit``) of every valid task whose
    parameters sum to ``s``; :meth:`tasks` gives those tasks to a check."""

    def __init__(
        self,
        what: str,
        make: Callable[..., Any],
        parameters: dict[str, int],
        *,
        unit: str = "input",
        count: Callable[[Any], int] | None = None,
    ):
        self.what, self.make, self.parameters, self.unit = what, make, dict(parameters), unit
        self._count = count or (lambda task: int(task.size))
        self.family = Family(
            "s",
            self._member,
            f"every {unit} of every {what} (s = {' + '.join(parameters)})",
            start=sum(parameters.values()),
        )

    def sizes(self, s: int) -> list[dict[str, int]]:
        """Every size tuple with each parameter at least its minimum and sum ``s``."""
        names = list(self.parameters)
        out = []
        for combo in itertools.product(*[range(self.parameters[k], s + 1) for k in names]):
            if sum(combo) == s:
                out.append(dict(zip(names, combo)))
        return out

    @functools.cache  # noqa: B019 - the families are module constants
    def tasks(self, s: int) -> tuple[tuple[str, Any], ...]:
        """``(label, task)`` for every size tuple at ``s`` that the task class accepts (it refuses
        impossible sizes with ``ValueError``) and that has at least two classes."""
        out = []
        for sizes in self.sizes(s):
            try:
                task = self.make(**sizes)
            except ValueError:
                continue
            if task.num_classes < 2:
                continue
            out.append((" ".join(f"{k}={v}" for k, v in sizes.items()), task))
        return tuple(out)

    @functools.cache  # noqa: B019
    def _member(self, s: int) -> Counted:
        n = sum(self._count(task) for _, task in self.tasks(s))
        return Counted(f"every {self.unit} of every {self.what} with s = {s}", n)

    def upto(self, s: int) -> Domain:
        return self.family.upto(s)


def _icqa(n_q: int, n_a: int, k: int) -> Any:
    from transformer_theory.tasks import InContextQA

    return InContextQA(n_q, n_a, k)


def _tm(symbols: int, l: int) -> Any:
    from transformer_theory.tasks import TemplateMatching, all_templates

    return TemplateMatching(symbols, all_templates(l))


def _ictm(symbols: int, n_a: int, l: int, k: int) -> Any:
    from transformer_theory.tasks import InContextTemplateMatching, all_templates

    return InContextTemplateMatching(symbols, n_a, all_templates(l), k)


ICQA = TaskFamily("in-context QA(n_q, n_a, k) dataset", _icqa, {"n_q": 1, "n_a": 2, "k": 1})
TM = TaskFamily(
    "template-matching dataset (symbols, template length l; all templates of the length)",
    _tm,
    {"symbols": 1, "l": 2},
)
ICTM = TaskFamily(
    "in-context template-matching dataset (symbols, n_a answers, template length l, k pairs)",
    _ictm,
    {"symbols": 1, "n_a": 2, "l": 1, "k": 1},
)


def _sc_datasets(symbols: int, length: int) -> int:
    """Theorem 1's datasets over ``symbols^length`` sequences: every ordered tuple of ``N >= 2``
    distinct sequences (the i-th labelled i), ``sum_N m! / (m - N)!``."""
    m = symbols**length
    return sum(math.perm(m, n) for n in range(2, m + 1))


@functools.cache
def _sc_member(s: int) -> Counted:
    n = sum(_sc_datasets(v, s - v) for v in range(2, s))
    return Counted(
        f"every sequence-classification dataset over symbols + length = {s} (every set of N >= 2 "
        "distinct sequences, every labelling)",
        n,
    )


#: Theorem 1: every sequence-classification dataset (every alphabet of ``symbols >= 2`` tokens,
#: every length, every set of N >= 2 distinct sequences with distinct labels).
SC_DATASETS = Family(
    "s",
    _sc_member,
    "every sequence-classification dataset (s = symbols + length)",
    start=3,
)


def sc_sizes(s: int) -> list[tuple[int, int]]:
    """``(symbols, length)`` with ``symbols >= 2``, ``length >= 1`` and sum ``s``."""
    return [(v, s - v) for v in range(2, s)]


# ------------------------------------------------------------------------------- lemmas

#: Lemma 1: every input-independent attention score alpha >= 0 (real), every n, every input.
LEMMA1 = Exists(
    "a W_QK (the library's instructive_attention(alpha))",
    Continuum("every attention score alpha in R_+^(n x n), every n >= 1, on every input sequence"),
)


def lemma1_points(max_len: int, max_entry: int) -> Domain:
    """The integer grid of Lemma 1's check: every alpha in ``{0..max_entry}^(n x n)``, every
    ``n <= max_len``."""
    count = sum((max_entry + 1) ** (n * n) for n in range(1, max_len + 1))
    return LEMMA1.of.grid(
        Counted(
            f"every integer alpha in {{0..{max_entry}}}^(n x n), n = 1..{max_len}",
            count,
        )
    )


#: Lemma 2: every mask of every n positions, every base W_QK (real), every input.
LEMMA2 = Exists(
    "an attention layer (the library's constrained_attention with M = bound + 1)",
    Continuum("every mask of n positions, every n >= 1, every real base W_QK, on every input"),
)


def lemma2_cases(max_len: int, bases: int, seed: int) -> Domain:
    """Lemma 2's cases: every mask of ``n <= max_len`` positions, ``bases`` seeded integer
    ``W_QK`` per mask."""
    count = sum(2 ** (n * n) * bases for n in range(1, max_len + 1))
    return LEMMA2.of.sample(
        count,
        seed,
        lambda seed, i: ("seeded integer W_QK in [-2, 2] for mask case", seed, i),
        what="(every mask, seeded integer W_QK)",
    )


#: Lemma 3: every dataset of N pairwise independent real vectors with distinct labels.
LEMMA3 = Exists(
    "a linear projector W (the library's lemma3_classifier)",
    Continuum(
        "every dataset of N vectors of R^d, every two linearly independent, distinct labels "
        "(every d, N)"
    ),
)


def _independent(u: tuple[int, ...], v: tuple[int, ...]) -> bool:
    """Two integer vectors are linearly independent: some 2x2 minor is nonzero."""
    return any(u[i] * v[j] != u[j] * v[i] for i in range(len(u)) for j in range(i + 1, len(u)))


def lemma3_points(dim: int, max_n: int) -> Domain:
    """Every ordered tuple of ``2 <= N <= max_n`` pairwise independent vectors of
    ``{-1, 0, 1}^dim`` (each labelled by its index), counted here."""
    vecs = [v for v in itertools.product((-1, 0, 1), repeat=dim) if any(v)]
    count = 0
    for n in range(2, max_n + 1):
        for pick in itertools.product(vecs, repeat=n):
            if all(_independent(a, b) for a, b in itertools.combinations(pick, 2)):
                count += 1
    return LEMMA3.of.grid(
        Counted(
            f"every labelled tuple of 2 <= N <= {max_n} pairwise independent vectors of "
            f"{{-1, 0, 1}}^{dim}",
            count,
        )
    )


@functools.cache
def _lemma4_member(s: int) -> Enumerated:
    return Enumerated(
        f"(d, n) with d + n = {s}, every sequence of length n",
        tuple((d, s - d) for d in range(2, s - 1)),
        what="size",
    )


#: Lemma 4 (as corrected: width max{k d, d + n}): every vocabulary of d >= 2 tokens, every n >= 2.
LEMMA4 = Family("s", _lemma4_member, "every (d, n), d >= 2, n >= 2 (s = d + n)", start=4)


LEMMA4_EXISTS = Exists(
    "a one-layer transformer with n heads mapping every sequence to non-parallel vectors (the "
    "library's lemma4_layer at width max{k d, d + n})",
    LEMMA4,
)

# ------------------------------------------------------------------------ the theorems

THEOREM1 = Exists(
    "a one-layer transformer with n heads and d' = max{nd, d + n} (the library's theorem1)",
    SC_DATASETS,
)
THEOREM3 = Exists(
    "a two-layer transformer with one head and d' = d + n (the library's theorem3)",
    ICQA.family,
)
THEOREM5 = Exists(
    "a two-layer transformer with one head per layer and d' = d + n (the library's theorem5, "
    "base 3, repaired)",
    TM.family,
)
THEOREM5_N_HEADS = Exists(
    "a transformer with n heads in layer 2 (the library's theorem5(version='multi'))",
    TM.family,
)
THEOREM6 = Exists(
    "a three-layer transformer with 2l heads and d' = d + n + l + 2 (the library's corrected "
    "theorem6)",
    ICTM.family,
)


@functools.cache
def _base3_member(l: int) -> Counted:
    b = bell(l)
    return Counted(f"every pair of different templates of length {l}", b * (b - 1) // 2)


#: §14.2's base-3 code: every pair of different templates of every length l >= 2.
BASE3_PAIRS = Family("l", _base3_member, "every pair of different templates of length l", start=2)
#: The same from l = 34 on: where the library's sufficient condition fails (open).
BASE3_BEYOND_33 = Family(
    "l", _base3_member, "every pair of different templates of length l", start=34
)

#: Every (dataset, construction) at §9.1's sizes and any other: the paper-size rows' statement.
ANY_SIZE = Exists(
    "the transformers of Theorems 1, 3, 5 and 6 (the library's constructions)",
    Continuum(
        "every input of every dataset of the four tasks (sequence classification, in-context QA, "
        "template matching, in-context template matching) at every size"
    ),
)


# --------------------------------------------------------------------- the verifier's domains


@functools.cache
def _groups_member(s: int) -> Enumerated:
    return Enumerated(
        f"(V, n, last token) with V + n = {s}: all V^(n-1) sequences of length n over V tokens "
        "ending in that token",
        tuple((v, s - v, last) for v in range(2, s - 1) for last in range(v)),
        what="group",
    )


#: Definition 3's "sum lambda = 0" for every dependence: every set of sequences of length n over
#: V tokens sharing the last token is a subset of one maximal group (V, n, last), whose
#: dependence lattice contains every dependence of the subset.
SEQUENCE_GROUPS = Family(
    "s",
    _groups_member,
    "every set of sequences of length n >= 2 over V >= 2 tokens sharing the last token, through "
    "the maximal group of each (V, n, last token) (s = V + n)",
    start=4,
)


@functools.cache
def _pairs_member(s: int) -> Enumerated:
    items = []
    for l in range(2, s):
        a = s - l
        usable = [t for t in templates(l) if max(t) + 1 <= a]
        items += [(a, l, t, u) for t, u in itertools.combinations(usable, 2)]
    return Enumerated(
        f"(alphabet A, length l, t, t') with A + l = {s}: every pair of different templates "
        "whose wildcards fit the alphabet",
        items,
        what="pair",
    )


#: Lemma 6 and Theorem 4: every pair of different templates t, t' of every length l over every
#: alphabet of A symbols (both templates with at most A wildcards), diagonal s = A + l.
TEMPLATE_PAIRS = Family(
    "s",
    _pairs_member,
    "every pair of different templates t, t' of length l >= 2 over an alphabet of A symbols "
    "(s = A + l)",
    start=4,
)
LEMMA6 = Exists(
    "lambda, lambda' in Z_+ (the proof's: lambda = n^(t'), lambda' = n^(t))", TEMPLATE_PAIRS
)

#: Theorem 2: every in-context QA dataset, every one-layer model.
THEOREM2 = Product(ICQA.family, CERT_FAMILIES, ONE_LAYER_WEIGHTS)
#: Theorem 4: every template-matching dataset (it contains a pair of templates: a certificate
#: on the pair covers every dataset containing it), every one-layer model.
THEOREM4 = Product(TEMPLATE_PAIRS, CERT_FAMILIES, ONE_LAYER_WEIGHTS)
#: A fixed finite dataset's certificate: both families, every weight.
ONE_LAYER = Product(CERT_FAMILIES, ONE_LAYER_WEIGHTS)
#: §13.1's D_toy-icl (the tokens of :func:`transformer_theory.tasks.toy.toy_icl`, written out).
TOY_SET = Enumerated(
    "D_toy-icl, Theorem 2's toy set of §13.1",
    (
        (0, 4, 2, 1, 4, 3, 0, 4),
        (0, 4, 3, 1, 4, 2, 1, 4),
        (0, 4, 3, 1, 4, 2, 0, 4),
        (0, 4, 2, 1, 4, 3, 1, 4),
    ),
    what="sequence",
)
SECTION16 = Exists("a one-layer softmax model with several heads", TOY_SET)
#: §16's open question: Theorem 2 for one layer of several softmax heads.
SECTION16_OPEN = Product(
    ICQA.family, Continuum("every real weight of one layer with several softmax heads")
)
#: Definition 2's example: each position of the 4 sequences.
DEFINITION2 = Enumerated(
    "the positions of the paper's example (a,b,r) + (b,a,r) = (a,a,r) + (b,b,r)",
    (0, 1, 2),
    what="position",
)


def _models(scope: str) -> Continuum:
    return Continuum(f"every {scope} (any real weights), on every dependent set of sequences")


PROPOSITIONS = {
    "7": _models("attention-only transformer's first layer (ReLU attention)"),
    "8": _models("one-layer ReLU-attention transformer"),
    "9": _models("single-head softmax transformer's first layer"),
    "10": _models("one-layer single-head softmax transformer"),
}
#: The library's controls: the relations outside the premises fail for some model.
CONTROLS = Exists(
    "a model breaking each relation",
    Continuum(
        "every relation of Props. 7-10 outside its premises (plain lambda for softmax, two "
        "layers, an MLP, a final LayerNorm, three softmax heads), on every dependent set"
    ),
)
#: The library's affine form: every model in scope, every sequence of a dataset.
AFFINE = Continuum(
    "every one-layer model in scope (ReLU any heads; one softmax head; any real weights), on "
    "every sequence of a dataset"
)
#: Theorem 2's scope on its toy set: out of scope some model classifies it.
WITNESS_SCOPE = Exists(
    "a model of each out-of-scope family (one ReLU layer + MLP, two ReLU layers) classifying it",
    TOY_SET,
)


def record(path: str, produced_by: str) -> Record:
    """A committed result file as a domain (``experiments/results/<path>``)."""
    return Record(f"experiments/results/{path}", produced_by)


PAPER_SIZES_RECORD = record(
    "constructions_paper_sizes.json",
    "python experiments/constructions_paper_sizes.py --part paper",
)
FIG2_RECORD = record(
    "fig2_paper_summary.csv", "transformer-theory train --experiment fig2_paper (3 seeds)"
)
FIG2_QUICK_RECORD = record(
    "fig2_quick_aggregate.csv",
    "transformer-theory train --experiment fig2_depth --size quick --seeds 0 1 2",
)
HEADS_RECORD = record(
    "fig4_7_heads_quick_aggregate.csv",
    "transformer-theory train --experiment fig4_7_heads --size quick --seeds 0 1",
)
FIG3_RECORD = record(
    "fig3_attention_quick.json",
    "transformer-theory train --experiment fig3_attention_maps --size quick --seeds 0",
)
README_RUNS = Trained(
    "README's single paper-size reasoning runs (SGD lr 0.1 against Adam 1e-3, in-context QA(100, "
    "100, 3)), not kept"
)
RECIPE_RUNS = Trained("README's recipe search for three layers on contextual generalization")
