"""XLM and FlauBERT (the same tensors under two names). Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor comparison with transformers 5.23
is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error

SMALL = {"model_type": "xlm", "vocab_size": 20, "emb_dim": 8, "n_layers": 2, "n_heads": 2, "max_position_embeddings": 6}


def test_xlm_mlm_en_2048_by_hand():
    d, vocab, positions, layers = 2048, 30145, 512, 12
    embeddings = (positions + vocab) * d + 2 * d  # positions, tokens (one language: no language table), LayerNorm
    attention = 4 * (d * d + d)  # q_lin, k_lin, v_lin, out_lin with biases
    feed_forward = (d * 4 * d + 4 * d) + (4 * d * d + d)  # lin1 D → 4D, lin2 4D → D
    norms = 2 * 2 * d
    per_layer = attention + feed_forward + norms
    assert per_layer == 12 * d * d + 13 * d == 50_358_272
    total = embeddings + layers * per_layer
    assert total == 667_088_896
    inv = build(PRESETS["FacebookAI/xlm-mlm-en-2048"].config)
    assert inv.architecture == "XLMModel" and inv.total == total and views.formula(inv).total == total
    # The published class adds the vocabulary projection's bias; its weight is the token table.
    lm = build(PRESETS["FacebookAI/xlm-mlm-en-2048"].config, "XLMWithLMHeadModel")
    assert lm.total == total + vocab
    assert lm.state_dict_total == total + vocab + vocab * d


def test_language_table_only_with_several_languages_and_use_lang_emb():
    base = build(SMALL).total
    assert build(dict(SMALL, n_langs=3)).total == base + 3 * 8
    assert build(dict(SMALL, n_langs=3, use_lang_emb=False)).total == base
    names = [t.name for t in build(dict(SMALL, n_langs=3)).tensors]
    assert names[:3] == ["position_embeddings.weight", "lang_embeddings.weight", "embeddings.weight"]
    # sinusoidal_embeddings fills the position table: still a parameter.
    assert build(dict(SMALL, sinusoidal_embeddings=True)).total == base


def test_layers_are_listed_module_list_by_module_list():
    names = [t.name for t in build(SMALL).tensors if t.name.endswith(".weight")]
    order = [n.split(".")[0] + "." + n.split(".")[1] for n in names[3:]]
    firsts = []
    for item in order:
        if item not in firsts:
            firsts.append(item)
    assert firsts == ["attentions.0", "attentions.1", "layer_norm1.0", "layer_norm1.1", "ffns.0", "ffns.1",
                      "layer_norm2.0", "layer_norm2.1"]


def test_adaptive_softmax_head():
    """asm: head [cutoffs[0] + clusters, D] with a bias; per cluster D → D // div^(i+1) → cluster size, no biases."""
    raw = dict(SMALL, asm=True, asm_cutoffs=[5, 10], asm_div_value=2.0)
    base = build(raw).total  # asm changes nothing outside the LM head class
    head = (5 + 2) * 8 + (5 + 2)  # 2 clusters: [10 - 5, 20 - 10] rows
    tails = (8 * 4 + 4 * 5) + (8 * 2 + 2 * 10)  # 8 // 2 = 4, 8 // 4 = 2
    inv = build(raw, "XLMWithLMHeadModel")
    assert inv.total == base + head + tails == base + 63 + 88
    tied = [t for t in inv.tensors if t.name == "pred_layer.proj.weight"][0]
    assert tied.tied_to == "transformer.embeddings.weight"  # the tie adds the table to the module, counted once
    expect_error("bad_value", build, dict(SMALL, asm=True), "XLMWithLMHeadModel")  # transformers needs cutoffs
    expect_error("bad_value", build, dict(raw, asm_cutoffs=[10, 5]), "XLMWithLMHeadModel")
    expect_error("bad_value", build, dict(raw, asm_cutoffs=[5, 25]), "XLMWithLMHeadModel")


def test_heads():
    base = build(SMALL).total
    assert build(dict(SMALL, num_labels=3), "XLMForSequenceClassification").total == base + 3 * 8 + 3
    assert build(dict(SMALL, num_labels=3, summary_proj_to_labels=False),
                 "XLMForSequenceClassification").total == base + 8 * 8 + 8
    assert build(dict(SMALL, num_labels=3, summary_use_proj=False), "XLMForSequenceClassification").total == base
    assert build(dict(SMALL, num_labels=3), "XLMForMultipleChoice").total == base + (3 * 8 + 3) + (3 + 1)
    squad = (8 + 1) + (16 * 8 + 8) + 2 * 8 + (8 + 1) + (16 * 8 + 8) + 8  # start; end: dense_0, LN, dense_1; answer
    assert build(SMALL, "XLMForQuestionAnswering").total == base + squad


def test_flaubert_is_xlm_under_its_own_names():
    """flaubert_base_cased: its model card says 138 M."""
    d, vocab, layers = 768, 68729, 12
    total = (512 + vocab) * d + 2 * d + layers * (12 * d * d + 13 * d)
    inv = build(PRESETS["flaubert/flaubert_base_cased"].config)
    assert inv.architecture == "FlaubertModel" and inv.total == total == 138_233_088
    same = build(dict(PRESETS["flaubert/flaubert_base_cased"].config, model_type="xlm"))
    assert [(t.name, t.shape) for t in same.tensors] == [(t.name, t.shape) for t in inv.tensors]
    assert build(dict(PRESETS["flaubert/flaubert_base_cased"].config, pre_norm=True)).total == total
    lm = build(PRESETS["flaubert/flaubert_base_cased"].config, "FlaubertWithLMHeadModel")
    assert lm.total == total + vocab and lm.arch.prefix == "transformer."


def test_generic_names_are_read_as_xlms_own():
    generic = {"model_type": "xlm", "n_words": 20, "hidden_size": 8, "num_hidden_layers": 2,
               "num_attention_heads": 2, "max_position_embeddings": 6}
    assert build(generic).total == build(SMALL).total
    expect_error("heads_not_divisor", build, dict(SMALL, n_heads=3))


def test_training_step_refusals_are_the_steps_transformers_cannot_run():
    """The step is worked out for the base model, the LM head, token classification and the simple QA head;
    it refuses what transformers' own forward fails on (asm's log_prob on [B, L, D]; FlauBERT's pre_norm, which
    indexes its cache) and a layerdrop, which skips layers at random."""
    from calculator import costs

    s = costs.settings(2, 4)
    assert costs.compute(build(SMALL, "XLMWithLMHeadModel"), s).forward > 0
    asm = dict(SMALL, asm=True, asm_cutoffs=[5, 10], asm_div_value=2.0)
    exc = expect_error("costs_forward_fails", costs.compute, build(asm, "XLMWithLMHeadModel"), s)
    assert "asm" in exc.message("en")
    expect_error("costs_architecture", costs.compute, build(SMALL, "XLMForQuestionAnswering"), s)
    flaubert = dict(SMALL, model_type="flaubert")
    assert costs.compute(build(flaubert), s).forward == costs.compute(build(SMALL), s).forward
    expect_error("costs_forward_fails", costs.compute, build(dict(flaubert, pre_norm=True)), s)
    expect_error("costs_step_value", costs.compute, build(dict(flaubert, layerdrop=0.2)), s)
