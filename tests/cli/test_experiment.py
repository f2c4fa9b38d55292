"""``transformer-theory experiment``: every paper's experiment configs follow one convention."""

import dataclasses
import inspect

import pytest

from transformer_theory.cli import main
from transformer_theory.cli.experiment import discover
from transformer_theory.papers import study_of

FOUND = discover()


def test_every_experiment_follows_the_convention():
    assert len(FOUND) >= 5, f"expected the papers' experiments, found {sorted(FOUND)}"
    for name, (_paper, module) in FOUND.items():
        doc = module.__doc__ or ""
        assert "transformer-theory experiment" in doc or "experiments/" in doc, (
            f"{name}: the docstring must give the exact command"
        )
        sizes = tuple(getattr(module, "SIZES", ()))
        assert "smoke" in sizes and "default" in sizes, f"{name}: SIZES {sizes}"
        for size in sizes:
            config = module.get_config(size)
            assert dataclasses.is_dataclass(config), f"{name}: get_config returns a dataclass"
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(config, dataclasses.fields(config)[0].name, None)
        with pytest.raises(ValueError, match="size"):
            module.get_config("no-such-size")
        assert not hasattr(module, "run"), f"{name}: a config holds no study"
        params = inspect.signature(study_of(module).run).parameters
        assert list(params)[:2] == ["config", "out_dir"], f"{name}: run(config, out_dir, ...)"


def test_list_names_every_experiment(capsys):
    assert main(["experiment", "--list"]) == 0
    out = capsys.readouterr().out
    for name, (paper, _) in FOUND.items():
        assert name in out and paper in out


def test_unknown_names_and_sizes_are_refused_before_any_work(capsys):
    assert main(["experiment", "no-such-experiment"]) == 2
    assert "NAME: unknown experiment" in capsys.readouterr().err
    if FOUND:
        name = next(iter(FOUND))
        assert main(["experiment", name, "--size", "no-such-size"]) == 2
        assert "--size" in capsys.readouterr().err


def test_a_smoke_experiment_runs_by_name_and_writes_valid_json(tmp_path, capsys):
    from transformer_theory.jsonio import read_json

    out = tmp_path / "qsa"
    assert main(["experiment", "qsa_separation", "--size", "smoke", "--out", str(out)]) == 0
    written = sorted(p.name for p in out.iterdir())
    jsons = [p for p in out.iterdir() if p.suffix == ".json"]
    assert jsons, f"no JSON written: {written}"
    for p in jsons:
        read_json(str(p))  # strict: raises on NaN / Infinity literals
    assert "qsa_separation (sanford2023, size smoke)" in capsys.readouterr().out


@pytest.fixture
def x64_off():
    """JAX's 64-bit mode OFF for one test, as a user's fresh process starts (the suite's conftest
    turns it on, which would hide an experiment that needs it and does not say so)."""
    import jax

    jax.config.update("jax_enable_x64", False)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", True)


def test_a_float64_experiment_turns_64_bit_mode_on_itself(x64_off, tmp_path, monkeypatch):
    """``experiment ngram_exactness`` (float64 rows; ``X64 = True``) runs from a process whose
    64-bit mode is off; without its declaration the same run is refused, naming float64."""
    import jax

    from transformer_theory.papers.svete_cotterell2024.experiments import ngram_exactness

    argv = ["experiment", "ngram_exactness", "--size", "smoke", "--out", str(tmp_path / "a")]
    assert main(argv) == 0
    assert jax.config.jax_enable_x64

    jax.config.update("jax_enable_x64", False)
    monkeypatch.setattr(ngram_exactness, "X64", False)
    argv[-1] = str(tmp_path / "b")
    with pytest.raises(ValueError, match="64-bit mode"):
        main(argv)


@pytest.mark.parametrize("how", ["command", "script"])
def test_an_override_that_multiplies_the_work_is_refused_with_its_estimate(how, tmp_path, capsys):
    """``--set steps=2**70`` ran for hours (issue 48): the size's estimate is scaled by every
    work field the override changes, refused in one line naming ``--set steps``, exit 2, before
    the output directory is made; a shorter run than shipped is not refused."""
    import importlib.util
    import pathlib

    out = tmp_path / "o"
    huge = ["--set", f"steps={2**70}"]
    if how == "command":
        run = lambda extra: main(  # noqa: E731
            ["experiment", "composition_bound", "--size", "smoke", *extra, "--out", str(out)]
        )
    else:
        path = pathlib.Path(__file__).parents[2] / "experiments" / "composition_bound.py"
        spec = importlib.util.spec_from_file_location("composition_bound_script", path)
        script = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(script)
        run = lambda extra: script.main(["--smoke", *extra, "--out", str(out)])  # noqa: E731
    assert run(huge) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--set steps" in err[0] and "would take about" in err[0], err
    assert not out.exists()


def test_the_estimate_scales_with_each_work_field():
    from transformer_theory.cli._experiments import SMOKE_SECONDS, check_seconds
    from transformer_theory.papers.peng2024.experiments import composition_bound as cb

    shipped = cb.get_config("smoke")
    assert check_seconds("composition_bound", "smoke", shipped, shipped) == SMOKE_SECONDS
    more = dataclasses.replace(shipped, steps=shipped.steps * 4, batch=shipped.batch * 2)
    assert check_seconds("composition_bound", "smoke", more, shipped) == SMOKE_SECONDS * 8
    fewer = dataclasses.replace(shipped, steps=1)
    assert check_seconds("composition_bound", "smoke", fewer, shipped) < SMOKE_SECONDS
