"""Orbax checkpoints of a training state -- the ONLY module of the library that imports orbax.

A training state is any pytree of arrays (model ``nnx.State``, optimizer state, step, key). It is
saved as a flat ``{path: array}`` dict (paths from ``jax.tree_util.keystr``), which Orbax stores
without caring about NNX/Optax container types, and restored into the structure of a template
state with ``StandardRestore`` of its abstract (shape/dtype) tree -- bit for bit, so a resumed run
continues exactly where the killed one stopped.

Uses the current API: ``ocp.CheckpointManager(directory, options=...)`` as a context manager,
``args=ocp.args.StandardSave(...)`` / ``ocp.args.StandardRestore(abstract)``.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

import jax
import numpy as np
import orbax.checkpoint as ocp

from transformer_theory.train.signals import deferred_sigint

__all__ = ["Checkpointer", "latest_step"]


def _flatten(state: Any) -> dict[str, Any]:
    leaves = jax.tree_util.tree_flatten_with_path(state)[0]
    return {jax.tree_util.keystr(path): leaf for path, leaf in leaves}


def _disk_full(err: BaseException | None) -> bool:
    """Whether ``err`` (or an error it was raised from) is a full disk or an exhausted quota:
    an ``OSError`` with ``ENOSPC`` / ``EDQUOT``, or the text TensorStore gives it."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = str(err)
        if any(words in text for words in ("No space left on device", "Disk quota exceeded")):
            return True
        err = err.__cause__ or err.__context__
    return False


def _drop_closed_loop_callbacks() -> None:
    """Keep the late callbacks of a failed restore from printing tracebacks.

    When one array of a checkpoint cannot be read, Orbax's restore raises at once and
    ``asyncio_utils.run_sync`` closes the event loop it ran on, while TensorStore still completes
    the other reads in its own threads; each completion hands its result to that closed loop and
    raises ``RuntimeError("Event loop is closed")`` in a TensorStore thread, which Python prints
    through ``sys.unraisablehook`` or, from a thread that calls ``PyErr_Print``, through
    ``sys.excepthook`` (both seen here, run to run) -- after the caller has reported the
    unreadable checkpoint in one line. From the first failed restore on, both hooks drop exactly
    those (every other exception still reaches the previous hook)."""

    def closed_loop(err: BaseException | None) -> bool:
        return isinstance(err, RuntimeError) and str(err) == "Event loop is closed"

    previous = sys.unraisablehook
    if not getattr(previous, "drops_closed_loop_callbacks", False):

        def hook(unraisable: Any) -> None:
            if not closed_loop(unraisable.exc_value):
                previous(unraisable)

        hook.drops_closed_loop_callbacks = True  # type: ignore[attr-defined]
        sys.unraisablehook = hook
    previous_except = sys.excepthook
    if not getattr(previous_except, "drops_closed_loop_callbacks", False):

        def excepthook(kind: type, err: BaseException, tb: Any) -> None:
            if not closed_loop(err):
                previous_except(kind, err, tb)

        excepthook.drops_closed_loop_callbacks = True  # type: ignore[attr-defined]
        sys.excepthook = excepthook


def latest_step(directory: os.PathLike | str) -> int | None:
    """The latest checkpoint step saved in ``directory``; None when there is none (or no
    directory). Creates nothing."""
    directory = os.path.abspath(os.fspath(directory))
    if not os.path.isdir(directory):
        return None
    options = ocp.CheckpointManagerOptions(create=False)
    with ocp.CheckpointManager(directory, options=options) as manager:
        return manager.latest_step()


class Checkpointer:
    """Save/restore a training state every ``every`` steps into ``directory`` (keeps the last
    ``max_to_keep``).

    Use as a context manager::

        with Checkpointer(out / "checkpoints", every=100) as ckpt:
            step = ckpt.latest_step()          # None for a fresh run
            if step is not None:
                state = ckpt.restore(step, state)  # ``state`` serves as the template
            ...
            if ckpt.should_save(step): ckpt.save(step, state)
    """

    def __init__(self, directory: os.PathLike | str, every: int, max_to_keep: int = 2):
        if every <= 0:
            raise ValueError(f"every: expected a positive checkpoint interval, got {every}")
        if max_to_keep <= 0:
            raise ValueError(f"max_to_keep: expected a positive count, got {max_to_keep}")
        self.directory = os.path.abspath(os.fspath(directory))  # Orbax wants an absolute path
        self.every = int(every)
        options = ocp.CheckpointManagerOptions(
            max_to_keep=max_to_keep,
            create=True,
            # Synchronous saves: a run killed right after `save` returns still has the checkpoint.
            enable_async_checkpointing=False,
        )
        self._manager = ocp.CheckpointManager(self.directory, options=options)

    def __enter__(self) -> Checkpointer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._manager.wait_until_finished()
        self._manager.close()

    def latest_step(self) -> int | None:
        return self._manager.latest_step()

    def all_steps(self) -> list[int]:
        return list(self._manager.all_steps())

    def should_save(self, step: int) -> bool:
        return step % self.every == 0

    def save(self, step: int, state: Any) -> None:
        """Save ``state`` (a pytree of arrays) as checkpoint ``step``; overwrites nothing.

        Ctrl-C during the write is held until the write is complete (then raised): a
        ``KeyboardInterrupt`` inside Orbax's save leaves its worker threads mid-write, after which
        the next save can hang or a thread prints a traceback.
        """
        flat = {k: np.asarray(v) for k, v in _flatten(state).items()}
        with deferred_sigint():
            try:
                self._manager.save(int(step), args=ocp.args.StandardSave(flat), force=True)
                self._manager.wait_until_finished()
            except Exception as err:
                if _disk_full(err):  # Orbax / TensorStore wrap it: the CLI's one line needs it
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self.directory) from err
                raise

    def restore(self, step: int, template: Any) -> Any:
        """Checkpoint ``step`` in the pytree structure (and shapes/dtypes) of ``template``."""
        flat_template = _flatten(template)
        abstract = {
            k: jax.ShapeDtypeStruct(np.shape(v), np.asarray(v).dtype)
            for k, v in flat_template.items()
        }
        try:
            restored = self._manager.restore(int(step), args=ocp.args.StandardRestore(abstract))
        except Exception:
            _drop_closed_loop_callbacks()
            raise
        missing = set(abstract) - set(restored)
        if missing:
            raise ValueError(f"template: checkpoint {step} lacks entries {sorted(missing)[:3]}")
        leaves_paths, treedef = jax.tree_util.tree_flatten_with_path(template)
        leaves = [restored[jax.tree_util.keystr(p)] for p, _ in leaves_paths]
        return jax.tree_util.tree_unflatten(treedef, [jax.numpy.asarray(x) for x in leaves])
