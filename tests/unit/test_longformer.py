"""Longformer. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor
comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error

SMALL = {"model_type": "longformer", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2,
         "num_attention_heads": 2, "intermediate_size": 20, "max_position_embeddings": 40, "type_vocab_size": 1}


def test_small_model_by_hand():
    # embeddings: (V + P + T)·H + LayerNorm 2H = (50 + 40 + 1)·16 + 32
    embeddings = 91 * 16 + 32
    # a layer: 7 H×H linears with bias (Q, K, V, their global copies, the output), FFN, two LayerNorms
    layer = 7 * (16 * 16 + 16) + (20 * 16 + 20) + (16 * 20 + 16) + 4 * 16
    assert (embeddings, layer) == (1488, 2644)
    pooler = 16 * 16 + 16
    inv = build(SMALL)
    assert inv.architecture == "LongformerModel"
    assert inv.total == embeddings + 2 * layer + pooler == 7048
    assert build(SMALL, "LongformerModel", pooler=False).total == 7048 - 272


def test_global_projections_are_three_more_linears_per_layer():
    inv = build(SMALL, "LongformerModel", pooler=False)
    names = [t.name for t in inv.tensors if t.name.startswith("encoder.layer.0.attention.self.")]
    assert names == [f"encoder.layer.0.attention.self.{p}.{w}"
                     for p in ("query", "key", "value", "query_global", "key_global", "value_global")
                     for w in ("weight", "bias")]
    f = {line.key: line for line in views.formula(inv).lines}
    assert f["per_layer_formula"].value == 2644 == 4 * 16 * 16 + 4 * 16 + 3 * 16 * 16 + 3 * 16 + 676 + 64
    assert "3H² + 3H" in f["per_layer_formula"].symbolic
    assert views.per_layer(inv)[0].count == 2644


def test_position_table_comes_after_the_layer_norm():
    names = [t.name for t in build(SMALL).tensors][:5]
    assert names == ["embeddings.word_embeddings.weight", "embeddings.token_type_embeddings.weight",
                     "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias",
                     "embeddings.position_embeddings.weight"]


def test_base_4096_preset():
    h, i, n = 768, 3072, 12
    embeddings = (50265 + 4098 + 1) * h + 2 * h
    layer = 7 * (h * h + h) + 2 * h * i + i + h + 4 * h
    assert (embeddings, layer) == (41_753_088, 8_859_648)
    inv = build(PRESETS["allenai/longformer-base-4096"].config)
    assert inv.architecture == "LongformerModel"
    assert inv.total == embeddings + n * layer + h * h + h == 148_659_456
    # the MLM head: own bias V, dense H² + H, LayerNorm 2H; its decoder is tied to the token table
    mlm = build(PRESETS["allenai/longformer-base-4096"].config, "LongformerForMaskedLM")
    assert mlm.total == 148_659_456 - (h * h + h) + 50265 + h * h + h + 2 * h == 148_711_257
    assert mlm.state_dict_total == mlm.total + 50265 * h + 50265


def test_multiple_choice_keeps_the_pooler_and_the_others_do_not():
    assert any(t.name.startswith("longformer.pooler.") for t in build(SMALL, "LongformerForMultipleChoice").tensors)
    for arch in ("LongformerForSequenceClassification", "LongformerForTokenClassification",
                 "LongformerForQuestionAnswering", "LongformerForMaskedLM"):
        assert not any("pooler" in t.name for t in build(SMALL, arch).tensors), arch


def test_attention_window_changes_nothing_but_must_be_valid():
    total = build(SMALL).total
    assert build(dict(SMALL, attention_window=[4, 8])).total == total
    assert build(dict(SMALL, attention_window=2)).total == total
    expect_error("bad_value", build, dict(SMALL, attention_window=3))  # odd
    expect_error("bad_value", build, dict(SMALL, attention_window=0))
    expect_error("bad_value", build, dict(SMALL, attention_window=[4]))  # one per layer
    expect_error("bad_value", build, dict(SMALL, attention_window=[4, 5]))
    expect_error("bad_value", build, dict(SMALL, attention_window="512"))
    expect_error("bad_value", build, dict(SMALL, attention_window=None))


def test_padding_row_must_exist_in_both_tables():
    expect_error("padding_idx", build, dict(SMALL, max_position_embeddings=1))  # pad_token_id 1 by default
    expect_error("padding_idx", build, dict(SMALL, vocab_size=1))
    expect_error("heads_not_divisor", build, dict(SMALL, num_attention_heads=3))


def test_the_preset_in_the_form_takes_another_layer_count():
    """The published window list has one value per layer: the preset leaves it out, so the form can change L."""
    from calculator import api

    answer = api.compute({"preset": "allenai/longformer-base-4096", "num_hidden_layers": "6"})
    assert answer["ok"], answer
    assert answer["total"] == 148_659_456 - 6 * 8_859_648
