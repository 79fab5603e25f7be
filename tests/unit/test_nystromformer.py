"""Nyströmformer facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from uw-madison/nystromformer-512's sizes and
modeling_nystromformer.py's module list (BERT's layer, a depthwise ``Conv2d(A, A, (k, 1), groups=A,
bias=False)`` per layer, ``max_position_embeddings + 2`` position rows, no pooler); the comparison with
the real library is tests/crosscheck/.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS


def test_nystromformer_512_by_hand():
    v, p, t, h, i, n, a, k = 30000, 510, 2, 768, 3072, 12, 12, 65
    embeddings = (v + p + 2 + t) * h + 2 * h
    conv = a * k  # [A, 1, k, 1]: one k-long filter per head
    assert conv == 780
    layer = 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h + conv
    head = v + h * h + h + 2 * h  # the vocabulary bias, transform dense + LayerNorm; decoder tied to both
    inv = build(PRESETS["uw-madison/nystromformer-512"].config, "NystromformerForMaskedLM")
    assert inv.total == embeddings + n * layer + head == 109_122_240
    assert views.formula(inv).total == inv.total
    base = build(PRESETS["uw-madison/nystromformer-512"].config, "NystromformerModel")
    assert base.total == embeddings + n * layer
    shapes = {t.name: t.shape for t in base.tensors}
    assert shapes["encoder.layer.0.attention.self.conv.weight"] == (12, 1, 65, 1)
    assert shapes["embeddings.position_embeddings.weight"] == (512, 768)
    assert not any(name.startswith("pooler.") for name in shapes)


def test_question_answering_has_two_outputs_whatever_num_labels_says():
    inv = build({"model_type": "nystromformer", "num_labels": 7, "num_hidden_layers": 0},
                "NystromformerForQuestionAnswering")
    assert {t.name: t.shape for t in inv.tensors}["qa_outputs.weight"] == (2, 768)
