"""Throughput of the batched Proposition 7-8 check: the first-layer lookup path, the general dense
path and a vectorized NumPy twin, side by side in ONE process, at the two shapes of issue 15.

Run:  python benchmarks/verify_throughput.py [--models 16] [--seqs 4096] [--repeats 5]

For each shape (one-layer ReLU, float64: V = 7, N = 8, 2 heads, and V = 33, N = 32, D = 67,
4 heads) it times ``theory.checks.set_residuals`` on ``seqs / 4`` dependent sets of 4 sequences
for ``models`` models (tables built inside every call, host transfers included) with
``path="lookup"`` and ``path="general"``, and the same computation written as vectorized NumPy
einsums over models and sequences (eq. 6 at the last query, then the set residual); PyTorch eager
twins of the same einsums when torch is installed (never required). It prints model x sequence
evaluations per second, the ratio to the NumPy twin measured in the same run (the target is
>= 10x), the machine's float64 matmul GFLOP/s measured in the same run, and the general path's
FLOPs per evaluation times the rate as an "equivalent" GFLOP/s (the lookup path does less work).
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

from transformer_theory.theory import checks  # noqa: E402


def best_time(fn, repeats):
    fn()  # warm-up / compile
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


def one_hot_stream(tokens_BxN, V, D):
    B, N = tokens_BxN.shape
    h_BxNxD = np.zeros((B, N, D))
    rows = np.arange(B)[:, None]
    h_BxNxD[rows, np.arange(N)[None, :], tokens_BxN] = 1.0
    h_BxNxD[:, np.arange(N), V + np.arange(N)] = 1.0
    return h_BxNxD


def numpy_residuals(wqk, wv, wo, tokens_SxBxN, lam_SxB, V, xp=np, einsum=np.einsum):
    """Eq. 6 at the last query for every model and sequence, then the set residual (vectorized)."""
    S, B, N = tokens_SxBxN.shape
    D = wo.shape[-1]
    h = xp.asarray(one_hot_stream(np.asarray(tokens_SxBxN).reshape(S * B, N), V, D))
    q = einsum("mhed,bd->mbhe", wqk, h[:, -1])  # W_QK h_{n-1}
    s = einsum("bnd,mbhd->mbhn", h, q)
    pooled = einsum("mbhn,bnd->mbhd", xp.maximum(s, 0.0) if xp is np else s.clamp(min=0), h)
    last = h[None, :, -1] + einsum("mhed,mbhd->mbe", wv, pooled) / wqk.shape[1]
    t = einsum("mcd,mbd->mbc", wo, last).reshape(wo.shape[0], S, B, -1)
    lam = xp.asarray(lam_SxB)[None, :, :, None]
    num = (lam * t).sum(2)
    num = (num * num).sum(-1) ** 0.5
    den = (abs(lam[..., 0]) * ((t * t).sum(-1) ** 0.5)).sum(2)
    return num / den


def run_shape(V, N, heads, args, rows):
    C = 3
    fam = checks.Family("bench", heads=(heads,))
    params = checks.random_models(fam, V, N, C, 0, args.models)
    D = params.config.width
    rng = np.random.default_rng(0)
    S, B = args.seqs // 4, 4
    tok = rng.integers(0, V - 1, size=(S, B, N))
    tok[..., -1] = V - 1
    lam = np.tile(np.array([1.0, 1.0, -1.0, -1.0]), (S, 1))
    evals = args.models * S * B

    def check(path):
        return lambda: checks.set_residuals(params, tok, lam, chunk_size=S * B, path=path)

    a = params.layers[0].attn
    wqk, wv, wo = (np.asarray(x) for x in (a.w_qk, a.w_v, params.w_o))
    ref = numpy_residuals(wqk, wv, wo, tok, lam, V)
    np.testing.assert_allclose(check("lookup")(), ref, rtol=1e-6, atol=1e-13)
    rates = {
        "lookup": evals / best_time(check("lookup"), args.repeats),
        "general": evals / best_time(check("general"), args.repeats),
        "numpy": evals / best_time(lambda: numpy_residuals(wqk, wv, wo, tok, lam, V), args.repeats),
    }
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        tw = [torch.from_numpy(np.array(x)) for x in (wqk, wv, wo)]  # writable copies
        tl = torch.from_numpy(np.array(lam))

        def eager():
            return numpy_residuals(*tw, tok, tl, V, xp=torch, einsum=torch.einsum)

        rates["torch eager"] = evals / best_time(eager, args.repeats)
        compiled = torch.compile(eager)
        rates["torch.compile"] = evals / best_time(compiled, args.repeats)
    # FLOPs of the general last-query path per model*sequence (what the NumPy twin computes)
    flops = 2 * heads * (D * D + 2 * N * D + D * D) + 2 * C * D
    shape = f"V={V} N={N} D={D} H={heads}"
    for name, rate in rates.items():
        rows.append((shape, name, rate, rate / rates["numpy"], rate * flops / 1e9 if name else 0.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=16)
    ap.add_argument("--seqs", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    rows = []
    run_shape(7, 8, 2, args, rows)
    run_shape(33, 32, 4, args, rows)
    n = 1024
    a = jnp.asarray(np.random.default_rng(0).standard_normal((n, n)))
    mm = jax.jit(lambda x: x @ x)
    peak = 2 * n**3 / best_time(lambda: mm(a).block_until_ready(), args.repeats) / 1e9

    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"verify throughput -- {when}; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, jax {jax.__version__} ({jax.default_backend()}), float64; "
        f"one-layer ReLU, {args.models} models x {args.seqs} sequences per call"
    )
    print(f"float64 matmul 1024^3: {peak:.2f} GFLOP/s (measured in this run)")
    print(
        f"| {'shape':<22} | {'what':<14} | {'evals/s':>12} | {'vs NumPy':>8} | {'eq. GFLOP/s':>11} "
        f"| {'of peak':>7} |"
    )
    print(f"|{'-' * 24}|{'-' * 16}|{'-' * 14}|{'-' * 10}|{'-' * 13}|{'-' * 9}|")
    for shape, name, rate, ratio, gf in rows:
        print(
            f"| {shape:<22} | {name:<14} | {rate:>12,.0f} | {ratio:>7.1f}x | {gf:>11.2f} "
            f"| {gf / peak:>7.1%} |"
        )


if __name__ == "__main__":
    main()
