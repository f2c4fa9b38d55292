"""Reading a user's labelled dataset of token sequences (for ``transformer-theory certify``).

Two formats, chosen by the file extension:

- JSON (``.json``): ``{"tokens": [[...], ...], "labels": [...], "vocab_size": d}`` with optional
  ``"num_classes"``, ``"name"`` and ``"description"``.
- NPZ (``.npz``): arrays ``tokens`` (2-D integer ``(B, N)``), ``labels`` (1-D integer ``(B,)``) and
  optional 0-d integer arrays ``vocab_size`` and ``num_classes``.

``vocab_size`` may be omitted (then ``max token + 1``; the certificate does not depend on tokens
that never occur). Every problem raises a ``ValueError`` that names the file and the offending
field (and the row/column for a bad entry), so the command line can print it and exit with 2.
"""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np

_ALLOWED = {"tokens", "labels", "vocab_size", "num_classes", "name", "description"}


@dataclasses.dataclass(frozen=True)
class LabelledDataset:
    """A validated dataset.

    Attributes:
      tokens_BxN: int64 token ids in ``[0, vocab_size)``.
      labels_B: int64 labels in ``[0, num_classes)``.
      vocab_size: ``V`` (given, or ``max token + 1`` when ``vocab_size_inferred``).
      num_classes: ``C`` (given, or ``max label + 1``).
      name: from the file (or its basename).
    """

    tokens_BxN: np.ndarray
    labels_B: np.ndarray
    vocab_size: int
    num_classes: int
    name: str = ""
    vocab_size_inferred: bool = False

    def summary(self) -> dict:
        B, N = self.tokens_BxN.shape
        return {
            "name": self.name,
            "num_examples": int(B),
            "seq_len": int(N),
            "vocab_size": int(self.vocab_size),
            "vocab_size_inferred": bool(self.vocab_size_inferred),
            "num_classes": int(self.num_classes),
            "last_tokens": sorted({int(t) for t in self.tokens_BxN[:, -1]}),
        }


def _int_scalar(where: str, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{where}: expected a positive integer, got {value!r}")
    if value <= 0:
        raise ValueError(f"{where}: expected a positive integer, got {value}")
    return int(value)


def _int_entry(where: str, x) -> int:
    # JSON gives int/float/bool/str/None/list; only true integers are token ids or labels.
    if isinstance(x, bool) or not isinstance(x, int):
        raise ValueError(f"{where}: expected an integer, got {x!r} ({type(x).__name__})")
    if x < 0:
        raise ValueError(f"{where}: expected a non-negative integer, got {x}")
    return x


def _from_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{path}: not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})"
        ) from err
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not a UTF-8 text file ({err.reason})") from err
    if not isinstance(obj, dict):
        raise ValueError(
            f"{path}: expected a JSON object with keys 'tokens', 'labels', 'vocab_size', "
            f"got {type(obj).__name__}"
        )
    tokens = obj.get("tokens")
    if not isinstance(tokens, list) or not tokens:
        raise ValueError(
            f"{path}: 'tokens' must be a non-empty list of sequences (lists of token "
            f"ids), got {tokens!r:.80}"
        )
    rows = []
    for i, row in enumerate(tokens):
        if not isinstance(row, list) or not row:
            raise ValueError(
                f"{path}: tokens[{i}] must be a non-empty list of token ids, got {row!r:.80}"
            )
        rows.append([_int_entry(f"{path}: tokens[{i}][{j}]", x) for j, x in enumerate(row)])
        if len(rows[-1]) != len(rows[0]):
            raise ValueError(
                f"{path}: every sequence must have the same length; tokens[0] has "
                f"{len(rows[0])} tokens, "
                f"tokens[{i}] has {len(rows[-1])}"
            )
    labels = obj.get("labels")
    if not isinstance(labels, list):
        raise ValueError(f"{path}: 'labels' must be a list of class indices, got {labels!r:.80}")
    out = {k: v for k, v in obj.items() if k not in ("tokens", "labels")}
    out["tokens"] = np.array(rows, np.int64)
    out["labels"] = np.array(
        [_int_entry(f"{path}: labels[{i}]", y) for i, y in enumerate(labels)], np.int64
    )
    return out


