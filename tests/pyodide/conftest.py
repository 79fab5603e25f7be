"""Fixtures of the Pyodide tests: the calculator's assets as the build writes them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import _needs_site
from tests.once import once_per_run, run_dir

from .support import node_or_skip


@pytest.fixture(scope="session")
def built_assets(request, tmp_path_factory) -> Path:
    """A site directory holding what the build writes for the calculator (sources, bytecode, stdlib).

    When the run builds the site anyway (``make test``: the docs, browser or quality
    suites are in it), that build is it: the very files the site serves, and ~20 s of
    compiling (sitegen/compile_stdlib.mjs) not done twice. A run of these tests alone
    writes only the calculator's assets, once per run (tests/once.py), whichever
    worker asks first: a third of a site build's time.
    """
    node_or_skip()
    from sitegen.calculator_assets import SOURCE_DEST, copy_sources

    if _needs_site(list(request.config.args)):
        site = request.getfixturevalue("built_site").dir
        manifest = json.loads((site / SOURCE_DEST / "manifest.json").read_text(encoding="utf-8"))
    else:
        def build(site: Path) -> dict:
            site.mkdir(parents=True, exist_ok=True)
            return copy_sources(str(site))

        manifest = once_per_run(tmp_path_factory, "pyodide-assets", build)
        site = run_dir(tmp_path_factory) / "pyodide-assets"
    assert manifest["bytecode"]["files"], "the build shipped no bytecode"
    assert manifest["stdlib"]["compiled"], "the build compiled no standard library module"
    return site
