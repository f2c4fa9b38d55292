"""The Sanford et al. 2023 claims fail when the model or the measurement is broken: a check derives
its status from what it runs (tests/test_claims.py covers the statuses on the built models)."""

import dataclasses

import jax
import numpy as np

from transformer_theory.papers.sanford2023 import claims, match2, qsa, registry, separations

CLAIMS = {c.id.split(".", 1)[1]: c for c in claims.CLAIMS}


def test_match2_with_a_weakened_query_is_not_certified(monkeypatch):
    built = match2.match2_construction

    def weak(seq_len, modulus, dtype=None):
        params = built(seq_len, modulus) if dtype is None else built(seq_len, modulus, dtype)
        attn = params.layers[0].attn
        attn = dataclasses.replace(attn, w_q=attn.w_q * 1e-3)  # scores c -> c / 1000
        return dataclasses.replace(
            params, layers=(dataclasses.replace(params.layers[0], attn=attn),)
        )

    monkeypatch.setattr(match2, "match2_construction", weak)
    evidence = CLAIMS["match2_exact"].check("quick")
    assert evidence.status == "refuted", evidence.figure


def test_qsa_with_a_flat_query_misses_eps(monkeypatch):
    built = qsa.qsa_construction

    def flat(*args, **kwargs):
        c = built(*args, **kwargs)
        attn = c.params.layers[0].attn
        attn = dataclasses.replace(attn, w_q=attn.w_q * 0.05)
        layer = dataclasses.replace(c.params.layers[0], attn=attn)
        return dataclasses.replace(c, params=dataclasses.replace(c.params, layers=(layer,)))

    monkeypatch.setattr(qsa, "qsa_construction", flat)
    evidence = CLAIMS["qsa_upper"].check("quick")
    assert evidence.status == "refuted", evidence.figure


def test_match3local_with_a_broken_mlp_is_refuted(monkeypatch):
    unit = registry.UNITS["match3local1"]

    def broken(n, m, k, dt):
        params = unit.build(n, m, k, dt)
        mlp = params.layers[-1].mlp
        mlp = dataclasses.replace(mlp, b1=mlp.b1 + 0.7)
        layer = dataclasses.replace(params.layers[-1], mlp=mlp)
        return dataclasses.replace(params, layers=params.layers[:-1] + (layer,))

    monkeypatch.setitem(registry.UNITS, "match3local1", dataclasses.replace(unit, build=broken))
    evidence = CLAIMS["match3local_single"].check("quick")
    assert evidence.status == "refuted", evidence.figure


def test_a_below_threshold_cell_within_eps_is_flagged_not_measured(monkeypatch):
    real = separations.qsa_trained_record

    def perfect(*args, **kwargs):
        return real(*args, **kwargs) | {"within_epsilon": 1.0, "mean_max_error": 0.0}

    claims._trained.cache_clear()
    monkeypatch.setattr(separations, "qsa_trained_record", perfect)
    evidence = CLAIMS["qsa_lower_attention"].check("quick")
    claims._trained.cache_clear()
    assert evidence.status == "open", evidence.figure
    assert "investigate" in evidence.figure


def test_the_ball_forward_pass_is_the_librarys():
    jax.config.update("jax_enable_x64", True)
    params = match2.match2_construction(3, 9)
    x = np.array([[1, 8, 4], [0, 2, 3]])
    streams = match2.match2_embed(x, 9)
    from transformer_theory.papers.sanford2023.layers import run_streams

    out, _ = run_streams(params, streams)
    for b in range(len(x)):
        h, _ = claims._arb_streams(params, streams[b])
        for i in range(4):
            for j in range(6):
                assert h[i, j].contains(float(out[b, i, j])) or claims._agrees(
                    h[i, j], float(out[b, i, j])
                )
