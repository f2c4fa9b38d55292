"""Figure 3 of Chen & Zou 2024 (§6.2): attention maps of a trained two-layer model on in-context QA
inputs ``A=1B=2A=`` and ``A=1B=2B=``, next to the maps of Theorem 3's constructed model (§13.2).

Trains one two-layer, one-head model on ``InContextQA(n_q, n_a, k=2)`` (quick: 6 questions and 6
answers; paper: 100 and 100) with the reasoning setup of :mod:`experiments._common`, then draws
for each input the trained and the constructed layer-1 and layer-2 maps (rows = query position,
columns = key position; the paper draws the transpose). Boxes mark the construction's COPY
positions in layer 1 (each position reads the other members of its question-sign-answer block)
and the MATCH positions in layer 2 (the last position reads the block whose question equals the
final question). ``fig3_attention.json`` reports the share of the trained model's attention that
falls on those positions.

Command (quick, about half a minute on 2 CPU cores)::

    transformer-theory train --experiment fig3_attention_maps --size quick --seeds 0 --out
    results/fig3_quick

Writes ``fig3_attention_maps.png`` and ``fig3_attention.json`` (plus the run's metrics).

Expected (measured, seed 0): the trained model answers both inputs correctly; about 84-90% of its
layer-1 mass lies on the copy blocks (it starts from the constructed copy pattern, §9.1, so this
part is inherited, not discovered) and about 50-57% of its layer-2 last row lies on the matching
block (uniform attention would put 3/8), mostly on that block's response sign. The construction's
shares are 1.0 and 3/5 (its last row also reads its own final ``q r`` pair with weight 1 each).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from experiments import _common
from transformer_theory import tasks as tasklib
from transformer_theory.core.forward import forward_trace
from transformer_theory.train import TaskData, paper_init, train

NAME = "fig3_attention_maps"


def make_task(size: str):
    return tasklib.InContextQA(6, 6, 2) if size == "quick" else tasklib.InContextQA(100, 100, 2)


def example_inputs(task) -> dict[str, np.ndarray]:
    """Token ids of ``A=1B=2A=`` and ``A=1B=2B=`` (A, B = questions 0, 1; 1, 2 = answers 0, 1; ``=``
    is r)."""
    r, a0 = task.vocab_size - 1, task.n_q
    A, B, one, two = 0, 1, a0, a0 + 1
    return {
        "A=1B=2A=": np.array([A, r, one, B, r, two, A, r], np.int32),
        "A=1B=2B=": np.array([A, r, one, B, r, two, B, r], np.int32),
    }


def constructed_params(task):
    """Theorem 3's model from the constructions module (float32 to match the trained one)."""
    from transformer_theory.constructions.reasoning import theorem3

    return theorem3(task, dtype=jnp.float32)


def copy_support(k: int) -> np.ndarray:
    """``(n, n)`` bool: query i reads key j of its own question-sign-answer block (j != i)."""
    from transformer_theory.train.init import copy_pattern_alpha

    return copy_pattern_alpha(k) > 0


def match_support(tokens: np.ndarray, k: int) -> np.ndarray:
    """``(n, n)`` bool: the last query reads the block whose question equals the final question."""
    n = 3 * k + 2
    s = np.zeros((n, n), bool)
    for b in range(k):
        if tokens[3 * b] == tokens[n - 2]:
            s[n - 1, 3 * b : 3 * b + 3] = True
    return s


def run(
    out: str,
    size: str = "quick",
    seeds: Sequence[int] = (0,),
    tasks=None,
    steps: int | None = None,
    progress: bool = True,
    optimizer: str | None = None,
    learning_rate: float | None = None,
) -> list[dict]:
    seed = int(seeds[0])
    task = make_task(size)
    setup = _common.task_setup("reasoning", size)
    config = task.model_config(heads=(1, 1))
    root = jax.random.key(seed)
    params = paper_init(
        jax.random.fold_in(root, 0),
        config,
        task,
        w_v=setup.w_v,
        later_qk_scale=setup.later_qk_scale,
    )
    data = TaskData(task, jax.random.fold_in(root, 2), setup.data)
    tc = _common.override_train(setup.train.replace(seed=seed), steps, optimizer, learning_rate)
    name = f"reasoning_k2_heads1-1_seed{seed}"
    meta = dict(
        name=name,
        task="reasoning",
        heads=[1, 1],
        depth=2,
        seed=seed,
        size=size,
        chance=1.0 / task.num_classes,
    )
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "experiment.json"), "w") as f:
        json.dump({"experiment": NAME, "size": size, "seed": seed}, f)
    res = train(params, data, tc, os.path.join(out, name), meta=meta, progress=progress)
    np.savez(
        os.path.join(out, "trained_params.npz"),
        **{
            f"layer{i}_{k}": np.asarray(getattr(l.attn, k))
            for i, l in enumerate(res.params.layers)
            for k in ("w_qk", "w_v")
        },
        w_o=np.asarray(res.params.w_o),
    )
    summary = analyse(out, task, res.params)
    row = dict(
        run=name,
        task="reasoning",
        heads="1-1",
        depth=2,
        seed=seed,
        final_eval_acc=res.metrics[-1]["eval_acc"],
        chance=meta["chance"],
        **summary,
    )
    return [row]


