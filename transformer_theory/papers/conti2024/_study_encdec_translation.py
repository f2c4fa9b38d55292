"""The study of Conti 2024's ``encdec_translation`` experiment (§3.1): its settings
(:class:`.experiments.encdec_translation.TranslationSettings`, read by their fields: this module
imports no experiment and no option) -> every (model, seed) trained (resuming from its
checkpoints) -> decoded greedily and with beams -> its heads classified -> ``summary.{json,csv}``
and ``heads.json`` rewritten -> its maps drawn; at the end the learning curves.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable
from typing import Any

from transformer_theory import jsonio, plotting
from transformer_theory.papers.conti2024 import _models_translation as translation
from transformer_theory.papers.conti2024 import _plots as plots
from transformer_theory.papers.conti2024 import _theory_heads as heads
from transformer_theory.papers.conti2024._records import TranslationRun
from transformer_theory.train import seq2seq as s2s

__all__ = ["TranslationStudy", "run"]


@dataclasses.dataclass(frozen=True)
class TranslationStudy:
    """What :func:`run` trained and wrote: one :class:`.._models_TranslationRun` per
    finished (model, seed), and the files written (``summary.json``, ``heads.json``, the maps,
    ``curves.png``)."""

    runs: tuple[TranslationRun, ...]
    files: tuple[str, ...]

    @property
    def rows(self) -> list[dict]:
        """The flat ``summary.json`` rows (the table ``experiment`` prints)."""
        return [r.row() for r in self.runs]


def run(
    config: Any,
    out_dir: str,
    *,
    progress: bool = True,
    on_result: Callable[[TranslationRun], None] | None = None,
) -> TranslationStudy:
    """Train, evaluate and analyse every (model, seed) of ``config`` under ``out_dir``.

    Writes, as each run finishes, ``summary.{json,csv}`` (one row per finished run) and
    ``heads.json`` (one record per head) and ``<run>_maps.png``; at the end ``curves.png``. Each
    run's directory (``run.json``, metrics, checkpoints) resumes like any training run, so the same
    call after a kill continues where it stopped. ``on_result(run)`` is called after each run.

    Returns:
      a :class:`TranslationStudy`.
    """
    os.makedirs(out_dir, exist_ok=True)
    done, head_rows, maps_files, curves = [], [], [], {}
    summary = os.path.join(out_dir, "summary.json")
    heads_file = os.path.join(out_dir, "heads.json")
    for model_name, cfg in config.models.items():
        for seed in config.seeds:
            name = translation.run_name(model_name, seed)
            data = translation.data_split(config.task, seed, config.holdout)
            tc = config.train.replace(seed=seed)
            t0 = time.perf_counter()
            params, metrics = s2s.train_seq2seq(
                translation.initial_model(cfg, seed),
                data,
                tc,
                os.path.join(out_dir, name),
                meta=translation.run_meta(config.task, model_name, seed),
                progress=progress,
            )
            train_seconds = round(time.perf_counter() - t0, 2)
            row = dict(
                run=name,
                model=model_name,
                heads=cfg.num_heads,
                layers=cfg.num_layers,
                width=cfg.width,
                seed=seed,
                steps=metrics[-1]["step"],
                train_seconds=train_seconds,
                teacher_forced_eval_acc=metrics[-1]["eval_acc"],
                eval_loss=metrics[-1]["eval_loss"],
            )
            src, maps = translation.attention_maps(
                params, cfg, data, map_examples=config.map_examples
            )
            row.update(
                translation.evaluate(
                    params,
                    cfg,
                    data,
                    beam_sizes=config.beam_sizes,
                    beam_examples=config.beam_examples,
                    eos_alpha=config.eos_alpha,
                )
            )
            align = data.task.alignment(src)  # (B, T): source position of each target token
            records = heads.with_aligned_shares(
                heads.classify_model(maps, config.head_options), maps, align
            )
            words = config.task.words()  # the maps' tick labels
            for rec in records:
                head_rows.append(dict(run=name, **rec))
            counts = {k: sum(r["kind"] == k for r in records) for k in heads.KINDS}
            row.update({f"heads_{k}": v for k, v in counts.items()})
            permuted = {k: sum(r["permuted"]["kind"] == k for r in records) for k in heads.KINDS}
            row.update({f"heads_permuted_{k}": v for k, v in permuted.items()})
            done.append(TranslationRun.from_row(row))
            rows = [r.row() for r in done]
            curves[name] = metrics
            maps_files.append(
                plots.translation_maps(
                    words, data, maps, records, os.path.join(out_dir, f"{name}_maps.png")
                )
            )
            jsonio.write_json(summary, rows)
            jsonio.write_csv(os.path.join(out_dir, "summary.csv"), rows, list(rows[0]))
            jsonio.write_json(heads_file, head_rows)
            if on_result is not None:
                on_result(done[-1])
    maps_files.append(plotting.learning_curves(curves, os.path.join(out_dir, "curves.png")))
    return TranslationStudy(tuple(done), (summary, heads_file, *maps_files))
