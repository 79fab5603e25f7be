"""TAPAS facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here (BERT-base's layers and pooler, TAPAS's 1,024 positions and
its seven token-type tables of TapasConfig's defaults), never values the code produced.
"""
from calculator.build import build

DEFAULT = {"model_type": "tapas"}


def _layer(h: int, i: int) -> int:
    return 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def test_default_tapas_model_is_bert_base_with_seven_type_tables():
    v, p, h, i = 30522, 1024, 768, 3072
    types = 3 + 256 + 256 + 2 + 256 + 256 + 10
    assert types == 1039
    total = (v + p + types) * h + 2 * h + 12 * _layer(h, i) + h * h + h
    assert total == 110_671_872
    assert build(dict(DEFAULT), "TapasModel").total == total


def test_one_table_per_entry_of_type_vocab_sizes():
    names = [x.name for x in build(dict(DEFAULT, type_vocab_sizes=[5, 0, 7]), "TapasModel").tensors]
    assert names[:6] == [
        "embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
        "embeddings.token_type_embeddings_0.weight", "embeddings.token_type_embeddings_1.weight",
        "embeddings.token_type_embeddings_2.weight", "embeddings.LayerNorm.weight",
    ]
    shapes = {x.name: x.shape for x in build(dict(DEFAULT, type_vocab_sizes=[5, 0, 7]), "TapasModel").tensors}
    assert shapes["embeddings.token_type_embeddings_1.weight"] == (0, 768)


def test_question_answering_lists_its_own_parameters_first():
    inv = build(dict(DEFAULT, num_aggregation_labels=4), "TapasForQuestionAnswering")
    names = [x.name for x in inv.tensors]
    assert names[:5] == ["output_weights", "column_output_weights", "output_bias", "column_output_bias",
                         "tapas.embeddings.word_embeddings.weight"]
    assert names[-2:] == ["aggregation_classifier.weight", "aggregation_classifier.bias"]
    assert [x.shape for x in inv.tensors][:4] == [(768,), (768,), (), ()]
    base = build(dict(DEFAULT), "TapasModel").total
    assert inv.total == base + 768 + 768 + 1 + 1 + 4 * 768 + 4


def test_no_aggregation_head_without_aggregation_labels():
    names = [x.name for x in build(dict(DEFAULT), "TapasForQuestionAnswering").tensors]
    assert not any(n.startswith("aggregation_classifier") for n in names)


def test_masked_lm_has_no_pooler_and_ties_its_decoder():
    inv = build(dict(DEFAULT), "TapasForMaskedLM")
    names = [x.name for x in inv.tensors]
    assert "tapas.pooler.dense.weight" not in names
    h, v = 768, 30522
    base_without_pooler = build(dict(DEFAULT), "TapasModel").total - (h * h + h)
    assert inv.total == base_without_pooler + v + h * h + h + 2 * h
