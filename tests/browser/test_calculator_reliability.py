"""Crafted links and inputs, the watchdog, and Copy: the reliability review's #3-#6 in the page.

Each crafted input is answered with its coded error (never a hang, a crash of
calculator.js or Pyodide's stack, or an ``internal``), after which the same page
still answers a good input. Several inputs share one page session (typed, pasted),
so the file costs four page loads and one stubbed worker. Waits are hang guards
only (BOOT_TIMEOUT_MS); the verdict is always the code or the number shown.
"""
from __future__ import annotations

import re

from .support import BOOT_TIMEOUT_MS, wait_error, wait_ready, wait_settled, wait_total

#: bert-base-uncased, BertModel with its pooler: 109,482,240 (transformers' num_parameters()).
BERT_BASE = 109_482_240
#: bert-base-uncased with 2 layers: 12 layers cost 7,087,872 each (4 x 768^2 + 4 x 768 for attention,
#: 2 x 768 x 3072 + 3072 + 768 for the feed-forward, 4 x 768 for two LayerNorms), so 10 fewer.
BERT_2_LAYERS = BERT_BASE - 10 * 7_087_872
#: What a stuck worker looks like to the page: it says "ready" and never answers.
STUCK_WORKER = "postMessage({type: 'ready', ms: 1, timings: {}}); self.onmessage = () => {};"
WORKER_URL = re.compile(r".*/assets/js/worker\.js(\?.*)?$")


def _copy_refused(page, button: str) -> str:
    """Click a Copy button; return the refusal it shows (data-refused), or "" if it copied."""
    page.evaluate("document.getElementById('calc-copy-status').textContent = ''")
    page.locator(f'button[data-copy="{button}"]').first.click()
    page.wait_for_function("document.getElementById('calc-copy-status').textContent !== ''")
    return page.locator("#calc-copy-status").get_attribute("data-refused") or ""


def _fill(page, selector: str, value: str) -> None:
    """Type into a field the way a reader does (one input event), even inside a closed <details>."""
    page.evaluate(
        """([sel, value]) => {
            const el = document.querySelector(sel);
            for (let d = el.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
            el.value = value;
            el.dispatchEvent(new Event('input', {bubbles: true}));
            el.dispatchEvent(new Event('change', {bubbles: true}));
        }""",
        [selector, value],
    )


def _paste(page, text: str) -> None:
    page.evaluate(
        """(text) => {
            const box = document.getElementById('calc-config-box');
            box.open = true;
            document.getElementById('calc-config').value = text;
            document.getElementById('calc-config-apply').click();
        }""",
        text,
    )


def test_prototype_names_in_a_link_are_unknown_not_a_crash(page, site):
    # Both of calculator.js's lookups at once: the family by model_type, the preset by name.
    page.goto(site.url("calculator/", query="preset=__proto__&model_type=toString&num_hidden_layers=3"))
    code = wait_error(page, "unknown_preset")
    assert "__proto__" in code.text_content()
    root = page.locator("#calc-root")
    assert root.get_attribute("data-result") in ("stale", "pending")
    assert page.locator("#calc-model_type").input_value() == "bert"  # the picker still shows a family
    assert _copy_refused(page, "markdown") == "stale"
    # The page still answers.
    _fill(page, "#calc-bert-num_hidden_layers", "2")
    wait_total(page, BERT_2_LAYERS)

    page.goto(site.url("calculator/", query="model_type=constructor&num_hidden_layers=3"))
    wait_error(page, "unknown_model_type")
    page.goto(site.url("calculator/", query="preset=hasOwnProperty"))
    wait_error(page, "unknown_preset")


