"""XLM-RoBERTa-XL / XXL. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic from the shapes ``modeling_xlm_roberta_xl.py``
gives each module; the tensor-by-tensor comparison with transformers is
tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS
from calculator import costs

from .helpers import expect_error


def _layer(h, i):
    """Q, K, V, O with biases; the feed-forward pair; two LayerNorms (before attention, before the FFN)."""
    return 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * (2 * h)


def _mlm_head(v, h):
    """lm_head: its own bias [V], dense [H, H] + bias, layer_norm; the decoder is the tied word table."""
    return v + h * h + h + 2 * h


def test_xlm_roberta_xl_by_hand():
    v, p, t, h, i, n = 250_880, 514, 1, 2560, 10240, 36
    embeddings = (v + p + t) * h  # no LayerNorm in the embeddings
    assert embeddings == 643_571_200
    assert _layer(h, i) == 78_676_480
    backbone = embeddings + n * _layer(h, i) + 2 * h  # the final encoder.LayerNorm
    pooler = h * h + h
    inv = build(dict(PRESETS["facebook/xlm-roberta-xl"].config), "XLMRobertaXLModel")
    assert inv.total == backbone + pooler == 3_482_485_760
    assert views.formula(inv).total == inv.total
    mlm = build(dict(PRESETS["facebook/xlm-roberta-xl"].config), "XLMRobertaXLForMaskedLM")
    assert mlm.total == backbone + _mlm_head(v, h) == 3_482_741_760  # "3.5B"


def test_xlm_roberta_xxl_by_hand():
    v, p, t, h, i, n = 250_880, 514, 1, 4096, 16384, 48
    total = (v + p + t) * h + n * _layer(h, i) + 2 * h + _mlm_head(v, h)
    assert total == 10_712_994_816  # "10.7B"
    assert build(dict(PRESETS["facebook/xlm-roberta-xxl"].config), "XLMRobertaXLForMaskedLM").total == total


def test_the_layer_norms_move_but_the_count_is_robertas():
    small = {"vocab_size": 50, "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12,
             "num_hidden_layers": 2, "max_position_embeddings": 20, "type_vocab_size": 1}
    xl = build(dict(small, model_type="xlm-roberta-xl"), "XLMRobertaXLModel")
    roberta = build(dict(small, model_type="roberta"), "RobertaModel")
    assert xl.total == roberta.total  # the embeddings' LayerNorm (2H) became the encoder's last one
    names = [x.name for x in xl.tensors]
    assert "embeddings.LayerNorm.weight" not in names
    assert "encoder.LayerNorm.weight" in names and "encoder.layer.1.attention.self_attn_layer_norm.bias" in names
    assert "encoder.layer.0.attention.output.LayerNorm.weight" not in names
    # the layer's own norm is registered after the feed-forward output, the final norm after every layer
    assert names.index("encoder.layer.0.LayerNorm.weight") == names.index("encoder.layer.0.output.dense.bias") + 1
    assert names.index("encoder.LayerNorm.weight") == names.index("encoder.layer.1.LayerNorm.bias") + 1


def test_config_defaults_are_the_xl_checkpoint():
    inv = build({"model_type": "xlm-roberta-xl"}, "XLMRobertaXLModel")
    assert inv.total == 3_482_485_760
    # the padding row (pad_token_id 1) must exist in the position table, as in RoBERTa
    expect_error("padding_idx", build, {"model_type": "xlm-roberta-xl", "max_position_embeddings": 1,
                                        "hidden_size": 8, "num_attention_heads": 2})


# ------------------------------------------------------------------ training step (calculator/costs/)
# B = 1, L = 4, fp32, H = 8, 2 heads of d = 4, I = 12, two layers, the base model without a pooler. A [1, 4, 8]
# tensor is 128 bytes, a [1, 4, 12] one 192, the [1, 2, 4, 4] attention maps 128, a LayerNorm's mean and 1/std
# 2 · 16 bytes, an int64 [1, 4] index 32. With B = 1 every head split reshapes as a view (nothing copied).
TINY = {"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 12,
        "max_position_embeddings": 20, "type_vocab_size": 2}


def test_step_by_hand():
    c = costs.compute(build(dict(TINY, model_type="xlm-roberta-xl"), "XLMRobertaXLModel", False), costs.settings(1, 4))
    assert c.forward == 8192 and c.backward == 2 * 8192  # Megatron-BERT's matmuls (tests/unit/test_megatron_bert.py)
    # Embeddings: input_ids, the positions computed from them, the token types gathered at them ([1, 4] each),
    # the dropout mask; no LayerNorm.
    embeddings = 3 * 32 + 128
    # Megatron-BERT's layer (2,112 bytes) without the feed-forward's dropout mask: XLMRobertaXLOutput has none.
    layer = 2112 - 128
    assert c.activations == embeddings + 2 * layer + (128 + 32) == 4352
