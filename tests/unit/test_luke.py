"""LUKE (studio-ousia/luke-base, luke-large): RoBERTa with an entity table and entity-aware attention.
Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor comparison with transformers 5.23
is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

SMALL = {"model_type": "luke", "vocab_size": 20, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
         "intermediate_size": 6, "max_position_embeddings": 10, "entity_vocab_size": 7, "entity_emb_size": 4}


def test_luke_base_by_hand():
    h, vocab, positions, types, inner, layers = 768, 50267, 514, 1, 3072, 12
    entities, entity_width = 500_000, 256
    words = (vocab + positions + types) * h + 2 * h  # word, position, token-type tables and LayerNorm
    entity_table = entities * entity_width
    assert entity_table == 128_000_000  # the table the research notes call out
    entity_block = entity_table + entity_width * h + (positions + types) * h + 2 * h  # + bias-free projection
    bert_layer = 4 * (h * h + h) + (h * inner + inner) + (inner * h + h) + 2 * 2 * h
    entity_queries = 3 * (h * h + h)  # w2e_query, e2w_query, e2e_query
    pooler = h * h + h
    total = words + entity_block + layers * (bert_layer + entity_queries) + pooler
    assert total == 274_502_144
    inv = build(PRESETS["studio-ousia/luke-base"].config)
    assert inv.architecture == "LukeModel" and inv.total == total and views.formula(inv).total == total
    # num_parameters(exclude_embeddings=True) leaves out every nn.Embedding: both position tables, the entity table.
    tables = (vocab + positions + types) * h + entity_table + (positions + types) * h
    assert views.num_parameters(inv, exclude_embeddings=True) == total - tables


def test_entity_projection_and_aware_attention_are_optional():
    base = build(SMALL)
    assert base.total == build(dict(SMALL, entity_emb_size=8)).total - 7 * 8 + 7 * 4 + 8 * 4  # no dense when E_e = H
    names = [t.name for t in base.tensors]
    assert "entity_embeddings.entity_embedding_dense.weight" in names
    assert "entity_embeddings.entity_embedding_dense.bias" not in names
    plain = build(dict(SMALL, use_entity_aware_attention=False))
    assert base.total - plain.total == 3 * (8 * 8 + 8)
    assert names.index("encoder.layer.0.attention.self.w2e_query.weight") == names.index(
        "encoder.layer.0.attention.self.value.bias") + 1


def test_masked_lm_ties_the_entity_decoder_and_the_word_bias_only():
    inv = build(SMALL, "LukeForMaskedLM")
    tied = {t.name: t.tied_to for t in inv.tensors if t.tied_to}
    assert tied == {"lm_head.decoder.bias": "lm_head.bias",
                    "entity_predictions.decoder.weight": "luke.entity_embeddings.entity_embeddings.weight"}
    base = build(SMALL).total  # LukeModel with its pooler, as the class builds it
    lm_head = 20 + (8 * 8 + 8) + 2 * 8 + 20 * 8  # bias, dense, layer_norm, its own decoder weight
    entity_head = 7 + (4 * 8 + 4) + 2 * 4  # bias, transform to E_e, its LayerNorm; decoder = entity table
    assert inv.total == base + lm_head + entity_head
    untied = build(dict(SMALL, tie_word_embeddings=False), "LukeForMaskedLM")
    assert untied.total == inv.total + 20 + 7 * 4


def test_entity_task_heads():
    base = build(SMALL).total
    assert build(dict(SMALL, num_labels=3), "LukeForEntityPairClassification").total == base + 3 * 16  # 2H, no bias
    assert build(dict(SMALL, num_labels=3), "LukeForEntitySpanClassification").total == base + 3 * 24 + 3
    assert build(dict(SMALL, num_labels=3), "LukeForTokenClassification").total == base - (8 * 8 + 8) + 3 * 8 + 3


def test_training_step_covers_the_classes_that_run_on_input_ids_alone():
    """Without entity inputs the layers run as RoBERTa's: the three entity queries get no gradient, so the step
    costs what it costs without entity-aware attention (same FLOPs and activations; fewer weight bytes)."""
    from calculator import costs
    from .helpers import expect_error

    s = costs.settings(2, 4)
    with_queries = costs.compute(build(SMALL), s)
    without = costs.compute(build(dict(SMALL, use_entity_aware_attention=False)), s)
    assert (with_queries.forward, with_queries.backward, with_queries.activations) == (
        without.forward, without.backward, without.activations)
    assert with_queries.weights - without.weights == 4 * 3 * (8 * 8 + 8)  # fp32 bytes of the unused queries
    assert with_queries.gradients == without.gradients  # no gradient reaches them
    for arch in ("LukeForEntityClassification", "LukeForEntityPairClassification", "LukeForEntitySpanClassification"):
        expect_error("costs_architecture", costs.compute, build(SMALL, arch), s)
