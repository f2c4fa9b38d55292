"""The n-gram study of ``transformer-theory ngram``, callable from Python: build each construction
for one random n-gram LM in each float format, check weak equivalence on every string up to a
length, find the longest exactly-attending length, and (softmax attention) the KL from the n-gram
as the score scale ``beta`` grows.

- :class:`Settings`: what one study runs (the command's options, parsed).
- :func:`estimate`: the memory and time the settings need, from the settings alone.
- :func:`model_record`: one construction in one precision, as one JSON-ready record.
- :func:`soft_study`: the KL against ``beta`` and the ``beta`` a target KL needs, per length.
- :func:`run`: every record of the settings, written to ``ngram.json`` as each finishes (and the
  figures of :mod:`.plots` at the end).
- :func:`float64_failures`: the records a theorem's claim fails on.
- :func:`table_rows` / :func:`soft_table_rows`: the records as rows of the command's tables.
- :func:`space_study` / :func:`space_table_rows`: the built models' sizes (:mod:`.space`) over a
  grid of ``n`` and ``|Sigma|`` (``ngram --space``), and its table rows.

Records are plain dicts (the keys of ``ngram.json``); nothing here prints.
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Any

from transformer_theory import _validate
from transformer_theory.jsonio import write_json
from transformer_theory.precision import PRECISIONS

__all__ = [
    "ALL_CONSTRUCTIONS",
    "OUTPUTS",
    "SECONDS_PER_COMPILE",
    "SPACE_MAX_HISTORIES",
    "SPACE_OUTPUTS",
    "Settings",
    "estimate",
    "float64_failures",
    "model_record",
    "run",
    "soft_study",
    "soft_table_rows",
    "space_study",
    "space_table_rows",
    "table_bytes",
    "table_rows",
]

#: Every construction the study runs: the paper's 3.1, 3.2 and 3.3 (:class:`.constructions.Paper33`)
#: and this library's variants 3.2-direct and 3.3-slots.
ALL_CONSTRUCTIONS: tuple[str, ...] = ("3.1", "3.2", "3.2-direct", "3.3", "3.3-slots")
#: The files :func:`run` writes into its output directory.
OUTPUTS: tuple[str, ...] = ("ngram.json", "ngram_precision.png", "ngram_soft.png")
#: Seconds one compilation of a small model takes (a jitted forward at a new length), measured
#: 0.3 s (idle) to 5 s (8 jobs sharing its 2 cores) on the CPU this was written on; the unit of
#: the time estimate, which is therefore rough by a factor of a few either way.
SECONDS_PER_COMPILE = 1.0
#: The betas of the softmax KL curve.
SOFT_BETAS: tuple[float, ...] = tuple(10.0**k for k in range(0, 7))


@dataclasses.dataclass(frozen=True)
class Settings:
    """One n-gram study (the options of ``transformer-theory ngram``).

    Attributes:
      order: ``n`` of the random n-gram LM (>= 2).
      alphabet: ``|Sigma|``.
      max_len: weak equivalence is checked on every string up to this length (sampled where a
        length has more than 50,000 strings).
      constructions: names from :data:`ALL_CONSTRUCTIONS` (the paper's 3.3: hard attention only).
      attention: ``"hard"``, ``"sparse"`` or ``"softmax"``.
      beta: softmax's score scale (required there, None otherwise).
      precisions: names from :data:`transformer_theory.precision.PRECISIONS`: the float format of
        the weights (softmax's ``kl`` is computed in float64 whatever is named).
      zero_fraction: fraction of exact zeros in the LM's table (0 with softmax).
      scan_limit: hard/sparse: the precision scan runs every string length up to this.
      soft_lengths: softmax: lengths at which the ``beta`` for ``target_kl`` is searched.
      target_kl: softmax: the KL the searched ``beta`` reaches.
      seed: seed of the random LM.
    """

    order: int = 3
    alphabet: int = 3
    max_len: int = 8
    constructions: tuple[str, ...] = ALL_CONSTRUCTIONS
    attention: str = "hard"
    beta: float | None = None
    precisions: tuple[str, ...] = PRECISIONS
    zero_fraction: float = 0.2
    scan_limit: int = 40
    soft_lengths: tuple[int, ...] = ()
    target_kl: float = 1e-3
    seed: int = 0

    def __post_init__(self):
        _validate.check_choice("attention", self.attention, ("hard", "sparse", "softmax"))
        for name in self.constructions:
            _validate.check_choice("constructions", name, ALL_CONSTRUCTIONS)
        for name in self.precisions:
            _validate.check_choice("precisions", name, PRECISIONS)
        if "3.3" in self.constructions and self.attention != "hard":
            raise ValueError(
                "constructions: the paper's 3.3 is built with average-hard attention only"
            )
        if self.attention == "softmax" and self.beta is None:
            raise ValueError("beta: softmax attention needs a score scale")


def _power(base: int, exponent: int) -> float:
    """``base ** exponent`` as a float, ``inf`` beyond float range (never the exact integer, whose
    10^12-digit power would itself take hours)."""
    if base <= 1 or exponent == 0:
        return 1.0 if base >= 1 or exponent == 0 else 0.0
    if exponent * math.log2(base) >= 1023:
        return math.inf
    return float(base) ** exponent


def _geometric(base: int, terms: int) -> float:
    """``sum_{k<terms} base^k`` in closed form, as a float (``inf`` beyond float range)."""
    if base == 1:
        return float(terms)
    return (_power(base, terms) - 1.0) / (base - 1)


def table_bytes(alphabet: int, order: int) -> float:
    """Bytes of the n-gram table, ``8 A (|Sigma| + 1)`` with ``A = sum_{k<n} |Sigma|^k`` (float,
    ``inf`` beyond float range)."""
    return 8.0 * _geometric(alphabet, order) * (alphabet + 1)


def estimate(settings: Settings) -> tuple[float, float]:
    """``(bytes, seconds)`` the study needs, from the settings alone (nothing is built).

    Memory: the n-gram table (``A (|Sigma| + 1)`` float64, ``A = sum_{k<n} |Sigma|^k``), the
    largest model's weights (``W_QK`` and ``W_V`` are ``D x D`` per head, ``D ~ A``; the MLP is
    ``units x D`` twice) and the largest batch's activations in the equivalence check (up to
    4,096 strings of ``n - 1 + L`` positions, ``D`` wide, with ``H`` attention maps of ``N^2``).
    Time: one compilation (:data:`SECONDS_PER_COMPILE`) per string length checked and per length
    scanned, per model, plus the arithmetic at 1e9 multiply-adds per second.

    Pure float arithmetic in closed forms (``A = (|Sigma|^n - 1) / (|Sigma| - 1)``), so an
    ``order`` or ``max_len`` of 10^12 costs nothing to estimate; ``inf`` beyond float range.
    """
    S, n = settings.alphabet, settings.order
    w, V = n - 1, S + 1
    A = _geometric(S, n)
    D = V + 2 * (2 * w + 1) + w * (1 + V) + w * V + A  # the widest layout (3.3-slots)
    heads = w
    units = A * w
    weights = 8.0 * (2 * heads * D * D + 2 * units * D + V * D)
    N = w + settings.max_len
    strings = min(_geometric(S, settings.max_len + 1), 50_000.0 * (settings.max_len + 1))
    batch = min(4096, max(min(_power(S, settings.max_len), 50_000), 2_000))
    acts = 8.0 * batch * (N * (D + units) * (w + 1) + heads * N * N)
    memory = table_bytes(S, n) + weights + acts
    soft = settings.attention == "softmax"
    models = len(settings.constructions) * (1 if soft else len(settings.precisions))
    scans = 0 if soft else settings.scan_limit + 1
    lengths = settings.max_len + 1 + scans
    evaluations = 1
    if soft:
        # the soft study: 7 betas and a ~12-step bisection per soft length, each over every
        # string up to the length (the shapes repeat, so they compile once per length)
        lengths += max([*settings.soft_lengths, settings.max_len]) + 2
        evaluations += len(SOFT_BETAS) + 12 * len(settings.soft_lengths)
    flops = models * (
        evaluations * strings * N * D * (D + units) * (w + 1) + scans * (w + scans) ** 2 * D
    )
    seconds = models * lengths * SECONDS_PER_COMPILE + flops / 1e9
    return memory, seconds


def model_record(lm: Any, construction: str, precision: str, settings: Settings) -> dict:
    """One construction of ``lm`` in one precision, checked: a JSON-ready record.

    Keys: the settings it was built with (``construction``, ``attention``, ``precision``,
    ``order``, ``alphabet``, ``max_len``, ``beta``), its shape (``heads``, ``width``,
    ``mlp_hidden``; the paper's 3.3: one head, no :class:`~transformer_theory.params.ModelConfig`),
    :func:`.equivalence.equivalence_record`'s keys, and then -- hard/sparse -- ``scan``
    (:func:`.precision_scan.selection_scan` or :func:`.precision_scan.paper33_scan`) with
    ``predicted_exact_length`` (:func:`.precision_scan.predicted_exact_length`; None for the
    paper's 3.3, which has no derived bound), or -- softmax -- ``kl`` (:func:`.soft.soft_kl` at
    ``beta``).

    Float64 needs ``jax_enable_x64`` (:func:`run` sets it).
    """
    from transformer_theory.papers.svete_cotterell2024 import constructions as cn
    from transformer_theory.papers.svete_cotterell2024 import equivalence, precision_scan, soft
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
    ``beta`` with KL ``<= target_kl`` at each of ``soft_lengths``, :func:`.soft.beta_for_kl`;
    None where even ``2^20`` does not reach it)."""
    from transformer_theory.papers.svete_cotterell2024 import soft
    from transformer_theory.progress import tqdm

    rows = []
    for construction in tqdm(
        constructions, desc="softmax beta", unit="construction", disable=not progress or None
    ):
        curve = [{"beta": b, "kl": soft.soft_kl(lm, construction, b, max_len)} for b in SOFT_BETAS]
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


def float64_failures(records: list[dict]) -> list[dict]:
    """The hard or sparse records in float64 that are not weakly equivalent: where Theorems
    3.1-3.3 claim exactness and the check found none (a lower precision that breaks is a
    measurement, not a failure; softmax is exact only as ``beta -> inf``)."""
    return [
        r
        for r in records
        if r["precision"] == "float64" and r["attention"] != "softmax" and not r["equivalent"]
    ]


def _save(path: str, settings: Settings, records: list, soft, complete: bool) -> str:
    result = {"complete": complete, "settings": dataclasses.asdict(settings), "records": records}
    if soft is not None:
        result["soft"] = soft
    write_json(path, result)
    return path


def run(settings: Settings, out_dir: str | None = None, *, progress: bool = False) -> dict:
    """Every record of ``settings`` (:func:`model_record` per construction and precision, then
    :func:`soft_study` with softmax attention).

    With ``out_dir``: an earlier run's :data:`OUTPUTS` there are removed first (they must not
    stand beside this run's), ``ngram.json`` is written at the start and after every record with
    ``complete: false`` (so an interrupted run leaves the records done so far, never an earlier
    run's file), then the figures (:func:`.plots.precision_figure`, :func:`.plots.soft_figure`)
    and ``ngram.json`` with ``complete: true``.

    Sets ``jax_enable_x64`` (float64 is one of the formats compared).

    Returns:
      ``{"complete": True, "settings", "records", "soft"}`` (``soft`` None without softmax).
    """
    import jax

    from transformer_theory.papers.svete_cotterell2024 import plots
    from transformer_theory.papers.svete_cotterell2024.tasks import NGramLM
    from transformer_theory.progress import tqdm

    path = None
    if out_dir is not None:
        for name in OUTPUTS:
            if os.path.exists(os.path.join(out_dir, name)):
                os.remove(os.path.join(out_dir, name))
        path = os.path.join(out_dir, "ngram.json")
    records: list[dict] = []
    soft = None
    if path:
        _save(path, settings, records, None, complete=False)
    jax.config.update("jax_enable_x64", True)
    lm = NGramLM.random(
        settings.seed, settings.alphabet, settings.order, zero_fraction=settings.zero_fraction
    )
    jobs = [(c, p) for c in settings.constructions for p in settings.precisions]
    for construction, precision in tqdm(
        jobs, desc="ngram", unit="model", disable=not progress or None
    ):
        records.append(model_record(lm, construction, precision, settings))
        if path:
            _save(path, settings, records, None, complete=False)
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
        _save(path, settings, records, soft, complete=True)
    return {
        "complete": True,
        "settings": dataclasses.asdict(settings),
        "records": records,
        "soft": soft,
    }


def table_rows(result: dict) -> list[dict]:
    """The records of :func:`run` as the rows of the command's table, one per model
    (``exact_to``: the scan's longest exact length, ``>=L`` when no length up to the scan's
    limit ``L`` failed, -1 when even the empty string fails; ``derived``: the derived guarantee,
    None where there is none)."""
    rows = []
    for r in result["records"]:
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


def soft_table_rows(result: dict) -> list[dict]:
    """The soft study of :func:`run` as table rows: one per construction and soft length, with
    the ``beta`` the target KL needs (None where ``2^20`` does not reach it)."""
    return [
        {
            "construction": s["construction"],
            "length": need["length"],
            "target_kl": s["target_kl"],
            "beta_needed": need["beta"],
        }
        for s in result.get("soft") or []
        for need in s["beta_needed"]
    ]


#: The files :func:`space_study` writes into its output directory.
SPACE_OUTPUTS: tuple[str, ...] = ("ngram_space.json", "ngram_space.png")
#: The most histories ``A = sum_k |Sigma|^k`` :func:`space_study` builds for (the dense ``W_QK``
#: and ``W_V`` hold ``(n - 1) D^2`` numbers, ``D > A``).
SPACE_MAX_HISTORIES = 2000


def space_study(
    orders: tuple[int, ...] | list[int],
    alphabets: tuple[int, ...] | list[int],
    out_dir: str | None = None,
    *,
    seed: int = 0,
) -> dict:
    """:func:`.space.space_table` over ``orders x alphabets`` (every construction), with
    ``out_dir`` written to ``ngram_space.json`` and drawn to ``ngram_space.png``
    (:func:`.plots.space_figure`). ``ValueError`` naming the argument when a size has more than
    :data:`SPACE_MAX_HISTORIES` histories.

    Returns:
      ``{"records", "all_match", "within_printed"}``: the records, and whether every model's
      counts equal the closed forms and stay within the printed heads and layers.
    """
    from transformer_theory.papers.svete_cotterell2024 import plots, space
    from transformer_theory.papers.svete_cotterell2024.tasks import num_histories

    for name, values in (("orders", orders), ("alphabets", alphabets)):
        if not values:
            raise ValueError(f"{name}: expected at least one value")
    if min(orders) < 2:
        raise ValueError(f"orders: the constructions need n >= 2, got {min(orders)}")
    _validate.check_positive("alphabets", min(alphabets))
    if num_histories(max(alphabets), max(orders)) > SPACE_MAX_HISTORIES:
        raise ValueError(
            f"orders/alphabets: |Sigma| = {max(alphabets)}, n = {max(orders)} has "
            f"{num_histories(max(alphabets), max(orders))} histories, more than "
            f"{SPACE_MAX_HISTORIES} (the dense attention arrays grow with their square)"
        )
    records = space.space_table(tuple(orders), tuple(alphabets), seed=seed)
    result = {
        "records": records,
        "all_match": all(r["matches"] for r in records),
        "within_printed": all(r["within_printed"] for r in records),
    }
    if out_dir is not None:
        write_json(os.path.join(out_dir, "ngram_space.json"), result)
        plots.space_figure(records, os.path.join(out_dir, "ngram_space.png"))
    return result


def space_table_rows(result: dict) -> list[dict]:
    """The records of :func:`space_study` as the command's table rows (``exact_to``: the derived
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
        for r in result["records"]
    ]