def _from_npz(path: str) -> dict:
    try:
        data = np.load(path, allow_pickle=False)
    except Exception as err:  # noqa: BLE001 -- any unreadable file is the user's error
        raise ValueError(f"{path}: not a readable .npz file ({err})") from err
    if not hasattr(data, "files"):
        raise ValueError(f"{path}: expected an .npz archive of arrays, got a single array")
    with data:
        out = {}
        for k in data.files:
            try:
                out[k] = data[k]
            except ValueError as err:  # object arrays need pickle, which is refused for safety
                raise ValueError(
                    f"{path}: array {k!r} cannot be read without pickle ({err})"
                ) from err
    for k in ("tokens", "labels"):
        if k not in out:
            continue
        arr = out[k]
        want = 2 if k == "tokens" else 1
        if arr.ndim != want:
            raise ValueError(f"{path}: array {k!r} must be {want}-D, got shape {arr.shape}")
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{path}: array {k!r} must have an integer dtype, got {arr.dtype}")
        if arr.size and arr.min() < 0:
            raise ValueError(f"{path}: array {k!r} must be non-negative, got min {arr.min()}")
        out[k] = arr.astype(np.int64)
    for k in ("vocab_size", "num_classes"):
        if k in out:
            arr = out[k]
            if arr.ndim != 0 or not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(
                    f"{path}: {k!r} must be a 0-d integer array, got dtype {arr.dtype} "
                    f"shape {arr.shape}"
                )
            out[k] = int(arr)
    for k in ("name", "description"):
        if k in out:
            out[k] = str(out[k])
    return out


def load_dataset(path: str) -> LabelledDataset:
    """Load and validate a labelled dataset from ``.json`` or ``.npz`` (module docstring).

    Raises:
      ValueError: naming the file and what is wrong (missing file or key, unknown key, ragged or
        non-integer tokens, labels of the wrong length, ids outside ``[0, vocab_size)``, ...).
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file")
    ext = os.path.splitext(path)[1].lower()
    if ext == ".json":
        raw = _from_json(path)
    elif ext == ".npz":
        raw = _from_npz(path)
    else:
        raise ValueError(
            f"{path}: unknown format {ext or '(no extension)'!r}; expected a .json or .npz file"
        )
    unknown = sorted(set(raw) - _ALLOWED)
    if unknown:
        raise ValueError(f"{path}: unknown keys {unknown}; allowed keys are {sorted(_ALLOWED)}")
    for k in ("tokens", "labels"):
        if k not in raw:
            raise ValueError(
                f"{path}: missing {k!r} (expected keys 'tokens', 'labels' and optionally "
                "'vocab_size')"
            )
    tokens, labels = raw["tokens"], raw["labels"]
    B = tokens.shape[0]
    if B == 0 or tokens.shape[1] == 0:
        raise ValueError(
            f"{path}: 'tokens' must hold at least one sequence of at least one token, "
            f"got shape {tokens.shape}"
        )
    if labels.shape[0] != B:
        raise ValueError(
            f"{path}: 'labels' has {labels.shape[0]} entries but 'tokens' has {B} sequences"
        )
    inferred = "vocab_size" not in raw
    vocab = (
        int(tokens.max()) + 1
        if inferred
        else _int_scalar(f"{path}: 'vocab_size'", raw["vocab_size"])
    )
    if tokens.max() >= vocab:
        i, j = np.argwhere(tokens >= vocab)[0]
        raise ValueError(
            f"{path}: tokens[{i}][{j}] = {tokens[i, j]} is outside [0, vocab_size = {vocab})"
        )
    if "num_classes" in raw:
        C = _int_scalar(f"{path}: 'num_classes'", raw["num_classes"])
        if labels.max() >= C:
            i = int(np.argmax(labels >= C))
            raise ValueError(f"{path}: labels[{i}] = {labels[i]} is outside [0, num_classes = {C})")
    else:
        C = int(labels.max()) + 1
    name = str(raw.get("name", os.path.basename(path)))
    return LabelledDataset(tokens, labels, vocab, C, name, inferred)


def save_dataset(
    path: str, tokens_BxN, labels_B, vocab_size: int, num_classes: int | None = None, name: str = ""
) -> str:
    """Write a dataset that :func:`load_dataset` reads back (``.json`` or ``.npz`` by extension)."""
    tokens = np.asarray(tokens_BxN, np.int64)
    labels = np.asarray(labels_B, np.int64)
    ext = os.path.splitext(str(path))[1].lower()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    extra = {} if num_classes is None else {"num_classes": int(num_classes)}
    if name:
        extra["name"] = name
    if ext == ".json":
        with open(path, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "tokens": tokens.tolist(),
                    "labels": labels.tolist(),
                    "vocab_size": int(vocab_size),
                    **extra,
                },
                f,
            )
    elif ext == ".npz":
        np.savez(
            path,
            tokens=tokens,
            labels=labels,
            vocab_size=np.int64(vocab_size),
            **{k: np.asarray(v) for k, v in extra.items()},
        )
    else:
        raise ValueError(f"path: expected a .json or .npz file name, got {path!r}")
    return str(path)
