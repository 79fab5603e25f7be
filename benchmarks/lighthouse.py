"""Lighthouse performance of the home and calculator pages, both languages: every run and the median.

    .venv/bin/python benchmarks/lighthouse.py [--runs 5] [--site DIR] [--json FILE] [--page NAME ...]

A script that prints figures, not a test (tests/quality/test_lighthouse.py gates
accessibility, best practices and SEO, which do not depend on machine speed).
Lighthouse's performance score is a simulation (mobile, simulated throttling:
Lighthouse's defaults) fed by timings taken on this machine, so a busy machine
costs a run points; hence several runs per page, each printed, and the median,
which is what the goal (0.95, issue 14) is about.

It builds the site for a project site's URL (unless ``--site`` points at a
built one: the directory holding ``index.html``), serves it the way GitHub
Pages does (``tests/harness.py``: under ``/bert-parameter-count/``,
gzip, ``Cache-Control``) on 127.0.0.1, and runs Lighthouse's CLI
(``tests/quality/lighthouse.mjs``: npm's ``lighthouse``, exiting once the report
is written) against Chromium (``CHROME_PATH`` or /usr/bin/chromium). The runs of the pages
are interleaved (run 1 of every page, then run 2, ...), so a slow minute of a
shared machine does not land on one page's runs only.

Per run: the score and the metrics it is computed from (FCP, LCP, speed index,
total blocking time, CLS), and the bytes Lighthouse saw.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.chromium import CHROMIUM_ARGS, chromium_path  # noqa: E402
from tests.harness import serve  # noqa: E402

LIGHTHOUSE = ROOT / "node_modules" / "lighthouse" / "cli" / "bin.js"
#: Lighthouse's CLI, exiting once the report is written (its opening comment says why).
RUN_LIGHTHOUSE = ROOT / "tests" / "quality" / "lighthouse.mjs"
SUBPATH = "bert-parameter-count"
SITE_URL = f"https://example.github.io/{SUBPATH}/"
PAGES = {"home-en": "", "home-zh": "zh/", "calculator-en": "calculator/", "calculator-zh": "zh/calculator/"}
GOAL = 0.95
METRICS = {
    "first-contentful-paint": "FCP ms",
    "largest-contentful-paint": "LCP ms",
    "speed-index": "SI ms",
    "total-blocking-time": "TBT ms",
    "cumulative-layout-shift": "CLS",
    "total-byte-weight": "bytes",
}


def build_site(out: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
        cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "SITE_URL": SITE_URL, "NO_MKDOCS_2_WARNING": "1"},
    )
    if proc.returncode != 0:
        sys.exit(f"mkdocs build failed:\n{proc.stdout}\n{proc.stderr}")


def run_once(url: str, out: Path) -> dict:
    cmd = [
        "node", str(RUN_LIGHTHOUSE), url, "--quiet",
        "--output=json", f"--output-path={out}",
        "--only-categories=performance",
        "--chrome-flags=" + " ".join(CHROMIUM_ARGS),
        "--max-wait-for-load=180000",
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "CHROME_PATH": chromium_path()})
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout)[-2000:]}
    report = json.loads(out.read_text(encoding="utf-8"))
    if report.get("runtimeError"):
        return {"error": report["runtimeError"].get("code")}
    audits = report["audits"]
    metrics = {}
    for key in METRICS:
        if key in audits and audits[key].get("numericValue") is not None:
            value = audits[key]["numericValue"]
            metrics[key] = round(value, 4) if key == "cumulative-layout-shift" else round(value)
    return {"score": report["categories"]["performance"]["score"], "metrics": metrics}


def fmt(value) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if isinstance(value, float) and value < 1 else f"{value:,.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per page (default 5)")
    parser.add_argument("--site", type=Path, help="an already built site (default: build one)")
    parser.add_argument("--page", action="append", choices=sorted(PAGES), help="only this page (repeatable)")
    parser.add_argument("--json", type=Path, help="also write every run here")
    args = parser.parse_args(argv)
    if not LIGHTHOUSE.exists():
        print("node_modules/lighthouse is missing: run `npm ci`", file=sys.stderr)
        return 1
    if not os.path.exists(chromium_path()):
        print(f"no browser at {chromium_path()} (set CHROME_PATH)", file=sys.stderr)
        return 1
    pages = {name: PAGES[name] for name in (args.page or PAGES)}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        top = tmp / "top"
        if args.site:  # copied: the server serves nothing outside its directory
            shutil.copytree(args.site, top / SUBPATH)
        else:
            print("building the site ...", file=sys.stderr)
            build_site(top / SUBPATH)
        server, url = serve(top, SUBPATH)
        runs: dict[str, list[dict]] = {name: [] for name in pages}
        try:
            for i in range(args.runs):
                for name, rel in pages.items():
                    result = run_once(url + rel, tmp / "report.json")
                    runs[name].append(result)
                    shown = result.get("error") or f"{result['score']:.2f}"
                    print(f"run {i + 1}/{args.runs} {name:14} performance {shown}", file=sys.stderr)
        finally:
            server.shutdown()
            shutil.rmtree(tmp / "top", ignore_errors=True)

    print(f"Lighthouse performance, mobile, simulated throttling; {args.runs} runs per page "
          f"(goal: median >= {GOAL})\n")
    header = f"{'page':14} {'run':>4} {'score':>6}  " + "  ".join(f"{label:>9}" for label in METRICS.values())
    print(header)
    summary = {}
    for name, results in runs.items():
        good = [r for r in results if "score" in r]
        for i, r in enumerate(results, 1):
            if "error" in r:
                print(f"{name:14} {i:>4} {'error':>6}  {str(r['error'])[:60]}")
                continue
            cells = "  ".join(f"{fmt(r['metrics'].get(key)):>9}" for key in METRICS)
            print(f"{name:14} {i:>4} {r['score']:>6.2f}  {cells}")
        if good:
            median = statistics.median(r["score"] for r in good)
            medians = {key: statistics.median(r["metrics"][key] for r in good if key in r["metrics"])
                       for key in METRICS}
            cells = "  ".join(f"{fmt(medians[key]):>9}" for key in METRICS)
            verdict = "meets the goal" if median >= GOAL else "BELOW the goal"
            print(f"{name:14} {'med':>4} {median:>6.2f}  {cells}   {verdict}")
            summary[name] = {"url": pages[name] or "/", "median": median, "median_metrics": medians,
                             "scores": [r["score"] for r in good], "errors": len(results) - len(good)}
        print()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"summary": summary, "runs": runs}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
