"""Build a construction for each requested theorem, check it, and tabulate the results.

One row per model: theorem, task, sizes, layers, heads, ``d'``, examples checked, accuracy, min
margin and min relative margin (plus the check mode and the seconds taken). Used by
``transformer-theory construct`` and ``experiments/constructions_paper_sizes.py``.

Before anything is built, :func:`shapes` gives each construction's dimensions from the sizes
alone and :func:`memory_bytes` its peak memory, so a caller can refuse sizes that cannot fit
(``construct --theorem 3 --n-q 100000`` would need two ``100013 x 100013`` float64 matrices per
layer).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import jax

from transformer_theory.constructions.check import check_construction
from transformer_theory.constructions.contextual import theorem6
from transformer_theory.constructions.memorization import theorem1
from transformer_theory.constructions.reasoning import theorem3
from transformer_theory.constructions.templates import theorem5
from transformer_theory.params import ModelParams
from transformer_theory.settings import flag_of, setting
from transformer_theory.tables import Column
from transformer_theory.tasks import (
    InContextQA,
    InContextTemplateMatching,
    SequenceClassification,
    Task,
    TemplateMatching,
    all_templates,
)

THEOREMS = (1, 3, 5, 6)
# The Sizes fields each theorem reads (a caller names them in its messages).
SIZE_FIELDS = {
    1: ("alphabet", "length", "num_sequences"),
    3: ("n_q", "n_a", "k"),
    5: ("alphabet", "template_length"),
    6: ("alphabet", "n_a", "ictm_template_length", "k"),
}


@dataclasses.dataclass(frozen=True)
class Sizes:
    """Task sizes for every theorem (each theorem reads the fields in :data:`SIZE_FIELDS`).

    Attributes:
      alphabet: symbols of Theorems 1, 5, 6 (§9.1: 500, 210, 100).
      length: sequence length before the CLS (Theorem 1; §9.1: 6).
      num_sequences: ``N`` of Theorem 1.
      template_length: ``l`` of Theorem 5 (every equality pattern of length ``l``).
      ictm_template_length: ``l`` of Theorem 6 (every equality pattern of length ``l``; §9.1: 5).
      n_q, n_a, k: Theorem 3 (``n_q`` questions, ``n_a`` answers, ``k`` pairs; §9.1: 100, 100) and
        Theorem 6 (``n_a`` answers, ``k`` blocks).
    """

    alphabet: int = setting(4, positive=True)
    length: int = setting(3, positive=True)
    num_sequences: int = setting(24, positive=True)
    template_length: int = setting(3, positive=True)
    ictm_template_length: int = setting(2, positive=True)
    n_q: int = setting(4, positive=True)
    n_a: int = setting(4, positive=True)
    k: int = setting(2, flag="-k", positive=True)

    def __post_init__(self):
        for f in dataclasses.fields(Sizes):
            value = getattr(self, f.name)
            if f.init and isinstance(value, int) and value < 1:
                raise ValueError(f"{f.name}: expected a positive integer, got {value}")

    @property
    def sizes(self) -> Sizes:
        """The task sizes alone (a subclass's other settings dropped)."""
        return Sizes(**{f.name: getattr(self, f.name) for f in dataclasses.fields(Sizes)})


@dataclasses.dataclass(frozen=True)
class ConstructSettings(Sizes):
    """A construct run (``transformer-theory construct``'s options): the task sizes of
    :class:`Sizes` and how the constructions are checked.

    Attributes:
      alphabet: symbols (Theorems 1, 5, 6)
      length: sequence length before the CLS (Theorem 1)
      num_sequences: N sequences (Theorem 1)
      template_length: l: all templates of this length (Theorem 5)
      ictm_template_length: l: all templates of this length (Theorem 6)
      n_q: questions (Theorem 3)
      n_a: answers (Theorems 3, 6)
      k: question-answer pairs / context blocks (Theorems 3, 6)
      samples: check this many sampled examples instead of all
      seed: PRNG seed of the sampled check
      chunk_size: examples per device call
    """

    theorem: tuple[int, ...] = setting(THEOREMS, option=False)
    samples: int | None = setting(None, positive=True)
    seed: int = 0
    chunk_size: int = setting(4096, positive=True)

    def __post_init__(self):
        super().__post_init__()
        if self.samples is not None and self.samples < 1:
            raise ValueError(f"samples: expected a positive integer, got {self.samples}")
        if self.seed < 0:
            raise ValueError(f"seed: expected >= 0, got {self.seed}")
        if self.chunk_size < 1:
            raise ValueError(f"chunk_size: expected a positive integer, got {self.chunk_size}")
        for t in self.theorem:
            if t not in THEOREMS:
                raise ValueError(f"theorem: expected one of {THEOREMS}, got {t}")


# Seconds per unit of checking work, ``examples x n D (n + D) sum(H)`` (the forward pass's
# multiply-adds, up to a constant), fitted on this project's 2-core development machine while it
# was shared (load average ~15), 2026-11-24: `construct --theorem 3 --n-q 10 --n-a 10 -k 3`
# checked 1,555,200 examples (n = 11, d' = 32) in 214.9 s, 4.6e-9 s per unit. On an idle machine
# the estimate is high by a few times: it is meant to refuse hours, not to plan minutes.
SECONDS_PER_WORK = 4.5e-9
# A task's own field, where its name differs from the Sizes field that sets it.
_TASK_FIELD = {"alphabet_size": "alphabet"}


def _size_options(theorem: int) -> list[str]:
    return [flag_of(Sizes, f) for f in SIZE_FIELDS[theorem]]


def check_budget(s: ConstructSettings) -> tuple[list[Planned], float]:
    """The planned rows of ``s`` and the estimated seconds of checking them, refused before
    anything large is built: ``BudgetError`` when a construction's memory (from its sizes alone)
    or the checks' time exceeds the budget, ``ValueError`` naming the Sizes field when a task
    refuses its sizes."""
    from transformer_theory import budget

    available = budget.available_memory()
    for theorem in s.theorem:
        for shape in shapes(theorem, s):
            need = memory_bytes(shape, s.chunk_size)
            part = max((k for k in need if k != "total"), key=need.get)
            budget.check_memory(
                need["total"],
                what=f"theorem {shape.label} at these sizes (mostly {part}: "
                f"{budget.format_bytes(need[part])}; d' = {shape.width})",
                option=", ".join(_size_options(theorem)),
                available=available,
            )
    try:
        planned = plan(s.theorem, s)
    except ValueError as err:  # a task's own check names its field: name the Sizes field
        field, sep, rest = str(err).partition(":")
        raise ValueError(f"{_TASK_FIELD.get(field.strip(), field.strip())}:{rest}") from None
    total, options = 0.0, set()
    for p in planned:
        count = p.task.size if is_exhaustive(p.task, s.samples) else s.samples
        shape = next(sh for sh in shapes(p.theorem, s) if sh.label == p.label)
        n, d = shape.seq_len, shape.width
        total += SECONDS_PER_WORK * float(count) * n * d * (n + d) * sum(shape.heads)
        options.update(_size_options(p.theorem))
    budget.check_seconds(
        total,
        what="checking every example of these constructions",
        option="--samples or " + "/".join(sorted(options)),
    )
    return planned, total


def paper_sizes(smoke: bool = False) -> list[tuple[int, Sizes]]:
    """The constructions at §9.1's sizes, as ``(theorem, sizes)`` (Theorem 1 last: its
    ``d' = max{nd, d + n} = 3507`` makes it the slowest per example).

    §9.1 gives the alphabets and lengths and leaves ``N``, ``k`` and Theorem 5's ``l`` open; we
    take N = 500 sequences, k = 5 pairs (Theorem 3), every template of length 5 (Bell(5) = 52,
    Theorems 5 and 6) and k = 3 context blocks (Theorem 6). ``smoke``: tiny sizes of the same
    theorems, for tests and the claims ledger's quick tier.
    """
    if smoke:
        return [
            (3, Sizes(n_q=5, n_a=5, k=2)),
            (5, Sizes(alphabet=6, template_length=3)),
            (6, Sizes(alphabet=4, n_a=4, ictm_template_length=2, k=2)),
            (1, Sizes(alphabet=5, length=3, num_sequences=20)),
        ]
    return [
        (3, Sizes(n_q=100, n_a=100, k=5)),
        (5, Sizes(alphabet=210, template_length=5)),
        (6, Sizes(alphabet=100, n_a=100, ictm_template_length=5, k=3)),
        (1, Sizes(alphabet=500, length=6, num_sequences=500)),
    ]


# More templates than any machine can hold (2^64 tuples; Bell(26) is already larger). Shapes
# count templates up to this and stop there, so that a huge ``l`` (say 10^12, whose Bell number
# has more digits than memory holds) is sized in microseconds and refused by its memory estimate.
TEMPLATE_COUNT_CAP = 2**64


def bell(l: int, cap: int | None = None) -> int:
    """The number of templates (set partitions) of length ``l`` (Bell triangle, exact).

    With ``cap``, stop as soon as the count is known to exceed ``cap`` and return ``cap + 1`` (a
    lower bound, after at most ~30 rows for ``cap = 2^64``: Bell numbers grow faster than
    exponentially); ``bell(l, cap) == bell(l)`` whenever ``bell(l) <= cap``.
    """
    row = [1]
    for _ in range(l):
        if cap is not None and row[-1] > cap:  # row[-1] = Bell(i + 1) <= Bell(l)
            return cap + 1
        nxt = [row[-1]]
        for x in row:
            nxt.append(nxt[-1] + x)
        row = nxt
    if cap is not None and row[0] > cap:
        return cap + 1
    return row[0]


@dataclasses.dataclass(frozen=True)
class Shape:
    """The dimensions of one construction, from the sizes alone (nothing is built).

    Attributes:
      label: the row's theorem label (``"5 (1 head)"``).
      seq_len, width, heads, num_classes: ``n``, ``d'``, heads per layer, ``C``.
      lemma3_vectors: the vectors Lemma 3 is fit on (0 when the classifier is written down).
      templates: template tuples the task holds (``Bell(l)``, or ``TEMPLATE_COUNT_CAP + 1`` when
        larger: more than any memory holds; 0 for other tasks).
    """

    label: str
    seq_len: int
    width: int
    heads: tuple[int, ...]
    num_classes: int
    lemma3_vectors: int = 0
    templates: int = 0
    template_length: int = 0


def shapes(theorem: int, s: Sizes) -> list[Shape]:
    """The :class:`Shape` of every row :func:`plan` makes for ``theorem`` (integer arithmetic; a
    template count beyond :data:`TEMPLATE_COUNT_CAP` is given as ``TEMPLATE_COUNT_CAP + 1``)."""
    if theorem == 1:
        d, n = s.alphabet + 1, s.length + 1
        N = s.num_sequences
        return [Shape("1", n, max(n * d, d + n), (n,), N, lemma3_vectors=N)]
    if theorem == 3:
        d, n = s.n_q + s.n_a + 1, 3 * s.k + 2
        return [Shape("3", n, d + n, (1, 1), s.n_a)]
    if theorem == 5:
        l = s.template_length
        d, n, T = s.alphabet + 1, l + 1, bell(l, TEMPLATE_COUNT_CAP)
        common = dict(num_classes=T, lemma3_vectors=T, templates=T, template_length=l)
        return [
            Shape("5 (1 head)", n, d + n, (1, 1), **common),
            Shape("5 (n heads)", n, max(n * n, d + n), (1, n), **common),
        ]
    if theorem == 6:
        l = s.ictm_template_length
        d, n = s.alphabet + s.n_a + 1, s.k * (l + 2) + l + 1
        return [
            Shape(
                "6",
                n,
                d + n + l + 2,
                (1, 1, 2 * l),
                s.n_a,
                templates=bell(l, TEMPLATE_COUNT_CAP),
                template_length=l,
            )
        ]
    raise ValueError(f"theorem: expected one of {THEOREMS}, got {theorem}")


def memory_bytes(shape: Shape, chunk_size: int) -> dict[str, int]:
    """Estimated peak bytes of building and checking one construction, by part.

    Parts: ``weights`` (``W_QK`` and ``W_V`` of every head in float64, three copies: the NumPy
    construction, the probe model Lemma 3 reads its vectors from, the final model), ``lemma3``
    (its ``B x B`` score matrix plus three ``B x D`` arrays), ``classifier`` (``W_O`` twice),
    ``check`` (one chunk through the forward pass: per-head values ``chunk x H x n x D`` twice,
    scores, streams), ``templates`` (the task's template tuples). ``total`` is their sum; it is an
    estimate (within a factor of about 2), meant to refuse sizes that cannot fit, not to budget.
    """
    n, D, H = shape.seq_len, shape.width, max(shape.heads)
    B, C = shape.lemma3_vectors, shape.num_classes
    parts = dict(
        weights=8 * 3 * 2 * sum(shape.heads) * D * D,
        lemma3=8 * (B * B + 3 * B * D),
        classifier=8 * 2 * C * D,
        check=8 * chunk_size * (2 * H * n * D + H * n * n + (len(shape.heads) + 1) * n * D),
        templates=2 * shape.templates * (64 + 8 * shape.template_length),
    )
    parts["total"] = sum(parts.values())
    return parts


@dataclasses.dataclass(frozen=True)
class Planned:
    """One row to build and check: the task (validated) and the builder."""

    theorem: int
    label: str
    task: Task
    build: Callable[[Any], ModelParams]
    sizes: str


def plan(theorems: Sequence[int], s: Sizes) -> list[Planned]:
    """Build (and so validate) the task of every row; ``ValueError`` from the task names its
    field (``k: ...``). Call after :func:`memory_bytes` has cleared the sizes: Theorems 5 and 6
    enumerate all ``Bell(l)`` templates."""
    out = []
    for theorem in theorems:
        theorem = int(theorem)
        if theorem == 1:
            task = SequenceClassification(s.alphabet, s.length, s.num_sequences)
            sz = f"symbols={s.alphabet} length={s.length} N={s.num_sequences}"
            out.append(Planned(1, "1", task, theorem1, sz))
        elif theorem == 3:
            task = InContextQA(s.n_q, s.n_a, s.k)
            out.append(Planned(3, "3", task, theorem3, f"n_q={s.n_q} n_a={s.n_a} k={s.k}"))
        elif theorem == 5:
            task = TemplateMatching(s.alphabet, all_templates(s.template_length))
            sz = f"symbols={s.alphabet} l={s.template_length} templates={len(task.templates)}"
            out.append(Planned(5, "5 (1 head)", task, lambda t: theorem5(t, version="single"), sz))
            out.append(Planned(5, "5 (n heads)", task, lambda t: theorem5(t, version="multi"), sz))
        elif theorem == 6:
            templates = all_templates(s.ictm_template_length)
            task = InContextTemplateMatching(s.alphabet, s.n_a, templates, s.k)
            sz = (
                f"symbols={s.alphabet} n_a={s.n_a} l={s.ictm_template_length} "
                f"templates={len(templates)} k={s.k}"
            )
            out.append(Planned(6, "6", task, theorem6, sz))
        else:
            raise ValueError(f"theorem: expected one of {THEOREMS}, got {theorem}")
    return out


def is_exhaustive(task: Task, samples: int | None) -> bool:
    """Whether a check with ``samples`` enumerates the whole dataset: ``samples=None``, or a
    dataset of at most ``samples`` examples (sampling it would only repeat examples)."""
    return samples is None or task.size <= samples


LONG_CHECK = 10**7  # examples: an exhaustive check this long gets a hint about --samples


def check_plan(
    planned: Sequence[Planned],
    *,
    samples: int | None = None,
    seed: int = 0,
    chunk_size: int = 4096,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Build and check every planned row; see :func:`construction_rows`."""
    rows = []
    for p in planned:
        t0 = time.perf_counter()
        exhaustive = is_exhaustive(p.task, samples)
        count = p.task.size if exhaustive else samples
        if log is not None:
            what = f"all {count:,} examples" if exhaustive else f"{count:,} sampled examples"
            hint = (
                " (a long run: --samples N checks a uniform sample)" if count >= LONG_CHECK else ""
            )
            log(f"theorem {p.label}, {p.sizes}: building, then checking {what}{hint}")
        params = p.build(p.task)
        res = check_construction(
            params,
            p.task,
            chunk_size,
            samples=None if exhaustive else samples,
            key=jax.random.PRNGKey(seed),
            progress=progress,
            log=None if log is None else (lambda msg, p=p: log(f"theorem {p.label}: {msg}")),
        )
        cfg = params.config
        rows.append(
            dict(
                theorem=p.label,
                task=type(p.task).__name__,
                sizes=p.sizes,
                dataset_size=str(p.task.size),
                layers=cfg.depth,
                heads="/".join(map(str, cfg.heads)),
                width=cfg.width,
                examples=res["examples"],
                mode=res["mode"],
                accuracy=res["accuracy"],
                min_margin=res["min_margin"],
                min_relative_margin=res["min_relative_margin"],
                seconds=round(time.perf_counter() - t0, 2),
            )
        )
    return rows


def construction_rows(
    theorems: Sequence[int],
    sizes: Sizes,
    *,
    samples: int | None = None,
    seed: int = 0,
    chunk_size: int = 4096,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Build and check each theorem's construction; ``samples=None`` checks every example.

    With ``samples`` set, a task whose whole dataset has at most ``samples`` examples is still
    checked exhaustively (sampling it would only repeat examples). ``progress`` shows a tqdm bar
    per check; ``log`` receives one line per row before its check (what is checked) and one with
    the estimated time left.
    """
    return check_plan(
        plan(theorems, sizes),
        samples=samples,
        seed=seed,
        chunk_size=chunk_size,
        progress=progress,
        log=log,
    )


#: The columns of :func:`construction_rows` output for :func:`transformer_theory.tables.table`.
TABLE_COLUMNS = (
    Column("theorem"),
    Column("task"),
    Column("sizes"),
    Column("layers", "L"),
    Column("heads"),
    Column("width", "d'"),
    Column("examples", fmt=","),
    Column("mode"),
    Column("accuracy", fmt=".6f"),
    Column("min_margin", "min margin", fmt=".6g"),
    Column("min_relative_margin", "relative", fmt=".3g"),
)
