"""How long a phone's main thread is blocked: the calculator and explainer pages against an empty page.

Chromium's CPU is throttled 4× (DevTools' "mid-range mobile"). For each page,
several cold loads; each load sums every long task's time over 50 ms in the
first 12 s (total blocking time, as Lighthouse defines it, over a fixed
window), the pages' runs interleaved so that each run's ratio to the
baseline is paired, and a trace names the longest tasks and what ran in them. The
baseline is a page built in the same run with the site's theme, scripts and
styles and an empty article, so the figure for a page is what the page itself
adds. Figures only: nothing here is a test.

    .venv/bin/python benchmarks/main_thread.py [--runs 5] [--pages calculator/ zh/calculator/ ...]

``--keep DIR`` keeps the built site (baseline page included); ``--site DIR`` measures such a site instead of
building one; ``--against DIR``, a second such site (say, ``main``'s), measured in the same interleaved runs:
each page is then printed for both sites, with the paired ratio of the two (a before/after on a shared machine).

Each load also reads the main thread's own script, style and layout time (Chromium's ``Performance.getMetrics``
in thread time): on a busy machine the blocking time waits for a core and swings by 2-3× from one load to the
next (an identical page on two sites, paired, 0.61-1.0×), while this CPU figure is what the page itself asks of
the thread, so a change too small to show in the blocking time shows there (printed last, medians, paired).
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.chromium import CHROMIUM_ARGS, chromium_path  # noqa: E402

WINDOW_MS = 12_000
THROTTLE = 4
PAGES = ["baseline/", "zh/baseline/", "calculator/", "zh/calculator/", "", "zh/", "other-encoders/"]

OBSERVE = """
window.__long = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__long.push([e.startTime, e.duration]);
}).observe({type: "longtask", buffered: true});
"""


def build(out: Path) -> None:
    """The site plus an empty baseline page, built from a copy of docs/ with the same config."""
    docs = out / "docs"
    shutil.copytree(ROOT / "docs", docs)
    (docs / "baseline.md").write_text("# Baseline\n", encoding="utf-8")
    (docs / "baseline.zh.md").write_text("# 基线\n", encoding="utf-8")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("docs_dir: docs", f"docs_dir: {docs}").replace("nav:\n", "nav:\n  - baseline.md\n", 1)
    cfg = ROOT / ".bench-mkdocs.yml"  # beside mkdocs.yml, so its hook paths resolve
    cfg.write_text(config, encoding="utf-8")
    try:
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SITE_URL="http://127.0.0.1/")
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(cfg), "-d", str(out / "site")],
                       cwd=ROOT, env=env, check=True, capture_output=True)
    finally:
        cfg.unlink()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


def serve(directory: Path) -> tuple[socketserver.TCPServer, str]:
    handler = functools.partial(_Quiet, directory=str(directory))
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _tasks(trace: dict) -> list[dict]:
    """Main-thread tasks over 50 ms from a Chrome trace, with the work they contained, longest first."""
    events = trace.get("traceEvents", trace if isinstance(trace, list) else [])
    main = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
            and e.get("args", {}).get("name") == "CrRendererMain"}
    tasks = [e for e in events if e.get("name") == "RunTask" and (e.get("pid"), e.get("tid")) in main
             and e.get("dur", 0) > 50_000]
    out = []
    for task in tasks:
        start, end = task["ts"], task["ts"] + task["dur"]
        inner: dict[str, float] = {}
        for e in events:
            if (e.get("pid"), e.get("tid")) != (task["pid"], task["tid"]) or e.get("ph") != "X":
                continue
            if e is task or not (start <= e["ts"] < end) or e.get("dur", 0) < 5_000:
                continue
            name = e["name"]
            data = e.get("args", {}).get("data", {})
            where = data.get("url") or data.get("scriptName") or data.get("functionName") or ""
            key = f"{name} {where.rsplit('/', 1)[-1]}".strip()
            inner[key] = max(inner.get(key, 0.0), e["dur"] / 1000)
        top = sorted(inner.items(), key=lambda kv: -kv[1])[:4]
        out.append({"ms": round(task["dur"] / 1000), "inside": [f"{k} {v:.0f} ms" for k, v in top]})
    return sorted(out, key=lambda t: -t["ms"])


#: Chromium's Performance.getMetrics, in thread time (``threadTicks``): the main thread's script, style and
#: layout, ms, whose sum is printed as its ``cpu`` (its ThreadTime counts throttling's own spinning).
CPU_METRICS = {"script": "ScriptDuration", "style": "RecalcStyleDuration", "layout": "LayoutDuration"}


def measure(browser, url: str, trace: bool) -> tuple[float, list[dict], dict[str, float]]:
    context = browser.new_context(viewport={"width": 412, "height": 915}, is_mobile=True, device_scale_factor=2.6)
    page = context.new_page()
    page.add_init_script(OBSERVE)
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
    cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
    if trace:
        browser.start_tracing(page=page, categories=["devtools.timeline", "disabled-by-default-devtools.timeline"])
    page.goto(url)
    page.wait_for_timeout(WINDOW_MS)
    long_tasks = page.evaluate("window.__long")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    tasks = _tasks(json.loads(browser.stop_tracing())) if trace else []
    context.close()
    blocking = sum(max(0.0, d - 50) for s, d in long_tasks if s < WINDOW_MS)
    # The main thread's own CPU time (s) over the window, throttling's pauses not counted: a steadier figure
    # than the blocking time when other work shares the cores (it does not wait for a core).
    cpu = {key: metrics.get(name, 0.0) * 1000 for key, name in CPU_METRICS.items()}
    cpu["cpu"] = sum(cpu.values())
    return blocking, tasks, cpu


def _paired(a: list, b: list) -> float:
    """The median of each run's own ratio of main-thread CPU time."""
    pairs = [x[2]["cpu"] / y[2]["cpu"] for x, y in zip(a, b) if y[2]["cpu"]]
    return statistics.median(pairs) if pairs else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pages", nargs="*", default=PAGES)
    parser.add_argument("--site", type=Path, help="a site built by --keep (with its baseline page): no build")
    parser.add_argument("--against", type=Path, help="a second such site, measured in the same runs")
    parser.add_argument("--keep", type=Path, help="keep the built site here")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        started = time.time()
        if args.site:
            site = args.site
        else:
            build(Path(tmp))
            site = Path(tmp) / "site"
            if args.keep:
                shutil.copytree(site, args.keep)
        print(f"built in {time.time() - started:.0f} s; CPU throttled {THROTTLE}×, first {WINDOW_MS / 1000:.0f} s, "
              f"{args.runs} cold loads per page (medians)")
        if args.runs < 1:  # --runs 0 --keep DIR: build a site to measure later (say, main's and a branch's)
            return
        server, base = serve(site)
        other = serve(args.against) if args.against else None
        results: dict[str, float] = {}
        runs: dict[str, list] = {rel: [] for rel in args.pages}
        against: dict[str, list] = {rel: [] for rel in args.pages}
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            # Interleaved (run 1 of every page, then run 2, ...), so each run's ratio is paired.
            for i in range(args.runs):
                for rel in args.pages:
                    if other and i % 2:  # the two sites in turn, each first every other run
                        against[rel].append(measure(browser, other[1] + rel, trace=False))
                    runs[rel].append(measure(browser, base + rel, trace=(i == 0)))
                    if other and not i % 2:
                        against[rel].append(measure(browser, other[1] + rel, trace=False))
            browser.close()
            for rel in args.pages:
                blocking = [r[0] for r in runs[rel]]
                results[rel] = statistics.median(blocking)
                tasks = runs[rel][0][1]
                print(f"\n/{rel}: blocking {results[rel]:.0f} ms median (runs: {', '.join(f'{b:.0f}' for b in blocking)})")
                for t in tasks[:5]:
                    print(f"    task {t['ms']} ms: {'; '.join(t['inside'])}")
        server.shutdown()
        if other:
            other[0].shutdown()
        print()
        for rel, value in results.items():
            if other and against[rel]:
                b = [r[0] for r in against[rel]]
                pairs_ab = [x[0] / y[0] for x, y in zip(runs[rel], against[rel]) if y[0]]
                print(f"/{rel}: --against {args.against}: {statistics.median(b):.0f} ms median (runs: "
                      f"{', '.join(f'{x:.0f}' for x in b)}); this site's against it: paired "
                      f"{statistics.median(pairs_ab):.2f} ×" if pairs_ab else "")
            base_rel = "zh/baseline/" if rel.startswith("zh/") else "baseline/"
            if base_rel in results and rel != base_rel:
                pairs = [a[0] / b[0] for a, b in zip(runs[rel], runs[base_rel]) if b[0]]
                paired = f", paired {statistics.median(pairs):.2f} ×" if pairs else ""
                ratio = value / results[base_rel] if results[base_rel] else float("inf")
                goal = "  (issue 31: ≤ 1.5 ×)" if rel.endswith("calculator/") else ""
                print(f"/{rel}: {value - results[base_rel]:+.0f} ms against /{base_rel} ({results[base_rel]:.0f} ms):"
                      f" {ratio:.2f} ×{paired}{goal}")
                if other:
                    pairs_b = [a[0] / c[0] for a, c in zip(against[rel], against[base_rel]) if c[0]]
                    if pairs_b:
                        print(f"    --against: against its /{base_rel}, paired {statistics.median(pairs_b):.2f} ×")
        print("\nThe main thread's script + style + layout over the window (thread time, ms, medians; throttling's"
              " pauses and waits for a core not counted):")
        for rel in results:
            base_rel = "zh/baseline/" if rel.startswith("zh/") else "baseline/"
            for label, got in (("", runs[rel]), ("--against ", against[rel] if other else [])):
                if not got:
                    continue
                parts = ", ".join(f"{key} {statistics.median(r[2][key] for r in got):.0f}"
                                  for key in ("cpu", *CPU_METRICS))
                line = f"/{rel} {label}{parts}"
                base = (runs if not label else against)[base_rel] if base_rel in results else []
                if base and rel != base_rel:
                    line += f"; against /{base_rel}, paired {_paired(got, base):.2f} ×"
                if label:
                    line += f"; this site's against it, paired {_paired(runs[rel], got):.2f} ×"
                print(line)


if __name__ == "__main__":
    main()
