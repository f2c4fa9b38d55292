"""Sharding over several devices gives the same numbers as one device.

The sharded run happens in a subprocess with ``XLA_FLAGS=--xla_force_host_platform_device_count=4``
(the flag must be set before JAX starts). It computes every verdict of two families (one in scope,
one control) on a (models=2, data=2) mesh and without a mesh; this process computes them on its one
device. Control residuals (O(1e-2)) must agree to 1e-12 relative: each (model, sequence) output is
the same per-example program wherever it runs, only reduction order may differ. In-scope residuals
are rounding noise (~1e-16), so they must agree on the verdict (both below tolerance).
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np

# One definition of the run, executed here (one device) and in the 4-device subprocess.
RUN = textwrap.dedent(
    """
    from transformer_theory.theory import checks, dependence
    from transformer_theory.tasks import InContextQA

    def run(mesh):
        task = InContextQA(3, 3, 2)
        sets = dependence.icqa_example_sets(3, 3, 2, num_sets=5)
        sets += dependence.random_dependent_sets(1, 5, 3, task.seq_len, task.vocab_size)
        out = {}
        for name in ("relu-3h", "softmax-3h"):
            fam = checks.FAMILIES[name]
            V, N, C = task.vocab_size, task.seq_len, task.num_classes
            params = checks.random_models(fam, V, N, C, 7, 2)
            for v in checks.check_family(fam, params, sets, task, chunk_size=32, mesh=mesh):
                out[f"{name}/{v.proposition}"] = [v.max_residual, v.tolerance, v.holds]
        return out
    """
)

SCRIPT = (
    textwrap.dedent(
        """
    import json
    import jax
    jax.config.update("jax_enable_x64", True)
    from transformer_theory import parallel
    """
    )
    + RUN
    + textwrap.dedent(
        """
    mesh = parallel.make_mesh(2)
    print(json.dumps({"devices": jax.local_device_count(), "mesh": dict(mesh.shape),
                      "sharded": run(mesh), "single": run(None)}))
    """
    )
)


def single_device():
    ns = {}
    exec(RUN, ns)
    return ns["run"](None)


def test_four_devices_match_one_device():
    env = dict(
        os.environ,
        XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count=4",
        JAX_PLATFORMS="cpu",
    )
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["devices"] == 4 and res["mesh"] == {"models": 2, "data": 2}
    here = single_device()
    for other in (res["sharded"], res["single"]):
        assert other.keys() == here.keys()
        for k, (r, tol, holds) in here.items():
            r2, tol2, holds2 = other[k]
            assert holds == holds2 and tol == tol2, k
            if holds:
                assert r <= tol and r2 <= tol, k
            else:
                np.testing.assert_allclose(r2, r, rtol=1e-12, err_msg=k)
