"""data2vec-text. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic; the tensor-by-tensor comparison with
transformers is tests/crosscheck/test_transformers.py.
"""
from calculator.build import build
from calculator.presets import PRESETS

SMALL = {"vocab_size": 50, "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12,
         "num_hidden_layers": 2, "max_position_embeddings": 20, "type_vocab_size": 1}


def test_data2vec_text_base_by_hand():
    v, p, t, h, i, n = 50_265, 514, 1, 768, 3072, 12
    embeddings = (v + p + t) * h + 2 * h
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * (2 * h)
    pooler = h * h + h
    total = embeddings + n * layer + pooler
    assert total == 124_645_632  # roberta-base's count: the same tensors under data2vec_text
    assert build(dict(PRESETS["facebook/data2vec-text-base"].config), "Data2VecTextModel").total == total


def test_robertas_tensors_under_another_name_backbone_first():
    ours = build(dict(SMALL, model_type="data2vec-text"), "Data2VecTextForMaskedLM")
    theirs = build(dict(SMALL, model_type="roberta"), "RobertaForMaskedLM")
    assert [x.name.replace("data2vec_text.", "roberta.", 1) for x in ours.tensors] == [x.name for x in theirs.tensors]
    assert ours.tensors[0].name == "data2vec_text.embeddings.word_embeddings.weight"
    assert ours.total == theirs.total


def test_config_defaults_are_berts():
    inv = build({"model_type": "data2vec-text", "num_hidden_layers": 0}, "Data2VecTextModel")
    shapes = {x.name: x.shape for x in inv.tensors}
    assert shapes["embeddings.word_embeddings.weight"] == (30522, 768)
    assert shapes["embeddings.position_embeddings.weight"] == (512, 768)
    assert shapes["embeddings.token_type_embeddings.weight"] == (2, 768)
