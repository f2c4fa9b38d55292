"""This compiler beside tracr (Lindner et al. 2023) on tracr's own library programs: writes
``experiments/results/rasp_table.json``, from which ``docs/rasp.md``'s table is generated
(:func:`markdown`).

Runs only where tracr is installed, in its own environment (the recipe is
``transformer_theory.rasp._tracr.INSTALL``)::

    /tmp/tracr-venv/bin/python experiments/rasp_table.py --out experiments/results/rasp_table.json
    python experiments/rasp_table.py --print experiments/results/rasp_table.json  # the table

Per program (translated by :func:`transformer_theory.rasp._tracr.from_tracr`): layers, residual
width and parameters of both compiled models (at ``--size``); this compiler's exact length in
float32 by enumeration (the model compiled for ``--enumerate`` checked on every input of every
length up to it, every node at every position) and by certificate
(:func:`transformer_theory.rasp.certified_length`, lengths up to ``--certify``); tracr's exact
length in float32 at its default constants (``mlp_exactness=100``) and at ``mlp_exactness=1000``:
its model compiled for ``--tracr-len``, ``--samples`` seeded inputs of each length ``1..`` against
its own interpreter, the last length before the first wrong position.
"""

import dataclasses
import datetime
import importlib.metadata
import os
import platform
import sys
import time

from transformer_theory.cli._common import EXIT_USAGE, script_options
from transformer_theory.settings import setting

COLUMNS = (
    ("program", "program"),
    ("layers", "layers ours / tracr (N = {size})"),
    ("width", "residual width ours / tracr (N = {size})"),
    ("parameters", "parameters ours / tracr (N = {size})"),
    ("enumerated", "ours, every input up to {enumerate} (float32)"),
    ("certified", "ours, certified length (float32, tried up to {certify})"),
    (
        "tracr_default",
        "tracr compiled for {tracr_len}, {samples} seeded inputs per length (float32, "
        "mlp_exactness 100)",
    ),
    ("tracr_1000", "tracr, the same at mlp_exactness 1000"),
)


def _tracr_model(program, vocab, n, causal, exactness):
    import jax
    from tracr.compiler import compiling

    with jax.numpy_rank_promotion("allow"):
        return compiling.compile_rasp_to_model(
            program, set(vocab), n, causal=causal, compiler_bos="BOS", mlp_exactness=exactness
        )


def _tracr_sizes(model):
    import jax
    import numpy as np

    leaves = jax.tree.leaves(model.params)
    return {
        "layers": int(model.model_config.num_layers),
        "width": len(model.residual_labels),
        "parameters": int(sum(np.asarray(x).size for x in leaves)),
    }


def _tracr_exact(program, vocab, n, causal, exactness, samples):
    """tracr's model compiled for ``n`` at ``mlp_exactness=exactness`` on ``samples`` seeded
    inputs of each length ``1..n`` against tracr's interpreter (a causal program's meaning at a
    position is its prefix's): the last length before the first wrong position, and that
    position. Positions where tracr's interpreter says None are skipped, as tracr's own tests
    skip them."""
    import numpy as np
    from tracr.rasp import rasp as tr

    from transformer_theory.rasp import _compiler as compiler
    from transformer_theory.rasp import _tracr

    model = _tracr_model(program, vocab, n, causal, exactness)
    rng = np.random.default_rng(0)
    ours = _tracr.from_tracr(program)
    values = None
    for length in range(1, n + 1):
        inputs = [[vocab[i] for i in rng.integers(len(vocab), size=length)] for _ in range(samples)]
        got, raw = _tracr.run_tracr(model, inputs, "float32")
        if raw is not None and values is None:
            values = compiler._Builder(vocab, n).node(ours).values
        near = _tracr._nearest(values) if raw is not None else (lambda v: v)
        for k, xs in enumerate(inputs):
            want = tr.evaluate(program, xs)
            if causal:
                want = [tr.evaluate(program, xs[: i + 1])[i] for i in range(len(xs))]
            for i, (g, w) in enumerate(zip(got[k], want)):
                if w is not None and near(g) != near(w):
                    first = {"input": xs, "position": i, "want": repr(w), "got": repr(g)}
                    return {"exact_through": length - 1, "max_seq_len": n, "first_wrong": first}
    return {"exact_through": n, "max_seq_len": n, "first_wrong": None}


