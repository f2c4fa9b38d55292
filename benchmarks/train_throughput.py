"""Training throughput of the quick experiment configs: compile time, steps/s and examples/s.

For each task of the quick setup table (:data:`transformer_theory.experiments.QUICK`) and each
depth, builds the run exactly as the Figure 2 experiment does
(:func:`transformer_theory.experiments.build_run`), compiles the jitted NNX train step
(``nnx.split -> jax.jit -> nnx.merge``), then times ``--steps`` steps (batch sampling included, as
in the real loop) after one warm-up step. Prints one markdown table and writes it to ``--out`` as
CSV and JSON.

Command (2 CPU cores, about a minute)::

    python benchmarks/train_throughput.py --steps 200 --out results/benchmarks

Timings on a shared machine are noisy; the table states the device and the machine load.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time

import jax
from flax import nnx

from transformer_theory.experiments import TASK_NAMES, RunSpec, build_run
from transformer_theory.nn import from_params
from transformer_theory.train.loop import cached_steps, make_optimizer


def measure(task: str, depth: int, steps: int) -> dict:
    params, data, tc, meta = build_run(RunSpec(task, (1,) * depth, 0, "quick"))
    graphdef, state = nnx.split(from_params(params))
    opt_state = make_optimizer(tc).init(state)
    train_step, _ = cached_steps(
        graphdef, tc.optimizer, tc.learning_rate, tc.momentum, tc.grad_clip
    )
    key = jax.random.key(0)
    tokens, labels = data.batch(jax.random.fold_in(key, 0), tc.batch_size)
    t0 = time.perf_counter()
    state, opt_state, loss, _ = train_step(state, opt_state, tokens, labels)
    jax.block_until_ready(loss)
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for s in range(1, steps + 1):
        tokens, labels = data.batch(jax.random.fold_in(key, s), tc.batch_size)
        state, opt_state, loss, _ = train_step(state, opt_state, tokens, labels)
    jax.block_until_ready(loss)
    dt = time.perf_counter() - t0
    batch = int(labels.shape[0])
    return dict(
        task=task,
        depth=depth,
        batch=batch,
        seq_len=int(tokens.shape[1]),
        width=params.config.width,
        compile_s=round(compile_s, 3),
        steps_per_s=round(steps / dt, 1),
        examples_per_s=round(steps * batch / dt, 0),
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--depths", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--tasks", nargs="+", default=list(TASK_NAMES))
    ap.add_argument("--out", default="results/benchmarks")
    args = ap.parse_args(argv)
    rows = [measure(t, d, args.steps) for t in args.tasks for d in args.depths]
    device = f"{jax.devices()[0].platform} x{jax.device_count()}, load {os.getloadavg()[0]:.1f}"
    cols = list(rows[0])
    lines = [
        f"device: {device}; {args.steps} timed steps per row",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
    ]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    print("\n".join(lines))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "train_throughput.json"), "w") as f:
        json.dump({"device": device, "steps": args.steps, "rows": rows}, f, indent=1)
    with open(os.path.join(args.out, "train_throughput.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
