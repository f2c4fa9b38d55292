"""Every notebook's prose that names a number or a rate agrees with the output the site shows.

The site executes the notebooks at smoke size (``TT_NOTEBOOK_SMOKE=1``), and a text written for
the full size read wrong under smoke outputs (notebook 11 printed "exact up to 12 (first failure
None)" under a text about the failure; 07 printed ALiBi "collapses ~ n^-0.83" after "no
collapse"). Each entry of :data:`CLAIMS` is one such statement: the words in a Markdown cell (they
must still be there: a reworded text fails here until its entry follows) and what the outputs of
the code cells after it, up to the next Markdown cell, must show. Every output is also read for
NumPy scalar reprs (``np.int64(9)``), which a reader should never see.

The executed notebooks are the documentation build's (MyST-NB writes them to
``docs/_build/jupyter_execute/notebooks``; ``TT_EXECUTED_NOTEBOOKS`` names another folder);
without them the test skips, unless ``TT_EXECUTED_NOTEBOOKS`` names the folder (``.ci/run``, after
the build): then a missing notebook fails.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXECUTED = Path(
    os.environ.get(
        "TT_EXECUTED_NOTEBOOKS", ROOT / "docs" / "_build" / "jupyter_execute" / "notebooks"
    )
)


def _numbers(pattern: str, text: str) -> list[float]:
    return [float(m) for m in re.findall(pattern, text)]


def _alibi_plateaus(out: str) -> bool:
    return bool(re.search(r"^alibi .*plateau at [0-9.]+: no collapse", out, flags=re.M)) and bool(
        re.search(r"^sinusoidal .*no collapse", out, flags=re.M)
    )


def _limit_reached(out: str) -> bool:
    """``n * distance`` ends within 5% of the derived ``K``."""
    k = _numbers(r"K derived from the weights: ([0-9.]+)", out)
    tail = re.search(r"n \* distance \(float64\):\s*\[([^\]]*)\]", out)
    if not k or not tail:
        return False
    last = float(tail.group(1).split()[-1])
    return abs(last - k[0]) <= 0.05 * k[0]


def _tracr_constant_fails(out: str) -> bool:
    """Tracr's constant: guaranteed to 9 (N (N + 1) <= 100), a failure within the lengths tried;
    the law's constant: no failure."""
    tracr = re.search(
        r"slope 100\.0: exact up to (\d+) \(first failure (\d+)\); the law guarantees up to 9\b",
        out,
    )
    law = re.search(r"slope None: exact up to (\d+) \(first failure none up to (\d+)\)", out)
    return bool(tracr and law and int(tracr.group(1)) >= 9 and law.group(1) == law.group(2))


def _memory_slopes(out: str) -> bool:
    """Dense attention's memory slope about 1.8 (tending to 2), the sub-quadratic ones about 1."""
    slopes = dict(re.findall(r"^\s*(\w+): time slope [-0-9.]+, memory slope ([0-9.]+)", out, re.M))
    if "dense" not in slopes or len(slopes) < 2:
        return False
    others = [float(v) for k, v in slopes.items() if k != "dense"]
    return abs(float(slopes["dense"]) - 1.8) <= 0.15 and all(abs(v - 1.0) <= 0.05 for v in others)


def _every_row_exact(out: str) -> bool:
    rows = re.findall(r"accuracy ([0-9.]+), min margin ([-0-9.e+]+)", out)
    return bool(rows) and all(float(a) == 1.0 and float(m) > 0 for a, m in rows)


def _one_bit_fewer_errs(out: str) -> bool:
    """At n = 3 the built model is right on every prompt at its bits and wrong on some with one
    fewer."""
    rows = {int(p): int(w) for p, w in re.findall(r"n = 3, p = (\d+): (\d+) of \d+ prompts", out)}
    return len(rows) == 2 and rows[max(rows)] == 0 and rows[min(rows)] > 0


def _eps_swamps(out: str) -> bool:
    """PARITY's LayerNorm margin is 4 sqrt(5) with eps = 0 (float64 and the float32 build), and
    far below it with the default eps = 1e-5."""
    zero = _numbers(r"eps = 0: \[([0-9.]+)\]", out)
    default = _numbers(r"eps = 1e-5: \[([0-9.]+)\]", out)
    single = _numbers(r"float32 build: \[([0-9.]+)\]", out)
    exact = 4 * 5**0.5  # printed to 8 (float64) and 6 (float32) decimals: the tolerances
    return bool(zero and default and single) and (
        abs(zero[0] - exact) < 1e-6 and abs(single[0] - exact) < 1e-5 and default[0] < exact / 2
    )


