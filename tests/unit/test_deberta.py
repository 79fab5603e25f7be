"""DeBERTa (v1) and DeBERTa-v2 (the v3 and mDeBERTa checkpoints). Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below, or totals measured
from transformers 5.23 (research notes /work/notes/families.md §2, §4, §7.2:
models built on the meta device from the same configs). The tensor-by-tensor
comparison with transformers is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error

H, I = 768, 3072


def _preset(name, architecture=None, **changes):
    return build(dict(PRESETS[name].config, **changes), architecture)


def _bert_rest(h, i):
    """What a DeBERTa layer has in common with BERT's after Q, K, V: output dense, two LayerNorms, the FFN pair."""
    return (h * h + h) + 2 * h + (i * h + i) + (h * i + h) + 2 * h


# ------------------------------------------------------------------ DeBERTa-v3 / mDeBERTa-v3


def test_deberta_v3_base_is_98m_of_word_embeddings_plus_an_86m_backbone():
    """The card's "86M backbone + 98M embedding": the 98M is the 128,100 × 768 word table alone."""
    word = 128_100 * 768
    assert word == 98_380_800
    layer = 3 * (H * H + H) + _bert_rest(H, I)  # query/key/value_proj with biases; share_att_key: no position projections
    rel = 2 * 256 * H  # position_buckets 256 → 512 rows
    total = word + 2 * H + 12 * layer + rel + 2 * H  # embeddings LayerNorm, layers, rel_embeddings, encoder.LayerNorm
    assert total == 183_831_552  # DebertaV2Model as transformers 5.23 builds it (notes §7.2)
    inv = _preset("microsoft/deberta-v3-base")
    assert inv.architecture == "DebertaV2Model"
    assert inv.total == total
    # num_parameters(exclude_embeddings=True) leaves out every nn.Embedding: the word table and rel_embeddings
    assert views.num_parameters(inv, exclude_embeddings=True) == total - word - rel == 85_057_536
    # the card's split: the word table, and everything else (85.45M; the card writes 86M)
    assert total - word == 85_450_752
    emb, rest = views.embedding_split(inv)
    assert emb == word + 2 * H  # the embeddings section keeps its LayerNorm


def test_deberta_v3_published_sizes():
    assert _preset("microsoft/deberta-v3-large").total == 434_012_160
    mdeberta = _preset("microsoft/mdeberta-v3-base")
    assert mdeberta.total == 278_218_752
    # only the vocabulary differs from deberta-v3-base: 251,000 rows instead of 128,100
    assert mdeberta.total - _preset("microsoft/deberta-v3-base").total == (251_000 - 128_100) * 768
    assert views.num_parameters(mdeberta, exclude_embeddings=True) == 85_057_536


def test_deberta_v3_tensors_by_name():
    inv = _preset("microsoft/deberta-v3-base")
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["embeddings.word_embeddings.weight"] == (128_100, 768)
    assert "embeddings.position_embeddings.weight" not in shapes  # position_biased_input false
    assert "embeddings.token_type_embeddings.weight" not in shapes  # type_vocab_size 0: no table
    assert shapes["encoder.rel_embeddings.weight"] == (512, 768)
    assert shapes["encoder.LayerNorm.weight"] == (768,)  # norm_rel_ebd "layer_norm"
    assert not any("pos_key_proj" in n or "pos_query_proj" in n for n in shapes)  # share_att_key
    rel = [t for t in inv.tensors if t.name == "encoder.rel_embeddings.weight"][0]
    assert rel.group == "relative_position" and rel.section == "encoder" and rel.embedding


