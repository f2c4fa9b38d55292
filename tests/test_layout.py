"""The house's layout, enforced from the import graph (read with ``ast``, nothing imported).

- The spine (everything outside ``papers/``, ``cli/`` and ``claims/``) never imports a paper:
  a paper builds on the spine, so the spine must work without any of them.
- A paper imports another paper's public names only (never a ``_private`` name or module).
- Every package's ``__init__`` has ``__all__`` and a docstring that names each of its modules.
- One of each shared helper: ``matplotlib.use`` only in :mod:`transformer_theory.plotting`,
  ``json.dump`` / ``csv`` writers only in :mod:`transformer_theory.jsonio`, comma lists parsed
  only in :mod:`transformer_theory.cli._common`.
- The commands parse and print: no command module draws, writes JSON/CSV or opens files itself.
- The package ships ``py.typed``.
"""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

import transformer_theory

PKG = pathlib.Path(transformer_theory.__file__).parent
ROOT = PKG.parent
MODULES = sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


def _dotted(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: pathlib.Path) -> list[tuple[str, str | None]]:
    """Every ``(module, name)`` the file imports (``name`` None for ``import module``)."""
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out += [(node.module, a.name) for a in node.names]
    return out


def _targets(module: str, name: str | None) -> list[str]:
    """The dotted names an import refers to (``from a.b import c`` may be module ``a.b.c``)."""
    return [module] if name is None else [module, f"{module}.{name}"]


def _is_spine(path: pathlib.Path) -> bool:
    rel = path.relative_to(PKG).parts
    # cli/ and claims/ sit above the papers: the commands and the ledger collect them all
    return rel[0] not in ("papers", "cli", "claims") and path.name != "__main__.py"


def _paper_of(dotted: str) -> str | None:
    parts = dotted.split(".")
    if parts[:2] == ["transformer_theory", "papers"] and len(parts) > 2:
        return parts[2]
    return None


def test_the_package_has_papers_and_a_spine():
    papers = {_paper_of(_dotted(p)) for p in MODULES} - {None}
    assert {"sanford2023", "svete_cotterell2024", "barbero2024", "conti2024"} <= papers
    assert sum(_is_spine(p) for p in MODULES) > 40


SPINE = [p for p in MODULES if _is_spine(p)]


@pytest.mark.parametrize("path", SPINE, ids=[_dotted(p) for p in SPINE])
def test_the_spine_never_imports_a_paper(path):
    bad = [
        t
        for m, n in _imports(path)
        for t in _targets(m, n)[:1]
        if t == "transformer_theory.papers" or t.startswith("transformer_theory.papers.")
    ]
    bad += [f"{m}.{n}" for m, n in _imports(path) if m == "transformer_theory" and n == "papers"]
    assert not bad, f"{_dotted(path)} imports {bad}: the spine must not depend on a paper"


PAPER_MODULES = [p for p in MODULES if _paper_of(_dotted(p))]


@pytest.mark.parametrize("path", PAPER_MODULES, ids=[_dotted(p) for p in PAPER_MODULES])
def test_a_paper_uses_only_public_names_of_another(path):
    own = _paper_of(_dotted(path))
    bad = []
    for m, n in _imports(path):
        other = _paper_of(m) or (_paper_of(f"{m}.{n}") if n else None)
        if other is None or other == own:
            continue
        names = m.split(".")[3:] + ([n] if n else [])
        if any(part.startswith("_") for part in names):
            bad.append(f"{m}:{n}")
    assert not bad, f"{_dotted(path)} reaches into another paper's private names: {bad}"


INITS = [p for p in MODULES if p.name == "__init__.py"]


