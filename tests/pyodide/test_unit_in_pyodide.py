"""The whole unit suite passes inside the site's Pyodide, on exactly the standard library the site ships.

The browser runs these same calculator/ files, on a standard library zip that holds
only what Pyodide's start and the calculator import (sitegen/compile_stdlib.mjs).
tests/pyodide/run_unit.mjs starts Pyodide on that zip, as the worker does, and runs
every test of tests/unit with any import of a standard library module outside the
zip failing loudly (recorded even if something catches the ImportError). So every
code path the unit tests take (errors in both languages, every family, lazily
imported modules) is proven to find what it needs in the zip.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.once import once_per_run

from .support import ROOT, node_or_skip

NPM_ZIP = ROOT / "node_modules" / "pyodide" / "python_stdlib.zip"


def unit_tests() -> list[ast.Module]:
    return [ast.parse(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "tests" / "unit").glob("test_*.py"))]


def count_unit_tests() -> int:
    return sum(1 for tree in unit_tests() for node in tree.body
               if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"))


#: The unit suite runs in Pyodide as this many shards, each its own Node process and its
#: own test item, so that the suite's two workers run them side by side: run whole, it was
#: one item of ~100 s that often ended the run alone.
SHARDS = 4


def shard_sizes() -> list[int]:
    """How many tests each shard runs, by run_unit.mjs's rule (read from the sources, not from the runner):
    the tests in order, files sorted and names sorted within each, every SHARDS-th from the K-th."""
    names = [name for tree in unit_tests() for name in sorted(
        node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"))]
    return [len(names[k::SHARDS]) for k in range(SHARDS)]


def imported_by_the_tests() -> set[str]:
    """Top-level modules the unit test files import themselves (read from their source)."""
    names = set()
    for tree in unit_tests():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def npm_modules() -> list[str]:
    """The module names in npm's standard library zip (``json/__init__.py`` is ``json``)."""
    with zipfile.ZipFile(NPM_ZIP) as z:
        names = [n[: -len(".py")].replace("/", ".") for n in z.namelist() if n.endswith(".py")]
    return sorted(n.removesuffix(".__init__") for n in names)


def shard_run(built_assets: Path, tmp_path_factory, shard: int) -> dict:
    """Shard ``shard``'s run inside Pyodide: once per test run (tests/once.py), whichever worker asks first."""
    from sitegen.calculator_assets import STDLIB_DEST

    built = built_assets / STDLIB_DEST

    def run_unit(scratch: Path) -> dict:
        scratch.mkdir(parents=True, exist_ok=True)
        listing = scratch / "modules.json"
        listing.write_text(json.dumps(npm_modules()))
        p = subprocess.run([node_or_skip(), str(ROOT / "tests" / "pyodide" / "run_unit.mjs"), str(built),
                            str(NPM_ZIP), str(listing), f"{shard}/{SHARDS}"],
                           cwd=ROOT, capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stdout[-20000:] + p.stderr[-5000:]
        out = json.loads(p.stdout.strip().splitlines()[-1])
        out["lines"] = p.stdout
        return out

    out = once_per_run(tmp_path_factory, f"pyodide-unit-run-{shard}-of-{SHARDS}", run_unit)
    m = re.search(r"^(\d+) passed, (\d+) failed$", out["lines"], re.M)
    assert m, out["lines"]
    return out


@pytest.mark.parametrize("shard", range(SHARDS))
def test_unit_shard_passes_in_pyodide(built_assets, tmp_path_factory, shard):
    out = shard_run(built_assets, tmp_path_factory, shard)
    assert out["failed"] == 0, out["lines"][-20000:]
    assert out["passed"] == shard_sizes()[shard]
    assert f"shard {shard}/{SHARDS}" in out["lines"]


@pytest.fixture(scope="module")
def run(built_assets: Path, tmp_path_factory) -> dict:
    """Every shard's run together (each shard run once per test run, by whichever test asks first)."""
    from sitegen.calculator_assets import STDLIB_DEST

    shards = [shard_run(built_assets, tmp_path_factory, k) for k in range(SHARDS)]
    [stdlib] = {out["stdlib"] for out in shards}
    return {
        "passed": sum(out["passed"] for out in shards), "failed": sum(out["failed"] for out in shards),
        "outside": [o for out in shards for o in out["outside"]],
        "for_tests": sorted({n for out in shards for n in out["for_tests"]}),
        "for_cli": sorted({n for out in shards for n in out["for_cli"]}),
        "guard_check": all(out["guard_check"] for out in shards),
        "loaded": sorted({o for out in shards for o in out["loaded"]}),
        "stdlib": stdlib, "lines": "\n".join(out["lines"] for out in shards),
        "built": built_assets / STDLIB_DEST,
    }


def test_unit_tests_pass_in_pyodide(run):
    assert run["failed"] == 0
    assert run["passed"] == count_unit_tests() == sum(shard_sizes())
    assert "python 3." in run["lines"] and "on emscripten" in run["lines"]


def test_no_code_path_imports_outside_the_shipped_stdlib(run):
    assert run["guard_check"] is True  # the guard did catch an import written in calculator/ code
    assert run["outside"] == []
    # What came from npm's zip instead was asked for by a test file itself (e.g. html,
    # to compare the calculator's escaping with the standard library's), or by the
    # command line's own modules, which the site does not ship: argparse, asked for by
    # calculator/cli.py when the unit tests run the CLI (so this route is exercised).
    assert {name.split(".")[0] for name in run["for_tests"]} <= imported_by_the_tests()
    assert "argparse" in run["for_cli"]


def test_it_ran_on_exactly_the_shipped_zip(run):
    with zipfile.ZipFile(run["built"]) as z:
        shipped = z.namelist()
    # Far from the whole standard library: no source, and a fraction of npm's modules.
    assert not [n for n in shipped if n.endswith(".py")]
    compiled = [n for n in shipped if n.endswith(".pyc")]
    assert 100 < len(compiled) < len(npm_modules()) / 3
    # Every module Python loaded from the standard library zip came from that file.
    from_npm = [o for o in run["loaded"] if o.startswith("/npm-stdlib.zip/")]
    from_built = [o for o in run["loaded"] if o.startswith(run["stdlib"] + "/")]
    assert len(from_built) > 100 and all(o.endswith(".pyc") for o in from_built)
    # Compared by top-level package: the CLI's utf-8-sig decode loads encodings.utf_8_sig, listed under its dotted name.
    for_cli = {n.split(".")[0] for n in run["for_cli"]}
    assert {o.split("/")[2].removesuffix(".py") for o in from_npm} <= imported_by_the_tests() | for_cli
