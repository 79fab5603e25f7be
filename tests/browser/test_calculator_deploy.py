"""One build per answer across a deploy (reliability review #1, #2, #8), with two real builds.

Build A is the suite's shared build. Build B is the same repository, copied, with
bert-base-uncased's ``vocab_size`` changed from 30,522 to 30,000 (the page
pre-renders 109,081,344 instead of 109,482,240; B's build checks of the prose, which
quote A's figures, only warn), built by mkdocs as the real one is. Both are served
the way GitHub Pages serves a site (``max-age=600``, an ETag, 304 for a matching
``If-None-Match``) by one server whose directory a "deploy" switches from A to B.

A reader comes back after the deploy:
* without a service worker, reloading (HTML revalidated, everything else fresh in
  the HTTP cache: before, B's page ran A's Python) and in a new tab;
* with the service workers, after a short online visit that kept B's page but not B's
  files (the manifest answers 503), then offline: the page served is A's, beside A's
  files; and if only B's page is kept, the page says the builds differ and computes
  nothing.
Each time the number the HTML pre-rendered and the number the worker answers for the
same inputs must agree (or the page must say it cannot answer).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import SITE_URL
from tests import harness as ghpages  # GitHub Pages' answers (max-age=600, 304s)

from .support import BOOT_TIMEOUT_MS, ROOT, SUBPATH, wait_ready, wait_settled

TOTAL_A = 109_482_240  # bert-base-uncased, BertModel with its pooler
TOTAL_B = TOTAL_A - (30_522 - 30_000) * 768  # 522 fewer rows of the word embedding table
LINK = "calculator/?preset=bert-base-uncased&pooler=1&num_hidden_layers=12"
#: The total the page's HTML pre-rendered, noted before any script changes it.
NOTE_PRERENDERED = """
document.addEventListener('DOMContentLoaded', () => {
  // (calculator.js, a module, has run by now: for a link it moved the total to data-stale-total.)
  const el = document.querySelector('#calc-summary [data-total], #calc-summary [data-stale-total]');
  const meta = document.querySelector('meta[name="calculator-build"]');
  window.__prerendered = el ? Number(el.dataset.total || el.dataset.staleTotal) : null;
  window.__pageBuild = meta ? meta.content : null;
});
"""
SEARCH_OFFLINE = "Network error"


class _Pages(ghpages.Handler):
    """GitHub Pages with validators: an ETag, and 304 when the browser's copy is current."""

    failing: set  # paths (under the subpath) answered 503, set per server

    def _respond(self, head: bool) -> None:
        path = self.path.split("?")[0]
        if any(path.endswith(p) for p in self.failing):
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            return
        file, _ = self._file_for(path)
        if file is not None:
            etag = '"' + hashlib.sha256(file.read_bytes()).hexdigest()[:16] + '"'
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.send_header("Cache-Control", "max-age=600")
                self.end_headers()
                return
            self._etag = etag
        super()._respond(head)

    def end_headers(self):
        etag = getattr(self, "_etag", None)
        if etag:
            self.send_header("ETag", etag)
            self._etag = None
        super().end_headers()


