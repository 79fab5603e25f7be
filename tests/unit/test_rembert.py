"""RemBERT facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from google/rembert's published sizes
and modeling_rembert.py's module list; the tensor-by-tensor comparison with
transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import peft, views
from calculator.build import build
from calculator.presets import PRESETS
from calculator import costs

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


# ------------------------------------------------------------------ training step (calculator/costs/)
# B = 1, L = 4, fp32, H = 8, 2 heads of d = 4, I = 12, two layers, the base model without a pooler. A [1, 4, 8]
# tensor is 128 bytes, a [1, 4, 12] one 192, the [1, 2, 4, 4] attention maps 128, a LayerNorm's mean and 1/std
# 2 · 16 bytes, an int64 [1, 4] index 32. With B = 1 every head split reshapes as a view (nothing copied).
TINY = {"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 12,
        "max_position_embeddings": 20, "type_vocab_size": 2}


def test_step_by_hand():
    c = costs.compute(build(dict(TINY, model_type="rembert", input_embedding_size=4), "RemBertModel", False),
                      costs.settings(1, 4))
    # BERT's matmuls (8,192, as Megatron-BERT's) and embedding_hidden_mapping_in 2·4·4·8.
    assert c.forward == 8192 + 256 == 8448
    # Embeddings (E_in = 4: a [1, 4, 4] tensor is 64 bytes): input_ids, the [1, 4] zero token types, the
    # LayerNorm's input and statistics, its output (kept by the mapping; RemBERT's dropouts are 0: no masks).
    embeddings = 32 + 32 + (64 + 32) + 64
    # Per layer, post-LN: its input (Q, K, V keep it), Q and K, softmax's output (kept by probabilities·V too),
    # V, the context copy, the first LayerNorm's input and statistics, its output, GELU's input and output,
    # the second LayerNorm's input and statistics.
    layer = 128 + 2 * 128 + 128 + 128 + 128 + (128 + 32) + 128 + 2 * 192 + (128 + 32)
    assert c.activations == embeddings + 2 * layer == 3424
