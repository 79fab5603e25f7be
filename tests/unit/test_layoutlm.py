"""LayoutLM facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here (BERT-base's published total, 109,482,240 for
``BertModel`` of bert-base-uncased, plus LayoutLM's four 2-D tables), never values the code produced.
"""
from calculator.build import build
from calculator.presets import PRESETS

BASE = PRESETS["microsoft/layoutlm-base-uncased"].config


def _layer(h: int, i: int) -> int:
    return 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def test_layoutlm_base_is_bert_base_plus_four_2d_tables():
    v, p, t, d, h, i = 30522, 512, 2, 1024, 768, 3072
    bert_base = (v + p + t) * h + 2 * h + 12 * _layer(h, i) + h * h + h
    assert bert_base == 109_482_240
    total = bert_base + 4 * d * h
    assert total == 112_627_968
    assert build(dict(BASE), "LayoutLMModel").total == total


def test_the_2d_tables_come_between_positions_and_token_types():
    names = [x.name for x in build(dict(BASE), "LayoutLMModel").tensors]
    assert names[:7] == [
        "embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
        "embeddings.x_position_embeddings.weight", "embeddings.y_position_embeddings.weight",
        "embeddings.h_position_embeddings.weight", "embeddings.w_position_embeddings.weight",
        "embeddings.token_type_embeddings.weight",
    ]


def test_every_class_keeps_the_pooler():
    # LayoutLMModel has no add_pooling_layer: the masked-LM class holds pooler.dense too.
    names = [x.name for x in build(dict(BASE), "LayoutLMForMaskedLM").tensors]
    assert "layoutlm.pooler.dense.weight" in names


def test_max_2d_positions_scale_four_tables():
    small = build(dict(BASE, max_2d_position_embeddings=10), "LayoutLMModel").total
    assert build(dict(BASE), "LayoutLMModel").total - small == 4 * (1024 - 10) * 768
