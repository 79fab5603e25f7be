"""Where a shared link's CPU goes: Chromium's threads, the link against the bare worker, and the page alone.

    .venv/bin/python benchmarks/link_cpu.py [--runs 5] [--site DIR] [--against DIR]

A script that prints figures, not a test. ``benchmarks/calculator_page.py`` times a shared link
(:data:`calculator_page.LINK`) against the bare worker on the site's precompiled standard library
(issue 31's first ratio) in wall-clock milliseconds; on this project's 2 shared cores, under the
load average of 10-15 that other sessions keep, a cold page waits for the CPU most of the time, so
its wall-clock ratio follows the ratio of the CPU the two pages need more than anything either does
first (starting the link's worker at once instead of after ``load`` was measured that way: no
earlier answer, its runtime only took longer). This script counts that CPU: every thread of every
process of a fresh headless Chromium (``/proc/<pid>/task/<tid>/stat``, user + system time, summed
by process type and thread name), from navigation until the page has its answer, for

* ``bare``: ``/bench-bare-worker/?stdlib=precompiled`` (Pyodide in a module worker, ``import json``);
* ``page``: the link's page with its worker refused (the page alone: Material, the calculator's own
  scripts, the search worker; counted until ``load`` plus 2.5 s);
* ``link``: the link, until its exact total is on the page (and, with ``--against``, the same link
  on another build).

``--decompose`` (issue 31: which layer makes the link's excess) measures instead of ``page``, in the same
rotating runs, pages written into the copy of the built site for the benchmark only (never served by
the site itself):

* ``worker``: ``/bench-link-worker/`` (``bare_link_worker.html``): the calculator's own ``worker.js``
  asked the link's request as ``calculator.js`` posts it (the runtime on the precompiled stdlib, the
  bytecode archive, the sources, ``import calculator.api``, the link's ``compute_json``), and no other script;
* ``nomaterial``: ``/bench-no-material/calculator/?...`` (written by :func:`add_variants` from the built
  ``calculator/index.html``): the link's page without Material (no theme stylesheet, no bundle, no header,
  navigation or search): the calculator's own markup, stylesheets, schema, ``calculator-start.js`` and
  ``calculator.js``, until the link's total is on it;

and ``sources``, the same worker with its Python cut to ``import json`` (the bare worker's: no
``import calculator.api``, no answer), and ``archive``, that one without the sources (the manifest and the
bytecode archive only), so that ``bare`` → ``archive`` → ``sources`` → ``worker`` → ``nomaterial`` → ``link`` adds one layer at a time.

Each run loads the pages in a rotating order; the figures are medians, and ``link / bare`` is
paired (the median of each run's own ratio). CPU time is inflated less than the wall clock by the
machine's other work, but it drifts too: V8's background threads tier WebAssembly up for as long as
a page runs, so a slower run also spends more CPU (two builds of the same page differed by 1.26 ×
in a 2-run check at load 11): use several runs and ``--against``. Chromium's renderer threads: ``chromium`` is a process's main thread
(the page's own: parsing, style, layout, Material's and the calculator's scripts), ``DedicatedWorker``
the workers' JavaScript and Python, ``ThreadPoolForeg`` V8's background work (WebAssembly tier-up,
script compiling, GC).
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import calculator_page as cp  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = collections.defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children[int(stat.rsplit(")", 1)[1].split()[1])].append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def cpu_by_thread() -> collections.Counter:
    """CPU seconds so far of every Chromium thread under this process, by ``process type:thread name``."""
    seconds: collections.Counter = collections.Counter()
    for pid in _descendants(os.getpid()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        if "chrom" not in cmdline or pid == os.getpid():
            continue
        kind = next((a[len("--type="):] for a in cmdline.split() if a.startswith("--type=")), "browser")
        for tid in tids:
            try:
                stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
            except OSError:
                continue
            name = stat[stat.index("(") + 1: stat.rindex(")")].rstrip("0123456789")
            fields = stat.rsplit(")", 1)[1].split()
            seconds[f"{kind}:{name}"] += (int(fields[11]) + int(fields[12])) / TICK
    return seconds


def add_variants(site: Path) -> None:
    """Write the decomposition's two pages into a copy of a built site (the benchmark's, never the deployed one)."""
    (site / "bench-link-worker").mkdir(exist_ok=True)
    shutil.copy(ROOT / "benchmarks" / "bare_link_worker.html", site / "bench-link-worker" / "index.html")
    # "sources": the same worker up to its Python, which then imports json only (the bare worker's) and answers
    # nothing: the runtime, the manifest, the archive and the sources fetched, checked and written as for the link.
    worker = (site / "assets" / "js" / "worker.js").read_text(encoding="utf-8")
    cut = {"import calculator.api`);": "import json`);",
           'const api = pyodide.pyimport("calculator.api");': "",
           "return api.compute_json;": 'return () => \'{"ok": true}\';'}
    for old, new in cut.items():
        if worker.count(old) != 1:
            raise SystemExit(f"worker.js changed: {old!r} is not there once")
        worker = worker.replace(old, new)
    (site / "assets" / "js" / "worker-sources-only.js").write_text(worker, encoding="utf-8")
    # "archive": that worker without the 37 sources (the manifest and the bytecode archive only, unpacked as
    # before): what the sources' requests, checks and writes cost, i.e. the most a sourceless start could save.
    sources = "manifest.files.filter((file) => !later.has(file.path))"
    if worker.count(sources) != 1:
        raise SystemExit(f"worker.js changed: {sources!r} is not there once")
    (site / "assets" / "js" / "worker-archive-only.js").write_text(worker.replace(sources, "[]"), encoding="utf-8")
    page = (ROOT / "benchmarks" / "bare_link_worker.html").read_text(encoding="utf-8")
    for name in ("sources", "archive"):
        (site / f"bench-{name}-worker").mkdir(exist_ok=True)
        (site / f"bench-{name}-worker" / "index.html").write_text(
            page.replace("assets/js/worker.js", f"assets/js/worker-{name}-only.js"), encoding="utf-8")
    html = (site / "calculator" / "index.html").read_text(encoding="utf-8")
    head = html[: html.index("</head>")]
    own = [m.group(0) for m in re.finditer(
        r'<meta name="calculator-build"[^>]*>|<link rel="stylesheet" href="\.\./assets/css/[^"]*">'
        r'|<script src="\.\./assets/js/calculator-start\.js[^"]*"></script>'
        r'|<script type="module" src="\.\./assets/js/calculator\.js[^"]*"></script>', head)]
    start = html.index("<article")
    article = html[start: html.index("</article>", start) + len("</article>")]
    page = ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>Calculator without Material (benchmark)</title>\n" + "\n".join(own) +
            "\n</head>\n<body>\n" + article + "\n</body>\n</html>\n")
    # One folder deeper than calculator/ (the path keeps "/calculator/", which the init script looks for).
    page = page.replace('"../', '"../../')
    (site / "bench-no-material" / "calculator").mkdir(parents=True, exist_ok=True)
    (site / "bench-no-material" / "calculator" / "index.html").write_text(page, encoding="utf-8")


def measure(pw, chrome: str, url: str, which: str) -> tuple[float, collections.Counter]:
    """One cold load: (ms until the answer, or 0 for the page alone; CPU seconds by thread)."""
    browser = pw.chromium.launch(executable_path=chrome, args=cp.ARGS)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.add_init_script(cp.INIT_SCRIPT % {"expected": cp.build(cp.LINK_CONFIG).total, "layers": 0})
        before = cpu_by_thread()
        answered = 0.0
        if which == "bare":
            page.goto(url + "bench-bare-worker/?stdlib=precompiled")
            page.wait_for_function("window.__bareDone !== undefined", timeout=cp.TIMEOUT_MS, polling=cp.POLL_MS)
            answered = page.evaluate("window.__bareDone")
        elif which in ("archive", "sources", "worker"):
            page.goto(url + ("bench-link-worker/" if which == "worker" else f"bench-{which}-worker/"))
            page.wait_for_function("window.__bareDone !== undefined", timeout=cp.TIMEOUT_MS, polling=cp.POLL_MS)
            answered = page.evaluate("window.__bareDone")
            if answered < 0 or not page.evaluate("window.__bareResult.ok"):
                raise RuntimeError("the calculator's worker did not answer the link")
        elif which == "nomaterial":
            page.goto(url + "bench-no-material/" + cp.LINK)
            page.wait_for_function("window.__bench.answered !== undefined", timeout=cp.TIMEOUT_MS,
                                   polling=cp.POLL_MS)
            answered = page.evaluate("window.__bench.answered")
        elif which == "page":
            page.route("**/worker.js*", lambda route: route.abort())
            page.goto(url + cp.LINK)
            page.wait_for_load_state("load")
            page.wait_for_timeout(2500)
        else:
            page.goto(url + cp.LINK)
            page.wait_for_function("window.__bench.answered !== undefined", timeout=cp.TIMEOUT_MS,
                                   polling=cp.POLL_MS)
            answered = page.evaluate("window.__bench.answered")
        after = cpu_by_thread()
        return answered, collections.Counter({k: after[k] - before.get(k, 0.0) for k in after})
    finally:
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument("--against", type=Path, help="another built site: its link measured in the same runs")
    parser.add_argument("--decompose", action="store_true",
                        help="measure the link's layers (the worker alone, the page without Material) instead of the page")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    chrome = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
    tmp = Path(tempfile.mkdtemp(prefix="link-cpu-"))
    try:
        urls, servers = {}, []
        for label, source in (("link", args.site), ("against", args.against)):
            if label == "against" and source is None:
                continue
            site = tmp / label
            if source is None:
                cp.build_site(site)
            else:
                shutil.copytree(source, site)
            (site / "bench-bare-worker").mkdir(exist_ok=True)
            shutil.copy(ROOT / "benchmarks" / "bare_pyodide_worker.html", site / "bench-bare-worker" / "index.html")
            shutil.copy(ROOT / "benchmarks" / "bare_pyodide_worker.js", site / "bench-bare-worker" / "worker.js")
            if args.decompose:
                add_variants(site)
            server, urls[label] = cp.serve(site)
            servers.append(server)
        pages = ["bare", *(["archive", "sources", "worker", "nomaterial"] if args.decompose else ["page"]), *urls]
        runs: dict[str, list] = {p: [] for p in pages}
        loads = []
        with sync_playwright() as pw:
            for i in range(args.runs):
                for which in pages[i % len(pages):] + pages[: i % len(pages)]:
                    loads.append(os.getloadavg()[0])
                    url = urls["against" if which == "against" else "link"]
                    runs[which].append(measure(pw, chrome, url, "link" if which == "against" else which))
                    ms, cpu = runs[which][-1]
                    print(f"run {i + 1}: {which} {ms:.0f} ms, {sum(cpu.values()):.2f} s of CPU", file=sys.stderr)
        for server in servers:
            server.shutdown()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    med = statistics.median
    print(f"CPU seconds of every Chromium thread, {args.runs} cold runs (medians; load average during the runs: "
          f"median {med(loads):.1f}, {min(loads):.1f}-{max(loads):.1f}, on {os.cpu_count()} cores)")
    for which in pages:
        rs = runs[which]
        total = med(sum(c.values()) for _, c in rs)
        until = f", answer at {med(ms for ms, _ in rs):.0f} ms" if which != "page" else " (the link's page, no worker)"
        print(f"  {which:8s} {total:5.2f} s{until}")
        names = set().union(*(c for _, c in rs))
        rows = sorted(((med(c.get(k, 0.0) for _, c in rs), k) for k in names), reverse=True)
        print("           " + "; ".join(f"{k} {v:.2f}" for v, k in rows[:6] if v >= 0.01))
    for which in [p for p in pages if p not in ("bare", "page")]:
        cpu = med(sum(k.values()) / sum(b.values()) for (_, k), (_, b) in zip(runs[which], runs["bare"]))
        wall = med(k / b for (k, _), (b, _) in zip(runs[which], runs["bare"]) if b)
        print(f"  {which} / bare, paired: CPU {cpu:.2f} ×, wall clock {wall:.2f} × (issue 31's goal for the link: ≤ 1.30 ×)")
    if args.decompose:
        # Each layer's own CPU: the median of each run's difference from the page one layer down.
        layers = ["bare", "archive", "sources", "worker", "nomaterial", "link"]
        for lower, upper in zip(layers, layers[1:]):
            add = med(sum(u.values()) - sum(lo.values()) for (_, u), (_, lo) in zip(runs[upper], runs[lower]))
            print(f"  {upper} - {lower}, paired: {add:+.2f} s of CPU")
    if "against" in urls:
        cpu = med(sum(a.values()) / sum(b.values()) for (_, a), (_, b) in zip(runs["link"], runs["against"]))
        print(f"  link / against, paired: CPU {cpu:.2f} ×")


if __name__ == "__main__":
    main()
