"""The shared task API: chunks, jit/vmap unranking, sampling, configs, Table 1 notation, errors, toy
sets.

References are written here from Chen & Zou 2024 (§4, §8 Table 1, §11, §13.1), not taken from the
code.
The tasks reuse the sizes of test_enumeration.py so compiled functions are shared.
"""

import math
from collections import Counter

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory import forward, init_params
from transformer_theory.tasks import (
    InContextQA,
    InContextTemplateMatching,
    SequenceClassification,
    TemplateMatching,
    all_templates,
    toy,
)

QA = InContextQA(3, 3, 2)
TM = TemplateMatching(3, ((0, 0), (0, 1)))
ICTM = InContextTemplateMatching(2, 2, ((0, 0), (0, 1)), 2)
TASKS = [QA, TM, ICTM, SequenceClassification(3, 2, 9)]


def as_rows(tokens, labels):
    return [
        (tuple(int(v) for v in t), int(y)) for t, y in zip(np.asarray(tokens), np.asarray(labels))
    ]


@pytest.mark.parametrize("task", TASKS, ids=lambda t: type(t).__name__)
def test_chunks_cover_the_dataset_exactly_once(task):
    whole = as_rows(*task.all())
    assert len(whole) == task.size
    pieces = [r for t, y in task.chunks(7) for r in as_rows(t, y)]  # 7 divides none of the sizes
    assert pieces == whole
    lo, hi = 3, task.size - 2
    assert [r for t, y in task.chunks(5, lo, hi) for r in as_rows(t, y)] == whole[lo:hi]
    assert list(task.chunks(4, 5, 5)) == []


