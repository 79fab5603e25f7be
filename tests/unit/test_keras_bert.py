"""keras-bert's get_model(). Standard library only: this file also runs inside Pyodide.

Expected numbers are the issue's facts (keras-bert 0.89's model.summary() for
the famous call) or arithmetic written out here; layer and weight names are
the ones tf-keras prints. The full comparison with the real library is
tests/crosscheck/test_keras_bert_reference.py.
"""
from calculator.build import build
from calculator.families import FAMILIES

from .helpers import expect_error
from .helpers import keras as build_inventory

FAMOUS = {
    "model_type": "keras-bert",
    "token_num": 30000, "head_num": 12, "transformer_num": 12, "embed_dim": 768,
    "feed_forward_dim": 3072, "seq_len": 500, "pos_num": 512, "dropout_rate": 0.05,
}
SMALL = {
    "model_type": "keras-bert",
    "token_num": 100, "head_num": 2, "transformer_num": 1, "embed_dim": 16,
    "feed_forward_dim": 32, "seq_len": 20, "pos_num": 24,
}

# Hand arithmetic for the famous call (D = 768, F = 3072, V = 30000, P = 512):
ATTENTION = 4 * (768 * 768 + 768)  # Wq, Wk, Wv, Wo and their biases = 2,362,368
NORM = 2 * 768  # gamma, beta = 1,536
FEED_FORWARD = 768 * 3072 + 3072 + 3072 * 768 + 768  # W1, b1, W2, b2 = 4,722,432
EMBEDDINGS = 30000 * 768 + 2 * 768 + 512 * 768 + NORM  # token, segment, position, norm
HEADS = (768 * 768 + 768) + NORM + 30000 + (768 * 768 + 768) + (768 * 2 + 2)  # MLM-Dense, -Norm, -Sim, NSP-Dense, NSP


def test_registered():
    assert FAMILIES["keras-bert"].model_type == "keras-bert"
    assert build({"model_type": "keras-bert"}).architecture == "get_model"


def test_famous_summary_total():
    inv = build(FAMOUS)
    assert EMBEDDINGS + 12 * (ATTENTION + NORM + FEED_FORWARD + NORM) + HEADS == 109_705_010
    assert inv.total == 109_705_010
    assert inv.trainable == 109_705_010
    assert inv.non_trainable == 0
    assert inv.state_dict_total == inv.total  # no ties: MLM-Sim reuses the token embedding as an input


def test_famous_summary_rows():
    rows = {k.name: k for k in build(FAMOUS).keras_layers}
    assert ATTENTION == 2_362_368
    for i in range(1, 13):
        assert rows[f"Encoder-{i}-MultiHeadSelfAttention"].count == 2_362_368
        assert rows[f"Encoder-{i}-MultiHeadSelfAttention"].cls == "MultiHeadAttention"
        assert rows[f"Encoder-{i}-FeedForward"].count == FEED_FORWARD
        assert rows[f"Encoder-{i}-FeedForward-Norm"].count == NORM
    assert rows["Embedding-Token"].count == 23_040_000
    assert rows["Embedding-Token"].cls == "TokenEmbedding"
    assert rows["Embedding-Position"].count == 393_216  # pos_num rows, not seq_len
    assert rows["MLM-Sim"].count == 30_000  # only its bias
    assert rows["NSP"].count == 1_538
    for zero in ("Input-Token", "Input-Segment", "Input-Masked", "Embedding-Token-Segment", "Embedding-Dropout",
                 "Extract", "MLM", "Encoder-3-FeedForward-Add", "Encoder-3-FeedForward-Dropout"):
        assert rows[zero].count == 0
    assert sum(k.count for k in build(FAMOUS).keras_layers) == 109_705_010


def test_summary_order_as_keras_prints_it():
    # model.summary() of the real library for SMALL with dropout_rate=0 (no Dropout rows):
    expected = [
        "Input-Token", "Input-Segment", "Embedding-Token", "Embedding-Segment", "Embedding-Token-Segment",
        "Embedding-Position", "Embedding-Norm",
        "Encoder-1-MultiHeadSelfAttention", "Encoder-1-MultiHeadSelfAttention-Add",
        "Encoder-1-MultiHeadSelfAttention-Norm", "Encoder-1-FeedForward", "Encoder-1-FeedForward-Add",
        "Encoder-1-FeedForward-Norm",
        "MLM-Dense", "MLM-Norm", "Extract", "MLM-Sim", "Input-Masked", "NSP-Dense", "MLM", "NSP",
    ]
    inv = build_inventory(dict(SMALL, dropout_rate=0.0))
    assert [k.name for k in inv.keras_layers] == expected
    with_dropout = [k.name for k in build_inventory(dict(SMALL, dropout_rate=0.1)).keras_layers]
    assert [n for n in with_dropout if not n.endswith("Dropout")] == expected
    assert [n for n in with_dropout if n.endswith("Dropout")] == [
        "Embedding-Dropout", "Encoder-1-MultiHeadSelfAttention-Dropout", "Encoder-1-FeedForward-Dropout",
    ]


