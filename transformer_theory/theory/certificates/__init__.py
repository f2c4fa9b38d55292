"""Certificates that no one-layer model classifies a finite labelled dataset, and accuracy bounds.

Chen & Zou 2024, §11 (Definition 3, Propositions 7-8), §13.1 (Theorem 2), §14.1 (Theorem 4, Lemma 6)
and
§16 (Propositions 9-10) all rest on one fact, which this module turns into a linear program.

**Why a linear program.** Fix the last token ``t`` shared by a group of sequences and write
``c_i in {0,1}^(N*V)`` for the flattened one-hot sequence ``i`` (its per-position token counts,
``dependence.position_counts``). In ONE attention layer the last query ``x_{n-1}`` is the same for
the whole group, so key ``j`` contributes a term that depends only on ``(token_j, j)``:

- ReLU attention, any number ``m`` of heads (eq. 6-8, Prop. 7-8):
  ``o_i = W_O x_{n-1} + (1/m) sum_h sum_j W_O W_V^h x_j relu(x_j^T W_QK^h x_{n-1})``, a sum over
  positions of a function of ``(token_j, j)``; hence ``o_i = M_t c_i`` for a matrix ``M_t`` (the
  constant part ``W_O x_{n-1}`` is absorbed by the last position's block of ``c_i``, which is the
  same one-hot for every sequence of the group). The same holds for any positional code whose last-
  query score depends on the key position alone, and for token-wise norms before attention.
- Softmax attention, ONE head (eq. 18, Prop. 9-10): ``Z_i o_i = M_t c_i`` with
  ``Z_i = sum_j exp(s(token_j, j)) = z_t . c_i > 0``. Multiplying a logit vector by ``Z_i > 0``
  keeps its argmax and the sign of every margin ``o_i[y_i] - o_i[c]``. So "this softmax model
  classifies every example" implies "``M_t`` classifies every ``c_i``" too, and the SAME linear
  program covers this family. (With several softmax heads each head has its own ``Z``; no common
  positive factor exists and the argument -- and this certificate -- does not apply.)

Therefore, if some model of the family classifies every example (``o_i[y_i] > o_i[c]`` for all
``c != y_i``; ties count as errors), then for every group there is ``M_t`` with
``(M_t c_i)[y_i] - (M_t c_i)[c] > 0``, and by scaling ``M_t`` (the constraints are homogeneous)
``>= 1``. The relaxation is:

    P_t:  find M_t  with  (e_{y_i} - e_c)^T M_t c_i >= 1   for every i in group t, c != y_i.

This is the linear program ``{o_i[y_i] >= o_i[c] + 1; sum_i lambda_i o_i = 0 for every dependence
lambda}``
in the parametrization ``o_i = M_t c_i``: the outputs satisfying every dependence are exactly the
column space of ``C_t``. Groups with different last tokens share no constraint (the query differs),
so the program splits by group. Classes that never label an example of a group are dropped there
(their outputs can be pushed below everything with the constant last-position feature).

**The certificate (Farkas' lemma).** ``P_t`` is infeasible iff there are multipliers
``u_{i,c} >= 0`` (``c != y_i``), not all zero, such that ``G = sum u_{i,c} e_i (e_{y_i} - e_c)^T``
satisfies ``C_t^T G = 0``: every column ``G[:, k]`` is a *dependence* (Def. 3) -- one relation per
class, with ``G[i, y_i] >= 0``, ``G[i, c] <= 0`` otherwise and zero row sums. Indeed for
``o_i = M c_i``: ``sum_{i,c} u_{i,c} (o_i[y_i] - o_i[c]) = sum_k G[:, k] . O[:, k] =
trace(G^T C M^T) = 0``, while all-correct outputs make the left side ``> 0``. The toy set of §13.1
gives ``u = 1`` on the four wrong answers and ``G[:, x] = (1, 1, -1, -1) = -G[:, y]``: the paper's
``o0 + o1 = o2 + o3`` argument (eq. 14-16) verbatim. HiGHS returns a floating-point ``u``; it is
turned into an integer vector by solving exactly on its support (python-flint), and then re-verified
exactly by :func:`check_certificate` (integers only). A feasible ``P_t`` gives "no certificate",
which proves NOTHING about the family: the relaxation allows every ``M_t``, the family does not.

**Accuracy upper bound.** A subset ``S`` of a group can all be correct only if ``P_t`` restricted
to ``S`` is feasible; an infeasible subset (a *core*, certified as above) forces at least one
error. The best accuracy of the relaxation is therefore ``|D| - min hitting set of all cores``.
A direct mixed-integer program with big-M indicator constraints would need a bound on ``M_t``
that the scale-invariant constraints do not provide (any bound valid for all datasets is
astronomically large and numerically meaningless), so the exact method (``method="exact"``) is an
implicit-hitting-set loop instead: a MILP (``scipy.optimize.milp``, 0/1 variables and integer
data, no big-M) finds a minimum set ``H`` hitting every core found so far; if ``P_t`` on the rest
is feasible (the separating ``M_t`` is verified exactly in rationals) the optimum is reached,
otherwise new cores are extracted from the rest and the loop repeats. Every intermediate value is
already a sound upper bound. The sound method (``method="sound"``) packs disjoint cores greedily
(each example seeds an L1-minimal Farkas LP; large groups are packed inside windows of sorted
sequences first): ``k`` disjoint certified cores force ``k`` errors. Both bound what a model of the
family can
reach; "exact" means exact for the relaxation, which may exceed what the family really attains.

Modules: :mod:`.records` (what the functions return), :mod:`.inputs` (validation, the relaxation's
sparse matrix per last-token group), :mod:`.exact` (integer and rational re-verification),
:mod:`.programs` (the HiGHS linear programs and core extraction), :mod:`.api` (the public
functions below). Shape letters as in :mod:`transformer_theory.glossary` (``B`` examples, ``N``
length, ``V`` vocabulary, ``P`` count features -- the (position, token) pairs that occur -- and
``C`` classes of a group).
"""

from transformer_theory.theory.certificates.api import accuracy_upper_bound, certify_dataset
from transformer_theory.theory.certificates.exact import check_certificate
from transformer_theory.theory.certificates.inputs import contradictory_rows
from transformer_theory.theory.certificates.records import (
    FAMILIES,
    BoundRecord,
    Certificate,
    CertificateRecord,
    GroupResult,
)

__all__ = [
    "FAMILIES",
    "BoundRecord",
    "Certificate",
    "CertificateRecord",
    "GroupResult",
    "accuracy_upper_bound",
    "certify_dataset",
    "check_certificate",
    "contradictory_rows",
]
