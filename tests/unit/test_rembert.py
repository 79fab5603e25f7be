"""RemBERT facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from google/rembert's published sizes
and modeling_rembert.py's module list; the tensor-by-tensor comparison with
transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import peft, views
from calculator.build import build
from calculator.presets import PRESETS

SMALL = {"model_type": "rembert", "vocab_size": 50, "input_embedding_size": 4, "hidden_size": 8,
         "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 12, "output_embedding_size": 6,
         "max_position_embeddings": 20, "type_vocab_size": 2}


def _layer(h: int, i: int) -> int:
    # BERT's layer: Q, K, V, output with biases; the feed-forward pair; two LayerNorms
    return 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def test_small_model_by_hand():
    v, e, h, p, t = 50, 4, 8, 20, 2
    embeddings = (v + p + t) * e + 2 * e + e * h + h  # tables at E_in, LayerNorm(E_in), E_in -> H
    assert embeddings == 288 + 8 + 32 + 8 == 336
    inv = build(SMALL)
    assert inv.total == embeddings + 2 * _layer(8, 12) + 8 * 8 + 8 == 336 + 2 * 532 + 72 == 1472
    assert views.formula(inv).total == inv.total


def test_the_output_embedding_is_its_own_and_wider():
    inv = build(SMALL, "RemBertForMaskedLM")
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["rembert.embeddings.word_embeddings.weight"] == (50, 4)
    assert shapes["cls.predictions.dense.weight"] == (6, 8)
    assert shapes["cls.predictions.decoder.weight"] == (50, 6)
    assert not any(t.tied_to for t in inv.tensors)
    # no pooler; head: dense 8->6 (+6), decoder 6->50 (+50), LayerNorm(6)
    assert inv.total == 1472 - 72 + 48 + 6 + 300 + 50 + 12
    assert build(dict(SMALL, tie_word_embeddings=True), "RemBertForMaskedLM").total == inv.total  # never tied
    # equal widths are still two tables
    same = dict(SMALL, output_embedding_size=4)
    assert build(same, "RemBertForMaskedLM").total == 1472 - 72 + (32 + 4) + (200 + 50) + 8


def test_all_linear_leaves_out_the_output_embedding():
    """peft's all-linear skips get_output_embeddings() (the decoder), though it is not the input table's shape."""
    inv = build(SMALL, "RemBertForMaskedLM")
    assert peft.output_embedding(inv) == "cls.predictions.decoder"
    plan = peft.lora(inv, 2, "all-linear")
    assert "cls.predictions.decoder" not in plan.targets and "cls.predictions.dense" in plan.targets


def test_google_rembert_by_hand():
    v, e, h, i, p, t, n, e_out = 250300, 256, 1152, 4608, 512, 2, 32, 1664
    embeddings = (v + p + t) * e + 2 * e + e * h + h
    encoder = n * _layer(h, i)
    pooler = h * h + h
    total = embeddings + encoder + pooler
    assert total == 575_920_384
    inv = build(PRESETS["google/rembert"].config)
    assert inv.architecture == "RemBertModel" and inv.total == total
    head = h * e_out + e_out + e_out * v + v + 2 * e_out  # dense, decoder, LayerNorm
    mlm = build(PRESETS["google/rembert"].config, "RemBertForMaskedLM")
    assert mlm.total == total - pooler + head == 993_263_548