@pytest.mark.parametrize("path", INITS, ids=[_dotted(p) for p in INITS])
def test_every_package_declares_all_and_lists_its_modules(path):
    tree = ast.parse(path.read_text())
    names = {
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    assert "__all__" in names, f"{_dotted(path)} has no __all__"
    doc = ast.get_docstring(tree) or ""
    members = sorted(
        q.stem if q.suffix == ".py" else q.name
        for q in path.parent.iterdir()
        if (q.suffix == ".py" and q.name != "__init__.py" and not q.name.startswith("_"))
        or (q.is_dir() and (q / "__init__.py").exists())
    )
    missing = [m for m in members if not re.search(rf"\b{re.escape(m)}\b", doc)]
    assert not missing, f"{_dotted(path)}'s docstring does not name its modules {missing}"


ONE_PLACE = {
    # pattern: the only modules (relative to the package) allowed to contain it
    r"matplotlib\.use\(": {"plotting.py"},
    r"\bjson\.dumps?\(": {"jsonio.py"},
    r"\bcsv\.(writer|DictWriter)\(": {"jsonio.py"},
    r"\.split\(\s*[\"'],[\"']\s*\)": {"settings.py"},
}


@pytest.mark.parametrize("pattern", sorted(ONE_PLACE))
def test_shared_helpers_are_written_once(pattern):
    found = sorted(str(p.relative_to(PKG)) for p in MODULES if re.search(pattern, p.read_text()))
    extra = [f for f in found if f not in ONE_PLACE[pattern]]
    assert not extra, f"{pattern!r} appears outside {sorted(ONE_PLACE[pattern])}: {extra}"


def test_the_scripts_use_the_shared_helpers_too():
    scripts = sorted((ROOT / "experiments").glob("*.py"))
    bad = {
        str(p.relative_to(ROOT)): pat
        for p in scripts
        for pat in (r"matplotlib\.use\(", r"\.split\(\s*[\"'],[\"']\s*\)", r"\bjson\.dumps?\(")
        if re.search(pat, p.read_text())
    }
    assert not bad, f"scripts that re-write a shared helper: {bad}"


#: Scripts still parsing with a parser of their own. This list may only shrink.
OWN_PARSER_SCRIPTS: set[str] = set()


def _own_parser(text: str) -> bool:
    return bool(re.search(r"\bArgumentParser\(", text))


def test_the_scripts_parse_with_the_commands_parser():
    # one experiment system: a script reads an experiment's config (experiment_script,
    # script_settings) or, with options of its own, the commands' CommandParser (script_options),
    # so every refusal is one line naming its option, exit 2; never argparse's usage block
    scripts = sorted((ROOT / "experiments").glob("*.py"))
    own = {p.name for p in scripts if _own_parser(p.read_text())}
    assert own <= OWN_PARSER_SCRIPTS, (
        f"scripts with a parser of their own: {own - OWN_PARSER_SCRIPTS}"
    )
    gone = OWN_PARSER_SCRIPTS - own
    assert not gone, f"{gone} no longer parse by themselves: strike them off OWN_PARSER_SCRIPTS"
    assert _own_parser("p = argparse.ArgumentParser(description=d)")  # the guard can fail
    assert not _own_parser("p = script_options(argv, S, description=d)")


CLI = sorted((PKG / "cli").glob("*.py"))
CLI_FORBIDDEN = {
    "matplotlib": r"\bmatplotlib\b|\bplt\.",
    "open(": r"(?<![\w.])open\(",
    "csv": r"\bcsv\.",
    "savefig": r"\bsavefig\(",
}


@pytest.mark.parametrize("path", CLI, ids=[p.name for p in CLI])
def test_commands_only_parse_and_print(path):
    text = path.read_text()
    found = [name for name, pattern in CLI_FORBIDDEN.items() if re.search(pattern, text)]
    assert not found, f"cli/{path.name} uses {found}: the study (or plotting) does that"


def test_the_package_ships_py_typed():
    assert (PKG / "py.typed").exists()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert "py.typed" in pyproject, "pyproject.toml must ship py.typed as package data"


def _public_functions(path: pathlib.Path):
    for node in ast.parse(path.read_text()).body:
        funcs = [node] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            funcs = [
                m
                for m in node.body
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not m.name.startswith("_")
            ]
        yield from (f for f in funcs if not f.name.startswith("_"))


def test_public_functions_are_fully_annotated():
    # py.typed promises a user's type checker these annotations: every public function (and
    # public method of a public class) annotates each parameter but self/cls, and its return.
    missing = []
    for path in MODULES:
        for f in _public_functions(path):
            a = f.args
            params = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]
            bare = [p.arg for p in params if p.annotation is None and p.arg not in ("self", "cls")]
            if bare or f.returns is None:
                missing.append(f"{_dotted(path)}.{f.name} ({', '.join(bare) or 'return'})")
    assert not missing, f"{len(missing)} public functions not fully annotated: {missing}"


