"""The checks of Chen & Zou 2024's construction claims (Lemmas 1-4, Theorems 1, 3, 5, 6, the
paper-size runs and the trained Figures 2-7), each ``check(**sizes) -> Checked``.

A check never sees a tier and never writes a status: it says what it computed, in which
arithmetic and over which inputs (:class:`~transformer_theory.ledger.Checked`), and the row's judge
and :func:`~transformer_theory.ledger.derive_status` do the rest.

How the constructions are checked. Each theorem's check builds the library's construction
(``constructions.theorem*``) for EVERY size in a stated finite family (every task size up to the
tier's maxima) and evaluates it on every input of each size in exact arithmetic through the
one exact engine's batched dyadic path (:func:`transformer_theory.exact.dyadic_margins`: integer
stream numerators, ``W_O`` as exact dyadics, every product refused unless provably below
``2^53``). At the largest size the library's float64 check (``check_construction``) is run too
and must agree with the exact margin, so the exact pass keeps mirroring the library's forward.
The theorems quantify over every size, so such a family gives ``bounded`` (proved up to the
stated sizes), never ``proved``.

Lemmas 1 and 2 read the attention maps of the library's own layer
(:func:`transformer_theory.core.forward.forward_trace`) in float64: every weight and score there
is an integer and the bound ``sum |W_QK| < 2^53`` is checked, so the maps are exact integers (the
exact engine's rational pass would compute the same numbers several hundred times slower).
Lemma 3's margins are computed in rationals (:func:`transformer_theory.exact.fraction` of each
float64 weight).
"""

from __future__ import annotations

import csv
import itertools
import pathlib
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from transformer_theory import exact, precision
from transformer_theory.ledger import RESULTS_DIR, Checked, Tally
from transformer_theory.papers.chen_zou2024 import _domains as domains

__all__ = [
    "aggregate_cells",
    "constructions_paper_sizes",
    "constructions_paper_sizes_record",
    "fig2",
    "fig2_quick",
    "fig3",
    "fig4_7",
    "lemma1",
    "lemma2",
    "lemma3",
    "lemma4_printed",
    "theorem1",
    "theorem3",
    "theorem3_printed",
    "theorem5",
    "theorem5_base3",
    "theorem5_printed",
    "theorem6",
    "theorem6_printed",
]

_EXACT = 2.0**53  # float64 holds every integer below this, and sums of them exactly
_BATCH = 256  # Lemma 1's maps per jitted call
FIG2_CSV = RESULTS_DIR / "fig2_paper_summary.csv"
FIG2_QUICK_CSV = RESULTS_DIR / "fig2_quick_aggregate.csv"
HEADS_CSV = RESULTS_DIR / "fig4_7_heads_quick_aggregate.csv"
FIG3_JSON = RESULTS_DIR / "fig3_attention_quick.json"
PAPER_SIZES_JSON = RESULTS_DIR / "constructions_paper_sizes.json"


def _undecided(*keys: str) -> dict[str, None]:
    """Values for a check that computed nothing: every key its judge reads is ``None``."""
    return dict.fromkeys(keys)


def _q(q: Fraction) -> str:
    """A Fraction as JSON-able text the judges read back exactly (``"p/q"``)."""
    return str(Fraction(q))


def _qtext(q: Fraction) -> str:
    return str(q) if q.denominator < 10**6 else f"{float(q):.6g}"


# --------------------------------------------------------------------------- constructions


def _family_margins(
    build: Callable[[Any], Any],
    tasks: Sequence[tuple[str, Any]],
    tally: Tally,
    *,
    per_task: bool = False,
    cross_check: bool = True,
) -> dict[str, Any]:
    """Build ``build(task)`` for each ``(label, task)`` and take its exact margins on every input
    (:func:`exact.dyadic_margins`). Returns the smallest margin over the family, the smallest
    margin per size, the witness of the smallest, and the inputs counted. With ``cross_check``,
    the float64 ``check_construction`` margin of the last (largest) task must equal the exact one
    to 1e-9 relative, else ``RuntimeError`` (the exact pass no longer mirrors the library's).
    Each task's inputs are recorded in ``tally`` once evaluated (``per_task``: the task, a
    dataset, is the element)."""
    from transformer_theory.constructions import check_construction

    precision.require_x64("the construction checks")
    per, worst, inputs = [], None, 0
    for label, task in tasks:
        params = build(task)
        tokens, labels = (np.asarray(a) for a in task.all())
        ex = exact.dyadic_margins(params, tokens, labels)
        tally.record_count(1 if per_task else len(labels))
        q = ex["min_margin"]
        per.append({"size": label, "inputs": int(len(labels)), "min_margin": _q(q)})
        inputs += int(len(labels))
        if worst is None or q < worst[0]:
            i = ex["worst"]
            worst = (q, label, [int(t) for t in tokens[i]], int(labels[i]))
    if cross_check:
        res = check_construction(params, task)
        drift = abs(float(q) - res["min_margin"])
        if drift > 1e-9 * max(1.0, abs(float(q))):
            raise RuntimeError(
                f"the exact pass ({float(q):.17g}) and check_construction "
                f"({res['min_margin']:.17g}) disagree at {label}"
            )
    return dict(
        min_margin=_q(worst[0]),
        min_margin_text=_qtext(worst[0]),
        worst_size=worst[1],
        witness_tokens=worst[2],
        witness_label=worst[3],
        sizes_checked=len(per),
        inputs=inputs,
        per_size=per,
    )


