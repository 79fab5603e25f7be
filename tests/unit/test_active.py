"""Parameters used per token with sparse feed-forward layers. Standard library only (runs in Pyodide).

Expected numbers are the issue's facts (BERT-base: 12 × 4,722,432 feed-forward
parameters out of 109,482,240) and arithmetic written out here.
"""
import dataclasses

from calculator.active import active_parameters
from calculator.build import build
from calculator.errors import CalcError
from calculator.presets import PRESETS

BASE = PRESETS["bert-base-uncased"].config
FFN_LAYER = 768 * 3072 + 3072 + 3072 * 768 + 768  # first weight, its bias, second weight, output bias
PER_NEURON = 768 + 1 + 768  # a row of the first weight, its bias, a column of the second


def close(a, b, tol=1e-6):
    return abs(a - b) <= tol * max(1.0, abs(b))


def test_bert_base_share():
    r = active_parameters(build(BASE), 1)
    assert FFN_LAYER == 4_722_432
    assert r.feed_forward == 12 * 4_722_432 == 56_669_184
    assert r.stored == 109_482_240
    assert close(r.feed_forward_share, 56_669_184 / 109_482_240)
    assert 0.517 < r.feed_forward_share < 0.518  # "about 51.8 %"
    assert r.active == r.stored  # everything fires


def test_ultrafastbert_fraction():
    inv = build(BASE)
    r = active_parameters(inv, (12, 4095))
    assert r.stored == 109_482_240  # nothing is removed
    assert close(r.fraction, 12 / 4095)
    expected_ff = 12 * (3072 * PER_NEURON * 12 / 4095 + 768)
    assert close(r.feed_forward_active, expected_ff)
    assert close(r.active, 109_482_240 - 56_669_184 + expected_ff)
    assert 0.48 < r.active_share < 0.49  # a token still touches about half of what is stored
    assert close(r.not_used, r.stored - r.active)
    for same in (12 / 4095, "12/4095", [12, 4095]):
        assert close(active_parameters(inv, same).active, r.active)


def test_zero_fraction_keeps_output_biases():
    r = active_parameters(build(BASE), 0)
    assert r.feed_forward_active == 12 * 768
    assert r.active == 109_482_240 - 56_669_184 + 12 * 768


def test_half():
    r = active_parameters(build(BASE), "0.5")
    assert r.feed_forward_active == 12 * (3072 * PER_NEURON / 2 + 768)


def test_other_families_from_their_tensors():
    keras = build({"model_type": "keras-bert"})
    assert active_parameters(keras, 1).feed_forward == 12 * FFN_LAYER
    assert active_parameters(keras, 0).feed_forward_active == 12 * 768
    # 2018 Transformer: Conv1d weights [2048, 512, 1]; encoder and decoder blocks each have one.
    t = build({"model_type": "transformer", "n_layers": 2})
    per = 2048 * 512 + 2048 + 512 * 2048 + 512
    assert active_parameters(t, 1).feed_forward == 4 * per
    assert active_parameters(t, 0).feed_forward_active == 4 * 512
    # ALBERT shares one layer: its feed-forward is stored once.
    albert = build({"model_type": "albert", "hidden_size": 768, "intermediate_size": 3072, "num_attention_heads": 12})
    assert active_parameters(albert, 1).feed_forward == FFN_LAYER
    # DistilBERT: six layers.
    distil = build({"model_type": "distilbert"})
    assert active_parameters(distil, 0.25).feed_forward_active == 6 * (3072 * PER_NEURON / 4 + 768)


def test_result_is_frozen():
    r = active_parameters(build(BASE), 0.1)
    try:
        r.active = 0
    except dataclasses.FrozenInstanceError:
        return
    raise AssertionError("ActiveParameters should be frozen")


def test_bad_fraction():
    inv = build(BASE)
    for value in (-0.01, 1.5, "half", True, None, float("nan"), float("inf"), (1, 0), (5, 4), (-1, -2), (1, 2, 3), "1/0"):
        try:
            active_parameters(inv, value)
        except CalcError as exc:
            assert exc.code == "bad_fraction", (value, exc.code)
            assert exc.params["key"] == "fraction"
            continue
        raise AssertionError(f"accepted {value!r}")