def analyse(out: str, task, trained) -> dict:
    """Draw the figure and write the attention-share summary; returns the summary."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    k = task.k
    built = constructed_params(task)
    inputs = example_inputs(task)
    labels = list(inputs)
    fig, axes = plt.subplots(len(inputs), 4, figsize=(15, 3.9 * len(inputs)), squeeze=False)
    summary = {}
    for row, text in enumerate(labels):
        toks = inputs[text]
        tr_trace = forward_trace(trained, jnp.asarray(toks))
        co_trace = forward_trace(built, jnp.asarray(toks))
        supports = [copy_support(k), match_support(toks, k)]
        info = dict(
            trained_prediction=int(jnp.argmax(tr_trace.logits_C)),
            constructed_prediction=int(jnp.argmax(co_trace.logits_C)),
            answer=int(
                toks[3 * [b for b in range(k) if toks[3 * b] == toks[-2]][0] + 2] - task.n_q
            ),
        )
        for col, (who, trace) in enumerate((("trained", tr_trace), ("constructed", co_trace))):
            for layer in range(2):
                w = np.asarray(trace.attention[layer][0])
                sup = supports[layer]
                rows_used = slice(None) if layer == 0 else slice(-1, None)
                mass = w[rows_used].sum()
                share = float(w[sup].sum() / mass) if mass > 0 else float("nan")
                info[f"{who}_layer{layer + 1}_share_on_{'copy' if layer == 0 else 'match'}"] = (
                    round(share, 4)
                )
                ax = axes[row, 2 * col + layer]
                ax.imshow(w, cmap="viridis")
                ticks = list(text)
                ax.set_xticks(range(len(ticks)), ticks)
                ax.set_yticks(range(len(ticks)), ticks)
                ax.set_xlabel("key position")
                ax.set_ylabel("query position")
                ax.set_title(
                    f"{who}, layer {layer + 1} ({'copy' if layer == 0 else 'match'} "
                    f"marked)\n{text}",
                    fontsize=9,
                )
                for i, j in zip(*np.nonzero(sup)):
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="red", lw=1.3))
        summary[text] = info
    fig.suptitle(
        "Chen & Zou 2024, Figure 3: trained two-layer model vs Theorem 3's construction "
        "(red: copy / match positions)"
    )
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig3_attention_maps.png"), dpi=110)
    plt.close(fig)
    with open(os.path.join(out, "fig3_attention.json"), "w") as f:
        json.dump(summary, f, indent=1)
    flat = {}
    for text, info in summary.items():
        for key, v in info.items():
            flat[f"{text}:{key}"] = v
    return flat


def plot(out: str) -> list[str]:
    """Redraw from the saved trained parameters."""
    with open(os.path.join(out, "experiment.json")) as f:
        size = json.load(f)["size"]
    task = make_task(size)
    z = np.load(os.path.join(out, "trained_params.npz"))
    config = task.model_config(heads=(1, 1))
    from transformer_theory.params import AttentionParams, LayerParams, ModelParams

    layers = tuple(
        LayerParams(
            attn=AttentionParams(
                w_v=jnp.asarray(z[f"layer{i}_w_v"]), w_qk=jnp.asarray(z[f"layer{i}_w_qk"])
            )
        )
        for i in range(2)
    )
    trained = ModelParams(layers=layers, w_o=jnp.asarray(z["w_o"]), config=config)
    analyse(out, task, trained)
    return [os.path.join(out, "fig3_attention_maps.png")]
