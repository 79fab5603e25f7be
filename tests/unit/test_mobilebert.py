"""MobileBERT. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor
comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error

SMALL = {"model_type": "mobilebert", "vocab_size": 50, "embedding_size": 8, "hidden_size": 32, "num_hidden_layers": 2,
         "num_attention_heads": 2, "intermediate_size": 24, "intra_bottleneck_size": 16,
         "num_feedforward_networks": 3, "max_position_embeddings": 40, "type_vocab_size": 2}


def _small_layer() -> int:
    """One layer of SMALL at W = B = 16, by hand."""
    attention = (16 * 16 + 16) * 2 + (16 * 32 + 16) + (16 * 16 + 16) + 2 * 16  # Q, K read W; V reads H; out; norm
    ffn = (24 * 16 + 24) + (16 * 24 + 16) + 2 * 16  # W → I → W and its norm, three times (F = 3)
    out_bottleneck = (32 * 16 + 32) + 2 * 32  # W → H and its norm
    in_bottlenecks = 2 * ((16 * 32 + 16) + 2 * 16)  # H → B for the layer input and for the shared Q/K input
    assert (attention, ffn, out_bottleneck, in_bottlenecks) == (1376, 840, 608, 1120)
    return attention + 3 * ffn + out_bottleneck + in_bottlenecks


def test_small_model_by_hand():
    # token table V·E; position and type tables at H; the trigram projection 3E → H; the embedding norm
    embeddings = 50 * 8 + (40 + 2) * 32 + (3 * 8 * 32 + 32) + 2 * 32
    assert embeddings == 2608
    assert _small_layer() == 5624
    inv = build(SMALL)
    assert inv.total == embeddings + 2 * 5624 + (32 * 32 + 32) == 14912
    assert views.formula(inv).total == 14912


def test_trigram_input_triples_the_projection_input():
    shapes = {t.name: t.shape for t in build(SMALL).tensors}
    assert shapes["embeddings.embedding_transformation.weight"] == (32, 24)
    assert build(SMALL).total - build(dict(SMALL, trigram_input=False)).total == 2 * 8 * 32
    assert shapes["embeddings.word_embeddings.weight"] == (50, 8)


def test_no_norm_is_bias_then_weight():
    names = [t.name for t in build(SMALL).tensors if "embeddings.LayerNorm" in t.name]
    assert names == ["embeddings.LayerNorm.bias", "embeddings.LayerNorm.weight"]
    layer_norm = dict(SMALL, normalization_type="layer_norm")
    names = [t.name for t in build(layer_norm).tensors if "embeddings.LayerNorm" in t.name]
    assert names == ["embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias"]
    assert build(layer_norm).total == build(SMALL).total  # the same two vectors either way
    expect_error("bad_value", build, dict(SMALL, normalization_type="rms_norm"))


def test_bottleneck_switches():
    no_shared = build(dict(SMALL, key_query_shared_bottleneck=False))
    assert build(SMALL).total - no_shared.total == 2 * ((16 * 32 + 16) + 2 * 16)
    # without bottlenecks every layer works at H, and no bottleneck projections are built
    plain = build(dict(SMALL, use_bottleneck=False))
    assert not any("bottleneck" in t.name for t in plain.tensors)
    assert {t.name: t.shape for t in plain.tensors}["encoder.layer.0.attention.output.dense.weight"] == (32, 32)
    # a true_hidden_size written in config.json wins over the derived width
    written = build(dict(SMALL, true_hidden_size=8))
    assert {t.name: t.shape for t in written.tensors}["encoder.layer.0.attention.self.query.weight"] == (8, 8)


def test_feed_forward_networks_stack():
    one = build(dict(SMALL, num_feedforward_networks=1))
    assert build(SMALL).total - one.total == 2 * 2 * 840  # two extra blocks per layer, two layers
    assert build(dict(SMALL, num_feedforward_networks=0)).total == one.total  # the main block is always there


def test_heads_and_the_mlm_projection():
    mlm = build(SMALL, "MobileBertForMaskedLM")
    # own bias V; transform dense H² + H and LayerNorm 2H; dense [H − E, V] without bias; decoder tied [V, E]
    assert mlm.total == 14912 - 1056 + 50 + (32 * 32 + 32) + 2 * 32 + (32 - 8) * 50 == 16226
    assert {t.name: t.shape for t in mlm.tensors}["cls.predictions.dense.weight"] == (24, 50)
    assert mlm.state_dict_total == 16226 + 50 * 8 + 50
    expect_error("bad_value", build, dict(SMALL, embedding_size=40), "MobileBertForMaskedLM")  # H − E < 0
    assert build(dict(SMALL, embedding_size=40)).total > 0  # the base model needs no H − E
    # classifier_activation False: the pooler has no dense layer (the published model)
    assert build(dict(SMALL, classifier_activation=False)).total == 14912 - 1056


def test_zero_head_size_is_refused():
    expect_error("bad_value", build, dict(SMALL, num_attention_heads=17))  # 16 // 17 = 0: head_size ** -0.5
    assert build(dict(SMALL, num_attention_heads=17, num_hidden_layers=0)).total > 0


def test_mobilebert_uncased():
    v, e, h, w, i = 30522, 128, 512, 128, 512
    embeddings = v * e + (512 + 2) * h + (3 * e * h + h) + 2 * h
    attention = 2 * (w * w + w) + (w * h + w) + (w * w + w) + 2 * w
    ffn = 4 * ((i * w + i) + (w * i + w) + 2 * w)
    bottlenecks = (h * w + h) + 2 * h + 2 * ((w * h + w) + 2 * w)
    layer = attention + ffn + bottlenecks
    assert (embeddings, layer) == (4_368_128, 842_240)
    inv = build(PRESETS["google/mobilebert-uncased"].config)
    assert inv.architecture == "MobileBertModel"
    assert inv.total == embeddings + 24 * layer == 24_581_888  # no pooler dense: classifier_activation is false
    assert views.num_parameters(inv, exclude_embeddings=True) == 24_581_888 - v * e - (512 + 2) * h
