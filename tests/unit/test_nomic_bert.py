"""Nomic BERT (nomic-embed-text). Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor
comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS
from calculator import costs

from .helpers import expect_error

SMALL = {"model_type": "nomic_bert", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2,
         "num_attention_heads": 2, "intermediate_size": 20, "type_vocab_size": 2}


def test_small_model_by_hand():
    embeddings = (50 + 2) * 16 + 2 * 16  # token and type tables, LayerNorm; no position table
    layer = 4 * 16 * 16 + 3 * 16 * 20 + 2 * (2 * 16)  # Q, K, V, O without bias; gate, up, down; two LayerNorms
    assert (embeddings, layer) == (864, 2048)
    inv = build(SMALL)
    assert inv.architecture == "NomicBertModel" and not inv.pooler
    assert inv.total == embeddings + 2 * layer == 4960
    assert views.formula(inv).total == 4960


def test_swiglu_has_three_matrices_and_no_biases():
    shapes = {t.name: t.shape for t in build(SMALL).tensors}
    assert shapes["layers.0.mlp.gate_proj.weight"] == (20, 16)
    assert shapes["layers.0.mlp.up_proj.weight"] == (20, 16)
    assert shapes["layers.0.mlp.down_proj.weight"] == (16, 20)
    assert not any(name.endswith("proj.bias") for name in shapes)
    assert not any("position" in name for name in shapes)


def test_layer_order_as_registered():
    names = [t.name for t in build(SMALL).tensors if t.name.startswith("layers.0.")]
    assert names == [
        "layers.0.post_attention_layernorm.weight", "layers.0.post_attention_layernorm.bias",
        "layers.0.mlp.gate_proj.weight", "layers.0.mlp.up_proj.weight", "layers.0.mlp.down_proj.weight",
        "layers.0.self_attn.q_proj.weight", "layers.0.self_attn.k_proj.weight", "layers.0.self_attn.v_proj.weight",
        "layers.0.self_attn.o_proj.weight",
        "layers.0.post_mlp_layernorm.weight", "layers.0.post_mlp_layernorm.bias",
    ]


def test_heads_and_classes():
    mlm = build(SMALL, "NomicBertForMaskedLM")
    assert mlm.total == 4960 + 50 + (16 * 16 + 16) + 2 * 16 == 5314  # own bias, transform dense, layer_norm
    assert mlm.state_dict_total == 5314 + 50 * 16 + 50  # the tied decoder's weight and bias, listed again
    seq = build(dict(SMALL, num_labels=3), "NomicBertForSequenceClassification")
    assert seq.total == 4960 + (16 * 16 + 16) + (3 * 16 + 3) == 5283  # with the pooler
    names = [t.name for t in seq.tensors]
    assert names.index("nomic_bert.pooler.dense.weight") < names.index("nomic_bert.layers.0.post_attention_layernorm.weight")
    assert build(dict(SMALL, num_labels=3), "NomicBertForTokenClassification").total == 4960 + 51


def test_head_dim_sets_the_attention_width():
    inv = build(dict(SMALL, head_dim=4))  # A·d = 8, not H
    assert {t.name: t.shape for t in inv.tensors}["layers.0.self_attn.o_proj.weight"] == (16, 8)
    assert inv.total == 864 + 2 * (4 * 16 * 8 + 3 * 16 * 20 + 64) == 3936
    # H not a multiple of A: transformers takes H // A
    odd = build(dict(SMALL, hidden_size=10, num_attention_heads=3))
    assert {t.name: t.shape for t in odd.tensors}["layers.0.self_attn.q_proj.weight"] == (9, 10)


def test_refused_head_sizes():
    expect_error("bad_value", build, dict(SMALL, head_dim=5))  # RoPE pairs dimensions: odd above 4 refused
    expect_error("bad_value", build, dict(SMALL, hidden_size=30, num_attention_heads=2))  # 15
    assert build(dict(SMALL, head_dim=3)).total > 0  # small odd heads are allowed
    expect_error("bad_value", build, dict(SMALL, head_dim=0))  # head_dim ** -0.5 in every layer
    assert build(dict(SMALL, head_dim=0, num_hidden_layers=0)).total == 864


def test_nomic_embed_text_v1_5():
    v, h, i = 30528, 768, 3072
    total = (v + 2) * h + 2 * h + 12 * (4 * h * h + 3 * h * i + 4 * h)
    assert total == 136_731_648  # the "137M" of the model card
    inv = build(PRESETS["nomic-ai/nomic-embed-text-v1.5"].config)
    assert inv.architecture == "NomicBertModel"
    assert inv.total == total
    assert views.num_parameters(inv, exclude_embeddings=True) == total - (v + 2) * h


def test_rotary_positions_change_nothing():
    assert build(dict(SMALL, max_position_embeddings=8192)).total == build(SMALL).total


# ------------------------------------------------------------------ training step (calculator/costs/)
# B = 1, L = 4, fp32, H = 8, 2 heads of d = 4, I = 12, two layers, the base model without a pooler. A [1, 4, 8]
# tensor is 128 bytes, a [1, 4, 12] one 192, the [1, 2, 4, 4] attention maps 128, a LayerNorm's mean and 1/std
# 2 · 16 bytes, an int64 [1, 4] index 32. With B = 1 every head split reshapes as a view (nothing copied).
TINY = {"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 12,
        "max_position_embeddings": 20, "type_vocab_size": 2}


def test_step_by_hand():
    c = costs.compute(build(dict(TINY, model_type="nomic_bert"), "NomicBertModel"), costs.settings(1, 4))
    # Per layer: Q, K, V, o_proj 4 · 2·4·8·8; SwiGLU's gate, up, down 3 · 2·4·8·12; attention 4·1·4²·8.
    assert c.forward == 2 * (4 * 2 * 4 * 8 * 8 + 3 * 2 * 4 * 8 * 12 + 4 * 16 * 8) == 9728
    # Embeddings: input_ids, the [1, 4] zero token types, the LayerNorm's input and statistics; cos and sin
    # shared by both layers (64 bytes each). Every dropout is 0: no masks.
    embeddings = 32 + 32 + (128 + 32) + 2 * 64
    # Per layer: its input, Q and K rotated, softmax's output, V, the context copy, the first LayerNorm's input
    # and statistics, its output (gate and up keep it), SiLU's input, the product's two factors, the product
    # (down keeps it), the second LayerNorm's input and statistics.
    layer = 128 + 2 * 128 + 128 + 128 + 128 + (128 + 32) + 128 + 192 + 2 * 192 + 192 + (128 + 32)
    assert c.activations == embeddings + 2 * layer == 4320
