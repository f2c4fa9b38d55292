"""A small tour of the core: a random one-layer ReLU model on the paper's four dependent sequences.

Chen & Zou 2024, §11: (a,b,r), (b,a,r), (a,a,r), (b,b,r) satisfy o0 + o1 = o2 + o3 for every
one-layer model (Prop. 8); a two-layer model breaks the relation.
"""

from __future__ import annotations

import argparse
import dataclasses

from transformer_theory.cli._options import add_settings
from transformer_theory.settings import check_minimums, from_args, setting

X64 = True  # the residuals are float64


@dataclasses.dataclass(frozen=True)
class DemoSettings:
    """The tour's options.

    Attributes:
      seed: PRNG seed of the random models (0 to 2**63 - 1).
    """

    seed: int = setting(0, minimum=0)

    def __post_init__(self) -> None:
        check_minimums(self)
        if self.seed > 2**63 - 1:  # jax.random.PRNGKey takes a C long (an OverflowError beyond)
            raise ValueError(f"seed: expected an integer in 0..2**63 - 1, got {self.seed}")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_settings(p, DemoSettings)


def run(args: argparse.Namespace) -> int:
    import jax
    import jax.numpy as jnp

    from transformer_theory import ModelConfig, forward, init_params

    settings = from_args(DemoSettings, args)

    a, b, r = 0, 1, 2
    seqs = jnp.array([[a, b, r], [b, a, r], [a, a, r], [b, b, r]])
    print("sequences (a=0, b=1, r=2):", seqs.tolist())
    for depth in (1, 2):
        cfg = ModelConfig(vocab_size=3, seq_len=3, width=8, num_classes=3, heads=(2,) * depth)
        params = init_params(jax.random.PRNGKey(settings.seed), cfg, dtype=jnp.float64)
        o = jax.jit(jax.vmap(lambda t, p=params: forward(p, t)))(seqs)
        resid = float(
            jnp.linalg.norm(o[0] + o[1] - o[2] - o[3]) / jnp.sum(jnp.linalg.norm(o, axis=1))
        )
        print(f"depth {depth}: relative residual of o0 + o1 - o2 - o3 = {resid:.3e}")
    return 0
