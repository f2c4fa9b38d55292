"""The verification suite's settings (one object: ``transformer-theory verify``'s options) and its
cost model, next to the budget it is checked against (:mod:`transformer_theory.budget`).

Everything here is integer arithmetic on the settings: nothing is built, so a size no machine can
afford is refused before any work (:func:`check_budget`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

from transformer_theory import _validate, budget
from transformer_theory.settings import check_minimums, setting

#: The suite's datasets, in the order of the default job.
DATASETS = ("toy", "icqa", "templates")

# The largest whole dataset the suite enumerates (``Task.all``'s default limit; IC-QA's own is
# 20,000): a larger one was refused only after its Lemma 6 pair sets had been built.
TEMPLATES_LIMIT = 10**6
ICQA_LIMIT = 20_000
# Cost model of :func:`estimate`: seconds per (dataset, family) for compiling and the small fixed
# sets, and per model per sequence streamed through a family's checks (sets and whole dataset).
# Time, refitted 2026-11-27 to the main job on an idle 2-core machine (45 s for its 3 datasets x 13
# families, witnesses and certificates included, measured 2026-11-25 in a fresh clone): about 1 s
# per (dataset, family). The per-sequence cost is from `verify --templates 6,5
# --no-certificates --no-witnesses` (1,844 s for 2.1e7 sequence evaluations, on a shared machine,
# so high by a few times). Under load the run takes longer (the main job: 11.6 min at load
# average 24): the estimate is for an idle machine (benchmarks/verify_estimate.py measures it).
# Memory: the process itself (JAX, XLA and the library imported, one family's checks compiled:
# 390 MB peak for `--datasets toy --families relu-1h`) plus about 20 MB per (dataset, family) of
# compiled programs and their buffers (the main job: 1.14 GB peak, 2026-11-27), plus the data.
SECONDS_PER_FAMILY = 1.0
# Starting the process: importing JAX and the library and the first compile (about 5 s idle).
STARTUP_SECONDS = 5.0
BASELINE_BYTES = 380 * 2**20
BYTES_PER_FAMILY = 20 * 2**20
SECONDS_PER_SEQUENCE = 8e-5
# Witness searches (``theory.witness.default_witness_searches``: one search per family of
# ``DEFAULT_FAMILIES``, its restarts trained together): seconds per search (compiling) and per
# restart per Adam step. Fitted on the 2-core development machine (load average ~5), 2026-11-24:
# 5 searches of 400 steps took 13.9 s with 1 restart and 62.9 s with 256 (so ~3 s a search and
# ~1e-4 s per restart-step).
SECONDS_PER_WITNESS_SEARCH = 3.0
SECONDS_PER_WITNESS_RESTART_STEP = 1e-4


def template_counts(alphabet: int, length: int) -> tuple[int, int]:
    """``(Bell(length), sequences)`` of every template of ``length`` over ``alphabet`` symbols.

    A template with ``w`` wildcards has ``A (A-1) ... (A-w+1)`` sequences and there are
    ``S(length, w)`` such templates (Stirling numbers of the second kind, by ``S(n, k) = k S(n-1,
    k) + S(n-1, k-1)``), so the dataset has ``sum_w S(L, w) A!/(A-w)!`` sequences (``A^L`` when
    ``A >= L``: every sequence has exactly one equality pattern). Exact integers.
    """
    row = [1]  # S(0, 0)
    for n in range(1, length + 1):
        row = [0] + [k * (row[k] if k < len(row) else 0) + row[k - 1] for k in range(1, n + 1)]
    falling, sequences = 1, 0
    for w, count in enumerate(row):
        if w > 0:
            falling *= max(alphabet - w + 1, 0)
        sequences += count * falling
    return sum(row), sequences


def _sizes(name: str, values: tuple[int, ...], count: int) -> None:
    if len(values) != count or any(v < 1 for v in values):
        raise ValueError(f"{name}: expected exactly {count} positive integers, got {values}")


@dataclasses.dataclass(frozen=True)
class VerifySettings:
    """One run of the suite (``transformer-theory verify``'s options).

    Attributes:
      datasets: comma list of toy, icqa, templates
      families: comma list of checks.FAMILIES names, or 'all'
      icqa: in-context QA sizes: exactly three integers
      templates: template task sizes: exactly two integers
      random_sets: random dependent sets per dataset
      precision: float format of the random models and the checks
      seed: PRNG seed of the datasets' random sets, the models and the witness searches
      chunk_size: sequences per device call (memory bound)
      certificates: certificates and accuracy bounds (--no-certificates skips them)
      witnesses: witness searches (--no-witnesses skips them)
      witness_steps: Adam steps per witness search restart
      witness_restarts: restarts per witness search (run at once, vmapped)
      shard: shard over local devices (--no-shard: do not)
      quick: smoke mode: toy dataset, 4 random sets, 2 models (unless --models), no witnesses (CI)
    """

    datasets: tuple[str, ...] = DATASETS
    families: tuple[str, ...] = ("all",)
    icqa: tuple[int, ...] = setting((3, 3, 2), metavar="NQ,NA,K", positive=True)
    templates: tuple[int, ...] = setting((4, 3), metavar="ALPHABET,L", positive=True)
    random_sets: int = 8
    models: int | None = setting(
        None,
        help="random models per family and dataset (default 4; 2 with --quick)",
        positive=True,
    )
    precision: Literal["float64", "float32"] = "float64"
    seed: int = 0
    chunk_size: int = setting(4096, positive=True)
    certificates: bool = True
    witnesses: bool = True
    witness_steps: int = setting(300, positive=True)
    witness_restarts: int = setting(4, positive=True)
    shard: bool = True
    quick: bool = False

    def __post_init__(self):
        check_minimums(self)  # the positive fields, declared beside them
        from transformer_theory.theory.checks import FAMILIES

        for name in self.datasets:
            if name not in DATASETS:
                raise ValueError(f"datasets: unknown {name!r}; expected names of {DATASETS}")
        if self.families != ("all",):
            for name in self.families:
                if name not in FAMILIES:
                    raise ValueError(
                        f"families: unknown {name!r}; expected 'all' or names of "
                        f"{', '.join(FAMILIES)}"
                    )
        _sizes("icqa", self.icqa, 3)
        _sizes("templates", self.templates, 2)
        if self.random_sets < 0:
            raise ValueError(f"random_sets: expected >= 0, got {self.random_sets}")
        _validate.check_seed("seed", self.seed)
        if self.quick:  # quick fixes these: a value asked beside it would be silently dropped
            if self.random_sets != 8:
                raise ValueError(
                    f"random_sets: quick=True runs 4 random sets, not the {self.random_sets} "
                    "asked; drop quick=True to choose the count"
                )
            if tuple(self.datasets) not in (DATASETS, ("toy",)):
                raise ValueError(
                    "datasets: quick=True runs the toy dataset only; drop quick=True to choose "
                    "datasets"
                )
        for name in ("models", "chunk_size", "witness_steps", "witness_restarts"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name}: expected a positive integer, got {value}")
        if ("icqa" in self.datasets and not self.quick) or self.certificates:
            from transformer_theory.tasks import InContextQA

            try:
                size = InContextQA(*self.icqa).size
            except ValueError as err:
                raise ValueError(f"icqa: {err}") from None
            if size > ICQA_LIMIT:  # the dataset and its certificates enumerate every sequence
                raise ValueError(
                    f"icqa: {','.join(map(str, self.icqa))} has {size:,} sequences, more than "
                    f"the {ICQA_LIMIT:,} the suite enumerates (it builds the dataset's exact "
                    "dependence basis); use smaller sizes"
                )
        if "templates" in self.datasets and not self.quick:
            count, sequences = template_counts(*self.templates)
            if sequences > TEMPLATES_LIMIT:
                raise ValueError(
                    f"templates: {','.join(map(str, self.templates))} has {sequences:.3g} "
                    f"sequences in {count:.3g} templates, more than the {TEMPLATES_LIMIT:,} the "
                    "suite enumerates; use smaller sizes"
                )

    def resolved(self) -> VerifySettings:
        """The settings a run uses: ``quick`` applied, ``models`` and ``families`` filled in."""
        from transformer_theory.theory.checks import FAMILIES

        s = self
        if s.quick:
            s = dataclasses.replace(
                s, datasets=("toy",), witnesses=False, random_sets=4, quick=False
            )
        families = tuple(FAMILIES) if s.families == ("all",) else s.families
        models = s.models if s.models is not None else (2 if self.quick else 4)
        return dataclasses.replace(s, families=families, models=models, quick=False)


@dataclasses.dataclass(frozen=True)
class Estimate:
    """What a ``verify`` run will cost, from its settings alone (:func:`estimate`).

    Attributes:
      bytes: peak memory: the process (JAX, the library, the compiled checks) plus the larger of
        the templates dataset's sets and one chunk's buffers.
      seconds: run time, by the cost model above (:func:`check_budget` adds the witness
        searches when they run).
      sequences: sequence evaluations (models x families x sequences in sets and datasets).
      templates: Bell(L) templates of the templates dataset (0 when it is not selected).
      template_sequences: sequences of the templates dataset (sum over templates of A!/(A-w)!).
    """

    bytes: float
    seconds: float
    sequences: float
    templates: int = 0
    template_sequences: int = 0


def estimate(
    datasets: Sequence[str],
    families: Sequence[str],
    *,
    icqa: tuple[int, int, int],
    templates: tuple[int, int],
    models: int,
    chunk_size: int,
    random_sets: int,
) -> Estimate:
    """Peak memory and run time of a ``verify`` run, from its settings (nothing is built).

    - The templates dataset (``--templates A,L``): its Bell(L) templates (CPython tuples, ~48 + 8 L
      bytes each), and Lemma 6's sets, one per PAIR of templates holding both templates'
      sequences: ``(Bell(L) - 1) T`` sequences of ``L + 1`` int64 tokens plus a coefficient and a
      label each, all held at once (``T`` the dataset's sequences).
    - One chunk's buffers per family (``transformer_theory.theory.checks``, "Memory"):
      ``8 M b ((layers + 1) N D + 2 N^2 sum H)`` bytes for ``M`` models and ``b`` rows.
    - Time: ``SECONDS_PER_FAMILY`` per (dataset, family) plus ``SECONDS_PER_SEQUENCE`` per model,
      family and sequence (the sets' and the whole dataset's).
    """
    from transformer_theory.tasks import InContextQA
    from transformer_theory.theory import checks

    shapes, bytes_sets, seqs, n_temp, t_seqs = [], 0.0, 0.0, 0, 0
    for name in datasets:
        if name == "toy":
            shapes.append((3, 3, 9 + 2 * random_sets))
        elif name == "icqa":
            task = InContextQA(*icqa)
            shapes.append((task.vocab_size, task.seq_len, 3 * task.size + 3 * random_sets))
        else:
            a, length = templates
            if length > 64:  # Bell(64) ~ 1.7e65: beyond any machine; a bound, not the count
                n_temp, t_seqs = 2 ** (length - 1), a
            else:
                n_temp, t_seqs = template_counts(a, length)
            pair_seqs = (n_temp - 1) * t_seqs
            bytes_sets = n_temp * (48.0 + 8 * length) + pair_seqs * (8.0 * (length + 2) + 16)
            shapes.append((a + 1, length + 1, pair_seqs + t_seqs + 3 * random_sets))
    chunk_bytes = 0.0
    for vocab, seq_len, n_seqs in shapes:
        seqs += float(n_seqs) * models * len(families)
        for fam in families:
            cfg = checks.FAMILIES[fam].config(vocab, seq_len, 2)
            b = min(chunk_size, max(int(min(n_seqs, 2**62)), 1))
            per_row = (len(cfg.heads) + 1) * seq_len * cfg.width + 2 * seq_len**2 * sum(cfg.heads)
            chunk_bytes = max(chunk_bytes, 8.0 * models * b * per_row)
    seconds = STARTUP_SECONDS + SECONDS_PER_FAMILY * len(shapes) * len(families)
    seconds += SECONDS_PER_SEQUENCE * seqs
    process = BASELINE_BYTES + BYTES_PER_FAMILY * len(shapes) * len(families)
    return Estimate(process + max(bytes_sets, chunk_bytes), seconds, seqs, n_temp, t_seqs)


def witness_seconds(steps: int, restarts: int) -> float:
    """Estimated seconds of the witness searches with ``steps`` Adam steps and ``restarts``
    restarts each (the cost model above; integer arithmetic, nothing is built)."""
    from transformer_theory.theory.witness import DEFAULT_FAMILIES

    per_search = SECONDS_PER_WITNESS_SEARCH + SECONDS_PER_WITNESS_RESTART_STEP * float(
        steps * restarts
    )
    return len(DEFAULT_FAMILIES) * per_search


def check_budget(settings: VerifySettings) -> Estimate:
    """The estimate of a run of (resolved) ``settings``; ``BudgetError`` (naming the options to
    lower) when it exceeds this machine's memory or the time budget."""
    s = settings
    est = estimate(
        s.datasets,
        s.families,
        icqa=s.icqa,
        templates=s.templates,
        models=s.models,
        chunk_size=s.chunk_size,
        random_sets=s.random_sets,
    )
    templated = "templates" in s.datasets
    option = "templates/chunk_size/models" if templated else "chunk_size/models"
    budget.check_memory(est.bytes, what="this verification run", option=option)
    # The witness fields are checked even where quick or no witnesses skips the searches: a
    # value no run could afford is a mistake either way.
    witness_option = "witness_steps/witness_restarts"
    witness_s = budget.check_seconds(
        witness_seconds(s.witness_steps, s.witness_restarts),
        what="the witness searches",
        option=witness_option,
    )
    seconds_option = option.replace("chunk_size/", "") if templated else "models"
    if s.witnesses:
        if witness_s > est.seconds:
            seconds_option += "/" + witness_option
        est = dataclasses.replace(est, seconds=est.seconds + witness_s)
    budget.check_seconds(
        est.seconds,
        what=f"this verification run ({est.sequences:.3g} sequence evaluations"
        + (" and the witness searches" if s.witnesses else "")
        + ")",
        option=seconds_option,
    )
    return est
