"""The checked constructions of Sanford, Hsu & Telgarsky 2023, as settings: what
``transformer-theory sanford`` checks (:class:`SanfordSettings`, one field per option) and the
sizes of ``transformer-theory experiment sanford`` (:func:`get_config`). The study that builds each
unit, checks it against the exact task, records and plots is :mod:`.._study_sanford` (its
``run``, with its tables and verdict); the trained Match3
sizes that ``disj``'s bound table rows are read from the ``match_width`` experiment's configs
(:func:`match3_trained`). Commands::

    transformer-theory sanford --task qsa --n 8,16 --q 1,2 --eps 0.1 --out results/sanford
    transformer-theory sanford --task disj --q 1,2,3,4 --out results/disj
    transformer-theory experiment sanford --size smoke

The ``default`` size is the command's defaults (every unit at ``N = 4, 8, 16``, 100,000 samples:
minutes on 2 CPU cores); ``smoke`` checks Match2 and qSA at ``N = 4`` in seconds. Needs JAX's
64-bit mode (float64 is one of the formats compared). Writes one JSON record per configuration
(``<task>_N<N>_....json``), all of them to ``sanford.json``, ``disj.json`` and the figures.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.papers.sanford2023 import _constructions_registry as registry
from transformer_theory.settings import setting

__all__ = [
    "TASKS",
    "SIZES",
    "SanfordSettings",
    "get_config",
    "match3_trained",
]

#: Every name ``--task`` accepts: the checked units, then ``disj`` (the lower bound's reduction).
TASKS: tuple[str, ...] = (*registry.NAMES, "disj")
#: ``disj`` checks all ``4^q`` pairs exactly: ``q = 6`` is 4,096 pairs.
DISJ_MAX_Q = 6
SIZES = ("smoke", "default")
#: The study computes in float64: its entry points turn JAX's 64-bit mode on.
X64 = True


def _repeated(values) -> list:
    return sorted({v for v in values if list(values).count(v) > 1})


def match3_trained() -> tuple[tuple[str, int, int, int, int, int], ...]:
    """Every size of the trained one-layer Match3 models of the ``match_width`` experiment
    (``p = 32``, float32 words): ``(source, N, m, p, H, M)``, where ``disj`` shows Match3's
    one-layer bound binds beside the Match3Local units
    (:func:`.._theory_disjointness.match3_bound_table`)."""
    from transformer_theory.papers.sanford2023.experiments import match_width

    trained = []
    for size in match_width.SIZES:
        cfg = match_width.get_config(size)
        if "match3" in cfg.tasks:
            trained += [
                (f"match_width {size}", cfg.seq_len, m, 32, h, cfg.modulus)
                for h in cfg.heads
                for m in cfg.widths
            ]
    return tuple(trained)


@dataclasses.dataclass(frozen=True)
class SanfordSettings:
    """What one ``transformer-theory sanford`` run checks (its options, one field each).

    Attributes:
      tasks: comma list of qsa, match2, match3bigram, match3local, match3local1, disj or 'all'.
      ns: lengths N (comma list).
      qs: qSA and disj: sparsities q (comma list).
      epss: qSA: accuracies eps in (0, 1) (comma list).
      dim: qSA: d', width of the z_i.
      modulus_power: Match: M = max(N^power, 4) (N^2 by default, the issue's M = N^2).
      window: Match3Local: window K.
      samples: sampled inputs where the input space is larger.
      seed: seed of the drawn matrix and the samples.
      match3_trained: disj: the trained one-layer Match3 sizes its bound table rows
        (:func:`match3_trained`; not an option).
    """

    tasks: tuple[str, ...] = setting(TASKS, flag="--task", metavar="NAMES")
    ns: tuple[int, ...] = setting((4, 8, 16), flag="--n", metavar="N,...")
    qs: tuple[int, ...] = setting((1, 2), flag="--q", metavar="Q,...")
    epss: tuple[float, ...] = setting((0.1,), flag="--eps", metavar="EPS,...")
    dim: int = setting(2, positive=True)
    modulus_power: int = setting(2, positive=True)
    window: int = 2
    samples: int = setting(100_000, positive=True)
    seed: int = 0
    match3_trained: tuple[tuple[str, int, int, int, int, int], ...] = setting(
        option=False, factory=match3_trained
    )

    #: The fields ``--task disj`` alone reads; it refuses the others (they would be ignored).
    DISJ_READS = ("tasks", "qs", "seed")

    def __post_init__(self):
        if tuple(self.tasks) == ("all",):  # the command line's word for every task
            object.__setattr__(self, "tasks", TASKS)
        unknown = [t for t in self.tasks if t not in TASKS]
        if not self.tasks or unknown:
            raise ValueError(
                f"tasks: unknown {', '.join(map(repr, unknown)) or 'empty selection'}; "
                f"choose from {', '.join(TASKS)} or 'all'"
            )
        for name, low in (("ns", 1), ("qs", 1)):
            values = getattr(self, name)
            if not values or min(values) < low:
                raise ValueError(f"{name}: expected integers >= {low}, got {list(values)}")
            if repeated := _repeated(values):  # each configuration would run twice
                raise ValueError(f"{name}: {', '.join(map(str, repeated))} given more than once")
        if not self.epss or any(not 1e-12 <= v < 1.0 for v in self.epss):
            raise ValueError(f"epss: every value must be >= 1e-12 and < 1.0, got {list(self.epss)}")
        for name, low in (("dim", 1), ("modulus_power", 1), ("window", 0), ("samples", 1)):
            _validate.check_int_arg(name, getattr(self, name), low)
        _validate.check_seed("seed", self.seed)
        if "disj" in self.tasks and max(self.qs) > DISJ_MAX_Q:
            q = max(self.qs)
            # the count written out only while it is short (4^q of a huge q would take forever)
            pairs = f"{4**q:,}" if q <= 40 else f"4^{q}"
            times = f"{4 ** (q - DISJ_MAX_Q):,}" if q <= 40 else f"4^{q - DISJ_MAX_Q}"
            raise ValueError(
                f"qs: disj checks all 4^q pairs exactly: q = {q} is {pairs} pairs, {times} times "
                f"the {4**DISJ_MAX_Q:,} of q = {DISJ_MAX_Q} (the largest allowed); expected "
                f"q <= {DISJ_MAX_Q}"
            )
        if "qsa" in self.tasks and max(self.qs) >= min(self.ns):
            raise ValueError(
                f"qs: every q must be < every N (N = {list(self.ns)}, q = {list(self.qs)})"
            )
        if any(t.startswith("match3") for t in self.tasks) and min(self.ns) < 2:
            raise ValueError("ns: Match3Bigram needs N >= 2")

    @property
    def units(self) -> tuple[str, ...]:
        """The checked units of :attr:`tasks` (every task but ``disj``)."""
        return tuple(t for t in self.tasks if t != "disj")


def get_config(size: str = "default") -> SanfordSettings:
    """The settings of ``size`` (:data:`SIZES`): ``"smoke"`` checks qSA and Match2 at ``N = 4``
    in seconds, ``"default"`` is the command's defaults."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    if size == "smoke":
        return SanfordSettings(tasks=("qsa", "match2"), ns=(4,), qs=(1,), samples=200)
    return SanfordSettings()
