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
