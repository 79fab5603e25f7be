"""ModernBERT. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below, or totals measured
from transformers 5.23 (research notes /work/notes/families.md §3, §7.2). The
tensor-by-tensor comparison is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error


def _preset(name, architecture=None, **changes):
    return build(dict(PRESETS[name].config, **changes), architecture)


def _no_bias_total(v, h, layers, inter):
    """Token table and its norm; per layer Wqkv 3H², Wo H², Wi 2I·H, Wo H·I, mlp_norm H; attn_norm H from layer 1; final norm."""
    per_layer = 3 * h * h + h * h + 2 * inter * h + inter * h + h
    return v * h + h + layers * per_layer + (layers - 1) * h + h


def test_modernbert_base_is_149m_not_139m():
    total = _no_bias_total(50_368, 768, 22, 1152)
    assert total == 149_014_272  # ModernBertModel as transformers 5.23 builds it (notes §7.2)
    inv = _preset("answerdotai/ModernBERT-base", "ModernBertModel")
    assert inv.total == total
    assert round(inv.total / 1e6) == 149 != 139
    assert views.num_parameters(inv, exclude_embeddings=True) == total - 50_368 * 768 == 110_331_648


def test_modernbert_large():
    total = _no_bias_total(50_368, 1024, 28, 2624)
    assert total == 394_781_696
    assert _preset("answerdotai/ModernBERT-large", "ModernBertModel").total == total
    # the published class, ModernBertForMaskedLM: head.dense [H, H] (no bias), head.norm [H], decoder.bias [V]
    mlm = _preset("answerdotai/ModernBERT-large", "ModernBertForMaskedLM")
    assert mlm.total == total + 1024 * 1024 + 1024 + 50_368 == 395_881_664  # the card's "395 million"


def test_mlm_head_ties_the_decoder_to_the_token_table():
    inv = _preset("answerdotai/ModernBERT-base", "ModernBertForMaskedLM")
    assert inv.total == 149_014_272 + 768 * 768 + 768 + 50_368 == 149_655_232
    assert {t.name: t.tied_to for t in inv.tensors if t.tied_to} == {
        "decoder.weight": "model.embeddings.tok_embeddings.weight",
    }
    assert inv.state_dict_total == inv.total + 50_368 * 768 == 188_337_856
    # the tied decoder is not counted again, and exclude_embeddings removes the table once
    assert views.num_parameters(inv, exclude_embeddings=True) == 149_655_232 - 50_368 * 768


def test_layer_zero_has_no_attention_norm():
    inv = _preset("answerdotai/ModernBERT-base", "ModernBertModel")
    names = {t.name for t in inv.tensors}
    assert "layers.0.attn_norm.weight" not in names
    assert "layers.1.attn_norm.weight" in names and "layers.21.attn_norm.weight" in names
    rows = views.per_layer(inv)
    assert rows[1].count - rows[0].count == 768
    f = {line.key: line for line in views.formula(inv).lines}
    assert f["attention_norms"].value == 21 * 768
    assert f["final_norm"].value == 768
    assert views.formula(inv).total == inv.total


def test_rotary_positions_no_table():
    base = _preset("answerdotai/ModernBERT-base", "ModernBertModel")
    assert not any("position" in t.name for t in base.tensors)
    assert _preset("answerdotai/ModernBERT-base", "ModernBertModel", max_position_embeddings=512).total == base.total


def test_the_gated_mlp_is_two_i_wide():
    shapes = {t.name: t.shape for t in _preset("answerdotai/ModernBERT-base", "ModernBertModel").tensors}
    assert shapes["layers.0.mlp.Wi.weight"] == (2 * 1152, 768)
    assert shapes["layers.0.mlp.Wo.weight"] == (768, 1152)
    assert shapes["layers.0.attn.Wqkv.weight"] == (3 * 768, 768)


def test_bias_flags():
    base = _preset("answerdotai/ModernBERT-base", "ModernBertModel")
    h, i, n = 768, 1152, 22
    norms = 1 + n + (n - 1) + 1  # embeddings.norm, mlp_norm × L, attn_norm × (L − 1), final_norm
    assert _preset("answerdotai/ModernBERT-base", "ModernBertModel", norm_bias=True).total - base.total == norms * h
    assert _preset("answerdotai/ModernBERT-base", "ModernBertModel", attention_bias=True).total - base.total == n * 4 * h
    assert _preset("answerdotai/ModernBERT-base", "ModernBertModel", mlp_bias=True).total - base.total == n * (2 * i + h)
    mlm = _preset("answerdotai/ModernBERT-base", "ModernBertForMaskedLM")
    assert mlm.total - _preset("answerdotai/ModernBERT-base", "ModernBertForMaskedLM", decoder_bias=False).total == 50_368
    assert _preset("answerdotai/ModernBERT-base", "ModernBertForMaskedLM", classifier_bias=True).total - mlm.total == h


def test_small_configs_measured_from_transformers():
    """Totals of small configs measured with transformers 5.23 (notes §3.3)."""
    raw = {"model_type": "modernbert", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2,
           "num_attention_heads": 2, "intermediate_size": 24, "pad_token_id": 0}
    for arch, total in (("ModernBertModel", 6032), ("ModernBertForMaskedLM", 6404),
                        ("ModernBertForSequenceClassification", 6338), ("ModernBertForTokenClassification", 6338),
                        ("ModernBertForQuestionAnswering", 6338), ("ModernBertForMultipleChoice", 6321)):
        assert build(raw, arch).total == total, arch
    assert views.num_parameters(build(raw), exclude_embeddings=True) == 4432
    assert build(raw, "ModernBertForMaskedLM").state_dict_total == 8004
    biased = dict(raw, norm_bias=True, attention_bias=True, mlp_bias=True, classifier_bias=True, decoder_bias=False,
                  tie_word_embeddings=False)
    for arch, total in (("ModernBertModel", 6368), ("ModernBertForMaskedLM", 8272),
                        ("ModernBertForSequenceClassification", 6706), ("ModernBertForMultipleChoice", 6689)):
        assert build(biased, arch).total == total, arch


def test_question_answering_head_is_named_classifier():
    inv = _preset("answerdotai/ModernBERT-base", "ModernBertForQuestionAnswering")
    assert [t.name for t in inv.tensors if t.group == "head"] == [
        "head.dense.weight", "head.norm.weight", "classifier.weight", "classifier.bias",
    ]


def test_refusals():
    # HF's default pad_token_id (50283) must be a row of the table
    expect_error("padding_idx", build, {"model_type": "modernbert", "vocab_size": 1000})
    assert build({"model_type": "modernbert", "vocab_size": 1000, "pad_token_id": 0}).total > 0
    assert build({"model_type": "modernbert", "vocab_size": 1000, "pad_token_id": None}).total > 0
    expect_error("bad_value", build, {"model_type": "modernbert", "classifier_pooling": "max"})
    expect_error("heads_not_divisor", build, {"model_type": "modernbert", "num_attention_heads": 7})
    expect_error("zero", build, {"model_type": "modernbert", "num_hidden_layers": 0})


def test_layer_kinds_change_nothing_but_must_be_readable():
    base = _preset("answerdotai/ModernBERT-base", "ModernBertModel")
    kinds = ["full_attention" if i % 2 else "sliding_attention" for i in range(22)]
    assert _preset("answerdotai/ModernBERT-base", "ModernBertModel", layer_types=kinds).total == base.total
    assert _preset("answerdotai/ModernBERT-base", "ModernBertModel", global_attn_every_n_layers=1).total == base.total
    # ModernBertConfig computes i % global_attn_every_n_layers, and checks one kind per layer
    expect_error("bad_value", build, dict(PRESETS["answerdotai/ModernBERT-base"].config, global_attn_every_n_layers=0))
    expect_error("bad_value", build, dict(PRESETS["answerdotai/ModernBERT-base"].config, layer_types=kinds[:21]))
    expect_error("bad_value", build, dict(PRESETS["answerdotai/ModernBERT-base"].config,
                                          layer_types=kinds[:21] + ["linear_attention"]))
    # with the kinds given, the period is never used
    assert _preset("answerdotai/ModernBERT-base", "ModernBertModel", layer_types=kinds,
                   global_attn_every_n_layers=0).total == base.total


def test_one_wide_heads_are_costed_two_wide():
    """Head size 1: one rotary frequency, doubled, broadcasts Q and K to two columns (V keeps one), as PyTorch
    runs it (tests/crosscheck/test_costs_reference.py::test_head_size_1_runs_wider_than_its_heads). H = A = 2,
    I = 4, one layer, B = 1, L = 3: Wqkv 2·3·2·6, Wo 2·3·2·2, Wi 2·3·2·8, the MLP's Wo 2·3·4·2, Q·Kᵀ over two
    columns 2·2·3·2·3, P·V over one 2·2·3·3·1; the backward twice each (both factors need a gradient)."""
    from calculator import costs

    inv = build({"model_type": "modernbert", "vocab_size": 20, "pad_token_id": 0, "hidden_size": 2,
                 "num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": 4}, "ModernBertModel")
    forward = 2 * 3 * 2 * 6 + 2 * 3 * 2 * 2 + 2 * 3 * 2 * 8 + 2 * 3 * 4 * 2 + 2 * 2 * 3 * 2 * 3 + 2 * 2 * 3 * 3 * 1
    for attention in ("eager", "sdpa"):  # SDPA: the math path (heads of two sizes), the same two products
        step = costs.compute(inv, costs.settings(1, 3, attention=attention))
        assert (step.forward, step.backward) == (forward, 2 * forward) == (348, 696)
