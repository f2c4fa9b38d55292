"""What the library reads from and writes to disk: labelled datasets of token sequences (for
``transformer-theory certify``) and single models as ``.npz`` (witnesses, constructions).

The mathematics (``theory/``, ``core/``, ``constructions/``) never touches files; the commands and
experiments call these functions at the edge.

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
import zipfile

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from transformer_theory.jsonio import dumps_json, loads_json, write_json, write_npz
from transformer_theory.params import (
    ModelConfig,
    ModelParams,
    config_dict,
    init_params,
    validate_params,
)

INT64_MAX = int(np.iinfo(np.int64).max)

_ALLOWED = {"tokens", "labels", "vocab_size", "num_classes", "name", "description"}


@dataclasses.dataclass(frozen=True)
class DatasetSummary:
    """What a dataset is (:meth:`LabelledDataset.summary`; ``certify.json``'s ``dataset``)."""

    name: str
    num_examples: int
    seq_len: int
    vocab_size: int
    vocab_size_inferred: bool
    num_classes: int
    last_tokens: tuple[int, ...]


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

    def summary(self) -> DatasetSummary:
        B, N = self.tokens_BxN.shape
        return DatasetSummary(
            name=self.name,
            num_examples=int(B),
            seq_len=int(N),
            vocab_size=int(self.vocab_size),
            vocab_size_inferred=bool(self.vocab_size_inferred),
            num_classes=int(self.num_classes),
            last_tokens=tuple(sorted({int(t) for t in self.tokens_BxN[:, -1]})),
        )


def _int_scalar(where: str, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{where}: expected a positive integer, got {value!r}")
    if value <= 0:
        raise ValueError(f"{where}: expected a positive integer, got {value}")
    if value > INT64_MAX:
        raise ValueError(f"{where}: {value} is beyond the int64 range (at most 2**63 - 1)")
    return int(value)


def _int_entry(where: str, x) -> int:
    # JSON gives int/float/bool/str/None/list; only true integers are token ids or labels.
    if isinstance(x, bool) or not isinstance(x, int):
        raise ValueError(f"{where}: expected an integer, got {x!r} ({type(x).__name__})")
    if x < 0:
        raise ValueError(f"{where}: expected a non-negative integer, got {x}")
    if x > INT64_MAX:
        raise ValueError(f"{where}: {x} is beyond the int64 range (at most 2**63 - 1)")
    return x


def _from_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            obj = loads_json(f.read())
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{path}: not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})"
        ) from err
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not a UTF-8 text file ({err.reason})") from err
    except ValueError as err:  # nested too deeply for the parser
        raise ValueError(f"{path}: not a dataset ({err})") from None
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
    if not zipfile.is_zipfile(path):
        raise ValueError(
            f"{path}: not an .npz archive (an .npz file is a zip of .npy arrays, as np.savez "
            "writes it)"
        )
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
        if arr.size and int(arr.max()) > INT64_MAX:  # uint64 beyond int64 would wrap negative
            where = tuple(int(i) for i in np.argwhere(arr > INT64_MAX)[0])
            raise ValueError(
                f"{path}: {k}{list(where)} = {arr[where]} is beyond the int64 range "
                "(at most 2**63 - 1)"
            )
        out[k] = arr.astype(np.int64)
    for k in ("vocab_size", "num_classes"):
        if k in out:
            arr = out[k]
            if arr.ndim != 0 or not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(
                    f"{path}: {k!r} must be a 0-d integer array, got dtype {arr.dtype} "
                    f"shape {arr.shape}"
                )
            out[k] = _int_scalar(f"{path}: {k!r}", arr.item())
    for k in ("name", "description"):
        if k in out:
            out[k] = str(out[k])
    return out


