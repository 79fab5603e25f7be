"""Funnel Transformer facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here, tensor by tensor, from
modeling_funnel.py's module list and the published funnel-transformer configs; the
tensor-by-tensor comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error

SMALL = {"model_type": "funnel", "vocab_size": 50, "block_sizes": [2, 1], "num_decoder_layers": 1, "d_model": 8,
         "n_head": 2, "d_head": 3, "d_inner": 12}


def _layer(d: int, n: int, dh: int, i: int) -> int:
    """One FunnelLayer, tensor by tensor."""
    relative = 3 * n * dh + d * n * dh + 2 * n * dh  # r_w_bias, r_r_bias, r_s_bias; r_kernel; seg_embed
    q = d * n * dh  # no bias
    kv = 2 * (d * n * dh + n * dh)
    post = n * dh * d + d
    ffn = d * i + i + i * d + d
    return relative + q + kv + post + 2 * d + ffn + 2 * d


def test_small_model_by_hand():
    layer = _layer(8, 2, 3, 12)
    assert layer == 6 * 5 + 48 + 48 + 2 * 54 + 56 + 16 + 212 + 16 == 534
    embeddings = 50 * 8 + 2 * 8
    base = build(SMALL, "FunnelBaseModel")
    assert base.total == embeddings + 3 * layer == 416 + 1602
    full = build(SMALL, "FunnelModel")
    assert full.total == base.total + layer  # one decoder layer
    for inv in (base, full):
        assert views.formula(inv).total == inv.total


def test_repeats_and_pooling_add_nothing():
    base = build(SMALL, "FunnelBaseModel").total
    assert build(dict(SMALL, block_repeats=[3, 2]), "FunnelBaseModel").total == base
    assert build(dict(SMALL, pooling_type="max", attention_type="factorized"), "FunnelBaseModel").total == base
    expect_error("bad_value", build, dict(SMALL, block_repeats=[1]))  # one repeat for two blocks
    expect_error("bad_value", build, dict(SMALL, pooling_type="min"))


def test_num_hidden_layers_is_refused_as_funnelconfig_refuses_it():
    """FunnelConfig derives it from block_sizes and raises NotImplementedError when a config.json sets it."""
    exc = expect_error("derived_key", build, dict(SMALL, num_hidden_layers=3))
    assert "block_sizes" in exc.message("en") and "block_sizes" in exc.message("zh")
    expect_error("derived_key", build, dict(SMALL, num_blocks=2))


def test_block_sizes_as_the_form_writes_them():
    assert build(dict(SMALL, block_sizes="2|1")).total == build(SMALL).total
    assert build(dict(SMALL, block_sizes="2, 1")).total == build(SMALL).total
    expect_error("negative", build, dict(SMALL, block_sizes=[2, -1]))
    expect_error("not_integer", build, dict(SMALL, block_sizes=["two"]))


def test_hf_attribute_names():
    aliased = dict(SMALL, hidden_size=8, num_attention_heads=2)
    del aliased["d_model"], aliased["n_head"]
    assert build(aliased).total == build(SMALL).total


def test_layer_names_and_rows():
    inv = build(SMALL, "FunnelForMaskedLM")
    names = [t.name for t in inv.tensors]
    assert names[3] == "funnel.encoder.blocks.0.0.attention.r_w_bias"
    assert "funnel.encoder.blocks.1.0.ffn.layer_norm.bias" in names
    assert "funnel.decoder.layers.0.attention.q_head.weight" in names
    assert "funnel.decoder.layers.0.attention.q_head.bias" not in names
    assert names[-2:] == ["lm_head.weight", "lm_head.bias"]
    assert {t.name: t.tied_to for t in inv.tensors if t.tied_to} == {
        "lm_head.weight": "funnel.embeddings.word_embeddings.weight",
    }
    family_rows = [row.layer for row in views.per_layer(inv)]
    assert family_rows == [0, 1, 2, 3]
    from calculator.families import FAMILIES

    row = FAMILIES["funnel"].layer_row
    assert [row(n, inv.config, "en") for n in range(4)] == [
        "Block 0, layer 0", "Block 0, layer 1", "Block 1, layer 0", "Decoder layer 0"]
    assert row(3, inv.config, "zh") == "解码器第 0 层"


def test_classification_is_built_on_the_base_model():
    names = [t.name for t in build(SMALL, "FunnelForSequenceClassification").tensors]
    assert not any(".decoder." in n for n in names)
    assert names[-4:] == ["classifier.linear_hidden.weight", "classifier.linear_hidden.bias",
                          "classifier.linear_out.weight", "classifier.linear_out.bias"]
    assert any(".decoder." in n for n in (t.name for t in build(SMALL, "FunnelForTokenClassification").tensors))


def test_funnel_transformer_small_by_hand():
    v, d, n, dh, i = 30522, 768, 12, 64, 3072
    layer = _layer(d, n, dh, i)
    assert layer == 7_680_768
    embeddings = v * d + 2 * d
    assert build(PRESETS["funnel-transformer/small"].config).total == embeddings + 14 * layer == 130_973_184
    base = build(PRESETS["funnel-transformer/small"].config, "FunnelBaseModel")
    assert base.total == embeddings + 12 * layer == 115_611_648
    # medium: blocks 6|3|3 repeated 1|2|2 run 18 layers, but hold the same 12 as small
    assert build(PRESETS["funnel-transformer/medium"].config).total == 130_973_184


def test_funnel_transformer_large_by_hand():
    v, d, n, dh, i = 30522, 1024, 16, 64, 4096
    total = v * d + 2 * d + (24 + 2) * _layer(d, n, dh, i)
    assert build(PRESETS["funnel-transformer/large"].config).total == total == 386_127_872
