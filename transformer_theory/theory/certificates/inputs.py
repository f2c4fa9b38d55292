"""Validated inputs: the dataset check, rows that repeat a sequence under different labels, and each
last-token group's relaxation ``P_t`` as a sparse integer matrix over the (position, token) pairs
that occur.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.theory import dependence
from transformer_theory.theory.certificates.records import _DENSE_MAX_ENTRIES, FAMILIES

# ----------------------------------------------------------------------------- inputs


def _check_dataset(tokens_BxN, labels_B, vocab_size, num_classes, family):
    """Validate and return ``(tokens int64 (B,N), labels int64 (B,), num_classes)``."""
    if family not in FAMILIES:
        raise ValueError(f"family: expected one of {list(FAMILIES)}, got {family!r}")
    tokens = np.asarray(tokens_BxN)
    labels = np.asarray(labels_B)
    _validate.check_ndim("tokens_BxN", tokens, 2)
    _validate.check_ndim("labels_B", labels, 1)
    if tokens.shape[0] == 0 or tokens.shape[1] == 0:
        raise ValueError(
            f"tokens_BxN: expected at least one example of length >= 1, got shape {tokens.shape}"
        )
    if labels.shape[0] != tokens.shape[0]:
        raise ValueError(
            f"labels_B: expected {tokens.shape[0]} labels (one per sequence), got {labels.shape[0]}"
        )
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, (int, np.integer)):
        raise ValueError(f"vocab_size: expected an integer, got {vocab_size!r}")
    _validate.check_positive("vocab_size", vocab_size)
    _validate.check_token_ids("tokens_BxN", tokens, int(vocab_size))
    _validate.check_int("labels_B", labels)
    if labels.min() < 0:
        raise ValueError(
            f"labels_B: labels must be non-negative class indices, got min {labels.min()}"
        )
    if num_classes is None:
        num_classes = int(labels.max()) + 1
    _validate.check_positive("num_classes", num_classes)
    if labels.max() >= num_classes:
        raise ValueError(f"labels_B: labels must lie in [0, {num_classes}), got max {labels.max()}")
    return tokens.astype(np.int64), labels.astype(np.int64), int(num_classes)


def contradictory_rows(tokens_BxN: ArrayLike, labels_B: ArrayLike) -> list[tuple[int, ...]]:
    """Groups of rows holding the SAME sequence under different labels, in order of first row.

    Such a dataset is impossible for every model of every depth -- for any function of the
    sequence -- before any linear program: the rows of one group need different outputs from the
    same input. Each group lists all rows of its sequence (every label it carries).
    """
    tokens = np.asarray(tokens_BxN)
    labels = np.asarray(labels_B)
    _validate.check_ndim("tokens_BxN", tokens, 2)
    _validate.check_shape("labels_B", labels, (tokens.shape[0],))
    _, sequence_B = np.unique(tokens, axis=0, return_inverse=True)
    order = np.argsort(sequence_B.reshape(-1), kind="stable")
    ids = sequence_B.reshape(-1)[order]
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    out = [
        tuple(int(r) for r in rows)
        for rows in np.split(order, starts[1:])
        if len(rows) > 1 and labels[rows].min() != labels[rows].max()
    ]
    return sorted(out)


def _groups(tokens):
    """``[(last_token, global indices)]`` in increasing order of the last token."""
    return list(dependence.group_by_last_token(tokens).items())


class _Group:
    """The relaxation ``P_t`` of one group as the sparse integer matrix ``E``.

    ``E`` has one row per (count feature ``p``, class slot ``k``) and one column per margin pair
    ``(i, c != y_i)``: ``E[(p, y_i), (i, c)] = C[i, p]`` and ``E[(p, c), (i, c)] = -C[i, p]``.
    The primal is ``E^T x >= 1`` (``x`` = the map ``M_t``); the Farkas system is
    ``E u = 0, u >= 0, sum u = 1``.
    """

    def __init__(self, tokens_BxN, labels_B, indices_B):
        self.indices = np.asarray(indices_B, np.int64)
        self.classes = tuple(int(c) for c in np.unique(labels_B))
        slot = {c: k for k, c in enumerate(self.classes)}
        # The count features are the (position, token) pairs that OCCUR in the group: a feature
        # that never occurs adds a zero row to E and nothing to the program. Indexing only those
        # makes memory follow the data (at most B N features), not the declared vocabulary (a
        # dense (B, N V) count matrix of a 50,257-token vocabulary would take gigabytes).
        tokens = np.asarray(tokens_BxN, np.int64)
        B, N = tokens.shape
        pairs_BN = np.stack([np.broadcast_to(np.arange(N), (B, N)), tokens], axis=-1)
        _, feature_BN = np.unique(pairs_BN.reshape(-1, 2), axis=0, return_inverse=True)
        feature_BxN = feature_BN.reshape(B, N)  # one feature per position: each row N distinct
        self.y = np.array([slot[int(c)] for c in labels_B], np.int64)
        K = len(self.classes)
        pairs = [(i, k) for i in range(len(self.y)) for k in range(K) if k != self.y[i]]
        self.pair_example = np.array([p[0] for p in pairs], np.int64)
        self.pair_class = np.array([p[1] for p in pairs], np.int64)
        rows, cols, vals = [], [], []
        P = int(feature_BxN.max()) + 1 if B else 0
        for j, (i, c) in enumerate(pairs):
            nz = feature_BxN[i]
            w = np.ones(N, np.int64)
            rows += [nz * K + self.y[i], nz * K + c]
            cols += [np.full(2 * len(nz), j)]
            vals += [w, -w]
        shape = (P * K, len(pairs))
        if pairs:
            self.E = sp.csc_matrix(
                (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                shape=shape,
                dtype=np.int64,
            )
        else:
            self.E = sp.csc_matrix(shape, dtype=np.int64)
        # Dense float copy for the LPs when small (slicing and HiGHS setup are cheaper dense);
        # large groups stay sparse so memory follows the number of nonzeros.
        small = self.E.shape[0] * self.E.shape[1] <= _DENSE_MAX_ENTRIES
        self.dense = self.E.toarray().astype(np.float64) if small else None

    def columns(self, cols):
        """``E[:, cols]`` without all-zero rows, as float64 (dense or sparse)."""
        if self.dense is not None:
            E = self.dense[:, cols]
            return E[np.any(E != 0, axis=1)]
        E = self.E[:, cols].tocsr().astype(np.float64)
        return E[np.unique(E.nonzero()[0])] if E.nnz else E

    def pair_mask(self, local_subset):
        keep = np.zeros(len(self.y), bool)
        keep[np.asarray(local_subset, np.int64)] = True
        return keep[self.pair_example]