def dataset_memory_bytes(path: str) -> int:
    """An upper estimate of the peak bytes :func:`load_dataset` needs for ``path``, from the file
    alone (nothing parsed): a JSON file becomes Python lists, then int64 arrays -- about 8 bytes
    of list slot and 8 of array per token of at least 2 characters (digit and separator), so 10x
    its size; an NPZ's arrays are read at their uncompressed sizes (from the zip directory) and
    converted to int64 (2x). 0 for a file that is not there (the loader names that error)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        return 0
    if os.path.splitext(path)[1].lower() == ".npz":
        try:
            with zipfile.ZipFile(path) as z:
                return 2 * sum(info.file_size for info in z.infolist())
        except (zipfile.BadZipFile, OSError):
            return 0
    return 10 * os.path.getsize(path)


def load_dataset(path: str) -> LabelledDataset:
    """Load and validate a labelled dataset from ``.json`` or ``.npz`` (module docstring).

    Raises:
      ValueError: naming the file and what is wrong (missing file or key, unknown key, ragged or
        non-integer tokens, labels of the wrong length, ids outside ``[0, vocab_size)``, ...).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a directory; expected a .json or .npz dataset file")
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file")
    if not os.path.isfile(path):
        raise ValueError(f"{path}: not a regular file; expected a .json or .npz dataset file")
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
    path: str,
    tokens_BxN: ArrayLike,
    labels_B: ArrayLike,
    vocab_size: int,
    num_classes: int | None = None,
    name: str = "",
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
        write_json(
            path,
            {
                "tokens": tokens.tolist(),
                "labels": labels.tolist(),
                "vocab_size": int(vocab_size),
                **extra,
            },
            indent=None,
        )
    elif ext == ".npz":
        write_npz(
            path,
            dict(
                tokens=tokens,
                labels=labels,
                vocab_size=np.int64(vocab_size),
                **{k: np.asarray(v) for k, v in extra.items()},
            ),
        )
    else:
        raise ValueError(f"path: expected a .json or .npz file name, got {path!r}")
    return str(path)


# --------------------------------------------------------------------------------------------
# One model as .npz
# --------------------------------------------------------------------------------------------
_CONFIG_KEY = "__config__"


def save_model(path: str, params: ModelParams) -> str:
    """Save one model as ``.npz``: every leaf under its pytree path, plus the config as JSON.

    Returns the path written (``.npz`` appended if missing).
    """
    validate_params(params)
    if params.batch_shape:
        raise ValueError(f"params: save one model, got a batch of shape {params.batch_shape}")
    path = str(path)
    if not path.endswith(".npz"):
        path += ".npz"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    leaves = jax.tree_util.tree_flatten_with_path(params)[0]
    arrays = {jax.tree_util.keystr(p): np.asarray(x) for p, x in leaves}
    arrays[_CONFIG_KEY] = np.array(dumps_json(config_dict(params.config)))
    return write_npz(path, arrays)


def load_model(path: str) -> ModelParams:
    """Load a model written by :func:`save_model` (dtype as saved; float64 needs
    ``jax_enable_x64``).

    Raises:
      ValueError: the file is missing, is not a witness file, or its arrays do not fit its config.
    """
    if not os.path.isfile(path):
        raise ValueError(f"path: no such file {path!r}")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"path: {path!r} is not an .npz archive")
    try:
        data = np.load(path, allow_pickle=False)
    except Exception as err:  # noqa: BLE001 -- any unreadable file is the user's error
        raise ValueError(f"path: {path!r} is not a readable .npz file ({err})") from err
    with data:
        if _CONFIG_KEY not in data.files:
            raise ValueError(
                f"path: {path!r} has no {_CONFIG_KEY} entry; not written by save_model"
            )
        try:
            config = ModelConfig(**json.loads(str(data[_CONFIG_KEY])))
        except (TypeError, json.JSONDecodeError) as err:
            raise ValueError(f"path: the config stored in {path!r} is invalid ({err})") from err
        # Only the structure and shapes are needed: eval_shape traces init without computing it.
        template = jax.eval_shape(lambda: init_params(jax.random.PRNGKey(0), config))
        paths, treedef = jax.tree_util.tree_flatten_with_path(template)
        leaves = []
        for p, x in paths:
            name = jax.tree_util.keystr(p)
            if name not in data.files:
                raise ValueError(
                    f"path: {path!r} lacks the array {name!r} that the config requires"
                )
            arr = data[name]
            if arr.shape != x.shape:
                raise ValueError(
                    f"path: array {name!r} has shape {arr.shape}, the config needs {x.shape}"
                )
            leaves.append(jnp.asarray(arr))
    return jax.tree_util.tree_unflatten(treedef, leaves)
