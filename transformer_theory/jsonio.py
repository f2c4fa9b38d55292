"""The one JSON writer (and the one CSV writer) of the library: strict JSON, written atomically.

Python's ``json`` writes ``NaN`` and ``Infinity`` by default, which are not JSON: a strict parser
(``jq``, JavaScript, ``json.loads(..., parse_constant=...)`` that refuses them) rejects the whole
file. Every record the library writes goes through :func:`write_json` (files) or
:func:`dumps_json` (printed lines), which

- turn NumPy / JAX scalars and arrays into plain numbers and lists, dataclasses into dicts of
  their fields (a field declared with :func:`optional` is left out while it is ``None``),
  tuples into lists, and anything else into ``str`` only where ``default=str`` is asked for;
- replace every non-finite float by ``null`` and, when the top level is a dict, list what was
  replaced under ``"nonfinite"`` (``{"rows[3].loss": "nan"}``), so a reader sees *why* a value is
  missing instead of a silent gap;
- serialize with ``allow_nan=False`` (a non-finite value that slipped through raises, never
  writes), to a temporary file that is renamed over the target, so an interrupted run leaves
  either the previous file or the new one, never half of one.

:func:`write_csv` writes tables the same way (atomically, non-finite values as empty cells).

A study returns a typed record (a frozen dataclass); :func:`write_json` is the one way it
becomes a file, and :func:`from_jsonable` (or :func:`read_record`) the one way a file becomes the
record again (``--resume``): the fields' type hints rebuild nested records, tuples and
dictionaries, and the ``"nonfinite"`` list puts back the floats written as ``null``.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import dataclasses
import errno
import io
import json
import math
import os
import tempfile
import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, BinaryIO, Literal, TypeVar

import numpy as np

__all__ = [
    "ABSENT",
    "as_record",
    "atomic_file",
    "dumps_json",
    "from_jsonable",
    "loads_json",
    "optional",
    "read_json",
    "read_record",
    "to_jsonable",
    "write_bytes",
    "write_csv",
    "write_figure",
    "write_json",
    "write_npz",
    "write_text",
]


_OPTIONAL = "transformer_theory.jsonio.optional"


class _Absent:
    """:data:`ABSENT`: no value at all (where ``None`` is a value the record writes as ``null``)."""

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


#: The default of an :func:`optional` field whose ``None`` is written (``null``) and whose key
#: some records lack altogether.
ABSENT: Any = _Absent()


def optional(default: Any = None) -> Any:
    """A dataclass field whose key the JSON record has only when the value is not ``default``
    (``None``: a part of the study that was not asked for, ``rasp.json``'s
    ``precision_limits``; :data:`ABSENT` where ``None`` is itself written as ``null``)."""
    return dataclasses.field(default=default, metadata={_OPTIONAL: True})


def _label(x: float) -> str:
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def to_jsonable(obj: Any, *, default_str: bool = False) -> tuple[Any, dict[str, str]]:
    """``(clean, nonfinite)``: ``obj`` as plain JSON values, and the paths of non-finite floats.

    ``nonfinite`` maps a path such as ``"rows[3].loss"`` to ``"nan"``, ``"inf"`` or ``"-inf"``;
    the value at that path in ``clean`` is ``None``. Raises ``TypeError`` for an object JSON cannot
    hold, unless ``default_str`` (then it is written as ``str(obj)``).
    """
    bad: dict[str, str] = {}

    def walk(x, path):
        if x is None or isinstance(x, (bool, str)):
            return x
        if isinstance(x, (np.bool_,)):
            return bool(x)
        if isinstance(x, (int, np.integer)):
            return int(x)
        if isinstance(x, (float, np.floating)):
            v = float(x)
            if not math.isfinite(v):
                bad[path or "$"] = _label(v)
                return None
            return v
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            return {
                f.name: walk(getattr(x, f.name), f"{path}.{f.name}" if path else f.name)
                for f in dataclasses.fields(x)
                if not (f.metadata.get(_OPTIONAL) and getattr(x, f.name) is f.default)
            }
        if isinstance(x, Mapping):
            return {str(k): walk(v, f"{path}.{k}" if path else str(k)) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(x)]
        if hasattr(x, "__array__") and hasattr(x, "shape"):
            arr = np.asarray(x)
            if arr.ndim == 0:
                return walk(arr.item(), path)
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(arr.tolist())]
        if default_str:
            return str(x)
        raise TypeError(f"{path or '$'}: {type(x).__name__} is not JSON serializable")

    return walk(obj, ""), bad


def _prepare(obj: Any, default_str: bool) -> Any:
    clean, bad = to_jsonable(obj, default_str=default_str)
    if bad and isinstance(clean, dict):
        clean = {**clean, "nonfinite": {**clean.get("nonfinite", {}), **bad}}
    return clean


def dumps_json(obj: Any, *, indent: int | None = None, default_str: bool = False) -> str:
    """Strict JSON text of ``obj`` (see :func:`to_jsonable`)."""
    return json.dumps(_prepare(obj, default_str), indent=indent, allow_nan=False)


def write_json(path: str, obj: Any, *, indent: int | None = 1, default_str: bool = False) -> str:
    """Write ``obj`` as strict JSON to ``path`` atomically; returns ``path``.

    The parent directory is created if needed. The text is built before the file is opened, so a
    value JSON cannot hold raises without touching an existing file.
    """
    return write_text(
        path, dumps_json(obj, indent=indent, default_str=default_str) + "\n", suffix=".json"
    )


def _csv_cell(value: Any) -> Any:
    value, _ = to_jsonable(value, default_str=True)
    if isinstance(value, (list, dict)):
        return json.dumps(value, allow_nan=False)
    return value


def write_csv(
    path: str,
    rows: Sequence[Mapping[str, Any]],
    fieldnames: Sequence[str] | None = None,
    *,
    extrasaction: Literal["raise", "ignore"] = "raise",
) -> str:
    """Write ``rows`` as a CSV table to ``path`` atomically; returns ``path``.

    ``fieldnames``: the columns in order (default: every key of every row, first seen first); a
    row lacking a column gets an empty cell. ``extrasaction="ignore"`` drops keys that are not
    columns (``"raise"``, the default, refuses them). Values go through :func:`to_jsonable`:
    non-finite floats become empty cells, lists and dicts become JSON text.
    """
    if fieldnames is None:
        fieldnames = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=list(fieldnames), extrasaction=extrasaction)
    w.writeheader()
    for r in rows:
        w.writerow({k: _csv_cell(v) for k, v in r.items()})
    return write_text(path, buf.getvalue(), suffix=".csv")


def _umask() -> int:
    """The process's umask: read from ``/proc/self/status`` (Linux 4.7+), else by setting and
    restoring it (not thread-safe for that instant, hence the first choice)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_file(path: str, *, suffix: str = "") -> Iterator[BinaryIO]:
    """A binary file that becomes ``path`` whole or not at all: the one way the library writes.

    The bytes go to a temporary file in ``path``'s own directory (created if needed), which is
    flushed, synced and renamed over ``path`` (``os.replace``) when the block ends without an
    error; on any error -- a full disk (``OSError(ENOSPC)``), Ctrl-C -- the temporary file is
    removed and an existing ``path`` is left as it was. ``os.replace`` replaces a directory
    entry: a symbolic link planted at ``path`` is itself replaced, never written through, and the
    temporary name (``mkstemp``'s, ``O_EXCL``) cannot be one. A ``path`` that is a directory is
    refused before anything is written.

    The file gets the mode ``open()`` would give it (``0o666`` less the umask), not the ``0o600``
    of the temporary file, so results stay readable by the group and others as the umask allows.
    """
    path = os.fspath(path)
    if os.path.isdir(path) and not os.path.islink(path):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o666 & ~_umask())
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_bytes(path: str, data: bytes, *, suffix: str = "") -> str:
    """Write ``data`` to ``path`` atomically (:func:`atomic_file`); returns ``path``."""
    with atomic_file(path, suffix=suffix) as f:
        f.write(data)
    return path


