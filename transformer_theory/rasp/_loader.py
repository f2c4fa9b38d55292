"""The one loader of the ``rasp`` command's programs (:func:`load_program`: a library name, or
a user program file, ``transformer-theory rasp FILE.py``): every failure of the user's code -- on
import, in ``program()``, in its ``VOCAB``, and later inside its Maps and predicates while the
program is compiled and checked (:func:`user_code`) -- becomes one ``ValueError`` naming the
file and the failure, which the command prints as one line (exit 2)."""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Hashable, Iterator, Sequence

from transformer_theory.rasp import _language, _library

__all__ = ["load_file", "load_program", "user_code"]


def _failure(path: str, what: str, err: BaseException) -> ValueError:
    text = str(err).splitlines()[0] if str(err) else ""
    return ValueError(
        f"PROGRAM: {path}: {what}: {type(err).__name__}" + (f": {text}" if text else "")
    )


@contextlib.contextmanager
def user_code(path: str, what: str) -> Iterator[None]:
    """Run a block that calls the user's code: any exception it raises (a ``RecursionError`` of
    a deep graph, a ``KeyError`` of a random Map, an ``OverflowError`` of an infinite value ...)
    becomes one ``ValueError`` naming ``path`` and ``what`` was being done. Ctrl-C passes."""
    try:
        yield
    except ValueError as err:
        if str(err).startswith(f"PROGRAM: {path}"):
            raise
        raise _failure(path, what, err) from None
    except Exception as err:  # the user's code: any failure is a one-line message
        raise _failure(path, what, err) from None


def _vocab(path: str, raw: object) -> list:
    if not isinstance(raw, str) and (isinstance(raw, bytes) or not hasattr(raw, "__iter__")):
        raise ValueError(
            f"PROGRAM: {path}: VOCAB: expected a string or a sequence of tokens, got "
            f"{type(raw).__name__}"
        )
    tokens = list(raw)
    for t in tokens:
        if not isinstance(t, Hashable) or isinstance(t, (list, dict, set)):
            raise ValueError(f"PROGRAM: {path}: VOCAB: token {t!r} is not hashable")
    if not tokens or len(set(tokens)) != len(tokens):
        raise ValueError(f"PROGRAM: {path}: VOCAB: expected distinct tokens, got {tokens!r}")
    return tokens


def load_file(
    path: str, vocab: Sequence[Hashable] | None = None
) -> tuple[_language.SOp, list, str]:
    """``(program, vocab, name)`` from a ``.py`` file defining ``program()`` (no arguments) and
    optionally ``VOCAB`` (a string or a sequence of distinct hashable tokens; default ``"abc"``).

    Raises:
      ValueError: one line naming ``path`` and the failure, whatever the user's code raised.
    """
    if not os.path.isfile(path):
        raise ValueError(f"PROGRAM: no such file {path!r}")
    mod_spec = importlib.util.spec_from_file_location("rasp_user_program", path)
    module = importlib.util.module_from_spec(mod_spec)
    with user_code(path, "import"):
        mod_spec.loader.exec_module(module)
    if not callable(getattr(module, "program", None)):
        raise ValueError(f"PROGRAM: {path} defines no program() function")
    with user_code(path, "program()"):
        prog = module.program()
    if not isinstance(prog, _language.SOp):
        raise ValueError(f"PROGRAM: {path}: program() returned {type(prog).__name__}, not a SOp")
    v = list(vocab) if vocab is not None else _vocab(path, getattr(module, "VOCAB", "abc"))
    return prog, v, os.path.splitext(os.path.basename(path))[0]


def load_program(
    spec: str, vocab: Sequence[Hashable] | None = None
) -> tuple[_language.SOp, list, str]:
    """``(program, vocab, name)`` from a library name or a ``.py`` file defining ``program()``
    (and optionally ``VOCAB``). ValueError naming ``spec`` or ``vocab`` otherwise."""
    if not isinstance(spec, str):
        raise ValueError(f"spec: expected a program name or a .py file, got {spec!r:.80}")
    if spec.endswith(".py"):
        return load_file(spec, vocab)
    if spec not in _library.PROGRAMS:
        raise ValueError(
            f"PROGRAM: {spec!r} is neither a .py file nor a library program "
            f"({', '.join(sorted(_library.PROGRAMS))})"
        )
    prog, v = _library.get_program(spec, vocab)
    return prog, v, spec
