"""Fixtures for the quality gates: one build, one server, one browser per session.

* ``site`` serves the run's one build of the site (``built_site`` in
  tests/conftest.py: built for a project site's ``site_url``,
  ``SITE_URL=https://example.github.io/bert-parameter-count/``, the shape of
  GitHub Pages' URL for a fork, into ``<tmp>/bert-parameter-count/``): it
  serves ``<tmp>`` on 127.0.0.1 the way GitHub Pages would (``ghpages.py``:
  subpath, 404.html, gzip). Canonical and Open Graph URLs therefore name
  example.github.io while the pages are read from 127.0.0.1: anything that
  wrongly loads from ``site_url``'s host fails, since only 127.0.0.1 is allowed.
* ``browser`` is Debian's Chromium through Playwright (``CHROME_PATH``
  overrides, e.g. Google Chrome on GitHub's runners). A missing browser skips
  locally and FAILS in CI (``CI=true``).
"""
from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.chromium import CHROMIUM_ARGS, SUITE_ARGS, chromium_path, in_ci, unavailable  # noqa: F401
from tests.conftest import SITE_URL, SUBPATH  # noqa: F401  (the shared build's)

from .ghpages import serve

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "zh")
#: Where the gates leave their figures (Lighthouse scores, page weights).
RESULTS = ROOT / "test-results" / "quality"
#: Every browser wait's limit. Only a guard against a hang, never a verdict: a
#: loaded machine takes longer, and calculator.js itself gives up after 120 s.
HANG_MS = 180_000


def chrome_path() -> str:
    return chromium_path()


def record(name: str, data: dict) -> None:
    """Add a gate's figures (one entry per page) to test-results/quality/<name>.json.

    Merged into what the file holds, under a lock: the tests of one gate may run
    in several pytest-xdist workers, each knowing only its own pages.
    """
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    with open(RESULTS / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            merged = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            merged = {}
        merged.update(data)
        path.write_text(json.dumps(merged, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


@dataclass
class Site:
    dir: Path  # the built site: <tmp>/bert-parameter-count
    url: str  # where it is served: http://127.0.0.1:<port>/bert-parameter-count/
    site_url: str  # what it was built for

    @property
    def path(self) -> str:
        """The subpath: /bert-parameter-count/"""
        return urlsplit(self.url).path

    @property
    def origin(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    def pages(self) -> list[str]:
        """Every built page, as a site-relative URL ('' is the home page, 'zh/embeddings/' ...)."""
        out = []
        for index in sorted(self.dir.rglob("index.html")):
            rel = index.parent.relative_to(self.dir).as_posix()
            if rel.split("/")[0] in ("assets", "search"):
                continue
            out.append("" if rel == "." else rel + "/")
        return out

    @staticmethod
    def lang_of(rel: str) -> str:
        return "zh" if rel == "zh/" or rel.startswith("zh/") else "en"

    @staticmethod
    def counterpart(rel: str) -> str:
        """The same page in the other language."""
        return rel[len("zh/"):] if Site.lang_of(rel) == "zh" else "zh/" + rel

    def file(self, rel: str) -> Path:
        return self.dir / rel / "index.html" if rel == "" or rel.endswith("/") else self.dir / rel


def build_site(out: Path, site_url: str = SITE_URL) -> None:
    """A build of its own (for screenshot.py; the tests use the shared ``built_site``)."""
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
        env={**os.environ, "SITE_URL": site_url, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, f"mkdocs build failed:\n{proc.stdout}\n{proc.stderr}"


@pytest.fixture(scope="session")
def site(built_site) -> Site:
    assert built_site.dir.name == SUBPATH
    server, url = serve(built_site.top, SUBPATH)
    yield Site(built_site.dir, url, built_site.site_url)
    server.shutdown()


def new_context(browser, **options):
    """A browser context (1280×900 unless told) whose waits are hang guards (``HANG_MS``).

    Service workers are blocked: the gates judge a first visit, and whether a page
    opened after the calculator's answer is served by the service worker that
    answer registers (calculator-sw.js) would depend on how soon it installed.
    """
    ctx = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, "service_workers": "block", **options})
    ctx.set_default_timeout(HANG_MS)
    return ctx


@pytest.fixture
def context(browser):
    """A fresh browser context that may only talk to 127.0.0.1 (others are aborted and recorded)."""
    ctx = new_context(browser)
    ctx.left_host = []

    def route(r):
        host = urlsplit(r.request.url).hostname
        if r.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            r.continue_()
        else:
            ctx.left_host.append(r.request.url)
            r.abort()

    ctx.route("**/*", route)
    yield ctx
    ctx.close()
    assert ctx.left_host == [], "requests left 127.0.0.1"
