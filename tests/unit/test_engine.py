"""Engine facts and error handling. Standard library only: this file also runs inside Pyodide.

Expected numbers are the issue's facts (counted by transformers from configs)
or written-out arithmetic, never values produced by the code under test.
"""
from calculator.build import build
from calculator.errors import MESSAGES, CalcError
from calculator.presets import PRESETS

from .helpers import expect_error

BASE = PRESETS["bert-base-uncased"].config
LARGE = PRESETS["bert-large-uncased"].config


def test_bert_base_totals_from_transformers():
    assert build(BASE).total == 109_482_240
    assert build(BASE, pooler=False).total == 108_891_648
    assert build(LARGE).total == 335_141_888


def test_masked_lm_counts_tied_decoder_once():
    inv = build(BASE, "BertForMaskedLM")
    assert inv.total == 109_514_298
    assert inv.state_dict_total == 132_985_716
    tied = {t.name: t.tied_to for t in inv.tensors if t.tied_to}
    assert tied == {
        "cls.predictions.decoder.weight": "bert.embeddings.word_embeddings.weight",
        "cls.predictions.decoder.bias": "cls.predictions.bias",
    }


def test_one_bert_base_layer_by_hand():
    # 4H²+4H (Q, K, V, output) + 2HI+I+H (feed-forward) + 4H (two LayerNorms), H=768, I=3072
    h, i = 768, 3072
    by_hand = 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h
    assert by_hand == 7_087_872
    layer0 = sum(t.count for t in build(BASE).tensors if t.layer == 0)
    assert layer0 == by_hand


def test_tensor_names_in_state_dict_order():
    names = [t.name for t in build(BASE).tensors]
    assert names[:5] == [
        "embeddings.word_embeddings.weight",
        "embeddings.position_embeddings.weight",
        "embeddings.token_type_embeddings.weight",
        "embeddings.LayerNorm.weight",
        "embeddings.LayerNorm.bias",
    ]
    assert names[5] == "encoder.layer.0.attention.self.query.weight"
    assert names[-2:] == ["pooler.dense.weight", "pooler.dense.bias"]
    assert len(names) == 5 + 12 * 16 + 2


def test_zero_layers_is_allowed():
    inv = build({"num_hidden_layers": 0})
    # embeddings (30522+512+2)·768 + 2·768, pooler 768²+768
    assert inv.total == (30522 + 512 + 2) * 768 + 2 * 768 + 768 * 768 + 768


def test_unknown_keys_ignored_missing_keys_default():
    assert build({"model_type": "bert", "foo": [1, 2], "hidden_act": "gelu"}).total == 109_482_240


def test_architectures_list_is_honoured_and_overridable():
    raw = dict(BASE, architectures=["BertForMaskedLM"])
    assert build(raw).architecture == "BertForMaskedLM"
    assert build(raw, "BertModel").architecture == "BertModel"


def test_num_labels_from_id2label():
    raw = dict(BASE, id2label={"0": "a", "1": "b", "2": "c"})
    head = [t for t in build(raw, "BertForSequenceClassification").tensors if t.group == "head"]
    assert [t.shape for t in head] == [(3, 768), (3,)]


def test_untied_decoder_counts_twice():
    inv = build(dict(BASE, tie_word_embeddings=False), "BertForMaskedLM")
    assert inv.total == inv.state_dict_total == 109_514_298 + 30522 * 768 + 30522


def test_error_codes():
    expect_error("heads_not_divisor", build, dict(BASE, hidden_size=770))
    expect_error("not_integer", build, dict(BASE, hidden_size=768.5))
    expect_error("not_integer", build, dict(BASE, hidden_size="abc"))
    expect_error("not_integer", build, dict(BASE, hidden_size=True))
    expect_error("not_integer", build, dict(BASE, num_hidden_layers=None) | {"num_hidden_layers": [12]})
    expect_error("negative", build, dict(BASE, num_hidden_layers=-1))
    expect_error("zero", build, dict(BASE, hidden_size=0))
    expect_error("zero", build, dict(BASE, num_attention_heads=0))
    expect_error("too_large", build, dict(BASE, vocab_size=10**9))
    expect_error("too_large", build, dict(BASE, num_hidden_layers=100_000))
    expect_error("total_too_large", build, dict(BASE, hidden_size=9_999_999, num_attention_heads=1))
    expect_error("unknown_model_type", build, {"model_type": "gpt2"})
    expect_error("unknown_model_type", build, {"model_type": 7})
    expect_error("unknown_architecture", build, BASE, "BertForEverything")
    expect_error("not_boolean", build, dict(BASE, tie_word_embeddings="maybe"))
    no_pooler = expect_error("pooler_fixed", build, BASE, "BertForMaskedLM", True)
    assert no_pooler.message("en").startswith("BertForMaskedLM has no pooler, ")
    assert no_pooler.message("zh").startswith("BertForMaskedLM 不含池化层，")
    pooler = expect_error("pooler_fixed", build, BASE, "BertForSequenceClassification", False)
    assert pooler.message("en").startswith("BertForSequenceClassification always has a pooler, ")
    assert pooler.message("zh").startswith("BertForSequenceClassification 始终包含池化层，")
    expect_error("not_an_object", build, [1, 2])
    expect_error("padding_idx", build, {"model_type": "roberta", "max_position_embeddings": 1})
    expect_error("labels_fixed", build, dict(PRESETS["distilbert-base-uncased"].config, num_labels=3),
                 "DistilBertForQuestionAnswering")


