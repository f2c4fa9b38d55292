"""Sharding the verifier's batches over all local devices (``jax.sharding``: Mesh + NamedSharding).

The verifier's work is embarrassingly parallel over two axes: models (``M``) and sequences. A 2-D
mesh ``("models", "data")`` over ``jax.local_devices()`` takes the largest factor of the device
count that divides ``M`` for the model axis and the rest for the data axis; model batches are
sharded on their leading axis, token chunks on theirs (chunk sizes are rounded up to a multiple
of the data axis). ``jit`` then runs each device's block independently: every (model, sequence)
output is computed by exactly the same per-example program as on one device.

Several processes or hosts: every process runs the same program. Call
``jax.distributed.initialize(coordinator_address, num_processes, process_id)`` before any other
JAX call (on CPU after ``jax.config.update("jax_cpu_collectives_implementation", "gloo")``; auto-
detected on TPU pods / SLURM / Open MPI), build the mesh over ALL processes' devices with
``make_mesh(num_models, devices=jax.devices())`` and pass it as ``mesh=`` to the checks. Every
process holds the same host data; ``device_put`` keeps each process's shards, and results come
back to every process through :func:`to_host` (an all-gather across processes).
``tests/test_distributed.py`` runs it with 2 processes on localhost.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec
from jax.typing import ArrayLike

from transformer_theory import _validate

_PyTree = TypeVar("_PyTree")


def make_mesh(num_models: int, devices: Sequence[jax.Device] | None = None) -> Mesh:
    """A ``("models", "data")`` mesh: ``gcd(num_models, #devices)`` devices on the model axis.

    Args:
      num_models: ``M``, the size of the model batch to shard.
      devices: defaults to ``jax.local_devices()``.
    """
    _validate.check_int_arg("num_models", num_models)
    if devices is None:
        devs = list(jax.local_devices())
    elif isinstance(devices, (str, bytes)) or not isinstance(devices, Sequence):
        raise ValueError(
            f"devices: expected a list of jax devices (e.g. jax.devices()), got {devices!r:.80}"
        )
    else:
        devs = list(devices)
    if not devs:
        raise ValueError("devices: expected at least one device, got an empty list")
    bad = [d for d in devs if not isinstance(d, jax.Device)]
    if bad:
        raise ValueError(f"devices: expected jax devices, got {bad[0]!r:.80}")
    if len(set(devs)) != len(devs):
        raise ValueError("devices: a device is listed twice")
    n = len(devs)
    a = math.gcd(int(num_models), n)
    return Mesh(np.asarray(devs, dtype=object).reshape(a, n // a), ("models", "data"))


def _check_mesh(mesh: object) -> None:
    if not isinstance(mesh, Mesh) or set(mesh.axis_names) != {"models", "data"}:
        raise ValueError(
            f"mesh: expected a ('models', 'data') jax.sharding.Mesh from make_mesh, got "
            f"{mesh!r:.80}"
        )


def model_size(mesh: Mesh) -> int:
    return int(mesh.shape["models"])


def data_size(mesh: Mesh) -> int:
    return int(mesh.shape["data"])


def round_up(x: int, multiple: int) -> int:
    """Smallest multiple of ``multiple`` that is ``>= x``."""
    _validate.check_int_arg("x", x, 0)
    _validate.check_int_arg("multiple", multiple)
    return -(-int(x) // int(multiple)) * int(multiple)


def shard_models(params_M: _PyTree, mesh: Mesh) -> _PyTree:
    """Place a model batch (any pytree with a leading model axis) sharded over ``"models"``."""
    _check_mesh(mesh)
    leaves = jax.tree.leaves(params_M)
    if not leaves:
        raise ValueError("params_M: expected a pytree with array leaves, got none")
    flat = [x for x in leaves if jax.numpy.ndim(x) == 0]
    if flat:
        raise ValueError(
            f"params_M: every leaf needs a leading model axis, got a 0-d leaf {flat[0]!r:.60}"
        )
    lead = {x.shape[0] for x in leaves}
    if len(lead) != 1:
        raise ValueError(
            f"params_M: every leaf needs the same leading model axis, got sizes {sorted(lead)}"
        )
    (m,) = lead
    if m % model_size(mesh):
        raise ValueError(
            f"params_M: {m} models do not split over the mesh's {model_size(mesh)} model shards"
        )
    return jax.tree.map(
        lambda x: jax.device_put(x, NamedSharding(mesh, PartitionSpec("models"))), params_M
    )


def to_host(x: ArrayLike) -> np.ndarray:
    """A (possibly sharded) array as NumPy on THIS process: an all-gather across processes when
    some of its shards live in another process, else a plain copy."""
    if isinstance(x, jax.Array) and not x.is_fully_addressable:
        from jax.experimental import multihost_utils

        return np.asarray(multihost_utils.process_allgather(x, tiled=True))
    return np.asarray(x)


def shard_data(x: jax.Array | np.ndarray, mesh: Mesh) -> jax.Array:
    """Place an array sharded over ``"data"`` on its leading axis (replicated over ``"models"``)."""
    _check_mesh(mesh)
    if not isinstance(x, (jax.Array, np.ndarray, np.generic)):
        raise ValueError(f"x: expected a jax or NumPy array, got {type(x).__name__}")
    if jax.numpy.ndim(x) == 0:
        raise ValueError(f"x: expected an array with a leading axis to shard, got a 0-d {x!r:.60}")
    if x.shape[0] % data_size(mesh):
        raise ValueError(
            f"x: leading size {x.shape[0]} does not split over the mesh's "
            f"{data_size(mesh)} data shards"
        )
    return jax.device_put(x, NamedSharding(mesh, PartitionSpec("data")))
