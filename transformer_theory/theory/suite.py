"""The built-in verification suite behind ``transformer-theory verify``.

Runs, on the paper's datasets at small sizes:

1. every family of :data:`checks.FAMILIES` (in scope and controls) on random models, against
   dependent sets (the paper's examples, Lemma 6 template pairs, the exact dependence basis of a
   whole dataset, random sets) and the affine form over the whole dataset;
2. certificates and accuracy bounds (:mod:`transformer_theory.theory.certificates`) on Theorem 2's
   toy set, Theorem 4's two templates and the whole in-context QA dataset;
3. witness searches (:mod:`transformer_theory.theory.witness`) on Theorem 2's toy set.

:class:`VerifySettings` is the job's one settings object (the command's options) and
:func:`check_budget` its cost model against this machine's budget, before anything is built;
:func:`run_suite` runs the job. Parts 2-3 import their modules (SciPy's HiGHS, Optax) only when
they run. Everything here returns records; the command formats and writes them
(:mod:`transformer_theory.verify_outputs`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.typing import DTypeLike

from transformer_theory import _validate
from transformer_theory.theory import checks
from transformer_theory.theory import dependence as dep
from transformer_theory.theory._verify_settings import (  # noqa: F401 -- the suite's settings
    DATASETS,
    Estimate,
    VerifySettings,
    check_budget,
    estimate,
    template_counts,
    witness_seconds,
)

if TYPE_CHECKING:
    from transformer_theory.tasks import Task
    from transformer_theory.theory.witness import WitnessRecord


@dataclasses.dataclass
class SuiteDataset:
    """A dataset of the suite: dependent sets plus (optionally) the whole dataset for the affine
    form."""

    name: str
    vocab_size: int
    seq_len: int
    num_classes: int
    sets: list[dep.DependentSet]
    data: np.ndarray | jax.Array | Task | None = None  # tokens (B, N) or a task with .chunks()
    labels: np.ndarray | None = None


def toy_dataset(num_random: int = 8, seed: int = 0) -> SuiteDataset:
    """§11's toy: every ``(x, y, r)`` with ``x, y in {a, b, r}`` (9 sequences, V = N = 3)."""
    toks = np.asarray([[a, b, 2] for a in range(3) for b in range(3)], np.int32)
    sets = [dep.paper_example()] + dep.basis_sets(toks, 3, "toy basis")
    sets += dep.random_dependent_sets(seed, num_random, 2, 3, 3)
    return SuiteDataset("toy", 3, 3, 2, sets, toks)


def icqa_dataset(
    n_q: int = 3,
    n_a: int = 3,
    k: int = 2,
    num_examples: int = 8,
    num_random: int = 8,
    seed: int = 0,
) -> SuiteDataset:
    """``InContextQA(n_q, n_a, k)``: Theorem 2's sets, the exact basis of the whole dataset, random
    sets."""
    from transformer_theory.tasks import InContextQA

    task = InContextQA(n_q, n_a, k)
    toks, labels = (np.asarray(x) for x in task.all(limit=20000))
    sets = dep.icqa_example_sets(n_q, n_a, k, num_sets=num_examples, seed=seed)
    sets += dep.basis_sets(toks, task.vocab_size, "icqa basis", labels)
    sets += dep.random_dependent_sets(seed + 1, num_random, 3, task.seq_len, task.vocab_size)
    return SuiteDataset(
        f"icqa({n_q},{n_a},{k})",
        task.vocab_size,
        task.seq_len,
        task.num_classes,
        sets,
        task,
        labels,
    )


def templates_dataset(
    alphabet_size: int = 4, length: int = 3, num_random: int = 8, seed: int = 0
) -> SuiteDataset:
    """Every template of ``length`` over ``alphabet_size`` symbols: all Lemma 6 pairs + random
    sets."""
    from transformer_theory.tasks import TemplateMatching

    temps = TemplateMatching.all_templates(length)
    task = TemplateMatching(alphabet_size, temps)
    sets = dep.template_pair_sets(alphabet_size, temps)
    sets += dep.random_dependent_sets(seed + 2, num_random, 3, task.seq_len, task.vocab_size)
    labels = np.asarray(task.all()[1])
    return SuiteDataset(
        f"templates({alphabet_size},{length})",
        task.vocab_size,
        task.seq_len,
        task.num_classes,
        sets,
        task,
        labels,
    )


def build_datasets(
    names: Sequence[str],
    icqa: tuple[int, int, int] = (3, 3, 2),
    templates: tuple[int, int] = (4, 3),
    num_random: int = 8,
    seed: int = 0,
) -> list[SuiteDataset]:
    """The suite's datasets by name: ``"toy"``, ``"icqa"``, ``"templates"``."""
    out = []
    for n in names:
        _validate.check_choice("datasets", n, ("toy", "icqa", "templates"))
        if n == "toy":
            out.append(toy_dataset(num_random, seed))
        elif n == "icqa":
            out.append(icqa_dataset(*icqa, num_random=num_random, seed=seed))
        else:
            out.append(templates_dataset(*templates, num_random=num_random, seed=seed))
    return out


