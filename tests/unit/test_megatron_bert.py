"""Megatron-BERT facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from the published configs and
modeling_megatron_bert.py's module list; the tensor-by-tensor comparison with
transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS
from calculator import costs

SMALL = {"model_type": "megatron-bert", "vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 2,
         "num_attention_heads": 2, "intermediate_size": 12, "max_position_embeddings": 20, "type_vocab_size": 2}


def test_small_model_by_hand():
    v, p, t, h, i = 50, 20, 2, 8, 12
    tables = (v + p + t) * h  # no embedding LayerNorm
    # per layer: ln (2h), Q K V output (4h² + 4h), ln (2h), intermediate (h·i + i), output (i·h + h)
    layer = 2 * h + 4 * h * h + 4 * h + 2 * h + h * i + i + i * h + h
    final_ln = 2 * h
    pooler = h * h + h
    inv = build(SMALL)
    assert inv.total == tables + 2 * layer + final_ln + pooler == 576 + 2 * 532 + 16 + 72 == 1728
    assert build(SMALL, "MegatronBertModel", False).total == 1728 - 72
    assert views.formula(inv).total == inv.total


def test_pre_ln_names_and_no_embedding_layer_norm():
    names = [t.name for t in build(SMALL, "MegatronBertModel", False).tensors]
    assert not any(n.startswith("embeddings.LayerNorm") for n in names)
    assert names[3:5] == ["encoder.layer.0.attention.ln.weight", "encoder.layer.0.attention.ln.bias"]
    assert "encoder.layer.0.ln.weight" in names and "encoder.layer.0.output.LayerNorm.weight" not in names
    assert names[-2:] == ["encoder.ln.weight", "encoder.ln.bias"]


def test_same_count_as_bert_for_the_same_sizes():
    """The embedding LayerNorm (2H) moved to the end of the encoder: nothing added, nothing removed."""
    bert = dict(SMALL, model_type="bert")
    assert build(SMALL).total == build(bert).total


def test_gatortron_base_by_hand():
    v, p, t, h, i, n = 50176, 512, 2, 1024, 4096, 24
    layer = 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h
    total = (v + p + t) * h + n * layer + 2 * h + h * h + h
    assert total == 355_267_584
    inv = build(PRESETS["UFNLP/gatortron-base"].config)
    assert inv.architecture == "MegatronBertModel" and inv.total == total
    assert views.num_parameters(inv, exclude_embeddings=True) == total - (v + p + t) * h


def test_erlangshen_is_the_1_3b_its_name_says():
    v, p, t, h, i, n = 21248, 512, 2, 2048, 8192, 24
    layer = 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h
    total = (v + p + t) * h + n * layer + 2 * h + h * h + h
    assert build(PRESETS["IDEA-CCNL/Erlangshen-MegatronBert-1.3B"].config).total == total == 1_257_367_552


def test_masked_lm_ties_the_decoder():
    inv = build(SMALL, "MegatronBertForMaskedLM")
    ties = {t.name: t.tied_to for t in inv.tensors if t.tied_to}
    assert ties == {
        "cls.predictions.decoder.weight": "bert.embeddings.word_embeddings.weight",
        "cls.predictions.decoder.bias": "cls.predictions.bias",
    }
    # no pooler; head: bias V, transform H² + H, LayerNorm 2H
    assert inv.total == 1728 - 72 + 50 + 64 + 8 + 16
    untied = build(dict(SMALL, tie_word_embeddings=False), "MegatronBertForMaskedLM")
    assert untied.total == inv.total + 50 * 8 + 50


# ------------------------------------------------------------------ training step (calculator/costs/)
# B = 1, L = 4, fp32, H = 8, 2 heads of d = 4, I = 12, two layers, the base model without a pooler. A [1, 4, 8]
# tensor is 128 bytes, a [1, 4, 12] one 192, the [1, 2, 4, 4] attention maps 128, a LayerNorm's mean and 1/std
# 2 · 16 bytes, an int64 [1, 4] index 32. With B = 1 every head split reshapes as a view (nothing copied).
TINY = {"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 12,
        "max_position_embeddings": 20, "type_vocab_size": 2}


def test_step_by_hand():
    c = costs.compute(build(dict(TINY, model_type="megatron-bert"), "MegatronBertModel", False), costs.settings(1, 4))
    # FLOPs per layer: Q, K, V, output 4 · 2·4·8·8; feed-forward 2 · 2·4·8·12; QKᵀ and probabilities·V 4·1·4²·8.
    assert c.forward == 2 * (4 * 2 * 4 * 8 * 8 + 2 * 2 * 4 * 8 * 12 + 4 * 16 * 8) == 8192
    assert c.backward == 2 * c.forward
    # Embeddings: input_ids and the [1, 4] zero token types (MegatronBertModel makes them), the dropout mask.
    embeddings = 32 + 32 + 128
    # Per layer: attention.ln's input and statistics, its output (Q, K, V keep it), Q and K (kept by QKᵀ),
    # softmax's output, the dropout mask, the dropped maps, V, the context copy, the output dropout mask;
    # ln's input and statistics, its output, the GELU input and output, the second dropout mask.
    layer = (128 + 32) + 128 + 2 * 128 + 3 * 128 + 128 + 128 + 128 + (128 + 32) + 128 + 2 * 192 + 128
    assert layer == 2112
    assert c.activations == embeddings + 2 * layer + (128 + 32) == 4576  # + encoder.ln's input and statistics
