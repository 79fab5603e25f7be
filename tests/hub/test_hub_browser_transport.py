"""The page's transport (``hub.fetch_browser`` driven by ``hub.run_async``) in Pyodide, against the stand-in.

Node's fetch is the WHATWG fetch a browser has (CORS aside, which only a browser can judge: the page's
own browser tests), so this runs the exact code the page would, and its answer must be the CLI's.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from calculator import hub as calc_hub
from calculator.hub_fetch import transport
from tests.pyodide.support import node_or_skip

HERE = Path(__file__).resolve().parent


def in_pyodide(*pairs: tuple[str, str]) -> list[dict]:
    """Each (endpoint, model) read in one Pyodide, in turn."""
    args = [x for pair in pairs for x in pair]
    p = subprocess.run([node_or_skip(), str(HERE / "browser_transport.mjs"), *args], cwd=HERE.parents[1],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def in_cpython(endpoint: str, model: str) -> calc_hub.Checkpoint:
    return calc_hub.run(calc_hub.lookup(calc_hub.parse_model_id(model), endpoint), transport(endpoint))


def test_browser_path_reads_what_the_cli_reads(hub, repos):
    models = ["tiny/bert-pretraining-sharded", "tiny/bert-st"]
    for model, got in zip(models, in_pyodide(*[(hub.hub_url, m) for m in models])):
        check_same(hub, repos, model, got)


def check_same(hub, repos, model: str, got: dict) -> None:
    cp = in_cpython(hub.hub_url, model)
    assert "error" not in got, got
    assert got["sha"] == cp.sha == repos[model].sha
    assert got["files"] == list(cp.files) and got["parameters"] == cp.parameters
    assert got["tensors"] == [[t.name, t.dtype, t.count] for t in cp.tensors]
    assert got["dense"] == ([d.count for d in cp.sentence.dense] if cp.sentence else None)
    # progress after each answer: one more request each time, bytes never fewer
    assert [r for r, _ in got["progress"]] == list(range(1, len(got["progress"]) + 1))
    # the browser sends Range and nothing else of its own; every range read is cache: no-store (not visible
    # to a server), so what is checked here is the header
    sent = [h for role, path, h in hub.log if path.endswith(".safetensors")]
    assert sent and all(h.get("range", "").startswith("bytes=") for h in sent)
    assert not any("authorization" in h for _, _, h in hub.log)


def test_browser_path_reads_only_what_it_needs_from_a_mirror_that_ignores_range(hub, repos):
    hub.ignore_range = True
    model = "tiny/bert-mlm"
    [got] = in_pyodide((hub.hub_url, model))
    assert got["parameters"] == in_cpython(hub.hub_url, model).parameters
    file = repos[model].folder / "model.safetensors"
    n = int.from_bytes(file.read_bytes()[:8], "little")
    requests, read = got["progress"][-1]
    assert requests == 4  # API, config.json, 8 bytes, the header
    # the last two answers were the whole file (200): the body is read as a stream up to the request's limit
    # (8, then 8 + N bytes) and cancelled there, never read to its end
    small = read - got["progress"][1][1]
    assert small == 8 + (8 + n) < file.stat().st_size


def test_browser_path_refusals(hub):
    cases = [(hub.hub_url, "tiny/bert-gated", "hub_gated"), (hub.hub_url, "tiny/nope", "hub_not_found"),
             (hub.hub_url, "tiny/bad-offsets", "hub_bad_header"), ("http://127.0.0.1:9", "tiny/bert-mlm", "hub_unreachable")]
    answers = in_pyodide(*[(endpoint, model) for endpoint, model, _ in cases])
    assert [a.get("error", {}).get("code") for a in answers] == [code for _, _, code in cases], answers
