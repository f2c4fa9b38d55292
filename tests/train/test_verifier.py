"""Trained one-layer models go through the verifier (Chen & Zou 2024, Props. 7/8, Theorem 2).

A one-layer ReLU model trained on the in-context QA set ``InContextQA(2, 2, 2)`` (8 sequences that
share the last token ``r``; it contains Theorem 2's toy set) must (a) satisfy the stronger form of
Prop. 7: its logits are an affine function of the flattened one-hot sequence, so the least-squares
residual is at float64 rounding; (b) classify no more examples than the certificate bound allows
(Theorem 2: at most 3/4 of the toy set; the LP bound on the 8-sequence set). A trained two-layer
model is the control: its residual is large, so the check can fail.
"""

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import tasks
from transformer_theory.core.forward import forward
from transformer_theory.params import cast_params, stack_params
from transformer_theory.theory.certificates import accuracy_upper_bound
from transformer_theory.theory.checks import affine_residuals
from transformer_theory.train import DataSettings, TaskData, TrainSettings, paper_init, train


def _trained(task, heads, seed=0):
    config = task.model_config(heads=heads)
    p = paper_init(jax.random.key(seed), config, task, w_v="identity", later_qk_scale=0.1)
    data = TaskData(task, jax.random.key(1), DataSettings(eval_on_train=True))
    return train(
        p,
        data,
        TrainSettings(
            steps=100, batch_size=8, learning_rate=0.1, grad_clip=1.0, log_every=100, seed=seed
        ),
        progress=False,
    )


def _affine_residual_numpy(params, tokens):
    """Independent reference: least-squares residual of the logits on [1, one-hot(tokens)] in
    float64."""
    cfg = params.config
    B, n = tokens.shape
    X = np.zeros((B, n * cfg.vocab_size))
    X[np.arange(B)[:, None], np.arange(n)[None, :] * cfg.vocab_size + tokens] = 1.0
    X = np.concatenate([np.ones((B, 1)), X], axis=1)
    Y = np.asarray(jax.jit(jax.vmap(lambda t: forward(params, t)))(jnp.asarray(tokens)))
    beta = np.linalg.lstsq(X, Y, rcond=None)[0]
    return np.linalg.norm(Y - X @ beta) / np.linalg.norm(Y)


def test_train_one_layer_models_obey_prop7_and_the_certificate_bound():
    task = tasks.InContextQA(2, 2, 2)
    tokens, labels = (np.asarray(x) for x in task.all())
    bound = accuracy_upper_bound(tokens, labels, task.vocab_size, task.num_classes).max_correct
    assert bound < len(labels)  # a non-trivial certificate: not every example can be right
    for heads in [
        (2,)
    ]:  # Theorem 2 holds for any number of heads; one multi-head case keeps the test fast
        res = _trained(task, heads)
        p64 = cast_params(res.params, jnp.float64)
        logits = jax.jit(jax.vmap(lambda t, p=p64: forward(p, t)))(jnp.asarray(tokens))
        correct = int(np.sum(np.asarray(jnp.argmax(logits, -1)) == labels))
        assert correct <= bound, (heads, correct, bound)
        # Props. 7/8, stronger form; float64 rounding of O(10)-sized logits => 1e-9 relative is
        # generous.
        assert _affine_residual_numpy(p64, tokens) < 1e-9
        r = affine_residuals(stack_params([p64]), tokens)
        assert float(r.residual_M[0]) < 1e-9
    control = cast_params(_trained(task, (1, 1)).params, jnp.float64)
    assert _affine_residual_numpy(control, tokens) > 1e-3  # two layers leave the affine family