@pytest.mark.parametrize("task", [QA, ICTM], ids=lambda t: type(t).__name__)
def test_tokens_and_labels_under_jit_and_vmap(task):
    whole = task.all()
    idx = jnp.array([0, task.size - 1, task.size // 2, 1, 2, 3], jnp.int64)
    for fn in (task.tokens_and_labels, jax.jit(task.tokens_and_labels)):
        tokens, labels = fn(idx)
        assert tokens.dtype == jnp.int32 and labels.dtype == jnp.int32
        assert tokens.shape == (6, task.seq_len)
        np.testing.assert_array_equal(tokens, whole[0][idx])
        np.testing.assert_array_equal(labels, whole[1][idx])
    # vmap over a leading axis of index batches, and over scalar indices
    t2, y2 = jax.vmap(task.tokens_and_labels)(idx.reshape(2, 3))
    np.testing.assert_array_equal(t2.reshape(6, -1), whole[0][idx])
    t0, y0 = task.tokens_and_labels(jnp.int32(task.size - 1))
    assert t0.shape == (task.seq_len,) and int(y0) == int(whole[1][-1])


@pytest.mark.parametrize(
    "task", [TM, ICTM], ids=lambda t: type(t).__name__
)  # blocks of unequal sizes
def test_sample_is_reproducible_and_lands_in_the_dataset(task):
    key = jax.random.key(7)
    a, b = task.sample(key, 4000), task.sample(key, 4000)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    c = task.sample(jax.random.key(8), 4000)
    assert not np.array_equal(a[0], c[0])
    index = {r: i for i, r in enumerate(as_rows(*task.all()))}
    rows = as_rows(*a)
    assert all(r in index for r in rows)
    # uniform over examples (not over blocks): IC-TM blocks have 4, 8 or 16 examples. Counts are
    # Binomial(4000, 1/size); with this fixed key every one is within 5 standard deviations.
    counts = Counter(index[r] for r in rows)
    p = 1 / task.size
    mean, sd = 4000 * p, math.sqrt(4000 * p * (1 - p))
    assert all(abs(counts.get(i, 0) - mean) < 5 * sd for i in range(task.size))


def test_sample_balanced_draws_templates_uniformly_then_substitutions_uniformly():
    """TemplateMatching(5, all 5 patterns of length 3): block sizes 5, 20, 20, 20, 60, so the
    all-distinct template owns 48% of the examples, but ``sample_balanced`` draws each template with
    probability 1/5 and, within it, each of its examples with probability 1/size_t (NumPy
    reference: the equality pattern of every drawn sequence, enumerated with itertools)."""
    import itertools

    task = TemplateMatching(5, all_templates(3))
    key = jax.random.key(11)
    a, b = task.sample_balanced(key, 6000), task.sample_balanced(key, 6000)
    np.testing.assert_array_equal(a[0], b[0])
    tok, lab = map(np.asarray, a)
    assert tok.shape == (6000, 4) and (tok[:, -1] == 5).all()

    def pattern(row):
        first = {}
        return tuple(first.setdefault(s, len(first)) for s in row)

    pats = [pattern(t) for t in task.templates]
    members = {
        i: [r for r in itertools.product(range(5), repeat=3) if pattern(r) == p]
        for i, p in enumerate(pats)
    }
    for t, y in zip(tok, lab):
        assert pattern(tuple(t[:3])) == pats[y]
    # Template counts ~ Binomial(6000, 1/5) (sd 31); within template i every one of its
    # len(members[i]) sequences ~ Binomial(count_i, 1/len); the fixed key keeps all within 5 sd.
    counts = np.bincount(lab, minlength=5)
    assert np.all(np.abs(counts - 1200) < 5 * math.sqrt(6000 * 0.2 * 0.8))
    for i, rows in members.items():
        seen = Counter(tuple(t[:3]) for t, y in zip(tok, lab) if y == i)
        m, p = counts[i], 1 / len(rows)
        assert set(seen) <= set(rows)
        assert all(abs(seen.get(r, 0) - m * p) < 5 * math.sqrt(m * p * (1 - p)) for r in rows)
    with pytest.raises(ValueError, match="num"):
        task.sample_balanced(key, 0)


def test_sample_at_the_papers_sizes():
    """§9.1: memorization d1=500, length 6; reasoning 100/100; generalization 210 symbols; IC-TM
    l=5, 100/100."""
    key = jax.random.key(0)
    sc = SequenceClassification(500, 6, 2000, seed=3)
    seqs, labels = sc.data
    assert len({tuple(s) for s in seqs}) == 2000 and sorted(labels.tolist()) == list(range(2000))
    tok, lab = sc.sample(key, 64)
    assert tok.shape == (64, 7) and bool(jnp.all(tok[:, -1] == 500))

    qa = InContextQA(100, 100, 5)
    assert qa.size == math.perm(100, 5) ** 2 * 5 and qa.size > 2**62
    tok, lab = map(np.asarray, qa.sample(key, 256))
    for t, y in zip(tok, lab):
        qs, ans = t[0:15:3], t[2:15:3] - 100
        assert len(set(qs)) == 5 and len(set(ans)) == 5 and (t[1:17:3] == 200).all()
        assert y == ans[list(qs).index(t[15])]

    tm = TemplateMatching(210, all_templates(4))
    tok, lab = map(np.asarray, tm.sample(key, 256))
    pats = all_templates(4)
    for t, y in zip(tok, lab):
        first = {}
        assert tuple(first.setdefault(v, len(first)) for v in t[:4]) == pats[y]

    ictm = InContextTemplateMatching(100, 100, all_templates(5), 4)
    tok, lab = map(np.asarray, ictm.sample(key, 128))
    assert tok.shape == (128, 7 * 4 + 6)
    for t, y in zip(tok, lab):  # 4 blocks of 7 (5 symbols, r, answer), then the query and r
        blocks = [t[7 * i : 7 * i + 5] for i in range(4)]
        pat = [tuple(list(dict.fromkeys(b)).index(v) for v in b) for b in blocks]
        query = tuple(list(dict.fromkeys(t[28:33])).index(v) for v in t[28:33])
        assert len(set(pat)) == 4 and (t[5:28:7] == 200).all() and t[33] == 200
        assert y == t[7 * pat.index(query) + 6] - 100


def lex_unrank(rank, n, k):
    """The rank-th k-permutation of range(n) in lexicographic order (independent Python
    reference)."""
    pool, out = list(range(n)), []
    for i in range(k):
        block = math.perm(n - i - 1, k - i - 1)
        out.append(pool.pop(rank // block))
        rank %= block
    return out


def test_unranking_at_64_bit_indices():
    """Indices far beyond int32 decode as the documented order says (lexicographic, template by
    template)."""
    rng = np.random.default_rng(0)
    qa = InContextQA(100, 100, 3)
    idx = [int(v) for v in rng.integers(0, qa.size, 5)] + [2**31 + 5, qa.size - 1]
    tokens, labels = map(np.asarray, qa.tokens_and_labels(jnp.array(idx, jnp.int64)))
    a = math.perm(100, 3)
    for i, t, y in zip(idx, tokens, labels):
        rest, c = divmod(i, 3)
        rq, ra = divmod(rest, a)
        q, ans = lex_unrank(rq, 100, 3), lex_unrank(ra, 100, 3)
        assert t.tolist() == [
            q[0],
            200,
            100 + ans[0],
            q[1],
            200,
            100 + ans[1],
            q[2],
            200,
            100 + ans[2],
            q[c],
            200,
        ]
        assert y == ans[c]
    tm = TemplateMatching(210, all_templates(4))
    sizes = [math.perm(210, len(set(p))) for p in all_templates(4)]
    idx = [int(v) for v in rng.integers(0, tm.size, 5)] + [tm.size - 1, sizes[0]]
    tokens, labels = map(np.asarray, tm.tokens_and_labels(jnp.array(idx, jnp.int64)))
    for i, t, y in zip(idx, tokens, labels):
        b = 0
        while i >= sizes[b]:
            i -= sizes[b]
            b += 1
        pat = all_templates(4)[b]
        s = lex_unrank(i, 210, len(set(pat)))
        assert t.tolist() == [s[w] for w in pat] + [210] and y == b


def test_huge_datasets_refuse_exhaustive_access():
    qa = InContextQA(100, 100, 5)
    with pytest.raises(ValueError, match="size"):
        qa.tokens_and_labels(jnp.arange(3))
    with pytest.raises(ValueError, match="size"):
        qa.chunks(10)
    with pytest.raises(ValueError, match="limit"):
        InContextQA(6, 6, 3).all(limit=100)
    # below 2**62 exhaustive access works by index, far from the start
    big = InContextQA(100, 100, 3)
    t, y = big.tokens_and_labels(jnp.array([big.size - 1], jnp.int64))
    np.testing.assert_array_equal(t[0], [99, 200, 199, 98, 200, 198, 97, 200, 197, 97, 200])
    assert int(y[0]) == 97


def test_model_config_and_forward():
    cfg = QA.model_config(heads=(1, 1))
    assert (cfg.vocab_size, cfg.seq_len, cfg.width, cfg.num_classes, cfg.heads) == (
        7,
        8,
        15,
        3,
        (1, 1),
    )
    assert ICTM.model_config(width=40, attention="softmax").width == 40
    params = init_params(jax.random.key(0), cfg, dtype=jnp.float64)
    tokens = QA.all()[0][:5]
    assert jax.vmap(lambda t: forward(params, t))(tokens).shape == (5, 3)


def test_embed_is_eq3():
    tokens = np.asarray(ICTM.all()[0][17])
    d, n = ICTM.vocab_size, ICTM.seq_len
    want = np.zeros((n, d + n + 3))  # columns of the paper's (d', n) matrix, as rows
    for i, t in enumerate(tokens):
        want[i, t] = 1.0
        want[i, d + i] = 1.0
    np.testing.assert_array_equal(
        ICTM.embed(jnp.asarray(tokens), width=d + n + 3, dtype=jnp.float64), want
    )
    assert ICTM.embed(jnp.asarray(tokens)).shape == (n, d + n)


def test_describe_table1_notation():
    # Table 1, reasoning: "a → 1 b → 2 a →" with target 1 (questions a, b = 0, 1; answers 1, 2 = ids
    # 2, 3)
    task = InContextQA(2, 2, 2)
    tokens = jnp.array([0, 4, 2, 1, 4, 3, 0, 4], jnp.int32)
    assert task.describe(tokens) == "a → 1 b → 2 a →"
    assert task.describe(tokens, label=0) == "a → 1 b → 2 a → 1"
    assert TM.describe(jnp.array([0, 1, 3], jnp.int32), 1) == "ab → 2"
    assert (
        ICTM.describe(jnp.array([0, 0, 4, 2, 0, 1, 4, 3, 1, 0, 4], jnp.int32))
        == "aa → 1 ab → 2 ba →"
    )
    wide = TemplateMatching(30, ((0, 1),))  # ids 26.. are a0, a1, ...; words then need spaces
    assert wide.describe(jnp.array([27, 2, 30], jnp.int32)) == "a1 c →"
    assert "size = A(3,2) · A(3,2) · 2 = 72" in str(QA)
    with pytest.raises(ValueError, match="tokens_N"):
        task.describe(jnp.array([0, 4, 2], jnp.int32))
    with pytest.raises(ValueError, match="tokens_N"):
        task.describe(tokens.at[0].set(9))


def test_bad_arguments_name_the_argument():
    cases = [
        (lambda: InContextQA(2, 3, 3), "k"),
        (lambda: InContextQA(3, 2, 3), "k"),
        (lambda: InContextQA(0, 2, 1), "n_q"),
        (lambda: InContextQA(2, 2, 1.5), "k"),
        (lambda: TemplateMatching(3, ((0, 0), (0, 1, 2))), "templates"),
        (lambda: TemplateMatching(3, ((0, 1), (1, 0))), "templates"),  # same equality pattern
        (lambda: TemplateMatching(2, ((0, 1, 2),)), "alphabet_size"),
        (lambda: TemplateMatching(3, ((0, 1),), labels=(0, 1)), "labels"),
        (lambda: TemplateMatching(3, ()), "templates"),
        (lambda: InContextTemplateMatching(2, 2, ((0, 1, 2),), 1), "alphabet_size"),
        (lambda: InContextTemplateMatching(3, 2, ((0, 0), (0, 1)), 3), "k"),
        (lambda: InContextTemplateMatching(3, 1, ((0, 0), (0, 1)), 2), "k"),
        (lambda: SequenceClassification(2, 2, 5), "num_sequences"),
        (lambda: QA.tokens_and_labels(jnp.array([0.0, 1.0])), "indices"),
        (lambda: QA.tokens_and_labels(jnp.array([-1, 0])), "indices"),
        (lambda: QA.tokens_and_labels(jnp.array([QA.size])), "indices"),
        (lambda: QA.tokens_and_labels(jnp.zeros((2, 2), jnp.int32)), "indices"),
        (lambda: QA.chunks(0), "chunk_size"),
        (lambda: QA.chunks(4, 5, 3), "start, stop"),
        (lambda: QA.sample(jax.random.key(0), 0), "num"),
        (lambda: QA.example((0, 0), (0, 1), 0), "questions"),
        (lambda: QA.example((0, 1), (0, 1), 2), "c"),
    ]
    for make, name in cases:
        with pytest.raises(ValueError, match=f"^{name}"):
            make()


def test_jit_traced_indices_skip_the_range_check_but_keep_the_dtype_check():
    f = jax.jit(QA.tokens_and_labels)
    assert f(jnp.arange(3)).__len__() == 2
    with pytest.raises(ValueError, match="indices"):
        f(jnp.arange(3.0))


# ------------------------------------------------------------------------------------- toy sets
def multisets_per_position(rows, lambdas):
    pos = [Counter() for _ in rows[0]]
    for row, lam in zip(rows, lambdas):
        for j, tok in enumerate(row):
            pos[j][tok] += lam
    return all(all(v == 0 for v in c.values()) for c in pos)


def test_dependent_toy_section11():
    x = np.asarray(toy.dependent_toy())
    a, b, r = 0, 1, 2
    assert x.tolist() == [[a, b, r], [b, a, r], [a, a, r], [b, b, r]]
    assert multisets_per_position(x.tolist(), toy.DEPENDENT_TOY_LAMBDAS)  # Definition 3 holds


def test_table1_sets():
    task = InContextQA(2, 2, 2)
    tokens, labels = toy.table1_reasoning()
    text = [task.describe(t, y) for t, y in zip(tokens, labels)]
    assert text == [
        "a → 1 b → 2 a → 1",
        "b → 1 a → 2 a → 2",
        "a → 1 b → 2 b → 2",
        "b → 1 a → 2 b → 1",
    ]
    dataset = set(as_rows(*task.all()))
    assert set(as_rows(tokens, labels)) <= dataset  # Table 1's examples belong to D_IC-QA^(2)
    assert multisets_per_position(np.asarray(tokens).tolist(), toy.TABLE1_REASONING_LAMBDAS)
    # §13.1's D_toy-icl: a=x b=y a= -> x, a=y b=x b= -> x, a=y b=x a= -> y, a=x b=y b= -> y
    tokens, labels = toy.toy_icl()
    text = [task.describe(t, y) for t, y in zip(tokens, labels)]
    assert text == [
        "a → 1 b → 2 a → 1",
        "a → 2 b → 1 b → 1",
        "a → 2 b → 1 a → 2",
        "a → 1 b → 2 b → 2",
    ]
    assert multisets_per_position(np.asarray(tokens).tolist(), toy.TOY_ICL_LAMBDAS)
    assert set(as_rows(tokens, labels)) <= dataset

    tokens, labels = toy.table1_memorization()
    mem = SequenceClassification(3, 2, 9)
    assert " ".join(mem.describe(t, y) for t, y in zip(tokens, labels)) == (
        "aa → 1 bb → 2 cc → 3 ab → 4 ac → 5 ba → 6 bc → 7 ca → 8 cb → 9"
    )
    tokens, labels = toy.table1_generalization()
    assert " ".join(TM.describe(t, y) for t, y in zip(tokens, labels)) == (
        "aa → 1 bb → 1 cc → 1 ab → 2 ac → 2 ba → 2 bc → 2 ca → 2 cb → 2"
    )
    assert set(as_rows(tokens, labels)) == set(as_rows(*TM.all()))
    tokens, labels = toy.table1_contextual()
    text = [ICTM.describe(t, y) for t, y in zip(tokens, labels)]
    assert text == [
        "aa → 1 ab → 2 bb → 1",
        "aa → 1 ab → 2 ba → 2",
        "aa → 1 ab → 2 aa → 1",
        "aa → 1 ab → 2 ab → 2",
    ]
    assert set(as_rows(tokens, labels)) <= set(as_rows(*ICTM.all()))
