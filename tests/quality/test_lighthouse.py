"""Lighthouse 12 (npm) on the home and calculator pages, in both languages.

Mobile form factor (Lighthouse's default); the bar: accessibility, best
practices and SEO = 1.0, one run each. The site is served the way GitHub Pages
serves it (gzip, subpath: tests/harness.py).

Performance is not a gate here: it is a simulation fed by timings measured on
this machine, so a busy machine costs a run points and the verdict would
depend on machine speed. It is measured by ``benchmarks/lighthouse.py``
(several runs per page, every run and the median printed). The three
categories gated here are audits of what the page is (its markup, headers,
console), the same on a fast machine and a slow one.

Each page's scores and failing audits go to test-results/quality/lighthouse.json,
and the reports to test-results/quality/lighthouse-<page>.json.
"""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from .conftest import RESULTS, SUITE_ARGS, ROOT, chrome_path, record, unavailable

pytestmark = [pytest.mark.slow, pytest.mark.browser]

LIGHTHOUSE = ROOT / "node_modules" / "lighthouse" / "cli" / "bin.js"
#: Lighthouse's CLI, exiting once the report is written (why: the file's opening comment).
RUN_LIGHTHOUSE = ROOT / "tests" / "quality" / "lighthouse.mjs"
CATEGORIES = ("accessibility", "best-practices", "seo")
BAR = {"accessibility": 1.0, "best-practices": 1.0, "seo": 1.0}
PAGES = {"home-en": "", "home-zh": "zh/", "calculator-en": "calculator/", "calculator-zh": "zh/calculator/"}


def lighthouse(url: str, out, categories=CATEGORIES, extra=()) -> dict:
    """One Lighthouse run on ``url``; the JSON report (also left at ``out``)."""
    cmd = [
        "node", str(RUN_LIGHTHOUSE), url,
        "--quiet",
        "--output=json", f"--output-path={out}",
        f"--only-categories={','.join(categories)}",
        "--chrome-flags=" + " ".join(SUITE_ARGS),
        "--max-wait-for-load=180000",  # a hang guard, as HANG_MS
        # The full-page screenshot only illustrates the HTML report; no audit of the three
        # gated categories scores it, and taking it costs ~1.3 s a run.
        "--disable-full-page-screenshot",
        *extra,
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "CHROME_PATH": chrome_path()})
    assert proc.returncode == 0, f"lighthouse failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return json.loads(open(out, encoding="utf-8").read())


def summarise(report: dict, categories=CATEGORIES) -> dict:
    scores = {c: report["categories"][c]["score"] for c in categories}
    failing = {}
    for c in categories:
        for ref in report["categories"][c]["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref["weight"] > 0 and audit["score"] is not None and audit["score"] < 1:
                failing[ref["id"]] = {"score": audit["score"], "value": audit.get("displayValue", "")}
    return {"scores": scores, "failing": failing,
            "runtime_error": (report.get("runtimeError") or {}).get("code")}


def lighthouse_or_skip() -> None:
    if not LIGHTHOUSE.exists():
        unavailable("node_modules/lighthouse is missing: run `npm ci`")
    if not os.path.exists(chrome_path()):
        unavailable(f"no browser at {chrome_path()} (set CHROME_PATH)")


@pytest.mark.parametrize("name", PAGES)
def test_lighthouse(site, name, tmp_path):
    lighthouse_or_skip()
    report = lighthouse(site.url + PAGES[name], tmp_path / "report.json")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"lighthouse-{name}.json").write_text(json.dumps(report), encoding="utf-8")
    run = summarise(report)
    record("lighthouse", {name: {"url": PAGES[name] or "/", **run}})
    assert run["runtime_error"] is None, run
    below = {c: run["scores"][c] for c in CATEGORIES if run["scores"][c] < BAR[c]}
    assert below == {}, json.dumps(run, indent=1)
