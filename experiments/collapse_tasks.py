"""Copy-first, copy-last and count-ones, trained small and evaluated long, at every precision,
with and without separators (Barbero et al. 2024, §4). Imports only the public library::

    python experiments/collapse_tasks.py --out results/collapse_tasks
    python experiments/collapse_tasks.py --size smoke --out /tmp/smoke   # under a minute
    python experiments/collapse_tasks.py --set steps=300 --set eval_max_len=512 --out /tmp/short

The experiment (its settings, ``get_config(size)``, what the run writes, how long it takes and
the result it produced) is
:mod:`transformer_theory.papers.barbero2024.experiments.collapse_tasks`, the same as
``transformer-theory experiment collapse_tasks``; ``--set field=value`` changes one of its
fields. ``--config collapse_tasks`` and ``--config smoke`` are the older names of the two sizes.
"""

import dataclasses
import sys
from typing import Literal

from transformer_theory.cli.scripts import EXIT_USAGE, Overrides, override, script_options
from transformer_theory.papers import study_of
from transformer_theory.papers.barbero2024.experiments import collapse_tasks
from transformer_theory.precision import enable_x64
from transformer_theory.settings import OptionError, setting

# --config NAME (the script's older option) -> the size it names
OLD_NAMES = {"collapse_tasks": "default", "smoke": "smoke"}


@dataclasses.dataclass(frozen=True)
class CollapseTasksScript:
    """The script's own options (the experiment's settings are changed by ``--set``).

    Attributes:
      size: the size (default: default).
      config: the older name of a size (collapse_tasks: default, smoke: smoke).
      out: output directory (its JSON record and plot).
      progress: draw the progress bars (only on a terminal); --no-progress hides them.
    """

    size: Literal[collapse_tasks.SIZES] | None = None
    config: Literal[tuple(sorted(OLD_NAMES))] | None = None
    out: str = "results/collapse_tasks"
    progress: bool = setting(True)

    def __post_init__(self) -> None:
        if self.size is not None and self.config is not None:
            raise ValueError("config: give --size or --config, not both")


def main(argv: list[str] | None = None) -> int:
    opts, changes = script_options(
        argv, CollapseTasksScript, Overrides, description=__doc__.split("\n\n")[0]
    )
    size = opts.size or OLD_NAMES.get(opts.config, "default")
    try:
        config = override(collapse_tasks.get_config(size), changes.sets)
    except OptionError as err:
        print(f"collapse_tasks: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    enable_x64()
    record = study_of(collapse_tasks).run(config, opts.out, progress=opts.progress)
    print("\n".join(study_of(collapse_tasks).summary_lines(record)))
    print(f"{record.seconds} s; {opts.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
