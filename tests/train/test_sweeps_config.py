"""The sweeps find its shipped configs on disk and computes a config's runs once."""

import pathlib

from transformer_theory import sweeps
from transformer_theory.sweeps import configs


def test_named_experiments_are_the_config_modules_on_disk():
    folder = pathlib.Path(configs.__file__).parent
    on_disk = sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("_"))
    assert list(sweeps.NAMED) == on_disk and set(configs.__all__) == set(on_disk)
    for name in sweeps.NAMED:
        assert sweeps.named_config(name).name == name


def test_a_configs_runs_are_computed_once_and_follow_replace():
    config = sweeps.named_config("fig2_depth")
    assert config.run_specs is config.run_specs and config.runs() == list(config.run_specs)
    narrowed = config.replace(seeds=(0,), tasks=("reasoning",))
    assert len(narrowed.runs()) == 4 and len(config.runs()) == 48
    assert narrowed == config.replace(seeds=(0,), tasks=("reasoning",))  # the cache is no field
