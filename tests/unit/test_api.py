"""calculator.api, the page's entry point. Standard library only: this file also runs inside Pyodide."""
import json
import re
from collections.abc import Mapping

from calculator import api, views
from calculator.build import build
from calculator.errors import MESSAGES
from calculator.families import FAMILIES
from calculator.presets import PRESETS

BASE_TOTAL = 109_482_240
PAYLOAD = '"><img src=x onerror=alert(1)><script>alert(2)</script>'


def _ok(params, lang="en"):
    out = api.compute(params, lang)
    assert out["ok"], out
    return out


def _err(params, lang="en"):
    out = api.compute(params, lang)
    assert not out["ok"], out
    assert set(out["error"]) == {"code", "key", "field", "message"}
    return out["error"]


def test_default_state_is_bert_base_with_pooler():
    out = _ok(api.DEFAULT_PARAMS)
    assert out["total"] == BASE_TOTAL
    assert out["total_text"] == "109,482,240"
    assert out["short"] == "109.5M"
    assert out["preset"] == "bert-base-uncased"
    assert out["architecture"] == "BertModel" and out["pooler"] is True
    assert out["summary_html"].count("data-total=") == 1 and "data-total=" not in out["html"]
    assert f'data-total="{BASE_TOTAL}"' in out["summary_html"]
    assert "bert-base-uncased · BertModel · with pooler" in out["summary_html"]
    assert _ok(api.DEFAULT_PARAMS, "zh")["short"] == "1.09亿"


def test_query_uses_hugging_face_keys_and_round_trips():
    for name, preset in PRESETS.items():
        family = FAMILIES[preset.config["model_type"]]
        for arch in family.architectures:
            params = {"preset": name, "architecture": arch.name}
            if arch.labels_must_be:
                params["num_labels"] = str(arch.labels_must_be)
            out = _ok(params)
            q = out["query"]
            assert q["model_type"] == preset.config["model_type"]
            assert q["architecture"] == arch.name
            assert q["pooler"] in ("0", "1")
            for f in family.fields:
                assert f.key in q, (name, f.key)
            assert all(isinstance(v, str) for v in q.values())
            again = _ok(q)
            assert again["query"] == q and again["total"] == out["total"], (name, arch.name)
            raw = dict(preset.config)
            raw.update({k: v for k, v in params.items() if k == "num_labels"})
            assert out["total"] == build(raw, arch.name).total


def test_preset_is_kept_only_while_the_values_match():
    assert _ok({"preset": "bert-large-uncased"})["query"]["preset"] == "bert-large-uncased"
    changed = _ok({"preset": "bert-large-uncased", "num_hidden_layers": "6"})
    assert "preset" not in changed["query"] and changed["preset"] is None
    assert changed["query"]["hidden_size"] == "1024"  # the rest still comes from the preset
    # A different model_type drops the preset's values (its keys belong to another family).
    other = _ok({"preset": "bert-large-uncased", "model_type": "albert"})
    assert other["query"]["hidden_size"] == str(FAMILIES["albert"].fields[2].default)


def test_pooler_switch_and_fixed_poolers():
    assert _ok({"pooler": "0"})["total"] == BASE_TOTAL - (768 * 768 + 768)
    assert _ok({"pooler": "false"})["query"]["pooler"] == "0"
    assert _ok({"architecture": "BertForMaskedLM"})["query"]["pooler"] == "0"
    assert _ok({"architecture": "BertForMaskedLM", "pooler": "0"})["ok"]
    e = _err({"architecture": "BertForMaskedLM", "pooler": "1"})
    assert e["code"] == "pooler_fixed" and e["field"] == "pooler"


