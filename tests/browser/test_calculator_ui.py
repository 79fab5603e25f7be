"""The calculator page's form and result, as users reported them: each test fails on the page before its fix.

Numbers come from ``python -m calculator --format json`` run as a subprocess
(what a user would run); words are written out here, in both languages, never
read back from the labels under test.
"""
from __future__ import annotations

import json
import subprocess
import sys
import urllib.parse

import pytest

from calculator.families import FAMILIES
from calculator.presets import PRESETS
from tests.unit.helpers import HUB_DEBERTA_V3_BASE, HUB_MODERNBERT_BASE, HUB_ROBERTA_BASE, HUB_TOTALS

from .support import (PASTE_BOX_SEEN_JS, ROOT, back_to_the_default, close_paste_box, expected_numbers, page_numbers,
                      paste, run_cli, wait_error, wait_ready, wait_settled, wait_total)

pytestmark = pytest.mark.browser

DEFAULT_TOTAL = 109_482_240


def cli_json(config: dict, tmp_path, architecture: str | None = None) -> dict:
    return json.loads(run_cli(config, architecture, tmp_path=tmp_path))


def cli_error_code(config: dict, tmp_path) -> str:
    """The code ``python -m calculator`` rejects a config with (``error: <code>: ...`` on stderr, status 2)."""
    path = tmp_path / "rejected.json"
    path.write_text(json.dumps(config))
    proc = subprocess.run([sys.executable, "-m", "calculator", "--config", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stdout
    return proc.stderr.split(":")[1].strip()


def title(page) -> str:
    return page.locator("#calc-summary .calc-model").text_content()


def keras_rows(page) -> list:
    return page.eval_on_selector_all(
        "#calc-output tr[data-keras-layer]",
        "rs => rs.map(r => [r.dataset.kerasLayer, r.dataset.class, Number(r.dataset.count), r.dataset.trainable === '1'])",
    )


def cli_keras_rows(expected: dict) -> list:
    return [[k["name"], k["class"], k["count"], k["trainable"]] for k in expected["layers"]]


# ------------------------------------------------ 1 and 8: title, Keras summary


def open_keras_bert(page, site, lang: str, tmp_path) -> dict:
    """The page on a 2-layer keras-bert, once its exact total is shown; returns the CLI's JSON for it."""
    expected = cli_json({"model_type": "keras-bert", "transformer_num": 2}, tmp_path)
    page.goto(site.url("calculator/", lang, "model_type=keras-bert&transformer_num=2"))
    wait_total(page, expected["total"])
    return expected


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_keras_bert_link_summary_title_and_words(page, context, site, lang, tmp_path):
    """One load of a keras-bert link per language, then what a reader does on it, one after the other:
    the Keras summary and the title (the link's own answer), the words of each kind of family, and (en)
    a pasted config's keys that have no field, in the link made of it."""
    expected = open_keras_bert(page, site, lang, tmp_path)
    check_keras_summary_and_no_pooler_in_the_title(page, lang, expected, tmp_path)
    check_keras_bert_mode_names_get_model_arguments_and_weights(page, lang, expected, tmp_path)
    if lang == "en":
        check_link_keeps_config_keys_that_have_no_field(page, context, site, tmp_path)


def check_keras_summary_and_no_pooler_in_the_title(page, lang, expected, tmp_path):
    """On the link's own answer (the first step after the load)."""
    # keras-bert has no pooler switch: the title names the call, nothing about a pooler.
    assert title(page) == "get_model"
    # The rows of model.summary(), as the CLI's JSON lists them, in a collapsed section.
    section = page.locator("#calc-output details#calc-keras-summary")
    assert section.count() == 1 and section.get_attribute("open") is None
    words = "Keras summary" if lang == "en" else "Keras 的 summary"
    assert words in section.locator("summary").text_content()
    assert keras_rows(page) == cli_keras_rows(expected)
    section.locator("summary").click()
    assert section.locator("tr[data-keras-layer='Encoder-2-FeedForward']").is_visible()
    totals = dict(page.eval_on_selector_all("tr[data-keras-total]",
                                            "rs => rs.map(r => [r.dataset.kerasTotal, Number(r.dataset.count)])"))
    assert totals == {"keras_total": expected["total"], "keras_trainable_total": expected["trainable"],
                      "keras_non_trainable_total": expected["non_trainable"]}

    page.select_option("#calc-model_type", "transformer")
    wait_total(page, cli_json({"model_type": "transformer"}, tmp_path)["total"])
    assert title(page) == "Transformer"
    assert page.locator("#calc-keras-summary").count() == 0

    # BERT's classes differ in having one, so there the title says which.
    page.select_option("#calc-preset", "bert-base-uncased")
    page.select_option("#calc-architecture", "BertForMaskedLM")
    wait_total(page, cli_json(dict(PRESETS["bert-base-uncased"].config), tmp_path, "BertForMaskedLM")["total"])
    assert title(page).endswith("without pooler" if lang == "en" else "不含池化层")


# ---------------------------------------- 2: an error no field is marked for


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_error_without_a_field_does_not_point_at_one(page, context, site, lang):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.root.rstrip("/"))
    marked = "marked" if lang == "en" else "标红"
    page.goto(site.url("calculator/", lang, "vocab_size=9999999&hidden_size=9999996"))
    wait_error(page, "total_too_large")
    assert page.locator("[aria-invalid]").count() == 0  # no field is marked…
    note = page.locator("#calc-stale-box")
    assert note.is_visible()
    assert marked not in note.text_content()  # …so nothing says "fix the marked field"
    assert ("above" if lang == "en" else "上方") in note.text_content()
    page.click('button[data-copy="link"]')
    status = page.locator("#calc-copy-status").text_content()
    assert status and marked not in status

    # A field error: now it is marked, and the page says so.
    page.select_option("#calc-preset", "bert-base-uncased")
    wait_total(page, DEFAULT_TOTAL)
    assert not note.is_visible()
    page.fill("#calc-bert-num_attention_heads", "7")
    wait_error(page, "heads_not_divisor")
    assert page.get_attribute("#calc-bert-num_attention_heads", "aria-invalid") == "true"
    assert marked in note.text_content()
    page.click('button[data-copy="markdown"]')
    assert marked in page.locator("#calc-copy-status").text_content()


# --------------------------------------------------------- 3: an emptied field


EMPTIED = {"en": "hidden_size is empty: enter a whole number.", "zh": "hidden_size 为空：请输入整数。"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_default_page_emptied_field_family_menu_and_published_configs(page, site, lang, tmp_path):
    """What a reader does on the default page, one after the other on one load (none is about the first
    visit): empties a field, reads the family menu at 1280 px, pastes published configs; then (zh) picks a
    preset and changes it, (en) sees the paste box follow the form and in sight on a wide screen."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(site.url("calculator/", lang))
    wait_ready(page)
    check_emptied_field_asks_for_a_whole_number(page, EMPTIED[lang])
    check_family_menu_shows_each_option_in_full(page, lang)
    check_pasting_published_configs_of_the_new_families(page)
    if lang == "zh":
        check_a_picked_preset_keeps_its_name_and_equal_values_name_nothing(page, tmp_path)
    else:
        check_paste_box_is_cleared_when_the_form_changes_otherwise(page, tmp_path)
        check_paste_box_is_in_sight_on_a_wide_screen(page)


def check_emptied_field_asks_for_a_whole_number(page, message):
    page.fill("#calc-bert-hidden_size", "")
    loc = wait_error(page, "not_integer")
    assert loc.get_attribute("id") == "calc-bert-hidden_size-error"
    assert loc.text_content() == message
    assert page.locator("#calc-live").text_content() == message
    page.fill("#calc-bert-hidden_size", "768")
    wait_total(page, DEFAULT_TOTAL)


# ------------------------------------------- 4: values that are a preset's


def check_a_picked_preset_keeps_its_name_and_equal_values_name_nothing(page, tmp_path):
    """From any state (on the Chinese page): the default answer first, the paste box closed."""
    back_to_the_default(page, DEFAULT_TOTAL)
    close_paste_box(page)
    page.fill("#calc-bert-num_hidden_layers", "24")
    wait_total(page, cli_json({"model_type": "bert", "num_hidden_layers": 24}, tmp_path)["total"])
    # A preset with a changed value keeps its name, marked as changed (issue 22).
    assert page.input_value("#calc-preset") == "bert-base-uncased"
    assert title(page).startswith("bert-base-uncased，已修改：num_hidden_layers · ")
    # Typed back: the values are bert-base-uncased's again.
    page.fill("#calc-bert-num_hidden_layers", "12")
    wait_total(page, DEFAULT_TOTAL)
    assert page.input_value("#calc-preset") == "bert-base-uncased"
    assert "preset=bert-base-uncased" in page.url
    assert title(page).startswith("bert-base-uncased · ")
    # A config.json as published is never turned into a preset, even with a preset's tensors
    # (issue 22): the picker does not jump, no preset= in the link, it is "自定义配置".
    paste(page, json.dumps(HUB_ROBERTA_BASE))
    wait_total(page, cli_json(HUB_ROBERTA_BASE, tmp_path)["total"])
    assert page.input_value("#calc-preset") == ""
    assert page.input_value("#calc-architecture") == "RobertaForMaskedLM"
    assert "preset=" not in page.url
    assert title(page).startswith("自定义配置 · ")
    # The family's defaults can be a checkpoint's (ALBERT's are albert-xxlarge-v2's), but picking the
    # family is not picking that checkpoint: it names nothing the reader did not choose (issue 22).
    page.select_option("#calc-model_type", "albert")
    wait_total(page, cli_json({"model_type": "albert"}, tmp_path)["total"])
    assert page.input_value("#calc-preset") == ""
    assert "albert-xxlarge-v2" not in title(page) and "preset=" not in page.url


# ----------------------------------------- 5: the paste box follows the form


def check_paste_box_is_cleared_when_the_form_changes_otherwise(page, tmp_path):
    """From any state: the default answer first, the paste box closed."""
    back_to_the_default(page, DEFAULT_TOTAL)
    close_paste_box(page)
    distil = dict(PRESETS["distilbert-base-cased"].config)
    distil_total = cli_json(distil, tmp_path)["total"]

    def pasted():
        paste(page, json.dumps(distil))
        wait_total(page, distil_total)
        assert page.input_value("#calc-config") == json.dumps(distil)  # it says what the form holds

    pasted()
    page.select_option("#calc-preset", "bert-base-uncased")
    wait_total(page, DEFAULT_TOTAL)
    assert page.input_value("#calc-config") == ""
    pasted()
    page.select_option("#calc-model_type", "electra")
    wait_total(page, cli_json({"model_type": "electra"}, tmp_path)["total"])
    assert page.input_value("#calc-config") == ""
    pasted()
    page.fill("#calc-distilbert-n_layers", "3")
    wait_total(page, cli_json({**distil, "n_layers": 3}, tmp_path)["total"])
    assert page.input_value("#calc-config") == ""
    pasted()
    page.select_option("#calc-architecture", "DistilBertForMaskedLM")
    wait_total(page, cli_json(distil, tmp_path, "DistilBertForMaskedLM")["total"])
    assert page.input_value("#calc-config") == ""
    # A rejected paste goes too, with its error, once the form is used.
    paste(page, "{")
    wait_error(page, "invalid_json")
    page.uncheck("#calc-distilbert-tie_word_embeddings")
    wait_total(page, cli_json({**distil, "tie_word_embeddings": False}, tmp_path, "DistilBertForMaskedLM")["total"])
    assert page.input_value("#calc-config") == ""
    assert page.locator("[data-error-code]").count() == 0


# ------------------------------------------------ 6: the paste box in sight


def check_paste_box_is_in_sight_on_a_wide_screen(page):
    """From any state: the default answer, the paste box closed, a 1280 × 720 window."""
    back_to_the_default(page, DEFAULT_TOTAL)
    close_paste_box(page)
    page.set_viewport_size({"width": 1280, "height": 720})
    # Scrolled to the calculator's columns, as a user does, the box heads the input column.
    page.evaluate("window.scrollTo(0, document.querySelector('.calc-layout').getBoundingClientRect().top"
                  " + scrollY - 80)")
    page.wait_for_timeout(100)
    assert page.evaluate(PASTE_BOX_SEEN_JS)
    # The column has no scroll area of its own (which hid fields below its fold and took the
    # mouse wheel): every field is reached by scrolling the page.
    inputs = page.evaluate("""() => { const c = document.querySelector('.calc-inputs'), s = getComputedStyle(c);
        return [s.overflowY, c.scrollHeight <= c.clientHeight + 1]; }""")
    assert inputs == ["visible", True]


# -------------------------------- 7: config keys without a field, in the link


def check_link_keeps_config_keys_that_have_no_field(page, context, site, tmp_path):
    """From any state (a pasted config replaces it); opens the links it makes in tabs of their own."""
    # keras-bert: trainable=False freezes every layer, dropout_rate=0 drops the Dropout rows.
    keras = {"model_type": "keras-bert", "transformer_num": 2, "embed_dim": 64, "head_num": 4,
             "feed_forward_dim": 128, "token_num": 1000, "trainable": False, "dropout_rate": 0.0}
    expected = cli_json(keras, tmp_path)
    assert expected["trainable"] == 0 and expected["total"] > 0
    page.goto(site.url("calculator/"))
    wait_ready(page)
    paste(page, json.dumps(keras))
    wait_total(page, expected["total"])
    link = page.url
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))
    assert query["trainable"] == "0" and float(query["dropout_rate"]) == 0.0
    again = context.new_page()
    try:
        again.goto(link)
        wait_total(again, expected["total"])
        assert page_numbers(again)["facts"] == expected_numbers(expected)["facts"]  # trainable: 0
        assert keras_rows(again) == cli_keras_rows(expected)  # no Dropout rows
        assert "trainable = 0" in again.locator("#calc-extras").text_content()
        # The keys stay in effect while the form is edited…
        again.fill("#calc-keras-bert-transformer_num", "3")
        more = cli_json({**keras, "transformer_num": 3}, tmp_path)
        wait_total(again, more["total"])
        assert page_numbers(again)["facts"] == expected_numbers(more)["facts"]
        assert "trainable=0" in again.url
        # …until another family or a preset replaces the whole state.
        again.select_option("#calc-preset", "bert-base-uncased")
        wait_total(again, DEFAULT_TOTAL)
        assert "trainable" not in again.url and again.locator("#calc-extras").is_hidden()
    finally:
        again.close()

    # BERT: pad_token_id decides which vocabularies nn.Embedding accepts.
    bert = {"model_type": "bert", "pad_token_id": 30000, "architectures": ["BertModel"]}
    paste(page, json.dumps(bert))
    wait_total(page, cli_json(bert, tmp_path)["total"])
    link = page.url
    assert "pad_token_id=30000" in link
    again = context.new_page()
    try:
        again.goto(link)
        wait_total(again, cli_json(bert, tmp_path)["total"])
        again.fill("#calc-bert-vocab_size", "30000")
        code = cli_error_code({**bert, "vocab_size": 30000}, tmp_path)
        assert code == "padding_idx"
        wait_error(again, code)
    finally:
        again.close()


def test_query_values_of_keys_without_a_field_are_text(page, site, traffic):
    payload = '"><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
    # The three keys in one link: calculator.js writes every such key's value the same
    # way (setExtras, one loop), so one page load per family checks them all.
    for mt in ("keras-bert", "bert"):
        query = {"model_type": mt, **{key: payload for key in ("trainable", "dropout_rate", "pad_token_id")}}
        page.goto(site.url("calculator/", "en", urllib.parse.urlencode(query)))
        wait_settled(page)
        assert page.evaluate("window.__pwned") is None
        assert page.locator("img[src=x], #calc-root script:not(#calc-schema)").count() == 0
    # A list of prefixes is shown as the text it is.
    listed = json.dumps([payload])
    page.goto(site.url("calculator/", "en", urllib.parse.urlencode({"model_type": "keras-bert", "trainable": listed})))
    wait_settled(page)
    page.wait_for_selector("#calc-root [data-total]", state="attached")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[src=x]").count() == 0
    assert "<img src=x" in page.locator("#calc-extras").text_content()


# --------------------------- a fresh reader: the family menu, keras-bert's words

#: The model-family menu as a reader should see it, written out here.
FAMILY_OPTIONS = {
    "en": ["BERT (bert)", "RoBERTa (roberta)", "XLM-RoBERTa (xlm-roberta)", "CamemBERT (camembert)",
           "DistilBERT (distilbert)", "ALBERT (albert)", "ELECTRA (electra)", "DeBERTa (deberta)",
           "DeBERTa-v2 / v3 (deberta-v2)", "ModernBERT (modernbert)", "ERNIE (ernie)", "MPNet (mpnet)",
           "keras-bert get_model()", "Transformer (2018, PyTorch)"],
    "zh": ["BERT（bert）", "RoBERTa（roberta）", "XLM-RoBERTa（xlm-roberta）", "CamemBERT（camembert）",
           "DistilBERT（distilbert）", "ALBERT（albert）", "ELECTRA（electra）", "DeBERTa（deberta）",
           "DeBERTa-v2 / v3（deberta-v2）", "ModernBERT（modernbert）", "ERNIE（ernie）", "MPNet（mpnet）",
           "keras-bert 的 get_model()", "Transformer（2018 PyTorch 实现）"],
}

#: Each option's own width (a copy of the menu holding only it, sized to its content) against the menu's.
OPTION_WIDTHS_JS = """() => { const s = document.getElementById('calc-model_type');
  return Array.from(s.options, (o) => {
    const c = s.cloneNode(false);
    c.removeAttribute('id'); c.style.width = 'auto'; c.append(new Option(o.text, o.value));
    s.parentElement.append(c);
    const needed = c.getBoundingClientRect().width;
    c.remove();
    return [o.text, needed, s.getBoundingClientRect().width];
  }); }"""


def check_family_menu_shows_each_option_in_full(page, lang):
    """At 1280 px (the page as loaded, bert's default form)."""
    widths = page.evaluate(OPTION_WIDTHS_JS)
    texts = [text for text, _, _ in widths]
    # Every declared family is on the menu once; the first fourteen keep the wording written here.
    values = page.eval_on_selector("#calc-model_type", "s => Array.from(s.options, (o) => o.value)")
    assert sorted(values) == sorted(FAMILIES) and len(values) == len(set(values))
    assert [t for t in texts if t in FAMILY_OPTIONS[lang]] == FAMILY_OPTIONS[lang]
    for text, needed, menu in widths:
        assert needed <= menu, f"{text!r} needs {needed:.0f}px, the menu is {menu:.0f}px"
    # Chosen, the option is what the closed menu shows.
    page.select_option("#calc-model_type", "transformer")
    assert page.eval_on_selector("#calc-model_type", "s => s.selectedOptions[0].text") == FAMILY_OPTIONS[lang][-1]
    assert texts[-1] == FAMILY_OPTIONS[lang][-1]


LEGENDS = {
    "en": {"keras-bert": "keras-bert get_model() arguments", "bert": "BERT hyperparameters (config.json keys)",
           "transformer": "Transformer (2018, PyTorch): arguments of Transformer() in attention-is-all-you-need-pytorch"},
    "zh": {"keras-bert": "keras-bert 的 get_model() 参数", "bert": "BERT 超参数（config.json 中的键）",
           "transformer": "Transformer（2018 PyTorch 实现）：attention-is-all-you-need-pytorch 中 Transformer() 的构造参数"},
}
WEIGHTS_TITLE = {"en": "Every weight ({n} in model.weights)", "zh": "全部权重（model.weights 中共 {n} 个）"}
TENSORS_TITLE = {"en": "Every tensor ({n} entries in state_dict)", "zh": "全部张量（state_dict 中 {n} 项）"}
WEIGHT_COLUMN = {"en": ("Weight", "Tensor"), "zh": ("权重", "张量")}


def legend(page) -> str:
    return page.locator("#calc-form fieldset[data-family]:not([hidden]) > legend").text_content()


def tensors_summary(page) -> str:
    return page.locator("#calc-output details.calc-tensors > summary").text_content()


def check_keras_bert_mode_names_get_model_arguments_and_weights(page, lang, expected, tmp_path):
    """keras-bert with 2 layers chosen in the form (``expected`` is the CLI's answer for it), its per-tensor
    block closed: from any state where keras-bert's other fields are the family's defaults (as the link left
    them)."""
    page.select_option("#calc-model_type", "keras-bert")
    page.fill("#calc-keras-bert-transformer_num", "2")
    wait_total(page, expected["total"])
    page.evaluate("document.querySelector('#calc-output details.calc-tensors').open = false")
    # Its inputs are get_model() arguments, its tensors the Keras model's weights (as many as the CLI lists).
    assert legend(page) == LEGENDS[lang]["keras-bert"]
    assert tensors_summary(page) == WEIGHTS_TITLE[lang].format(n=len(expected["tensors"]))
    assert "state_dict" not in page.locator("#calc-output").inner_text()
    page.click("#calc-output details.calc-tensors > summary")
    assert page.locator("#calc-output .calc-tensor-table th").first.text_content() == WEIGHT_COLUMN[lang][0]
    # A Hugging Face family: config.json keys and state_dict entries again.
    page.select_option("#calc-model_type", "bert")
    bert = cli_json({"model_type": "bert"}, tmp_path)
    wait_total(page, bert["total"])
    assert legend(page) == LEGENDS[lang]["bert"]
    assert tensors_summary(page) == TENSORS_TITLE[lang].format(n=len(bert["tensors"]))
    assert page.locator("#calc-output .calc-tensor-table th").first.text_content() == WEIGHT_COLUMN[lang][1]
    # The 2018 Transformer is no config.json either: its constructor's arguments.
    page.select_option("#calc-model_type", "transformer")
    wait_total(page, cli_json({"model_type": "transformer"}, tmp_path)["total"])
    assert legend(page) == LEGENDS[lang]["transformer"]


def check_pasting_published_configs_of_the_new_families(page):
    """A published DeBERTa-v3 file (list keys as a|b, sentinels, no architectures) and ModernBERT's give
    transformers' own totals, and the form shows what was read."""
    paste(page, json.dumps(HUB_DEBERTA_V3_BASE))
    wait_total(page, HUB_TOTALS["deberta-v3-base"])
    assert page.input_value("#calc-model_type") == "deberta-v2"
    assert page.input_value("#calc-architecture") == "DebertaV2Model"
    assert page.input_value("#calc-deberta-v2-pos_att_type") == "p2c|c2p"
    assert page.input_value("#calc-preset") == ""  # a pasted config is never turned into a preset (issue 22)
    paste(page, json.dumps(HUB_MODERNBERT_BASE))
    wait_total(page, HUB_TOTALS["ModernBERT-base"])
    assert page.input_value("#calc-architecture") == "ModernBertForMaskedLM"
    assert page.locator("[data-error-code]").count() == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lora_link_shows_peft_line_as_the_cli_prints_it(page, site, lang, tmp_path):
    """A shared LoRA link answers with the line peft prints, the same as the CLI's contract gives; the form shows
    the plan, and clearing the rank turns the planner off."""
    config = dict(PRESETS["roberta-base"].config)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    proc = subprocess.run(
        [sys.executable, "-m", "calculator", "--config", str(path), "--architecture", "RobertaForSequenceClassification",
         "--lora-r", "16", "--lora-targets", "query,value", "--peft-task-type", "SEQ_CLS", "--format", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    )
    expected = json.loads(proc.stdout)
    query = {"preset": "roberta-base", "architecture": "RobertaForSequenceClassification", "lora_r": "16",
             "lora_targets": "query,value", "peft_task_type": "SEQ_CLS"}
    page.goto(site.url("calculator/", lang, urllib.parse.urlencode(query)))
    wait_total(page, expected["total"])
    page.wait_for_selector(".calc-peft-line")
    assert page.locator(".calc-peft-line").text_content() == expected["peft"]["line"]
    assert page.input_value("#calc-lora_r") == "16" and page.input_value("#calc-peft_task_type") == "SEQ_CLS"
    page.fill("#calc-lora_r", "")
    page.wait_for_selector(".calc-peft-line", state="detached")
    assert "lora_r" not in page.url
    assert page.locator("[data-count-key='parameters']").count() == 1  # the reconciliation panel stays