def _upto(family: domains.TaskFamily, upto: int) -> list[tuple[str, Any]]:
    """Every valid task of ``family`` with ``s <= upto`` (:meth:`._domains.TaskFamily.tasks`)."""
    return [t for s in range(family.family.start, upto + 1) for t in family.tasks(s)]


def _with_data(task: Any, seqs: np.ndarray, labels: np.ndarray) -> Any:
    """``task`` (a ``SequenceClassification``) with its drawn data replaced by ``(seqs, labels)``:
    ``data`` is a cached property, read from the instance's ``__dict__``."""
    task.__dict__["data"] = (np.asarray(seqs, np.int32), np.asarray(labels, np.int32))
    return task


def theorem1_tasks(families: Sequence[Sequence[int]]) -> list[tuple[str, Any]]:
    """Every Theorem 1 dataset over the ``(symbols, length)`` pairs: every ordered tuple of
    ``N >= 2`` distinct sequences of that length, the ``i``-th labelled ``i`` (so every set of
    ``N`` sequences with every assignment of ``N`` distinct labels)."""
    from transformer_theory.tasks import SequenceClassification

    out = []
    for symbols, length in families:
        seqs = np.array(list(itertools.product(range(symbols), repeat=length)), np.int32)
        for N in range(2, len(seqs) + 1):
            for pick in itertools.permutations(range(len(seqs)), N):
                task = _with_data(
                    SequenceClassification(symbols, length, N), seqs[list(pick)], np.arange(N)
                )
                out.append((f"symbols={symbols} length={length} rows={list(pick)}", task))
    return out


def theorem1(upto: int) -> Checked:
    """Theorem 1's construction on every dataset of :func:`theorem1_tasks` over every
    ``(symbols, length)`` with ``symbols + length <= upto`` (:data:`._domains.SC_DATASETS`), every
    sequence, exact; each dataset recorded."""
    from transformer_theory import constructions

    tally = Tally(domains.THEOREM1.upto(upto))
    families = [p for s in range(domains.SC_DATASETS.start, upto + 1) for p in domains.sc_sizes(s)]
    tasks = theorem1_tasks(families)
    v = _family_margins(lambda t: constructions.theorem1(t), tasks, tally, per_task=True)
    return Checked("exact", tally, {**v, "datasets": len(tasks)})


def theorem3(upto: int) -> Checked:
    """Theorem 3's construction on every input of every in-context QA(n_q, n_a, k) with
    ``n_q + n_a + k <= upto`` (with at least two answers)."""
    from transformer_theory import constructions

    tally = Tally(domains.THEOREM3.upto(upto))
    v = _family_margins(lambda t: constructions.theorem3(t), _upto(domains.ICQA, upto), tally)
    return Checked("exact", tally, v)


def theorem5(version: str, upto: int) -> Checked:
    """Theorem 5's construction (``version`` ``single`` or ``multi``) on every input of every
    template-matching size with ``symbols + l <= upto`` (all templates of each length)."""
    from transformer_theory import constructions

    tally = Tally(domains.THEOREM5.upto(upto))
    v = _family_margins(
        lambda t: constructions.theorem5(t, version=version), _upto(domains.TM, upto), tally
    )
    return Checked("exact", tally, v)


def theorem6(upto: int) -> Checked:
    """Theorem 6's corrected construction on every input of every in-context template-matching
    size with ``symbols + n_a + l + k <= upto``; ``scaled_margin`` = min over sizes of ``l x``
    margin (>= 1 means every size reaches margin ``1/l``)."""
    from transformer_theory import constructions

    tally = Tally(domains.THEOREM6.upto(upto))
    v = _family_margins(lambda t: constructions.theorem6(t), _upto(domains.ICTM, upto), tally)
    scaled = min(
        Fraction(p["min_margin"]) * int(p["size"].split("l=")[1].split()[0]) for p in v["per_size"]
    )
    return Checked("exact", tally, {**v, "scaled_margin": _q(scaled)})


