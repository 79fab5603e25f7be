"""RoCBert facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here (BERT-base's 109,482,240 for BertModel of
bert-base-uncased, plus RoCBert's two tables and its input projection), never values the code produced.
"""
from calculator.build import build

DEFAULTS = {"model_type": "roc_bert"}


def _layer(h: int, i: int) -> int:
    return 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def test_defaults_are_bert_base_plus_two_tables_and_a_projection():
    v, p, t, h, i = 30522, 512, 2, 768, 3072
    bert_base = (v + p + t) * h + 2 * h + 12 * _layer(h, i) + h * h + h
    assert bert_base == 109_482_240
    tables = 910 * 768 + 24858 * 512
    projection = (768 + 768 + 512) * 768 + 768  # 2048 -> 768: 1,573,632
    assert projection == 1_573_632
    assert build(dict(DEFAULTS), "RoCBertModel", True).total == bert_base + tables + projection


def test_disabled_inputs_keep_their_tables_but_narrow_the_projection():
    full = build(dict(DEFAULTS), "RoCBertModel", True).total
    no_shape = build(dict(DEFAULTS, enable_shape=False), "RoCBertModel", True).total
    assert full - no_shape == 512 * 768
    no_concat = build(dict(DEFAULTS, concat_input=False), "RoCBertModel", True).total
    assert full - no_concat == 2048 * 768 + 768
