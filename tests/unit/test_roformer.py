"""RoFormer. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below, from the shapes
``modeling_roformer.py`` gives each module; the tensor-by-tensor comparison with
transformers is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS
from calculator import costs

from .helpers import expect_error

SMALL = {"model_type": "roformer", "vocab_size": 10, "hidden_size": 8, "embedding_size": 4, "num_attention_heads": 2,
         "intermediate_size": 12, "num_hidden_layers": 1, "max_position_embeddings": 6, "type_vocab_size": 2}


def _layer(h, i):
    """BERT's post-LN layer: Q, K, V, O with biases; two feed-forward Linears; two LayerNorms."""
    return 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * (2 * h)


def test_roformer_chinese_base_by_hand():
    v, h, t, p, heads, i, n = 50_000, 768, 2, 1536, 12, 3072, 12
    embeddings = (v + t) * h + 2 * h  # word and token-type tables, their LayerNorm; no position table
    assert embeddings == 38_403_072
    rotary = p * (h // heads)  # the frozen sinusoidal table, one head wide
    assert rotary == 98_304
    assert _layer(h, i) == 7_087_872
    total = embeddings + rotary + n * _layer(h, i)
    assert total == 123_555_840
    inv = build(dict(PRESETS["junnyu/roformer_chinese_base"].config), "RoFormerModel")
    assert inv.total == total
    assert inv.trainable == total - rotary == 123_457_536  # the rotary table is a Parameter nobody trains
    assert inv.non_trainable == rotary
    assert views.formula(inv).total == total
    # both nn.Embedding weights leave num_parameters(exclude_embeddings=True): the word table, the types, the rotary table
    assert views.num_parameters(inv, exclude_embeddings=True) == total - (v + t) * h - rotary


def test_the_rotary_table_sits_in_the_encoder_frozen():
    inv = build(dict(SMALL), "RoFormerModel")
    (table,) = [x for x in inv.tensors if "embed_positions" in x.name]
    assert table.name == "encoder.embed_positions.weight"
    assert table.shape == (6, 8 // 2) and not table.trainable
    assert not any("position_embeddings" in x.name for x in inv.tensors)


def test_embedding_size_narrower_than_hidden_adds_a_projection():
    inv = build(dict(SMALL), "RoFormerModel")
    shapes = {x.name: x.shape for x in inv.tensors}
    assert shapes["embeddings.word_embeddings.weight"] == (10, 4)
    assert shapes["embeddings_project.weight"] == (8, 4)
    embeddings = (10 + 2) * 4 + 2 * 4 + (4 * 8 + 8)
    assert inv.total == embeddings + 6 * 4 + _layer(8, 12) == 652
    # E = H (or null, which transformers turns into H): no projection
    for same in (8, None):
        names = {x.name for x in build(dict(SMALL, embedding_size=same), "RoFormerModel").tensors}
        assert "embeddings_project.weight" not in names


def test_masked_lm_head_maps_back_to_e_and_ties_to_the_word_table():
    inv = build(dict(SMALL), "RoFormerForMaskedLM")
    shapes = {x.name: x.shape for x in inv.tensors}
    assert shapes["cls.predictions.transform.dense.weight"] == (4, 8)
    assert shapes["cls.predictions.decoder.weight"] == (10, 4)
    head = 10 + (4 * 8 + 4) + 2 * 4  # own bias [V], transform H → E, its LayerNorm; the decoder is the word table
    assert inv.total == 652 + head == 706
    untied = build(dict(SMALL, tie_word_embeddings=False), "RoFormerForMaskedLM")
    assert untied.total == 706 + 10 * 4 + 10  # its own decoder weight and bias


def test_question_answering_always_has_two_outputs():
    inv = build(dict(SMALL, num_labels=5), "RoFormerForQuestionAnswering")
    assert {x.name: x.shape for x in inv.tensors}["qa_outputs.weight"] == (2, 8)


def test_no_pooler_and_heads_must_divide():
    assert not any("pooler" in x.name for x in build(dict(SMALL), "RoFormerModel").tensors)
    expect_error("heads_not_divisor", build, dict(SMALL, num_attention_heads=3))


def test_multiple_choice_projection_only_when_the_config_asks():
    plain = build(dict(SMALL), "RoFormerForMultipleChoice")
    assert not any("sequence_summary" in x.name for x in plain.tensors)
    proj = build(dict(SMALL, summary_use_proj=True), "RoFormerForMultipleChoice")
    assert proj.total - plain.total == 8 * 8 + 8  # sequence_summary.summary [H, H] with bias
    to_labels = build(dict(SMALL, summary_use_proj=True, summary_proj_to_labels=True, num_labels=3),
                      "RoFormerForMultipleChoice")
    assert to_labels.total - plain.total == 3 * 8 + 3
    expect_error("bad_value", build, dict(SMALL, summary_type="attn"), "RoFormerForMultipleChoice")


# ------------------------------------------------------------------ training step (calculator/costs/)
# B = 1, L = 4, fp32, H = 8, 2 heads of d = 4, I = 12, two layers, the base model without a pooler. A [1, 4, 8]
# tensor is 128 bytes, a [1, 4, 12] one 192, the [1, 2, 4, 4] attention maps 128, a LayerNorm's mean and 1/std
# 2 · 16 bytes, an int64 [1, 4] index 32. With B = 1 every head split reshapes as a view (nothing copied).
TINY = {"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 12,
        "max_position_embeddings": 20, "type_vocab_size": 2}


def test_step_by_hand():
    inv = build(dict(TINY, model_type="roformer"), "RoFormerModel")
    c = costs.compute(inv, costs.settings(1, 4))
    assert c.forward == 8192  # BERT's matmuls: the rotation is elementwise
    # Embeddings: input_ids, the [1, 4] zero token types, the LayerNorm's input and statistics, the dropout mask.
    embeddings = 32 + 32 + (128 + 32) + 128
    # Per layer: BERT's (its input, Q and K rotated, softmax's output, mask, dropped maps, V, context, mask,
    # LayerNorm, its output, GELU's input and output, mask, LayerNorm) and the sin and cos tables the
    # rotation keeps, [1, 1, 4, 4] each (64 bytes), made anew in every layer.
    layer = 128 + 2 * 128 + 3 * 128 + 128 + 128 + 128 + (128 + 32) + 128 + 2 * 192 + 128 + (128 + 32) + 2 * 64
    assert c.activations == embeddings + 2 * layer == 4832
    # Rotating V as well keeps no more: the same tables, and V rotated in place of V.
    assert costs.compute(build(dict(TINY, model_type="roformer", rotary_value=True), "RoFormerModel"),
                         costs.settings(1, 4)).activations == 4832


def test_step_refuses_an_odd_head_size():
    inv = build(dict(TINY, model_type="roformer", hidden_size=6, num_attention_heads=2), "RoFormerModel")
    assert expect_error("costs_rotary_odd_head", costs.compute, inv, costs.settings(1, 4)).params["head_size"] == 3
