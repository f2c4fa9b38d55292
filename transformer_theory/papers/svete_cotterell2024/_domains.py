"""The domains Svete & Cotterell 2024's statements (and the library's about them) quantify over,
as :mod:`transformer_theory.domains` objects shared by the rows (:mod:`.claims`) and the checks
(:mod:`._checks`), which count what they evaluated in a
:class:`~transformer_theory.domains.Tally` of a sub-domain derived from these.

"For every n-gram LM, there exists a weakly equivalent transformer LM" quantifies over every
n-gram LM, whose conditional probabilities are real numbers (a continuum: checked on seeded
random LMs, i.e. samples), and is existential in the transformer (the paper's construction is
the candidate; a failed candidate refutes nothing)."""

from __future__ import annotations

from transformer_theory.domains import Continuum, Enumerated, Exists, Family, Product, Record


def _size(name: str, what: str):
    return lambda n: Enumerated(f"{name} = {n}", (n,), what=what)


#: Every n-gram LM: every order n, alphabet and real conditional probabilities.
NGRAM_LMS = Continuum(
    "every n-gram LM (every order n, alphabet Sigma and real conditional probabilities)"
)
#: Theorems 3.1-3.3: for every n-gram LM there exists a weakly equivalent transformer LM.
EQUIVALENT_TRANSFORMER = Exists(
    "a weakly equivalent ({hard, sparse} attention) transformer LM of the printed shape "
    "(candidate: the construction as built)",
    NGRAM_LMS,
)
#: The string lengths L = 0, 1, ... (each member: every string of that length).
LENGTHS = Family("L", _size("L", "string length"), start=0, what="string lengths L (every string)")
#: The query positions t = 1, 2, ... of a positional code (each member: every key at t).
QUERIES = Family("t", _size("t", "query position"), start=1, what="query positions t (every key)")
#: The offsets h = 1, 2, ... of a head.
OFFSETS = Family("h", _size("h", "offset"), start=1, what="head offsets h")
#: "Maximized when t = j + h": every offset h and every query t (every key j <= t).
OFFSET_QUERIES = Product(OFFSETS, QUERIES)
#: The n-gram order n = 2, 3, ... and the alphabet size |Sigma| = 1, 2, ...
ORDERS = Family("n", _size("n", "order"), start=2, what="orders n")
ALPHABETS = Family("|Sigma|", _size("|Sigma|", "alphabet size"), start=1, what="alphabet sizes")
#: The printed shapes (heads, layers) for every (n, |Sigma|).
PRINTED_SHAPES = Exists(
    "a weakly equivalent transformer LM with the printed layers and heads (candidate: the "
    "paper's 3.1, 3.2, 3.3 as built for a random LM)",
    Product(ORDERS, ALPHABETS),
)
#: The committed learnability record.
LEARNABILITY_RECORD = Record(
    "experiments/results/ngram_learnability.json",
    "transformer-theory experiment ngram_learnability",
)
