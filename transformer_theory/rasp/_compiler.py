"""The compiler: RASP program -> graph -> value sets -> residual layout -> heads and MLPs ->
:class:`~transformer_theory.params.ModelParams`, run by
:func:`transformer_theory.core.forward_trace`.

:func:`compile` is the pipeline, one call per stage module (as tracr's
``compiler/compiling.py`` calls its stages): ``_compile_graph`` (the graph and its value sets),
``_compile_validate`` (refusals at compile time, naming the node), ``_compile_layout`` (layers,
fusion and the residual layout), ``_compile_craft`` (the constants by the laws below, each head's
and MLP's blocks, handed on as plain arrays) and ``_compile_assemble`` (those blocks laid into
the parameters, and :class:`CompiledProgram`). The stages are one-way: none imports another.
What they share is the language, as the papers share :mod:`transformer_theory.params`:
``_language`` (the SOps and their interpreter) and ``_compile_ir`` (the intermediate
representation, as tracr's ``nodes.py``: the graph's
:class:`~transformer_theory.rasp._compile_ir.Node`, which each stage reads and annotates, and
craft's ``LayerBlocks``). This
docstring states the laws they implement.

The input is ``BOS x_0 .. x_{n-1}``: token ids ``0..|V|-1`` for the vocabulary, ``|V|`` for BOS
(the model's ``vocab_size`` is ``|V| + 1``), and the library's one-hot positional code of
``max_seq_len + 1`` positions (position 0 is BOS). BOS is what an empty selection attends to.

**Residual layout** (labelled, :attr:`CompiledProgram.labels`): the token one-hot ``tokens:v`` and
``bos``, the positions ``position:0`` (BOS) and ``indices:i`` (``i = position - 1``), then one
block per materialized node: a one-hot ``label:v`` per value of a categorical SOp, one
dimension ``label`` for a numerical SOp. Nothing is overwritten, so the final stream holds every
node's value at every position (what :func:`~transformer_theory.rasp.check` compares).

**Attention** (one head per ``Aggregate`` / ``SelectorWidth``; ``w_qk[key_dim, query_dim]``,
heads summed, softmax). The selector is a sum of ``m`` bilinear terms (one per conjunct of a
``SelectAnd``; a conjunct reading one key SOp and one query SOp is one table, any boolean
combination of its leaves; one reading several reads tuple SOps built by an MLP), each adding
``beta`` where it holds: a selected key scores ``beta m``, an unselected one at most
``beta (m - 1)``, BOS ``beta (m - 1/2)`` (mean) or ``beta m`` (width), and a BOS query scores BOS
``2 beta m`` (so BOS keeps its own, known stream). Single-input Maps of exact categorical SOps
are absorbed into the tables (``f`` applied to the table's rows), so they need no MLP. The value
of BOS is set so that an empty selection reads 0 (numerical) or the declared default
(categorical, its own one-hot dimension: tracr's issue #25 is an empty selection read as 0).

**The law for beta** (stated, not tuned). For a mean head with ``N = max_seq_len`` the weight off
the intended keys is at most ``eps_w = (N + 1) exp(-beta/2)`` (``w >= 1`` selected keys score
``beta`` against BOS's ``beta/2`` and the others' 0; an empty selection puts ``1 - N exp(-beta/2)``
on BOS), so a value of size ``<= V`` moves by at most ``2 V eps_w``. The head meets its tolerance
``tau`` with::

    beta = 2 ln(2 V (N + 1) / tau)

``tau = 1/12`` for a categorical head (a lookup unit reading up to three one-hot inputs decides
exactly while each is within ``1/4`` of its sum's threshold: ``3 tau <= 1/4``) and
``tau = g / (4 m)`` for a numerical head (``g`` the smallest gap of its value set, ``m`` the
number of numerical heads, whose errors can add along a chain). A ``SelectorWidth`` head writes
``x = 1/(w + 1)`` (BOS's weight among ``w + 1`` equal scores) with error ``<= N exp(-beta)``;
its decoder needs ``g/4`` with ``g = 1/((N + 1)(N + 2))``, so ``beta = ln(4 N (N + 1) (N + 2))``.

**MLPs** (one hidden layer, ReLU, ``b2 = 0``), every unit a clipped ramp
``step(z; lo, hi) = relu((z - lo)/(hi - lo)) - relu((z - hi)/(hi - lo))``, exactly 0 below ``lo``
and exactly 1 above ``hi``:

- a table over up to three categorical inputs: one step per combination ``c``,
  ``z = sum_i x_i[c_i]``, ``lo = k - 3/4``, ``hi = k - 1/4`` (``k`` inputs), writing ``f(c)``;
- one numerical input with sorted values ``s_1 < .. < s_m`` (beside up to two exact categorical
  ones, whose combination adds ``M (z - k)`` to the ramp's input, ``M`` the value range plus the
  ramp, so a combination that does not hold keeps the ramp at 0): ``f(s_1)`` from a unit that is
  1 at every token, plus ``f(s_{k+1}) - f(s_k)`` times a step at the midpoint ``t_k`` wherever
  ``f`` changes, ramping over half the gap (``hi - lo = (s_{k+1} - s_k)/2``, slope ``2/gap``: the
  discretisation constant follows from the value set, so ``SelectorWidth`` stays exact to
  ``N = max_seq_len``; a fixed slope ``c``, tracr's "large number", is guaranteed exact only
  while ``N (N + 1) <= c``). The output weights carry any sign: a negative ``f`` is not clipped
  (tracr PR #13).

**The rest of tracr's language**, each on the laws above:

- a numerical key or query of a ``Select``, and the second number of a ``SequenceMap`` of two
  numerical SOps, is read through a categorical copy: an MLP of the one-numerical-input table
  (one step per value at the midpoints, ramping over half the gap), exact while the number is
  within a quarter of its gap of its value (what the mean heads' ``tau`` guarantees); the copy
  costs one MLP sublayer before the table that reads it;
- a numerical ``LinearSequenceMap`` ``p a + q b`` of two numerical SOps is an exact linear MLP
  (``c x = c relu(x) - c relu(-x)`` per input, in the layer of its inputs), so input errors add
  as ``|p| e_a + |q| e_b``: a numerical head read by it (through chains of them, the factors
  multiplying) takes ``tau = min(g, g_out / (|p| + |q|)) / (4 m)``, ``g_out`` the smallest gap
  of the combination's value set, so the output stays within a quarter of its gap;
- a numerical aggregate's non-zero ``default`` ``d`` is BOS's value (an empty selection reads
  it), and the law's ``V`` is ``max(|values|, |d|)``;
- ``Full`` / ``ConstantSOp`` are tables over the indices (absorbed into the heads that read
  them); a ``ConstantSOp`` is compiled only where its meaning covers every length ``1..N``;
- a numerical ``SelectorWidth`` is the same head and decoder, the decoder writing the number
  ``w`` instead of a one-hot;
- ``causal="prefix"`` compiles :func:`~transformer_theory.rasp._language.prefix_program` (every
  selector AND-ed with ``j <= i``) under the causal mask, the mask itself standing for that
  conjunct: BOS is key 0 of every query, so the heads and their laws are unchanged, and a
  ``SelectorWidth`` counts the selected keys of the prefix.

Every unit is switched off at BOS by a weight on the ``bos`` dimension computed from BOS's known
stream, so BOS stays what the bookkeeping says. Chains of Maps are fused into one table over the
nearest attention outputs (or tokens, indices), so no program pays a layer for an MLP that can
share the previous attention's layer, and each head sits in the first layer after its inputs.
The layers are then the longest chain of the dependency graph counted in sublayers: one per
``Aggregate`` / ``SelectorWidth`` on it (the attention depth of Weiss et al. 2021,
:func:`attention_depth`, a lower bound), plus one for each MLP table on it that must run before
an attention with no attention before it in its layer (sort's ``(key, index)`` pairs, the
categorical copy of a number). They equal the attention depth where no such table lies on the
longest chain (every library program but ``sort`` and ``shuffle_dyck2``); sort-then-reverse has
attention depth 3 and compiles to 4 layers, all 4 with attention
(``tests/rasp/test_rasp.py``).

The format does not enter the constants (no constant buys back a roundoff); it enters the
predicted limit (:func:`~transformer_theory.rasp._check.predicted_exact`, in the record of
:func:`transformer_theory.rasp._study_program.study`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from transformer_theory import budget
from transformer_theory.rasp import _language as lang
from transformer_theory.rasp._compile_assemble import CompiledProgram, assemble
from transformer_theory.rasp._compile_craft import choose_constants, constants_record, craft_blocks
from transformer_theory.rasp._compile_graph import MAX_VALUE_SET, attention_depth, build_graph
from transformer_theory.rasp._compile_ir import Node
from transformer_theory.rasp._compile_layout import MAX_TABLE, allocate_layers, residual_layout
from transformer_theory.rasp._compile_validate import validate

__all__ = [
    "MAX_TABLE",
    "MAX_VALUE_SET",
    "CompiledProgram",
    "Node",
    "attention_depth",
    "compile",
]


def compile(
    program: lang.SOp,
    vocab: Sequence[Hashable],
    max_seq_len: int,
    causal: bool = False,
    *,
    softmax_scale: float | None = None,
    mlp_slope: float | None = None,
) -> CompiledProgram:
    """Compile ``program`` into :class:`~transformer_theory.params.ModelParams`.

    Args:
      program: the output SOp.
      vocab: the input tokens (hashable, distinct).
      max_seq_len: ``N``, the longest input the model reads.
      causal: ``True``: compile under a causal mask, refusing (naming the operation and the
        input) a program whose selectors pick a later key on some input (its meaning would
        change); ``"prefix"``: under a causal mask with the causal meaning (tracr's: every
        selector masked to keys ``j <= i``, so a ``SelectorWidth`` counts the prefix), compiled
        as :func:`~transformer_theory.rasp._language.prefix_program`, whose meaning that is.
      softmax_scale: override every head's ``beta`` (the law of the module docstring chooses it
        per head otherwise): to measure a construction constant's precision limit.
      mlp_slope: override the discretisation law: every numerical step ramps over ``1/slope``
        (tracr's "large_number"), instead of half the local gap.

    Returns:
      A :class:`CompiledProgram`.
    """
    if not isinstance(program, lang.SOp):
        raise ValueError(f"program: expected a RASP SOp, got {type(program).__name__}")
    try:
        vocab = list(vocab)
        distinct = len(set(vocab)) == len(vocab)
    except TypeError:
        raise ValueError(f"vocab: expected hashable tokens, got {vocab!r:.80}") from None
    if not vocab or not distinct:
        raise ValueError(f"vocab: expected distinct tokens, got {vocab}")
    if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, int) or max_seq_len < 1:
        raise ValueError(f"max_seq_len: expected a positive integer, got {max_seq_len!r}")
    # a residual about 2 |V| + 3 N wide (three heads' weights at least): refused, not an OOM
    width = 2.0 * len(vocab) + 3.0 * max_seq_len + 8
    budget.check_memory(
        8 * 2 * 3 * width**2,
        what=f"a model for length {max_seq_len} over {len(vocab)} tokens",
        option="max_seq_len",
    )
    for name, v in (("softmax_scale", softmax_scale), ("mlp_slope", mlp_slope)):
        if v is not None and not (isinstance(v, (int, float)) and 0 < v < math.inf):
            raise ValueError(f"{name}: expected a positive number, got {v!r}")
    if causal not in (False, True, "prefix"):
        raise ValueError(f"causal: expected False, True or 'prefix', got {causal!r}")
    meaning = "prefix" if causal == "prefix" else "full"
    if meaning == "prefix":  # the program whose meaning is the causal one (every selector masked)
        program = lang.prefix_program(program)
    N = max_seq_len
    nodes, out = build_graph(program, vocab, N, bool(causal))  # children before parents
    lower = attention_depth(program)
    validate(nodes, program, vocab, N, causal)
    depth = allocate_layers(nodes, out)
    labels = residual_layout(nodes, vocab, N)
    choose_constants(nodes, N, softmax_scale)
    constants = constants_record(nodes, softmax_scale, mlp_slope)
    blocks = craft_blocks(nodes, len(labels), len(vocab), depth, mlp_slope)
    params, w_o, out_values = assemble(blocks, out, len(labels), len(vocab), N, bool(causal))
    return CompiledProgram(
        program,
        tuple(vocab),
        N,
        bool(causal),
        params,
        tuple(labels),
        out,
        out_values,
        w_o,
        nodes,
        lower,
        constants,
        meaning,
    )
