"""Independent float64 NumPy references for the construction tests, and their own checks.

- :func:`paper_forward`: Chen & Zou 2024, eq. 2-3 in the paper's column convention ``H: (d', n)``,
  ``S = H^T W_QK H`` (``S[j, i]``: key ``j``, query ``i``), ``H <- H + (1/m) sum W_V H relu(S)``,
  ``o = W_O H[:, n-1]``.
- ``spec_*``: each task's correct answer read directly off the tokens (§4.2-§4.4), written without
  the task generators or the constructions.
The other construction test files import these (tests/ subfolders are on ``sys.path`` by pytest's
rootdir-relative import mode).
"""

import jax
import jax.numpy as jnp
import numpy as np

from tests.helpers import assert_close
from transformer_theory.constructions import theorem3, theorem5, theorem6
from transformer_theory.core.forward import forward
from transformer_theory.tasks import (
    InContextQA,
    InContextTemplateMatching,
    TemplateMatching,
    all_templates,
)


def paper_forward(tokens, params):
    """``o`` of Chen & Zou 2024, eq. 1-3 for one token sequence, from the params' arrays, in float64
    NumPy."""
    cfg = params.config
    n, d, D = len(tokens), cfg.vocab_size, cfg.width
    H = np.zeros((D, n))
    H[np.asarray(tokens), np.arange(n)] = 1.0
    H[d + np.arange(n), np.arange(n)] = 1.0
    for layer in params.layers:
        w_qk = np.asarray(layer.attn.w_qk, np.float64)
        w_v = np.asarray(layer.attn.w_v, np.float64)
        H = H + sum(v @ H @ np.maximum(H.T @ q @ H, 0.0) for q, v in zip(w_qk, w_v)) / len(w_qk)
    return np.asarray(params.w_o, np.float64) @ H[:, -1]


def rgs(seq):
    """Equality pattern of a sequence: symbols renamed 0, 1, ... by first occurrence."""
    names = {}
    return tuple(names.setdefault(int(s), len(names)) for s in seq)


def spec_qa(tokens, n_q):
    """§4.2: the answer right after the context copy of the final question."""
    t = [int(x) for x in tokens]
    k = (len(t) - 2) // 3
    (b,) = [b for b in range(k) if t[3 * b] == t[-2]]
    return t[3 * b + 2] - n_q


def spec_tm(tokens, templates, labels):
    """§4.3: the label of the template whose equality pattern the symbols follow."""
    pats = [rgs(t) for t in templates]
    return labels[pats.index(rgs(tokens[:-1]))]


def spec_ictm(tokens, alphabet_size, l):
    """§4.4: the answer of the (unique) context block whose question has the query's pattern."""
    t = [int(x) for x in tokens]
    k = (len(t) - l - 1) // (l + 2)
    q = rgs(t[k * (l + 2) : k * (l + 2) + l])
    (b,) = [b for b in range(k) if rgs(t[b * (l + 2) : b * (l + 2) + l]) == q]
    return t[b * (l + 2) + l + 1] - alphabet_size


_batched_forward = jax.jit(jax.vmap(forward, in_axes=(None, 0)))  # one compile per config


def all_logits(params, tokens):
    """Library logits of every row of ``tokens`` (jit + vmap of ``forward``)."""
    return np.asarray(_batched_forward(params, jnp.asarray(tokens)))


def logit_margins(logits, labels):
    """``o[y] - max_{c != y} o[c]`` per row, in float64 NumPy."""
    o = np.array(logits, np.float64)
    rows = np.arange(len(labels))
    correct = o[rows, labels]
    o[rows, labels] = -np.inf
    return correct - o.max(axis=1)


def test_reference_matches_library_forward_on_constructions():
    """The NumPy reference and ``core.forward`` agree on constructed weights (1e-12 relative: a
    few matmuls of entries <= 10^3 in float64, see helpers.RTOL64)."""
    cases = [
        (InContextQA(3, 3, 2), theorem3),
        (TemplateMatching(4, all_templates(3)), theorem5),
        (TemplateMatching(4, all_templates(3)), lambda t: theorem5(t, version="multi")),
        (InContextTemplateMatching(3, 3, all_templates(2), 2), theorem6),
    ]
    for task, build in cases:
        params = build(task)
        tokens, _ = task.sample(jax.random.PRNGKey(1), 12)
        tokens = np.asarray(tokens)
        ref = np.stack([paper_forward(t, params) for t in tokens])
        assert_close(all_logits(params, tokens), ref, rtol=1e-12, atol=1e-9)


def test_specs_agree_with_task_labels():
    """The hand-written specs and the task generators give the same labels (so the grids below
    test the models against the paper's definition, not against the generators alone)."""
    qa = InContextQA(4, 3, 2)
    tok, lab = map(np.asarray, qa.all())
    assert [spec_qa(t, 4) for t in tok] == lab.tolist()
    tm = TemplateMatching(4, all_templates(3), labels=(4, 0, 3, 1, 2))
    tok, lab = map(np.asarray, tm.all())
    assert [spec_tm(t, tm.templates, tm.labels) for t in tok] == lab.tolist()
    ic = InContextTemplateMatching(3, 3, all_templates(2), 2)
    tok, lab = map(np.asarray, ic.all())
    assert [spec_ictm(t, 3, 2) for t in tok] == lab.tolist()
