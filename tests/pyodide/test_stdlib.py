"""The precompiled standard library the worker starts Pyodide with is npm's, compiled, and nothing else.

npm's python_stdlib.zip holds .py sources only, so every start compiles the
modules Python imports on the way up. The build (sitegen/compile_stdlib.mjs)
replaces those with sourceless .pyc files compiled by the same Pyodide; the worker
passes that zip as ``stdLibURL``. Checked here, inside the site's own Pyodide and
against npm's zip: every .pyc's code object equals a fresh compile of npm's source
and its header records that source's hash; every other entry is npm's bytes; and
a Pyodide started on the zip imports everything it needs from those .pyc files
and computes the same total as CPython.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from calculator.build import build
from calculator.presets import PRESETS

from .support import ROOT, node_or_skip

NPM_ZIP = ROOT / "node_modules" / "pyodide" / "python_stdlib.zip"


@pytest.fixture(scope="module")
def checked(built_assets: Path) -> dict:
    from sitegen.calculator_assets import SOURCE_DEST, STDLIB_DEST

    proc = subprocess.run(
        [node_or_skip(), str(ROOT / "tests" / "pyodide" / "check_stdlib.mjs"), str(NPM_ZIP),
         str(built_assets / STDLIB_DEST), str(built_assets / SOURCE_DEST)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["manifest"] = json.loads((built_assets / SOURCE_DEST / "manifest.json").read_text())["stdlib"]
    return out


def test_every_compiled_module_is_npms_source_compiled(checked):
    assert checked["problems"] == []
    assert checked["extra"] == []
    assert len(checked["compiled"]) > 100  # Pyodide's start alone imports ~140 modules
    assert sorted(checked["compiled"]) == sorted(checked["manifest"]["compiled"])
    assert checked["copied"] > 300  # the rest of the standard library is still there, as source


def test_a_pyodide_started_on_it_imports_nothing_from_source(checked):
    assert checked["total"] == build({**PRESETS["bert-base-uncased"].config, "num_hidden_layers": 6}).total
    assert len(checked["from_zip"]) > 100
    from_source = [f for f in checked["from_zip"] if not f.endswith(".pyc")]
    assert from_source == [], "compiled at start although the build could have precompiled them"
