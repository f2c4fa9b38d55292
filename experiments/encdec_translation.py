"""The encoder-decoder of Conti 2024 on the synthetic translation grammar (one head against eight).

A thin entry: ``--size`` -> :func:`transformer_theory.papers.conti2024.experiments.
encdec_translation.get_config` (with ``--steps``, ``--seeds`` and ``--set field=value``) -> its
``run``. The experiment module's docstring gives the command, what it writes, how long it takes
and the result::

    python experiments/encdec_translation.py --size default --out results/encdec_translation

``--smoke`` is ``--size smoke``.
"""

import dataclasses
import sys
import time

from transformer_theory.cli.scripts import EXIT_USAGE, override, script_run
from transformer_theory.papers import study_of
from transformer_theory.papers.conti2024.experiments import encdec_translation as experiment
from transformer_theory.settings import OptionError, setting


@dataclasses.dataclass(frozen=True)
class TranslationOptions:
    """The size's values the script changes by an option of their own.

    Attributes:
      steps: training steps per run (default: the size's).
      seeds: seeds, several words or a comma list (default: the size's).
    """

    steps: int | None = setting(None, positive=True)
    seeds: tuple[int, ...] | None = setting(None, minimum=0, words=True)


def main(argv=None) -> int:
    given = script_run(
        argv, experiment, TranslationOptions, description=__doc__.split("\n\n")[0], progress=True
    )
    options = given.options
    try:
        config = experiment.get_config(given.size)
        if options.steps is not None:
            config = config.replace(train=config.train.replace(steps=options.steps))
        if options.seeds is not None:
            config = override(config, ["seeds=" + ",".join(map(str, options.seeds))])
        config = override(config, given.sets)
    except OptionError as err:
        print(f"encdec_translation: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    t0 = time.perf_counter()

    def report(run):  # a TranslationRun (the study's typed record)
        kinds = [(k, v) for k, v in run.head_kinds.items() if v]
        kinds += [(f"permuted_{k}", v) for k, v in run.head_kinds_permuted.items() if v]
        print(
            f"{run.run}: greedy exact match {run.greedy_exact_match:.3f}, token accuracy "
            f"{run.greedy_token_accuracy:.3f} on {run.heldout} held-out sentences; heads "
            + ", ".join(f"{k} {v}" for k, v in kinds),
            flush=True,
        )

    result = study_of(experiment).run(config, given.out, progress=given.progress, on_result=report)
    print(f"done in {time.perf_counter() - t0:.0f} s")
    for path in result.files:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
