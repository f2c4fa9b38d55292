"""A real multi-process run: 2 processes on localhost, joined by ``jax.distributed.initialize``
(CPU collectives through gloo), run the sharded verifier (``transformer_theory.parallel``) over a
``("models", "data")`` mesh spanning both processes, and get the single-process numbers.

Each worker has 1 CPU device, so the mesh is 2 devices in 2 processes (models=2, data=1 for two
models: each process evaluates one model); results come back to both through
``parallel.to_host`` (an all-gather across processes). The same command by hand, two shells:

    python tests/test_distributed.py 0 2 12355 &  python tests/test_distributed.py 1 2 12355

Tolerance: the residuals of random (non-dependent) coefficients are O(1e-1) and the per-(model,
sequence) program is the same wherever it runs, so they must agree to 1e-12 relative (reduction
order only).
"""

import json
import os
import socket
import subprocess
import sys

import numpy as np

V, N, C = 4, 4, 2


def run(mesh):
    from transformer_theory.theory import checks

    rng = np.random.default_rng(5)
    tok = rng.integers(0, V, size=(6, 4, N)).astype(np.int32)
    tok[..., -1] = V - 1
    lam = rng.integers(-2, 3, size=(6, 4)).astype(np.float64)
    params = checks.random_models(checks.FAMILIES["relu-1h"], V, N, C, 11, 2)
    r = checks.set_residuals(params, tok, lam, chunk_size=8, mesh=mesh)
    return np.asarray(r).tolist()


def worker(process_id: int, num_processes: int, port: int) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(f"localhost:{port}", num_processes, process_id)
    from transformer_theory import parallel

    mesh = parallel.make_mesh(2, devices=jax.devices())
    out = {
        "process": jax.process_index(),
        "devices": jax.device_count(),
        "local": jax.local_device_count(),
        "residuals": run(mesh),
    }
    print(json.dumps(out), flush=True)
    jax.distributed.shutdown()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def test_two_processes_match_one_process():
    port = _free_port()
    env = dict(os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS="")
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, str(i), "2", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(2)
    ]
    outs = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr[-3000:]
        outs.append(json.loads(stdout.strip().splitlines()[-1]))
    assert sorted(o["process"] for o in outs) == [0, 1]
    assert all(o["devices"] == 2 and o["local"] == 1 for o in outs)
    here = np.asarray(run(None))
    assert here.min() > 1e-3  # a control: the residuals are O(1), a real comparison
    for o in outs:
        np.testing.assert_allclose(np.asarray(o["residuals"]), here, rtol=1e-12)


# Issue 48: a mesh over no device, over the characters of "cpu" or over None was built, and a
# 0-d leaf or a mesh that is not one failed with IndexError / AttributeError inside.
BAD_MESHES = [([], "devices"), ("cpu", "devices"), ([None], "devices"), (2.5, "num_models")]


def test_make_mesh_refuses_devices_that_are_none():
    import jax
    import pytest

    from transformer_theory import parallel

    for devices, name in BAD_MESHES:
        models = 2.5 if name == "num_models" else 3
        with pytest.raises(ValueError, match=f"^{name}:"):
            parallel.make_mesh(models, devices=None if name == "num_models" else devices)
    with pytest.raises(ValueError, match="^devices:.*twice"):
        parallel.make_mesh(1, devices=[jax.devices()[0]] * 2)
    mesh = parallel.make_mesh(3, devices=jax.devices()[:1])
    assert dict(mesh.shape) == {"models": 1, "data": 1}


def test_shard_refuses_a_0d_leaf_and_what_is_not_a_mesh():
    import jax.numpy as jnp
    import pytest

    from transformer_theory import parallel

    mesh = parallel.make_mesh(1)
    with pytest.raises(ValueError, match="^params_M:.*0-d"):
        parallel.shard_models({"w": jnp.ones((2, 3)), "b": jnp.float32(1.0)}, mesh)
    with pytest.raises(ValueError, match="^params_M:"):
        parallel.shard_models({}, mesh)
    for not_a_mesh in ("mesh", None, 4):
        with pytest.raises(ValueError, match="^mesh:"):
            parallel.shard_models({"w": jnp.ones((2, 3))}, not_a_mesh)
        with pytest.raises(ValueError, match="^mesh:"):
            parallel.shard_data(np.ones((4, 2)), not_a_mesh)
    with pytest.raises(ValueError, match="^x:.*0-d"):
        parallel.shard_data(np.float32(2.0), mesh)
    placed = parallel.shard_data(np.arange(4.0), mesh)
    np.testing.assert_array_equal(np.asarray(placed), np.arange(4.0))


def test_shard_data_and_round_up_name_their_arguments():
    import pytest

    from transformer_theory import parallel

    mesh = parallel.make_mesh(1)
    with pytest.raises(ValueError, match="^x:"):  # a list had no .shape (AttributeError)
        parallel.shard_data([1, 2], mesh)
    with pytest.raises(ValueError, match="^multiple:"):  # ZeroDivisionError
        parallel.round_up(3, 0)
    with pytest.raises(ValueError, match="^x:"):
        parallel.round_up(float("nan"), 2)
    assert [parallel.round_up(x, 4) for x in (0, 1, 4, 5)] == [0, 4, 4, 8]


if __name__ == "__main__":
    worker(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
