"""The reader's own name for a result (label=) and a preset with changed values (issue 22, item 1).

The result is named by what the reader chose: the label they typed or linked, and the preset they
picked, marked as changed once its values differ; the title, the copied Markdown and the link carry
both, and a label is shown as text, never as markup.
"""
from __future__ import annotations

import urllib.parse

import pytest

from .support import wait_ready, wait_settled, wait_total

# roberta-base (124,645,632, the HF model card's count) minus six encoder layers of
# 4·768² + 4·768 (attention) + 2·768·3072 + 3072 + 768 (feed-forward) + 4·768 (two LayerNorms) = 7,087,872 each.
SIX_LAYERS = 124_645_632 - 6 * (4 * 768 * 768 + 4 * 768 + 2 * 768 * 3072 + 3072 + 768 + 4 * 768)
MARKER = {"en": "roberta-base, changed: num_hidden_layers", "zh": "roberta-base，已修改：num_hidden_layers"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_label_and_changed_preset_name_the_result_and_its_copies(page, context, site, lang):
    assert SIX_LAYERS == 82_118_400
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.root.rstrip("/"))
    page.goto(site.url("calculator/", lang, "preset=roberta-base&num_hidden_layers=6&label=My%20model"))
    wait_total(page, SIX_LAYERS)
    title = page.locator("#calc-summary .calc-model").text_content()
    assert title.startswith(f"My model · {MARKER[lang]} · RobertaModel"), title
    # The form shows what the link gave: the label in its field, the preset still picked.
    assert page.input_value("#calc-label") == "My model"
    assert page.input_value("#calc-preset") == "roberta-base"
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert query["label"] == ["My model"] and query["preset"] == ["roberta-base"]
    assert query["num_hidden_layers"] == ["6"]
    page.click('button[data-copy="markdown"]')
    page.wait_for_function("document.getElementById('calc-copy-status').textContent !== ''")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert f"[My model · {MARKER[lang]} · RobertaModel" in copied, copied
    assert "label=My" in copied
    # A label Markdown or HTML would act on reaches the copied link's label escaped, by Python's md_text
    # (issue 35, reliability M5), and the Chinese source line has the full-width colon (zh M9).
    page.fill("#calc-label", "<b>x</b> | **y**")
    page.wait_for_function("document.querySelector('#calc-summary .calc-model').textContent.startsWith('<b>x</b>')")
    wait_settled(page)
    page.evaluate("document.getElementById('calc-copy-status').textContent = ''")
    page.click('button[data-copy="markdown"]')
    page.wait_for_function("document.getElementById('calc-copy-status').textContent !== ''")
    copied = page.evaluate("navigator.clipboard.readText()")
    source = copied.rstrip("\n").rsplit("\n\n", 1)[1]
    assert source.startswith("[\\<b\\>x\\</b\\> \\| \\*\\*y\\*\\* · "), source
    assert ("：" if lang == "zh" else ": ") + "82,118,400](<" in source, source


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_label_is_text_never_markup(page, site, lang):
    payload = "<script>window.labelRan = 1</script><b>bold</b>"
    page.goto(site.url("calculator/", lang, "preset=roberta-base&label=" + urllib.parse.quote(payload)))
    wait_ready(page)
    page.wait_for_function(
        "(p) => document.querySelector('#calc-summary .calc-model').textContent.startsWith(p)", arg=payload,
    )
    wait_settled(page)
    assert page.evaluate("window.labelRan === undefined")
    assert page.locator("#calc-summary .calc-model b, #calc-summary .calc-model script").count() == 0
    assert page.input_value("#calc-label") == payload


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_typed_label_and_too_long_label(page, site, lang):
    page.goto(site.url("calculator/", lang, "preset=roberta-base"))
    wait_total(page, 124_645_632)
    page.fill("#calc-label", "Mine")
    page.wait_for_function("document.querySelector('#calc-summary .calc-model').textContent.startsWith('Mine · ')")
    wait_settled(page)
    assert "label=Mine" in page.url
    page.fill("#calc-label", "x" * 101)
    err = page.locator('[data-error-code="label_too_long"]')
    err.wait_for(state="visible")
    assert page.get_attribute("#calc-label", "aria-invalid") == "true"