def test_each_error_names_the_field_it_belongs_to():
    cases = [
        ({"vocab_size": "abc"}, "not_integer", "vocab_size"),
        ({"vocab_size": ""}, "not_integer", "vocab_size"),
        ({"vocab_size": "-3"}, "negative", "vocab_size"),
        ({"hidden_size": "0"}, "zero", "hidden_size"),
        ({"intermediate_size": "10000001"}, "too_large", "intermediate_size"),
        ({"num_attention_heads": "7"}, "heads_not_divisor", "num_attention_heads"),
        ({"pooler": "maybe"}, "not_boolean", "pooler"),
        ({"tie_word_embeddings": "2"}, "not_boolean", "tie_word_embeddings"),
        ({"preset": "nope"}, "unknown_preset", "preset"),
        ({"model_type": "gpt2"}, "unknown_model_type", "model_type"),
        ({"architecture": "BertForNothing"}, "unknown_architecture", "architecture"),
        ({"model_type": "albert", "num_hidden_groups": "100", "inner_group_num": "100"}, "too_large",
         "num_hidden_groups"),
        ({"model_type": "distilbert", "n_heads": "5"}, "heads_not_divisor", "n_heads"),
        ({"vocab_size": "9999999", "hidden_size": "9999996"}, "total_too_large", None),
        ({"model_type": "transformer", "n_src_vocab": "10", "n_tgt_vocab": "20"}, "vocab_mismatch", "n_tgt_vocab"),
    ]
    if "labels_fixed" in MESSAGES:
        cases.append(({"model_type": "distilbert", "architecture": "DistilBertForQuestionAnswering",
                       "num_labels": "3"}, "labels_fixed", "num_labels"))
    if "padding_idx" in MESSAGES:
        cases.append(({"model_type": "roberta", "vocab_size": "1"}, "padding_idx", "vocab_size"))
    if api._HAS_ACTIVE:
        cases.append(({api.ACTIVE_KEY: "1.5"}, "bad_fraction", api.ACTIVE_KEY))
    for params, code, field in cases:
        e = _err(params)
        assert e["code"] == code, (params, e)
        assert e["field"] == field, (params, e)
        zh = _err(params, "zh")
        assert zh["code"] == code and re.search(r"[\u4e00-\u9fff]", zh["message"]), zh


def test_pasted_config():
    config = dict(PRESETS["roberta-base"].config)
    config.update({"architectures": ["RobertaForTokenClassification"], "id2label": {"0": "O", "1": "B", "2": "I"}})
    out = api.compute_config(json.dumps(config), "en")
    assert out["ok"] and out["architecture"] == "RobertaForTokenClassification"
    assert out["query"]["num_labels"] == "3"
    assert out["total"] == build(config).total
    for text, code in (("{", "invalid_json"), ("[]", "not_an_object"), ('{"model_type": 3}', "unknown_model_type"),
                       ('{"hidden_size": "big"}', "not_integer")):
        out = api.compute_config(text, "zh")
        assert not out["ok"] and out["error"]["code"] == code
        assert out["error"]["field"] == "config"  # shown beside the paste box, whatever the key
    assert api.compute_config(None, "en")["error"]["code"] == "invalid_json"


class _Exploding(Mapping):
    """A parameter mapping that fails the way a bug would: not with a CalcError."""

    def __getitem__(self, key):
        raise RuntimeError("boom")

    def __iter__(self):
        return iter(["model_type"])

    def __len__(self):
        return 1

    def get(self, key, default=None):
        raise RuntimeError("boom")


def test_a_bug_becomes_the_internal_code_never_an_exception():
    for lang in ("en", "zh"):
        out = api.compute(_Exploding(), lang)
        assert out["ok"] is False
        assert out["error"]["code"] == "internal"
        assert out["error"]["message"] == api.UI_LABELS["error_internal"][lang]
        assert "RuntimeError" in out["detail"]  # for the console, not for the page
    for request in ("not json", "[1, 2]", '{"params": 5}', "null"):
        answer = json.loads(api.compute_json(request, "en"))
        assert answer["ok"] is False and answer["error"]["code"] in ("internal", "not_an_object"), answer