# --------------------------------------------------------------------------- lemmas


def _all_sequences(vocab: int, n: int) -> np.ndarray:
    return np.array(list(itertools.product(range(vocab), repeat=n)), np.int32).reshape(-1, n)


def _maps_fn(d: int, n: int, width: int) -> Callable[[np.ndarray], np.ndarray]:
    """``w_qk -> [input, query, key]`` ReLU attention weights of the library's one-head layer
    ``w_qk`` on every sequence over ``d`` tokens of length ``n`` (float64, jitted once)."""
    import jax
    import jax.numpy as jnp

    from transformer_theory.constructions._common import assemble, construction_config
    from transformer_theory.core.forward import forward_trace

    precision.require_x64("the construction checks")
    cfg = construction_config(d, n, width, 1, (1,))
    tokens = jnp.asarray(_all_sequences(d, n))
    zero = np.zeros((1, width, width))

    @jax.jit
    def maps(w_qk):
        params = assemble(cfg, [(w_qk[None], zero)], np.zeros((1, width)), jnp.float64)
        return jax.vmap(lambda t: forward_trace(params, t).attention[0][0])(tokens)

    many = jax.jit(jax.vmap(maps))

    def run(w_qk: np.ndarray) -> np.ndarray:
        """One ``W_QK`` (``D x D``) or a stack of them (``B x D x D``, one compile per ``B``)."""
        w_qk = np.asarray(w_qk, np.float64)
        bound = np.abs(w_qk).sum(axis=(-2, -1)).max()  # one-hot streams: |score| <= sum |W_QK|
        if not float(bound) < _EXACT:
            raise ArithmeticError("Lemma 1/2 scores may not be exact in float64")
        return np.asarray((many if w_qk.ndim == 3 else maps)(jnp.asarray(w_qk)))

    return run


def lemma1(vocab: int, max_len: int, max_entry: int) -> Checked:
    """Lemma 1: ``instructive_attention(alpha)`` gives the map ``alpha`` exactly on every input,
    for EVERY integer ``alpha`` with entries in ``[0, max_entry]``, every ``n <= max_len``, every
    sequence over ``vocab`` tokens."""
    from transformer_theory.constructions import instructive_attention

    tally = Tally(domains.lemma1_points(max_len, max_entry))
    alphas = inputs = bad = 0
    witness = None
    for n in range(1, max_len + 1):
        width = vocab + n + 2
        run = _maps_fn(vocab, n, width)
        grid = np.array(list(itertools.product(range(max_entry + 1), repeat=n * n)), np.float64)
        for lo in range(0, len(grid), _BATCH):
            chunk = grid[lo : lo + _BATCH].reshape(-1, n, n)  # [alpha, key, query]
            stack = np.stack([instructive_attention(a, vocab, width) for a in chunk])
            pad = _BATCH - len(stack)  # one compile per n: the last chunk is padded
            maps = run(np.concatenate([stack, np.repeat(stack[:1], pad, axis=0)]))[: len(chunk)]
            wrong = np.any(maps != np.swapaxes(chunk, 1, 2)[:, None], axis=(2, 3))  # [alpha, x]
            alphas += len(chunk)
            tally.record_count(len(chunk))
            inputs += wrong.size
            for a in np.flatnonzero(wrong.any(axis=1)):
                bad += 1
                witness = witness or {
                    "alpha": chunk[a].tolist(),
                    "input": int(np.argmax(wrong[a])),
                }
    # integer scores below 2^53 (the bound is checked in _maps_fn), so float64 is exact
    return Checked(
        "exact", tally, dict(alphas=alphas, evaluations=inputs, wrong_maps=bad, witness=witness)
    )


