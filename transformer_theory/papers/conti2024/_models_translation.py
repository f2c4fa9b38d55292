"""The trained encoder-decoder of Conti 2024's translation experiment (§1.1-1.2, §3.1): its runs'
names, data split and initial model, greedy / beam / eos-beam decoding scored against the
grammar, its attention maps (which :mod:`._theory_heads` classifies), and a finished run read back
from its directory.

The experiment that trains these models is :mod:`.experiments.encdec_translation` (its study:
:mod:`._study_encdec_translation`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import time

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from transformer_theory.core import beam, encdec
from transformer_theory.nn import activations
from transformer_theory.nn.encdec import EncoderDecoder, Seq2SeqConfig
from transformer_theory.papers.conti2024._tasks import (
    BOS,
    EOS,
    Translation,
    eos_exact_match,
    token_accuracy,
)
from transformer_theory.train import TrainSettings, rundir
from transformer_theory.train import seq2seq as s2s

KIND = "seq2seq_translation"


def run_name(model: str, seed: int) -> str:
    """The run directory's name of ``model`` trained with ``seed``."""
    return f"{model}_seed{seed}"


def run_meta(task: Translation, model: str, seed: int) -> dict:
    """What ``run.json`` records of ``model`` trained with ``seed`` on ``task`` beside the
    training settings: the kind of run (:data:`KIND`), its name, the model, the seed, the task."""
    return dict(
        kind=KIND, name=run_name(model, seed), model=model, seed=seed, task=dataclasses.asdict(task)
    )


def split_translation(task: Translation, key: jax.Array, holdout: float = 0.2) -> s2s.Seq2SeqData:
    """Every sentence pair of ``task``, a random ``holdout`` fraction held out (a function of
    ``key``); the decoder starts from the grammar's ``<bos>``."""
    return s2s.split_pairs(task, key, holdout, bos=BOS)


def data_split(task: Translation, seed: int, holdout: float) -> s2s.Seq2SeqData:
    """The split a run trained with ``seed`` uses (:func:`split_translation` under the seed's
    data key)."""
    return split_translation(task, jax.random.fold_in(jax.random.key(seed), 2), holdout)


def initial_model(cfg: Seq2SeqConfig, seed: int) -> EncoderDecoder:
    """The untrained model a run with ``seed`` starts from (the seed's model key)."""
    return EncoderDecoder(cfg, rngs=nnx.Rngs(jax.random.fold_in(jax.random.key(seed), 0)))


def evaluate(
    params: encdec.Seq2SeqParams,
    cfg: Seq2SeqConfig,
    data: s2s.Seq2SeqData,
    *,
    beam_sizes: tuple[int, ...],
    beam_examples: int,
    eos_alpha: float,
) -> dict:
    """Greedy decoding of every held-out sentence, and beams of each of ``beam_sizes`` on the
    first ``beam_examples`` of them (plain, and stopping at ``<eos>`` with length penalty
    ``eos_alpha``): every sentence decoded first, then scored against the grammar
    (:func:`._tasks.token_accuracy`, :func:`._tasks.eos_exact_match`)."""
    length = data.task.target_len
    t0 = time.perf_counter()
    # Beam 1 is greedy decoding (tests/core/test_beam.py checks it against core.greedy_decode).
    greedy, greedy_lps = s2s.decode_all(params, data.src_eval_BxN, length, norm=cfg.norm, bos=BOS)
    greedy_seconds = round(time.perf_counter() - t0, 2)
    sub = slice(0, min(beam_examples, data.src_eval_BxN.shape[0]))
    src, ref = data.src_eval_BxN[sub], data.tgt_eval_BxT[sub]
    beams = {}
    for k in beam_sizes:
        if k == 1:
            beams[k] = greedy[sub], greedy_lps[sub]
        else:
            beams[k] = s2s.decode_all(params, src, length, beam_size=k, norm=cfg.norm, bos=BOS)
    eos = {
        k: _decode_eos(params, jnp.asarray(src), length, k, eos_alpha, cfg.norm) for k in beam_sizes
    }
    # scored against the grammar, in the order summary.json lists the measures
    scores = token_accuracy(greedy, data.tgt_eval_BxT)
    out = dict(
        greedy_exact_match=scores["exact_match"],
        greedy_token_accuracy=scores["token_accuracy"],
        heldout=scores["examples"],
        greedy_seconds=greedy_seconds,
    )
    previous = None
    for k, (toks, lps) in beams.items():
        out[f"beam{k}_exact_match"] = token_accuracy(toks, ref)["exact_match"]
        out[f"beam{k}_mean_logprob"] = float(lps.mean())
        if previous is not None:
            # A larger beam may end on a less likely sequence (core.beam): count how often.
            out[f"beam{k}_below_smaller_beam"] = float((lps < previous - 1e-5).mean())
        previous = lps
    for k, hyp in eos.items():
        out[f"beam{k}_eos_exact_match"] = eos_exact_match(
            hyp.tokens_KxL, hyp.lengths_K, hyp.finished_K, ref
        )
        out[f"beam{k}_eos_mean_length"] = float(np.asarray(hyp.lengths_K).mean())
    out["beam_examples"] = int(src.shape[0])
    out["eos_alpha"] = eos_alpha
    return out


@functools.partial(jax.jit, static_argnums=(2, 3, 4, 5))
def _decode_eos(params, src_BxN, length: int, beam_size: int, alpha: float, norm: str):
    """The best hypothesis of the eos-stopping beam search for each source sentence."""

    def one(src):
        hyp = beam.beam_decode_eos(params, src, BOS, EOS, length, beam_size, alpha=alpha, norm=norm)
        return jax.tree.map(lambda a: a[0], hyp)

    return jax.vmap(one)(src_BxN)


def attention_maps(
    params: encdec.Seq2SeqParams, cfg: Seq2SeqConfig, data: s2s.Seq2SeqData, *, map_examples: int
) -> tuple[np.ndarray, list]:
    """``(src_BxN, maps)``: the first ``map_examples`` held-out source sentences and every
    attention map of the model on them, teacher-forced (``core.activations.seq2seq_maps``'s
    ``(attention, layer, BxHxQxK)`` triples)."""
    n = min(map_examples, data.src_eval_BxN.shape[0])
    src, tgt = data.src_eval_BxN[:n], data.tgt_eval_BxT[:n]
    return src, activations.seq2seq_maps(params, src, s2s.decoder_inputs(tgt, BOS), norm=cfg.norm)


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
            for f in dataclasses.fields(TrainSettings)
            if f"train.{f.name}" in s
        }
        tc = TrainSettings(**train_fields)
        data = data_split(task, int(s["seed"]), float(s["data.holdout"]))
    except (KeyError, TypeError, ValueError) as err:
        raise rundir.RunDirectoryError(
            f"{run_dir}/{rundir.RUN_FILE}: cannot rebuild the run ({type(err).__name__}: {err})"
        ) from None
    try:
        params = s2s.restore_seq2seq(run_dir, initial_model(cfg, int(s["seed"])), tc)
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
    "attention_maps",
    "data_split",
    "evaluate",
    "initial_model",
    "is_translation_run",
    "load_run",
    "run_meta",
    "run_name",
    "split_translation",
]
