"""Certify that no one-layer model classifies a user's labelled dataset (Chen & Zou 2024, §11,
§13.1, §14.1, §16).

``transformer-theory certify FILE [--family F] [--bound exact|sound|none] [--out DIR]`` reads a
dataset (JSON ``{"tokens": [[...]], "labels": [...], "vocab_size": d}`` or NPZ with arrays
``tokens``, ``labels`` and optional ``vocab_size``), solves the linear relaxation of
:mod:`transformer_theory.theory.certificates`, prints the verdict (with the exactly re-verified
certificate) and an upper bound on the accuracy, and writes ``DIR/certify.json``.
Exit status: 0 when the run completed (whatever the verdict: a certificate is a finding about the
dataset, not a failed claim), 2 for a malformed file or option (checked before any work).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from typing import Literal

from transformer_theory.cli import _common
from transformer_theory.cli._common import add_output
from transformer_theory.cli._options import add_settings
from transformer_theory.settings import check_minimums, from_args, setting

_FAMILIES = ("relu_any_heads", "softmax_one_head")


@dataclasses.dataclass(frozen=True)
class CertifySettings:
    """What one certify run reads and proves.

    Attributes:
      file: dataset: .json {tokens, labels, vocab_size} or .npz with arrays tokens,
        labels[, vocab_size].
      family: one-layer family to certify against.
      bound: accuracy upper bound: exact (hitting-set MILP, small sets), sound (disjoint
        cores), or none.
      time_limit: seconds for the whole command, loading included (when exhausted, undecided
        groups are reported as such and the bound is the best sound one found so far).
      minimize: shrink the LP's certificate (--no-minimize keeps its first one).
    """

    file: str = setting(flag="FILE")
    family: Literal["relu_any_heads", "softmax_one_head", "all"] = "all"
    bound: Literal["exact", "sound", "none"] = "exact"
    time_limit: float = setting(60.0, positive=True)
    minimize: bool = True

    def __post_init__(self) -> None:
        check_minimums(self)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_settings(p, CertifySettings)
    add_output(p, os.path.join("results", "certify"), help="output directory for certify.json")


def _print_certificate(cert, tokens) -> None:
    if cert.size <= 12:
        for e in cert.examples:
            print(f"    example {e}: tokens {tokens[e].tolist()}")
    for line in (
        cert.explain().splitlines()[1:]
        if cert.size <= 12
        else [f"    ({cert.size} examples; see certify.json)"]
    ):
        print("    " + line)


def run(args: argparse.Namespace) -> int:
    from transformer_theory import verify_outputs
    from transformer_theory.saveload import load_dataset

    # The time limit covers the whole command, loading and counting included.
    settings = from_args(CertifySettings, args)
    deadline = time.perf_counter() + settings.time_limit
    out_dir = _common.prepare_out_dir(args.out)
    from transformer_theory import budget
    from transformer_theory.saveload import dataset_memory_bytes

    budget.check_memory(
        dataset_memory_bytes(settings.file), what=f"reading {settings.file}", option="FILE"
    )
    try:
        data = load_dataset(settings.file)
    except ValueError as err:
        raise _common.UsageError(f"FILE: {err}") from None
    s = data.summary()
    print(
        f"dataset {s.name}: {s.num_examples} sequences of length {s.seq_len}, "
        f"vocabulary {s.vocab_size}{' (inferred)' if s.vocab_size_inferred else ''}, "
        f"{s.num_classes} classes, last tokens {list(s.last_tokens)}"
    )

    def contradictions(groups):
        for rows in groups[:5]:
            labels = sorted({int(data.labels_B[r]) for r in rows})
            print(
                f"[any model, any depth] IMPOSSIBLE: rows {list(rows)} hold the same sequence "
                f"under labels {labels}"
            )
        if len(groups) > 5:
            print(f"    ... {len(groups)} such groups in all (see certify.json)")

    def family(done):
        rec = done.certificate
        line = verify_outputs.certificate_line(done.entry.certificate)
        print(f"[{done.family}] {line} ({rec.seconds:.2f} s)")
        if rec.certificate is not None:
            _print_certificate(rec.certificate, data.tokens_BxN)
        if done.bound is not None:
            line = verify_outputs.bound_line(done.entry.bound)
            print(f"[{done.family}] {line} ({done.bound.seconds:.2f} s)")

    verify_outputs.run_certify(
        data,
        out_dir,
        file=settings.file,
        families=_FAMILIES if settings.family == "all" else (settings.family,),
        bound=settings.bound,
        minimize=settings.minimize,
        deadline=deadline,
        on_contradictions=contradictions,
        on_family=family,
    )
    print(f"wrote {os.path.join(out_dir, 'certify.json')}")
    return 0