def lemma2(vocab: int, max_len: int, bases: int, seed: int = 1) -> Checked:
    """Lemma 2 (ReLU reading): for EVERY mask of ``n <= max_len`` positions and ``bases`` drawn
    integer ``W_QK`` in ``[-2, 2]`` per mask, ``constrained_attention`` with its ``M = bound + 1``
    makes every masked weight exactly 0 and leaves every other weight as without the mask, on
    every input; a magnitude below the bound is refused."""
    from transformer_theory.constructions import constrained_attention, masking_magnitude

    rng = np.random.default_rng(seed)
    tally = Tally(domains.lemma2_cases(max_len, bases, seed))
    cases = leaks = changed = accepted = 0
    witness = None
    for n in range(1, max_len + 1):
        width = vocab + n + 2
        run = _maps_fn(vocab, n, width)
        for bits in itertools.product((False, True), repeat=n * n):
            allowed = np.array(bits).reshape(n, n)
            for _ in range(bases):
                base = rng.integers(-2, 3, size=(width, width)).astype(np.float64)
                maps = run(constrained_attention(allowed, vocab, width, base))
                plain = run(base)
                cases += 1
                leak = bool(np.any(maps[:, ~allowed.T] != 0))
                kept = np.array_equal(maps[:, allowed.T], plain[:, allowed.T])
                need = float(masking_magnitude(base, vocab, n)[~allowed].max(initial=0.0))
                try:
                    if need > 0:
                        constrained_attention(allowed, vocab, width, base, magnitude=need - 1)
                        accepted += 1
                except ValueError:
                    pass
                leaks += leak
                changed += not kept
                tally.record_count(1)
                if (leak or not kept) and witness is None:
                    witness = {"allowed": allowed.tolist(), "base": base.tolist()}
    return Checked(
        "exact",
        tally,
        dict(
            cases=cases,
            leaking=leaks,
            changed=changed,
            short_magnitude_accepted=accepted,
            failures=leaks + changed + accepted,
            witness=witness,
        ),
    )


def lemma3_datasets(dim: int, max_n: int) -> Iterable[np.ndarray]:
    """Every ordered tuple of ``2 <= N <= max_n`` pairwise linearly independent vectors of
    ``{-1, 0, 1}^dim`` (the ``i``-th labelled ``i``: every labelling of every such set)."""
    from transformer_theory.constructions import exactly_parallel

    vecs = [np.array(v, np.float64) for v in itertools.product((-1, 0, 1), repeat=dim) if any(v)]
    indep = {
        (i, j): not exactly_parallel(vecs[i], vecs[j])
        for i in range(len(vecs))
        for j in range(len(vecs))
    }

    def extend(prefix: list[int]) -> Iterable[list[int]]:
        if len(prefix) >= 2:
            yield prefix
        if len(prefix) == max_n:
            return
        for j in range(len(vecs)):
            if all(indep[i, j] for i in prefix):
                yield from extend(prefix + [j])

    for pick in extend([]):
        yield np.stack([vecs[i] for i in pick])


def lemma3(dim: int, max_n: int) -> Checked:
    """Lemma 3: ``lemma3_classifier`` classifies every dataset of :func:`lemma3_datasets`; each
    float64 ``W`` is taken at its exact rational value and every margin is a rational."""
    from transformer_theory.constructions import lemma3_classifier

    tally = Tally(domains.lemma3_points(dim, max_n))
    count, worst = 0, None
    for x in lemma3_datasets(dim, max_n):
        labels = np.arange(len(x))
        w, _ = lemma3_classifier(x, labels)  # (D, C)
        wq = [[exact.fraction(v) for v in row] for row in np.asarray(w, np.float64).T]
        for i, xi in enumerate(x.astype(np.int64)):
            logits = [sum(c * int(t) for c, t in zip(row, xi) if t) for row in wq]
            correct = logits.pop(i)
            m = correct - max(logits)
            if worst is None or m < worst[0]:
                worst = (m, x.astype(int).tolist(), i)
        count += 1
        tally.record_count(1)
    return Checked(
        "exact",
        tally,
        dict(
            datasets=count,
            min_margin=_q(worst[0]),
            min_margin_text=_qtext(worst[0]),
            witness_vectors=worst[1],
            witness_index=worst[2],
        ),
    )


def _lemma4_stream_ok(d: int, n: int) -> bool:
    """Lemma 4's layer at the corrected width ``max{k d, d + n}``: the last stream is exactly
    ``[x_0; ...; x_{k-1}; 0]`` on every sequence (exact dyadic pass)."""
    import jax.numpy as jnp

    from transformer_theory.constructions import lemma4_layer
    from transformer_theory.constructions._common import assemble, construction_config

    precision.require_x64("the construction checks")
    k = n - 1
    width = max(k * d, d + n)
    w_qk, w_v = lemma4_layer(d, n, width)
    params = assemble(
        construction_config(d, n, width, 1, (n,)),
        [(w_qk, w_v)],
        np.zeros((1, width)),
        jnp.float64,
    )
    seqs = _all_sequences(d - 1, k)
    tokens = np.column_stack([seqs, np.full(len(seqs), d - 1)])
    x, den = exact.dyadic_last_streams(params, tokens)
    want = np.zeros_like(x)
    want[np.arange(len(seqs))[:, None], np.arange(k)[None, :] * d + seqs] = 1.0
    return den == 1 and np.array_equal(x, want)


