"""The costs panel's timeline chart and its inference mode, in the page (issue 32 item 3).

Expected values come from the CLI (``--format json``: ``costs.timeline``, ``costs.memory.peak``; ``--inference`` at
B and at N mod B for the FLOPs of N passages), never from the page's Python.
"""
from __future__ import annotations

import json
import subprocess
import sys
import urllib.parse

import pytest

from calculator.views import embed

from .support import ROOT, wait_error, wait_settled

pytestmark = pytest.mark.browser


def cli(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "calculator", *args, "--format", "json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["costs"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_timeline_chart_marks_the_clis_peak(page, site, lang):
    page.goto(site.url("calculator/", lang, "preset=bert-base-uncased&batch=8&seq_len=512&gpu_gb=8"))
    page.wait_for_selector("#calc-costs-output svg.timeline-chart", state="attached")
    wait_settled(page)
    expected = cli("--preset", "bert-base-uncased", "--batch", "8", "--seq-len", "512")
    chart = page.locator("#calc-costs-output svg.timeline-chart")
    assert chart.locator("circle").get_attribute("data-peak") == str(expected["memory"]["peak"])
    assert chart.locator("[data-budget]").get_attribute("data-budget") == str(8 * 2**30)
    exact = [p["phase"] for p in expected["timeline"]["phases"] if p["exact"]]
    assert chart.locator("polyline").evaluate_all("ls => ls.map(l => l.dataset.phase)") == exact
    assert f"{expected['memory']['peak']:,}" in chart.locator("desc").text_content()
    assert page.locator("#calc-costs-output .calc-costs-peak").get_attribute("data-peak-512") == \
        str(expected["memory"]["peak_512"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_inference_mode_from_a_link_copies_and_keeps_its_keys(page, context, site, lang):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.root.rstrip("/"))
    link = {"preset": "bert-base-uncased", "mode": "inference", "batch": "32", "seq_len": "256", "passages": "1000",
            "tflops": "19.5"}
    page.goto(site.url("calculator/", lang, urllib.parse.urlencode(link)))
    page.wait_for_selector("#calc-costs-output tr[data-embed]", state="attached")
    wait_settled(page)
    assert page.input_value("#calc-mode") == "inference" and page.input_value("#calc-passages") == "1000"
    one = cli("--preset", "bert-base-uncased", "--batch", "32", "--seq-len", "256", "--inference")
    rest = cli("--preset", "bert-base-uncased", "--batch", "8", "--seq-len", "256", "--inference")
    total = 31 * one["flops"]["forward"] + rest["flops"]["forward"]
    rows = dict(page.eval_on_selector_all("#calc-costs-output tr[data-embed]",
                                          "rs => rs.map(r => [r.dataset.embed, r.dataset.value])"))
    assert rows["flops"] == str(total) and rows["peak"] == str(one["memory"]["peak"]) and rows["forwards"] == "32"
    estimate = page.locator("#calc-costs-output .calc-embed-estimate")
    assert estimate.text_content() == embed.word("time_note", lang, tflops="19.5")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))
    assert {k: query.get(k) for k in link} == link
    page.click("#calc-costs button[data-costs-copy]")
    page.wait_for_function("document.getElementById('calc-costs-copy-status').textContent !== ''")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert f"{total:,}" in copied and "--inference" in copied and copied.rstrip("\n").endswith(f"(<{page.url}>)")
    # A bad TFLOPS: its coded error beside its field, in the page's language.
    page.fill("#calc-tflops", "0")
    loc = wait_error(page, "costs_tflops")
    assert loc.get_attribute("id") == "calc-tflops-error"
