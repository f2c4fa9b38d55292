"""Batch-verify Chen & Zou's Definition 3 and Propositions 7-10 (with controls), certificates and
witnesses.

``transformer-theory verify`` (the default command; also ``python -m transformer_theory``) runs
every model family of ``theory.checks.FAMILIES`` on random models against the paper's dependent
sets and whole datasets, then certificates and witness searches, prints a verdict table and writes
``verify.json``, ``verify.csv`` and ``verify.png`` to ``--out``. The exit status is 1 when an
in-scope proposition fails (or a witness is found inside a theorem's scope): a bug or a discovery.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Sequence

from transformer_theory import budget
from transformer_theory.cli import _common

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
# average 24): the estimate is for an idle machine.
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


def _size(n: float) -> str:
    return budget.format_bytes(n) if n < 2**60 else f"{n:.2g} bytes"


def _time(s: float) -> str:
    return budget.format_seconds(s) if s < 1e6 else f"{s / 3600:.2g} h"


def check_budget(
    args: argparse.Namespace, families: Sequence[str], datasets: Sequence[str]
) -> Estimate:
    """Refuse (``UsageError`` / ``BudgetError``, exit 2) a run whose datasets exceed the suite's
    limits or whose estimate exceeds this machine's memory or the time budget; else the
    estimate."""
    if "icqa" in datasets:
        from transformer_theory.tasks import InContextQA

        try:
            size = InContextQA(*args.icqa).size
        except ValueError as err:
            raise _common.UsageError(f"--icqa: {err}") from None
        if size > ICQA_LIMIT:
            raise _common.UsageError(
                f"--icqa: {','.join(map(str, args.icqa))} has {size:,} sequences, more than the "
                f"{ICQA_LIMIT:,} the suite enumerates (it builds the dataset's exact dependence "
                "basis); use smaller sizes"
            )
    est = estimate(
        datasets,
        families,
        icqa=args.icqa,
        templates=args.templates,
        models=args.models,
        chunk_size=args.chunk_size,
        random_sets=args.random_sets,
    )
    if "templates" in datasets:
        a, length = args.templates
        option = "--templates"
        if est.template_sequences > TEMPLATES_LIMIT:
            raise _common.UsageError(
                f"{option}: {a},{length} has {est.template_sequences:.3g} sequences in "
                f"{est.templates:.3g} templates, more than the {TEMPLATES_LIMIT:,} the suite "
                f"enumerates (its sets would need about {_size(est.bytes)} and "
                f"{_time(est.seconds)}); use smaller sizes"
            )
    option = (
        "--templates/--chunk-size/--models"
        if "templates" in datasets
        else ("--chunk-size/--models")
    )
    budget.check_memory(est.bytes, what="this verification run", option=option)
    # The witness options are checked even where --quick or --no-witnesses skips the searches: a
    # value no run could afford is a mistake either way.
    witness_option = "--witness-steps/--witness-restarts"
    witness_s = budget.check_seconds(
        witness_seconds(args.witness_steps, args.witness_restarts),
        what="the witness searches",
        option=witness_option,
    )
    seconds_option = option.replace("--chunk-size/", "") if "templates" in datasets else "--models"
    if not args.no_witnesses:
        if witness_s > est.seconds:
            seconds_option += "/" + witness_option
        est = dataclasses.replace(est, seconds=est.seconds + witness_s)
    budget.check_seconds(
        est.seconds,
        what=f"this verification run ({est.sequences:.3g} sequence evaluations"
        + ("" if args.no_witnesses else " and the witness searches")
        + ")",
        option=seconds_option,
    )
    return est


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--out",
        default="./results/verify",
        help="output directory (default ./results/verify); the files a previous verify run wrote "
        "there (verify.json/csv/png, witness_*.npz) are removed before this run starts",
    )
    p.add_argument(
        "--datasets", default="toy,icqa,templates", help="comma list of toy, icqa, templates"
    )
    p.add_argument(
        "--families", default="all", help="comma list of checks.FAMILIES names, or 'all'"
    )
    p.add_argument(
        "--icqa",
        type=_common.int_list(3),
        default=(3, 3, 2),
        metavar="NQ,NA,K",
        help="in-context QA sizes: exactly three integers (default 3,3,2)",
    )
    p.add_argument(
        "--templates",
        type=_common.int_list(2),
        default=(4, 3),
        metavar="ALPHABET,L",
        help="template task sizes: exactly two integers (default 4,3)",
    )
    p.add_argument(
        "--random-sets",
        type=_common.nonnegative_int,
        default=8,
        help="random dependent sets per dataset",
    )
    p.add_argument(
        "--models",
        type=_common.positive_int,
        default=None,
        help="random models per family and dataset (default 4; 2 with --quick)",
    )
    p.add_argument(
        "--precision",
        choices=("float64", "float32"),
        default="float64",
        help="float format of the random models and the checks",
    )
    p.add_argument(
        "--seed",
        type=_common.nonnegative_int,
        default=0,
        help="PRNG seed of the datasets' random sets, the models and the witness searches",
    )
    p.add_argument(
        "--chunk-size",
        type=_common.positive_int,
        default=4096,
        help="sequences per device call (memory bound)",
    )
    p.add_argument(
        "--no-certificates", action="store_true", help="skip certificates and accuracy bounds"
    )
    p.add_argument("--no-witnesses", action="store_true", help="skip witness searches")
    p.add_argument(
        "--witness-steps",
        type=_common.positive_int,
        default=300,
        help="Adam steps per witness search restart",
    )
    p.add_argument(
        "--witness-restarts",
        type=_common.positive_int,
        default=4,
        help="restarts per witness search (run at once, vmapped)",
    )
    p.add_argument("--no-shard", action="store_true", help="do not shard over local devices")
    p.add_argument(
        "--quick",
        action="store_true",
        help="smoke mode: toy dataset, 2 models (unless --models), no witnesses (CI)",
    )


def run(args: argparse.Namespace) -> int:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    from transformer_theory import parallel
    from transformer_theory.cli import report
    from transformer_theory.progress import tqdm
    from transformer_theory.theory import checks, suite

    if args.quick:
        args.datasets, args.no_witnesses, args.random_sets = "toy", True, 4
    if args.models is None:
        args.models = 2 if args.quick else 4
    # Every check of the user's input comes before any computation.
    families = _common.name_list(args.families, checks.FAMILIES, "--families")
    names = _common.name_list(args.datasets, DATASETS, "--datasets")
    # The cost from the settings alone, before anything is built (README, "Exit status").
    est = check_budget(args, families, names)
    out = _common.prepare_out_dir(args.out)
    print(
        f"estimate: peak memory ~{_size(est.bytes)}, ~{_time(est.seconds)} of checks "
        f"({est.sequences:.3g} sequence evaluations"
        + ("" if args.no_witnesses else " and the witness searches")
        + "; certificates not included)",
        flush=True,
    )
    try:
        datasets = suite.build_datasets(
            names,
            icqa=args.icqa,
            templates=args.templates,
            num_random=args.random_sets,
            seed=args.seed,
        )
    except ValueError as e:
        raise _common.UsageError(str(e)) from None
    report.clear_outputs(out)
    dtype = jnp.float64 if args.precision == "float64" else jnp.float32
    mesh = None
    if not args.no_shard and jax.local_device_count() > 1:
        mesh = parallel.make_mesh(args.models)
    t0 = time.perf_counter()
    total = (
        len(datasets) * len(families)
        + (0 if args.no_certificates else 3)
        + (0 if args.no_witnesses else 1)
    )
    bar = tqdm(total=total, desc="verify", unit="job", disable=None)

    def step(label):
        bar.set_postfix_str(label[:40])
        bar.update(1)

    verdicts = suite.run_checks(
        datasets,
        families,
        num_models=args.models,
        dtype=dtype,
        seed=args.seed,
        chunk_size=args.chunk_size,
        mesh=mesh,
        on_step=step,
    )
    extra = []
    if not args.no_certificates:
        extra += suite.run_certificates(icqa=args.icqa, on_step=step)
    witness_fail = False
    if not args.no_witnesses:
        recs = report.save_witnesses(
            out,
            suite.run_witnesses(args.seed, args.witness_steps, args.witness_restarts, on_step=step),
        )
        extra += recs
        witness_fail = any(r.get("found") and r.get("in_scope") for r in recs)
    bar.close()

    print(report.format_table(verdicts))
    for r in extra:
        if r.get("kind") == "certificate":
            print(f"[certificate] {r['dataset']}: {report.certificate_line(r)}")
        elif r.get("kind") == "accuracy_bound":
            print(
                f"[bound] {r['dataset']}: {r['family']} accuracy <= "
                f"{r['upper_bound_fraction']} ({r['method']}, exact={r['exact']})"
            )
        elif r.get("kind") == "witness":
            print(report.witness_line(r))
    paths = report.write_outputs(out, verdicts, extra)
    failed = [v for v in verdicts if v.failed]
    n_in = sum(v.expected for v in verdicts)
    print(
        f"{len(verdicts)} verdicts ({n_in} in scope, {len(verdicts) - n_in} controls), "
        f"{len(failed)} in-scope failures; "
        f"devices {jax.local_device_count()}; {time.perf_counter() - t0:.1f}s; "
        f"wrote {', '.join(paths)}"
    )
    if failed or witness_fail:
        print(
            "FAILURE: an in-scope relation does not hold (or a witness exists inside a "
            "theorem's scope): a bug or a discovery",
            file=sys.stderr,
        )
        return 1
    return 0
