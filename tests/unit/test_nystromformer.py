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


def test_training_step_flops_by_hand():
    """Forward FLOPs by hand (2 per multiply-add, FlopCounterMode's products and convolutions), B = 1, L = 4,
    H = 4, one head (d = 4), I = 4, one layer, a 1-long value convolution. Softmax attention (as many landmarks
    as segment_means_seq_len): QKᵀ and PV, 2·L·d·L each. The Nyström path (m = 2 landmarks of S = 4): Q K̃ᵀ,
    Q̃ K̃ᵀ, Q̃ Kᵀ, the pseudo-inverse's 6 × 4 products of m × m matrices, then the three products of the context."""
    from calculator.costs import compute, settings

    from .helpers import expect_error

    b, n, h, i, d, m = 1, 4, 4, 4, 4, 2
    raw = {"model_type": "nystromformer", "vocab_size": 20, "hidden_size": h, "num_attention_heads": 1,
           "intermediate_size": i, "num_hidden_layers": 1, "conv_kernel_size": 1, "max_position_embeddings": 8}
    linears = 4 * 2 * b * n * h * h + 2 * 2 * b * n * h * i
    conv = 2 * b * n * d * 1
    full = compute(build(raw, "NystromformerModel"), settings(b, n))
    assert full.forward == linears + 2 * (2 * n * d * n) + conv == 1056
    nystrom = dict(raw, num_landmarks=m, segment_means_seq_len=4)
    attention = 2 * n * d * m + 2 * m * d * m + 2 * m * d * n + 24 * 2 * m ** 3 + 2 * n * m * m + 2 * m * n * d + 2 * n * m * d
    landmarks = compute(build(nystrom, "NystromformerModel"), settings(b, n))
    assert landmarks.forward == linears + attention + conv == 1504
    # Other lengths than m·⌊S/m⌋ reshape the landmarks across the batch; bf16 meets the float32 torch.eye.
    expect_error("costs_nystrom_length", compute, build(nystrom, "NystromformerModel"), settings(b, 3))
    expect_error("costs_forward_fails", compute, build(nystrom, "NystromformerModel"), settings(b, n, dtype="bf16"))
    expect_error("costs_forward_fails", compute, build(dict(raw, conv_kernel_size=2), "NystromformerModel"), settings(b, n))
    # No SDPA in NystromformerSelfAttention: refused. Mixed precision keeps bf16 copies, the products' sizes stay.
    expect_error("costs_no_sdpa", compute, build(raw, "NystromformerModel"), settings(b, n, attention="sdpa"))
    assert compute(build(nystrom, "NystromformerModel"), settings(b, n, autocast="bf16")).forward == 1504
