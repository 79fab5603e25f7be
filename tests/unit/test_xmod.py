"""X-MOD. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic from the shapes ``modeling_xmod.py`` gives
each module; the tensor-by-tensor comparison with transformers is
tests/crosscheck/test_transformers.py.
"""
from calculator import api
from calculator.build import build
from calculator.presets import PRESETS
from calculator import costs

from .helpers import expect_error

SMALL = {"model_type": "xmod", "vocab_size": 50, "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12,
         "num_hidden_layers": 2, "max_position_embeddings": 20, "type_vocab_size": 1}


def _layer(h, i):
    """BERT's post-LN layer: Q, K, V, O with biases; the feed-forward pair; two LayerNorms."""
    return 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * (2 * h)


def _adapter(h, b):
    """dense1 [B, H] + [B], dense2 [H, B] + [H]."""
    return b * h + b + h * b + h


def test_xmod_base_by_hand():
    v, p, t, h, i, n, langs = 250_002, 514, 1, 768, 3072, 12, 81
    embeddings = (v + p + t) * h + 2 * h
    assert embeddings == 192_398_592
    assert _adapter(h, h // 2) == 590_976
    adapters = n * langs * _adapter(h, h // 2)
    assert adapters == 574_428_672  # two thirds of the model: one adapter per language per layer
    pooler = h * h + h
    total = embeddings + n * _layer(h, i) + adapters + pooler
    assert total == 852_472_320
    inv = build(dict(PRESETS["facebook/xmod-base"].config), "XmodModel")
    assert inv.total == total
    # what one input goes through: the model without the 80 other languages' adapters
    assert total - n * 80 * _adapter(h, h // 2) == 285_135_360


def test_adapters_are_named_by_language_in_each_layer():
    inv = build(dict(SMALL, languages=["de_CH", "fr_CH"]), "XmodModel")
    shapes = {x.name: x.shape for x in inv.tensors}
    assert shapes["encoder.layer.1.output.adapter_modules.fr_CH.dense1.weight"] == (4, 8)
    assert shapes["encoder.layer.1.output.adapter_modules.fr_CH.dense2.weight"] == (8, 4)
    names = [x.name for x in inv.tensors]
    # after the layer's LayerNorm, in the order of the list
    i = names.index("encoder.layer.0.output.LayerNorm.bias")
    assert names[i + 1] == "encoder.layer.0.output.adapter_modules.de_CH.dense1.weight"
    assert names[i + 5] == "encoder.layer.0.output.adapter_modules.fr_CH.dense1.weight"
    base = build(dict(SMALL, languages=[]), "XmodModel").total
    assert inv.total - base == 2 * 2 * _adapter(8, 4)


def test_default_is_english_alone_and_a_repeat_adds_nothing():
    one = build(dict(SMALL), "XmodModel")
    assert [x.name for x in one.tensors if "adapter_modules" in x.name][0] == (
        "encoder.layer.0.output.adapter_modules.en_XX.dense1.weight"
    )
    twice = build(dict(SMALL, languages=["en_XX", "en_XX"]), "XmodModel")
    assert twice.total == one.total


def test_reduction_factor_layer_norm_and_pre_norm():
    base = build(dict(SMALL), "XmodModel").total
    r4 = build(dict(SMALL, adapter_reduction_factor=4), "XmodModel").total
    assert base - r4 == 2 * (_adapter(8, 4) - _adapter(8, 2))
    # a factor above H leaves a zero-width bottleneck: only dense2's bias remains
    assert build(dict(SMALL, adapter_reduction_factor=9, languages=["x"]), "XmodModel").total == (
        build(dict(SMALL, languages=[]), "XmodModel").total + 2 * 8
    )
    assert build(dict(SMALL, adapter_layer_norm=True), "XmodModel").total - base == 2 * 2 * 8
    pre = build(dict(SMALL, pre_norm=True), "XmodModel")
    assert pre.total - base == 2 * 8
    assert pre.tensors[-3].name == "encoder.LayerNorm.bias"  # then the pooler's weight and bias


def test_names_transformers_refuses():
    expect_error("bad_value", build, dict(SMALL, languages=["de.DE"]))
    expect_error("bad_value", build, dict(SMALL, languages=[""]))
    expect_error("bad_value", build, dict(SMALL, languages="en_XX"))  # XmodConfig wants a list
    expect_error("bad_value", build, dict(SMALL, languages=None))
    expect_error("zero", build, dict(SMALL, adapter_reduction_factor=0))
    # without layers there is no ModuleDict to refuse a name
    assert build(dict(SMALL, num_hidden_layers=0, languages=["de.DE"]), "XmodModel").total > 0


def test_a_share_link_carries_the_languages():
    answer = api.compute({"model_type": "xmod", "languages": "de_CH, fr_CH", "num_hidden_layers": "1"})
    assert answer["ok"] and answer["query"]["languages"] == '["de_CH","fr_CH"]'
    again = api.compute(answer["query"])
    assert again["total"] == answer["total"]
    default = api.compute({"model_type": "xmod"})
    assert "languages" not in default["query"]


# ------------------------------------------------------------------ training step (calculator/costs/)
# B = 1, L = 4, fp32, H = 8, 2 heads of d = 4, I = 12, two layers, the base model without a pooler. A [1, 4, 8]
# tensor is 128 bytes, a [1, 4, 12] one 192, the [1, 2, 4, 4] attention maps 128, a LayerNorm's mean and 1/std
# 2 · 16 bytes, an int64 [1, 4] index 32. With B = 1 every head split reshapes as a view (nothing copied).
TINY = {"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 12,
        "max_position_embeddings": 20, "type_vocab_size": 2}


def test_step_needs_a_language():
    # XmodModel without lang_ids routes through config.default_language; transformers raises without one.
    err = expect_error("costs_xmod_language", costs.compute, build(dict(TINY, model_type="xmod")), costs.settings(1, 4))
    assert err.params["value"] == "null" and err.params["count"] == 1
    expect_error("costs_xmod_language", costs.compute, build(dict(TINY, model_type="xmod", default_language="de_DE")),
                 costs.settings(1, 4))
    no_layers = build(dict(TINY, model_type="xmod", num_hidden_layers=0, default_language="en_XX"))
    expect_error("costs_xmod_no_layers", costs.compute, no_layers, costs.settings(1, 4))
    assert expect_error("costs_xmod_language", costs.compute, build(dict(PRESETS["facebook/xmod-base"].config)),
                        costs.settings(1, 4)).params["count"] == 81


def test_step_is_the_same_for_every_language():
    three = dict(TINY, model_type="xmod", languages=["en_XX", "de_DE", "zh_CN"])
    figures = {costs.compute(build(dict(three, default_language=lang), "XmodForMaskedLM"), costs.settings(2, 4)).to_dict()
               ["memory"]["activations"] for lang in three["languages"]}
    assert len(figures) == 1
    # Every adapter is in the graph (the others see no rows): all weights get a gradient, if only zeros.
    c = costs.compute(build(dict(three, default_language="zh_CN")), costs.settings(1, 4))
    assert c.gradients == c.weights
    # A [1] bool mask per adapter per layer is kept (by the row selection and the write-back).
    one = costs.compute(build(dict(TINY, model_type="xmod", default_language="en_XX")), costs.settings(1, 4))
    assert c.activations - one.activations == 2 * 2 * 1


def test_step_language_and_adapter_switches_travel_in_links():
    answer = api.compute({"model_type": "xmod", "default_language": "en_XX", "ln_before_adapter": "false"})
    assert answer["query"]["default_language"] == "en_XX" and answer["query"]["ln_before_adapter"] == "false"
    assert "adapter_reuse_layer_norm" not in answer["query"]  # the default stays out of the link