def run_checks(
    datasets: Sequence[SuiteDataset],
    families: Sequence[str],
    *,
    num_models: int = 4,
    dtype: DTypeLike = jnp.float64,
    seed: int = 0,
    chunk_size: int = 4096,
    mesh: Mesh | None = None,
    on_step: Callable[[str], None] | None = None,
) -> list[checks.Verdict]:
    """Every family on every dataset: random models (``num_models``, seeded), all propositions."""
    out = []
    for di, ds in enumerate(datasets):
        cols = None
        if ds.data is not None:
            cols = checks.independent_columns(ds.data, ds.vocab_size, chunk_size=chunk_size)
        for fi, name in enumerate(families):
            _validate.check_choice("families", name, tuple(checks.FAMILIES))
            fam = checks.FAMILIES[name]
            key = seed * 1_000_003 + di * 1009 + fi
            params = checks.random_models(
                fam, ds.vocab_size, ds.seq_len, ds.num_classes, key, num_models, dtype
            )
            out += checks.check_family(
                fam,
                params,
                ds.sets,
                ds.data,
                dataset=ds.name,
                chunk_size=chunk_size,
                columns=cols,
                mesh=mesh,
            )
            if on_step is not None:
                on_step(f"{ds.name} {name}")
    return out


def run_certificates(
    icqa: tuple[int, int, int] = (3, 3, 2),
    on_step: Callable[[str], None] | None = None,
    time_limit: float = 30.0,
) -> list[dict[str, Any]]:
    """Certificates + accuracy bounds: Theorem 2's toy set (3/4), Theorem 4's two templates, whole
    IC-QA."""
    from transformer_theory.tasks import InContextQA, TemplateMatching, toy
    from transformer_theory.theory import certificates

    jobs = []
    tok, lab = toy.toy_icl()
    jobs.append(
        (
            "theorem2 toy set",
            np.asarray(tok),
            np.asarray(lab),
            toy.TABLE1_REASONING_TASK.vocab_size,
            "exact",
        )
    )
    tm = TemplateMatching(3, ((0, 0), (0, 1)))
    x, y = tm.all()
    jobs.append(("theorem4 templates aa/ab", np.asarray(x), np.asarray(y), tm.vocab_size, "exact"))
    task = InContextQA(*icqa)
    x, y = task.all(limit=20000)
    jobs.append(
        (f"icqa{tuple(icqa)} whole", np.asarray(x), np.asarray(y), task.vocab_size, "sound")
    )
    out = []
    for name, x, y, vocab, method in jobs:
        for fam in certificates.FAMILIES:
            rec = certificates.certify_dataset(x, y, vocab, family=fam).to_dict()
            rec["dataset"] = name
            out.append(rec)
        b = certificates.accuracy_upper_bound(
            x, y, vocab, family="relu_any_heads", method=method, time_limit=time_limit
        ).to_dict()
        b["dataset"] = name
        out.append(b)
        if on_step is not None:
            on_step(f"certificate {name}")
    return out


def run_witnesses(
    seed: int = 0, steps: int = 300, restarts: int = 4, on_step: Callable[[str], None] | None = None
) -> list[WitnessRecord]:
    """Witness searches on Theorem 2's toy set for the out-of-scope families (and the in-scope
    control): :class:`~transformer_theory.theory.witness.WitnessRecord` objects, each found
    witness's model in ``record.params``."""
    from transformer_theory.theory import witness

    recs = witness.default_witness_searches(
        jax.random.PRNGKey(seed), steps=steps, restarts=restarts
    )
    if on_step is not None:
        on_step("witnesses")
    return recs


def run_suite(
    settings: VerifySettings,
    datasets: Sequence[SuiteDataset],
    *,
    mesh: Mesh | None = None,
    on_step: Callable[[str], None] | None = None,
) -> tuple[list[checks.Verdict], list[dict[str, Any]], list[WitnessRecord]]:
    """``transformer-theory verify``'s job for resolved ``settings`` on the built ``datasets``
    (:func:`build_datasets`): the checks of every family, then the certificates and the witness
    searches the settings ask for. Returns ``(verdicts, certificate records, witness records)``."""
    from transformer_theory.precision import dtype_of

    s = settings
    verdicts = run_checks(
        datasets,
        s.families,
        num_models=s.models,
        dtype=dtype_of(s.precision),
        seed=s.seed,
        chunk_size=s.chunk_size,
        mesh=mesh,
        on_step=on_step,
    )
    certified = run_certificates(icqa=s.icqa, on_step=on_step) if s.certificates else []
    found = []
    if s.witnesses:
        found = run_witnesses(s.seed, s.witness_steps, s.witness_restarts, on_step=on_step)
    return verdicts, certified, found