def lemma4_printed(upto: int) -> Checked:
    """Lemma 4: the printed width ``max{k d, d + k}`` against the eq. 3 embedding's ``d + n``
    (witness ``d = 3, n = 2``: the printed object, refused by the layer), and the corrected width
    on every ``(d, n)`` with ``d, n >= 2``, ``d + n <= upto`` (:data:`._domains.LEMMA4`), every
    sequence. The embedding (one-hot token and position) needs ``d + n`` coordinates, so no
    layer of the printed width carries it: an exact impossibility, not a failed candidate."""
    from transformer_theory.constructions import lemma4_layer

    d, n = 3, 2
    k = n - 1
    printed = max(k * d, d + k)
    try:
        lemma4_layer(d, n, width=printed)
        refused = False
    except ValueError:
        refused = True
    tally = Tally(domains.LEMMA4.upto(upto))
    failing = []
    for s in range(domains.LEMMA4.start, upto + 1):
        for dd, nn in domains.LEMMA4.member(s).elements():
            if not _lemma4_stream_ok(dd, nn):
                failing.append(f"d={dd} n={nn}")
            tally.record((dd, nn))
    printed_holds = printed >= d + n and not refused
    return Checked(
        "exact",
        tally,
        dict(
            printed_width=printed,
            embedding_width=d + n,
            layer_refuses_printed=refused,
            printed_holds=printed_holds,
            corrected_sizes=tally.seen,
            corrected_failing=failing,
            corrected_holds=not failing,
        ),
        subject="printed",
        impossibility=not printed_holds,
    )


def theorem3_printed(upto: int) -> Checked:
    """Theorem 3's printed ``W_O`` (``n`` rows, not ``d'``) and example answer ``a_1`` on
    in-context QA(3, 3, 2) (the printed object), and the corrected model (trailing width
    ``d' - (d1+d2+1)``) on every input of every size up to ``upto`` (:func:`theorem3`)."""
    from transformer_theory import constructions
    from transformer_theory.params import validate_params
    from transformer_theory.tasks import InContextQA

    precision.require_x64("the construction checks")
    task = InContextQA(3, 3, 2)
    q_, a_ = 3, 3
    d, n = q_ + a_ + 1, 3 * 2 + 2
    printed = constructions.theorem3_printed_classifier(task)
    try:
        validate_params(constructions.theorem3_as_printed(task))
        rejected = False
    except ValueError:
        rejected = True
    corrected = constructions.theorem3_printed_classifier(task, corrected_width=True)
    paper_row = list(range(q_)) + list(range(q_ + 1, d)) + [q_] + list(range(d, d + n))
    params = constructions.theorem3(task)
    same = np.array_equal(corrected[paper_row].T, np.asarray(params.w_o))
    r = d - 1
    tokens = np.array([[0, r, q_ + 0, 1, r, q_ + 1, 0, r]])  # the printed example, c = 0
    answers = [
        exact.dyadic_margins(params, tokens, np.array([y]))["min_margin"] > 0 for y in (0, 1)
    ]
    inner = theorem3(upto)
    return Checked(
        "exact",
        inner.covered,
        dict(
            printed_rows=int(printed.shape[0]),
            d_prime=d + n,
            validate_params_rejects_printed=rejected,
            example_answer_a0=bool(answers[0]),
            example_answer_a1=bool(answers[1]),
            corrected_equals_library_w_o=bool(same),
            corrected_min_margin=inner.values["min_margin"],
            printed_holds=printed.shape[0] == d + n and not rejected and bool(answers[1]),
            corrected_holds=bool(same and answers[0] and Fraction(inner.values["min_margin"]) > 0),
        ),
        subject="printed",
    )


def _first_failure(params: Any, task: Any) -> dict[str, Any] | None:
    tokens, labels = (np.asarray(a) for a in task.all())
    ex = exact.dyadic_margins(params, tokens, labels)
    if ex["min_margin"] > 0:
        return None
    i = ex["worst"]
    return {
        "tokens": [int(t) for t in tokens[i]],
        "label": int(labels[i]),
        "exact_margin": _qtext(ex["min_margin"]),
    }


def theorem5_printed(upto: int) -> Checked:
    """Theorem 5 as printed (the printed object), and with each one of its two repairs alone, on
    templates over 4 symbols, l = 3 (a failing input each, or Lemma 3 refusing parallel
    representatives); the repaired single-head model on every size up to ``upto``
    (:func:`theorem5`)."""
    from transformer_theory.constructions import theorem5_as_printed
    from transformer_theory.constructions.templates import PRINTED_REPAIRS
    from transformer_theory.tasks import TemplateMatching, all_templates

    precision.require_x64("the construction checks")
    task = TemplateMatching(4, all_templates(3))
    variants = {"printed": ()} | {
        f"without {r}": tuple(x for x in PRINTED_REPAIRS if x != r) for r in PRINTED_REPAIRS
    }
    failures: dict[str, Any] = {}
    for name, repair in variants.items():
        try:
            failures[name] = _first_failure(theorem5_as_printed(task, repair=repair), task)
        except ValueError as err:  # Lemma 3 cannot be fit: two representatives are parallel
            failures[name] = {"lemma3_refuses": str(err)}
    return _printed_against_corrected(failures, theorem5("single", upto))


