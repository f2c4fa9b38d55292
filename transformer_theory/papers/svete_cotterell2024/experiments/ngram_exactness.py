"""The n-gram constructions' weak equivalence and exact length in float64/float32/bfloat16.

Svete & Cotterell 2024, Theorems 3.1-3.3 and this library's variants at every precision: the
``transformer-theory ngram`` runs whose numbers README quotes, as one experiment
(:func:`run_ngram` per run; its settings :class:`NGramSettings` are the command's options).

Commands and times (2-core x86 CPU shared with 7 other jobs, 2026-11-24), for a random trigram
LM over 3 symbols with 20% exact zeros (seed 0), every string up to 6 symbols (1,093)::

    transformer-theory ngram --max-len 6 --precision float64,bfloat16 --scan-limit 12 \\
        --out results/ngram_hard                                            # about 10 min 30 s
    transformer-theory ngram --max-len 6 --precision float32 --scan-limit 40 \\
        --out results/ngram_hard_float32                                    # 14 min 15 s
    transformer-theory ngram --attention sparse --max-len 4 --precision float64 \\
        --construction 3.1,3.2,3.3-slots --scan-limit 10 --out results/ngram_sparse   # 4 min
    transformer-theory ngram --attention softmax --beta 1000 --alphabet 2 --max-len 6 \\
        --precision float64 --soft-lengths 1,2,3,4,5,6 --out results/ngram_soft      # 8 min 45 s

``python experiments/ngram_exactness.py --out results [--only NAME,...]`` (or ``transformer-theory
experiment ngram_exactness --out results``) runs all four, each into ``results/<name>/``
(``ngram.json``, ``ngram_precision.png``, ``ngram_soft.png``: see ``transformer-theory ngram``);
``--size smoke`` runs one small hard-attention run (the paper's 3.1 and 3.3, a bigram LM, float64)
in under a minute. Results:

- float64 and float32, hard attention, all five constructions: weakly equivalent, ``max |log q(y)
  - log p(y)|`` = 3.6e-15 (float64; 0 for the paper's 3.3, whose readout is a table row) and
  6.7e-7 (float32; 5.5e-7 for the paper's 3.3); the mass of the strings up to 6 is
  0.8956206794791504 under every float64 model and the n-gram's forward recursion. bfloat16: not
  equivalent (4.2-16 nats).
- longest exact length (the model run at every length up to the scan limit, every query's
  attention the proof's; the paper's 3.3: every position's decoded history, on 33 strings per
  length): float64 no failure up to 12 for all five (derived guarantees 48,283 for 3.1/3.2/
  3.2-direct, 4,868 for 3.3-slots); float32 no failure up to 40 for 3.1/3.2/3.2-direct (derived
  55), 3.3-slots exact to 39 (derived 29), the paper's 3.3 exact to 35 (its ``10^-t`` values
  leave float32's normal range at ``t = 38``); bfloat16 1 (3.1/3.2/3.2-direct), 2 (3.3-slots), 0
  (the paper's 3.3).
- sparse, built for max_len 4: equivalent up to 4; 3.1 and 3.2 exact to length 5 and wrong at 6
  (the scale is chosen for max_len, the gap shrinks); 3.3-slots no failure up to 10.
- softmax (a trigram LM over 2 symbols without zeros, KL over the first 7 outcomes): 3.1 and
  3.2-direct need beta = 993, 1,416, 2,642, 4,277, 6,581, 9,530 for KL <= 1e-3 at lengths 1..6,
  the paper's 3.2 993, 1,423, 2,751, 4,568, 7,210, 10,600; 3.3-slots needs beta = 0.9 at every
  length (KL 4.8e-4 at beta = 1, 1.1e-17 from beta = 10): its integer score gap does not shrink.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence
from typing import Any, Literal

from transformer_theory import _validate
from transformer_theory.jsonio import optional, to_jsonable, write_json
from transformer_theory.papers.svete_cotterell2024 import _theory_cost as cost
from transformer_theory.precision import PRECISIONS, require_x64
from transformer_theory.settings import flag_of, setting

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = [
    "ALL_CONSTRUCTIONS",
    "OUTPUTS",
    "SIZES",
    "SPACE_MAX_HISTORIES",
    "SPACE_OUTPUTS",
    "ExactnessSettings",
    "NGramResult",
    "NGramSettings",
    "SpaceResult",
    "SpaceSettings",
    "check_budget",
    "float64_failures",
    "get_config",
    "model_record",
    "run",
    "run_ngram",
    "run_space",
    "soft_study",
    "soft_table_rows",
    "space_table_rows",
    "table_rows",
]

#: Every construction the study runs: the paper's 3.1, 3.2 and 3.3 (``Paper33``) and this
#: library's variants 3.2-direct and 3.3-slots.
ALL_CONSTRUCTIONS: tuple[str, ...] = ("3.1", "3.2", "3.2-direct", "3.3", "3.3-slots")
#: The files :func:`run_ngram` writes into its output directory.
OUTPUTS: tuple[str, ...] = ("ngram.json", "ngram_precision.png", "ngram_soft.png")
#: The files :func:`run_space` writes into its output directory.
SPACE_OUTPUTS: tuple[str, ...] = ("ngram_space.json", "ngram_space.png")
#: The most histories ``A = sum_k |Sigma|^k`` :func:`run_space` builds for (the dense ``W_QK``
#: and ``W_V`` hold ``(n - 1) D^2`` numbers, ``D > A``).
SPACE_MAX_HISTORIES = 2000
SIZES = ("smoke", "default")
_SOFT_LENGTHS = (2, 4, 6, 8)
_TARGET_KL = 1e-3


def _names(field: str, given: tuple[str, ...], choices: tuple[str, ...]) -> tuple[str, ...]:
    """``given`` checked against ``choices`` (``("all",)``: every choice)."""
    if tuple(given) == ("all",):
        return choices
    if not given:
        raise ValueError(f"{field}: empty selection; choose from {', '.join(choices)} or 'all'")
    for name in given:
        _validate.check_choice(field, name, choices)
    return tuple(given)


@dataclasses.dataclass(frozen=True)
class NGramSettings:
    """One n-gram study: the options of ``transformer-theory ngram``, each checked here once.

    Attributes:
      order: n of the n-gram LM (>= 2).
      alphabet: ``|Sigma|``.
      max_len: check every string up to this length (sampled where a length has more than
        50,000 strings).
      constructions: comma list of 3.1, 3.2, 3.3 (the paper's), 3.2-direct, 3.3-slots (this
        library's variants) or 'all' (the paper's 3.3: hard attention only, so 'all' leaves it out
        of sparse and softmax runs).
      attention: the attention the constructions run with.
      beta: softmax: score scale (required there; refused with hard and sparse attention).
      precisions: comma list of float64, float32, bfloat16 or 'all': the float format of the
        weights (softmax's kl is computed in float64 whatever is named).
      zero_fraction: fraction of exact zeros in the LM's table (none: 0.2; 0 with softmax).
      scan_limit: hard/sparse: run the model at every string length up to this (one compilation
        each) to find the longest exact length.
      soft_lengths: softmax only: string lengths at which the beta for --target-kl is searched
        (none: 2,4,6,8).
      target_kl: softmax only: the KL the searched beta reaches (none: 1e-3).
      seed: seed of the random LM.
    """

    order: int = setting(3, positive=True)
    alphabet: int = setting(3, positive=True)
    max_len: int = 8
    constructions: tuple[str, ...] = setting(("all",), flag="--construction")
    attention: Literal["hard", "sparse", "softmax"] = "hard"
    beta: float | None = setting(None, positive=True)
    precisions: tuple[str, ...] = setting(PRECISIONS, flag="--precision")
    zero_fraction: float | None = None
    scan_limit: int = 40
    soft_lengths: tuple[int, ...] | None = None
    target_kl: float | None = setting(None, positive=True)
    seed: int = 0

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1

        def put(name, value):
            object.__setattr__(self, name, value)

        if self.order < 2:
            raise ValueError(f"order: the constructions need n >= 2, got {self.order}")
        _validate.check_positive("alphabet", self.alphabet)
        for name in ("max_len", "scan_limit", "seed"):
            _validate.check_positive(name, getattr(self, name), allow_zero=True)
        _validate.check_choice("attention", self.attention, ("hard", "sparse", "softmax"))
        softmax = self.attention == "softmax"
        names = _names("constructions", self.constructions, ALL_CONSTRUCTIONS)
        if "3.3" in names and self.attention != "hard":
            if tuple(self.constructions) != ("all",):
                raise ValueError(
                    "constructions: the paper's 3.3 is built with average-hard attention only "
                    f"(the authors' single.py), not attention {self.attention}"
                )
            names = tuple(c for c in names if c != "3.3")
        put("constructions", names)
        put("precisions", _names("precisions", self.precisions, PRECISIONS))
        if not softmax:
            for name in ("beta", "soft_lengths", "target_kl"):
                if getattr(self, name):
                    raise ValueError(
                        f"{name}: applies to softmax attention only, not attention "
                        f"{self.attention} (it would be ignored)"
                    )
        elif self.beta is None:
            raise ValueError("beta: softmax attention needs a score scale, e.g. --beta 1000")
        if self.beta is not None:
            _validate.check_positive("beta", self.beta)
        zero = self.zero_fraction
        if zero is None:
            zero = 0.0 if softmax else 0.2
        if not (math.isfinite(zero) and 0.0 <= zero < 1.0):
            raise ValueError(f"zero_fraction: expected a number in [0, 1), got {zero}")
        if softmax and zero > 0:
            raise ValueError(
                "zero_fraction: softmax attention needs a table without exact zeros (a spread "
                "attention reads log 0 from a partly active unit); use --zero-fraction 0"
            )
        put("zero_fraction", zero)
        if softmax:
            lengths = _SOFT_LENGTHS if self.soft_lengths is None else tuple(self.soft_lengths)
            for length in lengths:
                _validate.check_positive("soft_lengths", length, allow_zero=True)
            if (max([*lengths, self.max_len]) + 1) * math.log2(max(self.alphabet, 1)) > 22:
                raise ValueError(
                    "soft_lengths: the KL sums over every string and prefix up to L + 1 "
                    "symbols; |Sigma|^(L+1) must stay <= 2^22 (L: the largest of "
                    "--soft-lengths, --max-len)"
                )
            put("soft_lengths", lengths)
            kl = _TARGET_KL if self.target_kl is None else self.target_kl
            _validate.check_positive("target_kl", kl)
            put("target_kl", kl)
        else:
            put("soft_lengths", ())


@dataclasses.dataclass(frozen=True)
class SpaceSettings:
    """The size table of ``transformer-theory ngram --space``: every construction built at each
    n x ``|Sigma|`` and counted against the closed forms.

    Attributes:
      orders: --space: n (each >= 2).
      alphabets: --space: ``|Sigma|`` (each >= 1).
      seed: seed of the random LMs.
    """

    orders: tuple[int, ...] = setting((2, 3, 4, 5), positive=True)
    alphabets: tuple[int, ...] = setting((1, 2, 3, 4), positive=True)
    seed: int = 0

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        from transformer_theory.papers.svete_cotterell2024._tasks import num_histories

        for name in ("orders", "alphabets"):
            if not getattr(self, name):
                raise ValueError(f"{name}: expected at least one value")
        if min(self.orders) < 2:
            raise ValueError(f"orders: the constructions need n >= 2, got {min(self.orders)}")
        _validate.check_positive("alphabets", min(self.alphabets))
        _validate.check_positive("seed", self.seed, allow_zero=True)
        n, S = max(self.orders), max(self.alphabets)
        if n * math.log2(S + 1) > 64 or num_histories(S, n) > SPACE_MAX_HISTORIES:
            raise ValueError(
                f"orders: n = {n} with |Sigma| = {S} (--alphabets) has more than "
                f"{SPACE_MAX_HISTORIES} histories (the dense attention arrays grow with their "
                "square)"
            )


# ------------------------------------------------------------------------------ the budget
def _blame(settings: NGramSettings, fields: list[str], fits) -> str:
    """The options to name for a run over budget, ``/``-joined: those of ``fields`` above their
    default (out of their ordinary range) whose default alone makes ``fits(settings)`` true; else
    all those above their default; else all of ``fields`` (the defaults themselves do not fit)."""
    default = {f.name: f.default for f in dataclasses.fields(NGramSettings)}
    above = [f for f in fields if getattr(settings, f) > default[f]]
    alone = [f for f in above if fits(dataclasses.replace(settings, **{f: default[f]}))]
    return "/".join(flag_of(NGramSettings, f) for f in (alone or above or fields))


def check_budget(settings: NGramSettings) -> tuple[float, float]:
    """Refuse (``BudgetError``) settings whose :func:`._theory_cost.estimate` exceeds the memory
    or time budget, naming the option out of its ordinary range; returns the estimate
    ``(bytes, seconds)``. Called before any work."""
    from transformer_theory import budget

    memory, seconds = cost.estimate(settings)

    def fits(s, which):
        est = cost.estimate(s)[which]
        limit = 0.8 * budget.available_memory() if which == 0 else budget.time_budget()
        return math.isfinite(est) and est <= limit

    if not fits(settings, 0):
        option = _blame(settings, ["order", "alphabet", "max_len"], lambda s: fits(s, 0))
        S, n = settings.alphabet, settings.order
        table = cost.table_bytes(S, n)
        if not math.isfinite(table):  # beyond float range: say how far, in powers of two
            log2_table = n * math.log2(S) + math.log2(8 * (S + 1) / (S - 1))
            raise budget.BudgetError(
                f"{option}: the n-gram table alone has sum_(k<n) |Sigma|^k ~ {S}^{n - 1} "
                f"histories, about 2^{log2_table:,.0f} bytes of memory, more than this machine "
                f"can give ({budget.format_bytes(budget.available_memory())} available); "
                f"lower {option}",
                option=option,
                estimate=memory,
                available=budget.available_memory(),
            )
        what = (
            f"the n-gram table ({budget.format_bytes(table)} alone), the models' D x D weights "
            "and a batch"
        )
        budget.check_memory(memory, what=what, option=option)
    if not fits(settings, 1):
        fields = ["max_len", "scan_limit", "order", "alphabet"]
        budget.check_seconds(
            seconds,
            what="checking every string and scanning every length",
            option=_blame(settings, fields, lambda s: fits(s, 1)),
        )
    return memory, seconds


# ------------------------------------------------------------------------- the study's steps
def model_record(lm: Any, construction: str, precision: str, settings: NGramSettings) -> dict:
    """One construction of ``lm`` in one precision, checked: a JSON-ready record.

    Keys: the settings it was built with (``construction``, ``attention``, ``precision``,
    ``order``, ``alphabet``, ``max_len``, ``beta``), its shape (``heads``, ``width``,
    ``mlp_hidden``; the paper's 3.3: one head, no ``ModelConfig``),
    :func:`._theory_equivalence.equivalence_record`'s keys, and then -- hard/sparse -- ``scan``
    (:func:`._theory_precision.selection_scan` or :func:`._theory_precision.paper33_scan`) with
    ``predicted_exact_length`` (:func:`._theory_precision.predicted_exact_length`; None for the
    paper's 3.3, which has no derived bound), or -- softmax -- ``kl`` (:func:`._theory_soft.soft_kl`
    at ``beta``).
    """
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024 import _theory_equivalence as equivalence
    from transformer_theory.papers.svete_cotterell2024 import _theory_precision as precision_scan
    from transformer_theory.papers.svete_cotterell2024 import _theory_soft as soft
    from transformer_theory.precision import dtype_of

    dtype = dtype_of(precision)
    softmax = settings.attention == "softmax"
    rec = {
        "construction": construction,
        "attention": settings.attention,
        "precision": precision,
        "order": settings.order,
        "alphabet": settings.alphabet,
        "max_len": settings.max_len,
        "beta": settings.beta if softmax else None,
    }
    if construction == "3.3":
        params = cn.build_paper33(lm, dtype=dtype)
        rec |= {"heads": [1], "width": None, "mlp_hidden": None}
    else:
        params = cn.build(
            lm,
            construction,
            attention=settings.attention,
            beta=settings.beta,
            max_len=settings.max_len,
            dtype=dtype,
        )
        cfg = params.config
        rec |= {"heads": list(cfg.heads), "width": cfg.width, "mlp_hidden": cfg.mlp_hidden}
    rec.update(equivalence.equivalence_record(lm, params, settings.max_len, seed=settings.seed))
    if construction == "3.3":
        rec["scan"] = precision_scan.paper33_scan(params, max_length=settings.scan_limit)
        rec["predicted_exact_length"] = None  # no derived bound (see the README)
    elif not softmax:
        rec["scan"] = precision_scan.selection_scan(
            params, construction, max_length=settings.scan_limit
        )
        rec["predicted_exact_length"] = precision_scan.predicted_exact_length(
            construction,
            settings.order,
            dtype,
            attention=settings.attention,
            max_len=settings.max_len,
        )
    else:
        rec["kl"] = soft.soft_kl(lm, construction, settings.beta, settings.max_len)
    return rec


def soft_study(
    lm: Any,
    constructions: tuple[str, ...] | list[str],
    max_len: int,
    soft_lengths: tuple[int, ...] | list[int],
    target_kl: float,
    *,
    progress: bool = False,
) -> list[dict]:
    """Softmax attention against the n-gram, per construction: ``kl_by_beta`` (the KL over the
    first ``max_len + 1`` outcomes at ``beta = 10^0 .. 10^6``) and ``beta_needed`` (the smallest
    ``beta`` with KL ``<= target_kl`` at each of ``soft_lengths``,
    :func:`._theory_soft.beta_for_kl`; None where even ``2^20`` does not reach it)."""
    from transformer_theory.papers.svete_cotterell2024 import _theory_soft as soft
    from transformer_theory.progress import tqdm

    rows = []
    for construction in tqdm(
        constructions, desc="softmax beta", unit="construction", disable=not progress or None
    ):
        curve = [
            {"beta": b, "kl": soft.soft_kl(lm, construction, b, max_len)} for b in soft.SOFT_BETAS
        ]
        needed = [
            {"length": L, "beta": soft.beta_for_kl(lm, construction, target_kl, L)}
            for L in soft_lengths
        ]
        rows.append(
            {
                "construction": construction,
                "max_len": max_len,
                "kl_by_beta": curve,
                "target_kl": target_kl,
                "beta_needed": needed,
            }
        )
    return rows


def float64_failures(records: Sequence[dict]) -> list[dict]:
    """The hard or sparse records in float64 that are not weakly equivalent: where Theorems
    3.1-3.3 claim exactness and the check found none (a lower precision that breaks is a
    measurement, not a failure; softmax is exact only as ``beta -> inf``)."""
    return [
        r
        for r in records
        if r["precision"] == "float64" and r["attention"] != "softmax" and not r["equivalent"]
    ]


@dataclasses.dataclass(frozen=True)
class NGramResult:
    """``ngram.json`` (:func:`run_ngram`): whether the run finished, its settings, one record per
    construction and precision (:func:`model_record`) and, with softmax attention, the soft
    study (:func:`soft_study`; the key is absent without it)."""

    complete: bool
    settings: dict[str, Any]
    records: tuple[dict[str, Any], ...]
    soft: tuple[dict[str, Any], ...] | None = optional()


@dataclasses.dataclass(frozen=True)
class SpaceResult:
    """``ngram_space.json`` (:func:`run_space`): the size records, and whether every model's
    counts equal the closed forms and stay within the printed heads and layers."""

    records: tuple[dict[str, Any], ...]
    all_match: bool
    within_printed: bool


def _save(path: str | None, settings: NGramSettings, records, soft, complete: bool) -> NGramResult:
    result = NGramResult(
        complete=complete,
        settings=to_jsonable(dataclasses.asdict(settings))[0],  # as the file holds it
        records=tuple(records),
        soft=None if soft is None else tuple(soft),
    )
    if path:
        write_json(path, result)
    return result


# ------------------------------------------------------------------------------ one study run
def run_ngram(
    settings: NGramSettings, out_dir: str | None = None, *, progress: bool = False
) -> NGramResult:
    """Build -> check -> record -> plot for every construction and precision of ``settings``
    (:func:`model_record`), then :func:`soft_study` with softmax attention. Needs JAX's 64-bit
    mode (float64 is one of the formats compared and the reference).

    With ``out_dir``: an earlier run's :data:`OUTPUTS` there are removed first, ``ngram.json`` is
    written at the start and after every record with ``complete: false`` (so an interrupted run
    leaves the records done so far, never an earlier run's file), then the figures and
    ``ngram.json`` with ``complete: true``.

    Returns:
      the :class:`NGramResult` written last (``complete`` True; ``soft`` None without softmax).
    """
    from transformer_theory.papers.svete_cotterell2024 import _plots as plots
    from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM
    from transformer_theory.progress import tqdm

    require_x64("settings")
    path = None
    if out_dir is not None:
        for name in OUTPUTS:
            if os.path.exists(os.path.join(out_dir, name)):
                os.remove(os.path.join(out_dir, name))
        path = os.path.join(out_dir, "ngram.json")
    records: list[dict] = []
    _save(path, settings, records, None, complete=False)
    lm = NGramLM.random(
        settings.seed, settings.alphabet, settings.order, zero_fraction=settings.zero_fraction
    )
    jobs = [(c, p) for c in settings.constructions for p in settings.precisions]
    for construction, precision in tqdm(
        jobs, desc="ngram", unit="model", disable=not progress or None
    ):
        records.append(model_record(lm, construction, precision, settings))
        _save(path, settings, records, None, complete=False)
    soft = None
    if settings.attention == "softmax":
        soft = soft_study(
            lm,
            settings.constructions,
            settings.max_len,
            settings.soft_lengths,
            settings.target_kl,
            progress=progress,
        )
    if out_dir is not None:
        plots.precision_figure(records, os.path.join(out_dir, "ngram_precision.png"))
        if soft:
            plots.soft_figure(soft, os.path.join(out_dir, "ngram_soft.png"))
    return _save(path, settings, records, soft, complete=True)


def table_rows(result: NGramResult) -> list[dict]:
    """The records of :func:`run_ngram` as the rows of the command's table, one per model
    (``exact_to``: the scan's longest exact length, ``>=L`` when no length up to the scan's
    limit ``L`` failed, -1 when even the empty string fails; ``derived``: the derived guarantee,
    None where there is none)."""
    rows = []
    for r in result.records:
        row = {
            "construction": r["construction"],
            "attention": r["attention"],
            "precision": r["precision"],
            "equivalent": r["equivalent"],
            "strings": r["strings"],
            "max_abs_logprob_diff": r["max_abs_logprob_diff"],
        }
        if "scan" in r:
            scan = r["scan"]
            longest = scan["longest_exact_length"]
            row["exact_to"] = f">={scan['checked_up_to']}" if longest is None else longest
            row["derived"] = r["predicted_exact_length"]
        if "kl" in r:
            row["kl"] = r["kl"]
        rows.append(row)
    return rows


def soft_table_rows(result: NGramResult) -> list[dict]:
    """The soft study of :func:`run_ngram` as table rows: one per construction and soft length,
    with the ``beta`` the target KL needs (None where ``2^20`` does not reach it)."""
    return [
        {
            "construction": s["construction"],
            "length": need["length"],
            "target_kl": s["target_kl"],
            "beta_needed": need["beta"],
        }
        for s in result.soft or ()
        for need in s["beta_needed"]
    ]


# ----------------------------------------------------------------------------- the size table
def run_space(settings: SpaceSettings, out_dir: str | None = None) -> SpaceResult:
    """:func:`._theory_space.space_table` over ``orders x alphabets`` (every construction), with
    ``out_dir`` written to ``ngram_space.json`` and drawn to ``ngram_space.png``
    (:func:`._plots.space_figure`). Needs JAX's 64-bit mode.

    Returns:
      a :class:`SpaceResult`: the records, and whether every model's counts equal the closed
      forms and stay within the printed heads and layers.
    """
    from transformer_theory.papers.svete_cotterell2024 import _plots as plots
    from transformer_theory.papers.svete_cotterell2024 import _theory_space as space

    records = space.space_table(settings.orders, settings.alphabets, seed=settings.seed)
    result = SpaceResult(
        records=tuple(records),
        all_match=all(r["matches"] for r in records),
        within_printed=all(r["within_printed"] for r in records),
    )
    if out_dir is not None:
        write_json(os.path.join(out_dir, "ngram_space.json"), result)
        plots.space_figure(records, os.path.join(out_dir, "ngram_space.png"))
    return result


def space_table_rows(result: SpaceResult) -> list[dict]:
    """The records of :func:`run_space` as the command's table rows (``exact_to``: the derived
    exact length in float64/float32, ``-`` where none is derived)."""

    def exact(r, f):
        v = r["exact_to"][f]
        return "-" if v is None else v

    return [
        {
            "construction": r["construction"],
            "n": r["order"],
            "|Sigma|": r["alphabet"],
            "width": r["width"],
            "layers": r["layers"],
            "heads": r["heads"],
            "params": r["params"],
            "nonzero": r["nonzero_structural"],
            "table": r["table"],
            "sig_bits": r["significand_bits"],
            "exp_bits": r["exponent_bits"],
            "exact_f64": exact(r, "float64"),
            "exact_f32": exact(r, "float32"),
            "formula": "=" if r["matches"] else "DIFFERS",
        }
        for r in result.records
    ]


# ------------------------------------------------------------------------------ the experiment
@dataclasses.dataclass(frozen=True)
class ExactnessSettings:
    """Named study runs (``name -> NGramSettings``), each written to ``out_dir/name``."""

    size: str = "default"
    runs: tuple[tuple[str, NGramSettings], ...] = ()


def get_config(size: str = "default") -> ExactnessSettings:
    """The runs quoted above (``"default"``: the trigram LM over 3 symbols with 20% zeros, seed 0)
    or one small hard-attention run (``"smoke"``)."""
    if size == "smoke":
        smoke = NGramSettings(
            order=2,
            alphabet=2,
            max_len=2,
            constructions=("3.1", "3.3"),
            precisions=("float64",),
            scan_limit=2,
        )
        return ExactnessSettings(size="smoke", runs=(("ngram_hard", smoke),))
    if size != "default":
        raise ValueError(f"size: expected one of {list(SIZES)}, got {size!r}")
    hard = NGramSettings(max_len=6, constructions=ALL_CONSTRUCTIONS, zero_fraction=0.2)
    sparse = NGramSettings(
        attention="sparse",
        max_len=4,
        precisions=("float64",),
        constructions=("3.1", "3.2", "3.3-slots"),
        scan_limit=10,
    )
    soft = NGramSettings(
        attention="softmax",
        beta=1000.0,
        alphabet=2,
        max_len=6,
        precisions=("float64",),
        constructions=("3.1", "3.2", "3.2-direct", "3.3-slots"),
        zero_fraction=0.0,
        soft_lengths=(1, 2, 3, 4, 5, 6),
    )
    return ExactnessSettings(
        runs=(
            (
                "ngram_hard",
                dataclasses.replace(hard, precisions=("float64", "bfloat16"), scan_limit=12),
            ),
            (
                "ngram_hard_float32",
                dataclasses.replace(hard, precisions=("float32",), scan_limit=40),
            ),
            ("ngram_sparse", sparse),
            ("ngram_soft", soft),
        )
    )


def run(
    config: ExactnessSettings,
    out_dir: str,
    *,
    progress: bool = True,
    only: tuple[str, ...] | list[str] | None = None,
) -> dict:
    """Every run of ``config`` (those named in ``only``, if given) through :func:`run_ngram` into
    ``out_dir/<name>``.

    Returns:
      ``{"rows": [...]}``: per run, its name, records, and how many float64 hard/sparse records are
      not equivalent (``float64_failures``: where the theorems claim exactness).
    """
    rows = []
    for name, settings in config.runs:
        if only is not None and name not in only:
            continue
        path = os.path.join(out_dir, name)
        os.makedirs(path, exist_ok=True)
        result = run_ngram(settings, path, progress=progress)
        rows.append(
            {
                "run": name,
                "records": len(result.records),
                "float64_failures": len(float64_failures(result.records)),
            }
        )
    return {"rows": rows}
