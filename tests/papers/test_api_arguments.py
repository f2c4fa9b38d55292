"""Issue 40: the newer papers' public functions refuse bad arguments with a ``ValueError`` whose
message starts with the argument's name, before any work: no NaN returned, no division by zero,
no ``RecursionError``, no enumeration without a limit, no ``TypeError`` or NumPy error that names
nothing."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory import _validate, budget
from transformer_theory.papers import sanford2023
from transformer_theory.papers.barbero2024 import _theory_oversquash as oversquash
from transformer_theory.papers.conti2024 import _theory_linformer as linformer
from transformer_theory.papers.formal_languages import (
    _constructions_counters,
    _constructions_dyck_k,
    _tasks_counters,
    _theory,
    _theory_counters,
)
from transformer_theory.papers.peng2024 import _models as peng_models
from transformer_theory.papers.peng2024 import _models_cot as cot
from transformer_theory.papers.peng2024 import _models_training as training
from transformer_theory.papers.peng2024 import _tasks as peng_tasks
from transformer_theory.papers.sanford2023 import _constructions_match2 as match2
from transformer_theory.papers.sanford2023 import _constructions_match3 as match3
from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa
from transformer_theory.papers.sanford2023 import _tasks as tasks
from transformer_theory.papers.sanford2023 import _theory_costs as sf_costs
from transformer_theory.papers.sanford2023 import _theory_disjointness as dj
from transformer_theory.papers.sanford2023 import _theory_message as message
from transformer_theory.papers.sanford2023 import _theory_rip as rip

P4 = np.full((4, 4), 0.25)
# what errors reads of a CompositionTransformer before running it (building one takes seconds)
MODEL = SimpleNamespace(embed=SimpleNamespace(num_embeddings=12), position=np.zeros((5, 1)))

CASES = [
    # (call, the argument the message must start with)
    (lambda: tasks.qsa_target(np.ones((1, 2, 1)), np.zeros((1, 2, 2), bool)), "members_BxNxK"),
    (lambda: _constructions_dyck_k.dyck_k_recognizer(1, 1, dtype=jnp.int32), "dtype"),
    (lambda: _constructions_dyck_k.dyck_k_recognizer(1, 1, dtype="nonsense"), "dtype"),
    (lambda: message.unpack_message("0101", 0), "bits"),
    (lambda: message.pack_message(np.zeros(2, int), 0), "bits"),
    (lambda: dj.protocol_record(1, None, 1), "bits"),
    (lambda: dj.protocol_record(1, 0, None), "rows"),
    (lambda: tasks.all_inputs(2.5), "q"),
    (lambda: tasks.all_inputs(40), "q"),
    (lambda: dj.reduction_record(25), "q"),
    (lambda: dj.reduction_record(2, dim=0), "dim"),
    (
        lambda: _theory_counters.exact_check(
            _constructions_counters.counter_recognizer(_tasks_counters.machine("anbn")), "anbn", 40
        ),
        "max_length",
    ),
    (
        lambda: peng_models.errors(MODEL, np.full((1, 5), 999), np.zeros(1)),
        "tokens_BxN",
    ),
    (
        lambda: peng_models.errors(MODEL, np.zeros((2, 5), int), np.zeros(3)),
        "answers_B",
    ),
    (lambda: linformer.jl_projection(0, 2.5, 8), "rank"),
    (lambda: linformer.attention_probs(np.ones((4, 3)), np.ones((4, 2))), "k_NxE"),
    (lambda: linformer.attention_probs(np.full((4, 3), np.nan), np.ones((4, 3))), "q_NxE"),
    (lambda: linformer.rank_needed(P4, np.ones(4), float("nan"), 0.1, trials=2), "eps"),
    (lambda: linformer.rank_needed(P4, np.ones(4), 0.1, float("nan"), trials=2), "delta"),
    (lambda: linformer.jl_study(delta=float("nan")), "delta"),
    (lambda: linformer.jl_study(trials=-1), "trials"),
    # the ten (and more) whose errors named no argument or the wrong one
    (lambda: qsa.alpha_scale(-1, 0.1), "seq_len"),  # math domain error
    (lambda: qsa.bits_needed(-1, 4, 0.1), "rows"),  # math domain error
    (lambda: qsa.bits_needed(4, 4, float("nan")), "epsilon"),  # cannot convert NaN
    (lambda: qsa.qsa_construction(-1, 2, 2, 0.1, 4), "seq_len"),  # blamed q
    (lambda: qsa.qsa_construction(8, 2, 2.5, 0.1, 4), "dim"),  # TypeError
    (lambda: match2.match2_scale(-1, 4), "seq_len"),  # math domain error
    (lambda: match3.match3local_scale_log2(4, 4, -1), "window"),  # math domain error
    (lambda: match3.match3local_construction(4, 4, 2.5), "window"),  # TypeError
    (lambda: sf_costs.match_input_count(4, -1, 10), "modulus"),  # math domain error
    (lambda: sf_costs.qsa_bytes(8, -1), "q"),  # "k must be a non-negative integer"
    (lambda: _theory.evaluation_cost(-1, 4), "length"),  # ZeroDivisionError
    (lambda: sanford2023.qsa_record(8, 2, 0.1, seed=-1), "seed"),  # NumPy's message
    (lambda: training.one_layer_records(-1, 1, 4, 1, 1, 1, 0), "n"),  # blamed vocab_size
    (lambda: training.one_layer_records(4, 2.5, 4, 1, 1, 1, 0), "depth"),  # TypeError
    (lambda: peng_tasks.composition_sample(-1, 4, 3), "seed"),  # NumPy's message
    (lambda: peng_tasks.composition_sample(0, 2.5, 3), "num"),  # TypeError
    (lambda: peng_tasks.pair_sample(2.5, 4, 3), "seed"),  # TypeError from SeedSequence
    (lambda: peng_tasks.all_prompts(2, seed=-1), "seed"),
    (lambda: cot.cot_sample(-1, 4, 3, 2), "seed"),
    (lambda: rip.rademacher(0, 2.5, 4), "rows"),  # TypeError
    (lambda: oversquash.causal_path_counts(2.5, 1), "n"),  # TypeError
    (lambda: budget.check_count("q", 4, -1), "limit"),
]


@pytest.mark.parametrize("call, name", CASES, ids=[f"{i}-{n}" for i, (_, n) in enumerate(CASES)])
def test_a_bad_argument_is_a_value_error_naming_it(call, name):
    with pytest.raises(ValueError) as err:
        call()
    message = str(err.value)
    assert message.split(":")[0] == name, message
    assert "\n" not in message


def test_boolexp_membership_is_iterative_and_agrees_with_the_recursive_definition():
    def recursive(s):
        def parse(i):
            if i >= len(s):
                return None
            j = i + 1
            for _ in range(max(s[i] - 1, 0)):
                j = parse(j)
                if j is None:
                    return None
            return j

        return parse(0) == len(s)

    symbols = _tasks_counters.machine("boolexp_3").num_symbols
    for length in range(6):
        for s in itertools.product(range(symbols), repeat=length):
            assert _tasks_counters.is_member("boolexp_3", s) == recursive(list(s)), s
    long = [2] * 50_000 + [1]  # 50,000 nested unary operators: a RecursionError before
    assert _tasks_counters.is_member("boolexp_3", long)
    assert not _tasks_counters.is_member("boolexp_3", long + [1])


def test_limits_can_be_raised_and_check_finite_is_one_line():
    assert tasks.all_inputs(3, limit=None).shape == (8, 3)
    with pytest.raises(ValueError, match="1 non-finite of 10000"):
        _validate.check_finite("x", np.r_[np.zeros(9999), np.inf])
    assert linformer.attention_probs(np.eye(3), np.eye(3)).shape == (3, 3)


@pytest.mark.parametrize("template", ["tt {nosuch}", "tt {", "tt {}", "tt {0}", "tt {n.real}"])
def test_a_command_template_with_a_placeholder_that_is_no_size_is_refused(template):
    # Issue 48: Row(command='tt {nosuch}').command_for() raised KeyError; the check the ledger can
    # call before formatting names the argument.
    with pytest.raises(ValueError, match="^command:"):
        _validate.check_template("command", template, ["n", "m"])
    assert _validate.check_template("command", "tt --n {n} --m {m} {{x}} {n}", ["n", "m"]) == (
        "n",
        "m",
    )