def theorem6_printed(upto: int) -> Checked:
    """Theorem 6 as printed (the printed object), and without each one of its three repairs (on
    the tasks where that repair matters), every input; the corrected model on every size up to
    ``upto`` (:func:`theorem6`)."""
    from transformer_theory.constructions import theorem6_as_printed
    from transformer_theory.constructions.contextual import PRINTED_REPAIRS
    from transformer_theory.tasks import InContextTemplateMatching, all_templates

    precision.require_x64("the construction checks")
    # W_QK^(1)'s rectangular block only reaches question positions when A > n_a + 1; the final
    # r's missing answers only matter when some answer is absent from the context (n_a > k).
    tasks = {
        "w_qk1": InContextTemplateMatching(4, 2, all_templates(2), 2),
        "m_coords": InContextTemplateMatching(3, 3, all_templates(2), 2),
        "final_r": InContextTemplateMatching(3, 3, all_templates(2), 2),
    }
    failures = {"printed": _first_failure(theorem6_as_printed(tasks["final_r"]), tasks["final_r"])}
    for missing, task in tasks.items():
        rest = tuple(r for r in PRINTED_REPAIRS if r != missing)
        failures[f"without {missing}"] = _first_failure(
            theorem6_as_printed(task, repair=rest), task
        )
    return _printed_against_corrected(failures, theorem6(upto))


def theorem5_base3(automaton_l: int, direct_l: int, first_collision: bool = False) -> Checked:
    """Base 3 for Theorem 5: the exact integer carry automaton
    (:func:`transformer_theory.constructions.base3.block_collisions`) shows
    ``f(C) = (2+|C|) S_C`` injective on the subsets of ``{0..L-1}`` (so distinct templates give
    distinct vectors for every ``l <= L``), and ``template_code`` is distinct on every template
    of length ``direct_l``."""
    from transformer_theory.constructions import base3, template_code
    from transformer_theory.tasks import all_templates

    tally = Tally(domains.BASE3_PAIRS.upto(automaton_l))
    collisions = base3.block_collisions(automaton_l)
    # the automaton runs over every subset of {0..L-1}: every pair of templates of each l <= L
    for l in range(domains.BASE3_PAIRS.start, automaton_l + 1):
        tally.record_count(domains.BASE3_PAIRS.member(l).size)
    templates = all_templates(direct_l)
    codes = {template_code(t) for t in templates}
    values = dict(
        automaton_l=automaton_l,
        collisions=[list(c) for c in collisions],
        direct_l=direct_l,
        templates=len(templates),
        distinct_codes=len(codes),
        injective=not collisions and len(codes) == len(templates),
    )
    if first_collision:
        values["collides_at_next_l"] = bool(base3.block_collisions(automaton_l + 1))
    return Checked("exact", tally, values)


# --------------------------------------------------------------------------- paper sizes


def paper_size_sample(task: Any, samples: int, seed: int) -> tuple[np.ndarray, np.ndarray, str]:
    """Every example of ``task`` when it has at most ``samples``, else ``samples`` uniform draws
    (``task.sample``, key ``seed``)."""
    import jax

    if task.size <= samples:
        tokens, labels = task.all()
        return np.asarray(tokens), np.asarray(labels), "all"
    tokens, labels = task.sample(jax.random.PRNGKey(seed), samples)
    return np.asarray(tokens), np.asarray(labels), "sampled"


