"""How long the largest preset takes, in CPython and in Pyodide (Node): its full breakdown, and the page's answer.

The page recomputes on every input, so this must stay far below one 16 ms
frame. Two figures: the breakdown (build, JSON, Markdown and SVG: the engine's
views) and the page's answer to an input (``api.compute_json``, the worker's one call:
the HTML and the link; the copies and the per-tensor rows are rendered when the reader
asks for them, ``{"want": [...]}``, and are not in this figure). Prints medians of repeated runs;
rerun with `make bench` or `.venv/bin/python benchmarks/engine_speed.py`.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORK = """
from calculator.build import build
from calculator.presets import PRESETS
from calculator import api, views, charts
import json

def largest():
    return max(PRESETS.values(), key=lambda p: build(p.config).state_dict_total)

def full_breakdown(preset):
    inv = build(preset.config)
    views.to_json(inv)
    views.markdown_table(inv, "zh")
    charts.share_chart_svg(inv, "en")
    return inv.total

def answer(preset):
    return api.compute_json(json.dumps({"params": {"preset": preset.name}}), "zh")
"""

TIMER = """
import time, statistics
preset = largest()
result = {"preset": preset.name}
for name, work in (("breakdown", full_breakdown), ("answer", answer)):
    for _ in range(5):
        work(preset)
    runs = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        work(preset)
        runs.append((time.perf_counter() - t0) * 1000)
    result[name] = {"median_ms": statistics.median(runs), "p95_ms": sorted(runs)[int(0.95 * len(runs)) - 1]}
"""

RUNS = 200


def cpython() -> dict:
    scope: dict = {}
    exec(WORK + TIMER.replace("RUNS", str(RUNS)), scope)
    return scope["result"]


def pyodide() -> dict | None:
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules" / "pyodide").is_dir():
        return None
    script = f"""
import {{ loadPyodide }} from "pyodide";
const py = await loadPyodide();
py.FS.mkdirTree("/repo");
py.FS.mount(py.FS.filesystems.NODEFS, {{ root: {json.dumps(str(ROOT))} }}, "/repo");
py.runPython("import sys; sys.path.insert(0, '/repo')");
py.runPython({json.dumps(WORK + TIMER.replace("RUNS", str(RUNS)))});
console.log(py.runPython("import json; json.dumps(result)"));
"""
    path = ROOT / "benchmarks" / ".pyodide_bench.mjs"
    path.write_text(script, encoding="utf-8")
    try:
        out = subprocess.run([node, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    finally:
        path.unlink()
    return json.loads(out.stdout.strip().splitlines()[-1])


WHAT = {"breakdown": "build + JSON + Markdown + SVG", "answer": "the page's answer, api.compute_json"}


def main() -> None:
    c = cpython()
    p = pyodide()
    print(f"largest preset: {c['preset']}  ({RUNS} runs after 5 warm-ups each)")
    for name, what in WHAT.items():
        print(f"{what}:")
        print(f"  CPython {sys.version.split()[0]}: median {c[name]['median_ms']:.2f} ms, p95 {c[name]['p95_ms']:.2f} ms")
        if p is None:
            print("  Pyodide: skipped (node or node_modules/pyodide missing)")
        else:
            print(f"  Pyodide (Node): median {p[name]['median_ms']:.2f} ms, p95 {p[name]['p95_ms']:.2f} ms"
                  f" ({p[name]['median_ms'] / c[name]['median_ms']:.1f} x); budget one frame = 16.7 ms")


if __name__ == "__main__":
    main()
