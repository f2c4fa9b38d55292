"""Certify that no one-layer model classifies a user's labelled dataset (Chen & Zou 2024, §11,
§13.1, §14.1, §16).

``transformer-theory certify FILE [--family F] [--bound exact|sound|none] [--out DIR]`` reads a
dataset (JSON ``{"tokens": [[...]], "labels": [...], "vocab_size": d}`` or NPZ with arrays
``tokens``, ``labels`` and optional ``vocab_size``), solves the linear relaxation of
:mod:`transformer_theory.theory.certificates`, prints the verdict (with the exactly re-verified
certificate) and an upper bound on the accuracy, and writes ``DIR/certify.json``.
Exit status: 0 when the run completed (whatever the verdict), 2 for a malformed file or option.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

_FAMILIES = ("relu_any_heads", "softmax_one_head")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        help="dataset: .json {tokens, labels, vocab_size} or .npz with arrays tokens, "
        "labels[, vocab_size]",
    )
    p.add_argument(
        "--family",
        choices=_FAMILIES + ("all",),
        default="all",
        help="one-layer family to certify against",
    )
    p.add_argument(
        "--bound",
        choices=("exact", "sound", "none"),
        default="exact",
        help="accuracy upper bound: exact (hitting-set MILP, small sets), sound (disjoint "
        "cores), or none",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=60.0,
        help="seconds for the bound (when exhausted, the best sound bound found so far is "
        "reported)",
    )
    p.add_argument(
        "--out",
        default=os.path.join("results", "certify"),
        help="output directory for certify.json",
    )
    p.add_argument(
        "--no-minimize",
        action="store_true",
        help="keep the LP's first certificate instead of shrinking it",
    )


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


def run(args) -> int:
    from transformer_theory.files import load_dataset
    from transformer_theory.theory import certificates

    try:
        if args.time_limit <= 0:
            raise ValueError(
                f"--time-limit: expected a positive number of seconds, got {args.time_limit}"
            )
        data = load_dataset(args.file)
    except ValueError as err:
        print(f"transformer-theory certify: error: {err}", file=sys.stderr)
        return 2
    s = data.summary()
    print(
        f"dataset {s['name']}: {s['num_examples']} sequences of length {s['seq_len']}, "
        f"vocabulary {s['vocab_size']}"
        f"{' (inferred)' if s['vocab_size_inferred'] else ''}, {s['num_classes']} "
        f"classes, last tokens {s['last_tokens']}"
    )
    families = _FAMILIES if args.family == "all" else (args.family,)
    out = {"kind": "certify", "dataset": s, "file": os.path.abspath(args.file), "results": []}
    cache = {}
    for fam in families:
        rec = certificates.certify_dataset(
            data.tokens_BxN,
            data.labels_B,
            data.vocab_size,
            data.num_classes,
            fam,
            minimize=not args.no_minimize,
        )
        print(f"[{fam}] {rec.message} ({rec.seconds:.2f} s)")
        if rec.certificate is not None:
            _print_certificate(rec.certificate, data.tokens_BxN)
        entry = {"certificate": rec.to_dict()}
        if args.bound != "none":
            # Both families share one relaxation, so the bound is computed once and relabelled.
            if args.bound not in cache:
                cache[args.bound] = certificates.accuracy_upper_bound(
                    data.tokens_BxN,
                    data.labels_B,
                    data.vocab_size,
                    data.num_classes,
                    fam,
                    method=args.bound,
                    time_limit=args.time_limit,
                    minimize=not args.no_minimize,
                )
            b = cache[args.bound]
            bd = b.to_dict()
            bd["family"] = fam
            bd["message"] = b.message.replace(b.family, fam)
            print(f"[{fam}] accuracy {bd['message']} ({b.seconds:.2f} s)")
            entry["bound"] = bd
        out["results"].append(entry)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "certify.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
    print(f"wrote {path}")
    return 0