def test_share_att_key_false_adds_two_position_projections_per_layer():
    shared = _preset("microsoft/deberta-v3-base")
    own = _preset("microsoft/deberta-v3-base", share_att_key=False)
    assert own.total - shared.total == 12 * 2 * (H * H + H) == 14_174_208
    names = [t.name for t in own.tensors if ".layer.0.attention.self." in t.name]
    assert names[-4:] == [
        "encoder.layer.0.attention.self.pos_key_proj.weight", "encoder.layer.0.attention.self.pos_key_proj.bias",
        "encoder.layer.0.attention.self.pos_query_proj.weight", "encoder.layer.0.attention.self.pos_query_proj.bias",
    ]
    # only the terms asked for: c2p alone keeps pos_key_proj
    only_c2p = _preset("microsoft/deberta-v3-base", share_att_key=False, pos_att_type=["c2p"])
    assert only_c2p.total - shared.total == 12 * (H * H + H)


def test_pos_att_type_as_a_list_or_a_bar_string_and_unknown_names_ignored():
    base = dict(PRESETS["microsoft/deberta-v3-base"].config, share_att_key=False)
    a = build(dict(base, pos_att_type="p2c|c2p"))
    b = build(dict(base, pos_att_type=["c2p", "p2c"]))
    c = build(dict(base, pos_att_type=" C2P | p2c |p2p"))
    assert a.total == b.total == c.total
    none = build(dict(base, pos_att_type="p2p"))
    assert a.total - none.total == 12 * 2 * (H * H + H)
    # transformers normalises only the string form: list entries must be spelled exactly
    assert build(dict(base, pos_att_type=["C2P", "p2c "])).total == none.total
    assert build(dict(base, pos_att_type=["C2P", "p2c"])).total == none.total + 12 * (H * H + H)


def test_norm_rel_ebd_is_a_bar_string():
    base = dict(PRESETS["microsoft/deberta-v3-base"].config)
    assert build(dict(base, norm_rel_ebd="LAYER_NORM|other")).total == 183_831_552
    assert build(dict(base, norm_rel_ebd="none")).total == 183_831_552 - 2 * H
    expect_error("bad_value", build, dict(base, norm_rel_ebd=["layer_norm"]))  # .lower() of a list fails in HF


def test_position_buckets_or_max_relative_positions_size_rel_embeddings():
    def rows(**changes):
        inv = _preset("microsoft/deberta-v3-base", **changes)
        return {t.name: t.shape for t in inv.tensors}["encoder.rel_embeddings.weight"][0]

    assert rows() == 512
    assert rows(position_buckets=-1) == 2 * 512  # no buckets: 2 × max_relative_positions, which is -1 → P
    assert rows(position_buckets=0) == 2 * 512
    assert rows(position_buckets=-1, max_relative_positions=128) == 256
    assert rows(position_buckets=-1, max_position_embeddings=1024) == 2048


def test_position_biased_input_and_token_types_add_tables_of_width_e():
    base = _preset("microsoft/deberta-v3-base")
    assert _preset("microsoft/deberta-v3-base", position_biased_input=True).total - base.total == 512 * 768
    assert _preset("microsoft/deberta-v3-base", type_vocab_size=2).total - base.total == 2 * 768
    # no relative attention: no rel_embeddings (the encoder LayerNorm stays: norm_rel_ebd alone decides it)
    off = _preset("microsoft/deberta-v3-base", relative_attention=False)
    assert base.total - off.total == 512 * 768
    assert "encoder.LayerNorm.weight" in {t.name for t in off.tensors}


