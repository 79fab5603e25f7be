"""The calculator page in a real browser: the numbers are the CLI's, in both languages.

Expected values come from ``python -m calculator --format json`` run as a
subprocess (what a user would run; ``run_cli_many``: the same command lines, one
process for several), never from the page's own code path.
"""
from __future__ import annotations

import json
import re
import urllib.parse

import pytest

from calculator.api import UI_LABELS
from calculator.build import build
from calculator.families import FAMILIES
from calculator.presets import PRESETS

try:
    from calculator import active as active_module
except ImportError:  # the active-parameter view is optional
    active_module = None

from tests.unit.helpers import HUB_ROBERTA_BASE

from .support import (PASTE_BOX_SEEN_JS, back_to_the_default, close_paste_box, expected_numbers, page_numbers, paste,
                      run_cli, run_cli_many, wait_ready, wait_settled, wait_total)

pytestmark = pytest.mark.browser

DEFAULT_TOTAL = 109_482_240

#: (query, language): presets, heads, custom sizes, ties, every family.
CASES = [
    ({"preset": "bert-base-uncased", "architecture": "BertForSequenceClassification", "num_labels": "3"}, "en"),
    ({"preset": "bert-large-cased", "architecture": "BertForPreTraining"}, "zh"),
    ({"preset": "roberta-base", "architecture": "RobertaForMaskedLM"}, "en"),
    ({"preset": "distilbert-base-uncased", "architecture": "DistilBertForQuestionAnswering"}, "zh"),
    ({"preset": "albert-base-v2", "architecture": "AlbertForPreTraining"}, "en"),
    ({"preset": "google/electra-small-discriminator", "architecture": "ElectraForPreTraining"}, "en"),
    ({"model_type": "bert", "vocab_size": "1000", "hidden_size": "256", "num_hidden_layers": "3",
      "num_attention_heads": "4", "intermediate_size": "1000", "max_position_embeddings": "128",
      "type_vocab_size": "1", "architecture": "BertModel", "pooler": "0"}, "zh"),
    ({"model_type": "bert", "architecture": "BertForMaskedLM", "tie_word_embeddings": "0"}, "en"),
    ({"preset": "xlm-roberta-base", "architecture": "XLMRobertaForMaskedLM"}, "zh"),
    ({"preset": "microsoft/deberta-v3-base", "architecture": "DebertaV2ForSequenceClassification"}, "en"),
    ({"preset": "microsoft/deberta-base", "architecture": "DebertaForMaskedLM"}, "zh"),
    ({"preset": "answerdotai/ModernBERT-base", "architecture": "ModernBertForMaskedLM"}, "zh"),
    ({"preset": "nghuyong/ernie-3.0-base-zh", "architecture": "ErnieForPreTraining"}, "zh"),
    ({"preset": "sentence-transformers/all-mpnet-base-v2", "architecture": "MPNetForMaskedLM"}, "en"),
    ({"model_type": "keras-bert", "transformer_num": "2"}, "en"),
    ({"model_type": "transformer", "n_layers": "1"}, "zh"),
]


def cli_inputs(query: dict[str, str]) -> tuple[dict, str | None, bool | None]:
    """The config.json, --architecture and --no-pooler a CLI user would pass for a page query."""
    config: dict = {}
    if "preset" in query:
        config.update(PRESETS[query["preset"]].config)
    config["model_type"] = query.get("model_type", config.get("model_type", "bert"))
    for f in FAMILIES[config["model_type"]].fields:
        if f.key in query:
            config[f.key] = query[f.key] == "1" if f.kind == "bool" else int(query[f.key])
    pooler = None if "pooler" not in query else query["pooler"] == "1"
    return config, query.get("architecture"), pooler


def cli_short(text: str) -> str:
    """The short form in the CLI's text output (``--format text``)."""
    # "Total parameters: 109,482,240 (109.5M)" or "总参数量：109,482,240（约 1.095 亿）"
    # The total's line, wherever it is (a task class's difference to the base model may come first).
    line = next(x for x in text.splitlines() if x.startswith(("Total parameters", "总参数量")))
    return re.search(r"[(（](?:约 )?([^()（）]+)[)）]$", line).group(1)


