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


def _code(fn) -> str:
    from calculator.errors import CalcError

    try:
        fn()
    except CalcError as exc:
        return exc.code
    return "no error"


def test_step_reads_reset_position_index_per_cell_as_a_boolean():
    """The step key of the boolean kind: kept as a bool whatever spelling a config or link gives, a bad value refused;
    the link carries it only when it is not TapasConfig's default (True)."""
    from calculator import costs

    for given, kept in ((True, True), (False, False), ("false", False), ("True", True), (0, False), (1, True)):
        assert build(dict(DEFAULT, reset_position_index_per_cell=given), "TapasModel").config[
            "reset_position_index_per_cell"] is kept
    assert _code(lambda: build(dict(DEFAULT, reset_position_index_per_cell="maybe"), "TapasModel")) == "not_boolean"
    spec = [k for k in build(dict(DEFAULT), "TapasModel").family.costs.keys if k.key == "reset_position_index_per_cell"][0]
    query = costs.step_query(spec)
    assert query({}, {"reset_position_index_per_cell": True}) is None
    assert query({}, {"reset_position_index_per_cell": False}) == "False"


def test_step_positions_per_cell_keep_a_b_by_l_index():
    """Positions reset per cell are a new int64 [B, L] the position table keeps; without the reset, a view of
    arange(L): 8·B·L against 8·L bytes of activations, all else equal (B = 2, L = 4: 64 against 32)."""
    from calculator import costs

    small = dict(DEFAULT, vocab_size=30, hidden_size=8, num_attention_heads=2, num_hidden_layers=1,
                 intermediate_size=12, max_position_embeddings=16)
    on = costs.compute(build(dict(small, reset_position_index_per_cell=True), "TapasModel"), costs.settings(2, 4))
    off = costs.compute(build(dict(small, reset_position_index_per_cell=False), "TapasModel"), costs.settings(2, 4))
    assert on.activations - off.activations == 8 * 2 * 4 - 8 * 4
    assert on.forward == off.forward and on.backward == off.backward


def test_step_refusals():
    """Tables of 0 rows and per-cell positions with fewer than three tables: PyTorch's forward fails (the crosscheck
    shows it); question answering reads the table's structure: not this step."""
    from calculator import costs

    step = costs.settings(2, 4)
    assert _code(lambda: costs.compute(build(dict(DEFAULT, type_vocab_sizes=[3, 0, 5]), "TapasModel"), step)) == \
        "costs_forward_fails"
    assert _code(lambda: costs.compute(build(dict(DEFAULT, type_vocab_sizes=[3, 4]), "TapasModel"), step)) == \
        "costs_forward_fails"
    assert _code(lambda: costs.compute(build(dict(DEFAULT, type_vocab_sizes=[3, 4], reset_position_index_per_cell=False),
                                             "TapasModel"), step)) == "no error"
    assert _code(lambda: costs.compute(build(dict(DEFAULT), "TapasForQuestionAnswering"), step)) == "costs_architecture"
