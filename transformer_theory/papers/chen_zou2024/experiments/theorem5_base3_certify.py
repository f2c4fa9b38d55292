"""Certify Theorem 5's single-head construction in the paper's base 3 (Chen & Zou 2024, §14.2):
distinct templates get distinct layer-2 vectors, for every template length ``l`` up to a bound.

No proof is known for base 3 (``transformer_theory.constructions.templates`` proves base
``B >= l + 4``). Coordinate ``r < l`` of the layer-2 last stream is::

    v_r = 3^(l-1-r) + f(C(r)),   f(C) = (2 + |C|) S_C,   S_C = sum_{j in C} 3^(l-1-j),

``C(r)`` the positions that share ``r``'s wildcard
(:func:`~transformer_theory.constructions.templates.template_code`; the tests compare it with the
model's streams). Three certificates, all in exact integer arithmetic:

1. ``blocks``: ``f`` is injective on the non-empty subsets of ``{0, ..., L-1}``. That implies
   distinct vectors for every ``l <= L`` (two templates with the same vector would need
   ``f(C(r)) = f(C'(r))`` with ``C(r) != C'(r)`` for some ``r``). With exponent sets ``E``, ``E'``
   (``S = sum_{e in E} 3^e``) of sizes ``m < m'`` a collision is ``(2+m) S_E = (2+m') S_E'``;
   a carry automaton reads the base-3 digits of both sides from the lowest (``a_e = [e in E]``,
   ``b_e = [e in E']``): the carry ``c`` must satisfy ``c + (2+m) a_e - (2+m') b_e = 0 mod 3`` and
   become ``(c + ...) / 3``; a collision exists iff the state ``(carry 0, m ones, m' ones)`` is
   reachable after ``L`` digits. ``|carry| <= max(2+m, 2+m')`` throughout, so the state space is
   finite: ``O(L^6)`` work for all pairs ``(m, m')`` instead of ``2^L`` subsets.
2. ``sort``: the same statement by brute force (all ``2^L - 1`` values of ``f``, sorted), to
   cross-check the automaton where both reach.
3. ``direct``: every template of length ``l`` (all Bell(l) restricted growth strings), its vector
   ``v`` computed exactly (int64, no overflow below ``l = 36``), all distinct; and for small ``l``
   the library's own :func:`~transformer_theory.constructions.templates.template_code` and the
   built model's float64 streams agree with it.

Command (2 CPU cores, idle)::

    python experiments/theorem5_base3_certify.py --out results/theorem5_base3
    transformer-theory experiment theorem5_base3_certify --out results/theorem5_base3  # the same

Result (2 x86-64 cores shared with other jobs, load ~1): ``blocks`` certifies every ``L <= 33``
and finds the first collision at ``L = 34``: ``E`` (18 exponents) and ``E'`` (24 exponents) with
``20 S_E = 26 S_E'`` (both sides 152,359,720,173,206,000), so the block certificate covers
``l <= 33`` and no longer holds from ``l = 34`` (1.6 s); ``sort`` agrees with the automaton for
every ``L <= 24`` (7.1 s); ``direct`` finds all vectors distinct for every ``l <= 12``
(4,213,597 templates at ``l = 12``; 8.5 s); the model's streams equal the formula for every
``l <= 8`` (4.6 s). Total 22 s wall. Whether two whole templates of length ``>= 34`` collide is
open (the collisions of ``f`` would have to line up over every block of both templates); float64
stops holding the vectors exactly beyond ``l = 30`` anyway.

``--size smoke`` runs tiny bounds in a second (used by the tests). The study
(:mod:`.._study_theorem5_base3_certify`) writes ``theorem5_base3_certify.json`` (the
:class:`~transformer_theory.constructions.base3.Base3Certificate`); it computes in float64
(``X64``).
"""

from __future__ import annotations

import dataclasses

from transformer_theory.settings import check_minimums, setting

__all__ = ["SIZES", "X64", "Base3CertifySettings", "get_config"]

SIZES = ("smoke", "default")
X64 = True  # the model's streams are compared in float64


@dataclasses.dataclass(frozen=True)
class Base3CertifySettings:
    """The bounds each of the four checks runs to.

    Attributes:
      blocks: certify f on the subsets of {0..L-1}.
      sort: brute-force cross-check up to this L.
      direct: enumerate all templates up to this l.
      model: compare with the model up to this l.
    """

    blocks: int = setting(33, positive=True)
    sort: int = setting(24, positive=True)
    direct: int = setting(12, positive=True)
    model: int = setting(8, positive=True)

    def __post_init__(self) -> None:
        check_minimums(self)


def get_config(size: str = "default") -> Base3CertifySettings:
    """``"default"``: the bounds measured above; ``"smoke"``: tiny bounds (a test runs it)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    if size == "smoke":
        return Base3CertifySettings(blocks=12, sort=10, direct=7, model=4)
    return Base3CertifySettings()
