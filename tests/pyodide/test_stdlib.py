"""The standard library the worker starts Pyodide with is a part of npm's, compiled, and nothing else.

npm's python_stdlib.zip holds the whole standard library as .py sources only, so
every start compiles the modules Python imports on the way up and downloads
hundreds it never imports. The build (sitegen/compile_stdlib.mjs) keeps only the
modules Pyodide's start and the calculator import, as sourceless .pyc files
compiled by the same Pyodide at optimize level 2 (-OO) without column positions
(-X no_debug_ranges); the worker passes that zip as ``stdLibURL``. Checked here,
inside the site's own Pyodide and against npm's zip: every .pyc's code object
equals a fresh compile of npm's source, the same way, and its
header records that source's hash; every other entry is one of npm's directories;
and a Pyodide started on the zip imports everything it needs from those .pyc files
and computes the same total as CPython. That nothing the calculator needs is
missing is proven by tests/pyodide/test_unit_in_pyodide.py (the whole unit suite
on this zip).
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from calculator.build import build
from calculator.presets import PRESETS

from .support import ROOT, node_or_skip

NPM_ZIP = ROOT / "node_modules" / "pyodide" / "python_stdlib.zip"
#: -OO: docstrings and asserts compiled out (what the build promises; see compile_stdlib.mjs).
OPTIMIZE = 2


@pytest.fixture(scope="module")
def checked(built_assets: Path) -> dict:
    from sitegen.calculator_assets import SOURCE_DEST, STDLIB_DEST

    proc = subprocess.run(
        [node_or_skip(), str(ROOT / "tests" / "pyodide" / "check_stdlib.mjs"), str(NPM_ZIP),
         str(built_assets / STDLIB_DEST), str(built_assets / SOURCE_DEST), str(OPTIMIZE)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["manifest"] = json.loads((built_assets / SOURCE_DEST / "manifest.json").read_text())["stdlib"]
    return out


def test_every_compiled_module_is_npms_source_compiled(checked):
    assert checked["manifest"]["optimize"] == OPTIMIZE
    assert checked["manifest"]["debug_ranges"] is False
    assert checked["problems"] == []
    assert checked["extra"] == []
    assert len(checked["compiled"]) > 100  # Pyodide's start alone imports ~125 modules
    assert sorted(checked["compiled"]) == sorted(checked["manifest"]["compiled"])
    # The rest of npm's standard library is left out.
    assert len(checked["compiled"]) < checked["npm_modules"] / 3
    assert checked["manifest"]["dropped"] > 400


def lazy_imports() -> set[str]:
    """Standard library modules the calculator imports inside a function (only on some paths)."""
    found = set()
    for path in (ROOT / "calculator").rglob("*.py"):
        for func in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(func):
                    if isinstance(node, ast.Import):
                        found.update(alias.name for alias in node.names)
                    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                        found.add(node.module)
    return {name for name in found if name.split(".")[0] in sys.stdlib_module_names}


def test_what_the_calculator_imports_lazily_is_in(checked):
    """E.g. difflib, for an unknown preset's suggestions: never imported at start, still shipped."""
    lazy = lazy_imports()
    assert lazy, "the calculator imports nothing lazily any more: this test has nothing left to check"
    for name in lazy:
        path = name.replace(".", "/")
        assert f"{path}.py" in checked["compiled"] or f"{path}/__init__.py" in checked["compiled"], name


def test_a_pyodide_started_on_it_imports_nothing_from_source(checked):
    assert checked["total"] == build({**PRESETS["bert-base-uncased"].config, "num_hidden_layers": 6}).total
    assert len(checked["from_zip"]) > 100
    from_source = [f for f in checked["from_zip"] if not f.endswith(".pyc")]
    assert from_source == [], "compiled at start although the build could have precompiled them"