def test_weight_names_and_shapes():
    inv = build_inventory(dict(SMALL, dropout_rate=0.0))
    shapes = {t.name: t.shape for t in inv.tensors}
    att = "Encoder-1-MultiHeadSelfAttention"
    assert shapes[f"{att}/{att}_Wq:0"] == (16, 16)
    assert shapes[f"{att}/{att}_bo:0"] == (16,)
    assert shapes["Encoder-1-FeedForward/Encoder-1-FeedForward_W1:0"] == (16, 32)
    assert shapes["Encoder-1-FeedForward/Encoder-1-FeedForward_W2:0"] == (32, 16)
    assert shapes["Embedding-Norm/gamma:0"] == (16,)
    assert shapes["Embedding-Position/embeddings:0"] == (24, 16)
    assert shapes["MLM-Sim/bias:0"] == (100,)
    assert shapes["NSP/kernel:0"] == (16, 2)
    names = [t.name for t in inv.tensors]
    assert names[:3] == ["Embedding-Token/embeddings:0", "Embedding-Segment/embeddings:0", "Embedding-Position/embeddings:0"]
    assert names[-2:] == ["NSP/kernel:0", "NSP/bias:0"]
    # 3 tables + 2 norm; block: 8 attention + 2 norm + 4 feed-forward + 2 norm; heads: 2 + 2 + 1 + 2 + 2
    assert len(names) == len(set(names)) == 5 + 16 + 9


def test_groups():
    inv = build(FAMOUS)
    sums = {}
    for t in inv.tensors:
        sums[t.group] = sums.get(t.group, 0) + t.count
    assert sums["embeddings"] == EMBEDDINGS
    assert sums["attention_qkv"] == 12 * 3 * (768 * 768 + 768)
    assert sums["attention_output"] == 12 * (768 * 768 + 768)
    assert sums["feed_forward"] == 12 * FEED_FORWARD
    assert sums["layer_norm"] == 12 * 2 * NORM
    assert sums["head"] == HEADS
    assert {t.layer for t in inv.tensors if t.group == "feed_forward"} == set(range(12))


def test_training_false_drops_heads_and_freezes():
    inv = build(dict(FAMOUS, training=False))
    assert inv.total == 109_705_010 - HEADS == 108_490_752
    assert inv.trainable == 0  # trainable defaults to training
    names = [k.name for k in inv.keras_layers]
    assert "Input-Masked" not in names and "MLM-Sim" not in names and "NSP" not in names
    assert names[-1] == "Encoder-12-FeedForward-Norm"
    assert not any(k.trainable for k in inv.keras_layers)
    unfrozen = build_inventory(dict(FAMOUS, training=False, trainable=True))
    assert unfrozen.trainable == 108_490_752


def test_trainable_false_and_prefix_list():
    frozen = build_inventory(dict(FAMOUS, trainable=False))
    assert frozen.total == 109_705_010 and frozen.trainable == 0
    assert frozen.non_trainable == 109_705_010
    some = build_inventory(dict(FAMOUS, trainable=["Encoder-12", "MLM", "NSP"]))
    # Encoder-12's four weighted layers + every MLM-*/NSP* layer (Encoder-1 does not match "Encoder-12").
    assert some.trainable == (ATTENTION + NORM + FEED_FORWARD + NORM) + HEADS == 8_302_130
    rows = {k.name: k.trainable for k in some.keras_layers}
    assert rows["Encoder-12-FeedForward-Add"] and rows["MLM"] and rows["NSP-Dense"]
    assert not rows["Encoder-1-FeedForward"] and not rows["Input-Token"] and not rows["Extract"]
    for t in some.tensors:
        assert t.trainable == t.name.startswith(("Encoder-12", "MLM", "NSP"))
    assert build_inventory(dict(FAMOUS, trainable=[])).trainable == 0


def test_seq_len_and_dropout_do_not_change_counts():
    base = build_inventory(SMALL).total
    for extra in ({"seq_len": 3}, {"seq_len": None}, {"dropout_rate": 0.0}, {"dropout_rate": 1}, {"dropout_rate": "0.5"}):
        assert build_inventory(dict(SMALL, **extra)).total == base
        assert build(dict(SMALL, **extra)).total == base


def test_bad_inputs():
    for value in (1.5, -0.1, "lots", True, [0.1], float("nan")):
        exc = expect_error("bad_fraction", build_inventory, dict(SMALL, dropout_rate=value))
        assert exc.params["key"] == "dropout_rate"
    expect_error("bad_value", build_inventory, dict(SMALL, trainable=["Encoder", 3]))
    expect_error("not_boolean", build_inventory, dict(SMALL, trainable="Encoder"))
    expect_error("heads_not_divisor", build, dict(FAMOUS, head_num=5))
    expect_error("zero", build, dict(SMALL, transformer_num=0, training=False))
    expect_error("not_integer", build, dict(SMALL, token_num=1.5))
    # With the heads, zero encoder blocks is a model keras-bert builds (embeddings straight into MLM/NSP).
    assert build(dict(SMALL, transformer_num=0)).total == (100 * 16 + 2 * 16 + 24 * 16 + 32) + (
        (16 * 16 + 16) + 32 + 100 + (16 * 16 + 16) + (16 * 2 + 2)
    )


def test_pooler_switch_does_not_apply():
    expect_error("pooler_fixed", lambda raw: build(raw, pooler=True), SMALL)


def test_markdown_copy_calls_keras_entries_weights():
    """keras-bert's entries are model.weights, not a state_dict: the copied table's first column says so."""
    from calculator.views import markdown_table

    keras = build({"model_type": "keras-bert"})
    bert = build({"model_type": "bert"})
    assert markdown_table(keras, "en").startswith("| Weight | Shape |")
    assert markdown_table(keras, "zh").startswith("| 权重 |")
    assert markdown_table(bert, "en").startswith("| Tensor | Shape |")
    assert markdown_table(bert, "zh").startswith("| 张量 |")
