"""One program end to end, as the ``rasp`` command runs it: load, compile, check, measure the
precision limits, write the model (``.npz``), ``rasp.json`` and the figure."""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from transformer_theory import _validate, jsonio, plotting, saveload
from transformer_theory.rasp import _check, _compiler, _language, _library, _loader, _lower_bounds
from transformer_theory.rasp._records import RaspRecord


def load_program(
    spec: str, vocab: Sequence[Hashable] | None = None
) -> tuple[_language.SOp, list, str]:
    """``(program, vocab, name)`` from a library name or a ``.py`` file defining ``program()``
    (and optionally ``VOCAB``). ValueError naming ``spec`` or ``vocab`` otherwise."""
    if not isinstance(spec, str):
        raise ValueError(f"spec: expected a program name or a .py file, got {spec!r:.80}")
    if spec.endswith(".py"):
        return _loader.load_file(spec, vocab)
    if spec not in _library.PROGRAMS:
        raise ValueError(
            f"PROGRAM: {spec!r} is neither a .py file nor a library program "
            f"({', '.join(sorted(_library.PROGRAMS))})"
        )
    prog, v = _library.get_program(spec, vocab)
    return prog, v, spec


def study(
    program: _language.SOp,
    vocab: Sequence[Hashable],
    max_len: int,
    *,
    causal: bool = False,
    precision: str = "float64",
    max_inputs: int = 100_000,
    samples: int = 64,
    precision_lengths: Sequence[int] = (),
    certificate_inputs: int = 2048,
) -> tuple[_compiler.CompiledProgram, RaspRecord]:
    """Compile, check in ``precision``, put the lower bounds beside the compiled size and
    measure the precision limits over ``precision_lengths`` (float64, float32 and bfloat16
    beside the law); returns ``(compiled, record)``, the record typed (:class:`RaspRecord`: the
    fields of ``rasp.json``).

    The record's ``lower_bounds``: the attention depth of the dependency graph (Weiss et al.
    2021) beside the compiled layers and attention sublayers, and per length ``2..max_len`` with
    at most ``certificate_inputs`` inputs the one-layer certificates of
    :func:`~transformer_theory.rasp._lower_bounds.one_layer_certificates` (Chen & Zou 2024's
    families)."""
    # refused naming this function's arguments (check's are max_inputs / samples_per_length)
    _validate.check_int_arg("max_inputs", max_inputs, 0)
    _validate.check_int_arg("samples", samples, 0)
    _validate.check_int_arg("certificate_inputs", certificate_inputs)
    _validate.check_choice("precision", precision, sorted(_check.DTYPES))
    if precision_lengths:
        if any(n < 1 for n in _check._lengths("precision_lengths", precision_lengths)):
            raise ValueError(f"precision_lengths: expected lengths >= 1, got {precision_lengths}")
    compiled = _compiler.compile(program, vocab, max_len, causal)
    try:
        rec = _check.check(
            compiled, dtype=precision, max_inputs=max_inputs, samples_per_length=samples
        )
    except ValueError as err:  # named as this function's arguments
        raise ValueError(str(err).replace("samples_per_length", "samples")) from None
    record = {
        "program": program.label,
        "vocab": [repr(v) for v in vocab],
        "max_len": max_len,
        "causal": causal,
        "sizes": compiled.sizes(),
        "check": rec,
        "constants": compiled.constants,
        "predicted": {d: _check.predicted_exact(compiled, d) for d in _check.DTYPES},
        "lower_bounds": lower_bounds(compiled, certificate_inputs),
        "labels": list(compiled.labels),
        "output_values": None
        if compiled.output_values is None
        else [repr(v) for v in compiled.output_values],
        "unembedding": "w_o of model.npz: row c reads output value c (numerical: the number)",
    }
    if precision_lengths:
        record["precision_limits"] = _check.precision_limits(
            program,
            vocab,
            lengths=precision_lengths,
            samples=16,
            causal=causal,
            dtypes=_check.DTYPES,
        )
    return compiled, jsonio.as_record(RaspRecord, record)