def test_compute_json_is_the_same_answer_as_compute():
    params = {"preset": "albert-base-v2", "architecture": "AlbertForMaskedLM"}
    assert json.loads(api.compute_json(json.dumps({"params": params}), "zh")) == api.compute(params, "zh")
    config = json.dumps(PRESETS["bert-base-chinese"].config)
    assert json.loads(api.compute_json(json.dumps({"config": config}), "en")) == api.compute_config(config, "en")


def test_copies_are_the_module_views():
    out = _ok({"preset": "distilbert-base-uncased", "architecture": "DistilBertForMaskedLM"}, "zh")
    inv = build(PRESETS["distilbert-base-uncased"].config, "DistilBertForMaskedLM")
    assert out["markdown"] == views.markdown_table(inv, "zh")
    assert out["text"] == views.text_report(inv, "zh")
    assert out["html"] == api.render_result(inv, "zh", "distilbert-base-uncased", _active_of(out["query"], inv),
                                            tensor_rows=False)
    assert out["tensors_html"] == api.tensor_table(inv, "zh")
    assert 'data-rows="later"' in out["html"] and "<tr data-name" not in out["html"]
    full = api.compute({"preset": "distilbert-base-uncased", "architecture": "DistilBertForMaskedLM"}, "zh",
                       tensor_rows=True)["html"]
    assert full == out["html"].replace(
        "</summary></details>", "</summary><noscript>" + out["tensors_html"] + "</noscript></details>")
    assert out["announce"] == "distilbert-base-uncased：" + f"{inv.total:,} 个参数（{views.fmt_short(inv.total, 'zh')}）。"


def _active_of(query, inv):
    return api._active_of(query, inv)[1]


def test_result_markup_carries_the_numbers():
    out = _ok({"preset": "bert-base-uncased", "architecture": "BertForPreTraining"})
    html = out["html"] + out["tensors_html"]
    inv = build(PRESETS["bert-base-uncased"].config, "BertForPreTraining")
    assert len(re.findall(r'<tr data-name="', html)) == len(inv.tensors)
    for s in views.group_breakdown(inv):
        assert f'data-group="{s.key}" data-count="{s.count}"' in html
    for m in views.memory(inv):
        assert f'data-dtype="{m.dtype}" data-bytes="{m.bytes}"' in html
    assert html.count('data-tied="1"') == sum(1 for t in inv.tensors if t.tied_to)
    assert "<svg" in html and "NaN" not in html and "undefined" not in html
    assert out["summary_html"] == api.render_summary(inv, "en", "bert-base-uncased")


def test_user_text_never_reaches_markup():
    keys = set(api.STATE_KEYS) | {f.key for fam in FAMILIES.values() for f in fam.fields} | {"other"}
    for key in sorted(keys):
        for lang in ("en", "zh"):
            out = api.compute({key: PAYLOAD}, lang)
            if out["ok"]:
                for part in ("html", "summary_html", "tensors_html"):
                    assert "<img" not in out[part] and "<script>alert" not in out[part], key
                assert PAYLOAD not in json.dumps(out["query"]), key
            else:
                assert set(out) >= {"ok", "error"} and "html" not in out, key
    out = api.compute_config(json.dumps({"model_type": "bert", PAYLOAD: PAYLOAD}), "en")
    assert out["ok"] and "<img" not in out["html"]


def test_widget_holds_form_result_and_schema():
    for lang in ("en", "zh"):
        html = api.render_widget(lang)
        assert html.count(f'data-total="{BASE_TOTAL}"') == 1
        assert html.count("<tr data-name=") == len(build(PRESETS["bert-base-uncased"].config).tensors)
        assert f'data-lang="{lang}"' in html and 'id="calc-root"' in html
        m = re.search(r'<script type="application/json" id="calc-schema">(.*?)</script>', html, re.S)
        assert m and "<" not in m.group(1)
        schema = json.loads(m.group(1))
        assert schema["lang"] == lang
        assert schema["default"] == api.compute(api.DEFAULT_PARAMS, lang)["query"]
        assert set(schema["families"]) == set(FAMILIES)
        assert set(schema["presets"]) == set(PRESETS)
        assert schema["initial"]["markdown"] == api.compute(api.DEFAULT_PARAMS, lang)["markdown"]
        assert set(schema["labels"]) == set(api.UI_LABELS)
        # One labelled input per field of every family; only the current family is enabled.
        for mt, fam in FAMILIES.items():
            for f in fam.fields:
                assert f'<label for="calc-{mt}-{f.key}">' in html, (mt, f.key)
                assert f'id="calc-{mt}-{f.key}"' in html
        assert html.count("<fieldset") == len(FAMILIES)
        assert html.count(" hidden disabled>") == len(FAMILIES) - 1
        for control in ("preset", "model_type", "architecture", "pooler", "config"):
            assert f'<label for="calc-{control}">' in html