def form_state(page) -> dict:
    """What the form shows: every enabled control's name and value."""
    return page.evaluate("""() => {
      const out = {};
      for (const el of document.querySelectorAll('#calc-form select, #calc-form input')) {
        if (el.disabled || el.closest('[hidden]')) continue;
        out[el.name] = el.type === 'checkbox' ? el.checked : el.value;
      }
      return out;
    }""")


#: The case of each language whose link is opened cold (the rest are chosen in the form on that same
#: page). Bert-family links with the most keys a link can carry: a bool field (tie_word_embeddings=0);
#: custom sizes and pooler=0. Preset links are opened by test_language_switch_keeps_the_state and
#: test_copy_buttons. Each language's other bert case picks a preset, which sets every field the link
#: set (num_labels aside, which the link leaves at its default).
LINKED = {"en": 7, "zh": 6}

#: What the form can set: the menus, the pooler, and the family's own fields.
FORM_KEYS = {"preset", "model_type", "architecture", "pooler"}


def choose_in_form(page, query: dict[str, str]) -> None:
    """What a reader does to ask for ``query`` on a page already open: the preset (or the family),
    the class, each field the query sets, and the pooler (the query's choice, else HF's default, on)."""
    if "preset" in query:
        page.select_option("#calc-preset", query["preset"])
        assert page.input_value("#calc-model_type") == PRESETS[query["preset"]].config["model_type"]
    else:
        page.select_option("#calc-model_type", query["model_type"])
    mt = page.input_value("#calc-model_type")
    if "architecture" in query:
        page.select_option("#calc-architecture", query["architecture"])
    for f in FAMILIES[mt].fields:
        if f.key in query:
            if f.kind == "bool":
                page.set_checked(f"#calc-{mt}-{f.key}", query[f.key] == "1")
            else:
                page.fill(f"#calc-{mt}-{f.key}", query[f.key])
    if page.is_enabled("#calc-pooler"):
        page.set_checked("#calc-pooler", query.get("pooler", "1") == "1")


def form_can_set(query: dict[str, str]) -> bool:
    mt = PRESETS[query["preset"]].config["model_type"] if "preset" in query else query["model_type"]
    return set(query) <= FORM_KEYS | {f.key for f in FAMILIES[mt].fields}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_shows_the_cli_numbers(page, site, lang, tmp_path):
    """Every case of the language on one page: one case's link opened cold, each other case chosen in
    the form as a reader does (a case whose query the form cannot set is a link of its own). For each:
    the page's numbers are the CLI's, the short form too, the address holds the CLI's values and, given
    back to the CLI, gives its very answer; no error shown."""
    indexes = [i for i, (_, case_lang) in enumerate(CASES) if case_lang == lang]
    indexes.remove(LINKED[lang])
    indexes.insert(0, LINKED[lang])
    inputs = [cli_inputs(CASES[i][0]) for i in indexes]
    answers = run_cli_many([dict(config=c, architecture=a, pooler=p, fmt=fmt, lang=lang)
                            for c, a, p in inputs for fmt in ("json", "text")], tmp_path)
    reopen = []
    for n, i in enumerate(indexes):
        query = CASES[i][0]
        expected, text = json.loads(answers[2 * n]), answers[2 * n + 1]
        if n == 0 or not form_can_set(query):
            page.goto(site.url("calculator/", lang, urllib.parse.urlencode(query)))
        else:
            choose_in_form(page, query)
        wait_total(page, expected["total"])
        reopen.append(check_page_against_the_cli(page, i, expected, cli_short(text)))
    reopened = run_cli_many([dict(config=again, architecture=shown["architecture"], pooler=shown["pooler"] == "1",
                                  lang=lang) for again, shown in reopen], tmp_path)
    for n, (i, answer) in enumerate(zip(indexes, reopened)):
        expected, answer = json.loads(answers[2 * n]), json.loads(answer)
        assert answer["config"] == expected["config"] and answer["total"] == expected["total"], f"case {i}"


