"""What every task shares: index validation, chunked exhaustive iteration, sampling, configs,
notation.

A task is a frozen dataclass of Python ints (hashable, cheap to pass around) that subclasses
:class:`Task`. It supplies ``vocab_size``, ``seq_len``, ``num_classes``, ``size`` and the layout of
its
token ids (``num_symbols`` letters first, then ``num_answers`` answer tokens at ``answer_start``,
the
response sign / CLS ``r`` always last), plus either a
:class:`~transformer_theory.tasks.unrank.BlockRadix`
index space with a ``_decode(block, digits_U)`` (the default path) or its own ``_unrank_one`` /
``_sample``. Everything else lives here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, SupportsInt

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike, DTypeLike

from transformer_theory import _validate
from transformer_theory._validate import check_int_arg  # noqa: F401  (re-exported: tasks use it)
from transformer_theory.params import ModelConfig
from transformer_theory.tasks import unrank

RESPONSE_SIGN = "→"


def symbol_name(i: int, num_symbols: int) -> str:
    """Table 1 name of symbol/question ``i``: ``a``..``z``, then ``a0, a1, ...`` for ids 26, 27,
    ..."""
    return chr(ord("a") + i) if i < 26 else f"a{i - 26}"


def describe_tokens(
    tokens: ArrayLike,
    *,
    num_symbols: int,
    answer_start: int,
    num_answers: int,
    vocab_size: int,
    label: SupportsInt | None = None,
) -> str:
    """Render token ids in Chen & Zou 2024, Table 1 notation (§8).

    Symbols/questions are letters (``a, b, ...``; ids from 26 on are ``a0, a1, ...``), answers are
    the
    paper's 1-based digits (answer index ``j`` prints as ``j + 1``), the response sign / CLS (id
    ``vocab_size - 1``) is ``→``. Consecutive symbols form one word (``aa``, ``ab``) as in Table 1;
    when some symbol name has several characters they are separated by spaces instead so the text
    stays unambiguous. ``label`` (a class index) is appended 1-based, Table 1's underlined target.
    """
    toks = [int(t) for t in np.asarray(tokens).reshape(-1)]
    single = num_symbols <= 26
    words: list[str] = []
    run: list[str] = []
    for t in toks:
        if t < num_symbols:
            run.append(symbol_name(t, num_symbols))
            continue
        if run:
            words.append("".join(run) if single else " ".join(run))
            run = []
        if t == vocab_size - 1:
            words.append(RESPONSE_SIGN)
        elif answer_start <= t < answer_start + num_answers:
            words.append(str(t - answer_start + 1))
        else:  # pragma: no cover - ids are validated before
            raise ValueError(f"tokens: id {t} is not part of this task's vocabulary")
    if run:
        words.append("".join(run) if single else " ".join(run))
    if label is not None:
        words.append(str(int(label) + 1))
    return " ".join(words)


class Task:
    """Mixin for the task dataclasses; see the module docstring for what a subclass provides."""

    if TYPE_CHECKING:  # what every subclass provides (properties or dataclass fields)
        # Token layout (answer tokens only exist in the in-context tasks).
        @property
        def num_symbols(self) -> int: ...
        @property
        def answer_start(self) -> int: ...
        @property
        def num_answers(self) -> int: ...

        @property
        def vocab_size(self) -> int: ...
        @property
        def seq_len(self) -> int: ...
        @property
        def num_classes(self) -> int: ...
        @property
        def size(self) -> int: ...
        @property
        def _space(self) -> unrank.BlockRadix: ...
        def _decode(self, block: jax.Array, digits_U: jax.Array) -> tuple[jax.Array, jax.Array]: ...

    else:
        # Token layout; subclasses override (answer tokens only exist in the in-context tasks).
        answer_start = 0
        num_answers = 0

    # --- index space -------------------------------------------------------------------------
    def _unrank_one(self, index: jax.Array) -> tuple[jax.Array, jax.Array]:
        block, digits_U = self._space.unrank(index)
        return self._decode(block, digits_U)

    def _sample(
        self, key: jax.Array, num: int, uniform_blocks: bool = False
    ) -> tuple[jax.Array, jax.Array]:
        block_B, digits_BxU = self._space.sample(key, num, uniform_blocks)
        return jax.vmap(self._decode)(block_B, digits_BxU)

    def tokens_and_labels(self, indices: ArrayLike) -> tuple[jax.Array, jax.Array]:
        """Unrank example indices into ``(tokens_BxN int32, labels_B int32)``.

        Pure ``jnp`` on static tables: traceable under ``jit`` and ``vmap``, and any index range is
        produced independently of the rest. A scalar index gives ``(tokens_N, label)``.

        Args:
          indices: integer array ``(B,)`` (or scalar) with entries in ``[0, size)``.

        Raises:
          ValueError: non-integer dtype, wrong rank, concrete indices out of range, or a dataset of
            ``2**62`` examples or more (use :meth:`sample` there).
        """
        idx = unrank.as_index_array("indices", indices, self.size)
        fn = (
            self._jit_unrank
        )  # cached per task: eager callers pay one compile per batch shape, not op-by-op dispatch
        if idx.ndim == 0:
            tokens, labels = fn(idx[None])
            return tokens[0], labels[0]
        return fn(idx)

    @property
    def _jit_unrank(self) -> Callable[..., tuple[jax.Array, jax.Array]]:
        return _compiled(self, "unrank")

    @property
    def _jit_sample(self) -> Callable[..., tuple[jax.Array, jax.Array]]:
        return _compiled(self, "sample")

    def chunks(
        self, chunk_size: int, start: int = 0, stop: int | None = None, *, progress: bool = False
    ) -> Iterator[tuple[jax.Array, jax.Array]]:
        """Iterate ``(tokens_BxN, labels_B)`` over examples ``start .. stop-1`` of the exhaustive
        dataset.

        Every chunk has ``chunk_size`` rows except possibly the last; all chunks run through ONE
        compiled function (the last is padded, then cut), so a chunk costs one device call.
        """
        unrank.check_index_space(self.size)
        if not isinstance(chunk_size, (int, np.integer)) or chunk_size <= 0:
            raise ValueError(f"chunk_size: expected a positive int, got {chunk_size!r}")
        stop = self.size if stop is None else stop
        if (
            not (isinstance(start, (int, np.integer)) and isinstance(stop, (int, np.integer)))
            or not 0 <= start <= stop <= self.size
        ):
            raise ValueError(
                f"start, stop: expected 0 <= start <= stop <= size = {self.size}, got "
                f"{start}, {stop}"
            )
        return self._chunk_iter(int(chunk_size), int(start), int(stop), progress)

    def _chunk_iter(
        self, chunk_size: int, start: int, stop: int, progress: bool
    ) -> Iterator[tuple[jax.Array, jax.Array]]:
        width = min(chunk_size, max(stop - start, 1))
        fn = self._jit_unrank
        dt = unrank.index_dtype()
        starts = range(start, stop, width)
        if progress:
            from transformer_theory.progress import tqdm

            starts = tqdm(starts, desc=type(self).__name__, unit="chunk", disable=None)
        for lo in starts:
            m = min(width, stop - lo)
            idx = np.minimum(np.arange(width, dtype=np.int64) + lo, stop - 1)
            tokens, labels = fn(jnp.asarray(idx, dt))
            yield (tokens, labels) if m == width else (tokens[:m], labels[:m])

    def all(self, limit: int = 10**6) -> tuple[jax.Array, jax.Array]:
        """The whole dataset ``(tokens_BxN, labels_B)`` in index order; ``ValueError`` if ``size >
        limit``."""
        if self.size > limit:
            raise ValueError(
                f"limit: the dataset has {self.size} examples, more than limit={limit}; "
                "use chunks() or sample()"
            )
        parts = list(self.chunks(min(self.size, 1 << 16)))
        return jnp.concatenate([p[0] for p in parts]), jnp.concatenate([p[1] for p in parts])

    def sample(self, key: jax.Array, num: int) -> tuple[jax.Array, jax.Array]:
        """``num`` examples drawn uniformly from the dataset (with replacement), reproducible by
        ``key``.

        Draws the permutations / maps directly (independent uniform Lehmer digits), so it works at
        sizes far beyond what an index can address (e.g. the paper's §9.1 sizes).
        """
        return self._jit_sample(key, _sample_count(key, num))

    # --- models ------------------------------------------------------------------------------
    def model_config(
        self, heads: Sequence[int] = (1,), width: int | None = None, **overrides: Any
    ) -> ModelConfig:
        """A :class:`ModelConfig` for this task: ``d = vocab_size``, ``n = seq_len``, ``C =
        num_classes``.

        ``width`` defaults to Chen & Zou's ``d' = d + n`` (eq. 3: token one-hot, one-hot position,
        no
        padding), or ``d`` plus the positional code's width when ``positional`` is overridden.
        """
        from transformer_theory.core.positional import code_dim

        if width is None:
            width = self.vocab_size + code_dim(overrides.get("positional", "onehot"), self.seq_len)
        return ModelConfig(
            vocab_size=self.vocab_size,
            seq_len=self.seq_len,
            width=width,
            num_classes=self.num_classes,
            heads=tuple(heads),
            **overrides,
        )

    def embed(
        self,
        tokens_N: jax.Array | np.ndarray,
        width: int | None = None,
        dtype: DTypeLike = jnp.float32,
    ) -> jax.Array:
        """Chen & Zou 2024, eq. 3 / §9.1 input ``H_NxD = [onehot(x_i) (d) ; onehot(i) (n) ; 0 (d' -
        d - n)]``, row-major.

        ``width`` defaults to ``d' = d + n``. Use ``jax.vmap`` for a batch.
        """
        from transformer_theory.core.positional import embed_tokens

        _validate.check_shape("tokens_N", tokens_N, (self.seq_len,))
        width = self.vocab_size + self.seq_len if width is None else width
        return embed_tokens(tokens_N, self.vocab_size, width, "onehot", dtype=dtype)

    # --- notation ----------------------------------------------------------------------------
    def describe(self, tokens_N: ArrayLike, label: SupportsInt | None = None) -> str:
        """One example in Chen & Zou 2024, Table 1 notation, e.g. ``a → 1 b → 2 a →`` (``label``
        appended 1-based)."""
        _validate.check_ndim("tokens_N", tokens_N, 1)
        _validate.check_shape("tokens_N", tokens_N, (self.seq_len,))
        _validate.check_token_ids("tokens_N", tokens_N, self.vocab_size)
        if label is not None and not 0 <= int(label) < self.num_classes:
            raise ValueError(f"label: expected a class in [0, {self.num_classes}), got {label}")
        return describe_tokens(
            tokens_N,
            num_symbols=self.num_symbols,
            answer_start=self.answer_start,
            num_answers=self.num_answers,
            vocab_size=self.vocab_size,
            label=label,
        )

    def _size_formula(self) -> str:
        return str(self.size)

    def summary(self) -> str:
        """Parameters, vocabulary layout and the exact dataset size with its formula."""
        return (
            f"{self!r}\n"
            f"  vocab d = {self.vocab_size} (response sign / CLS = {self.vocab_size - 1}), "
            f"seq_len n = {self.seq_len}, classes C = {self.num_classes}\n"
            f"  size = {self._size_formula()} = {self.size:,}"
        )

    def __str__(self) -> str:
        return self.summary()


@functools.lru_cache(maxsize=128)
def _compiled(task: Task, which: str) -> Callable[..., tuple[jax.Array, jax.Array]]:
    """Jitted batch unranking / sampling, shared by all equal tasks (tasks are hashable
    dataclasses)."""
    if which == "unrank":
        return jax.jit(jax.vmap(task._unrank_one))
    if which == "sample_balanced":  # blocks drawn uniformly (TemplateMatching.sample_balanced)
        return jax.jit(functools.partial(task._sample, uniform_blocks=True), static_argnums=1)
    return jax.jit(task._sample, static_argnums=1)


def _sample_count(key: object, num: object) -> int:
    """``num`` as an int after checking both arguments of a ``sample`` method."""
    if not isinstance(num, (int, np.integer)) or num <= 0:
        raise ValueError(f"num: expected a positive int, got {num!r}")
    if not isinstance(key, jax.Array):
        raise ValueError(f"key: expected a jax PRNG key, got {type(key).__name__}")
    return int(num)
