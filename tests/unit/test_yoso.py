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