def check_page_against_the_cli(page, case: int, expected: dict, short: str) -> tuple[dict, dict]:
    """The page (settled on the case's answer) against the CLI's; returns the config.json and the address
    the link gives, for the CLI to answer again."""
    got, want = page_numbers(page), expected_numbers(expected)
    assert got.pop("short") == short, f"case {case}"
    assert got == want, f"case {case}"
    # The address holds the class, the pooler and every value that differs from where the link starts
    # (the preset's values, else HF's defaults; issue 22 item 5): each with the CLI's value, and the link,
    # given to the CLI as a config.json (on the preset's, if it names one), gives the CLI's very answer.
    shown = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))
    assert shown["model_type"] == expected["model_type"], f"case {case}"
    assert shown["architecture"] == expected["architecture"], f"case {case}"
    assert shown["pooler"] == ("1" if expected["pooler"] else "0"), f"case {case}"
    again: dict = dict(PRESETS[shown["preset"]].config) if "preset" in shown else {}
    again["model_type"] = shown["model_type"]
    for f in FAMILIES[expected["model_type"]].fields:
        value = expected["config"][f.key]
        if value is None:  # an optional key left unset is not in the link
            assert f.key not in shown, (case, f.key)
            continue
        text = ("1" if value else "0") if isinstance(value, bool) else "|".join(value) if isinstance(value, list) else str(value)
        if f.key in shown:
            assert shown[f.key] == text, (case, f.key)
            again[f.key] = value
    assert "active_fraction" not in shown, f"case {case}"  # the default share (1) is left out
    assert page.locator("[data-error-code]").count() == 0, f"case {case}"
    return again, shown


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_exact_answer_before_python_is_ready_then_the_form_answers(page, context, site, lang, tmp_path):
    """The first visit, before and once Python is up; then (en) what a reader does on that same
    load: the keyboard alone, every kind of input, and a link made of the result (one load, not four)."""
    check_exact_answer_before_python_is_ready(page, site, lang)
    if lang == "en":
        check_keyboard_only_and_announced(page, tmp_path)
        # Back to the default answer (a preset sets sizes, not the pooler choice).
        page.select_option("#calc-preset", "bert-base-uncased")
        page.check("#calc-pooler")
        wait_total(page, DEFAULT_TOTAL)
        check_inputs_update_the_result(page, tmp_path)
        check_url_round_trip(page, context, tmp_path)


def check_exact_answer_before_python_is_ready(page, site, lang):
    page.goto(site.url("calculator/", lang), wait_until="domcontentloaded")
    # Pyodide needs seconds; the pre-rendered total is there at once.
    assert page.get_attribute("#calc-root", "data-state") == "loading"
    assert page.locator(f'#calc-root [data-total="{DEFAULT_TOTAL}"]').is_visible()
    assert page.locator(".calc-total").text_content() == f"{DEFAULT_TOTAL:,}"
    assert page.locator("#calc-status").text_content() == UI_LABELS["status_loading"][lang]
    wait_ready(page)
    assert page.locator("#calc-status").text_content() == UI_LABELS["status_ready"][lang]
    assert page.locator(f'[data-total="{DEFAULT_TOTAL}"]').count() == 1
    assert page.locator(".calc-short").text_content() == ("about 109.5M" if lang == "en" else "约 1.095 亿")


def check_inputs_update_the_result(page, tmp_path):
    def check(config, architecture=None, pooler=None):
        expected = json.loads(run_cli(config, architecture, pooler, tmp_path=tmp_path))
        wait_total(page, expected["total"])
        assert page_numbers(page)["tensors"] == expected_numbers(expected)["tensors"]
        return expected

    page.fill("#calc-bert-num_hidden_layers", "24")
    check({"model_type": "bert", "num_hidden_layers": 24})
    # Still bert-base-uncased, marked as changed (issue 22): the link keeps preset= with the changed value.
    assert page.input_value("#calc-preset") == "bert-base-uncased"
    assert "num_hidden_layers=24" in page.url and "preset=bert-base-uncased" in page.url

    page.select_option("#calc-architecture", "BertForTokenClassification")
    assert page.is_disabled("#calc-pooler") and not page.is_checked("#calc-pooler")
    page.fill("#calc-bert-num_labels", "9")
    check({"model_type": "bert", "num_hidden_layers": 24, "num_labels": 9}, "BertForTokenClassification")

    page.select_option("#calc-preset", "roberta-base")
    assert page.input_value("#calc-model_type") == "roberta"
    check(dict(PRESETS["roberta-base"].config), "RobertaModel")
    assert "preset=roberta-base" in page.url

    page.select_option("#calc-model_type", "albert")
    check({"model_type": "albert"}, "AlbertModel")
    page.uncheck("#calc-pooler")
    check({"model_type": "albert"}, "AlbertModel", False)

    page.select_option("#calc-preset", "bert-base-uncased")  # a preset sets sizes, not the pooler choice
    check(dict(PRESETS["bert-base-uncased"].config), "BertModel", False)
    page.check("#calc-pooler")
    check(dict(PRESETS["bert-base-uncased"].config), "BertModel")
    if active_module is None:
        return
    page.fill("#calc-active_fraction", "0.5")
    wait_settled(page)
    want = active_module.active_parameters(build(PRESETS["bert-base-uncased"].config), "0.5")
    rows = dict(page.eval_on_selector_all("tr[data-active]", "rs => rs.map(r => [r.dataset.active, r.dataset.value])"))
    assert float(rows["active_used"]) == want.active
    assert float(rows["active_ff"]) == want.feed_forward
    assert page.locator(f'[data-total="{DEFAULT_TOTAL}"]').count() == 1  # stored count unchanged


