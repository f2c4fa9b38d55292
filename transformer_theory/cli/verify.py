"""Batch-verify Chen & Zou's Definition 3 and Propositions 7-10 (with controls), certificates and
witnesses.

``transformer-theory verify`` (the default command; also ``python -m transformer_theory``) runs
every model family of ``theory.checks.FAMILIES`` on random models against the paper's dependent
sets and whole datasets, then certificates and witness searches, prints a verdict table and writes
``verify.json``, ``verify.csv`` and ``verify.png`` to ``--out``. The exit status is 1 when an
in-scope proposition fails (or a witness is found inside a theorem's scope): a bug or a discovery.
The options are the fields of :class:`~transformer_theory.theory.suite.VerifySettings`; the run's
cost is estimated from them (:func:`~transformer_theory.theory.suite.check_budget`) and printed
before any work.
"""

from __future__ import annotations

import argparse
import sys
import time

from transformer_theory import budget, settings
from transformer_theory.cli import _common
from transformer_theory.cli._common import add_output
from transformer_theory.cli._options import add_settings
from transformer_theory.theory._verify_settings import VerifySettings, template_counts

__all__ = ["X64", "add_arguments", "run", "template_counts"]

X64 = True  # the checks run in float64 (--precision float32 makes float32 models on top)


def _size(n: float) -> str:
    return budget.format_bytes(n) if n < 2**60 else f"{n:.2g} bytes"


def _time(s: float) -> str:
    return budget.format_seconds(s) if s < 1e6 else f"{s / 3600:.2g} h"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_output(
        p,
        "./results/verify",
        help="output directory (default ./results/verify); the files a previous verify run wrote "
        "there (verify.json/csv/png, witness_*.npz) are removed before this run starts",
    )
    add_settings(p, VerifySettings)


def run(args: argparse.Namespace) -> int:
    import jax

    from transformer_theory import verify_outputs
    from transformer_theory.progress import tqdm
    from transformer_theory.theory import suite

    # Every check of the user's input comes before any computation; the cost from the settings
    # alone, before anything is built (README, "Exit status").
    s = settings.from_args(VerifySettings, args).resolved()
    with settings.naming_options(VerifySettings):  # the suite names fields: show the options
        est = suite.check_budget(s)
    out = _common.prepare_out_dir(args.out)
    print(
        f"estimate: peak memory ~{_size(est.bytes)}, ~{_time(est.seconds)} of checks "
        f"({est.sequences:.3g} sequence evaluations"
        + (" and the witness searches" if s.witnesses else "")
        + "; certificates not included)",
        flush=True,
    )
    try:
        datasets = suite.build_datasets(
            s.datasets, icqa=s.icqa, templates=s.templates, num_random=s.random_sets, seed=s.seed
        )
    except ValueError as e:
        raise _common.UsageError(str(e)) from None
    t0 = time.perf_counter()
    total = len(datasets) * len(s.families) + 3 * s.certificates + s.witnesses
    bar = tqdm(total=total, desc="verify", unit="job", disable=None)

    def step(label):
        bar.set_postfix_str(label[:40])
        bar.update(1)

    result = verify_outputs.run_verify(s, datasets, out, on_step=step)
    bar.close()

    print(verify_outputs.format_table(result.verdicts))
    lines = verify_outputs.suite_lines(result.suite_records)
    for line in lines + [verify_outputs.witness_line(w.to_dict()) for w in result.witnesses]:
        print(line)
    verdicts, failed, paths = result.verdicts, result.failed, result.files
    n_in = sum(v.expected for v in verdicts)
    print(
        f"{len(verdicts)} verdicts ({n_in} in scope, {len(verdicts) - n_in} controls), "
        f"{len(failed)} in-scope failures; "
        f"devices {jax.local_device_count()}; {time.perf_counter() - t0:.1f}s; "
        f"wrote {', '.join(paths)}"
    )
    if failed or result.witness_failed:
        print(
            "FAILURE: an in-scope relation does not hold (or a witness exists inside a "
            "theorem's scope): a bug or a discovery",
            file=sys.stderr,
        )
        return 1
    return 0
