"""The claims ledger: the registry is well formed, every claim reaches its expected status at the
quick tier, and the committed CLAIMS.md (the full tier) agrees with it.

One test per claim, so the quick tier spreads over the suite's workers.
"""

import pathlib
import re

import pytest

from transformer_theory import claims
from transformer_theory.cli import main
from transformer_theory.ledger import STATUSES, Checked, Row

ROOT = pathlib.Path(__file__).resolve().parents[1]
ALL = claims.runner.builtin_claims()  # the library's own rows (CLAIMS.md lists them)
CLAIMS_MD = ROOT / "CLAIMS.md"


def _committed_statuses() -> dict[str, str]:
    """``id -> status`` from the committed CLAIMS.md table rows."""
    if not CLAIMS_MD.exists():
        return {}
    out = {}
    for line in CLAIMS_MD.read_text().splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)]  # pipes in text are escaped
        if len(cells) < 5 or not cells[1].startswith("`"):
            continue
        claim_id = cells[1][1:].split("`", 1)[0]
        status = cells[3].strip("*").split("*")[0].split()[0].strip() if cells[3] else ""
        if status in STATUSES:
            out[claim_id] = status
    return out


COMMITTED = _committed_statuses()


def test_the_registry_is_well_formed():
    ids = [c.id for c in ALL]
    assert len(ids) == len(set(ids))
    papers = {c.paper_key for c in ALL}
    assert "chen_zou2024" in papers
    for c in ALL:
        if isinstance(c, Row):
            assert c.statement and c.place, c.id
            if c.expected in ("corrected", "refuted"):
                assert c.printed, f"{c.id}: {c.expected} without the paper's printed words"
            continue
        assert c.printed and c.checked and c.place, c.id
        if c.expected == "corrected":
            assert c.correction, c.id


