"""Helpers of the Pyodide tests: node and the site's own Pyodide (node_modules/pyodide)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def node_or_skip() -> str:
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules" / "pyodide").is_dir():
        if os.environ.get("CI"):
            pytest.fail("node and node_modules/pyodide are required in CI (run `npm ci`)")
        pytest.skip("node or node_modules/pyodide missing")
    return node
