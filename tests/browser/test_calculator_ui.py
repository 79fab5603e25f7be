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

from calculator.presets import PRESETS

from .support import (ROOT, expected_numbers, page_numbers, run_cli, wait_error, wait_ready, wait_settled,
                      wait_total)

pytestmark = pytest.mark.browser

DEFAULT_TOTAL = 109_482_240
#: roberta-base's config.json as published on the Hugging Face Hub.
HUB_ROBERTA_BASE = {
    "architectures": ["RobertaForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
    "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
    "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
    "model_type": "roberta", "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1,
    "type_vocab_size": 1, "vocab_size": 50265,
}


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


def paste(page, text: str) -> None:
    if page.get_attribute("#calc-config-box", "open") is None:
        page.click("#calc-config-box summary")
    page.fill("#calc-config", text)
    page.click("#calc-config-apply")


def title(page) -> str:
    return page.locator("#calc-summary .calc-model").text_content()


def keras_rows(page) -> list:
    return page.eval_on_selector_all(
        "#calc-output tr[data-keras-layer]",
        "rs => rs.map(r => [r.dataset.kerasLayer, r.dataset.class, Number(r.dataset.count), r.dataset.trainable === '1'])",
    )


def cli_keras_rows(expected: dict) -> list:
    return [[k["name"], k["class"], k["count"], k["trainable"]] for k in expected["layers"]]


# ---------------------------------------- 2: an error no field is marked for


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_error_without_a_field_does_not_point_at_one(page, context, site, lang):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.root.rstrip("/"))
    marked = "marked" if lang == "en" else "标出"
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


@pytest.mark.parametrize("lang,message", [("en", "hidden_size is empty: enter a whole number."),
                                          ("zh", "hidden_size 为空：请输入整数。")])
def test_emptied_field_asks_for_a_whole_number(page, site, lang, message):
    page.goto(site.url("calculator/", lang))
    wait_ready(page)
    page.fill("#calc-bert-hidden_size", "")
    loc = wait_error(page, "not_integer")
    assert loc.get_attribute("id") == "calc-bert-hidden_size-error"
    assert loc.text_content() == message
    assert page.locator("#calc-live").text_content() == message
    page.fill("#calc-bert-hidden_size", "768")
    wait_total(page, DEFAULT_TOTAL)