def _declarations(source: str) -> list[str]:
    """Where ``source`` declares what the ledger reads from objects: a ``quantifier=`` passed to
    a row, a coverage word or a domain in words passed to a ``Checked``."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", ""))
        words = {k.arg for k in node.keywords}
        # (a record carries the quantifier its row read from the domain)
        if "quantifier" in words and name not in ("replace", "strength", "ClaimRecord"):
            found.append(f"line {node.lineno}: {name}(quantifier=...)")
        if name == "Checked":
            if "domain" in words or "coverage" in words:
                found.append(f"line {node.lineno}: Checked(domain= / coverage=)")
            if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                found.append(f"line {node.lineno}: Checked(..., {node.args[1].value!r}, ...)")
    return found


def test_no_row_or_check_declares_its_quantifier_or_coverage():
    root = pathlib.Path(__file__).resolve().parents[1]
    files = [*(root / "transformer_theory").rglob("*.py"), *(root / "examples").rglob("*.py")]
    bad = {
        str(f.relative_to(root)): d
        for f in files
        if f.name != "ledger.py" and (d := _declarations(f.read_text()))
    }
    assert not bad, bad
    # the scan sees each form it refuses
    assert _declarations("Row(id='a.b', quantifier='finite')")
    assert _declarations("Checked('exact', 'all', {})")
    assert _declarations("Checked('exact', t, {}, domain='every n')")
    assert not _declarations("dataclasses.replace(row, quantifier=None)")


@pytest.mark.parametrize("claim", ALL, ids=[c.id for c in ALL])
def test_each_claim_reaches_its_expected_status_at_the_quick_tier(claim):
    record = claims.run_claims(ids=[claim.id], tier="quick")[0]
    assert record.status == claim.expected, f"{claim.id}: {record.status}: {record.figure}"
    if claim.id in COMMITTED:
        assert COMMITTED[claim.id] == record.status, (
            f"{claim.id}: CLAIMS.md says {COMMITTED[claim.id]}, the quick tier {record.status}"
        )


def test_claims_md_lists_every_claim():
    assert COMMITTED, f"{CLAIMS_MD} is missing or has no claim rows: generate it with --tier full"
    missing = sorted({c.id for c in ALL} - set(COMMITTED))
    assert not missing, f"CLAIMS.md lacks {missing}: regenerate it with --tier full"


def test_a_claim_whose_check_fails_is_a_regression_with_exit_1(monkeypatch, tmp_path, capsys):
    from transformer_theory.claims import judges
    from transformer_theory.ledger import Continuum

    models = Continuum("every real weight")

    def boom():
        raise RuntimeError("broken check")

    def fine():
        return Checked(
            "float", models.instance("seed 0"), {"err": 0.0}, tolerance="0 (exact zeros)"
        )

    fake = [
        Row(
            id="test.ok",
            paper="T",
            place="§1",
            statement="s",
            domain=models,
            check=fine,
            judge=judges.at_most("err", 0),
            sizes={"quick": {}},
            expected="example",
            printed="p",
        ),
        Row(
            id="test.bad",
            paper="T",
            place="§2",
            statement="s",
            domain=models,
            check=boom,
            judge=judges.true("x"),
            sizes={"quick": {}},
            expected="proved",
            printed="p",
        ),
    ]
    monkeypatch.setattr("transformer_theory.claims.runner.all_claims", lambda *a, **k: fake)
    monkeypatch.setattr("transformer_theory.claims.all_claims", lambda *a, **k: fake)
    assert main(["claims", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "test.bad" in out and "expected proved" in out and "error" in out
    md = (tmp_path / "claims.md").read_text()
    assert "**error** (expected proved)" in md
    # the arithmetic and the covered domain (generated from the object) beside the status
    assert "floating point over instance; one instance (seed 0) of every real weight; tol 0" in md
    assert main(["claims", "--id", "test.ok", "--out", str(tmp_path)]) == 0
    assert main(["claims", "--paper", "nope", "--out", str(tmp_path)]) == 2


def test_rows_refuse_unknown_statuses_and_missing_domains():
    from transformer_theory.ledger import Strings

    def row(**kw):
        base = dict(
            id="a.b",
            paper="T",
            place="§",
            statement="s",
            domain=Strings("ab", [1]),
            check=lambda: None,
            judge=lambda c: None,
            sizes={"quick": {}},
            expected="proved",
            printed="p",
        )
        return Row(**{**base, **kw})

    with pytest.raises(ValueError, match="expected"):
        row(expected="likely")
    with pytest.raises(ValueError, match="domain"):
        row(domain=None)
    with pytest.raises(ValueError, match="domain"):
        row(domain="every string")
    with pytest.raises(ValueError, match="correct"):
        row(expected="corrected")
    with pytest.raises(ValueError, match="finding"):
        row(expected="finding")
    with pytest.raises(ValueError, match="arithmetic"):
        Checked("approximate", Strings("ab", [1]).instance("a"), {})
    with pytest.raises(ValueError, match="printed"):
        row(printed=None, correction="x")
    with pytest.raises(ValueError, match="printed"):
        row(printed=None, expected="refuted")
    with pytest.raises(ValueError, match="tolerance"):
        Checked("float", Strings("ab", [1]).instance("a"), {})


_MUTANT = re.compile(r"mutant\(([^)]*)\)")


def _mutated_ids() -> set[str]:
    """The claim ids named in ``@mutant(...)`` decorators: literal ids, or ``P + "name"`` with
    ``P = "paper."`` a module-level constant of the same file."""
    ids: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        text = path.read_text()
        consts = dict(re.findall(r"^([A-Z_]+) = ['\"]([a-z0-9_]+\.)['\"]$", text, flags=re.M))
        for args in _MUTANT.findall(text):
            for prefix, name in re.findall(r"(?:([A-Z_]+)\s*\+\s*)?['\"]([a-z0-9_.]+)['\"]", args):
                ids.add(consts.get(prefix, "") + name if prefix else name)
    return {i for i in ids if "." in i}


def test_every_claim_stronger_than_measured_has_a_mutant():
    from transformer_theory.ledger import TESTED_BY_MUTANT

    mutated = _mutated_ids()
    missing = sorted(c.id for c in ALL if c.expected in TESTED_BY_MUTANT and c.id not in mutated)
    assert not missing, f"no mutant test breaks these claims: {missing}"


def test_every_status_is_derived_by_the_rule():
    declared = sorted(c.id for c in ALL if not isinstance(c, Row))
    assert not declared, f"statuses still declared by their checks: {declared}"


def test_readme_states_the_counts_of_the_committed_claims_md():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- claims-counts -->\n(.*?)\n<!-- /claims-counts -->", readme, re.S)
    assert block, "README has no claims-counts block"
    counts = re.search(r"^Statuses: .*$", CLAIMS_MD.read_text(), re.M)
    assert counts, "CLAIMS.md has no Statuses line"
    assert block.group(1).strip() == counts.group(0).strip(), (
        "README's counts differ from CLAIMS.md's: copy CLAIMS.md's Statuses line into README"
    )
    tallied: dict[str, int] = {}
    for status in COMMITTED.values():
        tallied[status] = tallied.get(status, 0) + 1
    for status, n in re.findall(r"(\w+) (\d+)", counts.group(0).split("(")[0]):
        assert tallied.get(status, 0) == int(n), f"CLAIMS.md says {status} {n}, its rows {tallied}"


def test_run_claims_takes_one_id_as_a_string():
    one = claims.run_claims(ids="chen_zou2024.definition2")
    assert [r.id for r in one] == ["chen_zou2024.definition2"]


def _script_help(path: pathlib.Path) -> str:
    """``python experiments/X.py --help``'s text, in process (the scripts define ``main(argv)``)."""
    import contextlib
    import importlib.util
    import io
    import sys
    from unittest import mock

    # a module in sys.modules while it runs: a settings dataclass's string annotations
    # (typing.get_type_hints) are read in its module's namespace
    spec = importlib.util.spec_from_file_location("_claims_command_check", path)
    module = importlib.util.module_from_spec(spec)
    out = io.StringIO()
    with (
        mock.patch.dict(sys.modules, {"_claims_command_check": module}),
        mock.patch.object(sys, "argv", [str(path), "--help"]),
        contextlib.redirect_stdout(out),
        pytest.raises(SystemExit) as exit_,
    ):
        spec.loader.exec_module(module)
        module.main()
    assert exit_.value.code == 0, path
    return out.getvalue()