def measure(name, tprog, vocab, causal, args) -> dict:
    """The table's row for one tracr program (see the module docstring)."""
    from transformer_theory import rasp
    from transformer_theory.rasp import _tracr
    from transformer_theory.rasp._certificate import DEFAULT_LENGTHS

    t0 = time.time()
    prog = _tracr.from_tracr(tprog)
    row = {"program": name, "vocab": [repr(v) for v in vocab], "causal": causal}
    try:
        ours = rasp.compile(prog, vocab, args.size, causal)
    except ValueError as err:
        row["compiled"] = False
        row["refused"] = str(err)
        return row
    row["compiled"] = True
    s = ours.sizes()
    row["ours"] = {k: s[k] for k in ("layers", "residual_width", "parameters")}
    row["tracr"] = _tracr_sizes(_tracr_model(tprog, vocab, args.size, causal, 100))
    model = rasp.compile(prog, vocab, args.enumerate, causal)
    rec = rasp.check(model, dtype="float32", max_inputs=10**6)
    row["enumerated"] = {
        "max_seq_len": args.enumerate,
        "inputs": rec["inputs_checked"],
        "exact": bool(rec["agree"] and not rec["internal_disagreements"]),
        "sampled_lengths": rec["sampled_lengths"],
    }
    cert = rasp.certified_length(
        prog,
        vocab,
        "float32",
        lengths=[n for n in DEFAULT_LENGTHS if n <= args.certify],
        causal=causal,
    )
    row["certified"] = {k: cert[k] for k in ("certified_length", "first_failure", "largest_tried")}
    row["certified"]["limited_by"] = cert["rows"][-1]["limited_by"]
    for key, ex in (("tracr_default", 100), ("tracr_1000", 1000)):
        row[key] = _tracr_exact(tprog, vocab, args.tracr_len, causal, ex, args.samples)
    row["seconds"] = round(time.time() - t0, 1)
    return row


def _settings(args) -> dict:
    return {
        "size": args.size,
        "enumerate": args.enumerate,
        "certify": args.certify,
        "tracr_len": args.tracr_len,
        "samples": args.samples,
    }


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _commit() -> str:
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return (head or "unknown") + (" (with uncommitted changes)" if dirty else "")


def study(args, previous: dict | None = None, progress=print) -> dict:
    """The record, one program at a time: rows of ``previous`` measured with the same settings
    are kept and the programs without one measured (with ``args.only``: those programs,
    measured again), the whole record (valid JSON, ``missing`` naming the programs not yet
    measured) written atomically to ``args.out`` after each row."""
    from transformer_theory import jsonio
    from transformer_theory.rasp import _tracr

    settings = _settings(args)
    kept = {}
    if previous is not None and previous.get("settings") == settings:
        kept = {r["program"]: r for r in previous.get("programs", [])}
    programs = _tracr.tracr_programs(args.tracr_len)
    order = list(programs)
    todo = [n for n in order if (n in args.only if args.only else n not in kept)]
    versions = {p: _version(p) for p in ("jax", "dm-haiku", "numpy")}
    rec = {
        "programs": [],
        "missing": [],
        "settings": settings,
        "tracr_commit": _tracr.TRACR_COMMIT,
        "produced_by": (
            "/tmp/tracr-venv/bin/python experiments/rasp_table.py "
            f"--size {args.size} --enumerate {args.enumerate} --certify {args.certify} "
            f"--tracr-len {args.tracr_len} --samples {args.samples}"
        ),
        "environment": f"{platform.machine()}, "
        + ", ".join(f"{k} {v}" for k, v in versions.items()),
        "commits": [],
    }

    def update():
        rec["programs"] = [kept[n] for n in order if n in kept]
        rec["missing"] = [n for n in order if n not in kept]
        rec["commits"] = sorted({r["commit"] for r in rec["programs"] if "commit" in r})

    update()
    commit = _commit()  # the code this process imported, read once at its start
    for k, name in enumerate(todo, 1):
        tprog, vocab, causal = programs[name]
        row = measure(name, tprog, vocab, causal, args)
        row["commit"] = commit
        row["date"] = datetime.date.today().isoformat()
        kept[name] = row
        update()
        jsonio.write_json(args.out, rec)
        progress(
            f"[{k}/{len(todo)}] {name}: {row.get('seconds', 0)} s, "
            f"certified {row.get('certified')}, tracr exact through "
            f"{row.get('tracr_default', {}).get('exact_through')} (mlp_exactness 100) / "
            f"{row.get('tracr_1000', {}).get('exact_through')} (1000); "
            f"missing {rec['missing']}"
        )
    return rec