def check_url_round_trip(page, context, tmp_path):
    page.select_option("#calc-preset", "bert-large-uncased")
    page.select_option("#calc-architecture", "BertForMultipleChoice")
    page.fill("#calc-bert-max_position_embeddings", "1024")
    expected = json.loads(run_cli({**PRESETS["bert-large-uncased"].config, "max_position_embeddings": 1024},
                                  "BertForMultipleChoice", tmp_path=tmp_path))
    wait_total(page, expected["total"])
    link, state = page.url, form_state(page)
    again = context.new_page()
    try:
        again.goto(link)
        wait_total(again, expected["total"])
        assert form_state(again) == state
        assert again.url == link
    finally:
        again.close()


def test_language_switch_keeps_the_state(page, site, tmp_path):
    """A link opened in English, switched to Chinese, then back to English: each switch keeps the form's
    state (three loads, not four: the Chinese page the first switch opens, a load of the Chinese link,
    is where the second switch starts)."""
    query = {"preset": "albert-large-v2", "architecture": "AlbertForSequenceClassification", "num_labels": "5"}
    config, architecture, pooler = cli_inputs(query)
    expected = json.loads(run_cli(config, architecture, pooler, tmp_path=tmp_path))
    page.goto(site.url("calculator/", "en", urllib.parse.urlencode(query)))
    wait_total(page, expected["total"])
    for target in ("zh", "en"):
        check_language_switch_keeps_the_state(page, target, expected["total"])


def check_language_switch_keeps_the_state(page, target, total):
    """From the other language's page showing ``total``."""
    state = form_state(page)
    page.hover(".md-header .md-select")
    with page.expect_navigation():
        page.click(f'.md-header a[hreflang="{target}"]')
    wait_total(page, total)
    path = urllib.parse.urlsplit(page.url).path
    assert path == ("/zh/calculator/" if target == "zh" else "/calculator/")
    assert page.evaluate("document.documentElement.lang").startswith(target)
    assert form_state(page) == state
    assert page.locator("#calc-status").text_content() == UI_LABELS["status_ready"][target]


def test_copy_buttons(page, context, site, tmp_path):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.root.rstrip("/"))
    query = {"preset": "bert-base-chinese", "architecture": "BertForMaskedLM"}
    page.goto(site.url("calculator/", "zh", urllib.parse.urlencode(query)))
    config, architecture, pooler = cli_inputs(query)
    expected = json.loads(run_cli(config, architecture, pooler, tmp_path=tmp_path))
    wait_total(page, expected["total"])
    clipboard = lambda: page.evaluate("navigator.clipboard.readText()")  # noqa: E731
    page.click('button[data-copy="markdown"]')
    page.wait_for_function("document.getElementById('calc-copy-status').textContent !== ''")
    # The CLI's Markdown summary, then a line naming the model and its total that links back to this result.
    # In Chinese with the full-width colon (issue 35, zh M9).
    title = f"bert-base-chinese · BertForMaskedLM · 不含池化层：{expected['total']:,}"
    table, source = clipboard().rstrip("\n").rsplit("\n\n", 1)
    assert table == run_cli(config, architecture, pooler, fmt="markdown", lang="zh", tmp_path=tmp_path).rstrip("\n")
    assert source == f"[{title}](<{page.url}>)"
    page.click('button[data-copy="text"]')
    page.wait_for_function("navigator.clipboard.readText().then(t => t.startsWith('模型'))")
    text, source = clipboard().rstrip("\n").rsplit("\n\n", 1)
    assert text == run_cli(config, architecture, pooler, fmt="text", lang="zh", tmp_path=tmp_path).rstrip("\n")
    assert source == f"{title}\n{page.url}"
    page.click('button[data-copy="link"]')
    page.wait_for_function("navigator.clipboard.readText().then(t => t.startsWith('http'))")
    assert clipboard() == page.url
    assert page.locator("#calc-copy-status").text_content() == UI_LABELS["copied"]["zh"]


