"""ConvBERT facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from the published YituTech configs and
modeling_convbert.py's module list; the tensor-by-tensor comparison with transformers 5.23
is tests/crosscheck/test_transformers.py.
"""
from calculator import peft, views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error

SMALL = {"model_type": "convbert", "vocab_size": 50, "embedding_size": 6, "hidden_size": 8, "num_hidden_layers": 1,
         "num_attention_heads": 4, "intermediate_size": 12, "conv_kernel_size": 3, "max_position_embeddings": 20,
         "type_vocab_size": 2}


def _layer(h, a, ratio, k, i, g):
    kept = max(a // ratio, 1)
    w = kept * ((h // kept) // 2)
    qkv = 3 * (h * w + w)
    separable = w + h * k + w * h  # its bias [W, 1], depthwise [H, 1, k], pointwise [W, H, 1]
    kernel = w * kept * k + kept * k
    conv_out = h * w + w
    output = h * h + h + 2 * h
    if g == 1:
        ffn = h * i + i + i * h + h
    else:
        ffn = g * (h // g) * (i // g) + i + g * (i // g) * (h // g) + h
    return qkv + separable + kernel + conv_out + output + ffn + 2 * h


def test_small_model_by_hand():
    # 4 heads, ratio 2: 2 self-attention heads of size (8 // 2) // 2 = 2, so Q, K, V are 4 wide
    embeddings = (50 + 20 + 2) * 6 + 2 * 6 + 6 * 8 + 8  # E != H: embeddings_project
    layer = _layer(8, 4, 2, 3, 12, 1)
    assert layer == 108 + 60 + 30 + 36 + 88 + 212 + 16 == 550
    inv = build(SMALL)
    assert inv.total == embeddings + layer == 500 + 550
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["encoder.layer.0.attention.self.query.weight"] == (4, 8)
    assert shapes["encoder.layer.0.attention.self.key_conv_attn_layer.bias"] == (4, 1)
    assert shapes["encoder.layer.0.attention.self.key_conv_attn_layer.depthwise.weight"] == (8, 1, 3)
    assert shapes["encoder.layer.0.attention.self.conv_kernel_layer.weight"] == (6, 4)
    assert views.formula(inv).total == inv.total


def test_no_projection_when_e_equals_h():
    names = {t.name for t in build(dict(SMALL, embedding_size=8)).tensors}
    assert "embeddings_project.weight" not in names and not any("pooler" in n for n in names)


def test_grouped_feed_forward():
    inv = build(dict(SMALL, num_groups=2))
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["encoder.layer.0.intermediate.dense.weight"] == (2, 4, 6)
    assert shapes["encoder.layer.0.output.dense.weight"] == (2, 6, 4)
    assert inv.total == 500 + _layer(8, 4, 2, 3, 12, 2) == 500 + 550 - 96
    assert views.formula(inv).total == inv.total
    # a grouped layer is a bare Parameter pair, not an nn.Linear: LoRA refuses it
    expect_error("lora_target_unsupported", peft.lora, inv, 4, ["intermediate.dense"])


def test_heads_after_the_ratio_must_divide_h():
    expect_error("heads_not_divisor", build, dict(SMALL, hidden_size=9, num_attention_heads=4))  # 2 kept heads
    # one head fewer than the ratio still keeps one head: any H
    assert build(dict(SMALL, hidden_size=9, num_attention_heads=1)).total > 0


def test_conv_bert_base_by_hand():
    v, p, t, h, i, n = 30522, 512, 2, 768, 3072, 12
    layer = _layer(h, 12, 2, 9, i, 1)
    assert layer == 6_820_278
    total = (v + p + t) * h + 2 * h + n * layer
    assert total == 105_680_520  # the paper's "106M"
    assert build(PRESETS["YituTech/conv-bert-base"].config).total == total


def test_conv_bert_small_by_hand():
    v, p, t, e, h, i, n = 30522, 512, 2, 128, 256, 1024, 12
    total = (v + p + t) * e + 2 * e + e * h + h + n * _layer(h, 4, 2, 9, i, 1)
    assert build(PRESETS["YituTech/conv-bert-small"].config).total == total == 13_143_768


def test_masked_lm_ties_the_generator_head():
    inv = build(SMALL, "ConvBertForMaskedLM")
    assert {t.name: t.tied_to for t in inv.tensors if t.tied_to} == {
        "generator_lm_head.weight": "convbert.embeddings.word_embeddings.weight",
    }
    # head: LayerNorm(E) 12, dense H -> E 54, lm head bias 50
    assert inv.total == 1050 + 12 + 54 + 50
    assert build(dict(SMALL, tie_word_embeddings=False), "ConvBertForMaskedLM").total == inv.total + 50 * 6


def test_multiple_choice_summary_projection_only_when_the_config_asks():
    plain = build(SMALL, "ConvBertForMultipleChoice")
    assert plain.total == 1050 + 8 + 1  # classifier H -> 1
    projected = build(dict(SMALL, summary_use_proj=True), "ConvBertForMultipleChoice")
    assert projected.total == plain.total + 8 * 8 + 8  # sequence_summary.summary H -> H
    to_labels = build(dict(SMALL, summary_use_proj=True, summary_proj_to_labels=True, num_labels=3),
                      "ConvBertForMultipleChoice")
    assert to_labels.total == plain.total + 8 * 3 + 3
    assert build(dict(SMALL, summary_use_proj=True), "ConvBertModel").total == 1050  # only multiple choice has one
    expect_error("bad_value", build, dict(SMALL, summary_type="attn"), "ConvBertForMultipleChoice")
