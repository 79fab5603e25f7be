"""The bytecode shipped beside the calculator's sources can only skip compiling, never change what runs.

The build (sitegen/calculator_assets.py, through sitegen/compile_pyc.mjs) writes
checked-hash .pyc files with the site's own Pyodide, served in one zip. Here: the
zip holds exactly the files the manifest lists; and inside that Pyodide (loaded and
unpacked the way the worker does it): every pyc is for this interpreter, is
checked against its source on import, and matches the source shipped beside it;
and a source edited after the build wins over its stale pyc.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from calculator.build import build
from calculator.presets import PRESETS

from .support import ROOT, node_or_skip

SCRIPT = ROOT / "tests" / "pyodide" / "check_bytecode.mjs"


def check(node: str, directory: Path, *args: str) -> dict:
    proc = subprocess.run([node, str(SCRIPT), str(directory), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def served(built_assets) -> Path:
    from sitegen.calculator_assets import SOURCE_DEST

    return built_assets / SOURCE_DEST


def test_the_archive_holds_exactly_the_listed_bytecode(served):
    manifest = json.loads((served / "manifest.json").read_text())
    archive = served / manifest["bytecode"]["path"]
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == manifest["bytecode"]["sha256"]
    with zipfile.ZipFile(archive) as z:
        members = {name: z.read(name) for name in z.namelist()}
    listed = {e["path"]: e["sha256"] for e in manifest["bytecode"]["files"]}
    assert {name: hashlib.sha256(data).hexdigest() for name, data in members.items()} == listed
    assert not list(served.rglob("*.pyc")), "served loose as well as in the archive"


def test_every_source_has_valid_checked_bytecode(served):
    manifest = json.loads((served / "manifest.json").read_text())
    sources = {e["path"] for e in manifest["files"]}
    out = check(node_or_skip(), served)
    assert set(out["pyc"]) == {e["path"] for e in manifest["bytecode"]["files"]}
    for path, c in out["pyc"].items():
        assert c == {"magic_ok": True, "flags": 0b11, "hash_ok": True}, path
        assert path.replace("__pycache__/", "").rsplit(".cpython-", 1)[0] + ".py" in sources, path
    # Every source the default answer imports has its bytecode; the others (other families, the panel's
    # modules: imported when asked for) are compiled then. Which ones the answer imports: asked of a fresh CPython.
    bare = {p for p in sources if p.replace(".py", "") not in {k.replace("__pycache__/", "").rsplit(".cpython-", 1)[0]
                                                               for k in out["pyc"]}}
    code = ("import json, sys\nfrom calculator import api\napi.compute_json(json.dumps({'params': api.DEFAULT_PARAMS}))\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('calculator'))))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    imported = set(json.loads(run.stdout.strip().splitlines()[-1]))
    assert {p for p in sources if p[:-3].replace("/", ".").removesuffix(".__init__") not in imported} == bare
    assert "calculator/families/deberta.py" in bare and "calculator/costs/lifetime.py" in bare, bare
    assert "calculator/families/bert.py" not in bare and "calculator/families/base.py" not in bare
    assert out["total"] == build({**PRESETS["bert-base-uncased"].config, "num_hidden_layers": 6}).total


def test_an_edited_source_wins_over_its_stale_bytecode(served, tmp_path):
    copy = tmp_path / "calculator-src"
    shutil.copytree(served, copy)
    with open(copy / "calculator" / "views" / "__init__.py", "a", encoding="utf-8") as fh:
        fh.write('\nMARKER = "edited after the build"\n')
    out = check(node_or_skip(), copy)
    assert out["marker"] == "edited after the build"
    [views] = [p for p in out["pyc"] if p.startswith("calculator/views/__pycache__/__init__.")]
    assert out["pyc"][views]["hash_ok"] is False
