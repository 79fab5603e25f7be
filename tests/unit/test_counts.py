"""The reconciliation (calculator/counts.py) against arithmetic written out by hand.

Standard library only: these also run inside Pyodide. The real libraries'
numbers for every preset and random configs are in
tests/crosscheck/test_counts_reference.py.
"""
from __future__ import annotations

from calculator.build import build
from calculator.counts import HUB_FILES, Count, counts_json, hub_count, reconcile, saved_names, torchinfo_total
from calculator.presets import PRESETS

from .helpers import keras

#: bert-base-uncased: V = 30522, P = 512, T = 2, H = 768.
V, P, T, H = 30522, 512, 2, 768
BERT_BASE = 109_482_240  # BertModel with its pooler, the figure everyone quotes


def by_key(inv) -> dict[str, Count]:
    return {c.key: c for c in reconcile(inv)}


def test_bert_base_every_tool_agrees_but_exclude_embeddings():
    counts = by_key(build(PRESETS["bert-base-uncased"].config))
    assert list(counts) == [
        "parameters", "num_parameters", "num_parameters_exclude_embeddings", "state_dict", "save_pretrained",
        "torchinfo",
    ]
    for key in ("parameters", "num_parameters", "state_dict", "save_pretrained", "torchinfo"):
        assert counts[key].value == BERT_BASE, key
        assert counts[key].added == counts[key].removed == (), key
    # The three nn.Embedding weights go; the embedding LayerNorm (2H) stays.
    excluded = counts["num_parameters_exclude_embeddings"]
    assert excluded.value == BERT_BASE - (V + P + T) * H == 85_646_592
    assert excluded.removed == (
        "embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
        "embeddings.token_type_embeddings.weight",
    )
    assert excluded.delta == -(V + P + T) * H


def test_masked_lm_tied_decoder():
    """BertForMaskedLM: decoder.weight is the word embedding, decoder.bias is cls.predictions.bias."""
    inv = build(PRESETS["bert-base-uncased"].config, "BertForMaskedLM")
    counts = by_key(inv)
    total = 109_514_298  # the pooler (H² + H) out, the MLM head (V bias, H² + H dense, 2H LayerNorm) in
    assert total == BERT_BASE - (H * H + H) + V + (H * H + H) + 2 * H
    assert counts["parameters"].value == total
    # state_dict lists both tied names again: V·H + V more
    assert counts["state_dict"].value == total + V * H + V == 132_985_716
    assert counts["state_dict"].added == ("cls.predictions.decoder.weight", "cls.predictions.decoder.bias")
    # torchinfo: the decoder (a leaf) and the word embedding (a leaf) both count V·H; the shared bias is a
    # Parameter of cls.predictions itself, whose own remainder absorbs it.
    assert counts["torchinfo"].value == total + V * H == 132_955_194
    assert counts["torchinfo"].added == ("cls.predictions.decoder.weight",)
    # save_pretrained writes each storage once, under the embedding's and the head bias' names
    assert counts["save_pretrained"].value == total
    names = saved_names(inv)
    assert "cls.predictions.decoder.weight" not in names and "cls.predictions.decoder.bias" not in names
    assert "bert.embeddings.word_embeddings.weight" in names and "cls.predictions.bias" in names
    assert len(names) == len(inv.tensors) - 2


def test_untied_decoder_is_counted_by_everyone():
    raw = dict(PRESETS["bert-base-uncased"].config, tie_word_embeddings=False)
    counts = by_key(build(raw, "BertForMaskedLM"))
    untied = 109_514_298 + V * H + V  # its own decoder weight and bias
    for key in ("parameters", "state_dict", "save_pretrained", "torchinfo"):
        assert counts[key].value == untied, key


