"""How long the panel's "find the largest batch and length that fit" takes, in CPython and in Pyodide (Node).

The search (calculator/costs/fit.py) runs a whole training step per try, some 10 to 40 tries (it follows the peak's values: calculator/costs/fit.py); the panel runs it
only when its box is ticked, and not at all past ``views.costs.MAX_FIT_PASSES`` layer passes (the deepest case
timed here is at that limit). Each figure is the panel's whole answer (``api.compute_json`` with the panel open,
the search on), the median of a few runs after one warm-up. The page's watchdog gives an answer 20 s.
Rerun with `.venv/bin/python benchmarks/fit_search.py`.
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
import json, statistics, time
from calculator import api
from calculator.views.costs import MAX_FIT_PASSES

CASES = [
    ("microsoft/deberta-v3-large, B = 16, L = 512", {"preset": "microsoft/deberta-v3-large"},
     {"batch": "16", "seq_len": "512", "gpu_gb": "24"}),
    ("BAAI/bge-m3, B = 16, L = 1024", {"preset": "BAAI/bge-m3"}, {"batch": "16", "seq_len": "1024", "gpu_gb": "80"}),
    ("bert-base with MAX_FIT_PASSES layers, B = 32, L = 512", {"preset": "bert-base-uncased",
     "num_hidden_layers": str(MAX_FIT_PASSES)}, {"batch": "32", "seq_len": "512", "gpu_gb": "80"}),
]

def answer(params, panel, fit):
    out = json.loads(api.compute_json(json.dumps({"params": params, "costs": {**panel, "fit": fit}}), "en"))
    assert out["ok"] and out["costs"]["ok"], out
    return out

result = {}
for name, params, panel in CASES:
    for fit in ("0", "1"):
        answer(params, panel, fit)
        runs = []
        for _ in range(RUNS):
            t0 = time.perf_counter()
            answer(params, panel, fit)
            runs.append((time.perf_counter() - t0) * 1000)
        result[name + (", search on" if fit == "1" else ", search off")] = statistics.median(runs)
"""

RUNS = 3


def cpython() -> dict:
    scope: dict = {}
    exec(WORK.replace("RUNS", str(RUNS)), scope)
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
py.runPython({json.dumps(WORK.replace("RUNS", str(RUNS)))});
console.log(py.runPython("import json; json.dumps(result)"));
"""
    path = ROOT / "benchmarks" / ".pyodide_fit_bench.mjs"
    path.write_text(script, encoding="utf-8")
    try:
        out = subprocess.run([node, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=900, check=True)
    finally:
        path.unlink()
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    c = cpython()
    p = pyodide()
    print(f"the panel's answer, median of {RUNS} runs after one warm-up (the page's watchdog: 20 s)")
    for name, ms in c.items():
        line = f"  {name}: CPython {ms:,.0f} ms"
        line += "" if p is None else f", Pyodide (Node) {p[name]:,.0f} ms ({p[name] / ms:.1f} x)"
        print(line)


if __name__ == "__main__":
    main()
