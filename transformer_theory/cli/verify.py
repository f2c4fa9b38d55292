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
import sys
import time

from transformer_theory.cli import _common

DATASETS = ("toy", "icqa", "templates")


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
        default=4,
        help="random models per family and dataset",
    )
    p.add_argument("--precision", choices=("float64", "float32"), default="float64")
    p.add_argument("--seed", type=_common.nonnegative_int, default=0)
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
    p.add_argument("--witness-steps", type=_common.positive_int, default=300)
    p.add_argument("--witness-restarts", type=_common.positive_int, default=4)
    p.add_argument("--no-shard", action="store_true", help="do not shard over local devices")
    p.add_argument(
        "--quick", action="store_true", help="smoke mode: toy dataset, 2 models, no witnesses (CI)"
    )


def run(args) -> int:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from tqdm.auto import tqdm

    from transformer_theory import parallel
    from transformer_theory.cli import report
    from transformer_theory.theory import checks, suite

    if args.quick:
        args.datasets, args.models, args.no_witnesses, args.random_sets = "toy", 2, True, 4
    # Every check of the user's input comes before any computation.
    families = _common.name_list(args.families, checks.FAMILIES, "--families")
    names = _common.name_list(args.datasets, DATASETS, "--datasets")
    out = _common.prepare_out_dir(args.out)
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
