"""Alice's message in the one-way protocol of Sanford, Hsu & Telgarsky 2023's qSA lower bound
(:mod:`._theory_disjointness`): the unit's query ``Q(x_{2q+1})`` quantized with a FIXED public
scale (:func:`transformer_theory.precision.fake_quantize`) to one of ``2^p - 1`` levels per entry,
written in exactly ``p`` bits each (:func:`pack_message`): ``m p`` bits in all; and Bob's reading
of it (:func:`unpack_message`) into his own streams (:func:`receive`).

Everything here takes plain arrays: the queries of the unit (``.._constructions_qsa``), the
reduction's instances (``.._tasks.protocol_instances``); it computes no unit and runs none.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike

from transformer_theory import _validate, precision
from transformer_theory.papers.sanford2023._tasks import ProtocolInstances

__all__ = [
    "ProtocolMessage",
    "input_index",
    "pack_message",
    "protocol_message",
    "quantized_levels",
    "receive",
    "unpack_message",
]


def input_index(a_BxQ: np.ndarray) -> np.ndarray:
    """Row of each ``a`` in :func:`._tasks.all_inputs` (lexicographic: ``a`` read as a binary
    number)."""
    a = np.asarray(a_BxQ, np.int64)
    return a @ (2 ** np.arange(a.shape[1] - 1, -1, -1))


# the quantizer as one compiled call (its eager ops would compile one by one)
_quantize = jax.jit(precision.fake_quantize, static_argnames=("bits", "per_example", "scale"))


def quantized_levels(queries_AxE: np.ndarray, bits: int, scale: float) -> np.ndarray:
    """Every ``a``'s query rounded at ``bits`` with the fixed ``scale``, as integer levels in
    ``[-(2^{p-1} - 1), 2^{p-1} - 1]``."""
    levels = 2 ** (int(bits) - 1) - 1
    # every a at once, one compiled call: one shape whatever the batch
    rounded = _quantize(jnp.asarray(queries_AxE), int(bits), scale=float(scale))
    return np.rint(np.asarray(rounded, np.float64) / (scale / levels)).astype(np.int64)


def pack_message(codes: np.ndarray, bits: int) -> str:
    """The message as a string of ``len(codes) * bits`` characters ``0``/``1``: each level
    offset by ``2^{p-1} - 1`` into ``[0, 2^p - 2]``, written in ``p`` binary digits."""
    bits = _validate.check_int_arg("bits", bits, 1)
    levels = 2 ** (bits - 1) - 1
    codes = np.asarray(codes, np.int64)
    if np.any(np.abs(codes) > levels):
        raise ValueError(f"codes: expected levels within +-{levels} at {bits} bits")
    return "".join(format(int(v) + levels, f"0{int(bits)}b") for v in codes)


def unpack_message(message: str, bits: int) -> np.ndarray:
    """Bob's reading of :func:`pack_message`: the integer levels back."""
    bits = _validate.check_int_arg("bits", bits, 1)
    if len(message) % bits or set(message) - {"0", "1"}:
        raise ValueError(f"message: expected a 0/1 string of a multiple of {bits} characters")
    levels = 2 ** (bits - 1) - 1
    return np.array(
        [int(message[k : k + bits], 2) - levels for k in range(0, len(message), bits)], np.int64
    )


def receive(
    stream_BxNxD: np.ndarray, codes_BxE: np.ndarray, bits: int, scale: float, row: int, block: slice
) -> None:
    """Bob's streams, in place: the query ``block`` at ``row`` of each pair becomes Alice's
    message as he receives it (packed to ``m p`` bits, unpacked) times the step
    ``scale / (2^{p-1} - 1)``."""
    step = scale / (2 ** (bits - 1) - 1)
    for k, codes in enumerate(codes_BxE):
        received = unpack_message(pack_message(codes, bits), bits)
        stream_BxNxD[k, row, block] = received * step


@dataclasses.dataclass(frozen=True)
class ProtocolMessage:
    """Alice's message at ``bits`` (:func:`protocol_message`; ``bits=None``: none, the
    unquantized unit): the fixed ``scale``, the levels ``codes_AxE`` of every ``a`` of
    :func:`._tasks.all_inputs` and their packed messages ``messages_A`` (:func:`pack_message`),
    and Bob's streams ``stream_BxNxD`` of every pair, his query at ``x_{2q+1}`` the message as
    received (a JAX array in the unit's dtype, ready to run)."""

    bits: int | None
    scale: float | None
    codes_AxE: np.ndarray | None
    stream_BxNxD: jax.Array
    messages_A: tuple[str, ...] | None = None


def protocol_message(
    inst: ProtocolInstances,
    queries_AxE: np.ndarray,
    stream_BxNxD: np.ndarray,
    bits: int | None,
    dtype: DTypeLike,
) -> ProtocolMessage:
    """Alice's message at ``bits`` from her queries ``queries_AxE`` (the unit's ``Q(x_{2q+1})``
    of each ``a``, :func:`.._constructions_qsa.qsa_queries`): quantized with the fixed scale
    (the largest ``|Q|`` coordinate, :func:`._theory_disjointness.message_scale`) to integer
    levels, packed to ``m p`` bits (:func:`pack_message`) and unpacked by Bob, whose query block
    of each pair's embedded ``stream_BxNxD`` (not modified) becomes the received levels times the
    step ``scale / (2^{p-1} - 1)``. ``bits=None``: the streams as they are."""
    stream = np.array(stream_BxNxD)
    if bits is None:
        return ProtocolMessage(None, None, None, jnp.asarray(stream, dtype))
    bits = _validate.check_int_arg("bits", bits, 2)
    rows = np.shape(queries_AxE)[1]
    scale = float(np.max(np.abs(queries_AxE)))
    codes = quantized_levels(queries_AxE, bits, scale)
    block = slice(inst.dim, inst.dim + rows)  # phi's alpha w~ block, what w_q reads
    receive(stream, codes[input_index(inst.a_BxQ)], bits, scale, inst.position, block)
    messages = tuple(pack_message(c, bits) for c in codes)
    return ProtocolMessage(bits, scale, codes, jnp.asarray(stream, dtype), messages)
