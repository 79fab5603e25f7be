"""UltraBERT, transformers 5.23's native class. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor
comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build

SMALL = {"model_type": "ultrabert", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 3,
         "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 20, "prediction_head_size": 8}


def test_small_model_by_hand():
    d = 4
    layer = 16 * 4 * d + 2 * 16 * 2 * d + 4 * d * 16 + 3 * 16 * 20 + 2 * 16  # GQA, SwiGLU, two RMSNorms
    assert layer == 1760
    inv = build(SMALL)
    assert inv.total == 50 * 16 + 3 * layer + 16 == 6096  # sliding or full attention: the same tensors
    assert views.formula(inv).total == 6096


def test_heads():
    mlm = build(SMALL, "UltrabertForMaskedLM")
    assert mlm.total == 6096 + 8 * 16 + 16 * 8 + 50 * 16  # linear1, linear2, decoder: no biases, untied
    assert build(dict(SMALL, tie_word_embeddings=True), "UltrabertForMaskedLM").total == 6096 + 2 * 8 * 16
    qa = build(dict(SMALL, num_labels=5), "UltrabertForQuestionAnswering")
    assert qa.total == 6096 + 2 * 16 + 2  # two outputs whatever num_labels says
    assert build(dict(SMALL, num_labels=5), "UltrabertForTokenClassification").total == 6096 + 5 * 16 + 5


def test_config_defaults_by_hand():
    """UltrabertConfig()'s defaults are Llama-7B's body: V 32,000, H 4096, L 32, A 32, I 11,008."""
    v, h, n, i = 32000, 4096, 32, 11008
    layer = 4 * h * h + 3 * h * i + 2 * h
    assert layer == 202383360
    assert build({"model_type": "ultrabert"}).total == v * h + n * layer + h == 6607343616
