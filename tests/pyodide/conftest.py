"""Fixtures of the Pyodide tests: the calculator's assets as the build writes them."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.once import once_per_run, run_dir

from .support import node_or_skip


@pytest.fixture(scope="session")
def built_assets(tmp_path_factory) -> Path:
    """A site directory holding what the build writes for the calculator (sources, bytecode, stdlib).

    Written once per run (tests/once.py), whichever worker asks first.
    """
    node_or_skip()
    from sitegen.calculator_assets import copy_sources

    def build(site: Path) -> dict:
        site.mkdir(parents=True, exist_ok=True)
        return copy_sources(str(site))

    manifest = once_per_run(tmp_path_factory, "pyodide-assets", build)
    assert manifest["bytecode"]["files"], "the build shipped no bytecode"
    assert manifest["stdlib"]["compiled"], "the build compiled no standard library module"
    return run_dir(tmp_path_factory) / "pyodide-assets"