# --- the one shape (issue: one shape for every paper) -------------------------------------------

PAPERS = sorted(
    p for p in (PKG / "papers").iterdir() if p.is_dir() and (p / "__init__.py").exists()
)
ROLES = (
    "tasks",
    "models",
    "constructions",
    "theory",
    "study",
    "records",
    "checks",
    "plots",
    "claims",
    "domains",
)


@pytest.mark.parametrize("paper", PAPERS, ids=[p.name for p in PAPERS])
def test_every_paper_has_the_same_role_files(paper):
    # one role per file, the role first in the name; private modules behind the public face
    public = sorted(
        q.name for q in paper.glob("*.py") if not q.name.startswith("_") and q.name != "claims.py"
    )
    assert not public, f"{paper.name}: public modules {public}; make them _<role>*.py"
    roles = {
        q.stem: next((r for r in ROLES if q.stem == f"_{r}" or q.stem.startswith(f"_{r}_")), None)
        for q in paper.glob("_*.py")
        if q.name != "__init__.py"
    }
    unroled = sorted(m for m, r in roles.items() if r is None)
    assert not unroled, f"{paper.name}: {unroled} name no role of {ROLES}"
    assert (paper / "claims.py").exists(), f"{paper.name} has no claims.py"
    assert "checks" in roles.values(), f"{paper.name} has no _checks*.py"
    dirs = sorted(q.name for q in paper.iterdir() if q.is_dir() and q.name != "__pycache__")
    assert set(dirs) <= {"experiments"}, f"{paper.name}: folders {dirs}; only experiments/"
    if (paper / "experiments").exists():
        for q in (paper / "experiments").glob("[!_]*.py"):
            tree = ast.parse(q.read_text())
            defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            # its study is found by papers.study_of, never defined or imported there
            assert "get_config" in defined and "run" not in defined, f"{q}: get_config, no run"


@pytest.mark.parametrize("paper", PAPERS, ids=[p.name for p in PAPERS])
def test_every_paper_has_a_small_public_face(paper):
    import importlib

    module = importlib.import_module(f"transformer_theory.papers.{paper.name}")
    names = list(module.__all__)
    # about 15 names: what a reader of the paper calls, not every helper
    assert 5 <= len(names) <= 18, f"{paper.name} exports {len(names)} names: {names}"
    missing = [n for n in names if not getattr(module, n).__doc__]
    assert not missing, f"{paper.name} exports undocumented {missing}"
    # none renamed on re-export (``run as run_collapse``): a function or class is exported under
    # the name it was defined with (give it a distinctive name there instead)
    renamed = [
        f"{n} (defined as {getattr(module, n).__name__})"
        for n in names
        if callable(getattr(module, n)) and getattr(getattr(module, n), "__name__", n) != n
    ]
    assert not renamed, f"{paper.name} re-exports under other names: {renamed}"


X64_SWITCH = re.compile(r"jax_enable_x64\"?'?\s*,\s*True|\benable_x64\(\s*True|jax\.enable_x64\(")