class Deploy:
    """One origin; ``deploy(top)`` makes it serve another build from the next request on."""

    def __init__(self, top: Path):
        self.handler = type("Pages", (_Pages,), {"failing": set()})
        self.deploy(top)
        self.server = ghpages.Server(("127.0.0.1", 0), self.handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/{SUBPATH}/"

    def deploy(self, top: Path) -> None:
        self.handler.root = top.resolve()
        self.handler.not_found = (top / SUBPATH / "404.html").resolve()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _build_b(tmp: Path) -> Path:
    """The repository copied, bert-base-uncased's vocab_size patched, built by mkdocs: build B's top (its home and
    calculator pages in both languages, with every calculator file and the service worker)."""
    src = tmp / "repo"
    for name in ("calculator", "sitegen", "docs", "docs_src", "overrides"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", src / "mkdocs.yml")
    os.symlink(ROOT / "node_modules", src / "node_modules")
    bert = src / "calculator" / "families" / "bert.py"
    text = bert.read_text(encoding="utf-8")
    assert 'Preset("bert-base-uncased", bert_config(30522)' in text
    bert.write_text(text.replace('Preset("bert-base-uncased", bert_config(30522)',
                                 'Preset("bert-base-uncased", bert_config(30000)'), encoding="utf-8")
    # Only the pages the test visits (the calculator, and the home page its links lead to): the other pages'
    # figures (What fits' searches above all) are build A's business, and were most of B's build time.
    for page in (src / "docs").glob("*.md"):
        if page.name.split(".")[0] not in ("index", "calculator"):
            page.unlink()
    config = (src / "mkdocs.yml").read_text(encoding="utf-8")
    config, navs = re.subn(r"\nnav:\n(  - .*\n)+", "\nnav:\n  - index.md\n  - calculator.md\n", config)
    assert navs == 1 and "strict: true" in config
    config = config.replace("strict: true", "strict: false")  # links to the pages left out only warn
    (src / "mkdocs.yml").write_text(config, encoding="utf-8")
    context = src / "sitegen" / "context.py"
    # The prose quotes A's figures; in B those checks only warn (the pages still build).
    context.write_text(context.read_text(encoding="utf-8").replace(
        "raise AssertionError(", "print('build B:', "), encoding="utf-8")
    top = tmp / "b"
    env = {**os.environ, "SITE_URL": SITE_URL, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--clean", "-d", str(top / SUBPATH)],
                          cwd=src, env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return top


@pytest.fixture(scope="module")
def builds(site, tmp_path_factory) -> tuple[Path, Path]:
    """(A's top, B's top)."""
    b = _build_b(tmp_path_factory.mktemp("deploy"))
    html = (b / SUBPATH / "calculator" / "index.html").read_text(encoding="utf-8")
    assert f'data-total="{TOTAL_B}"' in html, "build B does not pre-render its own total"
    return site.dir.parent, b


def _agree(page) -> tuple[int, int, str]:
    """(pre-rendered total, the worker's total for the same link, the page's build) once settled."""
    wait_settled(page)
    answered = page.locator("#calc-summary [data-total]").get_attribute("data-total")
    return page.evaluate("window.__prerendered"), int(answered), page.evaluate("window.__pageBuild")


def _open(ctx, url: str):
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script(NOTE_PRERENDERED)
    page.goto(url)
    return page, errors


def test_without_a_service_worker_a_returning_reader_gets_one_build(browser, builds):
    a, b = builds
    server = Deploy(a)
    ctx = browser.new_context(service_workers="block")
    ctx.set_default_timeout(BOOT_TIMEOUT_MS)
    try:
        page, errors = _open(ctx, server.url + LINK)
        assert _agree(page)[:2] == (TOTAL_A, TOTAL_A)
        server.deploy(b)
        # Reload: the HTML is revalidated (B's), everything else is fresh in the HTTP cache (A's).
        # (The answer wrote every value into the address, vocab_size=30522 included: back to the
        # link as shared, which names the preset only.)
        page.evaluate("(link) => history.replaceState(null, '', link)", server.url + LINK)
        page.reload()
        assert _agree(page)[:2] == (TOTAL_B, TOTAL_B)
        # A new tab within max-age: whichever HTML it gets, the answer is that build's.
        tab, tab_errors = _open(ctx, server.url + LINK)
        pre, answered, _ = _agree(tab)
        assert pre == answered == TOTAL_B
        assert errors == tab_errors == []
    finally:
        ctx.close()
        server.stop()


KEPT = """async () => {
  const regs = await window.__calcOffline;
  if (!regs) throw new Error('no service worker registered');
  return Promise.all(regs.map((reg) => new Promise((resolve, reject) => {
    const check = () => {
      if (reg.active && reg.active.state === 'activated') return resolve(reg.scope);
      const sw = reg.installing || reg.waiting || reg.active;
      if (sw) sw.addEventListener('statechange', () => {
        if (sw.state === 'redundant') reject(new Error('install failed: ' + reg.scope));
        else check();
      }, { once: true });
    };
    check();
  })));
}"""


def test_with_the_service_worker_offline_after_an_interrupted_visit(browser, builds):
    a, b = builds
    server = Deploy(a)
    ctx = browser.new_context(service_workers="allow")
    ctx.set_default_timeout(BOOT_TIMEOUT_MS)
    try:
        # A complete first visit to A: both service workers keep A.
        page, errors = _open(ctx, server.url + LINK)
        assert _agree(page)[:2] == (TOTAL_A, TOTAL_A)
        page.evaluate(KEPT)
        page.close()
        # The deploy, then a short visit whose worker never gets B's files (the manifest fails):
        # the page's service worker keeps B's page all the same.
        server.deploy(b)
        server.handler.failing = {"assets/calculator-src/manifest.json"}
        page, errors2 = _open(ctx, server.url + LINK)
        page.wait_for_function("window.__pageBuild !== undefined")
        # Whatever this visit shows, it never pairs B's page with A's numbers.
        page.wait_for_selector("#calc-root[data-state=failed], #calc-root[data-state=ready]", state="attached")
        interrupted = page.locator("#calc-root").get_attribute("data-state")
        if interrupted == "ready":
            pre, answered, _ = _agree(page)
            assert pre == answered
        else:  # the service worker answered the failed manifest with A's: the page says the builds differ
            assert page.locator("#calc-root").get_attribute("data-failure") == "build_mismatch"
        page.close()
        # Offline: the kept page is the build of the kept files (A), and it answers.
        server.stop()
        ctx.set_offline(True)
        page, offline_errors = _open(ctx, server.url + LINK)
        wait_ready(page)
        pre, answered, build = _agree(page)
        assert (pre, answered) == (TOTAL_A, TOTAL_A)
        # Only B's page kept (A's copy gone): the page says the builds differ and computes nothing.
        page.evaluate("""async () => {
            for (const name of await caches.keys()) {
                const cache = await caches.open(name);
                for (const req of await cache.keys()) if (req.url.includes('__build=')) await cache.delete(req);
            }
        }""")
        page.close()
        page, more_errors = _open(ctx, server.url + LINK)
        page.wait_for_selector("#calc-root[data-failure=build_mismatch]", state="attached")
        assert page.evaluate("window.__prerendered") == TOTAL_B  # B's page, B's pre-rendered number
        total = page.locator("#calc-summary [data-total], #calc-summary [data-stale-total]").first
        assert int(total.get_attribute("data-total") or total.get_attribute("data-stale-total")) == TOTAL_B
        assert page.locator("#calc-root").get_attribute("data-result") == "pending"  # a link: nothing computed
        assert "different versions" in page.locator("#calc-status").text_content()
        page.close()
        assert errors == []
        # The interrupted visit is silent, or (which one is a race) reports the mismatch it shows.
        assert [e for e in errors2 if interrupted == "ready" or "the calculator's files are build" not in e] == []
        # The last visit reports the mismatch it shows (the page's own console message); nothing else.
        said = [e for e in more_errors if "the calculator's files are build" not in e]
        assert set(offline_errors + said) <= {SEARCH_OFFLINE}, offline_errors + more_errors
    finally:
        ctx.close()