def test_small_configs_measured_from_transformers():
    """Totals of small configs measured with transformers 5.23 (notes §2.3)."""
    v3_like = {
        "model_type": "deberta-v2", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2,
        "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 20, "type_vocab_size": 0,
        "relative_attention": True, "pos_att_type": "p2c|c2p", "position_buckets": 8, "norm_rel_ebd": "layer_norm",
        "share_att_key": True, "position_biased_input": False,
    }
    expected = {
        "DebertaV2Model": 6368, "DebertaV2ForMaskedLM": 6772, "DebertaV2ForSequenceClassification": 6674,
        "DebertaV2ForMultipleChoice": 6657, "DebertaV2ForTokenClassification": 6402,
        "DebertaV2ForQuestionAnswering": 6402,
    }
    for arch, total in expected.items():
        assert build(v3_like, arch).total == total, arch
    assert views.num_parameters(build(v3_like), exclude_embeddings=True) == 4512
    xlarge_like = {
        "model_type": "deberta-v2", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2,
        "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 20, "type_vocab_size": 2,
        "embedding_size": 8, "pooler_hidden_size": 12, "conv_kernel_size": 3, "relative_attention": True,
        "pos_att_type": ["p2c", "c2p"], "max_relative_positions": -1,
    }
    for arch, total, excluded in (
        ("DebertaV2Model", 8128, 6512), ("DebertaV2ForMaskedLM", 8380, 6764),
        ("DebertaV2ForSequenceClassification", 8318, 6702), ("DebertaV2ForMultipleChoice", 8301, 6685),
        ("DebertaV2ForQuestionAnswering", 8162, 6546),
    ):
        inv = build(xlarge_like, arch)
        assert (inv.total, views.num_parameters(inv, exclude_embeddings=True)) == (total, excluded), arch
    shapes = {t.name: t.shape for t in build(xlarge_like).tensors}
    assert shapes["encoder.conv.conv.weight"] == (16, 16, 3)
    assert shapes["embeddings.embed_proj.weight"] == (16, 8)
    assert build(dict(xlarge_like, conv_groups=4)).total == 8128 - 16 * 16 * 3 + 16 * 4 * 3
    defaults = {"model_type": "deberta-v2", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2,
                "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 20, "legacy": False}
    assert build(defaults).total == 6400
    assert build(defaults, "DebertaV2ForMaskedLM").total == 6804


def test_legacy_mlm_head_is_tied_and_the_new_one_has_no_decoder():
    legacy = _preset("microsoft/deberta-v3-base", "DebertaV2ForMaskedLM")
    ties = {t.name: t.tied_to for t in legacy.tensors if t.tied_to}
    assert ties == {
        "cls.predictions.decoder.weight": "deberta.embeddings.word_embeddings.weight",
        "cls.predictions.decoder.bias": "cls.predictions.bias",
    }
    # bias [V] + transform dense [H, H] + bias + LayerNorm 2H
    assert legacy.total - 183_831_552 == 128_100 + H * H + H + 2 * H == 720_228
    assert legacy.state_dict_total == legacy.total + 128_100 * 768 + 128_100
    new = _preset("microsoft/deberta-v3-base", "DebertaV2ForMaskedLM", legacy=False)
    assert not any(t.tied_to for t in new.tensors)
    assert new.total == legacy.total and "lm_predictions.lm_head.dense.weight" in {t.name for t in new.tensors}
    untied = _preset("microsoft/deberta-v3-base", "DebertaV2ForMaskedLM", tie_word_embeddings=False)
    assert untied.total - legacy.total == 128_100 * 768 + 128_100  # its own decoder weight and bias


def test_context_pooler_width_and_classifier_from_h():
    inv = _preset("microsoft/deberta-v3-base", "DebertaV2ForSequenceClassification", pooler_hidden_size=1024,
                  id2label={"0": "a", "1": "b", "2": "c"})
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["pooler.dense.weight"] == (1024, 1024)
    assert shapes["classifier.weight"] == (3, 768)  # ContextPooler.output_dim is hidden_size
    assert inv.total - 183_831_552 == 1024 * 1024 + 1024 + 3 * 768 + 3


def test_attention_head_size_widens_q_k_v():
    inv = _preset("microsoft/deberta-v3-base", attention_head_size=32, share_att_key=False)
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["encoder.layer.0.attention.self.query_proj.weight"] == (12 * 32, 768)
    assert shapes["encoder.layer.0.attention.self.pos_query_proj.weight"] == (12 * 32, 768)
    assert shapes["encoder.layer.0.attention.output.dense.weight"] == (768, 768)


def test_deberta_v2_refusals():
    base = dict(PRESETS["microsoft/deberta-v3-base"].config)
    expect_error("heads_not_divisor", build, dict(base, num_attention_heads=7))
    expect_error("heads_not_divisor", build, dict(base, conv_kernel_size=3, conv_groups=5))
    expect_error("zero", build, dict(base, conv_kernel_size=3, conv_groups=0))
    assert build(dict(base, conv_groups=5)).total == 183_831_552  # no convolution: the groups are never read
    expect_error("padding_idx", build, dict(base, vocab_size=10, pad_token_id=10))


# ------------------------------------------------------------------ DeBERTa v1


def test_deberta_base():
    word = 50_265 * 768
    # q_bias, v_bias and the fused in_proj [3H, H] without bias; pos_proj [H, H] (c2p) without bias,
    # pos_q_proj [H, H] (p2c) with bias; then BERT's rest
    layer = 2 * H + 3 * H * H + H * H + (H * H + H) + _bert_rest(H, I)
    rel = 2 * 512 * H  # max_relative_positions -1 → max_position_embeddings
    total = word + 2 * H + 12 * layer + rel
    assert total == 138_601_728  # DebertaModel (notes §7.2)
    inv = _preset("microsoft/deberta-base")
    assert inv.architecture == "DebertaModel" and inv.total == total
    assert views.num_parameters(inv, exclude_embeddings=True) == total - word - rel == 99_211_776
    names = [t.name for t in inv.tensors if ".layer.0.attention.self." in t.name]
    assert names == [
        "encoder.layer.0.attention.self." + n
        for n in ("q_bias", "v_bias", "in_proj.weight", "pos_proj.weight", "pos_q_proj.weight", "pos_q_proj.bias")
    ]


def test_deberta_v1_small_configs_measured_from_transformers():
    raw = {
        "model_type": "deberta", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2,
        "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 20, "relative_attention": True,
        "pos_att_type": "c2p|p2c", "max_relative_positions": -1, "position_biased_input": False, "type_vocab_size": 0,
    }
    expected = {
        "DebertaModel": 7744, "DebertaForMaskedLM": 8148, "DebertaForSequenceClassification": 8050,
        "DebertaForTokenClassification": 7778, "DebertaForQuestionAnswering": 7778,
    }
    for arch, total in expected.items():
        assert build(raw, arch).total == total, arch
    assert views.num_parameters(build(raw), exclude_embeddings=True) == 7744 - 1600 - 640
    # talking heads: two heads × heads mixers per layer, no bias
    assert build(dict(raw, talking_head=True)).total == 7744 + 2 * 2 * (2 * 2)


def test_deberta_v1_ignores_the_v2_keys_and_has_no_multiple_choice():
    base = _preset("microsoft/deberta-base")
    same = _preset("microsoft/deberta-base", share_att_key=True, position_buckets=4, norm_rel_ebd="layer_norm",
                   conv_kernel_size=3)
    assert same.total == base.total
    expect_error("unknown_architecture", build, PRESETS["microsoft/deberta-base"].config, "DebertaForMultipleChoice")


def test_formula_names_the_relative_position_terms():
    for name, arch in (("microsoft/deberta-base", None), ("microsoft/deberta-v3-base", "DebertaV2ForMaskedLM"),
                       ("microsoft/deberta-v3-base", "DebertaV2ForSequenceClassification")):
        inv = _preset(name, arch)
        f = views.formula(inv)
        assert f.total == inv.total
        keys = [line.key for line in f.lines]
        assert "relative_embeddings" in keys
        for lang in ("en", "zh"):
            assert views.formula_label(inv, "relative_embeddings", lang)
    v1 = {line.key: line for line in views.formula(_preset("microsoft/deberta-base")).lines}
    assert v1["relative_embeddings"].value == 2 * 512 * 768
    assert v1["relative_projections"].value == 12 * (2 * H * H + H) and not v1["relative_projections"].counted