def test_query_strings_are_accepted():
    # the page and share links pass strings
    assert build({"hidden_size": "768", "num_hidden_layers": "12"}, pooler="0").total == 108_891_648


def test_every_error_message_has_both_languages():
    for code, texts in MESSAGES.items():
        assert set(texts) == {"en", "zh"}, code
        assert texts["en"] != texts["zh"]


def test_message_truncates_pasted_blobs():
    exc = expect_error("not_integer", build, dict(BASE, hidden_size="x" * 5000))
    assert len(exc.message("en")) < 200


def test_distilbert_has_no_token_types_or_pooler():
    inv = build(PRESETS["distilbert-base-uncased"].config)
    names = [t.name for t in inv.tensors]
    assert not any("token_type" in n or "pooler" in n for n in names)
    # (30522+512)·768 + 2·768 + 6·7,087,872
    assert inv.total == (30522 + 512) * 768 + 2 * 768 + 6 * 7_087_872


def test_albert_layers_share_parameters():
    c = PRESETS["albert-base-v2"].config
    twelve = build(c).total
    assert build(dict(c, num_hidden_layers=24)).total == twelve
    assert build(dict(c, num_hidden_groups=2)).total == twelve + 7_087_872


def test_electra_projection_only_when_widths_differ():
    small = build(PRESETS["google/electra-small-discriminator"].config)
    assert "embeddings_project.weight" in [t.name for t in small.tensors]
    base = build(PRESETS["google/electra-base-discriminator"].config)
    assert "embeddings_project.weight" not in [t.name for t in base.tensors]
    # ELECTRA-base's backbone is BERT-base's without the pooler
    assert base.total == 108_891_648


def test_keras_bert_prefix_trainable_reaches_build():
    inv = build({"model_type": "keras-bert", "trainable": ["MLM"]})
    # MLM-Dense 768²+768 + MLM-Norm 2·768 + MLM-Sim bias 30000 (token_num default)
    assert inv.trainable == (768 * 768 + 768) + 2 * 768 + 30000 == 622_128
    assert inv.total == 109_705_010


def test_messages_speak_json_not_python():
    exc = expect_error("not_integer", build, dict(BASE, hidden_size=True))
    assert "true" in exc.message("en") and "True" not in exc.message("en")
    exc = expect_error("not_an_object", build, [1])
    assert "an array" in exc.message("en") and "数组" in exc.message("zh") and "list" not in exc.message("zh")


def test_invalid_json_is_localized():
    from calculator.config import parse_json

    try:
        parse_json('{"a":')
    except CalcError as exc:
        assert exc.code == "invalid_json"
        assert "line 1" in exc.message("en") and "第 1 行" in exc.message("zh")
        assert "Expecting" not in exc.message("zh")
    else:
        raise AssertionError("malformed JSON accepted")


def test_form_strings_like_json_numbers():
    assert build(dict(BASE, hidden_size="768.0")).total == 109_482_240
    expect_error("too_large", build, dict(BASE, hidden_size="9" * 40))
    expect_error("not_integer", build, dict(BASE, hidden_size="7.5"))


def test_architectures_given_as_a_string():
    assert build(dict(BASE, architectures="BertForMaskedLM")).architecture == "BertForMaskedLM"


def test_full_width_digits_from_a_chinese_input_method_are_numbers():
    from calculator.config import coerce_int

    assert coerce_int("hidden_size", "７６８") == 768  # U+FF17 U+FF16 U+FF18
    assert coerce_int("hidden_size", "\uff17\uff16\uff18\uff0e\uff10") == 768
    assert build(dict(BASE, num_hidden_layers="１２")).total == 109_482_240
    expect_error("negative", build, dict(BASE, num_hidden_layers="－１"))
    expect_error("not_integer", build, dict(BASE, hidden_size="七六八"))  # Chinese numerals are not digits here