def test_widget_holds_no_script_but_its_json_schema():
    """The page's scripts are files (calculator-start.js, calculator.js), not inline code."""
    for lang in ("en", "zh"):
        html = api.render_widget(lang)
        tags = re.findall(r"<script\b[^>]*>", html)
        assert tags == ['<script type="application/json" id="calc-schema">']


def test_escape_matches_the_standard_library():
    import html

    samples = ["a & b", "<script>alert('x')</script>", '"quoted"', "&amp;", "多头自注意力 <b>", "", "'\"<>&"]
    for text in samples:
        assert views.escape(text) == html.escape(text, quote=True), text


def test_every_label_in_both_languages():
    for table in (api.UI_LABELS, api.FIELD_LABELS):
        for key, entry in table.items():
            assert set(entry) == {"en", "zh"}, key
            assert entry["en"].strip() and entry["zh"].strip(), key
            placeholders = [sorted(re.findall(r"\{(\w+)\}", entry[lang])) for lang in ("en", "zh")]
            assert placeholders[0] == placeholders[1], key
    for fam in FAMILIES.values():
        for f in fam.fields:
            assert f.key in api.FIELD_LABELS, f.key


def test_active_fraction():
    if not api._HAS_ACTIVE:
        return
    out = _ok({"preset": "bert-base-uncased", api.ACTIVE_KEY: "12/4095"})
    assert out["query"][api.ACTIVE_KEY] == "12/4095"
    assert out["total"] == BASE_TOTAL  # stored parameters do not change
    assert 'data-active="active_used"' in out["html"]
    assert 'data-active="' not in _ok({"preset": "bert-base-uncased"})["html"]  # 1: nothing to say
    assert _ok({})["query"][api.ACTIVE_KEY] == "1"


# ------------------------------------------------- the page's reported problems


def _title(out):
    return re.search(r'<p class="calc-model"[^>]*>(.*?)</p>', out["summary_html"]).group(1)


def test_title_names_the_pooler_only_for_families_that_have_one():
    # The 2018 Transformer, keras-bert, DistilBERT and ELECTRA have no pooler in any class.
    for params, title in (({"model_type": "transformer"}, "Transformer"), ({"model_type": "keras-bert"}, "get_model"),
                          ({"model_type": "distilbert", "vocab_size": "100"}, "DistilBertModel"),
                          ({"model_type": "electra", "vocab_size": "100"}, "ElectraModel")):
        for lang in ("en", "zh"):
            assert _title(_ok(params, lang)) == title, (params, lang)
    # BERT's classes differ: the title says which way this one is.
    assert _title(_ok({"architecture": "BertForMaskedLM", "vocab_size": "100"})) == "BertForMaskedLM · without pooler"
    assert _title(_ok({"architecture": "BertForMaskedLM", "vocab_size": "100"}, "zh")) == "BertForMaskedLM · 不含池化层"
    assert _title(_ok({"model_type": "roberta"}, "zh")) == "RobertaModel · 含池化层"


def test_emptied_field_asks_for_a_number():
    for lang, words in (("en", "enter a whole number"), ("zh", "请输入整数")):
        for value in ("", "   "):
            e = _err({"hidden_size": value}, lang)
            assert e["code"] == "not_integer" and e["field"] == "hidden_size"
            assert words in e["message"] and '""' not in e["message"], e
    assert "got abc" in _err({"hidden_size": "abc"})["message"]  # a wrong value is still quoted