def check_keyboard_only_and_announced(page, tmp_path):
    # Every control has a label.
    unlabelled = page.evaluate("""() => Array.from(document.querySelectorAll(
        '#calc-root input:not([type=hidden]), #calc-root select, #calc-root textarea')).filter(
        el => !el.closest('[hidden]') && el.labels.length === 0 && !el.getAttribute('aria-label')).map(el => el.id)""")
    assert unlabelled == []
    # Reach the layer count with Tab alone, type, and hear the result.
    page.focus("#calc-preset")
    for _ in range(40):
        if page.evaluate("document.activeElement.id") == "calc-bert-num_hidden_layers":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "calc-bert-num_hidden_layers"
    page.keyboard.press("Control+A")
    page.keyboard.type("6")
    expected = json.loads(run_cli({"model_type": "bert", "num_hidden_layers": 6}, tmp_path=tmp_path))
    wait_total(page, expected["total"])
    assert f"{expected['total']:,}" in page.locator("#calc-live").text_content()
    assert page.get_attribute("#calc-live", "aria-live") == "polite"
    # Space toggles the pooler; the page answers.
    page.focus("#calc-pooler")
    page.keyboard.press("Space")
    expected = json.loads(run_cli({"model_type": "bert", "num_hidden_layers": 6}, pooler=False, tmp_path=tmp_path))
    wait_total(page, expected["total"])
    # The per-tensor table opens from the keyboard.
    page.focus(".calc-tensors summary")
    page.keyboard.press("Enter")
    assert page.locator(".calc-tensors").get_attribute("open") is not None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_usable_at_375px(page, site, lang, tmp_path):
    """A phone's width from the load on: the page, then the paste box (one load, not two)."""
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(site.url("calculator/", lang))
    wait_ready(page)
    check_usable_at_375px(page, lang, tmp_path)
    check_paste_box_at_375px(page, tmp_path)


def check_usable_at_375px(page, lang, tmp_path):
    """On the page as loaded."""
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # The breakdown waits for "load" on a narrow screen (calculator-start.js, part 4): shown once loaded.
    assert page.locator("#calc-output").is_visible()
    box = page.locator(".calc-total").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375
    for selector in ("#calc-preset", "#calc-bert-hidden_size", 'button[data-copy="link"]'):
        b = page.locator(selector).first.bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= 375, selector
    page.fill("#calc-bert-hidden_size", "1024")
    page.fill("#calc-bert-num_attention_heads", "16")
    expected = json.loads(run_cli({"model_type": "bert", "hidden_size": 1024, "num_attention_heads": 16},
                                  tmp_path=tmp_path))
    wait_total(page, expected["total"])
    page.screenshot(path=str(tmp_path / f"calculator-375-{lang}.png"), full_page=True)


def check_paste_box_at_375px(page, tmp_path):
    """From any state: the default answer, the paste box closed, the page scrolled to its top (as loaded;
    scrolled by the fields filled before, the box can sit in view under the header, covered)."""
    back_to_the_default(page, DEFAULT_TOTAL)
    close_paste_box(page)
    page.evaluate("window.scrollTo(0, 0)")
    page.locator("#calc-config-box summary").scroll_into_view_if_needed()
    assert page.evaluate(PASTE_BOX_SEEN_JS)
    page.click("#calc-config-box summary")
    for selector in ("#calc-config-box", "#calc-config", "#calc-config-apply", "#calc-config-file"):
        b = page.locator(selector).bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= 375, selector
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    paste(page, json.dumps(HUB_ROBERTA_BASE))
    wait_total(page, json.loads(run_cli(HUB_ROBERTA_BASE, tmp_path=tmp_path))["total"])
