"""tracr's compiler entry, ``compiling.compile_rasp_to_model``, onto this library's compiler.

The arguments are tracr's; the result is a
:class:`~transformer_theory.rasp._compiler.CompiledProgram` (this library's
:class:`~transformer_theory.params.ModelParams` and its residual layout), not tracr's Haiku model:
run it with :func:`transformer_theory.rasp.run`, check it with
:func:`transformer_theory.rasp.check`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

__all__ = ["COMPILER_BOS", "COMPILER_PAD", "compile_rasp_to_model"]

COMPILER_BOS = "compiler_bos"
COMPILER_PAD = "compiler_pad"


def compile_rasp_to_model(
    program: Any,
    vocab: Iterable[Hashable],
    max_seq_len: int,
    causal: bool = False,
    compiler_bos: str = COMPILER_BOS,
    compiler_pad: str = COMPILER_PAD,
    mlp_exactness: int | None = None,
) -> Any:
    """``program`` (a tracr RASP program, from :mod:`transformer_theory.rasp.tracr.rasp` or
    tracr's own) compiled by this library's compiler.

    Args:
      program: the output SOp.
      vocab: the input tokens (a set, as tracr takes it; compiled in sorted order, by ``repr``
        where the tokens do not compare).
      max_seq_len: the longest input.
      causal: compile under a causal mask with tracr's causal meaning (every selector masked to
        keys ``j <= i``: a prefix's meaning at each position, ``rasp.evaluate(...,
        causal=True)``).
      compiler_bos, compiler_pad: tracr's special tokens; here they are only refused as
        vocabulary entries (this library's BOS is its own token id, there is no padding token).
      mlp_exactness: tracr's discretisation constant; ``None`` (the default here) lets this
        compiler's law choose every ramp from its value set, a number is passed as
        ``mlp_slope`` (every numerical step ramps over ``1/mlp_exactness``).

    Raises:
      ValueError: naming the node and the reason, for a program this compiler refuses.
    """
    from transformer_theory.rasp import _compiler, _tracr

    vocab = list(vocab)
    for name, special in (("compiler_bos", compiler_bos), ("compiler_pad", compiler_pad)):
        if special in vocab:
            raise ValueError(f"{name}: {special!r} must not be in the vocab {vocab}")
    try:
        vocab = sorted(vocab)
    except TypeError:
        vocab = sorted(vocab, key=repr)
    return _compiler.compile(
        _tracr.from_tracr(program),
        vocab,
        max_seq_len,
        "prefix" if causal else False,
        mlp_slope=None if mlp_exactness is None else float(mlp_exactness),
    )
