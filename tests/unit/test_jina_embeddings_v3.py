"""jina-embeddings-v3, transformers 5.23's native class. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor
comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

SMALL = {"model_type": "jina_embeddings_v3", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2,
         "num_attention_heads": 2, "intermediate_size": 20, "type_vocab_size": 1}


def test_small_model_by_hand():
    embeddings = (50 + 1) * 16 + 2 * 16  # word and type tables, LayerNorm; rotary: no position table
    layer = 4 * (16 * 16 + 16) + (2 * 16 * 20 + 20 + 16) + 2 * (2 * 16)  # Q K V O with biases; fc1, fc2; two LNs
    pooler = 16 * 16 + 16
    assert (embeddings, layer) == (848, 1828)
    inv = build(SMALL)
    assert inv.architecture == "JinaEmbeddingsV3Model" and inv.pooler
    assert inv.total == embeddings + 2 * layer + pooler == 4776
    assert views.formula(inv).total == 4776
    assert not any("position" in t.name for t in inv.tensors)


def test_heads_come_first_as_in_xlm_roberta():
    mlm = build(SMALL, "JinaEmbeddingsV3ForMaskedLM")
    names = [t.name for t in mlm.tensors]
    assert names[0] == "lm_head.bias" and names.index("lm_head.decoder.weight") < names.index(
        "roberta.embeddings.word_embeddings.weight")
    assert mlm.total == 4776 - 272 + 50 + (16 * 16 + 16) + 2 * 16  # no pooler; own bias, dense, layer_norm
    assert build(dict(SMALL, num_labels=3), "JinaEmbeddingsV3ForTokenClassification").total == 4776 - 272 + 51


def test_published_native_port_by_hand():
    """jinaai/jina-embeddings-v3-hf: V 250,002, H 1024, L 24, I 4096, one token type, with the pooler.

    The five task LoRA adapters of the custom-code checkpoint are not in the native class.
    """
    v, h, n, i = 250002, 1024, 24, 4096
    embeddings = (v + 1) * h + 2 * h
    layer = 4 * (h * h + h) + 2 * h * i + i + h + 4 * h
    assert (embeddings, layer) == (256005120, 12596224)
    inv = build(PRESETS["jinaai/jina-embeddings-v3-hf"].config)
    assert inv.total == embeddings + n * layer + h * h + h == 559364096