def write_text(path: str, text: str, *, suffix: str = ".txt") -> str:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_file`); returns ``path``."""
    return write_bytes(path, text.encode("utf-8"), suffix=suffix)


def write_npz(path: str, arrays: Mapping[str, Any]) -> str:
    """``np.savez(path, **arrays)`` atomically (:func:`atomic_file`): a full disk or an interrupt
    leaves no truncated archive; returns ``path`` (which should end in ``.npz``: unlike
    ``np.savez`` on a name, nothing is appended)."""
    with atomic_file(path, suffix=".npz") as f:
        np.savez(f, **arrays)
    return path


def write_figure(fig: Any, path: str, **savefig_kwargs: Any) -> str:
    """``fig.savefig(path, ...)`` atomically (:func:`atomic_file`); the format is ``path``'s
    extension, as ``savefig`` reads it from a name; returns ``path``."""
    ext = os.path.splitext(path)[1]
    savefig_kwargs.setdefault("format", ext[1:].lower() or "png")
    with atomic_file(path, suffix=ext) as f:
        fig.savefig(f, **savefig_kwargs)
    return path


def _refuse_constant(name: str):
    raise ValueError(f"not strict JSON: {name}")


def read_json(path: str) -> Any:
    """Read a JSON file strictly: ``NaN`` / ``Infinity`` literals raise ``ValueError``, and so
    does nesting too deep for Python's parser (``RecursionError`` inside ``json``)."""
    with open(path, encoding="utf-8") as f:
        return loads_json(f.read(), parse_constant=_refuse_constant)


def loads_json(text: str | bytes, **kwargs: Any) -> Any:
    """``json.loads`` whose ``RecursionError`` on deeply nested input (``[[[...]]]`` 200,000
    deep) is a ``ValueError`` like any other malformed text."""
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


R = TypeVar("R")
_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _restore(data: Any, path: str, value: float) -> None:
    """Put ``value`` back at ``path`` (``"rows[3].loss"``, as :func:`to_jsonable` names it)."""
    steps: list[Any] = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        if name:
            steps.append(name)
        steps += [int(i) for i in rest.rstrip("]").split("][")] if rest else []
    target = data
    for step in steps[:-1]:
        target = target[step]
    if target[steps[-1]] is not None:
        raise ValueError(f"nonfinite: {path} is {target[steps[-1]]!r} in the record, not null")
    target[steps[-1]] = value


def from_jsonable(kind: type[R], data: Any, path: str = "$") -> R:
    """The value of type ``kind`` that :func:`to_jsonable` wrote as ``data``: a dataclass from
    its dict (by the fields' type hints, nested records, ``tuple[...]``, ``list[...]``,
    ``dict[str, ...]`` and ``X | None`` rebuilt; a missing key takes the field's default), the
    non-finite floats listed under a top-level ``"nonfinite"`` put back. ``ValueError`` naming
    the path for a missing key without a default, a key the record has no field for, or a
    value of the wrong kind."""
    if isinstance(data, dict) and path == "$" and "nonfinite" in data:
        is_field = dataclasses.is_dataclass(kind) and "nonfinite" in {
            f.name for f in dataclasses.fields(kind)
        }
        if not is_field:
            data = copy.deepcopy(data)  # a copy to restore into
            for where, label in data.pop("nonfinite").items():
                _restore(data, where, _NONFINITE[label])
    return _build(kind, data, path)


def _build(kind: Any, data: Any, path: str) -> Any:
    if kind is Any or kind is object:
        return data
    origin = typing.get_origin(kind) or (kind if kind in (tuple, list, dict) else None)
    if origin is typing.Union or origin is types.UnionType:
        options = typing.get_args(kind)
        if data is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _build(option, data, path)
            except ValueError as err:
                errors.append(str(err))
        raise ValueError(errors[0] if len(errors) == 1 else f"{path}: no type of {kind} fits")
    if origin is Literal:
        if data not in typing.get_args(kind):
            raise ValueError(f"{path}: expected one of {typing.get_args(kind)}, got {data!r}")
        return data
    if dataclasses.is_dataclass(kind):
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected an object for {kind.__name__}")
        hints = typing.get_type_hints(kind)
        fields = {f.name: f for f in dataclasses.fields(kind) if f.init}
        unknown = sorted(set(data) - set(fields))
        if unknown:
            raise ValueError(f"{path}: {kind.__name__} has no field {unknown[0]!r}")
        values = {}
        for name, f in fields.items():
            if name in data:
                values[name] = _build(hints[name], data[name], f"{path}.{name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueError(f"{path}: {kind.__name__} needs {name!r}")
        return kind(**values)
    if origin in (tuple, list):
        if not isinstance(data, list):
            raise ValueError(f"{path}: expected a list, got {type(data).__name__}")
        args = typing.get_args(kind)
        if origin is tuple and args and args[-1] is not Ellipsis:
            if len(args) != len(data):
                raise ValueError(f"{path}: expected {len(args)} items, got {len(data)}")
            return tuple(_build(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, data)))
        item = args[0] if args else Any
        built = [_build(item, v, f"{path}[{i}]") for i, v in enumerate(data)]
        return tuple(built) if origin is tuple else built
    if origin is dict:
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected an object, got {type(data).__name__}")
        value = typing.get_args(kind)[1] if typing.get_args(kind) else Any
        return {k: _build(value, v, f"{path}.{k}") for k, v in data.items()}
    if kind is float:
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            return float(data)
    elif kind in (int, str, bool):
        if isinstance(data, kind) and not (kind is int and isinstance(data, bool)):
            return data
    else:
        raise TypeError(f"{path}: from_jsonable cannot build {kind!r}")
    raise ValueError(f"{path}: expected {kind.__name__}, got {data!r}")


def as_record(kind: type[R], obj: Any) -> R:
    """``obj`` (a study's dict, as it would be written) as the typed record ``kind``: exactly
    what :func:`write_json` then :func:`read_record` would give, without the file."""
    return from_jsonable(kind, _prepare(obj, False))


def read_record(path: str, kind: type[R]) -> R:
    """The typed record ``kind`` of the JSON file ``path`` (:func:`read_json`, then
    :func:`from_jsonable`)."""
    return from_jsonable(kind, read_json(path))
