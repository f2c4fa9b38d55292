"""The checks of the counter-language rows of the claims ledger (:mod:`.claims`): SHUFFLE-DYCK-k
and the simple counter machines in rationals, in float64 and float32, and their next-symbol sets
against the true continuation sets. Each records what it evaluated in a
:class:`~transformer_theory.ledger.Tally` of a sub-domain of its row's domain (:mod:`._domains`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from transformer_theory import precision
from transformer_theory.ledger import Checked, Tally, Witness
from transformer_theory.papers.formal_languages import (
    _constructions_counters,
    _tasks_counters,
    _theory_counters,
)
from transformer_theory.papers.formal_languages._domains import (
    ANBN_STRINGS,
    ANBNCN_RECOGNIZER,
    ANBNCN_STRINGS,
    BOOLEXP_STRINGS,
    COUNTER_PREFIXES,
    SHUFFLE_DYCK_2_STRINGS,
    SHUFFLE_DYCK_STRINGS,
    Languages,
)
from transformer_theory.papers.formal_languages._tasks_counters import (
    END,
    _viable_leaves,
    continuation_set,
)
from transformer_theory.papers.formal_languages._theory_counters import (
    counter_tolerance,
    predicted_sign_safe_n,
)

#: Each language's statement domain (the default of :func:`counter_languages`).
STATEMENTS = {
    "shuffle_dyck_1": SHUFFLE_DYCK_STRINGS,
    "shuffle_dyck_2": SHUFFLE_DYCK_STRINGS,
    "shuffle_dyck_3": SHUFFLE_DYCK_STRINGS,
    "anbn": ANBN_STRINGS,
    "anbncn": ANBNCN_STRINGS,
    "boolexp_3": BOOLEXP_STRINGS,
}


def _alphabets(languages: Sequence[str]) -> dict:
    return {lang: range(_tasks_counters.machine(lang).num_symbols) for lang in languages}


def counter_languages(
    languages: Sequence[str],
    exhaustive: Sequence[int],
    sampled: Sequence[int],
    samples: int,
    *,
    statement: Languages | None = None,
) -> Checked:
    """:func:`._theory_counters.exact_check` (rationals) of
    :func:`._constructions_counters.counter_recognizer`
    for each language: every string of lengths ``0..exhaustive[i]`` and every prefix of
    ``samples`` strings per length of ``sampled`` (:func:`._tasks_counters.counter_sample`, seed =
    length). At each position every output is exactly ``1/(2n)`` where the MACHINE's guards
    allow the symbol and ``<= -1/(2n)`` where not, and acceptance by the next-symbol convention
    equals :func:`._tasks_counters.is_member`.

    Covered: every string of each language of lengths ``0..exhaustive[i]`` (a sub-domain of
    ``statement``, the row's domain), counted as :func:`._theory_counters.exact_check` visits
    them (it stops at a language's first failure, so a failing language is also short of its
    strings). The drawn longer strings are beyond it. ``statement`` defaults to the languages'
    own (:data:`STATEMENTS`).
    Values: ``failures`` (languages failing), ``strings``, ``outputs``, ``witness``."""
    precision.require_x64("counter_languages")
    languages, exhaustive = tuple(languages), tuple(int(e) for e in exhaustive)
    if statement is None:
        found = {STATEMENTS.get(lang) for lang in languages}
        if len(found) != 1 or None in found:
            raise ValueError(f"statement: name the domain of {languages!r}")
        (statement,) = found
    tally = Tally(statement.upto(_alphabets(languages), dict(zip(languages, exhaustive))))
    failures, strings, outputs, witness = 0, 0, 0, None
    for language, e in zip(languages, exhaustive):
        params = _constructions_counters.counter_recognizer(_tasks_counters.machine(language))
        drawn = []
        for length in sampled:
            drawn.extend(_tasks_counters.counter_sample(language, length, samples, seed=length)[0])
        for i, res in enumerate(
            (
                _theory_counters.exact_check(params, language, e),
                _theory_counters.exact_check(params, language, 0, samples=drawn),
            )
        ):
            strings += res["strings"]
            outputs += res["outputs"]
            if i == 0:
                tally.record_count(res["strings"])
            if not res["ok"]:
                failures += 1
                witness = witness or {"language": language, **res["witness"]}
                break
    return Checked(
        "exact",
        tally,
        {
            "failures": failures,
            "strings": strings,
            "outputs": outputs,
            "drawn_per_length": {"lengths": list(sampled), "samples": samples},
            "witness": witness,
        },
    )


def counter_float(dtype: str, lengths: Sequence[int] = (64,), samples: int = 6) -> Checked:
    """SHUFFLE-DYCK-2's recognizer in ``dtype`` (``core.forward_all``) on ``samples`` strings per
    length: each output against the exact one (:class:`._theory_counters.ExactCounterModel`,
    rationals) over :func:`counter_tolerance` and over the smallest margin ``1/(2n)``, and the
    misclassified strings. Only the lengths run are checked; ``predicted_sign_safe_n`` is the
    rounding model's extrapolation, reported, not checked."""

    precision.require_x64("counter_float")
    language = "shuffle_dyck_2"
    m = _tasks_counters.machine(language)
    G = max(len(g) for g in (*m.guards, m.end_guards))
    exact_model = _theory_counters.ExactCounterModel(_constructions_counters.counter_recognizer(m))
    params = _constructions_counters.counter_recognizer(m, dtype=precision.dtype_of(dtype))
    drawn = []
    for length in lengths:
        drawn += list(_tasks_counters.counter_sample(language, length, samples, seed=length)[0])
    where = ", ".join(str(x + 1) for x in lengths)
    tally = Tally(
        SHUFFLE_DYCK_2_STRINGS.sample(
            len(drawn), 0, lambda seed, i: drawn[i], what=f"of strings, {samples} per n = {where}"
        )
    )
    wrong, over_tol, over_margin, k = 0, 0.0, 0.0, 0
    for length in lengths:
        strings, labels, _ = _tasks_counters.counter_sample(language, length, samples, seed=length)
        floats = np.concatenate(
            [
                _constructions_counters.next_symbol_margins(params, strings[i : i + 2])
                for i in range(0, len(strings), 2)
            ]
        )
        wrong += int(np.sum(_constructions_counters.accepts(floats, strings) != labels))
        for s, f in zip(strings, floats):
            for i, row_q in enumerate(exact_model.margins([m.bos, *s])):
                err = max(abs(float(q) - float(x)) for q, x in zip(row_q, f[i]))
                over_margin = max(over_margin, err * 2 * (i + 1))
                over_tol = max(over_tol, err / counter_tolerance(i + 1, G, dtype))
            tally.record(drawn[k])  # the same object the sub-domain draws (keyed by identity)
            k += 1
    return Checked(
        "float",
        tally,
        {
            "misclassified": wrong,
            "error_over_tolerance": over_tol,
            "error_over_smallest_margin": over_margin,
            "n_checked_max": max(lengths) + 1,
            "predicted_sign_safe_n": predicted_sign_safe_n(G, dtype),
        },
        tolerance=f"2 (4G + 1)(n + 5) u, G = {G}, u = {precision.unit_roundoff(dtype):.3g} "
        "(hand-derived)",
    )


def _viable(label, prefix) -> bool:
    return _tasks_counters.viable(label, list(prefix))


def _float_inside(params, tokens, name) -> Witness:
    """The float64 outputs of the library's forward pass at the last position of ``tokens``
    inside their arb enclosure (:func:`transformer_theory.exact.evaluate`), each widened by
    ``64 n u`` (the float pass's rounding of n-term averages of O(1) values)."""
    from transformer_theory import exact
    from transformer_theory.core.forward import forward

    x = np.array(tokens)
    balls = exact.evaluate(params, x, arithmetic="enclosed").logits[-1]
    floats = np.asarray(forward(params, x), dtype=np.float64)
    j = int(np.argmax(np.abs(floats)))
    slack = 64 * len(x) * precision.unit_roundoff("float64") * (abs(float(floats[j])) + 1)
    return Witness(
        f"float64 output {j} at the end of {name}", float(floats[j]), balls[j], "inside", slack
    )


def _compare(languages, max_lengths, record):
    """Each language's model sets against the true sets at every viable prefix of length
    ``<= max_lengths[i]``, calling ``record(language, prefix)`` after each comparison."""
    from transformer_theory import exact

    total, bad, by_language, witness, probe = 0, 0, {}, None, None
    for language, L in zip(languages, max_lengths):
        m = _tasks_counters.machine(language)
        params = _constructions_counters.counter_recognizer(m)
        names = [*range(m.num_symbols), END]
        leaves, _ = _viable_leaves(language, L)
        seen, wrong = set(), 0
        for leaf in leaves:
            logits = exact.evaluate(params, np.array([m.bos, *leaf]), arithmetic="enclosed").logits
            for i in range(len(leaf) + 1):
                p = tuple(leaf[:i])
                if p in seen:
                    continue
                seen.add(p)
                row = logits[i]
                decided = all(bool(x > 0) or bool(x < 0) for x in row)
                model = frozenset(s for s, x in zip(names, row) if bool(x > 0))
                true = continuation_set(language, p)
                record(language, p)
                if not decided or model != true:
                    wrong += 1
                    if witness is None or len(p) < len(witness["prefix"]):
                        witness = {
                            "language": language,
                            "prefix": [m.symbols[x] for x in p],
                            "model": sorted(_label(m, x) for x in model),
                            "true": sorted(_label(m, x) for x in true),
                        }
        if probe is None and leaves:
            probe = _float_inside(params, [m.bos, *leaves[0]], f"{language} {leaves[0]}")
        total += len(seen)
        bad += wrong
        by_language[language] = wrong
    values = {
        "prefixes": total,
        "disagreements": bad,
        "by_language": by_language,
        "witness": witness,
        "differs": True if bad else None,
    }
    return values, probe


def continuations(languages: Sequence[str], max_lengths: Sequence[int]) -> Checked:
    """The counter recognizer's per-position next-symbol sets against the TRUE continuation
    sets (:func:`continuation_set`) at every viable prefix (a prefix of some member) of length
    ``<= max_lengths[i]``: the model's set at a prefix is ``{s : o_s > 0}`` of
    :func:`transformer_theory.exact.evaluate` in arb balls (softmax) at that position, each
    sign decided by its ball (an undecided sign counts as a disagreement). Prefixes outside the
    language's prefixes (continuation set empty) are not compared: the convention of
    :func:`._constructions_counters.accepts` never reads the outputs after the first symbol that
    left it.

    Covered: every viable prefix of each language up to its length, a sub-domain of
    :data:`._domains.COUNTER_PREFIXES`, each recorded once compared. Witness: the library's
    float64 outputs at the end of a leaf inside their enclosure.

    Values: ``prefixes``, ``disagreements`` (in all), ``by_language`` (disagreements per
    language), ``witness`` (the first: language, prefix, model's set, true set)."""
    precision.require_x64("continuations")
    languages, max_lengths = tuple(languages), tuple(int(x) for x in max_lengths)
    tally = Tally(
        COUNTER_PREFIXES.upto(
            _alphabets(languages),
            dict(zip(languages, max_lengths)),
            which="prefixes of a member",
            keep=_viable,
        )
    )
    values, probe = _compare(languages, max_lengths, lambda lang, p: tally.record((lang, p)))
    return Checked("enclosed", tally, values, witnesses=(probe,))


def anbncn_continuations(languages: Sequence[str], max_lengths: Sequence[int]) -> Checked:
    """There exists a prefix of a member of a^n b^n c^n at which the library's recognizer allows
    a symbol no member continues with: :func:`continuations`' comparison searched over every
    viable prefix up to ``max_lengths`` (``languages`` must be ``("anbncn",)``); the statement is
    about the one recognizer (:data:`._domains.ANBNCN_RECOGNIZER`), recorded once searched.
    ``differs`` is ``None`` when no witness is found: not finding one shows nothing."""
    precision.require_x64("anbncn_continuations")
    tally = Tally(ANBNCN_RECOGNIZER)
    values, probe = _compare(tuple(languages), tuple(max_lengths), lambda lang, p: None)
    for language in languages:
        tally.record(language)
    return Checked("enclosed", tally, values, witnesses=(probe,))


def _label(m: Any, x: Any) -> str:
    return "END" if x == END else m.symbols[x]
