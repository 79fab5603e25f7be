"""Fixtures for the calculator page's browser tests (pytest + Playwright, headless Chromium).

One site build, one browser (for fresh contexts) and one shared context, a profile
on disk in a Chromium of its own, per session:

* ``site`` serves the run's one build of the site (``built_site`` in
  tests/conftest.py, ``<tmp>/bert-parameter-count/``) twice on 127.0.0.1: at
  the root (``site.root`` → ``http://127.0.0.1:<port>/``) and under a subpath
  (``site.sub`` → ``http://127.0.0.1:<port>/bert-parameter-count/``, the
  directory above served), as GitHub Pages serves a project site. The build
  is shared: a test that needs a changed site copies it first.
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
* ``new_context`` makes a fresh context for a test that needs a first visit or a
  route of its own: every request goes through a route that aborts and records
  anything not on 127.0.0.1.
"""
from __future__ import annotations

import functools
import http.server
import socketserver
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.chromium import CHROMIUM_ARGS, LOCAL_ONLY, SUITE_ARGS, chromium_path, in_ci, unavailable  # noqa: F401  (in_ci, unavailable: re-exported for the browser tests)

from .support import BOOT_TIMEOUT_MS, ROOT, SUBPATH


# ---------------------------------------------------------------------- server


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
    }

    def log_message(self, format, *args):  # noqa: A002 - quiet
        pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        """A tab closed mid-download (the next test has begun) is not an error; anything else is printed."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def serve(directory: Path) -> tuple[_Server, str]:
    handler = functools.partial(_Handler, directory=str(directory))
    server = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


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
    built = request.getfixturevalue("built_site")
    assert built.dir.name == SUBPATH
    root_server, root_url = serve(built.dir)
    sub_server, sub_url = serve(built.top)
    yield Site(built.dir, root_url, sub_url + SUBPATH + "/")
    root_server.shutdown()
    sub_server.shutdown()


# ---------------------------------------------------------------------- browser


@dataclass
class Traffic:
    """Every request the browser attempted, and the ones refused for leaving 127.0.0.1."""

    seen: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)

    @staticmethod
    def local(url: str) -> bool:
        parts = urlsplit(url)
        return (parts.scheme in ("http", "https") and parts.hostname == "127.0.0.1") or parts.scheme in ("data", "blob")

    def record(self, request) -> None:
        """For a context whose other hosts cannot resolve: note the request, and whether it left."""
        self.seen.append(request.url)
        if not self.local(request.url):
            self.blocked.append(request.url)

    def route(self, route) -> None:
        """For a context with this route: let 127.0.0.1 through, abort and note the rest."""
        url = route.request.url
        self.seen.append(url)
        if self.local(url):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


def new_context(browser, traffic: Traffic, **options):
    """A context whose every request goes through ``traffic``.

    Service workers are blocked unless a test asks for them: the calculator page
    registers one (calculator-sw.js) once it has answered, and in a context shared
    by many tests whether a later test's page is served by it would depend on the
    order the tests ran in and on how soon the install finished. Every test here
    is a first visit; tests/browser/test_calculator_offline.py makes its own
    contexts for the next ones.
    """
    options.setdefault("service_workers", "block")
    ctx = browser.new_context(**options)
    ctx.set_default_timeout(BOOT_TIMEOUT_MS)
    ctx.route("**/*", traffic.route)
    return ctx


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


def watch(pg) -> list[str]:
    """Collect uncaught page exceptions."""
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    return errors


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