def lower_bounds(compiled: _compiler.CompiledProgram, certificate_inputs: int = 2048) -> dict:
    """The compiled depth beside the attention depth and the one-layer certificates (lengths
    ``2..max_seq_len`` with at most ``certificate_inputs`` inputs each)."""
    from transformer_theory.theory.certificates import FAMILIES

    _validate.check_int_arg("certificate_inputs", certificate_inputs)
    sizes = compiled.sizes()
    certs = _lower_bounds.one_layer_certificates(
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
        "one_layer_families": {f: FAMILIES[f] for f in _lower_bounds.FAMILIES},
        "task": "the program's value at the last position, every input of the length",
    }


def write_outputs(
    compiled: _compiler.CompiledProgram, record: RaspRecord | dict[str, Any], out: str
) -> dict:
    """Write ``model.npz`` (:func:`transformer_theory.saveload.save_model`), ``rasp.json``
    (atomically, strict JSON) and ``rasp.png`` under ``out``; returns the paths."""
    if os.path.lexists(out) and not os.path.isdir(out):
        raise ValueError(f"out: {out} exists and is not a directory")
    os.makedirs(out, exist_ok=True)
    paths = {
        "model": saveload.save_model(os.path.join(out, "model.npz"), compiled.params()),
        "record": jsonio.write_json(os.path.join(out, "rasp.json"), record),
        "figure": figure(compiled, os.path.join(out, "rasp.png")),
    }
    return paths


def figure(compiled: _compiler.CompiledProgram, path: str, example: Sequence | None = None) -> str:
    """The residual stream of one example (rows: positions, columns: the labelled dimensions)
    and every layer's attention maps (summed over heads), for the longest vocabulary cycle."""
    import jax.numpy as jnp

    from transformer_theory.core import forward_trace

    if example is None:
        example = [compiled.vocab[i % len(compiled.vocab)] for i in range(compiled.max_seq_len)]
    tr = forward_trace(
        compiled.params(jnp.float32), jnp.asarray(compiled.embed(example), jnp.float32)
    )
    plt = plotting.pyplot()
    fig, axes = plotting.panel_grid(plt, 1 + len(tr.attention), width=5.0, height=4.0)
    stream = np.asarray(tr.streams_LxNxD[-1])
    plotting.heatmap(fig, axes[0], stream.T, "value", aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1)
    axes[0].set_yticks(range(len(compiled.labels)))
    axes[0].set_yticklabels([_drawable(s) for s in compiled.labels], fontsize=5)
    axes[0].set_xlabel("position (0 = BOS)")
    axes[0].set_title("residual layout")
    for li, att in enumerate(tr.attention):
        ax = axes[li + 1]
        attn = compiled.weights.layers[li].attn
        if not (np.any(attn.w_qk) or np.any(attn.w_v)):  # an MLP-only layer: no head reads
            ax.text(0.5, 0.5, "MLP only\n(no attention head)", ha="center", va="center")
            ax.set_axis_off()
            ax.set_title(f"{plotting.layer_name(li)}: MLP only")
            continue
        plotting.heatmap(fig, ax, np.asarray(att).sum(0), "weight", vmin=0, vmax=1)
        ax.set_title(f"{plotting.layer_name(li)}: attention")
        ax.set_xlabel("key")
        ax.set_ylabel("query")
    title = f"{compiled.program.label} on {''.join(map(str, example))}"
    plotting.suptitle(fig, _drawable(title))
    return plotting.save_figure(fig, path)


