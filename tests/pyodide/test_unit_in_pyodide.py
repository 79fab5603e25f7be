"""The unit tests pass inside Pyodide too: the browser runs these same calculator/ files."""
from __future__ import annotations

import ast
import re
import subprocess

from .support import ROOT, node_or_skip


def count_unit_tests() -> int:
    n = 0
    for path in sorted((ROOT / "tests" / "unit").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        n += sum(1 for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"))
    return n


def test_unit_tests_pass_in_pyodide():
    node = node_or_skip()
    p = subprocess.run(
        [node, str(ROOT / "tests" / "pyodide" / "run_unit.mjs")], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stdout + p.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", p.stdout, re.M)
    assert m, p.stdout
    assert int(m.group(2)) == 0
    assert int(m.group(1)) == count_unit_tests()
    assert "python 3." in p.stdout
