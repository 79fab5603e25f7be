"""Fixtures for the quality gates: one build, one server, one browser per session.

* ``site`` is the run's one build of the site (``built_site`` in
  tests/conftest.py: built for a project site's ``site_url``,
  ``SITE_URL=https://example.github.io/bert-parameter-count/``, the shape of
  GitHub Pages' URL for a fork, into ``<tmp>/bert-parameter-count/``) under its
  subpath, as ``served_site`` serves it on 127.0.0.1 the way GitHub Pages
  would (tests/harness.py: subpath, 404.html, gzip). Canonical and Open Graph URLs therefore name
  example.github.io while the pages are read from 127.0.0.1: anything that
  wrongly loads from ``site_url``'s host fails, since only 127.0.0.1 is allowed.
* ``context`` is a fresh browser context per test (the gates judge a first
  visit) that may only talk to 127.0.0.1 (tests/harness.py: ``new_context``).
* ``browser`` is Debian's Chromium through Playwright (``CHROME_PATH``
  overrides, e.g. Google Chrome on GitHub's runners). A missing browser skips
  locally and FAILS in CI (``CI=true``).
"""
from __future__ import annotations

import fcntl
import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.chromium import CHROMIUM_ARGS, SUITE_ARGS, chromium_path, in_ci, unavailable  # noqa: F401
from tests.conftest import SITE_URL, SUBPATH  # noqa: F401  (the shared build's)
from tests.harness import HANG_MS, ROOT, Traffic, new_context  # noqa: F401  (HANG_MS, new_context: imported from here by tests)

LANGS = ("en", "zh")
#: Where the gates leave their figures (Lighthouse scores, page weights).
RESULTS = ROOT / "test-results" / "quality"


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


@pytest.fixture(scope="session")
def site(served_site) -> Site:
    return Site(served_site.build.dir, served_site.sub, served_site.build.site_url)


@pytest.fixture
def context(browser):
    """A fresh browser context that may only talk to 127.0.0.1 (others are aborted and recorded)."""
    traffic = Traffic()
    ctx = new_context(browser, traffic)
    yield ctx
    ctx.close()
    assert traffic.blocked == [], "requests left 127.0.0.1"
