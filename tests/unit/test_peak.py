"""The peak of live memory (calculator/costs/peak.py) worked out by hand for bert-base, B = 1, L = 128.

The figure is derived here from the architecture alone (H = 768, I = 3072, 12 layers, V = 30522,
P = 512, T = 2) and PyTorch's CPU AdamW (for-loop: state made for every parameter first, then one
parameter at a time, ``denom = (exp_avg_sq.sqrt() / c).add_(eps)``). The cross-check measures it once
in PyTorch (tests/crosscheck/test_peak_engine.py::test_bert_base_b1_l128_figure: 1,939,253,020 bytes,
optimizer, ``aten.div``) and every family the peak covers on random configs.
"""
from __future__ import annotations

from calculator import costs
from calculator.build import build
from calculator.costs.peak import Item, optimizer_peak
from calculator.presets import get_preset

F32, INT64 = 4, 8
V, H, I, P, T, LAYERS = 30522, 768, 3072, 512, 2, 12


def bert_base():
    return build(get_preset("bert-base-uncased").config)


def test_bert_base_b1_l128_peak_by_hand() -> None:
    embeddings = V * H + P * H + T * H + 2 * H  # word, position, token type, LayerNorm
    layer = 4 * (H * H + H) + 2 * (2 * H) + (H * I + I) + (I * H + H)  # q, k, v, o; two LayerNorms; feed-forward
    pooler = H * H + H
    params = embeddings + LAYERS * layer + pooler
    assert params == 109_482_240
    tensors = 5 + 16 * LAYERS + 2  # every weight and bias: 199, each with a 4-byte float32 ``step``
    weights = params * F32
    start = weights + 2 * (1 * P * INT64) + 1 * 128 * INT64  # position_ids, token_type_ids [1, 512]; input_ids [1, 128]
    gradients = weights  # every parameter gets one .grad, its own size
    state = 2 * weights + tensors * F32  # exp_avg, exp_avg_sq, step
    # The update's temporaries: the word embeddings come first in model.parameters(), no denom before them;
    # their sqrt and division live together: 2 · V · H · 4. Every later parameter is far smaller.
    temporaries = 2 * V * H * F32
    expected = start + gradients + state + temporaries
    assert expected == 1_939_253_020
    peak = costs.compute(bert_base(), costs.settings(1, 128)).peak
    assert (peak.bytes, peak.phase, peak.op, peak.module) == (expected, "optimizer", "aten.div",
                                                               "embeddings.word_embeddings.weight")
    assert peak.by_kind == {"weights": weights, "buffer": 2 * P * INT64, "input_ids": 128 * INT64,
                            "gradient": gradients, "step": tensors * F32, "exp_avg": weights, "exp_avg_sq": weights,
                            "temporary": temporaries}
    assert peak.items[0].bytes == V * H * F32 and len(peak.items) == 6
    # The bound on the forward and the backward lies below: that is what makes the figure the peak.
    assert 0 < peak.bound < expected


def test_large_batch_gives_no_figure() -> None:
    """B = 32: the activations (about 3.6 GB) may put the peak in the backward, not modelled yet: no figure."""
    c = costs.compute(bert_base(), costs.settings(32, 128))
    assert c.peak.bytes is None and c.peak.note == "peak_not_modelled" and c.peak.bound > 1_939_253_020
    d = c.to_dict()
    assert d["memory"]["peak"] is None and d["peak_at"] is None and d["peak_note"]["code"] == "peak_not_modelled"


def test_adamw_temporaries_follow_the_previous_denom() -> None:
    """Three parameters of 10, 100 and 60 float32 numbers: at parameter i, denom of i − 1 and two copies of i.
    i = 0: 0 + 2·40 = 80; i = 1: 40 + 2·400 = 840; i = 2: 400 + 2·240 = 880, the largest."""
    graded = [("a", 10, F32), ("b", 100, F32), ("c", 60, F32)]
    start = [Item("weights", name, n * size) for name, n, size in graded]
    peak = optimizer_peak("adamw", start, graded)
    weights = 170 * F32
    assert peak.bytes == weights + weights + (2 * weights + 3 * F32) + 880
    assert (peak.module, peak.op) == ("c", "aten.div")


def test_sgd_momentum_and_sgd() -> None:
    """SGD with momentum: every momentum buffer a clone of its gradient, the last clone the peak; plain SGD
    allocates nothing in its step, so its peak is before it (no figure)."""
    graded = [("a", 10, F32), ("b", 20, F32)]
    start = [Item("weights", name, n * size) for name, n, size in graded]
    assert optimizer_peak("sgd-momentum", start, graded).bytes == 3 * 30 * F32
    assert optimizer_peak("sgd", start, graded).bytes is None
    assert optimizer_peak("adafactor", start, graded).bytes is None