def test_the_64_bit_switch_is_set_only_at_entry_points():
    # library code asks precision.require_x64; commands say X64 = True and cli.main flips it;
    # precision.enable_x64 is the one function that does (docstring examples may show it)
    found = []
    for p in MODULES:
        if p.relative_to(PKG).as_posix() == "precision.py":
            continue
        for i, line in enumerate(p.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if X64_SWITCH.search(code) and ">>>" not in line:
                found.append(f"{p.relative_to(PKG)}:{i}")
    assert not found, f"the 64-bit switch flipped in library code: {found}"


def _registered() -> set[str]:
    from transformer_theory.cli._registry import COMMANDS

    return {module.rsplit(".", 1)[-1] for module, _ in COMMANDS.values()}


#: The command modules: those the registry names (``cli/scripts.py``, the scripts' helpers, is
#: public and no command).
COMMAND_MODULES = [p for p in CLI if p.stem in _registered()]


def test_every_public_cli_module_is_a_command_or_the_scripts_helpers():
    public = {p.stem for p in CLI if not p.name.startswith("_")}
    assert public - _registered() == {"scripts"}, public - _registered()


@pytest.mark.parametrize("path", COMMAND_MODULES, ids=[p.name for p in COMMAND_MODULES])
def test_every_command_module_fits_on_one_screen(path):
    lines = len(path.read_text().splitlines())
    assert lines <= 160, f"cli/{path.name} has {lines} lines; the study belongs in its paper"


@pytest.mark.parametrize("path", CLI, ids=[p.name for p in CLI])
def test_commands_never_import_each_other(path):
    bad = [
        m
        for m, _ in _imports(path)
        if m.startswith("transformer_theory.cli.") and not m.split(".")[-1].startswith("_")
    ]
    assert not bad, f"cli/{path.name} imports the commands {bad}; shared helpers go in _common"


# --- the study contract (issue: one study contract for every experiment) -------------------------

#: A paper's maths: the role files that compute (tasks, models, constructions, theory, plots),
#: and its studies and their records (``_study_*``, ``_records``) held to the same rule.
#: They take plain arguments: they never import the paper's experiments (a study runs the maths,
#: not the other way round) or the command line, and never name an option: an error names the
#: argument, and only the command layer turns a field into its flag. (``_checks*`` and
#: ``_claims*`` sit above the studies: a check may run one.)
MATHS_ROLES = ("tasks", "models", "constructions", "theory", "plots", "study", "records")
MATHS = sorted(
    q
    for paper in PAPERS
    for q in paper.glob("_*.py")
    if q.name != "__init__.py"
    and any(q.stem == f"_{r}" or q.stem.startswith(f"_{r}_") for r in MATHS_ROLES)
) + sorted((PKG / "rasp").glob("_*.py"))  # the RASP compiler's stages and checks too
#: The spine's maths and studies, held to the same rule: every module outside the command line
#: (``cli/``), the ledger's rows and runner (``claims/``, ``ledger.py``, ``*/claims.py``: a row
#: prints the command that reproduces it), the papers (above) and the option layer itself
#: (``settings.py``).
SPINE_MATHS = sorted(
    p
    for p in MODULES
    if p.relative_to(PKG).parts[0] not in ("cli", "claims", "papers")
    and p.name not in ("settings.py", "ledger.py", "claims.py", "__main__.py")
    and p not in MATHS
)
#: What the option layer offers a command; maths never asks for it (``setting``, a field's
#: bound beside its default, is data and allowed).
OPTION_LAYER = {"flag_of", "OptionError", "from_args", "as_options", "naming_options"}
OPTION_NAME = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*\b")


def _all_imports(path: pathlib.Path) -> list[tuple[str, str | None]]:
    """Every import, relative ones resolved, inside functions and ``TYPE_CHECKING`` blocks too."""
    tree = ast.parse(path.read_text())
    package = _dotted(path).rsplit(".", 1)[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            module = node.module if node.level == 0 else f"{base}.{node.module or ''}".strip(".")
            out += [(module, a.name) for a in node.names]
    return out


def test_the_maths_modules_are_found():
    names = {q.stem for q in MATHS}
    assert {"_theory_costs", "_models_trained", "_models_translation"} <= names
    assert not any(n.startswith(("_checks", "_claims")) for n in names)


def _maths_import_faults(imports: list[tuple[str, str | None]], dotted: str) -> list[str]:
    """What of ``imports`` (:func:`_all_imports`) the maths (or study) module ``dotted`` may not
    import: its paper's experiments, the command line, the option layer."""
    experiments = dotted.rsplit(".", 1)[0] + ".experiments"
    bad = []
    for m, n in imports:
        full = [m] + ([f"{m}.{n}"] if n else [])
        if any(t == experiments or t.startswith(experiments + ".") for t in full):
            bad.append(f"{m}:{n} (the paper's experiments)")
        if any(t.startswith("transformer_theory.cli") for t in full):
            bad.append(f"{m}:{n} (the command line)")
        if m == "transformer_theory.settings" and n in OPTION_LAYER:
            bad.append(f"{m}:{n} (the option layer)")
    return bad


@pytest.mark.parametrize("path", MATHS, ids=[_dotted(p) for p in MATHS])
def test_maths_never_imports_a_study_or_the_command_line(path):
    bad = _maths_import_faults(_all_imports(path), _dotted(path))
    assert not bad, f"{_dotted(path)} imports {bad}: maths takes plain arguments"


#: The modules of a paper's maths a command may not import: it reaches them only through the
#: study (``_study_*``), which hands it the typed record it prints (issue 46, criterion 2).
COMMAND_FORBIDDEN_MATHS = re.compile(
    r"transformer_theory\.papers\.\w+\._(?:theory|models|constructions|tasks)(?:_\w+)?"
)


def _command_maths_imports(imports: list[tuple[str, str | None]]) -> list[str]:
    """What of ``imports`` (:func:`_all_imports`) is a paper's private maths module
    (:data:`COMMAND_FORBIDDEN_MATHS`), named as imported."""
    bad = []
    for m, n in imports:
        full = [m] + ([f"{m}.{n}"] if n else [])
        if any(COMMAND_FORBIDDEN_MATHS.fullmatch(t) for t in full):
            bad.append(f"{m}:{n}")
    return bad


@pytest.mark.parametrize("path", CLI, ids=[p.name for p in CLI])
def test_commands_reach_the_maths_only_through_a_study(path):
    bad = _command_maths_imports(_all_imports(path))
    assert not bad, f"cli/{path.name} imports {bad}: a command calls the study, prints its record"


def test_the_command_maths_guard_can_fail():
    imports = [
        ("transformer_theory.papers.svete_cotterell2024._theory_ngram", "float64_failures"),
        ("transformer_theory.papers.conti2024._models_trained", "unfinished_notes"),
        ("transformer_theory.papers.svete_cotterell2024", "_constructions"),
        ("transformer_theory.papers.barbero2024", "_tasks"),
        ("transformer_theory.papers.conti2024", "_study_heads"),  # allowed: the study
        ("transformer_theory.papers.barbero2024", "_records"),  # allowed: its typed records
        ("transformer_theory.papers.svete_cotterell2024.experiments.ngram", "NGramSettings"),
    ]
    assert len(_command_maths_imports(imports)) == 4


def test_the_maths_import_guard_can_fail():
    # a study that imports its settings module, the command line and the option layer back
    dotted = "transformer_theory.papers.sanford2023._study_sanford"
    imports = [
        ("transformer_theory.papers.sanford2023.experiments.sanford", "SanfordSettings"),
        ("transformer_theory.papers.sanford2023.experiments", "match_width"),
        ("transformer_theory.cli._common", "UsageError"),
        ("transformer_theory.settings", "flag_of"),
        ("transformer_theory.settings", "setting"),  # data: allowed
        ("transformer_theory.papers.sanford2023._records", "QSARecord"),  # allowed
    ]
    assert len(_maths_import_faults(imports, dotted)) == 4
    study = PKG / "papers" / "sanford2023" / "_study_sanford.py"
    assert study in MATHS  # the studies are held to it too


#: Keyword arguments whose text is the command line's own (a field's flag, help, metavar).
COMMAND_TEXT = {"flag", "help", "metavar"}


def _code_strings(path: pathlib.Path) -> list[tuple[int, str]]:
    """The string constants of ``path`` that are not docstrings or a field's command text
    (:data:`COMMAND_TEXT`)."""
    tree = ast.parse(path.read_text())
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
        if isinstance(node, ast.keyword) and node.arg in COMMAND_TEXT:
            docs.update(id(c) for c in ast.walk(node.value))
    return [
        (n.lineno, n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


@pytest.mark.parametrize("path", SPINE_MATHS, ids=[_dotted(p) for p in SPINE_MATHS])
def test_the_spine_never_imports_the_command_line(path):
    bad = _maths_import_faults(_all_imports(path), _dotted(path))
    assert not bad, f"{_dotted(path)} imports {bad}: the spine takes plain arguments"


@pytest.mark.parametrize("path", MATHS + SPINE_MATHS, ids=[_dotted(p) for p in MATHS + SPINE_MATHS])
def test_maths_never_names_an_option(path):
    found = [
        f"line {line}: {m.group(0)}"
        for line, text in _code_strings(path)
        for m in OPTION_NAME.finditer(text)
    ]
    assert not found, f"{_dotted(path)} names options {found}: name the argument instead"


def test_the_option_guard_can_fail(tmp_path):
    # the two guards above, on a module that does what they forbid
    bad = tmp_path / "_theory_bad.py"
    bad.write_text(
        '"""--doc is fine."""\nfrom transformer_theory.settings import flag_of\n'
        'def f():\n    raise ValueError("--max-len: too long")\n'
        'n: int = setting(1, flag="--n", help="with --quick")\n'  # command text: allowed
    )
    assert [t for _, t in _code_strings(bad) if OPTION_NAME.search(t)] == ["--max-len: too long"]
    tree = ast.parse(bad.read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert names & OPTION_LAYER == {"flag_of"}


EXPERIMENT_MODULES = sorted(
    q for d in [*PAPERS, PKG / "rasp"] for q in (d / "experiments").glob("[!_]*.py")
)
SETTINGS_CLASS = re.compile(r"Settings$")
#: Experiment modules that still hold more (or fewer) than one settings class, or JAX maths, as
#: the study contract found them; this list may only shrink (a module leaving it fails the test
#: until it is struck off, so the list stays the truth).
KNOWN_EXPERIMENT_DEBTS: dict[str, str] = {}


def _experiment_debts(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text())
    classes = [
        n.name
        for n in tree.body
        if isinstance(n, ast.ClassDef)
        and SETTINGS_CLASS.search(n.name)
        and any("dataclass" in ast.unparse(d) for d in n.decorator_list)
    ]
    debts = []
    if len(classes) != 1:
        debts.append(f"{len(classes)} settings classes {classes}")
    config = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_config"]
    if not config or [a.arg for a in config[0].args.args] != ["size"]:
        debts.append("no get_config(size)")
    roots = {m.split(".")[0] for m, _ in _all_imports(path)}
    if roots & {"jax", "flax", "optax"}:
        debts.append(f"imports {sorted(roots & {'jax', 'flax', 'optax'})}")
    return debts


@pytest.mark.parametrize("path", EXPERIMENT_MODULES, ids=[q.stem for q in EXPERIMENT_MODULES])
def test_every_experiment_module_is_one_settings_class_and_get_config(path):
    debts = _experiment_debts(path)
    if path.stem in KNOWN_EXPERIMENT_DEBTS:
        assert debts, f"{path.stem} is no longer a debt: strike it off KNOWN_EXPERIMENT_DEBTS"
        return
    assert not debts, f"{path.relative_to(ROOT)}: {debts}; maths goes in the paper's _* modules"


#: Experiment modules that still hold their study (a ``run`` defined there, not the paper's
#: ``_study_<name>.run`` or, for Chen & Zou's figures, ``sweeps.directory.run``): the study
#: contract's debt. This list may only shrink.
STUDY_IN_EXPERIMENT: set[str] = set()


def _defines_run(text: str) -> bool:
    tree = ast.parse(text)
    return any(isinstance(n, ast.FunctionDef) and n.name == "run" for n in tree.body)


def test_an_experiment_module_is_settings_and_its_study_lives_beside_it():
    holding = {q.stem for q in EXPERIMENT_MODULES if _defines_run(q.read_text())}
    new = holding - STUDY_IN_EXPERIMENT
    assert not new, f"{new} define their study's run: write it in the paper's _study_<name>.py"
    gone = STUDY_IN_EXPERIMENT - holding
    assert not gone, f"{gone} no longer hold their study: strike them off STUDY_IN_EXPERIMENT"
    settled = {q.stem for q in EXPERIMENT_MODULES} - holding
    assert {"sanford", "ngram_learnability", "fig2_depth", "composition_cot"} <= settled
    assert _defines_run("def run(config, out_dir):\n    pass\n")  # the guard can fail
    assert not _defines_run("from ._study_x import run\n")


def _imports_its_study(path: pathlib.Path) -> list[str]:
    """The modules ``path`` imports that hold a study or its records (``_study_*``, ``_records``,
    ``sweeps.directory``): a config that imports them is not data."""
    return sorted(
        m
        for m, _ in _all_imports(path)
        if m.rsplit(".", 1)[-1].startswith(("_study", "_records")) or m.endswith("sweeps.directory")
    )


@pytest.mark.parametrize("path", EXPERIMENT_MODULES, ids=[q.stem for q in EXPERIMENT_MODULES])
def test_an_experiment_module_imports_no_study_and_study_of_finds_it(path):
    import importlib

    from transformer_theory.papers import study_of

    found = _imports_its_study(path)
    assert not found, f"{path.relative_to(ROOT)} imports {found}: a config names no study"
    module = importlib.import_module(_dotted(path))
    assert not hasattr(module, "run"), f"{_dotted(path)} has a run: the study is study_of's"
    study = study_of(module)
    assert callable(study.run), f"{study.__name__} has no run(config, out_dir)"


def test_the_study_import_guard_can_fail(tmp_path, monkeypatch):
    import sys

    monkeypatch.setattr(sys.modules[__name__], "_dotted", lambda p: "transformer_theory.x")
    bad = tmp_path / "x.py"
    bad.write_text(
        "from transformer_theory.papers.p._study_x import run\n"
        "from transformer_theory.sweeps.directory import run as r\nimport os\n"
    )
    assert _imports_its_study(bad) == [
        "transformer_theory.papers.p._study_x",
        "transformer_theory.sweeps.directory",
    ]
    import types

    from transformer_theory.papers import study_of

    with pytest.raises(ValueError, match="experiment: os is not a module"):
        study_of(types.ModuleType("os"))


def test_the_experiment_guard_can_fail(monkeypatch):
    bad = PKG / "papers" / "sanford2023" / "experiments" / "sanford.py"
    text = (
        "import dataclasses\nimport jax\n@dataclasses.dataclass\nclass ASettings:\n    a: int = 1\n"
        "@dataclasses.dataclass(frozen=True)\nclass BSettings:\n    b: int = 1\n"
        "def get_config():\n    return ASettings()\n"
    )
    monkeypatch.setattr(pathlib.Path, "read_text", lambda self, *a, **k: text)
    debts = _experiment_debts(bad)
    assert len(debts) == 3 and "no get_config(size)" in debts, debts


def test_params_and_positional_codes_do_not_import_each_other():
    # params builds on the positional codes (code_dim); the codes read a config by its fields
    positional = [m for m, _ in _all_imports(PKG / "core" / "positional.py")]
    assert "transformer_theory.params" not in positional


def test_the_readme_layout_table_names_every_top_level_entry():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## The layout") :].split("\n## ", 1)[0]
    entries = sorted(
        q.name + ("/" if q.is_dir() else "")
        for q in PKG.iterdir()
        if q.name not in ("__init__.py", "__main__.py", "py.typed", "__pycache__")
        and (q.suffix == ".py" or (q.is_dir() and (q / "__init__.py").exists()))
    )
    missing = [e for e in entries if f"`transformer_theory/{e}`" not in table]
    assert not missing, f"README's layout table does not name {missing}"
    rows = [
        line
        for line in table.splitlines()
        if line.startswith("| `transformer_theory/")
        and not line.startswith("| `transformer_theory/` ")
    ]
    assert len(rows) == len(entries), "one row per top-level entry"


def test_the_readme_layout_table_names_every_entry_of_the_repository():
    # every top-level file and folder git tracks has its own row (a checkout; an sdist has no git)
    import subprocess

    try:
        tracked = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    if not tracked:
        pytest.skip("not a git checkout")
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## The layout") :].split("\n## ", 1)[0]
    firsts = {line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| `")}
    entries = {p.split("/")[0] + ("/" if "/" in p else "") for p in tracked}
    missing = sorted(e for e in entries if f"`{e}`" not in firsts)
    assert not missing, f"README's layout table has no row of its own for {missing}"


# --- typed records (issue: one study contract, "Typed records") --------------------------------

#: Command modules allowed to read a value by string key (``record["check"]``,
#: ``row.get("kind")``), each with why: none, every command prints from a study's typed record.
#: A module listed here that reads no key fails the test until it is struck off.
KNOWN_KEY_READERS: dict[str, str] = {}


def _string_key_reads(path: pathlib.Path) -> list[str]:
    """Every ``x["key"]`` and ``x.get("key")`` of ``path``: a value read by a string key."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", CLI, ids=[p.name for p in CLI])
def test_no_command_reads_a_record_by_string_key(path):
    found = _string_key_reads(path)
    if path.stem in KNOWN_KEY_READERS:
        assert found, f"cli/{path.name} reads no key: strike it off KNOWN_KEY_READERS"
        return
    assert not found, (
        f"cli/{path.name} reads records by string key {found}: the study returns a typed record "
        "(a frozen dataclass) and the command prints from its fields"
    )


def test_the_key_guard_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('def run(rec):\n    print(rec["x"], rec.get("y"), rec[0], rec.x)\n')
    assert _string_key_reads(bad) == ["line 2: rec['x']", "line 2: rec.get('y')"]


def test_one_table_writer():
    # a table's rule (a Markdown ``|---|`` row or a text header padded with ljust) is drawn only
    # by transformer_theory.tables
    found = sorted(
        str(p.relative_to(PKG))
        for p in MODULES
        if p.name != "tables.py"
        and (
            re.search(r"\.[lr]just\(", p.read_text())
            or any("|---|" in text for _, text in _code_strings(p))
        )
    )
    assert not found, f"tables drawn outside transformer_theory.tables: {found}"


#: The call that declares an option by hand (everything else is a settings field added by
#: transformer_theory.cli._options.add_settings), and the one module allowed to make it.
HAND_OPTION_CALLS = ("add_argument", "add_mutually_exclusive_group")
OPTIONS_MODULE = PKG / "cli" / "_options.py"
#: Command modules still declaring an option by hand: ``{file: reason}`` (may only shrink).
HAND_OPTION_DEBTS: dict[str, str] = {}


def _hand_options(path: pathlib.Path) -> list[str]:
    """``line N: call`` for each hand-written option in ``path``: a call of ``add_argument`` or
    ``add_mutually_exclusive_group`` (as a method or a name) or of ``argparse.ArgumentParser``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        dotted = ast.unparse(func)
        if name in HAND_OPTION_CALLS or dotted == "argparse.ArgumentParser":
            found.append(f"line {node.lineno}: {dotted}(")
    return found


def test_no_option_is_declared_by_hand():
    # every option of every command and script is a settings field (one generated system): no
    # module of the command line but _options.py and no experiments/*.py script declares one
    paths = sorted((PKG / "cli").glob("*.py")) + sorted((ROOT / "experiments").glob("*.py"))
    found = {
        str(p.relative_to(PKG if p.is_relative_to(PKG) else ROOT)): calls
        for p in paths
        if p != OPTIONS_MODULE and (calls := _hand_options(p))
    }
    debts = set(HAND_OPTION_DEBTS)
    assert set(found) <= debts, {k: v for k, v in found.items() if k not in debts}
    assert not debts - set(found), f"settled: strike {debts - set(found)} off HAND_OPTION_DEBTS"


def test_the_hand_option_guard_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--x')\n"
        "g = p.add_mutually_exclusive_group()\nadd_settings(p, S)\n"
    )
    assert _hand_options(bad) == [
        "line 2: argparse.ArgumentParser(",
        "line 3: p.add_argument(",
        "line 4: p.add_mutually_exclusive_group(",
    ]


def _one_letter_aliases(path: pathlib.Path) -> list[str]:
    """``line N: import x as L`` for each module imported under a one-letter name."""
    return [
        f"line {node.lineno}: {a.name} as {a.asname}"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for a in node.names
        if a.asname is not None and len(a.asname) == 1
    ]


def test_no_module_is_imported_under_one_letter(tmp_path):
    # STYLE.md: "single-letter module aliases (`as V`, `as K`)" say nothing of what they hold
    paths = MODULES + sorted(q for d in ("tests", "experiments") for q in (ROOT / d).rglob("*.py"))
    found = {str(p.relative_to(ROOT)): a for p in paths if (a := _one_letter_aliases(p))}
    assert not found, found
    bad = tmp_path / "bad.py"  # the guard can fail
    bad.write_text("from x import _language as L\nimport numpy as np\n")
    assert _one_letter_aliases(bad) == ["line 1: _language as L"]
