"""The commands' registry: one entry per command (:class:`Command`: its module, its one-line
help, examples that run in under a minute and the files it writes, what its ``--help`` shows
beyond its module's docstring), and the default command. Data only; :mod:`._main` builds the
parser from it. Adding a command adds one entry here and its module.

Examples: ``(command line, what it shows and what it cost)``. Every command has one that runs in
under a minute: the seconds are CPU time (user + system) measured 2026-11-25 on a 2-core CPU
machine, each command run alone from a shell (the machine was shared with other jobs, so wall
times then were longer and are not quoted); the long runs README quotes are marked as such.
Outputs: the files the command writes (relative to ``--out`` unless said).
"""

from __future__ import annotations

import dataclasses

__all__ = ["COMMANDS", "DEFAULT_COMMAND", "EXAMPLES", "OUTPUTS", "REGISTRY", "Command"]


@dataclasses.dataclass(frozen=True)
class Command:
    """One command: ``module`` (its dotted name: ``add_arguments(parser)`` and ``run(args)``),
    ``help`` (one line), ``examples`` and ``outputs`` (see the module docstring)."""

    module: str
    help: str  # noqa: A003 - argparse's word
    examples: tuple[tuple[str, str], ...] = ()
    outputs: str | None = None


#: name -> its one entry.
REGISTRY: dict[str, Command] = {
    "verify": Command(
        "transformer_theory.cli.verify",
        "batch-verify Definition 3 and Propositions 7-10 (the main job)",
        examples=(
            (
                "transformer-theory verify --quick --out results/verify_quick",
                "smoke: toy dataset, 2 models; 20 s",
            ),
            (
                "transformer-theory verify --models 4 --out results/verify",
                "the main job (the defaults): 44 s in README",
            ),
        ),
        outputs=(
            "verify.json, verify.csv, verify.png and witness_<family>.npz (a previous run's are "
            "removed first)"
        ),
    ),
    "certify": Command(
        "transformer_theory.cli.certify",
        "certify that no one-layer model classifies a user's dataset",
        examples=(
            (
                "transformer-theory certify data.json --bound sound --out results/certify",
                (
                    'with data.json = {"tokens": [[0, 1, 2], [1, 0, 2], [0, 0, 2], [1, 1, 2]], '
                    '"labels": [0, 0, 1, 1], "vocab_size": 3}: the four dependent sequences of '
                    "Chen & Zou 2024, §11, which no one-layer model classifies; 2 s"
                ),
            ),
        ),
        outputs="certify.json",
    ),
    "construct": Command(
        "transformer_theory.cli.construct",
        "build and exhaustively check the constructions of Theorems 1, 3, 5, 6",
        examples=(
            (
                (
                    "transformer-theory construct --theorem 3 --n-q 6 --n-a 6 -k 2 --out "
                    "results/construct"
                ),
                "Theorem 3 checked on every example; 3 s",
            ),
        ),
        outputs="construct.json",
    ),
    "train": Command(
        "transformer_theory.cli.train",
        "train depth experiments (Flax NNX + Optax)",
        examples=(
            (
                (
                    "transformer-theory train --experiment fig2_paper --size smoke --seeds 0 "
                    "--tasks reasoning --out results/fig2_smoke"
                ),
                "smoke: the reasoning task at depths 1-4, tiny, 10-20 steps a run; 27 s",
            ),
            (
                (
                    "transformer-theory train --experiment fig2_depth --size quick --seeds 0 1 2 "
                    "--out results/fig2_quick"
                ),
                "Figure 2 at the quick size: minutes",
            ),
        ),
        outputs=(
            "one directory per run (checkpoints, metrics, result), summary.json, summary.csv, "
            "aggregate.csv, experiment.json and the figures"
        ),
    ),
    "plot": Command(
        "transformer_theory.cli.plot",
        "plot the metrics of a training output directory",
        examples=(
            (
                "transformer-theory plot results/fig2_smoke",
                "after the train smoke example; 2 s",
            ),
        ),
        outputs="the figures, redrawn in DIR",
    ),
    "demo": Command(
        "transformer_theory.cli.demo",
        "a small tour of the core",
        examples=(
            (
                "transformer-theory demo --seed 1",
                "6 s",
            ),
        ),
        outputs="nothing (prints only)",
    ),
    "collapse": Command(
        "transformer_theory.cli.collapse",
        "representational collapse by length and precision (Barbero et al. 2024)",
        examples=(
            (
                (
                    "transformer-theory collapse --depth 1,2 --positional none --max-len 128 "
                    "--points 4 --precision float64 --out results/collapse_small"
                ),
                "small: two models, four lengths; the 1/n rate and the derived limit; 24 s",
            ),
            (
                "transformer-theory collapse --out results/collapse",
                "the full default grid: 29 min in README; stopped, the same command resumes",
            ),
        ),
        outputs="collapse.json (rewritten after each model: resumable) and collapse.png",
    ),
    "oversquash": Command(
        "transformer_theory.cli.oversquash",
        "over-squashing: sensitivities vs attention paths, with a product-of-attention bound",
        examples=(
            (
                (
                    "transformer-theory oversquash --depth 1,2 --length 16 --out "
                    "results/oversquash_small"
                ),
                "small: two models, 16 tokens, the bound checked; 24 s",
            ),
            (
                "transformer-theory oversquash --out results/oversquash",
                "the defaults: 2 min in README",
            ),
        ),
        outputs="oversquash.json (rewritten after each model) and oversquash.png",
    ),
    "heads": Command(
        "transformer_theory.cli.heads",
        "classify attention heads of trained models (positional / syntactic / rare-token)",
        examples=(
            (
                "transformer-theory heads results/fig2_smoke --out results/heads",
                "the train smoke example's four models; 12 s",
            ),
        ),
        outputs="heads.json, heads.csv and <run>_heads.png",
    ),
    "ngram": Command(
        "transformer_theory.cli.ngram",
        "n-gram LMs as transformers (Svete & Cotterell 2024): exactness and precision",
        examples=(
            (
                (
                    "transformer-theory ngram --order 3 --alphabet 3 --max-len 6 --construction "
                    "3.1,3.3 --scan-limit 10 --precision float64,bfloat16 --out "
                    "results/ngram_small"
                ),
                "small: two constructions, exact in float64, broken in bfloat16; 33 s",
            ),
        ),
        outputs="ngram.json, ngram_precision.png (and ngram_soft.png with softmax)",
    ),
    "efficient-attention": Command(
        "transformer_theory.cli.efficient_attention",
        "efficient attention against exact attention: error vs budget, time and memory vs n",
        examples=(
            (
                (
                    "transformer-theory efficient-attention --variants "
                    "longformer,linformer,performer,dense --max-len 1024 --error-len 256 "
                    "--repeats 1 --out results/efficient_small"
                ),
                (
                    "small: four variants, time, memory and error up to n = 1024 (the slopes "
                    "need n >= 4096); 29 s"
                ),
            ),
            (
                "transformer-theory efficient-attention --max-len 16384 --out results/efficient",
                "README's run",
            ),
        ),
        outputs="cost.json, cost.csv, cost.png, errors.json, errors.csv, errors.png",
    ),
    "sanford": Command(
        "transformer_theory.cli.sanford",
        "build and check qSA / Match2 / Match3 constructions (Sanford et al. 2023)",
        examples=(
            (
                (
                    "transformer-theory sanford --task qsa,match2 --n 4,8 --q 1 --out "
                    "results/sanford_small"
                ),
                "small: qSA and Match2 at N = 4, 8; 19 s",
            ),
        ),
        outputs=(
            "<task>_N<N>_....json per configuration, sanford.json, qsa_m_min.png and "
            "<task>_precision.png"
        ),
    ),
    "claims": Command(
        "transformer_theory.cli.claims",
        "check the claims ledger: every statement of the papers, its status and evidence",
        examples=(
            (
                "transformer-theory claims --paper sanford2023 --out results/claims",
                "one paper's claims at the quick tier; 32 s",
            ),
        ),
        outputs="claims.json and claims.md (rewritten after each claim)",
    ),
    "experiment": Command(
        "transformer_theory.cli.experiment",
        "run a companion paper's trained experiment by name (--list shows them)",
        examples=(
            (
                "transformer-theory experiment --list",
                "the names, papers and sizes; 3 s",
            ),
            (
                (
                    "transformer-theory experiment qsa_separation --size smoke --out "
                    "results/qsa_smoke"
                ),
                "a paper's trained experiment at its smoke size; 12 s",
            ),
        ),
        outputs="what the experiment's run() writes (its config module's docstring says)",
    ),
    "languages": Command(
        "transformer_theory.cli.languages",
        "build and check MAJORITY / PARITY / Dyck-1 recognizers; PARITY's margin vs n",
        examples=(
            (
                (
                    "transformer-theory languages --max-len 32 --exhaustive-up-to 8 "
                    "--parity-lengths 64 --out results/languages_small"
                ),
                "small: every recognizer row, a short PARITY sweep; 24 s",
            ),
        ),
        outputs=(
            "languages_<construction>.json, languages.json, parity_precision.json, "
            "languages_margin.png and parity_precision.png"
        ),
    ),
    "rasp": Command(
        "transformer_theory.cli.rasp",
        "compile a RASP program into the one parameter format and check it on every input",
        examples=(
            (
                "transformer-theory rasp reverse --max-len 5 --out results/rasp_reverse",
                "reverse on every input over abc up to length 5, float64; 10 s",
            ),
        ),
        outputs=(
            "model.npz (the compiled ModelParams), rasp.json (sizes, check, margins, constants, "
            "labels, precision limits) and rasp.png (residual layout and attention maps)"
        ),
    ),
}
DEFAULT_COMMAND = "verify"

#: Views of :data:`REGISTRY`, by what ``--help`` and the tests read: name -> (module, help),
#: name -> examples, name -> outputs.
COMMANDS: dict[str, tuple[str, str]] = {n: (c.module, c.help) for n, c in REGISTRY.items()}
EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    n: c.examples for n, c in REGISTRY.items() if c.examples
}
OUTPUTS: dict[str, str] = {n: c.outputs for n, c in REGISTRY.items() if c.outputs is not None}