def test_crafted_inputs_are_refused_and_the_page_still_answers(page, site):
    # A link that once hung the worker for good (Fraction() of 10**100000000).
    page.goto(site.url("calculator/", query="preset=bert-base-uncased&active_fraction=1e-100000000"))
    wait_error(page, "bad_fraction")
    # Typed: a regex as a module name (re.match backtracking), and the same exponent.
    _fill(page, "#calc-active_fraction", "1")
    wait_total(page, BERT_BASE)
    _fill(page, "#calc-lora_r", "8")
    _fill(page, "#calc-modules_to_save", "(.*.*.*.*.*.*.*.*.*.*)Z")
    wait_error(page, "module_name")
    _fill(page, "#calc-lora_r", "99999999999999999999")
    err = wait_error(page, "too_large")
    assert "99999999999999999999" in err.text_content()
    _fill(page, "#calc-lora_r", "")
    _fill(page, "#calc-modules_to_save", "")
    wait_total(page, BERT_BASE)
    # Pasted: JSON nested 5,000 deep (Pyodide's stack), a 5,000-digit number, a padding row below the table.
    _paste(page, '{"a": ' + "[" * 5000 + "]" * 5000 + "}")
    err = wait_error(page, "invalid_json")
    assert "nested too deeply" in err.text_content()
    _paste(page, '{"model_type": "bert", "vocab_size": ' + "9" * 5000 + "}")
    wait_error(page, "too_large")
    _paste(page, '{"model_type": "bert", "pad_token_id": -40000}')
    wait_error(page, "padding_idx")
    # A byte order mark, as an editor on Windows writes one, is not an error.
    _paste(page, '\ufeff{"model_type": "bert", "num_hidden_layers": 2}')
    wait_total(page, BERT_2_LAYERS)
    assert page.locator("#calc-root").get_attribute("data-restarts") is None  # nothing needed the watchdog

    # keras-bert's trainable from a link, nested 4,000 deep: depth checked before json.loads.
    page.goto(site.url("calculator/", query="model_type=keras-bert&trainable=" + "[" * 4000 + "]" * 4000))
    wait_error(page, "bad_value")
    page.goto(site.url("calculator/", query="preset=bert-base-uncased&pad_token_id=-40000"))
    wait_error(page, "padding_idx")


def test_copy_refuses_a_pending_result(page, site, context):
    """A link's result is pending until Python answers: Copy must not copy the default's table."""
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.root.rstrip("/"))
    held = []
    page.route(WORKER_URL, lambda route: held.append(route))  # Python never arrives
    page.goto(site.url("calculator/", query="preset=bert-large-uncased&num_hidden_layers=3"))
    page.wait_for_function("document.getElementById('calc-root').dataset.result === 'pending'")
    page.evaluate("navigator.clipboard.writeText('untouched')")
    assert _copy_refused(page, "markdown") == "pending"
    assert _copy_refused(page, "text") == "pending"
    assert page.evaluate("navigator.clipboard.readText()") == "untouched"
    page.unroute(WORKER_URL)  # the held request ends with the tab


def test_the_watchdog_restarts_a_worker_that_does_not_answer(page, site):
    page.add_init_script("window.__calcWatchdogMs = 1500")
    page.route(WORKER_URL, lambda route: route.fulfill(
        status=200, content_type="text/javascript", body=STUCK_WORKER))
    page.goto(site.url("calculator/"))
    wait_ready(page)
    page.unroute(WORKER_URL)  # the restarted worker is the real one
    _fill(page, "#calc-bert-num_hidden_layers", "2")
    # The request is in flight: the shown result is not the inputs', and Copy says so.
    assert page.locator("#calc-root").get_attribute("data-result") == "pending"
    assert _copy_refused(page, "link") == "pending"
    err = page.locator('[data-error-code="timeout"]')
    err.wait_for(state="visible", timeout=BOOT_TIMEOUT_MS)
    assert page.locator("#calc-root").get_attribute("data-restarts") == "1"
    assert page.locator("#calc-live").text_content() == err.text_content()  # announced
    assert page.locator("#calc-root").get_attribute("data-result") == "stale"
    # The new worker answers the next input.
    wait_ready(page)
    _fill(page, "#calc-bert-num_hidden_layers", "12")
    wait_total(page, BERT_BASE)
    wait_settled(page)
