"""The training-cost panel in an error state (issue 35: reliability review 2 L3, Chinese review 3 M3).

A link whose step is refused shows the error, and the panel must then not keep saying
"Calculating the training step…"; the panel's Copy refusal names what is wrong: the field by
the label the reader sees beside it, or (an error without a field) the model class or plan,
never "fix the marked input" when no input is marked. Both languages.
"""
from __future__ import annotations

import pytest

from calculator.page.costs import label as panel_label
from calculator.page.labels import ui

from .support import wait_error

pytestmark = pytest.mark.browser


def refusal(page) -> str:
    page.click("#calc-costs button[data-costs-copy]")
    status = page.locator("#calc-costs-copy-status")
    page.wait_for_function("document.getElementById('calc-costs-copy-status').textContent !== ''")
    assert status.get_attribute("data-refused") == "stale"
    return status.text_content()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_calculating_beside_an_error_and_the_refusal_names_it(page, site, lang):
    # (1) An error beside a field of the panel, from a link (the panel never had figures).
    page.goto(site.url("calculator/", lang, "preset=bert-base-uncased&batch=2&seq_len=16&dtype=fp16"))
    wait_error(page, "costs_dtype")
    out = page.locator("#calc-costs-output").text_content()
    assert panel_label("loading", lang) not in out
    assert out == ui("costs_unavailable", lang)
    said = refusal(page)
    field = page.locator('label[for="calc-dtype"]').text_content().strip()
    assert field and field in said, said
    assert said != ui("copy_stale", lang)
    # (2) An error without a field (LoRA on the embeddings): the refusal says the plan or class is why.
    page.goto(site.url("calculator/", lang, "preset=bert-base-uncased&lora_r=8&lora_targets=word_embeddings"
                                            "&batch=2&seq_len=16"))
    wait_error(page, "costs_lora_embedding")
    assert panel_label("loading", lang) not in page.locator("#calc-costs-output").text_content()
    said = refusal(page)
    assert said in (ui("copy_costs_none", lang), ui("copy_costs_general", lang)), said
    assert page.locator("#calc-costs [aria-invalid]").count() == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_over_8_kb_is_not_written_and_the_reader_is_told(page, site, lang):
    """Reliability review 2 L6: X-MOD's languages within their bounds (128 names of 16 characters), in CJK,
    make a 15 KB link; servers answer 414 over about 8 KB. The address keeps no query, a coded message in the
    reader's language says why, Copy link refuses with it, and the result is shown and current."""
    import urllib.parse

    languages = ",".join("語" * 13 + f"{i:03d}" for i in range(128))
    query = urllib.parse.urlencode({"model_type": "xmod", "languages": languages})
    assert len(query) > 8192
    page.goto(site.url("calculator/", lang, query))
    loc = wait_error(page, "link_too_long")
    assert "8 KB" in loc.text_content()
    assert loc.text_content().startswith(ui("error_link_too_long", lang, kb=0).split("0", 1)[0])
    assert len(page.url) <= 8192 and "?" not in page.url
    assert page.locator("#calc-summary [data-total]").count() == 1
    assert page.locator("#calc-output.calc-stale").count() == 0
    page.click("button[data-copy=link] >> nth=0")
    status = page.locator(".calc-copy-status[data-refused=link_too_long]").first
    status.wait_for(state="attached")
    assert "8 KB" in status.text_content()