#: ``(notebook, words of its prose, what the outputs after them must show)``.
CLAIMS: list[tuple[str, str, Callable[[str], bool]]] = [
    (
        "07_collapse_oversquashing",
        "the rate is already `n^-1`",
        lambda out: bool(re.search(r"collapses ~ n\^-(0\.9[5-9]|1\.0[0-5])", out)),
    ),
    ("07_collapse_oversquashing", "tends to a constant `K`", _limit_reached),
    ("07_collapse_oversquashing", "then stays at a constant of order", _alibi_plateaus),
    (
        "07_collapse_oversquashing",
        "the certified\nproduct-of-attention bound",
        lambda out: "bound holds True" in out and "bound holds False" not in out,
    ),
    (
        "08_efficient_heads_encdec",
        "the memory slopes already separate dense attention (1.8, tending to 2)",
        _memory_slopes,
    ),
    (
        "08_efficient_heads_encdec",
        "The blocked version gives the same output as dense attention",
        lambda out: (
            bool(_numbers(r"max \|blocked - dense masked\| = ([0-9.e+-]+)", out))
            and _numbers(r"max \|blocked - dense masked\| = ([0-9.e+-]+)", out)[0] < 1e-12
        ),
    ),
    (
        "09_formal_languages",
        "a positive smallest margin means every string was classified correctly",
        _every_row_exact,
    ),
    ("11_rasp", "`length` is guaranteed exact while\n# `N (N + 1) <= 100`", _tracr_constant_fails),
    (
        "11_rasp",
        "`parity` is certified impossible\n# from length 3, yet compiles to one layer",
        lambda out: bool(
            re.search(r"parity: attention depth 1, compiled layers 1; .* at lengths \[3\b", out)
        ),
    ),
    (
        "11_rasp",
        "`dyck1`\n# is certified at length 4 and compiles to two layers",
        lambda out: bool(
            re.search(r"dyck1: attention depth 2, compiled layers 2; .* at lengths \[4\]", out)
        ),
    ),
    (
        "06_sanford_composition",
        "right on every prompt of n = 3 at\n# its fewest exact bits, and errs with one bit fewer",
        _one_bit_fewer_errs,
    ),
    (
        "06_sanford_composition",
        "(four `(N, q)` cells at\n# smoke size",
        lambda out: out.count("'m_min'") == 4,
    ),
    (
        "07_collapse_oversquashing",
        "bfloat16 still tells the pair apart",
        lambda out: bool(re.search(r"bfloat16\s+first bit-identical length: None", out)),
    ),
    ("09_formal_languages", "The `eps` matters: the library's default `1e-5` swamps", _eps_swamps),
]


def _cells(name: str) -> list[dict]:
    path = EXECUTED / f"{name}.ipynb"
    if not path.exists():
        # named explicitly (.ci/run, after the build): a missing notebook is a failure
        assert "TT_EXECUTED_NOTEBOOKS" not in os.environ, f"{path} was not executed"
        pytest.skip(f"no executed {path.name} (the docs build writes them to {EXECUTED})")
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _text(cell: dict) -> str:
    out = []
    for o in cell.get("outputs", []):
        if "text" in o:
            out.append("".join(o["text"]))
        elif "data" in o:
            for mime in ("text/markdown", "text/plain"):
                if mime in o["data"]:
                    out.append("".join(o["data"][mime]))
                    break
    return "".join(out)


def _outputs_after(cells: list[dict], words: str) -> str:
    """The outputs of the code cells after the Markdown cell holding ``words``."""
    flat = " ".join(words.replace("#", " ").split())
    for i, cell in enumerate(cells):
        source = " ".join("".join(cell["source"]).split())
        if cell["cell_type"] == "markdown" and flat in source:
            out = []
            for after in cells[i + 1 :]:
                if after["cell_type"] == "markdown":
                    break
                out.append(_text(after))
            return "\n".join(out)
    raise AssertionError(f"the prose no longer says {words!r}: update its entry in CLAIMS")


@pytest.mark.parametrize(
    "notebook, words, holds", CLAIMS, ids=[f"{n[:2]}-{w[:30]}" for n, w, _ in CLAIMS]
)
def test_the_prose_agrees_with_the_rendered_output(notebook, words, holds):
    out = _outputs_after(_cells(notebook), words)
    assert holds(out), f"{notebook}: the text says {words!r}, the output shows:\n{out[:1500]}"


@pytest.mark.parametrize("notebook", sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_no_output_shows_a_numpy_scalar_repr(notebook):
    reprs = [
        m.group(0)
        for cell in _cells(notebook)
        for m in re.finditer(r"np\.(?:int|float|bool|uint)\w*\([^)]*\)", _text(cell))
    ]
    assert not reprs, f"{notebook}: {reprs[:3]}"


def test_the_checks_fail_on_the_outputs_that_contradicted_their_prose():
    """Each check rejects what the site showed before its notebook was fixed."""
    assert not _alibi_plateaus(
        "sinusoidal ['1.0'] no decay: no collapse\nalibi ['1.4'] collapses ~ n^-0.83"
    )
    assert not _tracr_constant_fails(
        "slope 100.0: exact up to 12 (first failure None); the law guarantees up to 9\n"
        "slope None: exact up to 12 (first failure None); the law guarantees up to 12"
    )
    assert _tracr_constant_fails(
        "slope 100.0: exact up to 12 (first failure 16); the law guarantees up to 9\n"
        "slope None: exact up to 16 (first failure none up to 16); the law guarantees up to 16"
    )
    assert not _limit_reached(
        "K derived from the weights: 13.5\nn * distance (float64): [ 1.6 10.0]"
    )
    assert _every_row_exact("x: accuracy 1.000, min margin 0.25\ny: accuracy 1.000, min margin 3")
    assert not _every_row_exact("x: accuracy 0.990, min margin -0.1")
    assert _one_bit_fewer_errs(
        "n = 3, p = 2: 1458 of 2187 prompts wrong\nn = 3, p = 3: 0 of 2187 prompts wrong"
    )
    assert not _one_bit_fewer_errs(  # exact at both: one bit fewer would not err
        "n = 3, p = 2: 0 of 2187 prompts wrong\nn = 3, p = 3: 0 of 2187 prompts wrong"
    )
    assert _eps_swamps("eps = 0: [8.94427191]  eps = 1e-5: [0.71477638]\nfloat32 build: [8.944272]")
    assert not _eps_swamps("eps = 0: [8.94427191]  eps = 1e-5: [8.9]\nfloat32 build: [8.944272]")