def test_head_first_class_keeps_the_embedding_name_in_the_file():
    """XLM-R's task classes register the head first: the decoder is the tie's first name.

    num_parameters(exclude_embeddings=True) then keeps V·H (the Parameter is listed as the decoder, an
    nn.Linear), while save_pretrained still writes the embedding's name.
    """
    inv = build(dict(model_type="xlm-roberta", vocab_size=100, hidden_size=8, num_attention_heads=2,
                     intermediate_size=12, num_hidden_layers=1, max_position_embeddings=20), "XLMRobertaForMaskedLM")
    counts = by_key(inv)
    removed = counts["num_parameters_exclude_embeddings"].removed
    assert "roberta.embeddings.word_embeddings.weight" not in removed
    assert sorted(removed) == ["roberta.embeddings.position_embeddings.weight",
                               "roberta.embeddings.token_type_embeddings.weight"]
    # positions [20, 8] and token types [2, 8] (BERT's default type_vocab_size) go; the shared [100, 8] stays
    assert counts["num_parameters_exclude_embeddings"].value == inv.total - 20 * 8 - 2 * 8
    names = saved_names(inv)
    assert "roberta.embeddings.word_embeddings.weight" in names
    assert "lm_head.decoder.weight" not in names


def test_torchinfo_on_the_2018_transformer_with_both_sharing_flags():
    """One Parameter in three leaf modules (source and target embeddings, the output projection): counted 3 times."""
    c = dict(model_type="transformer", n_src_vocab=31, n_tgt_vocab=31, len_max_seq=9, d_word_vec=8, d_model=8,
             d_inner=12, n_layers=1, n_head=2, d_k=4, d_v=4,
             tgt_emb_prj_weight_sharing=True, emb_src_tgt_weight_sharing=True)
    inv = build(c)
    counts = by_key(inv)
    assert list(counts) == ["parameters", "state_dict", "torchinfo"]
    assert counts["torchinfo"].value == inv.total + 2 * 31 * 8
    assert counts["state_dict"].value == inv.total + 2 * 31 * 8
    assert torchinfo_total(inv)[0] == counts["torchinfo"].value


def test_keras_count_params_is_the_unique_total():
    """keras-bert as in the famous summary: Total params 109,705,010 (tests/crosscheck/reference/keras_bert.json)."""
    inv = keras({"token_num": 30000, "head_num": 12, "transformer_num": 12, "embed_dim": 768,
                 "feed_forward_dim": 3072, "seq_len": 500, "pos_num": 512, "dropout_rate": 0.05})
    (count,) = reconcile(inv)
    assert (count.key, count.value) == ("keras_count_params", 109_705_010)
    assert count.label("en") == "Keras: model.count_params()"


def test_every_count_names_its_tool_in_both_languages():
    for raw, arch in ((PRESETS["bert-base-uncased"].config, "BertForPreTraining"),
                      (dict(model_type="transformer"), None)):
        for c in reconcile(build(raw, arch)):
            assert c.labels["en"] and c.labels["zh"] and c.note["en"] and c.note["zh"]
            assert c.note["en"] != c.note["zh"]
            assert c.code
    data = counts_json(build(PRESETS["bert-base-uncased"].config, "BertForPreTraining"))
    assert [d["key"] for d in data][0] == "parameters"
    # BertForPreTraining, the class of bert-base-uncased's file on the Hub: BertModel + the MLM head
    # (V bias, H² + H transform, 2H LayerNorm; the decoder is tied) + next-sentence prediction (2H + 2)
    assert data[0]["value"] == BERT_BASE + V + H * H + H + 2 * H + 2 * H + 2 == 110_106_428
    assert all(set(d) >= {"key", "value", "delta", "code", "labels", "note", "added", "removed"} for d in data)


def test_hub_count_is_the_published_file_of_a_known_preset_only():
    # The file holds BertForPreTraining: BertModel + transform (H·H + H + 2H) + decoder bias V + NSP (2H + 2).
    base = build(PRESETS["bert-base-uncased"].config)
    hub = hub_count(base, "bert-base-uncased")
    assert hub is not None and hub.architecture == "BertForPreTraining"
    assert hub.value == BERT_BASE + (H * H + H + 2 * H) + V + (2 * H + 2) == 110_106_428
    assert hub.source.startswith("https://huggingface.co/")
    assert hub_count(base, None) is None
    assert hub_count(build({**PRESETS["bert-base-uncased"].config, "vocab_size": V + 1}), "bert-base-uncased") is None
    assert all(name in PRESETS for name in HUB_FILES)