def _command_problem(command: str, parser) -> str | None:
    """Why ``command`` (a ledger row's reproducing command) would not run as written: an unknown
    subcommand or option, a missing script, test or module, a name its ``python -c`` imports that
    the package does not have. ``None`` where it names only what exists. Nothing long is run."""
    import ast
    import importlib
    import shlex

    argv = shlex.split(command)
    if argv[0] == "transformer-theory":
        try:
            parser.parse_args(argv[1:])
        except SystemExit:
            return "the command line does not parse"
        return None
    if argv[0].endswith("python") and argv[1] == "-c":
        tree = ast.parse(argv[2])
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = importlib.import_module(node.module)
                for a in node.names:
                    if not hasattr(module, a.name):
                        return f"{node.module} has no {a.name}"
                    aliases[a.asname or a.name] = getattr(module, a.name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                owner = aliases.get(node.value.id)
                if owner is not None and not hasattr(owner, node.attr):
                    return f"{node.value.id} has no {node.attr}"
        return None
    if argv[:3] == ["python", "-m", "pytest"] or argv[0] == "pytest":
        target = argv[3] if argv[0] == "python" else argv[1]
        path, _, name = target.partition("::")
        if not (ROOT / path).is_file():
            return f"no test file {path}"
        text = (ROOT / path).read_text()
        if name and f"def {name}(" not in text:
            return f"{path} has no test {name}"
        if "-k" in argv:
            expr = argv[argv.index("-k") + 1]
            if not re.search(rf"def test_\w*{re.escape(expr)}", text):
                return f"-k {expr} selects no test of {path}"
        return None
    if argv[0].endswith("python") and argv[1].startswith("experiments/"):
        script = ROOT / argv[1]
        if not script.is_file():
            return f"no script {argv[1]}"
        if "tracr" in argv[0]:  # runs only beside tracr, in its own environment
            return None
        text = _script_help(script)
        unknown = [a for a in argv[2:] if a.startswith("--") and a.split("=")[0] not in text]
        return f"{argv[1]} has no option {unknown}" if unknown else None
    return "not a command this test knows how to read"


def test_every_claims_command_names_what_exists():
    """Each row's reproducing command (CLAIMS.md's command column), at both tiers, names a
    command, options, scripts, tests and library names that exist (a renamed module or option
    leaves a command that fails when a reader copies it)."""
    from transformer_theory import cli

    parser = cli.build_parser(cli._load_commands())
    bad = []
    for claim in ALL:
        for tier in ("quick", "full"):
            command = claim.command_for(tier)
            problem = _command_problem(command, parser)
            if problem:
                bad.append(f"{claim.id} [{tier}]: {command!r}: {problem}")
    assert not bad, "\n".join(bad)


def test_the_command_check_can_fail():
    from transformer_theory import cli

    parser = cli.build_parser(cli._load_commands())
    for broken in (
        "transformer-theory collapse --no-such-option 1",
        "python -c 'from transformer_theory.papers import peng2024 as p; print(p.no_such_name(1))'",
        "python -c 'from transformer_theory.papers.svete_cotterell2024 import precision_scan'",
        "python experiments/sanford_qsa_bits.py --no-such-option 1 --out DIR",
        "pytest tests/test_claims.py::test_no_such_test",
        "python -m pytest tests/test_claims.py -k no_such_words",
        "collapse.model_record(params, 'L1', [1024], ('float64',))",
    ):
        assert _command_problem(broken, parser), broken
