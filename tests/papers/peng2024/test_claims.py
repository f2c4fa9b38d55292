"""The Peng et al. 2024 claims fail when the bound or the measurement is broken."""

import math

from transformer_theory.papers.peng2024 import claims, tasks, training

CLAIMS = {c.id.split(".", 1)[1]: c for c in claims.CLAIMS}


def test_a_bound_in_natural_logs_is_refuted(monkeypatch):
    def natural(n, heads, width, bits):
        nlogn = n * math.log(n)
        return max(0.0, (nlogn - heads * (width + 1) * bits) / (3 * nlogn))

    monkeypatch.setattr(tasks, "peng_error_bound", natural)
    evidence = CLAIMS["theorem1_bound"].check("quick")
    assert evidence.status == "refuted", evidence.figure


def test_a_one_layer_model_below_the_bound_is_flagged(monkeypatch):
    def below(n, layers, heads, width, bits, **kwargs):
        p = 32 if bits is None else bits
        bound = tasks.peng_error_bound(n, heads, width, p)
        return {
            "n": n,
            "layers": layers,
            "d": width,
            "p": p,
            "steps": kwargs.get("steps"),
            "error": 0.0,
            "bound": bound,
            "chance_error": 1 - 1 / n,
        }

    monkeypatch.setattr(training, "composition_trained_record", below)
    evidence = CLAIMS["theorem1_trained"].check("quick")
    assert evidence.status == "open", evidence.figure
