"""The training-cost panel's peak and "what fits" (issue 32 item 3), in Chromium: the CLI's figures on the page.

One load per language. English: a link opens the panel with the peak (its figure or bounds, its phase, the largest
items live then) and the CLI's verdict; the button asks for the search once (the answer's batch and length are the
CLI's ``--fit-gib``, the address gains ``fit=1``, the copy has the lines and the option), and the next edit drops
it. Chinese: a link with ``fit=1`` opens the search's answer itself (the address is the state).
"""
from __future__ import annotations

import json
import subprocess
import sys
import urllib.parse

import pytest

from calculator import api
from calculator.views import costs as cv

from .support import ROOT, wait_settled

pytestmark = pytest.mark.browser

#: bert-base-uncased at B = 1, L = 128 on a 2 GB card: its peak is exact (tests/unit/test_peak.py works it out).
LINK = {"preset": "bert-base-uncased", "batch": "1", "seq_len": "128", "gpu_gb": "2"}
CLI = ["--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "128", "--gpu-gb", "2", "--fit-gib", "2"]


def cli_costs(lang: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "calculator", *CLI, "--format", "json", "--lang", lang], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["costs"]


def query(page) -> dict:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))


def check_peak(page, expected: dict, lang: str) -> None:
    """The peak's block: the figure (or bounds), the phase, the largest items; the verdict the CLI's."""
    peak = page.locator("#calc-costs-output .calc-costs-peak")
    figure = expected["memory"]["peak"]
    if figure is not None:
        assert peak.get_attribute("data-peak") == str(figure)
        assert peak.get_attribute("data-phase") == expected["peak_at"]["phase"]
        items = page.eval_on_selector_all("#calc-costs-output tr[data-peak-item]",
                                          "rs => rs.map(r => [r.dataset.peakItem, Number(r.dataset.bytes)])")
        assert items == [[i["kind"], i["bytes"]] for i in expected["peak_at"]["items"]]
        assert f"{figure:,}" in peak.text_content()
    else:
        assert peak.get_attribute("data-lower") == str(expected["peak_note"]["lower"])
    assert page.locator("#calc-costs-output .calc-costs-fits").get_attribute("data-fits") == expected["fits"]


def check_search(page, expected: dict, lang: str) -> None:
    search = page.locator("#calc-costs-output .calc-costs-search")
    fit = expected["fit"]
    for key in ("max_batch", "max_batch_at_least", "max_seq_len", "max_seq_len_at_least"):
        value = search.get_attribute("data-" + key.replace("_", "-"))
        assert value == ("" if fit[key] is None else str(fit[key])), key
    lines = [p.text_content() for p in search.locator("p").all()][1:]
    assert lines == cv.fit_lines(fit, lang)
    assert query(page).get("fit") == "1"


def test_peak_and_search_on_one_visit(page, context, site):
    lang = "en"
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.root.rstrip("/"))
    expected = cli_costs(lang)
    page.goto(site.url("calculator/", lang, urllib.parse.urlencode(LINK)))
    page.wait_for_selector("#calc-costs-output .calc-costs-peak", state="attached")
    wait_settled(page)
    check_peak(page, expected, lang)
    # No search until asked: none in the answer, the address or the copy's command.
    assert page.locator("#calc-costs-output .calc-costs-search").count() == 0 and "fit" not in query(page)
    # Asked: the search's answer is the CLI's --fit-gib 2 (the card's N GiB), in the address and the copy.
    page.click("#calc-costs button[data-costs-fit]")
    page.wait_for_selector("#calc-costs-output .calc-costs-search", state="attached")
    wait_settled(page)
    check_search(page, expected, lang)
    check_peak(page, expected, lang)
    page.click("#calc-costs button[data-costs-copy]")
    page.wait_for_function("document.getElementById('calc-costs-copy-status').textContent !== ''")
    assert page.locator("#calc-costs-copy-status").text_content() == api.UI_LABELS["copied"][lang]
    copied = page.evaluate("navigator.clipboard.readText()")
    assert all(line in copied for line in cv.fit_lines(expected["fit"], lang)) and "--fit-gib 2" in copied
    # The next edit asks without the search: quick again, and the address says so.
    page.fill("#calc-batch", "2")
    page.wait_for_function("!location.search.includes('fit=')")
    wait_settled(page)
    assert page.locator("#calc-costs-output .calc-costs-search").count() == 0
    assert page.input_value("#calc-fit") == "0"


def test_a_link_with_fit_opens_the_search(page, site):
    lang = "zh"
    expected = cli_costs(lang)
    page.goto(site.url("calculator/", lang, urllib.parse.urlencode({**LINK, "fit": "1"})))
    page.wait_for_selector("#calc-costs-output .calc-costs-search", state="attached")
    wait_settled(page)
    check_search(page, expected, lang)
    check_peak(page, expected, lang)
    assert page.locator("#calc-costs-output .calc-costs-peak").text_content().startswith("显存峰值")
    # The field is one request's: the page's next request would not search again.
    assert page.input_value("#calc-fit") == "0"
