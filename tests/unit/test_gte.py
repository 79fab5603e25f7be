"""GTE, transformers 5.23's native class. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor
comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

SMALL = {"model_type": "gte", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2,
         "num_attention_heads": 2, "intermediate_size": 20, "type_vocab_size": 1}


def test_small_model_by_hand():
    embeddings = (50 + 1) * 16 + 2 * 16
    layer = 4 * (16 * 16 + 16) + (3 * 16 * 20 + 16) + 2 * (2 * 16)  # QKVO with biases; gate, up, down (+bias); 2 LNs
    assert (embeddings, layer) == (848, 2128)
    inv = build(SMALL)
    assert inv.architecture == "GteModel" and not inv.pooler
    assert inv.total == embeddings + 2 * layer == 5104
    assert views.formula(inv).total == 5104


def test_no_token_type_table_at_zero():
    inv = build(dict(SMALL, type_vocab_size=0))
    assert inv.total == 5104 - 16
    assert not any("token_type" in t.name for t in inv.tensors)


def test_heads():
    mlm = build(SMALL, "GteForMaskedLM")
    assert mlm.total == 5104 + (16 * 16 + 16) + 2 * 16 + 50  # dense, layer_norm, the decoder's own bias
    seq = build(dict(SMALL, num_labels=3), "GteForSequenceClassification")
    assert seq.total == 5104 + (16 * 16 + 16) + (3 * 16 + 3)  # the pooler, then the classifier


def test_published_by_hand():
    """gte-multilingual-base (V 250,048, one token type) and gte-base-en-v1.5 (V 30,528, none): 12 × 768, I 3072."""
    h, n, i = 768, 12, 3072
    layer = 4 * h * h + 4 * h + 3 * h * i + h + 4 * h
    assert layer == 9444096
    multi = PRESETS["alibaba-nlp-community/gte-multilingual-base"].config
    assert build(multi).total == (250048 + 1) * h + 2 * h + n * layer == 305368320
    en = PRESETS["Alibaba-NLP/gte-base-en-v1.5"].config
    assert build(en).total == 30528 * h + 2 * h + n * layer == 136776192
