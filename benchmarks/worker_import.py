"""What the calculator's worker runs in Python before a shared link's answer, in Pyodide under Node.

    .venv/bin/python benchmarks/worker_import.py [--site DIR] [--runs 5] [--importtime]

A script that prints figures, not a test. It takes a built site (``--site``, default
``site/``: run ``make build`` first), unpacks what the worker would (the manifest's
sources and ``bytecode.zip``) into a temporary folder, and in fresh Node processes
starts Pyodide on the site's precompiled standard library, then times, as
``docs/assets/js/worker.js`` does them: ``import calculator.api`` (what the page
waits for before "ready") and the shared link's answer (:data:`LINK`, the one
``benchmarks/calculator_page.py`` opens). It also lists which of the calculator's
modules that answer imported, and the bytes of the shipped ones it did not.
``--importtime``: Python's own ``-X importtime`` report of one run, the twenty
largest cumulative entries (what to look at first). ``--against DIR``: another built
site (say, ``main``'s), run interleaved with ``--site`` (one process of each in turn),
and each figure's paired ratio printed (the median of each pair's own ratio): a
before/after on a shared machine; there also the CPU of the whole Node process (every thread: V8's
WebAssembly tier-up too) from the import's start to the answer.

The times are medians over the runs; on a shared machine compare runs made one
after the other, not against a figure written down elsewhere.
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
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The link benchmarks/calculator_page.py opens (its query, as the worker receives it).
LINK = {"params": {"preset": "bert-large-uncased", "num_hidden_layers": "3"}, "forms": ["bert"]}

SCRIPT = """
import { loadPyodide } from "pyodide";
const [root, stdlib, importtime] = process.argv.slice(2);
const t0 = performance.now();
const py = await loadPyodide({ stdLibURL: stdlib, packages: [], env: importtime === "1" ? { PYTHONPROFILEIMPORTTIME: "1" } : {} });
const runtime = performance.now() - t0;
py.FS.mkdirTree("/calculator-src");
py.FS.mount(py.FS.filesystems.NODEFS, { root }, "/calculator-src");
const c1 = process.cpuUsage();
const t1 = performance.now();
py.runPython("import sys\\nsys.path.insert(0, '/calculator-src')\\nimport calculator.api");
const t2 = performance.now();
const api = py.pyimport("calculator.api");
const answer = JSON.parse(api.compute_json(JSON.stringify(LINK), "en"));
const t3 = performance.now();
const c3 = process.cpuUsage(c1);
const modules = py.runPython("import json, sys\\njson.dumps(sorted(m for m in sys.modules if m.startswith('calculator')))");
console.log(JSON.stringify({ runtime, import_ms: t2 - t1, answer_ms: t3 - t2, cpu_ms: (c3.user + c3.system) / 1000, ok: answer.ok, total: answer.total, modules: JSON.parse(modules) }));
"""


def unpack(site: Path, dest: Path) -> dict:
    """The worker's file tree: the manifest's sources, and bytecode.zip's members beside them."""
    src = site / "assets" / "calculator-src"
    manifest = json.loads((src / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest["files"]:
        target = dest / entry["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / entry["path"], target)
    bytecode = manifest.get("bytecode") or {}
    if bytecode.get("files"):
        with zipfile.ZipFile(src / bytecode["path"]) as zf:
            for entry in bytecode["files"]:
                target = dest / entry["path"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(entry["path"]))
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--importtime", action="store_true", help="also print -X importtime's largest entries")
    parser.add_argument("--against", type=Path, help="another built site, run interleaved; paired ratios printed")
    args = parser.parse_args()
    if args.against:
        compare(args.site, args.against, args.runs)
        return
    node = shutil.which("node")
    if node is None:
        sys.exit("node is needed")
    stdlib = args.site / "assets" / "pyodide-stdlib" / "python_stdlib.zip"
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        manifest = unpack(args.site, tree)
        script = ROOT / "benchmarks" / ".worker_import.mjs"
        script.write_text(SCRIPT.replace("LINK", json.dumps(LINK)), encoding="utf-8")
        runs = []
        try:
            for _ in range(args.runs):
                out = subprocess.run([node, str(script), str(tree), str(stdlib), "0"], cwd=ROOT,
                                     capture_output=True, text=True, timeout=300, check=True)
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            report = None
            if args.importtime:
                out = subprocess.run([node, str(script), str(tree), str(stdlib), "1"], cwd=ROOT,
                                     capture_output=True, text=True, timeout=300, check=True)
                report = out.stderr
        finally:
            script.unlink()
    med = {k: statistics.median(r[k] for r in runs) for k in ("runtime", "import_ms", "answer_ms")}
    print(f"Pyodide under Node, {args.runs} fresh processes (medians; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}):")
    print(f"  runtime started      {med['runtime']:7.0f} ms")
    print(f"  import calculator.api {med['import_ms']:6.0f} ms")
    print(f"  the link's answer    {med['answer_ms']:7.0f} ms   (ok={runs[0]['ok']})")
    imported = set(runs[0]["modules"])

    def name(path: str) -> str:
        return path[:-3].replace("/", ".").removesuffix(".__init__")

    shipped = [e for e in manifest["files"]]
    unused = [e for e in shipped if name(e["path"]) not in imported]
    print(f"  modules imported: {len(imported)}; shipped sources not imported: {len(unused)} "
          f"({sum(e['size'] for e in unused):,} bytes before gzip)")
    if report:
        rows = []
        for line in report.splitlines():
            if line.startswith("import time:") and "|" in line:
                _, cumulative, mod = (part.strip() for part in line.split("|"))
                self_us = line.split("|")[0].split(":")[1].strip()
                if cumulative.isdigit():
                    rows.append((int(cumulative), int(self_us), mod.strip()))
        print("  -X importtime, largest cumulative (µs, self µs):")
        for cumulative, self_us, mod in sorted(rows, reverse=True)[:25]:
            print(f"    {cumulative:8d} {self_us:8d}  {mod}")


def compare(site: Path, other: Path, runs: int) -> None:
    """``site`` against ``other``, one fresh process of each in turn: medians and paired ratios."""
    node = shutil.which("node")
    if node is None:
        sys.exit("node is needed")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for label, where in (("site", site), ("against", other)):
            trees[label] = (Path(tmp) / label, where / "assets" / "pyodide-stdlib" / "python_stdlib.zip")
            unpack(where, trees[label][0])
        script = ROOT / "benchmarks" / ".worker_import.mjs"
        script.write_text(SCRIPT.replace("LINK", json.dumps(LINK)), encoding="utf-8")
        results: dict[str, list[dict]] = {"site": [], "against": []}
        try:
            for i in range(runs):
                order = ("site", "against") if i % 2 == 0 else ("against", "site")
                for label in order:
                    tree, stdlib = trees[label]
                    out = subprocess.run([node, str(script), str(tree), str(stdlib), "0"], cwd=ROOT,
                                         capture_output=True, text=True, timeout=300, check=True)
                    results[label].append(json.loads(out.stdout.strip().splitlines()[-1]))
        finally:
            script.unlink()
    totals = {label: [r["import_ms"] + r["answer_ms"] for r in rs] for label, rs in results.items()}
    print(f"Pyodide under Node, {runs} interleaved pairs of fresh processes (medians; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}):")
    print(f"  {'':28s} {str(site):>24s} {str(other):>24s}  paired ratio")
    for key, values in (("runtime", None), ("import_ms", None), ("answer_ms", None), ("import + answer", totals),
                        ("CPU of import + answer", {label: [r["cpu_ms"] for r in rs] for label, rs in results.items()})):
        a = values["site"] if values else [r[key] for r in results["site"]]
        b = values["against"] if values else [r[key] for r in results["against"]]
        paired = statistics.median(x / y for x, y in zip(a, b) if y)
        print(f"  {key:28s} {statistics.median(a):21.0f} ms {statistics.median(b):21.0f} ms  {paired:.2f} ×")
    print(f"  modules imported: {len(results['site'][0]['modules'])} against {len(results['against'][0]['modules'])}; "
          f"same total: {results['site'][0]['total'] == results['against'][0]['total']}")


if __name__ == "__main__":
    main()
