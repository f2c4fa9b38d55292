"""The domains Sanford, Hsu & Telgarsky 2023's statements quantify over, as
:mod:`transformer_theory.domains` objects shared by the rows (:mod:`.claims`) and their checks
(:mod:`._checks`): each check counts what it evaluated in a
:class:`~transformer_theory.domains.Tally` of a sub-domain derived from these, so the coverage
word and the quantifier follow from the objects, never from a row's words.

The sizes of a theorem ("For all q, N, any m ... any eps in (0, 1)") are families with an
unbounded size parameter and a continuum; an existence statement ("there exists a
self-attention unit f") is an :class:`~transformer_theory.domains.Exists` whose candidate witness
is the library's construction (a failed candidate refutes nothing).
"""

from __future__ import annotations

from transformer_theory.domains import (
    Continuum,
    Enumerated,
    Exists,
    Family,
    Product,
    Strings,
    Trained,
)


def _size(name: str, what: str):
    return lambda n: Enumerated(f"{name} = {n}", (n,), what=what)


#: The sparsity q = 1, 2, ... of q-sparse averaging (each member: the one value q).
Q_SPARSITY = Family("q", _size("q", "sparsity"), start=1, what="sparsities q")
#: The sequence length N = 2, 3, ...
SEQ_LEN = Family("N", _size("N", "length"), start=2, what="sequence lengths N")
#: The vocabulary size M = 2, 3, ... of Match2 ("M = N^O(1)": every M is N^c for some c).
VOCAB = Family("M", _size("M", "vocabulary size"), start=2, what="vocabulary sizes M")
#: The approximation eps of the qSA theorem: "any eps in (0, 1)".
EPS = Continuum("every eps in (0, 1)")

#: The qSA theorem's parameters: every q, every N, every eps in (0, 1) (and any m above the
#: threshold, read at one m per size: README's m_min).
QSA_PARAMS = Product(Q_SPARSITY, SEQ_LEN, EPS)
#: Sanford et al. 2023 Theorem 2: for all q, N, eps there exists a unit that eps-approximates qSA.
QSA_UNIT = Exists(
    "a self-attention unit f in A_{m,m,d',p} Phi_{d,m,p} that eps-approximates q-SA on every "
    "input (candidate: the library's qsa.qsa_construction, seed 0, at README's m_min)",
    QSA_PARAMS,
)
#: The qSA sizes alone (q, N): the library's own statements at eps = 0.1 quantify over them.
QSA_SIZES = Product(Q_SPARSITY, SEQ_LEN)
#: The proof step: for all q, N, eps there exist rounded w~ keeping the unit within eps.
QSA_ROUNDED = Exists(
    "rounded weights w~ within eps/(4 alpha) of w that keep the unit within eps of q-SA "
    "(candidate: w rounded to p fraction bits)",
    QSA_PARAMS,
)

#: The restricted isometry and orthogonality property's vectors, for a matrix U.
RIP_VECTORS = Continuum(
    "every v, v' in R^N with |supp(v)| = q, |supp(v')| <= 2q (for a U in R^{m x N})"
)
#: "A matrix U satisfies the (q, delta) property if ...": the proof needs such a U (delta = 1/4).
RIP_MATRIX = Exists("a matrix U in R^{m x N} with the (q, 1/4) property", RIP_VECTORS)

#: Sanford et al. 2023 Theorem 6: for any N, M there exists a one-unit transformer with m = 3
#: that computes Match2 on every X in [M]^N.
MATCH2_UNIT = Exists(
    "a transformer with one self-attention unit f in Phi_{m,1,p} A_{m,m,m,p} Phi_{1,m,p}, "
    "m = 3, with f(X) = Match2(X) for every X in [M]^N (candidate: the library's "
    "match2.match2_construction, c = M^2 log 6N)",
    Product(SEQ_LEN, VOCAB),
)
#: The Match units' sizes (N, M).
MATCH_SIZES = Product(SEQ_LEN, VOCAB)
#: The window K = 1, 2, ... of Match3Local.
WINDOW = Family("K", _size("K", "window"), start=1, what="windows K")
#: "There exists a transformer architecture f with depth D=2, embedding dimension m=3 such that
#: for all X, f(X)=Match3Bigram(X)" (every N, M).
MATCH3BIGRAM_UNIT = Exists(
    "a transformer f of depth 2 and embedding dimension 3 with f(X) = Match3Bigram(X) for all X "
    "(candidate: the library's match3.match3bigram_construction)",
    MATCH_SIZES,
)
#: "There exists a transformer architecture f with depth D=1, embedding dimension m=O(K log N)
#: such that for all X, f(X)=Match3Local(X)" (every N, M, K).
MATCH3LOCAL_UNIT = Exists(
    "a one-layer transformer f of embedding dimension O(K log N) with f(X) = Match3Local(X) for "
    "all X",
    Product(SEQ_LEN, VOCAB, WINDOW),
)
#: Sanford et al.'s Match3 impossibility: for sufficiently large N, any M >= N + 1, and the
#: unspecified constant c.
MATCH3_ONE_LAYER = Product(SEQ_LEN, VOCAB)

#: "Every multi-layer transformer that computes Match3 must have ...": every model, every N.
MATCH3_CONJECTURE = Continuum("every multi-layer transformer computing Match3, at every N")


def _disj_pairs(q: int) -> Product:
    bits = Strings((0, 1), [q], what="bit string")
    return Product(bits, bits)


#: Every pair (a, b) of q-bit strings, for every q >= 1: the reduction from set disjointness.
DISJ_PAIRS = Family("q", _disj_pairs, start=1, what="pairs (a, b) of q-bit strings")

#: The measurements (training runs) of the lower bounds and the separation.
TRAINED_QSA_ATTENTION = Trained("softmax units trained now on qSA, N = 9, q = 4, query at p bits")
TRAINED_FNN = Trained("ReLU networks trained now on qSA, N = 16, q = d' = 1")
TRAINED_RNN = Trained("two-pass GRUs trained now on qSA, N = 8, state at p bits")
TRAINED_SEPARATION = Trained("a softmax unit, a ReLU network and a GRU trained now on qSA")
TRAINED_MATCH = Trained("one-layer transformers trained now by the match_width experiment")