def test_keras_summary_section():
    small = {"model_type": "keras-bert", "token_num": "100", "pos_num": "10", "embed_dim": "8", "head_num": "2",
             "transformer_num": "1", "feed_forward_dim": "16", "training": "0"}
    # keras-bert 0.89's summary for this call (dropout_rate 0.1: Dropout rows), by hand: D = 8, F = 16.
    rows = [
        ("Input-Token", "InputLayer", 0), ("Input-Segment", "InputLayer", 0),
        ("Embedding-Token", "TokenEmbedding", 100 * 8), ("Embedding-Segment", "Embedding", 2 * 8),
        ("Embedding-Token-Segment", "Add", 0), ("Embedding-Position", "PositionEmbedding", 10 * 8),
        ("Embedding-Dropout", "Dropout", 0), ("Embedding-Norm", "LayerNormalization", 2 * 8),
        ("Encoder-1-MultiHeadSelfAttention", "MultiHeadAttention", 4 * (8 * 8 + 8)),
        ("Encoder-1-MultiHeadSelfAttention-Dropout", "Dropout", 0),
        ("Encoder-1-MultiHeadSelfAttention-Add", "Add", 0),
        ("Encoder-1-MultiHeadSelfAttention-Norm", "LayerNormalization", 2 * 8),
        ("Encoder-1-FeedForward", "FeedForward", 8 * 16 + 16 + 16 * 8 + 8),
        ("Encoder-1-FeedForward-Dropout", "Dropout", 0), ("Encoder-1-FeedForward-Add", "Add", 0),
        ("Encoder-1-FeedForward-Norm", "LayerNormalization", 2 * 8),
    ]
    total = sum(r[2] for r in rows)
    for lang, title in (("en", "Keras summary"), ("zh", "Keras 的 summary 输出")):
        html = _ok(small, lang)["html"]
        section = html[html.index('<details class="calc-keras"'):]
        section = section[:section.index("</details>")]
        assert title in section
        got = re.findall(r'data-keras-layer="([^"]+)" data-class="([^"]+)" data-count="(\d+)" data-trainable="(\d)"',
                         section)
        # training=False: trainable follows it, every layer frozen.
        assert got == [(n, c, str(k), "0") for n, c, k in rows]
        assert f'data-keras-total="keras_total" data-count="{total}"' in section
        assert 'data-keras-total="keras_trainable_total" data-count="0"' in section
        assert f'data-keras-total="keras_non_trainable_total" data-count="{total}"' in section
    for params in ({}, {"model_type": "transformer"}, {"model_type": "albert"}):
        assert "calc-keras" not in _ok(params)["html"]


def test_stale_note_points_at_a_field_only_when_one_is_marked():
    # "Fix the marked field" lives apart from the sentence that says the result is stale,
    # and the page-level errors (no field marked) have wording of their own.
    for lang, marked in (("en", "marked"), ("zh", "标出")):
        assert marked not in api.UI_LABELS["stale"][lang]
        assert marked in api.UI_LABELS["stale_fix_field"][lang] and marked in api.UI_LABELS["copy_stale"][lang]
        assert marked not in api.UI_LABELS["stale_fix_general"][lang]
        assert marked not in api.UI_LABELS["copy_stale_general"][lang]
        html = api.render_widget(lang)
        box = re.search(r'<p class="calc-stale-note" id="calc-stale-box" hidden>(.*?)</p>', html).group(1)
        assert 'id="calc-stale-note"' in box and 'id="calc-stale-fix"' in box
    assert _err({"vocab_size": "9999999", "hidden_size": "9999996"})["field"] is None  # the page-level slot


def test_paste_box_heads_the_input_column():
    for lang in ("en", "zh"):
        html = api.render_widget(lang)
        inputs = html[html.index('<section class="calc-inputs"'):]
        assert inputs.index('id="calc-config-box"') < inputs.index('id="calc-form"') < inputs.index("</section>")
