"""EuroBERT. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor
comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

SMALL = {"model_type": "eurobert", "vocab_size": 50, "pad_token_id": 0, "hidden_size": 16, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 20}


def test_grouped_query_attention_by_hand():
    d = 16 // 4
    attention = 16 * 4 * d + 2 * (16 * 2 * d) + 4 * d * 16  # Q [A·d, H], K and V [K·d, H], O [H, A·d]; no biases
    layer = attention + 3 * 16 * 20 + 2 * 16  # SwiGLU; two RMSNorms (weights only)
    assert (attention, layer) == (768, 1760)
    inv = build(SMALL)
    assert inv.architecture == "EuroBertModel"
    assert inv.total == 50 * 16 + 2 * layer + 16 == 4336  # token table, layers, final norm
    assert views.formula(inv).total == 4336
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["layers.0.self_attn.k_proj.weight"] == (8, 16)


def test_untied_head_by_default_and_biases():
    mlm = build(SMALL, "EuroBertForMaskedLM")
    assert mlm.total == 4336 + 50 * 16  # tie_word_embeddings defaults to False: its own [V, H]
    assert build(dict(SMALL, tie_word_embeddings=True), "EuroBertForMaskedLM").total == 4336
    biased = build(dict(SMALL, attention_bias=True, mlp_bias=True), "EuroBertForMaskedLM")
    per_layer = (16 + 8 + 8 + 16) + (20 + 20 + 16)  # q, k, v, o biases; gate, up, down biases
    assert biased.total == 4336 + 50 * 16 + 2 * per_layer + 50  # lm_head has a bias with mlp_bias
    seq = build(dict(SMALL, num_labels=3), "EuroBertForSequenceClassification")
    assert seq.total == 4336 + (16 * 16 + 16) + (3 * 16 + 3)


def test_published_210m_by_hand():
    """EuroBERT-210m: V 128,256, H 768, L 12, A 12 (no grouping), I 3072; the MLM head untied."""
    v, h, n, i = 128256, 768, 12, 3072
    layer = 4 * h * h + 3 * h * i + 2 * h
    assert layer == 9438720
    preset = PRESETS["EuroBERT/EuroBERT-210m"].config
    assert build(preset, "EuroBertModel").total == v * h + n * layer + h == 211766016
    assert build(preset, "EuroBertForMaskedLM").total == 211766016 + v * h == 310266624
