"""Lower bounds beside the constructions: what the library's certificates prove no one-layer model
can do, for the task a RASP program defines.

The task at length ``n``: every input of length ``n`` over the vocabulary, labelled with the
program's value at the LAST position (the interpreter's, None a class of its own). Its dataset
goes to :func:`transformer_theory.theory.certificates.certify_dataset` (Chen & Zou 2024,
Propositions 7-10: a Farkas certificate that a linear program is infeasible, re-verified in
integers) for each family:
``relu_any_heads`` (one attention layer, ReLU attention, any number of heads, plus a linear
classifier) and ``softmax_one_head`` (one softmax head, plus a linear classifier). ``impossible``
with ``verified_exactly`` means NO model of that family labels every input right; ``no
certificate`` proves nothing. Neither family has an MLP after its attention, so a certificate
does not contradict a one-layer compiled model with an MLP (``parity``): it says the MLP is
needed.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from transformer_theory.rasp import _language as lang

if TYPE_CHECKING:
    from transformer_theory.rasp._compiler import CompiledProgram

__all__ = ["one_layer_certificates", "lower_bounds", "FAMILIES"]

FAMILIES = ("relu_any_heads", "softmax_one_head")


def one_layer_certificates(
    program: lang.SOp,
    vocab: Sequence[Hashable],
    lengths: Sequence[int],
    *,
    families: Sequence[str] = FAMILIES,
    max_inputs: int = 4096,
) -> list[dict[str, Any]]:
    """Per length ``n`` (skipped when ``|V|^n > max_inputs``) and family: is the last-position
    task of ``program`` certified impossible for one layer?

    Returns one record per (length, family): ``length``, ``family``, ``inputs``, ``classes``,
    ``verdict`` (``"impossible"`` or ``"no certificate"``), ``verified_exactly`` and
    ``certificate_size`` (examples in the smallest certificate; None without one).
    """
    from transformer_theory import _validate
    from transformer_theory.theory.certificates import certify_dataset

    if not isinstance(program, lang.SOp):
        raise ValueError(f"program: expected a RASP SOp, got {type(program).__name__}")
    vocab = list(vocab) if isinstance(vocab, (str, Sequence)) else vocab
    if not isinstance(vocab, list) or not vocab:
        raise ValueError(f"vocab: expected a non-empty sequence of tokens, got {vocab!r:.80}")
    if isinstance(lengths, (str, bytes)) or not isinstance(lengths, Sequence) or not lengths:
        raise ValueError(f"lengths: expected a non-empty sequence of lengths, got {lengths!r:.80}")
    lengths = [_validate.check_int_arg("lengths", n) for n in lengths]
    max_inputs = _validate.check_int_arg("max_inputs", max_inputs)
    if isinstance(families, str) or any(f not in FAMILIES for f in families):
        raise ValueError(f"families: expected names from {list(FAMILIES)}, got {families!r}")
    out = []
    for n in lengths:
        if len(vocab) > 1 and n > max_inputs or len(vocab) ** n > max_inputs:  # 2**n > n
            continue
        inputs = [list(t) for t in itertools.product(vocab, repeat=n)]
        last = [repr(lang.evaluate(program, xs)[-1]) for xs in inputs]
        classes = sorted(set(last))
        index = {c: i for i, c in enumerate(classes)}
        tokens = np.array([[vocab.index(v) for v in xs] for xs in inputs], np.int64)
        labels = np.array([index[c] for c in last], np.int64)
        for family in families:
            rec = certify_dataset(tokens, labels, len(vocab), len(classes), family)
            cert = rec.certificate
            out.append(
                {
                    "length": n,
                    "family": family,
                    "inputs": len(inputs),
                    "classes": len(classes),
                    "verdict": rec.verdict,
                    "verified_exactly": bool(rec.verified_exactly),
                    "certificate_size": None if cert is None else int(cert.size),
                }
            )
    return out


def lower_bounds(compiled: CompiledProgram, certificate_inputs: int = 2048) -> dict:
    """The compiled depth beside the attention depth and the one-layer certificates (lengths
    ``2..max_seq_len`` with at most ``certificate_inputs`` inputs each)."""
    from transformer_theory import _validate
    from transformer_theory.theory import certificates

    _validate.check_int_arg("certificate_inputs", certificate_inputs)
    sizes = compiled.sizes()
    certs = one_layer_certificates(
        compiled.program,
        compiled.vocab,
        range(2, compiled.max_seq_len + 1),
        max_inputs=certificate_inputs,
    )
    impossible = sorted(
        {c["length"] for c in certs if c["verdict"] == "impossible" and c["verified_exactly"]}
    )
    return {
        "attention_depth": compiled.attention_depth,
        "compiled_layers": sizes["layers"],
        "compiled_attention_sublayers": sizes["attention_sublayers"],
        "one_layer_certified_impossible_at": impossible,
        "one_layer_certificates": certs,
        "one_layer_families": {f: certificates.FAMILIES[f] for f in FAMILIES},
        "task": "the program's value at the last position, every input of the length",
    }
