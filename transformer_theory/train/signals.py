"""Ctrl-C held across a write that must not be cut in half (no orbax, no JAX: cheap to import).

:func:`deferred_sigint` is what :meth:`~transformer_theory.train.checkpoint.Checkpointer.save`
wraps an Orbax write in: a ``KeyboardInterrupt`` inside Orbax's save leaves its worker threads
mid-write, after which the next save can hang or a thread prints a traceback.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

__all__ = ["deferred_sigint"]


@contextlib.contextmanager
def deferred_sigint() -> Iterator[None]:
    """Hold SIGINT for the duration of the block, then deliver it again to the previous handler
    (Python's default raises ``KeyboardInterrupt`` right after the block).

    Only the main thread may install signal handlers; elsewhere (and where the handler cannot be
    replaced) the block runs unprotected.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    except (ValueError, TypeError):
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            signal.raise_signal(signal.SIGINT)
