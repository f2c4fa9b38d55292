"""The encoder-decoder experiment (Conti 2024, §1.1-1.2 and §3.1): train, decode, read the heads.

Conti 2024 trains a Post-LN encoder-decoder for 20 epochs with one layer and either one or eight
heads, translating English to Italian, and looks at its attention maps (Figures 11-12, §3.1). Here
the corpus is the rule-based :class:`~transformer_theory.tasks.Translation` grammar (reordering
and agreement; nothing is downloaded), and the study is made measurable:

1. train each model of :attr:`TranslationConfig.models` with teacher forcing (Adam);
2. decode the held-out sentences greedily, score them against the grammar's reference (exact
   match, token accuracy), and decode a subset with beams of several sizes (beam 1 must equal
   greedy; how often a larger beam finds a less likely sequence is counted, since beam search
   does not exclude it: :mod:`transformer_theory.core.beam`), and the same subset with the beam
   search that stops at ``<eos>`` and ranks with the GNMT length penalty;
3. classify every head of the encoder self-attention, decoder self-attention and cross-attention
   (positional / syntactic / rare-token / other, :mod:`transformer_theory.papers.conti2024.heads`,
   as printed and up to a permutation as Conti 2024, eq. 19-20 allow) on held-out sentences, and
   measure how much cross-attention falls on the source word each target word translates
   (:meth:`~transformer_theory.tasks.Translation.alignment`);
4. draw the maps of one sentence per model, titled with each head's kind and score (Figures 11-12),
   and the learning curves.

The experiment's sizes are :mod:`transformer_theory.papers.conti2024.configs.encdec_translation`
(its docstring gives the command, the time and the result); :func:`run` does the work, the command
``python experiments/encdec_translation.py --size default --out DIR`` calls it.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from transformer_theory import jsonio
from transformer_theory.core import beam, encdec
from transformer_theory.nn import activations
from transformer_theory.nn.encdec import EncoderDecoder, Seq2SeqConfig
from transformer_theory.papers.conti2024 import heads
from transformer_theory.papers.conti2024.tasks import BOS, EOS, Translation, token_accuracy
from transformer_theory.train import TrainConfig, rundir
from transformer_theory.train import seq2seq as s2s

KIND = "seq2seq_translation"


@dataclasses.dataclass(frozen=True)
class TranslationConfig:
    """The encoder-decoder experiment.

    Attributes:
      name: names the output files.
      task: the translation grammar.
      models: model name -> :class:`~transformer_theory.nn.encdec.Seq2SeqConfig` (the vocabulary
        size is set from ``task``).
      train: optimizer, steps, batch size, logging and checkpoint intervals (``seed`` replaced by
        each run's seed).
      seeds: one run per model and seed.
      holdout: share of the sentence pairs held out.
      beam_sizes: beam sizes decoded on ``beam_examples`` held-out sentences.
      beam_examples: held-out sentences decoded with every beam size.
      eos_alpha: the same sentences are also decoded with every beam size by the beam search
        that stops at ``<eos>`` (:func:`~transformer_theory.core.beam.beam_decode_eos`) with the
        GNMT length penalty of this exponent.
      map_examples: held-out sentences whose attention maps classify the heads.
      head_options: how heads are classified.
    """

    name: str = "encdec_translation"
    task: Translation = Translation()
    models: Mapping[str, Seq2SeqConfig] = dataclasses.field(
        default_factory=lambda: {
            "1layer_1head": Seq2SeqConfig(vocab_size=1, width=64, num_heads=1, ffn_hidden=128),
            "1layer_8heads": Seq2SeqConfig(vocab_size=1, width=64, num_heads=8, ffn_hidden=128),
        }
    )
    train: TrainConfig = TrainConfig(
        steps=1000,
        batch_size=64,
        learning_rate=3e-3,
        optimizer="adam",
        grad_clip=1.0,
        log_every=50,
        checkpoint_every=500,
    )
    seeds: Sequence[int] = (0,)
    holdout: float = 0.5
    beam_sizes: Sequence[int] = (1, 2, 4)
    beam_examples: int = 256
    eos_alpha: float = 0.6
    map_examples: int = 64
    head_options: heads.HeadOptions = heads.HeadOptions()

    def __post_init__(self):
        if not isinstance(self.task, Translation):
            raise ValueError(f"task: expected a Translation, got {self.task!r}")
        if not self.models:
            raise ValueError("models: expected at least one model")
        fixed = {}
        for name, cfg in self.models.items():
            if not isinstance(cfg, Seq2SeqConfig):
                raise ValueError(f"models: {name!r} is not a Seq2SeqConfig")
            fixed[name] = cfg.replace(vocab_size=self.task.vocab_size)
        object.__setattr__(self, "models", fixed)
        seeds = tuple(int(s) for s in self.seeds)
        if not seeds or min(seeds) < 0 or len(set(seeds)) != len(seeds):
            raise ValueError(f"seeds: expected distinct non-negative integers, got {self.seeds!r}")
        object.__setattr__(self, "seeds", seeds)
        sizes = tuple(int(b) for b in self.beam_sizes)
        if not sizes or min(sizes) < 1 or sizes[0] != 1:
            raise ValueError(
                f"beam_sizes: expected positive sizes starting with 1 (greedy), got "
                f"{self.beam_sizes!r}"
            )
        object.__setattr__(self, "beam_sizes", sizes)
        if not (np.isfinite(self.eos_alpha) and self.eos_alpha >= 0):
            raise ValueError(f"eos_alpha: expected a finite exponent >= 0, got {self.eos_alpha}")
        for name in ("beam_examples", "map_examples"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: expected a positive count, got {getattr(self, name)}")

    def replace(self, **changes: Any) -> TranslationConfig:
        return dataclasses.replace(self, **changes)


def run_name(model: str, seed: int) -> str:
    """The run directory's name of ``model`` trained with ``seed``."""
    return f"{model}_seed{seed}"


def split_translation(task: Translation, key: jax.Array, holdout: float = 0.2) -> s2s.Seq2SeqData:
    """Every sentence pair of ``task``, a random ``holdout`` fraction held out (a function of
    ``key``); the decoder starts from the grammar's ``<bos>``."""
    return s2s.split_pairs(task, key, holdout, bos=BOS)


def _meta(config: TranslationConfig, model: str, seed: int) -> dict:
    return dict(
        kind=KIND,
        name=run_name(model, seed),
        model=model,
        seed=seed,
        task=dataclasses.asdict(config.task),
    )


def _split(task: Translation, seed: int, holdout: float) -> s2s.Seq2SeqData:
    return split_translation(task, jax.random.fold_in(jax.random.key(seed), 2), holdout)


def _initial_model(cfg: Seq2SeqConfig, seed: int) -> EncoderDecoder:
    return EncoderDecoder(cfg, rngs=nnx.Rngs(jax.random.fold_in(jax.random.key(seed), 0)))


def evaluate(
    params: encdec.Seq2SeqParams,
    cfg: Seq2SeqConfig,
    data: s2s.Seq2SeqData,
    config: TranslationConfig,
) -> dict:
    """Greedy decoding of every held-out sentence, and beams on a subset (see the module
    docstring)."""
    length = data.task.target_len
    t0 = time.perf_counter()
    # Beam 1 is greedy decoding (tests/core/test_beam.py checks it against core.greedy_decode).
    greedy, greedy_lps = s2s.decode_all(params, data.src_eval_BxN, length, norm=cfg.norm, bos=BOS)
    scores = token_accuracy(greedy, data.tgt_eval_BxT)
    out = dict(
        greedy_exact_match=scores["exact_match"],
        greedy_token_accuracy=scores["token_accuracy"],
        heldout=scores["examples"],
        greedy_seconds=round(time.perf_counter() - t0, 2),
    )
    sub = slice(0, min(config.beam_examples, data.src_eval_BxN.shape[0]))
    src, ref = data.src_eval_BxN[sub], data.tgt_eval_BxT[sub]
    previous = None
    for k in config.beam_sizes:
        if k == 1:
            toks, lps = greedy[sub], greedy_lps[sub]
        else:
            toks, lps = s2s.decode_all(params, src, length, beam_size=k, norm=cfg.norm, bos=BOS)
        sc = token_accuracy(toks, ref)
        out[f"beam{k}_exact_match"] = sc["exact_match"]
        out[f"beam{k}_mean_logprob"] = float(lps.mean())
        if previous is not None:
            # A larger beam may end on a less likely sequence (core.beam): count how often.
            out[f"beam{k}_below_smaller_beam"] = float((lps < previous - 1e-5).mean())
        previous = lps
    for k in config.beam_sizes:
        hyp = _decode_eos(params, jnp.asarray(src), length, k, config.eos_alpha, cfg.norm)
        toks, lengths = np.asarray(hyp.tokens_KxL), np.asarray(hyp.lengths_K)
        ended = np.asarray(hyp.finished_K)
        # exact: ends in <eos> where the reference does, with the same words before it
        ref_len = (np.asarray(ref) == EOS).argmax(axis=1) + 1
        same = [
            bool(ended[b] and lengths[b] == ref_len[b] and (toks[b] == ref[b])[: ref_len[b]].all())
            for b in range(toks.shape[0])
        ]
        out[f"beam{k}_eos_exact_match"] = float(np.mean(same))
        out[f"beam{k}_eos_mean_length"] = float(lengths.mean())
    out["beam_examples"] = int(src.shape[0])
    out["eos_alpha"] = config.eos_alpha
    return out


@functools.partial(jax.jit, static_argnums=(2, 3, 4, 5))
def _decode_eos(params, src_BxN, length: int, beam_size: int, alpha: float, norm: str):
    """The best hypothesis of the eos-stopping beam search for each source sentence."""

    def one(src):
        hyp = beam.beam_decode_eos(params, src, BOS, EOS, length, beam_size, alpha=alpha, norm=norm)
        return jax.tree.map(lambda a: a[0], hyp)

    return jax.vmap(one)(src_BxN)


def head_records(
    params: encdec.Seq2SeqParams,
    cfg: Seq2SeqConfig,
    data: s2s.Seq2SeqData,
    config: TranslationConfig,
) -> tuple[list[dict], list]:
    """``(records, maps)``: one record per head (kind and score, plus, for cross-attention, the
    share of each head's attention on the source word being translated) and the maps used."""
    n = min(config.map_examples, data.src_eval_BxN.shape[0])
    src, tgt = data.src_eval_BxN[:n], data.tgt_eval_BxT[:n]
    maps = activations.seq2seq_maps(params, src, s2s.decoder_inputs(tgt, BOS), norm=cfg.norm)
    records = heads.classify_model(maps, config.head_options)
    align = data.task.alignment(src)  # (B, T): source position of each target token
    cross = {layer: m for att, layer, m in maps if att == "cross"}
    for rec in records:
        if rec["attention"] != "cross":
            continue
        m = cross[rec["layer"]][:, rec["head"]]  # (B, T, N)
        rows = align >= 0
        on = np.take_along_axis(m, np.maximum(align, 0)[..., None], axis=-1)[..., 0]
        rec["share_on_aligned_word"] = float(on[rows].mean())
    return records, maps


def run(
    config: TranslationConfig,
    out_dir: str,
    *,
    progress: bool = True,
    on_result: Callable[[dict], None] | None = None,
) -> dict:
    """Train, evaluate and analyse every (model, seed) of ``config`` under ``out_dir``.

    Writes, as each run finishes, ``summary.{json,csv}`` (one row per finished run) and
    ``heads.json`` (one record per head) and ``<run>_maps.png``; at the end ``curves.png``. Each
    run's directory (``run.json``, metrics, checkpoints) resumes like any training run, so the same
    call after a kill continues where it stopped. ``on_result(row)`` is called after each run.

    Returns:
      ``{"rows": summary rows, "files": the files written}``.
    """
    os.makedirs(out_dir, exist_ok=True)
    rows, head_rows, maps_files, curves = [], [], [], {}
    summary = os.path.join(out_dir, "summary.json")
    heads_file = os.path.join(out_dir, "heads.json")
    for model_name, cfg in config.models.items():
        for seed in config.seeds:
            name = run_name(model_name, seed)
            data = _split(config.task, seed, config.holdout)
            tc = config.train.replace(seed=seed)
            t0 = time.perf_counter()
            params, metrics = s2s.train_seq2seq(
                _initial_model(cfg, seed),
                data,
                tc,
                os.path.join(out_dir, name),
                meta=_meta(config, model_name, seed),
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
            row.update(evaluate(params, cfg, data, config))
            records, maps = head_records(params, cfg, data, config)
            for rec in records:
                head_rows.append(dict(run=name, **rec))
            counts = {k: sum(r["kind"] == k for r in records) for k in heads.KINDS}
            row.update({f"heads_{k}": v for k, v in counts.items()})
            permuted = {k: sum(r["permuted"]["kind"] == k for r in records) for k in heads.KINDS}
            row.update({f"heads_permuted_{k}": v for k, v in permuted.items()})
            rows.append(row)
            curves[name] = metrics
            maps_files.append(
                draw_maps(
                    config.task, data, maps, records, os.path.join(out_dir, f"{name}_maps.png")
                )
            )
            jsonio.write_json(summary, rows)
            jsonio.write_csv(os.path.join(out_dir, "summary.csv"), rows, list(rows[0]))
            jsonio.write_json(heads_file, head_rows)
            if on_result is not None:
                on_result(row)
    maps_files.append(draw_curves(curves, os.path.join(out_dir, "curves.png")))
    return {"rows": rows, "files": [summary, heads_file] + maps_files}


def run_translation(
    config: TranslationConfig,
    out: str,
    *,
    progress: bool = True,
    on_result: Callable[[dict], None] | None = None,
) -> tuple[list[dict], list[str]]:
    """:func:`run`, returning ``(summary rows, files written)``."""
    result = run(config, out, progress=progress, on_result=on_result)
    return result["rows"], result["files"]


def draw_maps(
    task: Translation, data: s2s.Seq2SeqData, maps: list, records: list[dict], path: str
) -> str:
    """Figures 11-12 of Conti 2024 for our model: every head's map on the first held-out sentence
    (rows = queries, columns = keys), titled with its kind and score on all the map examples."""
    from transformer_theory.papers.conti2024 import plots

    words = task.words()
    src = [words[t] for t in data.src_eval_BxN[0]]
    tgt_in = [words[t] for t in s2s.decoder_inputs(data.tgt_eval_BxT[:1], BOS)[0]]
    labels = {"encoder": (src, src), "decoder": (tgt_in, tgt_in), "cross": (tgt_in, src)}
    return plots.head_grid(maps, records, labels, path, example=0)


def draw_curves(curves: dict[str, list[dict]], path: str) -> str:
    """Teacher-forced held-out token accuracy and loss against steps, one line per run."""
    from transformer_theory import plotting as plots

    return plots.learning_curves(curves, path)


# --- reading a run directory back -------------------------------------------------------------


def is_translation_run(run_dir: str) -> bool:
    """Whether ``run_dir`` holds a run of this experiment (its ``run.json`` says so)."""
    try:
        record = rundir.read_run_file(run_dir)
    except rundir.RunDirectoryError:
        return False
    return record is not None and record["settings"].get("kind") == KIND


def load_run(run_dir: str) -> tuple[encdec.Seq2SeqParams, Seq2SeqConfig, s2s.Seq2SeqData, str]:
    """``(params, model config, data split, name)`` of a finished run directory of this
    experiment, rebuilt from its ``run.json`` and latest checkpoint.

    Raises :class:`~transformer_theory.train.RunDirectoryError` naming what is missing, also
    when the checkpoint's files are missing or corrupted.
    """
    record = rundir.read_run_file(run_dir)
    if record is None or record["settings"].get("kind") != KIND:
        raise rundir.RunDirectoryError(f"{run_dir}: not a run of the encoder-decoder experiment")
    s = record["settings"]
    try:
        cfg = Seq2SeqConfig(
            **{f.name: s[f"model.{f.name}"] for f in dataclasses.fields(Seq2SeqConfig)}
        )
        task = Translation(**s["task"])
        train_fields = {
            f.name: s[f"train.{f.name}"]
            for f in dataclasses.fields(TrainConfig)
            if f"train.{f.name}" in s
        }
        tc = TrainConfig(**train_fields)
        data = _split(task, int(s["seed"]), float(s["data.holdout"]))
    except (KeyError, TypeError, ValueError) as err:
        raise rundir.RunDirectoryError(
            f"{run_dir}/{rundir.RUN_FILE}: cannot rebuild the run ({type(err).__name__}: {err})"
        ) from None
    try:
        params = s2s.restore_seq2seq(run_dir, _initial_model(cfg, int(s["seed"])), tc)
    except rundir.RunDirectoryError:
        raise
    except Exception as err:  # noqa: BLE001 -- Orbax/TensorStore: ValueError, FileNotFoundError...
        first = (str(err).strip().splitlines() or [""])[0][:240]
        raise rundir.RunDirectoryError(
            f"{run_dir}/checkpoints: cannot restore the latest checkpoint, a file is missing or "
            f"corrupted ({type(err).__name__}: {first})"
        ) from None
    return params, cfg, data, s.get("name", os.path.basename(run_dir))


__all__ = [
    "KIND",
    "TranslationConfig",
    "draw_curves",
    "draw_maps",
    "evaluate",
    "head_records",
    "is_translation_run",
    "load_run",
    "run",
    "run_name",
    "run_translation",
    "split_translation",
]
