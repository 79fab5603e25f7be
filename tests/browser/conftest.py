"""Fixtures for the calculator page's browser tests (pytest + Playwright, headless Chromium).

One site build, one browser (for fresh contexts) and one shared context, a profile
on disk in a Chromium of its own, per session:

* ``site`` is the run's one build of the site (``built_site`` in
  tests/conftest.py, ``<tmp>/bert-parameter-count/``) as ``served_site``
  serves it on 127.0.0.1, the way GitHub Pages does (tests/harness.py): at the
  root (``site.root`` → ``http://127.0.0.1:<port>/``) and under a subpath
  (``site.sub`` → ``http://127.0.0.1:<port>/bert-parameter-count/``), with
  ``site.url(path, lang, query, sub)`` to make a page's URL. The build is
  shared: a test that needs a changed site copies it first.
* ``browser`` launches Debian's Chromium (``CHROME_PATH`` overrides). Missing
  Chromium or Playwright skips these tests locally and FAILS them in CI
  (``CI=true``): CI must never pass by skipping the browser.
* ``context``, the tabs most tests open, is a profile on disk of its own
  Chromium, so that, as in a reader's browser, the HTTP cache keeps Pyodide's
  compiled WebAssembly from one page load to the next (in a context made by
  ``browser.new_context()``, or one with a route, there is no such cache, and
  every load compiles 9.6 MB of WebAssembly again: ~1.3 s of CPU here, most of
  the browser suite's time). Nothing can leave 127.0.0.1 there: every other
  host is unresolvable (``--host-resolver-rules``). Every request is recorded
  (the tab's and its dedicated workers'), and ``page`` fails its test if one
  was for another host, if the page threw, or if a worker failed.
* ``new_context`` (tests/harness.py) makes a fresh context for a test that needs a first visit or a
  route of its own: every request goes through a route that aborts and records
  anything not on 127.0.0.1.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.chromium import CHROMIUM_ARGS, LOCAL_ONLY, SUITE_ARGS, chromium_path, in_ci, unavailable  # noqa: F401  (in_ci, unavailable: re-exported for the browser tests)
from tests.harness import Traffic, new_context, watch  # noqa: F401  (new_context, watch: imported from here by tests)

from .support import BOOT_TIMEOUT_MS, ROOT, SUBPATH


@dataclass
class Site:
    dir: Path  # the built site (…/bert-parameter-count)
    root: str  # URL of the site served at /
    sub: str  # URL of the site served at /bert-parameter-count/

    def url(self, path: str = "", lang: str = "en", query: str = "", sub: bool = False) -> str:
        base = self.sub if sub else self.root
        prefix = "zh/" if lang == "zh" else ""
        return base + prefix + path + (("?" + query) if query else "")


@pytest.fixture(scope="session")
def site(request) -> Site:
    if not (ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm").is_file():
        unavailable("node_modules/pyodide is missing: run `npm ci`")
    served = request.getfixturevalue("served_site")
    assert served.build.dir.name == SUBPATH
    return Site(served.build.dir, served.root, served.sub)


# ---------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def traffic() -> Traffic:
    return Traffic()


@pytest.fixture(scope="session")
def context(playwright_driver, traffic, tmp_path_factory):
    """The tabs most tests open: one profile on disk, so compiled WebAssembly is kept (see above)."""
    ctx = playwright_driver.chromium.launch_persistent_context(
        str(tmp_path_factory.mktemp("profile")), executable_path=chromium_path(), args=[*SUITE_ARGS, LOCAL_ONLY],
        viewport={"width": 1280, "height": 900}, service_workers="block",
    )
    ctx.set_default_timeout(BOOT_TIMEOUT_MS)
    ctx.on("request", traffic.record)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context, traffic):
    """A fresh tab; the test fails if the page threw or anything left 127.0.0.1."""
    blocked_before = len(traffic.blocked)
    pg = context.new_page()
    errors = watch(pg)
    yield pg
    pg.close()
    assert traffic.blocked[blocked_before:] == [], "requests left 127.0.0.1"
    assert errors == [], "the page threw"
