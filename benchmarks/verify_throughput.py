"""Throughput of the batched Proposition 7-8 check vs a plain per-example NumPy loop.

Run:  python benchmarks/verify_throughput.py [--models 16] [--seqs 4096] [--repeats 5]

Prints one table: model x sequence evaluations per second of the jit-compiled, vmapped float64
check (``theory.checks.model_outputs`` + the set residual, one-layer ReLU, 2 heads, the
in-context QA shape V = 7, N = 8, D = 17); the same for a per-example NumPy loop (eq. 6 written
out); their ratio (the headline); the machine's measured float64 matmul GFLOP/s and the fraction
of it the check reaches (FLOPs per evaluation from XLA's cost analysis of the compiled check).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import time

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from transformer_theory.theory import checks as K  # noqa: E402


def best_time(fn, repeats):
    fn()  # warm-up / compile
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


def numpy_outputs(wqk, wv, wo, tokens, V):
    """Per-example eq. 6: last-position output of one ReLU layer, then the classifier."""
    N = tokens.shape[0]
    D = wo.shape[1]
    H = np.zeros((N, D))
    H[np.arange(N), tokens] = 1.0
    H[np.arange(N), V + np.arange(N)] = 1.0
    out = np.zeros(D)
    for h in range(wqk.shape[0]):
        s = H @ (wqk[h] @ H[-1])
        out += (np.maximum(s, 0.0)[:, None] * (H @ wv[h].T)).sum(0)
    last = H[-1] + out / wqk.shape[0]
    return wo @ last


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=16)
    ap.add_argument("--seqs", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--numpy-evals", type=int, default=400, help="evaluations timed for the NumPy loop"
    )
    args = ap.parse_args()

    V, N, C = 7, 8, 3
    fam = K.Family("bench", heads=(2,))
    params = K.random_models(fam, V, N, C, 0, args.models)
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, V - 1, size=(args.seqs, N))
    tokens[:, -1] = V - 1
    S, B = args.seqs // 4, 4
    tok_SxBxN = tokens[: S * B].reshape(S, B, N)
    lam = np.tile(np.array([1.0, 1.0, -1.0, -1.0]), (S, 1))

    def batched():
        r = K.set_residuals(params, tok_SxBxN, lam, chunk_size=S * B)
        return float(r.max())

    t_batched = best_time(batched, args.repeats)
    evals = args.models * S * B
    rate_batched = evals / t_batched

    wqk = np.asarray(params.layers[0].attn.w_qk)
    wv = np.asarray(params.layers[0].attn.w_v)
    wo = np.asarray(params.w_o)
    n_np = min(args.numpy_evals, evals)
    t = time.perf_counter()
    for e in range(n_np):
        m, i = divmod(e, S * B)
        numpy_outputs(
            wqk[m % args.models], wv[m % args.models], wo[m % args.models], tokens[i % (S * B)], V
        )
    rate_numpy = n_np / (time.perf_counter() - t)

    n = 1024
    a = jnp.asarray(rng.standard_normal((n, n)))
    mm = jax.jit(lambda x: x @ x)
    t_mm = best_time(lambda: mm(a).block_until_ready(), args.repeats)
    gflops_peak = 2 * n**3 / t_mm / 1e9

    compiled = K.model_outputs.lower(params, jnp.asarray(tokens[: S * B], jnp.int32)).compile()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, (list, tuple)) else cost
    flops_per_eval = float(cost.get("flops", 0.0)) / evals if cost else float("nan")
    gflops_check = rate_batched * flops_per_eval / 1e9

    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"verify throughput -- {when}; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, "
        f"jax {jax.__version__} ({jax.default_backend()}), float64"
    )
    print(
        f"one-layer ReLU, 2 heads, V={V} N={N} D={params.config.width} C={C}; "
        f"{args.models} models x {S * B} sequences per call"
    )
    rows = [
        ("batched check (jit+vmap)", f"{rate_batched:,.0f}", f"{gflops_check:.2f}"),
        ("per-example NumPy loop", f"{rate_numpy:,.0f}", ""),
        ("speed-up (headline)", f"{rate_batched / rate_numpy:,.0f}x", ""),
        ("float64 matmul 1024^3", "", f"{gflops_peak:.2f}"),
        ("fraction of matmul GFLOP/s", "", f"{gflops_check / gflops_peak:.1%}"),
    ]
    print(f"| {'what':<28} | {'model*seq evals/s':>18} | {'GFLOP/s':>8} |")
    print(f"|{'-' * 30}|{'-' * 20}|{'-' * 10}|")
    for r in rows:
        print(f"| {r[0]:<28} | {r[1]:>18} | {r[2]:>8} |")
    print(f"(XLA cost analysis: {flops_per_eval:,.0f} FLOPs per model*sequence evaluation)")


if __name__ == "__main__":
    main()
