"""Training throughput: the fast train step against the general dense one, in the same run.

For each task and depth, builds the run exactly as the Figure 2 experiments do
(:func:`transformer_theory.sweeps.build_run`, ``--size paper`` = Chen & Zou 2024, §9.1's
sizes, e.g. reasoning B = 256, N = 11, D = 212; contextual B = 256, N = 20, D = 228), compiles the
jitted NNX train step twice -- once with the general dense forward pass (``core.forward`` vmapped)
and once with :func:`transformer_theory.nn.fast.batch_logits`'s fast path (first layer as
lookups and gathers, second layer read through the first, last layer for the last query only) --
asserts that both give the same first-step loss, then times ``--steps`` steps of each on the SAME
pre-drawn batches (batch sampling excluded, so the ratio is the step's). Both JAX steps split the
batch into the microbatches :func:`transformer_theory.train.loop.auto_microbatches` picks on a
CPU (column ``microbatches``). Reports steps/s of both and their ratio, XLA's cost analysis
(GFLOP per step, of the same step without microbatches: XLA counts a loop body once), GFLOP/s
and the fraction of the float32 matmul peak measured in the same run (a jitted ``1024 x 1024``
matmul). Writes the table to ``--out`` as CSV and JSON.

When PyTorch is installed (optional, never needed by the tests: ``pip install torch``), a
PyTorch-eager twin runs beside them: the same model written as a researcher would write it in
PyTorch (one-hot embedding, dense ``einsum`` scores per layer, ReLU attention, last-token
classifier, ``torch.optim`` SGD/Adam with ``clip_grad_norm_``), loaded with the SAME initial
weights and fed the SAME batches; its losses over the first three steps are asserted equal to
JAX's (float32, rtol 1e-3: the two frameworks sum in different orders) before anything is timed.
It uses all cores (``torch.get_num_threads()``), as JAX does. It runs twice: on the whole batch
(``torch_eager``, the figure of merit: what a researcher writes) and with its gradient accumulated
over the same microbatches as the JAX step (``torch_micro``: the cache trick on both sides).

Command (2 CPU cores, about 5 minutes at paper size)::

    python benchmarks/train_throughput.py --size paper --tasks reasoning contextual \
        --depths 1 2 3 4 --steps 20 --out results/benchmarks

README's benchmark section gives the table measured on the 2-core development machine, with its
date.

Without PyTorch the ``torch_*`` columns are omitted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from transformer_theory.jsonio import write_csv, write_json
from transformer_theory.nn import from_params
from transformer_theory.sweeps import TASK_NAMES, RunSpec, build_run
from transformer_theory.train.loop import auto_microbatches, cached_steps, make_optimizer


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
    settings = (graphdef, tc.optimizer, tc.learning_rate, tc.momentum, tc.grad_clip)
    step = cached_steps(*settings, fast=fast)[0]
    tokens, labels = batches[0]
    # XLA counts a loop body once, so the FLOPs are those of the same step without microbatches.
    whole = cached_steps(*settings, fast=fast, microbatches=1)[0]
    flops = whole.lower(state, opt_state, tokens, labels).compile().cost_analysis()
    flops = flops[0] if isinstance(flops, list) else flops
    t0 = time.perf_counter()
    _, _, first_loss, _ = step(state, opt_state, tokens, labels)
    jax.block_until_ready(first_loss)
    compile_s = time.perf_counter() - t0
    losses = []
    t0 = time.perf_counter()
    for tokens, labels in batches:
        state, opt_state, loss, _ = step(state, opt_state, tokens, labels)
        losses.append(loss)
    jax.block_until_ready(loss)
    dt = time.perf_counter() - t0
    losses = [float(x) for x in losses[:3]]
    return losses, float(flops.get("flops", float("nan"))), compile_s, len(batches) / dt


def torch_twin(params, tc, batches, microbatches: int = 1):
    """Steps/s of a PyTorch-eager twin of ``params``'s model and ``tc``'s optimizer on ``batches``;
    returns ``(first three losses, steps/s)``, or None without PyTorch.

    Written as a researcher would: dense one-hot embedding (Chen & Zou 2024, eq. 3), per layer
    ``s[b, h, i, j] = (W_QK h_i) . h_j``, ReLU weights, ``W_V`` values, head mean, residual
    (eq. 2), logits ``W_O h_{n-1}``, ``F.cross_entropy``. ``microbatches > 1``: the same step with
    the gradient accumulated over that many equal slices of the batch (what the JAX step does on a
    CPU, :func:`transformer_theory.train.loop.auto_microbatches`), so the comparison can also be
    made with the cache trick on both sides.
    """
    try:
        import torch
    except ImportError:
        return None
    cfg = params.config
    plain = (
        cfg.attention == "relu"
        and cfg.positional == "onehot"
        and cfg.qk_dim is None
        and not cfg.causal
        and not cfg.scale_scores
        and cfg.relative is None
        and params.final_norm is None
        and all(layer.mlp is None and layer.norm1 is None for layer in params.layers)
    )
    if not plain:
        raise ValueError("torch twin: only Chen & Zou's attention-only ReLU model is written")

    def tensor(x):
        return torch.nn.Parameter(torch.from_numpy(np.array(x, np.float32)))

    w_qk = [tensor(layer.attn.w_qk) for layer in params.layers]
    w_v = [tensor(layer.attn.w_v) for layer in params.layers]
    w_o = tensor(params.w_o)
    weights = [*w_qk, *w_v, w_o]
    d, width = cfg.vocab_size, cfg.width
    if tc.optimizer == "sgd":
        opt = torch.optim.SGD(weights, lr=tc.learning_rate, momentum=tc.momentum)
    else:
        opt = torch.optim.Adam(weights, lr=tc.learning_rate)
    data = [
        (torch.from_numpy(np.asarray(t, np.int64)), torch.from_numpy(np.asarray(y, np.int64)))
        for t, y in batches
    ]

    def batch_loss(tokens, labels):
        b, n = tokens.shape
        h = torch.zeros(b, n, width)
        h[..., :d] = torch.nn.functional.one_hot(tokens, d).float()
        h[..., d : d + n] = torch.eye(n)
        for wqk, wv in zip(w_qk, w_v):
            q = torch.einsum("hed,bid->bhie", wqk, h)
            scores = q @ h.transpose(1, 2).unsqueeze(1)
            values = torch.einsum("hed,bnd->bhne", wv, h)
            heads = torch.relu(scores) @ values
            h = h + (heads.mean(1) if cfg.head_mean else heads.sum(1))
        return torch.nn.functional.cross_entropy(h[:, -1] @ w_o.T, labels)

    def step(tokens, labels):
        opt.zero_grad(set_to_none=True)
        if microbatches == 1:
            loss = batch_loss(tokens, labels)
            loss.backward()
        else:
            loss = 0.0
            for tok, lab in zip(tokens.chunk(microbatches), labels.chunk(microbatches)):
                part = batch_loss(tok, lab) / microbatches
                part.backward()
                loss = loss + part.detach()
        if tc.grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(weights, tc.grad_clip)
        opt.step()
        return loss.detach()

    losses = [float(step(*batch)) for batch in data[:3]]  # also the warm-up
    t0 = time.perf_counter()
    for tokens, labels in data:
        step(tokens, labels)
    return losses, len(data) / (time.perf_counter() - t0)


def measure(task: str, depth: int, steps: int, size: str, peak: float) -> dict:
    params, data, tc, _ = build_run(RunSpec(task, (1,) * depth, 0, size))
    graphdef, state = nnx.split(from_params(params))
    opt_state = make_optimizer(tc).init(state)
    key = jax.random.key(0)
    batches = [data.batch(jax.random.fold_in(key, s), tc.batch_size) for s in range(steps)]
    dense = _time_path(graphdef, state, opt_state, tc, batches, fast=False)
    fast = _time_path(graphdef, state, opt_state, tc, batches, fast=True)
    # Same weights, same batch: float32 rounding of a sum over D ~ 200 terms, ~1e-6 relative.
    np.testing.assert_allclose(fast[0][0], dense[0][0], rtol=1e-4, err_msg="fast vs dense loss")
    tokens, labels = batches[0]
    row = dict(task=task, depth=depth, batch=int(labels.shape[0]), seq_len=int(tokens.shape[1]))
    row["width"] = params.config.width
    row["microbatches"] = auto_microbatches(row["batch"], row["seq_len"], row["width"])
    twins = [torch_twin(params, tc, batches)]
    split = row["microbatches"] > 1 and twins[0] is not None
    twins.append(torch_twin(params, tc, batches, row["microbatches"]) if split else twins[0])
    for twin in twins if twins[0] is not None else ():
        # Three SGD/Adam steps on the same batches: rounding differences of the two frameworks
        # grow through the updates; 1e-3 relative is far below any real mismatch (a wrong
        # optimizer or model changes the second loss in the first or second digit).
        n = min(3, len(batches))
        np.testing.assert_allclose(
            twin[0][:n], dense[0][:n], rtol=1e-3, err_msg="torch twin vs JAX losses"
        )
    for name, (_, flops, compile_s, rate) in (("dense", dense), ("fast", fast)):
        row[f"{name}_first_step_s"] = round(compile_s, 2)
        row[f"{name}_steps_per_s"] = round(rate, 1)
        row[f"{name}_gflop_per_step"] = round(flops / 1e9, 3)
        row[f"{name}_gflop_per_s"] = round(flops * rate / 1e9, 1)
        row[f"{name}_peak_fraction"] = round(flops * rate / 1e9 / peak, 3)
    row["speedup"] = round(fast[3] / dense[3], 2)
    if twins[0] is not None:
        row["torch_eager_steps_per_s"] = round(twins[0][1], 1)
        row["torch_micro_steps_per_s"] = round(twins[1][1], 1)
        row["fast_vs_torch"] = round(fast[3] / twins[0][1], 2)
        row["fast_vs_torch_micro"] = round(fast[3] / twins[1][1], 2)
        row["dense_vs_torch"] = round(dense[3] / twins[0][1], 2)
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
    try:
        import torch

        device += f"; torch {torch.__version__} eager, {torch.get_num_threads()} threads"
    except ImportError:
        device += "; torch not installed (no twin)"
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
    write_json(os.path.join(args.out, "train_throughput.json"), record)
    write_csv(os.path.join(args.out, "train_throughput.csv"), rows, cols)
    return 0


if __name__ == "__main__":
    sys.exit(main())
