"""Published configs whose tensors equal a preset's never carry that preset's name (issue 22, item 1).

intfloat/multilingual-e5-large's config.json builds exactly xlm-roberta-large's tensors, and
BAAI/bge-large-zh-v1.5's exactly hfl/chinese-roberta-wwm-ext-large's (the reader review's finding 1:
the page used to name them so, in the title, the link and the copied Markdown). Pasted, given a label
in the form, and reopened from the link with ``label=``, the page shows, links and copies neither
preset's name: only "pasted config" / "自定义配置", the reader's label, and ``_name_or_path`` quoted under
its key. The expected totals are transformers' (random weights on the meta device).
"""
from __future__ import annotations

import json
import re
import urllib.parse

import pytest

from tests.unit.helpers import HUB_BGE_LARGE_ZH_V15, HUB_MULTILINGUAL_E5_LARGE

from .support import wait_ready, wait_settled, wait_total
from .test_calculator_published import transformers_total

#: (checkpoint, its config.json, the preset whose tensors it equals).
CASES = (
    ("intfloat/multilingual-e5-large", HUB_MULTILINGUAL_E5_LARGE, "xlm-roberta-large"),
    ("BAAI/bge-large-zh-v1.5", HUB_BGE_LARGE_ZH_V15, "hfl/chinese-roberta-wwm-ext-large"),
)
PASTED = {"en": "pasted config", "zh": "自定义配置"}


def _without_origin(text: str) -> str:
    """``text`` with the quoted ``_name_or_path: …`` taken out: the one place a checkpoint's path may stand."""
    return re.sub(r"_name_or_path[:：]\s*[^)）\]]*", "", text)


def _copy(page, kind: str) -> str:
    page.evaluate("document.getElementById('calc-copy-status').textContent = ''")
    page.locator(f'button[data-copy="{kind}"]').first.click()
    page.wait_for_function("document.getElementById('calc-copy-status').textContent !== ''")
    assert page.locator("#calc-copy-status").get_attribute("data-refused") is None
    return page.evaluate("navigator.clipboard.readText()")


def _check_unnamed(page, preset: str, label: str | None, lang: str) -> None:
    """Nothing the reader sees, links or copies names ``preset``; the label (if any) or "pasted config" does."""
    title = page.locator("#calc-summary .calc-model").text_content()
    live = page.locator("#calc-live").text_content()
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert page.input_value("#calc-preset") == ""
    assert "preset" not in query, page.url
    if label is None:
        assert title.startswith(PASTED[lang]), title
    else:
        assert title.startswith(label + " · "), title
        assert query["label"] == [label]
    for kind in ("link", "markdown", "text"):
        copied = _copy(page, kind)
        assert preset not in _without_origin(urllib.parse.unquote(copied)), (kind, copied)
        assert "preset=" not in copied, (kind, copied)
        if label is not None and kind != "link":
            assert label in copied, (kind, copied)
    for shown in (title, live):
        assert preset not in _without_origin(shown), shown
    # No heading, cell or note of the result names it either (the Hub note is the preset's own).
    for block in ("#calc-summary", "#calc-output", "#calc-mini"):
        assert preset not in _without_origin(page.locator(block).inner_text()), block


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_configs_equal_to_a_preset_never_carry_its_name(page, context, site, lang):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.root.rstrip("/"))
    page.goto(site.url("calculator/", lang))
    wait_ready(page)
    for name, config, preset in CASES:
        total = transformers_total(config, config["architectures"][0])
        # Pasted (applied on paste, as a reader does it).
        if page.get_attribute("#calc-config-box", "open") is None:
            page.click("#calc-config-box summary")
        page.fill("#calc-config", json.dumps(config))
        page.click("#calc-config-apply")
        wait_total(page, total)
        _check_unnamed(page, preset, None, lang)
        # A label typed after pasting names it; the values still name no preset.
        label = f"{name.split('/')[1]} answer"
        page.fill("#calc-label", label)
        page.wait_for_function(
            "(l) => document.querySelector('#calc-summary .calc-model').textContent.startsWith(l + ' · ')", arg=label,
        )
        wait_settled(page)
        _check_unnamed(page, preset, label, lang)
        # The link as shared, label= included, reopened.
        page.goto(page.url)
        wait_total(page, total)
        _check_unnamed(page, preset, label, lang)
