"""Every command explains itself: ``--help`` shows the whole module docstring (not its first line),
every option's default (once), examples that parse and the files written; ``--version`` prints the
one version; every progress bar of the library is drawn on a terminal only.
"""

from __future__ import annotations

import argparse
import ast
import re
import shlex
from pathlib import Path

import pytest

import transformer_theory
from transformer_theory import cli

PACKAGE = Path(transformer_theory.__file__).parent
COMMANDS = sorted(cli.COMMANDS)


@pytest.fixture(scope="module")
def parser() -> argparse.ArgumentParser:
    return cli.build_parser(cli._load_commands())


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _words(text: str) -> str:
    return " ".join(text.split())


def _help(command: str, capsys) -> str:
    with pytest.raises(SystemExit) as info:
        cli.main([command, "--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


def test_plain_text_unwraps_rest():
    doc = "Uses :func:`~a.b.run` and :mod:`.verify`, ``--out`` and :class:`x.Y`. Example::\n\n  x"
    assert cli.plain_text(doc) == "Uses run and verify, --out and x.Y. Example:\n\n  x"


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_the_whole_docstring_defaults_and_examples(command, parser, capsys):
    text = _help(command, capsys)
    module = cli._load_commands()[command][0]
    # the whole docstring, reflowed: it used to stop at the end of the first line
    assert _words(cli.plain_text(module.__doc__)) in _words(text)
    raw = module.__doc__.split()
    assert _words(re.sub(r"[`:~]", "", raw[-1])).rstrip(".") in text  # its very last word
    assert len(_words(text)) > len(_words(module.__doc__)) // 2
    # every option with a default shows it exactly once; no value repeated in two forms
    sub = _subparsers(parser)[command]
    formatter = sub._get_formatter()
    for action in sub._actions:
        shown = cli.shown_default(action)
        if shown is None:
            continue
        rendered = formatter._expand_help(action)
        assert len(re.findall(r"\(default\b", rendered)) <= 1, (action.dest, rendered)
        assert "default" in rendered.lower(), (action.dest, rendered)
        if "default" not in (action.help or "").lower():  # appended by the formatter
            assert rendered.endswith(f"(default: {shown})"), rendered
            assert f"({shown}) " not in rendered, rendered  # not also written by hand
        assert _words(rendered) in _words(text)
    # examples: each parses as this command; the files written are named
    examples = cli.EXAMPLES[command]
    assert examples and "\nexamples (" in text and "\nwrites" in text
    assert ("writes, under --out:" in text) == ("--out" in sub._option_string_actions)
    for line, _ in examples:
        argv = shlex.split(line)
        assert argv[:2] == ["transformer-theory", command] and line in text
        assert parser.parse_args(argv[1:]).command == command


def test_defaults_the_issue_found_missing_are_shown(parser):
    # verify's options come from VerifySettings: cli._options.add_settings generates them
    verify = _subparsers(parser)["verify"].format_help()
    for option, default in [
        ("--models", "default 4"),
        ("--precision", "(default: float64)"),
        ("--seed", "(default: 0)"),
        ("--witness-steps", "(default: 300)"),
        ("--random-sets", "(default: 8)"),
    ]:
        block = verify[verify.index(f"  {option} ") :]
        block = block[: block.index("\n  -", 1)]
        assert default in _words(block), (option, block)


def test_train_help_says_each_configs_sizes_and_optimizer(parser):
    # papers/chen_zou2024/experiments: fig2_paper is Adam (lr 1e-3, 3e-4 for the template tasks)
    # at sizes paper and smoke; fig2_depth is SGD (lr 0.1) at quick and paper
    text = _words(_subparsers(parser)["train"].format_help())
    assert (
        "fig2_paper: paper (default), smoke" in text
        and "fig2_depth: quick (default), paper" in text
    )
    assert "adam lr 0.001 (0.0003 for generalization, contextual) for fig2_paper" in text
    assert "sgd lr 0.1 for fig2_depth" in text
    assert "default: SGD" not in text


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"transformer-theory {transformer_theory.__version__}"


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    assert all(name in text for name in COMMANDS) and "--version" in text


# The ways a bar may be switched (tqdm's disable=None: off when stderr is not a terminal).
TERMINAL_ONLY = {"None", "not progress or None", "not (progress and sys.stderr.isatty())"}


def test_every_progress_bar_is_drawn_on_a_terminal_only():
    bars = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("tqdm", "trange"):
                disable = [k.value for k in node.keywords if k.arg == "disable"]
                where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
                bars.append(where)
                assert disable and ast.unparse(disable[0]) in TERMINAL_ONLY, where
    assert len(bars) >= 10, bars  # the scan finds them (13 on 2026-11-25)


def test_a_command_imports_no_other_command():
    # the top-level --help lists the commands from the registry; a command imports its own module
    import subprocess
    import sys

    code = (
        "import sys\nfrom transformer_theory.cli import main\n"
        "for argv in (['--help'], ['demo', '--help']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "    names = [m for m in sys.modules if m.startswith('transformer_theory.cli.')]\n"
        "    print('MODULES', sorted(m for m in names if not m.split('.')[-1].startswith('_')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("MODULES ")]
    assert lines == ["MODULES []", "MODULES ['transformer_theory.cli.demo']"], lines
