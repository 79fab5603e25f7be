"""BigBird. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor
comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error

SMALL = {"model_type": "big_bird", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2,
         "num_attention_heads": 2, "intermediate_size": 20, "max_position_embeddings": 40, "type_vocab_size": 2}


def test_small_model_by_hand():
    embeddings = (50 + 40 + 2) * 16 + 2 * 16
    attention = 4 * (16 * 16 + 16) + 2 * 16  # Q, K, V, output with biases; LayerNorm
    ffn = (20 * 16 + 20) + (16 * 20 + 16) + 2 * 16
    assert (embeddings, attention, ffn) == (1504, 1120, 708)
    inv = build(SMALL)
    assert inv.architecture == "BigBirdModel"
    assert inv.total == embeddings + 2 * (attention + ffn) + (16 * 16 + 16) == 5432


def test_the_pooler_is_a_bare_linear():
    names = [t.name for t in build(SMALL).tensors][-2:]
    assert names == ["pooler.weight", "pooler.bias"]


def test_use_bias_drops_the_q_k_v_biases():
    assert build(SMALL).total - build(dict(SMALL, use_bias=False)).total == 2 * 3 * 16
    names = {t.name for t in build(dict(SMALL, use_bias=False)).tensors}
    assert "encoder.layer.0.attention.self.query.bias" not in names
    assert "encoder.layer.0.attention.output.dense.bias" in names


def test_cross_attention_is_a_second_attention_block_per_layer():
    decoder = dict(SMALL, is_decoder=True, add_cross_attention=True)
    assert build(decoder).total == 5432 + 2 * 1120
    names = [t.name for t in build(decoder).tensors if t.name.startswith("encoder.layer.0.")]
    assert names.index("encoder.layer.0.crossattention.self.query.weight") == 10  # after attention's 10 tensors
    expect_error("bad_value", build, dict(SMALL, add_cross_attention=True))  # not a decoder: transformers refuses
    assert build(dict(SMALL, add_cross_attention=True, num_hidden_layers=0)).total > 0  # no layer, no refusal


def test_question_answering_head_always_has_two_outputs_and_no_pooler():
    qa = build(dict(SMALL, num_labels=5), "BigBirdForQuestionAnswering")
    head = (20 * 16 + 20) + (16 * 20 + 16) + 2 * 16 + (2 * 16 + 2)
    assert qa.total == 5432 - 272 + head == 5902
    assert {t.name: t.shape for t in qa.tensors}["qa_classifier.qa_outputs.weight"] == (2, 16)


def test_every_other_task_class_keeps_the_pooler():
    for arch in ("BigBirdForMaskedLM", "BigBirdForCausalLM", "BigBirdForSequenceClassification",
                 "BigBirdForMultipleChoice", "BigBirdForTokenClassification", "BigBirdForPreTraining"):
        assert "bert.pooler.weight" in {t.name for t in build(SMALL, arch).tensors}, arch


def test_bigbird_roberta_base():
    v, p, h, i = 50358, 4096, 768, 3072
    embeddings = (v + p + 2) * h + 2 * h
    layer = 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h
    model = embeddings + 12 * layer + h * h + h
    assert model == 127_468_800  # "127M" as the model is described
    raw = PRESETS["google/bigbird-roberta-base"].config
    assert build(raw, "BigBirdModel").total == model
    # the published class: MLM head (own bias V, transform H² + H, LayerNorm 2H, tied decoder) and NSP (2H + 2)
    pre = build(raw, PRESETS["google/bigbird-roberta-base"].published_architecture)
    assert pre.architecture == "BigBirdForPreTraining"
    assert pre.total == model + v + h * h + h + 2 * h + 2 * h + 2 == 128_112_824
    assert pre.state_dict_total == pre.total + v * h + v


def test_attention_kind_changes_nothing_but_must_be_known():
    assert build(dict(SMALL, attention_type="original_full", block_size=16)).total == 5432
    expect_error("bad_value", build, dict(SMALL, attention_type="sparse"))
    assert build(dict(SMALL, attention_type="sparse", num_hidden_layers=0)).total > 0
    expect_error("heads_not_divisor", build, dict(SMALL, num_attention_heads=3))
