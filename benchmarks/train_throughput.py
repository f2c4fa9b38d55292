"""Training throughput: the fast train step against the general dense one, in the same run.

For each task and depth, builds the run exactly as the Figure 2 experiments do
(:func:`transformer_theory.experiments.build_run`, ``--size paper`` = Chen & Zou 2024, §9.1's
sizes, e.g. reasoning B = 256, N = 11, D = 212; contextual B = 256, N = 20, D = 228), compiles the
jitted NNX train step twice -- once with the general dense forward pass (``core.forward`` vmapped)
and once with :func:`transformer_theory.nn.fast.batch_logits`'s fast path (first layer as a
column lookup, last layer for the last query only) -- asserts that both give the same first-step
loss, then times ``--steps`` steps of each on the SAME pre-drawn batches (batch sampling excluded,
so the ratio is the step's). Reports steps/s of both and their ratio, XLA's cost analysis
(GFLOP per step, GFLOP/s) and the fraction of the float32 matmul peak measured in the same run
(a jitted ``1024 x 1024`` matmul). Writes the table to ``--out`` as CSV and JSON.

Command (2 CPU cores, a few minutes at paper size)::

    python benchmarks/train_throughput.py --size paper --tasks reasoning contextual \\
        --depths 1 2 3 --steps 30 --out results/benchmarks

Measured 2026-11-22 on the 2-core development machine while it was shared (load average ~16, so
absolute numbers are low and noisy; the ratio is the figure of merit), 30 steps per path:
see the report of issue 15 for the table.

A PyTorch twin is not part of this benchmark: PyTorch is not installed in the project's
environment (it is no dependency, and no test needs it).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from transformer_theory.experiments import TASK_NAMES, RunSpec, build_run
from transformer_theory.nn import from_params
from transformer_theory.train.loop import cached_steps, make_optimizer


def matmul_peak_gflops(size: int = 1024, repeats: int = 20) -> float:
    """Float32 GFLOP/s of a jitted ``size x size`` matmul on this machine, now (best of 3)."""
    a = jnp.ones((size, size), jnp.float32)
    mm = jax.jit(lambda x: x @ x)
    jax.block_until_ready(mm(a))
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(repeats):
            out = mm(a)
        jax.block_until_ready(out)
        best = max(best, 2 * size**3 * repeats / (time.perf_counter() - t0) / 1e9)
    return best


def _time_path(graphdef, state, opt_state, tc, batches, fast: bool):
    step = cached_steps(
        graphdef, tc.optimizer, tc.learning_rate, tc.momentum, tc.grad_clip, fast=fast
    )[0]
    tokens, labels = batches[0]
    flops = step.lower(state, opt_state, tokens, labels).compile().cost_analysis()
    flops = flops[0] if isinstance(flops, list) else flops
    t0 = time.perf_counter()
    _, _, first_loss, _ = step(state, opt_state, tokens, labels)
    jax.block_until_ready(first_loss)
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for tokens, labels in batches:
        state, opt_state, loss, _ = step(state, opt_state, tokens, labels)
    jax.block_until_ready(loss)
    dt = time.perf_counter() - t0
    return float(first_loss), float(flops.get("flops", float("nan"))), compile_s, len(batches) / dt


def measure(task: str, depth: int, steps: int, size: str, peak: float) -> dict:
    params, data, tc, _ = build_run(RunSpec(task, (1,) * depth, 0, size))
    graphdef, state = nnx.split(from_params(params))
    opt_state = make_optimizer(tc).init(state)
    key = jax.random.key(0)
    batches = [data.batch(jax.random.fold_in(key, s), tc.batch_size) for s in range(steps)]
    dense = _time_path(graphdef, state, opt_state, tc, batches, fast=False)
    fast = _time_path(graphdef, state, opt_state, tc, batches, fast=True)
    # Same weights, same batch: float32 rounding of a sum over D ~ 200 terms, ~1e-6 relative.
    np.testing.assert_allclose(fast[0], dense[0], rtol=1e-4, err_msg="fast vs dense first loss")
    tokens, labels = batches[0]
    row = dict(task=task, depth=depth, batch=int(labels.shape[0]), seq_len=int(tokens.shape[1]))
    row["width"] = params.config.width
    for name, (_, flops, compile_s, rate) in (("dense", dense), ("fast", fast)):
        row[f"{name}_first_step_s"] = round(compile_s, 2)
        row[f"{name}_steps_per_s"] = round(rate, 1)
        row[f"{name}_gflop_per_step"] = round(flops / 1e9, 3)
        row[f"{name}_gflop_per_s"] = round(flops * rate / 1e9, 1)
        row[f"{name}_peak_fraction"] = round(flops * rate / 1e9 / peak, 3)
    row["speedup"] = round(fast[3] / dense[3], 2)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--size", choices=("quick", "paper"), default="paper")
    ap.add_argument("--depths", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--tasks", nargs="+", default=["reasoning", "contextual"], choices=TASK_NAMES)
    ap.add_argument("--out", default="results/benchmarks")
    args = ap.parse_args(argv)
    if args.steps < 1 or min(args.depths) < 1:
        ap.error("--steps and --depths must be positive")
    peak = matmul_peak_gflops()
    rows = [measure(t, d, args.steps, args.size, peak) for t in args.tasks for d in args.depths]
    device = f"{jax.devices()[0].platform} x{jax.device_count()}, load {os.getloadavg()[0]:.1f}"
    cols = list(rows[0])
    lines = [
        f"device: {device}; float32 matmul peak {peak:.1f} GFLOP/s; {args.steps} timed steps "
        "per path",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
    ]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    print("\n".join(lines))
    os.makedirs(args.out, exist_ok=True)
    record = {"device": device, "peak_gflop_per_s": peak, "steps": args.steps, "rows": rows}
    with open(os.path.join(args.out, "train_throughput.json"), "w") as f:
        json.dump(record, f, indent=1)
    with open(os.path.join(args.out, "train_throughput.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