def constructions_paper_sizes(
    smoke: bool, theorems: Sequence[int], samples: int, seed: int = 0
) -> Checked:
    """The constructions of ``theorems`` at §9.1's sizes (``sizes.paper_sizes``; ``smoke``: its
    smoke sizes), built now and evaluated in exact arithmetic (:func:`exact.dyadic_margins`) on
    ``samples`` uniformly drawn examples each (every example of a smaller dataset)."""
    from transformer_theory.constructions.sizes import paper_sizes
    from transformer_theory.constructions.study import plan

    precision.require_x64("the construction checks")
    plans = [
        p
        for theorem, sizes in paper_sizes(smoke=smoke)
        if theorem in theorems
        for p in plan([theorem], sizes)
    ]
    # the examples planned: every example of a small dataset, else `samples` uniform draws
    planned = sum(min(int(p.task.size), samples) for p in plans)
    tally = Tally(
        domains.ANY_SIZE.of.sample(
            planned,
            seed,
            lambda seed, i: ("uniform example", seed, i),
            what=f"of uniform examples at §9.1's sizes (sizes.paper_sizes(smoke={smoke}), "
            f"theorems {', '.join(map(str, theorems))})",
        )
    )
    rows = []
    for p in plans:
        params = p.build(p.task)
        tokens, labels, mode = paper_size_sample(p.task, samples, seed)
        ex = exact.dyadic_margins(params, tokens, labels)
        tally.record_count(len(labels))
        rows.append(
            dict(
                theorem=p.label,
                sizes=p.sizes,
                width=params.config.width,
                examples=int(len(labels)),
                mode=mode,
                min_margin=_q(ex["min_margin"]),
            )
        )
    worst = min(rows, key=lambda r: Fraction(r["min_margin"]))
    return Checked(
        "exact",
        tally,
        dict(
            rows=rows,
            min_margin=worst["min_margin"],
            worst=worst["theorem"],
            examples=sum(r["examples"] for r in rows),
            constructions=len(rows),
        ),
    )


def constructions_paper_sizes_record() -> Checked:
    """The committed float64 paper-size run (``experiments/constructions_paper_sizes.py --part
    paper``), read from disk: a record, whatever it says."""
    from transformer_theory.jsonio import read_json

    if not PAPER_SIZES_JSON.exists():
        return Checked(
            "none",
            domains.PAPER_SIZES_RECORD,
            _undecided("min_accuracy", "examples", "min_relative_margin"),
        )
    record = read_json(str(PAPER_SIZES_JSON))
    rows = [
        dict(
            theorem=str(r["theorem"]),
            sizes=str(r["sizes"]),
            examples=int(r["examples"]),
            mode=r["mode"],
            accuracy=float(r["accuracy"]),
            min_relative_margin=float(r["min_relative_margin"]),
        )
        for r in record["rows"]
    ]
    return Checked(
        "record",
        domains.PAPER_SIZES_RECORD,
        dict(
            provenance=record.get("provenance"),
            rows=rows,
            examples=sum(r["examples"] for r in rows),
            min_accuracy=min(r["accuracy"] for r in rows),
            min_relative_margin=min(r["min_relative_margin"] for r in rows),
        ),
    )


# --------------------------------------------------------------------------- trained runs


def _record(
    path: pathlib.Path, values: Callable[[], dict[str, Any]], domain: Any, keys: tuple[str, ...]
) -> Checked:
    if not path.exists():  # every value the judges read (``keys``) is undecided (None)
        return Checked("none", domain, _undecided(*keys))
    return Checked("record", domain, values())


def _spread(s: dict) -> str:
    return f"{s['mean']:.2f} [{s['min']:.2f}, {s['max']:.2f}]"


def _at_chance(s: dict) -> bool:
    return s["max"] <= s["chance"] + 0.02


def _fig2_summary(rows: list[dict[str, str]], task: str, depth: int) -> dict[str, Any]:
    accs = [
        float(r["final_eval_acc"]) for r in rows if r["task"] == task and int(r["depth"]) == depth
    ]
    chance = [float(r["chance"]) for r in rows if r["task"] == task][0]
    return dict(
        seeds=len(accs),
        mean=round(float(np.mean(accs)), 4) if accs else None,
        min=min(accs) if accs else None,
        max=max(accs) if accs else None,
        chance=chance,
    )


def _agrees(task: str, by: dict[int, dict]) -> tuple[bool, str]:
    """The paper's Figure 2 reading for ``task`` against the held-out accuracy by depth."""
    if task == "memorization":
        return by[1]["min"] >= 0.99, f"depth 1: {_spread(by[1])} over {by[1]['seeds']} seeds"
    if task == "contextual":
        ok = _at_chance(by[1]) and _at_chance(by[2]) and by[3]["mean"] >= 0.9
        return ok, (
            f"depth 1 {_spread(by[1])}, depth 2 {_spread(by[2])} (chance {by[1]['chance']:.3g}; "
            f"2 layers sit at 1/k = 0.5, not chance), depth 3 {_spread(by[3])}"
        )
    ok = _at_chance(by[1]) and by[2]["mean"] >= 0.9
    return ok, (
        f"{task}: depth 1 {_spread(by[1])} (chance {by[1]['chance']:.3g}), depth 2 "
        f"{_spread(by[2])}, depth 3 {_spread(by[3])}"
    )


