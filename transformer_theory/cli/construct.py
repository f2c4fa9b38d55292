"""Build the Chen & Zou 2024 constructions (Theorems 1, 3, 5, 6) and check them on every example (or
a sample).

Prints a table (theorem, task, sizes, layers, heads, d', examples checked, accuracy, min margin)
and writes it as JSON to ``--out/construct.json``. Example::

    transformer-theory construct --theorem 3 --n-q 6 --n-a 6 -k 2
    transformer-theory construct --theorem 6 --alphabet 100 --n-a 100 --ictm-template-length 5 -k 3
    --samples 100000
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    from transformer_theory.constructions.report import THEOREMS, Sizes

    dflt = Sizes()
    p.add_argument(
        "--theorem",
        type=int,
        nargs="+",
        choices=THEOREMS,
        default=list(THEOREMS),
        help="which theorems (default: all)",
    )
    p.add_argument("--alphabet", type=int, default=dflt.alphabet, help="symbols (Theorems 1, 5, 6)")
    p.add_argument(
        "--length", type=int, default=dflt.length, help="sequence length before the CLS (Theorem 1)"
    )
    p.add_argument(
        "--num-sequences", type=int, default=dflt.num_sequences, help="N sequences (Theorem 1)"
    )
    p.add_argument(
        "--template-length",
        type=int,
        default=dflt.template_length,
        help="l: all templates of this length (Theorem 5)",
    )
    p.add_argument(
        "--ictm-template-length",
        type=int,
        default=dflt.ictm_template_length,
        help="l: all templates of this length (Theorem 6)",
    )
    p.add_argument("--n-q", type=int, default=dflt.n_q, help="questions (Theorem 3)")
    p.add_argument("--n-a", type=int, default=dflt.n_a, help="answers (Theorems 3, 6)")
    p.add_argument(
        "-k",
        type=int,
        default=dflt.k,
        help="question-answer pairs / context blocks (Theorems 3, 6)",
    )
    p.add_argument(
        "--samples", type=int, default=None, help="check this many sampled examples instead of all"
    )
    p.add_argument("--seed", type=int, default=0, help="PRNG seed of the sampled check")
    p.add_argument("--chunk-size", type=int, default=4096, help="examples per device call")
    p.add_argument(
        "--out",
        default=os.path.join(".", "results", "construct"),
        help="output directory for construct.json",
    )


def run(args) -> int:
    import jax

    jax.config.update("jax_enable_x64", True)
    from transformer_theory.constructions.report import Sizes, construction_rows, format_table

    sizes = Sizes(
        alphabet=args.alphabet,
        length=args.length,
        num_sequences=args.num_sequences,
        template_length=args.template_length,
        ictm_template_length=args.ictm_template_length,
        n_q=args.n_q,
        n_a=args.n_a,
        k=args.k,
    )
    try:
        rows = construction_rows(
            args.theorem,
            sizes,
            samples=args.samples,
            seed=args.seed,
            chunk_size=args.chunk_size,
            progress=sys.stderr.isatty(),
        )
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(format_table(rows))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "construct.json")
    with open(path, "w") as f:
        json.dump(
            dict(sizes=dataclasses.asdict(sizes), samples=args.samples, seed=args.seed, rows=rows),
            f,
            indent=2,
        )
    print(f"wrote {path}")
    return 0 if all(r["accuracy"] == 1.0 and r["min_margin"] > 0 for r in rows) else 1