def _drawable(text: str) -> str:
    """``text`` with what no font can draw (a lone surrogate: an undecodable byte of a file or
    the command line) written as its escape, so the figure is drawn, not a traceback."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


# A compiled model's parameters grow like N^2 (positions one-hot, MLP tables over them): 6.9e6
# float64 parameters for reverse at N = 64, the largest library program measured; its residual
# width is about 2 |V| + 3 N, and every head holds two D x D matrices.
_PARAMETERS_AT_64 = 6.9e6
# The most input positions (inputs times their length) one check compares: about 10^5 a second.
_MAX_POSITIONS = 2 * 10**7
# The most floating-point operations one check's forward passes may take (minutes on a core;
# reverse at max_len 64 needs about 2.4e11).
_MAX_FLOPS = 5 * 10**11


def check_cost(
    vocab_size: int,
    max_len: int,
    precision_lengths: Sequence[int] = (),
    *,
    max_inputs: int = 100_000,
    samples: int = 64,
) -> None:
    """Refuse (:class:`~transformer_theory.budget.BudgetError` naming the argument to lower:
    ``max_len``, ``max_inputs``, ``samples``, ``vocab`` -- the vocabulary, ``vocab_size`` tokens
    -- or ``precision_lengths``, as :func:`study` names them; the command turns each into its
    option), before anything is compiled, a check whose work or model is too large, counting
    every argument that multiplies it: the positions compared (every input enumerated while they
    number at most ``max_inputs`` -- ``vocab_size`` to the power of the length -- then
    ``samples`` per longer length, times the length), and the memory of the model compiled for
    ``max_len`` or the longest of ``precision_lengths`` (positions and vocabulary: width about
    ``2 |V| + 3 N``)."""
    from transformer_theory import budget

    _validate.check_int_arg("vocab_size", vocab_size)
    _validate.check_int_arg("max_len", max_len)
    _validate.check_int_arg("max_inputs", max_inputs, 0)
    _validate.check_int_arg("samples", samples, 0)
    if any(n < 1 for n in _check._lengths("precision_lengths", precision_lengths)):
        raise ValueError(f"precision_lengths: expected lengths >= 1, got {precision_lengths}")
    total = positions = 0
    n = 1  # every input of the lengths enumerated, in closed form for the sampled rest
    while n <= max_len and positions <= _MAX_POSITIONS:
        count = vocab_size**n
        if total + count > max_inputs:
            break
        total += count
        positions += count * n
        n += 1
    if n <= max_len:  # lengths n..max_len: samples each, times the length
        positions += samples * (max_len * (max_len + 1) // 2 - (n - 1) * n // 2)
    if positions > _MAX_POSITIONS:
        option = "samples" if samples * max_len > _MAX_POSITIONS // 2 else "max_inputs"
        if max_inputs * max_len <= _MAX_POSITIONS and samples * max_len <= _MAX_POSITIONS:
            option = "max_len"
        raise budget.BudgetError(
            f"{option}: the check would compare {positions:.3g} positions (max_len "
            f"{max_len}, {vocab_size} tokens, max_inputs {max_inputs}, samples {samples}); "
            f"lower {option}",
            option=option,
            estimate=positions,
            available=_MAX_POSITIONS,
        )
    width = 2 * vocab_size + 3 * max_len + 8
    flops = 2 * 3 * positions * width**2  # three heads' D x D products per position, at least
    if flops > _MAX_FLOPS:
        # the argument that makes most of the width (and, for max_len, of the positions too)
        option = "max_len" if 3 * max_len >= 2 * vocab_size else "vocab"
        raise budget.BudgetError(
            f"{option}: {vocab_size} tokens and inputs up to {max_len} make a residual stream "
            f"about {width} wide; the check would take about {flops:.2g} floating-point "
            f"operations; lower {option}",
            option=option,
            estimate=flops,
            available=_MAX_FLOPS,
        )
    for option, n in (
        ("max_len", max_len),
        ("precision_lengths", max(precision_lengths, default=0)),
    ):
        width = 2 * vocab_size + 3 * n + 8
        heads_bytes = 8 * 2 * 3 * width**2  # three heads' w_qk and w_v at least
        budget.check_memory(
            max(8 * _PARAMETERS_AT_64 * (n / 64) ** 2, heads_bytes),
            what=f"a compiled model for length {n} over {vocab_size} tokens",
            option=option if n else "vocab",
        )
