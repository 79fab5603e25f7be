"""Fixtures of the Pyodide tests: the calculator's assets as the build writes them."""
from __future__ import annotations

from pathlib import Path

import pytest

from .support import node_or_skip


@pytest.fixture(scope="session")
def built_assets(tmp_path_factory) -> Path:
    """A site directory holding what the build writes for the calculator (sources, bytecode, stdlib)."""
    node_or_skip()
    from sitegen.calculator_assets import copy_sources

    site = tmp_path_factory.mktemp("site")
    manifest = copy_sources(str(site))
    assert manifest["bytecode"]["files"], "the build shipped no bytecode"
    assert manifest["stdlib"]["compiled"], "the build compiled no standard library module"
    return site
