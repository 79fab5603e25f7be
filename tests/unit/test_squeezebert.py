"""SqueezeBERT facts, and LoRA on its grouped convolutions. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from squeezebert-uncased's published
sizes, modeling_squeezebert.py's module list and peft 0.21.2's ``lora.Conv1d``
(lora_A = Conv1d(in, r, kernel), lora_B = Conv1d(r, out, 1, groups)); the comparisons
with the real libraries are tests/crosscheck/.
"""
from calculator import peft, views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error

SMALL = {"model_type": "squeezebert", "vocab_size": 50, "embedding_size": 8, "hidden_size": 8,
         "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 12, "max_position_embeddings": 20,
         "type_vocab_size": 2}


def test_small_model_by_hand():
    v, p, t, h, i = 50, 20, 2, 8, 12
    embeddings = (v + p + t) * h + 2 * h
    qkv = 3 * (h * h // 4 + h)  # groups 4: each weight [8, 2, 1]
    post = h * h + h  # groups 1
    inter = h * i // 4 + i
    out = i * h // 4 + h
    layer = qkv + post + 2 * h + inter + out + 2 * h
    assert layer == 72 + 72 + 16 + 36 + 32 + 16 == 244
    inv = build(SMALL)
    assert inv.total == embeddings + layer + h * h + h == 592 + 244 + 72 == 908
    assert views.formula(inv).total == inv.total
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["encoder.layers.0.attention.query.weight"] == (8, 2, 1)
    assert shapes["encoder.layers.0.post_attention.conv1d.weight"] == (8, 8, 1)
    assert shapes["encoder.layers.0.output.conv1d.weight"] == (8, 3, 1)


def test_squeezebert_uncased_by_hand():
    v, p, t, h, i, n = 30528, 512, 2, 768, 3072, 12
    layer = 3 * (h * h // 4 + h) + (h * h + h) + 2 * h + (h * i // 4 + i) + (i * h // 4 + h) + 2 * h
    total = (v + p + t) * h + 2 * h + n * layer + h * h + h
    assert total == 51_094_272
    inv = build(PRESETS["squeezebert/squeezebert-uncased"].config)
    assert inv.total == total
    # BERT-base's layer with the same sizes holds 7,087,872; SqueezeBERT's 2,221,824
    assert layer == 2_221_824


def test_checks_transformers_makes():
    expect_error("bad_value", build, dict(SMALL, embedding_size=4))
    expect_error("heads_not_divisor", build, dict(SMALL, q_groups=3))
    expect_error("heads_not_divisor", build, dict(SMALL, intermediate_size=10))  # 10 is not a multiple of 4
    # with no layers there is no convolution to refuse its groups
    assert build(dict(SMALL, num_hidden_layers=0, q_groups=3)).total == 592 + 72


def test_the_convolutions_are_not_linear_for_peft():
    inv = build(SMALL, "SqueezeBertForSequenceClassification")
    kinds = {m.name: m.kind for m in peft.modules(inv)}
    assert kinds["transformer.encoder.layers.0.attention.query"] == "conv1d"
    plan = peft.lora(inv, 4, "all-linear", task_type="SEQ_CLS")
    assert plan.targets == ("transformer.pooler.dense",)  # all-linear adapts nn.Linear only


def test_lora_on_grouped_convolutions():
    inv = build(SMALL)
    plan = peft.lora(inv, 4, ["query", "post_attention.conv1d"])
    added = {t.name: t.shape for t in plan.added}
    assert added == {
        "base_model.model.encoder.layers.0.attention.query.lora_A.default.weight": (4, 8, 1),
        "base_model.model.encoder.layers.0.attention.query.lora_B.default.weight": (8, 1, 1),  # r / groups
        "base_model.model.encoder.layers.0.post_attention.conv1d.lora_A.default.weight": (4, 8, 1),
        "base_model.model.encoder.layers.0.post_attention.conv1d.lora_B.default.weight": (8, 4, 1),
    }
    assert plan.trainable == 32 + 8 + 32 + 32
    assert plan.all == 908 + plan.trainable
    # peft refuses a rank the groups do not divide
    expect_error("lora_conv_groups", peft.lora, inv, 3, ["query"])
    assert peft.lora(inv, 3, ["post_attention.conv1d"]).trainable == 3 * 8 + 8 * 3
