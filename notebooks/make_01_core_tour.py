"""Build ``notebooks/01_core_tour.ipynb`` (unexecuted) with nbformat.

    /work/venv/bin/python notebooks/make_01_core_tour.py

The notebook imports the library and defines nothing substantial. ``tests/test_notebooks.py``
executes it (with ``TT_NOTEBOOK_SMOKE=1``, which the notebook may read to shrink its configs).
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

SETUP_NOTE = ('\n\n*Set-up:* run from a checkout with the package installed (`pip install .` in the repository root). In Colab: clone the repository, `%cd` into it and `%pip install .`, then restart the runtime. The cells run on CPU, GPU or TPU; the float64 checks need `jax_enable_x64`, set in the first code cell.')

CELLS = [
    new_markdown_cell(
        "# A tour of `transformer_theory.core`\n\n"
        "Pure functions, one example at a time: a random model and its attention maps, the sparse masks "
        "of seed 002, linear attention, and seed 003's four dependent sequences, for which every one-layer "
        "ReLU model satisfies `o0 + o1 = o2 + o3` (Prop. 8) while a two-layer model does not."
        + SETUP_NOTE
    ),
    new_code_cell(
        "import os\n"
        "import jax\n"
        "import jax.numpy as jnp\n"
        "import matplotlib.pyplot as plt\n"
        "import numpy as np\n\n"
        "jax.config.update('jax_enable_x64', True)  # exact float64 checks below\n"
        "from transformer_theory import ModelConfig, forward, init_params, init_params_batch\n"
        "from transformer_theory.core import forward_trace, linear, masks\n\n"
        "SMOKE = os.environ.get('TT_NOTEBOOK_SMOKE') == '1'  # set by the test suite: small configs\n"
        "N_MODELS = 8 if SMOKE else 200"
    ),
    new_markdown_cell(
        "## A random model and its attention maps\n"
        "Seed 003's layer (eq. 2) with softmax attention, one-hot positions (eq. 3). "
        "`attention[layer][h, i, j]` is query `i`'s weight on key `j`."
    ),
    new_code_cell(
        "cfg = ModelConfig(vocab_size=4, seq_len=6, width=12, num_classes=3, heads=(2, 2), attention='softmax')\n"
        "params = init_params(jax.random.PRNGKey(0), cfg, dtype=jnp.float64)\n"
        "tokens = jnp.array([0, 3, 1, 2, 1, 3])\n"
        "trace = jax.jit(forward_trace)(params, tokens)\n"
        "print('logits', np.round(np.asarray(trace.logits_C), 4))\n"
        "fig, axes = plt.subplots(1, 4, figsize=(12, 3))\n"
        "for ax, (l, h) in zip(axes, [(0, 0), (0, 1), (1, 0), (1, 1)]):\n"
        "    ax.imshow(trace.attention[l][h], cmap='viridis', vmin=0, vmax=1)\n"
        "    ax.set_title(f'layer {l} head {h}'); ax.set_xlabel('key j'); ax.set_ylabel('query i')\n"
        "plt.tight_layout(); plt.show()"
    ),
    new_markdown_cell("## Sparse attention patterns (seed 002 §2.1.1)"),
    new_code_cell(
        "n = 16\n"
        "patterns = {\n"
        "    'sliding window w=3': masks.sliding_window_mask(n, 3),\n"
        "    'dilated w=3, d=2': masks.dilated_window_mask(n, 3, 2),\n"
        "    'global {0, 8}': masks.global_mask(n, [0, 8]),\n"
        "    'BigBird': masks.bigbird_mask(jax.random.PRNGKey(1), n, 3, [0], 2),\n"
        "}\n"
        "fig, axes = plt.subplots(1, 4, figsize=(12, 3))\n"
        "for ax, (name, m) in zip(axes, patterns.items()):\n"
        "    ax.imshow(m, cmap='Greys'); ax.set_title(name)\n"
        "plt.tight_layout(); plt.show()"
    ),
    new_markdown_cell(
        "## Linear attention (seed 002 §2.1.2)\n"
        "The O(n) causal form (prefix sums) equals its explicit quadratic form."
    ),
    new_code_cell(
        "q, k, v = jax.random.normal(jax.random.PRNGKey(2), (3, 32, 8), dtype=jnp.float64)\n"
        "fast = jax.jit(linear.linear_attention, static_argnames='causal')(q, k, v, causal=True)\n"
        "slow, w = jax.jit(linear.linear_attention_quadratic, static_argnames='causal')(q, k, v, causal=True)\n"
        "print('max |O(n) - quadratic| =', float(jnp.abs(fast - slow).max()))\n"
        "assert float(jnp.abs(fast - slow).max()) < 1e-12"
    ),
    new_markdown_cell(
        "## Seed 003's dependence demo\n"
        "`(a,b,r), (b,a,r), (a,a,r), (b,b,r)` are dependent (Def. 3): position-wise token multisets of the first "
        "two equal those of the last two. Every one-layer ReLU model (any number of heads) then gives "
        "`o0 + o1 = o2 + o3` (Prop. 8); two layers break it."
    ),
    new_code_cell(
        "a, b, r = 0, 1, 2\n"
        "seqs = jnp.array([[a, b, r], [b, a, r], [a, a, r], [b, b, r]])\n"
        "# Many models at once: a batch of ModelParams (leading model axis), vmapped over models and sequences.\n"
        "outputs = jax.jit(jax.vmap(jax.vmap(forward, in_axes=(None, 0)), in_axes=(0, None)))\n"
        "rows = []\n"
        "for heads in [(2,), (2, 2)]:  # (one layer, two heads), (two layers)\n"
        "    cfg = ModelConfig(vocab_size=3, seq_len=3, width=8, num_classes=3, heads=heads)\n"
        "    o = outputs(init_params_batch(jax.random.PRNGKey(0), cfg, N_MODELS, dtype=jnp.float64), seqs)  # (M, 4, C)\n"
        "    resid = jnp.abs(o[:, 0] + o[:, 1] - o[:, 2] - o[:, 3]).max(-1) / jnp.abs(o).max((1, 2))\n"
        "    rows.append((heads, float(resid.max())))\n"
        "    print(f'heads per layer {heads}: max relative |o0 + o1 - o2 - o3| over {N_MODELS} models = {rows[-1][1]:.2e}')\n"
        "assert rows[0][1] < 1e-12   # one layer: the relation holds exactly\n"
        "assert rows[1][1] > 1e-6    # two layers: it does not"
    ),
]


def main() -> None:
    nb = new_notebook(cells=CELLS, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    out = Path(__file__).with_name("01_core_tour.ipynb")
    nbformat.write(nb, out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
