"""One RASP program compiled into the one parameter format and checked on every input: the
``rasp`` command (``transformer-theory rasp PROGRAM``).

``program`` is a library program (:data:`transformer_theory.rasp.PROGRAMS`) or a ``.py`` file
defining ``program()`` (and optionally ``VOCAB``). The compiled model is run by the library's
forward pass against the interpreter on every input up to ``max_len`` while there are at most
``max_inputs`` of them, on ``samples`` seeded inputs of each longer length, every position
compared; with ``precision_lengths`` the longest exact length in float32 and float64 (constants
chosen by the stated law for each length) is measured beside the law's prediction. The study,
:func:`transformer_theory.rasp._study_program.run`, checks the sizes before any work, compiles
and checks (:func:`transformer_theory.rasp.study`) and writes ``model.npz``, ``rasp.json`` and
``rasp.png``::

    from transformer_theory.papers import study_of
    from transformer_theory.rasp.experiments import program

    done = study_of(program).run(program.get_config("smoke"), "results/rasp")
    done.record.check.agree  # True: every input up to length 4, every position
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from transformer_theory.settings import check_minimums, setting

__all__ = ["SIZES", "RaspSettings", "get_config"]


@dataclasses.dataclass(frozen=True)
class RaspSettings:
    """What one rasp run compiles and checks.

    Attributes:
      program: a library program name or a .py file.
      max_len: longest input (default: the program's own, 5 to 8; a .py file's 6).
      vocab: the tokens, one character each (default: the program's own).
      causal: compile under a causal mask (refused where the meaning would change).
      precision: float format of the check.
      max_inputs: inputs enumerated before sampling starts.
      samples: seeded inputs per length beyond max_inputs.
      precision_lengths: lengths for the precision limits, e.g. 8,16,32,64 (none by default).
    """

    program: str = setting(flag="PROGRAM")
    max_len: int | None = setting(None, positive=True)
    vocab: str | None = None
    causal: bool = False
    precision: Literal["float64", "float32", "bfloat16"] = "float64"
    max_inputs: int = setting(100_000, minimum=0)
    samples: int = setting(64, minimum=0)
    precision_lengths: tuple[int, ...] = setting((), positive=True)

    def __post_init__(self) -> None:
        check_minimums(self)
        if self.vocab is not None and (not self.vocab or len(set(self.vocab)) != len(self.vocab)):
            raise ValueError(f"vocab: expected distinct characters, got {self.vocab!r}")
        if self.vocab is not None and any(0xD800 <= ord(c) <= 0xDFFF for c in self.vocab):
            raise ValueError(f"vocab: {self.vocab!r} holds a byte that is not text (not UTF-8)")


SIZES = ("smoke", "default")


def get_config(size: str = "default") -> RaspSettings:
    """The library's ``reverse`` at its own length (``"default"``) or up to length 4
    (``"smoke"``), checked in float64.

    Raises:
      ValueError: naming ``size`` when it is not one of :data:`SIZES`.
    """
    if size not in SIZES:
        raise ValueError(f"size: expected one of {', '.join(SIZES)}, got {size!r}")
    return RaspSettings(program="reverse", max_len=4 if size == "smoke" else None)