def _cell(row, key):
    if row.get("compiled") is None:
        return "not measured" if key != "program" else row["program"]
    if not row.get("compiled"):
        return "refused" if key != "program" else row["program"]
    if key == "program":
        return row["program"] + (" (causal)" if row.get("causal") else "")
    if key == "layers":
        return f"{row['ours']['layers']} / {row['tracr']['layers']}"
    if key == "width":
        return f"{row['ours']['residual_width']} / {row['tracr']['width']}"
    if key == "parameters":
        return f"{row['ours']['parameters']:,} / {row['tracr']['parameters']:,}"
    if key == "enumerated":
        e = row["enumerated"]
        return f"exact ({e['inputs']:,} inputs)" if e["exact"] else "WRONG"
    if key == "certified":
        c = row["certified"]
        if c["first_failure"] is None:
            return f"{c['certified_length']} (every length tried)"
        return f"{c['certified_length']} (not {c['first_failure']})"
    t = row[key]
    if t["exact_through"] == t["max_seq_len"]:
        return f"right through {t['max_seq_len']}"
    return f"right through {t['exact_through']}, wrong at {t['exact_through'] + 1}"


def markdown(record: dict) -> str:
    """The table of ``record`` (the JSON this script writes) as Markdown, the programs not yet
    measured as such."""
    heads = [h.format(**record["settings"]) for _, h in COLUMNS]
    head = "| " + " | ".join(heads) + " |"
    sep = "|" + "|".join("---" for _ in COLUMNS) + "|"
    rows = [*record["programs"], *({"program": n} for n in record.get("missing", []))]
    body = ["| " + " | ".join(_cell(r, k) for k, _ in COLUMNS) + " |" for r in rows]
    return "\n".join([head, sep, *body])


@dataclasses.dataclass(frozen=True)
class RaspTableSettings:
    """What the table measures, where its record goes, or the record to print.

    Attributes:
      out: the JSON record to write (and resume from).
      print: print RECORD's table as Markdown (no tracr needed).
      size: max_seq_len of the size columns.
      enumerate: max_seq_len enumerated.
      certify: longest length certified.
      tracr_len: tracr's max_seq_len.
      samples: seeded inputs per length (tracr).
      only: measure only these programs (several words or a comma list).
      restart: ignore the rows already in --out.
    """

    out: str | None = None
    print: str | None = setting(None, metavar="RECORD")  # noqa: A003 - the option's word
    size: int = setting(5, positive=True)
    enumerate: int = setting(5, positive=True)  # noqa: A003 - the option's word
    certify: int = setting(32, positive=True)
    tracr_len: int = setting(16, positive=True)
    samples: int = setting(8, positive=True)
    only: tuple[str, ...] | None = setting(None, words=True)
    restart: bool = False


def _refuse(message: str) -> int:
    print(f"rasp_table: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    (args,) = script_options(argv, RaspTableSettings, description=__doc__.split("\n\n")[0])
    from transformer_theory import jsonio

    if args.print:
        print(markdown(jsonio.read_json(args.print)))
        return 0
    if not args.out:
        return _refuse("--out: required (or --print RECORD)")
    from transformer_theory.rasp import _tracr

    unknown = sorted(set(args.only or ()) - set(_tracr.TRACR_PROGRAMS))
    if unknown:
        return _refuse(f"--only: unknown programs {unknown}; known: {list(_tracr.TRACR_PROGRAMS)}")
    import jax

    jax.config.update("jax_enable_x64", True)
    previous = None
    if os.path.exists(args.out) and not args.restart:
        previous = jsonio.read_json(args.out)
    rec = study(args, previous, progress=lambda s: print(s, file=sys.stderr, flush=True))
    print(markdown(rec))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
