"""Chen & Zou's shipped experiments are the modules on disk, each of the one experiment contract,
and a config computes its runs once."""

import pathlib

import pytest

from transformer_theory import sweeps
from transformer_theory.papers.chen_zou2024 import experiments


def test_named_experiments_are_the_modules_on_disk():
    folder = pathlib.Path(experiments.__file__).parent
    on_disk = sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("_"))
    sweeps_on_disk = [  # the training sweeps; the package's other experiments are no sweep
        n
        for n in on_disk
        if 'STUDY = "transformer_theory.sweeps.directory"' in (folder / f"{n}.py").read_text()
    ]
    assert (
        list(experiments.NAMED)
        == sweeps_on_disk
        == ["fig2_depth", "fig2_paper", "fig3_attention_maps", "fig4_7_heads"]
    )
    assert set(on_disk) - set(sweeps_on_disk) == {
        "constructions_paper_sizes",
        "contextual_depth3_recipes",
        "theorem5_base3_certify",
        "verify_10m",
    }
    for name in experiments.NAMED:
        config = experiments.named_config(name)
        assert config.name == name and isinstance(config, sweeps.ExperimentSettings)
        # an output directory records the module, and the spine rebuilds the config from it
        source = sweeps.directory.source_of(config)
        assert source == experiments.module_name(name)
        assert sweeps.resolve(source) == config
        smoke = experiments.named_config(name, "smoke")
        assert type(smoke) is type(config) and smoke != config
        assert len(smoke.runs()) <= min(len(config.runs()), 4)


def test_unknown_names_and_sources_are_refused():
    with pytest.raises(sweeps.ExperimentError, match="unknown experiment 'fig99'"):
        experiments.named_config("fig99")
    with pytest.raises(sweeps.ExperimentError, match="unknown experiment 'fig2_depth'"):
        sweeps.resolve("fig2_depth")  # a bare name: the spine names no paper
    with pytest.raises(sweeps.ExperimentError, match="no such experiment module"):
        sweeps.resolve("transformer_theory.no_such_module")
    with pytest.raises(ValueError, match="size"):
        experiments.named_config("fig2_depth", "huge")


def test_a_configs_runs_are_computed_once_and_follow_replace():
    config = experiments.named_config("fig2_depth")
    assert config.run_specs is config.run_specs and config.runs() == list(config.run_specs)
    narrowed = config.replace(seeds=(0,), tasks=("reasoning",))
    assert len(narrowed.runs()) == 4 and len(config.runs()) == 48
    assert narrowed == config.replace(seeds=(0,), tasks=("reasoning",))  # the cache is no field
