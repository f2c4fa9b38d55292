"""The study of Chen & Zou 2024's ``theorem5_base3_certify`` experiment: its settings
(:class:`.experiments.theorem5_base3_certify.Base3CertifySettings`, read by their fields) -> the
four certificates (:func:`transformer_theory.constructions.base3.certify`, exact integer
arithmetic; the model's streams in float64, so 64-bit mode must be on: the experiment declares
``X64``) -> ``theorem5_base3_certify.json``; :func:`summary_lines` says what each found.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from transformer_theory.constructions.base3 import Base3Certificate, certify
from transformer_theory.jsonio import write_json

__all__ = ["FILE", "Base3Study", "run", "summary_lines"]

FILE = "theorem5_base3_certify.json"


@dataclasses.dataclass(frozen=True)
class Base3Study:
    """What :func:`run` certified (``certificate``) and where it wrote it (``path``)."""

    certificate: Base3Certificate
    path: str

    @property
    def rows(self) -> list[dict]:
        """One row per certificate: what it checked, up to which bound, whether it holds, the
        seconds (the table ``experiment`` prints)."""
        c = self.certificate
        return [
            dict(
                check="blocks", bound=c.blocks.L, holds=c.blocks.injective, seconds=c.blocks.seconds
            ),
            dict(check="sort", bound=c.sort.L, holds=c.sort.agrees, seconds=c.sort.seconds),
            dict(
                check="direct",
                bound=max(c.direct.lengths),
                holds=all(x.distinct for x in c.direct.lengths.values()),
                seconds=c.direct.seconds,
            ),
            dict(
                check="model",
                bound=max(c.model.lengths),
                holds=all(c.model.lengths.values()),
                seconds=c.model.seconds,
            ),
        ]


def run(config: Any, out_dir: str, *, progress: bool = True) -> Base3Study:
    """Certify to ``config``'s bounds and write ``out_dir/theorem5_base3_certify.json``."""
    del progress  # each certificate takes seconds: nothing to draw
    cert = certify(config.blocks, config.sort, config.direct, config.model)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, FILE)
    write_json(path, cert, default_str=True)
    return Base3Study(cert, path)


def summary_lines(study: Base3Study) -> list[str]:
    """What each certificate found, one line each, then the file written."""
    cert = study.certificate
    blocks, nxt, witness = cert.blocks, cert.blocks.next_L_collisions, cert.blocks.next_L_witness
    direct = max(cert.direct.lengths)
    model = max(cert.model.lengths)
    return [
        f"blocks: f injective on the subsets of {{0..{blocks.L - 1}}}: {blocks.injective}"
        + (f" (collisions {blocks.collisions})" if blocks.collisions else "")
        + f"; at L = {blocks.L + 1}: "
        + (f"collides for sizes {nxt}, e.g. E = {witness[0]}, E' = {witness[1]}" if nxt else "none")
        + f"  [{blocks.seconds} s]",
        f"sort: brute force over 2^L subsets, L <= {cert.sort.L}: "
        f"collisions at {cert.sort.collides_at or 'none'}; "
        f"agrees with the automaton: {cert.sort.agrees}  [{cert.sort.seconds} s]",
        f"direct: every template of length l <= {direct} "
        f"({cert.direct.lengths[direct].templates:,} at l = {direct}) gets its own vector: "
        f"{all(c.distinct for c in cert.direct.lengths.values())}  [{cert.direct.seconds} s]",
        f"model: template_code and the float64 streams of theorem5 equal the formula for every "
        f"l <= {model}: {all(cert.model.lengths.values())}  [{cert.model.seconds} s]",
        f"wrote {study.path}",
    ]
