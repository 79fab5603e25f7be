"""YOSO facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from uw-madison/yoso-4096's sizes and modeling_yoso.py's
module list (BERT's layer, ``max_position_embeddings + 2`` position rows, no pooler, a depthwise
``Conv2d(A, A, (conv_window, 1), groups=A, bias=False)`` only when ``conv_window`` is set); the comparison
with the real library is tests/crosscheck/.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS


def test_yoso_4096_by_hand():
    v, p, t, h, i, n = 50265, 4096, 1, 768, 3072, 12
    embeddings = (v + p + 2 + t) * h + 2 * h
    layer = (4 * h * h + 4 * h) + 2 * h + (h * i + i) + (i * h + h) + 2 * h  # no convolution: conv_window null
    head = v + h * h + h + 2 * h  # the vocabulary bias, transform dense + LayerNorm; decoder tied to both
    inv = build(PRESETS["uw-madison/yoso-4096"].config, "YosoForMaskedLM")
    assert inv.total == embeddings + n * layer + head
    assert views.formula(inv).total == inv.total
    assert not any(".conv." in t.name for t in inv.tensors)


def test_conv_window_adds_heads_times_window_per_layer():
    small = {"model_type": "yoso", "vocab_size": 10, "hidden_size": 8, "num_attention_heads": 2,
             "num_hidden_layers": 3, "intermediate_size": 4, "max_position_embeddings": 6}
    plain = build(small, "YosoModel").total
    convolved = build(dict(small, conv_window=5), "YosoModel")
    assert convolved.total - plain == 3 * 2 * 5
    assert {t.name: t.shape for t in convolved.tensors}["encoder.layer.0.attention.self.conv.weight"] == (2, 1, 5, 1)


def test_training_step_flops_by_hand():
    """FLOPs by hand (2 per multiply-add), B = 1, L = 4, H = 4, one head (d = 4), I = 4, one layer, no
    convolution. YosoCumulation's forward: Q·Kᵀ and E·V, 2·L·d·L each; its own backward: four products of that
    size. Every weight trains and every Linear's input needs a gradient (the embeddings' LayerNorm trains), so
    each Linear costs twice its forward in the backward."""
    from calculator.costs import compute, settings

    from .helpers import expect_error

    b, n, h, i, d = 1, 4, 4, 4, 4
    raw = {"model_type": "yoso", "vocab_size": 20, "hidden_size": h, "num_attention_heads": 1, "intermediate_size": i,
           "num_hidden_layers": 1, "max_position_embeddings": 8}
    linears = 4 * 2 * b * n * h * h + 2 * 2 * b * n * h * i
    product = 2 * b * n * d * n
    step = compute(build(raw, "YosoModel"), settings(b, n))
    assert (step.forward, step.backward) == (linears + 2 * product, 2 * linears + 4 * product) == (1024, 2048)
    # The LSH path needs CUDA kernels; an even window gives L + 1 positions; bf16 values times the float32 mask
    # meet a bf16 convolution: transformers fails on each. No SDPA in YosoSelfAttention.
    expect_error("costs_forward_fails", compute, build(dict(raw, use_expectation=False), "YosoModel"), settings(b, n))
    expect_error("costs_forward_fails", compute, build(dict(raw, conv_window=4), "YosoModel"), settings(b, n))
    expect_error("costs_forward_fails", compute, build(dict(raw, conv_window=3), "YosoModel"), settings(b, n, dtype="bf16"))
    expect_error("costs_no_sdpa", compute, build(raw, "YosoModel"), settings(b, n, attention="sdpa"))
    # Under autocast (cross-checked in tests/crosscheck/test_costs_autocast.py) the products are the same products.
    mixed = compute(build(raw, "YosoModel"), settings(b, n, autocast="bf16"))
    assert (mixed.forward, mixed.backward) == (1024, 2048)