def fig2(task: str) -> Checked:
    """Figure 2 at §9.1's sizes for ``task``, read from the committed summary (3 seeds)."""

    def values() -> dict[str, Any]:
        with open(FIG2_CSV, newline="") as f:
            rows = list(csv.DictReader(f))
        by = {depth: _fig2_summary(rows, task, depth) for depth in (1, 2, 3, 4)}
        ok, text = _agrees(task, by)
        return dict(held_out_accuracy_by_depth=by, agrees_with_paper=ok, reading=text)

    return _record(FIG2_CSV, values, domains.FIG2_RECORD, ("agrees_with_paper", "reading"))


def aggregate_cells(path: pathlib.Path) -> list[dict[str, Any]]:
    """Every row of a train command's ``aggregate.csv``: task, heads, depth, seeds, and the
    held-out accuracy's mean, min, max beside chance."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [
        dict(
            task=r["task"],
            heads=r["heads"],
            depth=int(r["depth"]),
            seeds=int(r["seeds"]),
            mean=round(float(r["acc_mean"]), 4),
            min=float(r["acc_min"]),
            max=float(r["acc_max"]),
            chance=float(r["chance"]),
        )
        for r in rows
    ]


def fig2_quick() -> Checked:
    """Figure 2 at README's quick sizes, read from the committed aggregate."""

    def values() -> dict[str, Any]:
        cells = aggregate_cells(FIG2_QUICK_CSV)
        agrees = {}
        for task in ("memorization", "reasoning", "generalization", "contextual"):
            by = {c["depth"]: c for c in cells if c["task"] == task}
            agrees[task] = _agrees(task, by)[0]
        return dict(
            agrees_with_paper=agrees,
            all_agree=all(agrees.values()),
            agree_on=", ".join(t for t, ok in agrees.items() if ok) or "nothing",
            differ_on=", ".join(t for t, ok in agrees.items() if not ok) or "nothing",
            cells=cells,
        )

    return _record(
        FIG2_QUICK_CSV, values, domains.FIG2_QUICK_RECORD, ("all_agree", "agree_on", "differ_on")
    )


def fig4_7() -> Checked:
    """Figures 4-7 (heads per layer) at quick sizes, read from the committed aggregate."""

    def values() -> dict[str, Any]:
        cells = aggregate_cells(HEADS_CSV)

        def where(task: str, depth: int) -> list[dict]:
            return [c for c in cells if c["task"] == task and c["depth"] == depth]

        agrees = dict(
            one_layer_at_chance_with_any_heads=all(
                _at_chance(c) for t in ("reasoning", "generalization") for c in where(t, 1)
            ),
            two_layers_reason_and_generalize=all(c["mean"] >= 0.9 for c in where("reasoning", 2))
            and all(c["mean"] >= 0.85 for c in where("generalization", 2)),
            three_layers_contextual=all(c["mean"] >= 0.9 for c in where("contextual", 3)),
        )
        return dict(cells=cells, agrees_with_paper=agrees, all_agree=all(agrees.values()))

    return _record(HEADS_CSV, values, domains.HEADS_RECORD, ("all_agree", "agrees_with_paper"))


def fig3() -> Checked:
    """Figure 3 at quick size, read from the committed attention-share summary."""
    from transformer_theory.jsonio import read_json

    def values() -> dict[str, Any]:
        summary = read_json(str(FIG3_JSON))
        correct = all(
            v["trained_prediction"] == v["answer"] == v["constructed_prediction"]
            for v in summary.values()
        )
        copy = [v["trained_layer1_share_on_copy"] for v in summary.values()]
        match = [v["trained_layer2_share_on_match"] for v in summary.values()]
        built = [v["constructed_layer2_share_on_match"] for v in summary.values()]
        return dict(
            inputs=summary,
            answers_correct=correct,
            copy_share=f"{min(copy):.2f}-{max(copy):.2f}",
            match_share=f"{min(match):.2f}-{max(match):.2f}",
            constructed_match_share=f"{min(built):.2f}",
        )

    return _record(
        FIG3_JSON,
        values,
        domains.FIG3_RECORD,
        ("answers_correct", "copy_share", "match_share", "constructed_match_share"),
    )


def _printed_against_corrected(failures: dict, inner: Checked) -> Checked:
    """The printed construction's check: ``failures`` (the first failure of the construction as
    printed, ``"printed"``, and of each repair left out) beside the corrected one's ``inner``
    check (exact), whose inputs it covers."""
    return Checked(
        "exact",
        inner.covered,
        dict(
            failures=failures,
            printed_holds=failures["printed"] is None,
            each_repair_needed=all(v is not None for v in failures.values()),
            corrected_min_margin=inner.values["min_margin"],
            corrected_holds=all(v is not None for v in failures.values())
            and Fraction(inner.values["min_margin"]) > 0,
        ),
        subject="printed",
    )
