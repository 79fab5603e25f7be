"""The site under a project site's subpath, in Chromium, as GitHub Pages serves it.

Built for ``https://example.github.io/bert-parameter-count/`` and served at
``http://127.0.0.1:<port>/bert-parameter-count/``. tests/browser/ checks that
the calculator computes there and asks for nothing outside the subpath; this
adds what a visitor does around it:

* the language switcher, clicked like a visitor would (open the menu, pick the
  language), lands on the same page in the other language and back: on the home
  page (whose links mkdocs-static-i18n builds its own way), a page one level
  down and the calculator. Every page's switcher links, in both languages, are
  resolved from the built HTML by tests/docs/test_build.py
  (``test_language_switcher_leads_to_the_same_page``); test_language_switch.py
  clicks it on more pages, carrying a #hash and a ?query. A click on every page
  here would be 48 page loads that check nothing more;
* heading permalinks are visible and lead to their heading;
* every request the calculator page makes (page and worker: Pyodide's files,
  the calculator's sources listed in its manifest) answers 200 under the
  subpath, and none fails;
* the 404 page, served for a missing URL deep under /zh/, gets its styles and
  scripts and leads back to both home pages;
* search, typed into the header as a reader does, loads the page's own
  language's index and answers with pages of that language
  (sitegen/search_split.py).
"""
from __future__ import annotations

import json

import pytest

from tests.harness import HANG_MS

from .browsing import open_page, switch_language, wait_calculator
from .pages import HTML_LANG, LANGS, ident, nav_sources, page_url

pytestmark = pytest.mark.browser

OTHER = {"en": "zh", "zh": "en"}


#: The home page, a page one level down, the calculator (why these: the module's docstring).
ROUND_TRIP = ["index.md", "other-encoders.md", "calculator.md"]


def test_round_trip_pages_are_in_the_nav():
    assert set(ROUND_TRIP) <= set(nav_sources())


@pytest.mark.parametrize("src", ROUND_TRIP, ids=lambda src: src[: -len(".md")])
def test_language_switcher_round_trip(site, context, src):
    """English to Chinese and back: both directions of the switcher."""
    start = "en"
    page = context.new_page()
    here = site.url + page_url(src, start)
    there = site.url + page_url(src, OTHER[start])
    page.goto(here, wait_until="domcontentloaded")
    switch_language(page, OTHER[start])
    assert (page.url, page.locator("html").get_attribute("lang")) == (there, HTML_LANG[OTHER[start]])
    switch_language(page, start)
    assert (page.url, page.locator("html").get_attribute("lang")) == (here, HTML_LANG[start])


#: A word on many pages of each language, and where its results must lead.
SEARCHED = {"embeddings/": ("pooler", ""), "zh/self-attention/": ("参数量", "zh/")}


@pytest.mark.parametrize("rel", SEARCHED, ids=ident)
def test_search_answers_in_the_pages_language(site, context, rel):
    word, root = SEARCHED[rel]
    page = context.new_page()
    indexes: list[str] = []
    page.on("requestfinished", lambda r: indexes.append(r.url) if r.url.endswith("/search_index.json") else None)
    open_page(page, site.url + rel, rel)
    page.locator(".md-search__input").click()
    # Typed like a reader: Material reads the field on keyup (and once its search worker
    # is ready), not on "input" events. Playwright types 参数量 as inserted text, with no
    # key events, as an input method commits it; the key that follows (here End) is the
    # keyup Material reads the field on, whether its worker was ready before or after.
    page.keyboard.type(word)
    page.keyboard.press("End")
    results = page.locator(".md-search-result__item a.md-search-result__link")
    results.first.wait_for(state="visible")
    hrefs = results.evaluate_all("as => as.map(a => a.href)")
    assert indexes == [site.url + root + "search/search_index.json"]
    assert len(hrefs) >= 3
    # Every result is a page of this language under the subpath (an English page's are outside zh/).
    outside = [h for h in hrefs if not h.startswith(site.url + root) or (root == "" and h.startswith(site.url + "zh/"))]
    assert outside == []
    with page.expect_navigation():
        results.first.click()
    assert page.url.split("?")[0].split("#")[0] in {h.split("?")[0].split("#")[0] for h in hrefs}
    assert page.locator("html").get_attribute("lang") == HTML_LANG["zh" if root else "en"]
    assert word.lower() in page.locator("article").inner_text().lower()


@pytest.mark.parametrize("rel", ["embeddings/", "zh/self-attention/"], ids=ident)
def test_heading_permalinks_are_visible_and_lead_to_their_heading(site, context, rel):
    """The ¶ stays out of the way until the reader points at its heading or tabs to it (reader review L17),
    then shows in full and leads to its heading."""
    page = context.new_page()
    open_page(page, site.url + rel, rel)
    links = page.locator("article h2 > a.headerlink")
    assert links.count() >= 2
    style_js = ("async a => { await Promise.all(a.getAnimations().map((x) => x.finished));"
                " const s = getComputedStyle(a); return {opacity: s.opacity, visibility: s.visibility, w: a.offsetWidth} }")
    for i in range(links.count()):
        link = links.nth(i)
        link.scroll_into_view_if_needed()
        page.mouse.move(0, 0)
        assert float(link.evaluate(style_js)["opacity"]) == 0
        link.hover()
        style = link.evaluate(style_js)
        assert float(style["opacity"]) == 1 and style["visibility"] == "visible" and style["w"] > 0, style
        page.mouse.move(0, 0)
        link.focus()
        assert float(link.evaluate(style_js)["opacity"]) == 1
    target = links.nth(1)
    heading_id = target.evaluate("a => a.parentElement.id")
    target.click()
    assert page.url == site.url + rel + "#" + heading_id
    assert page.evaluate("id => document.getElementById(id).matches(':target')", heading_id)
    top = page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", heading_id)
    assert 0 <= top < 300, top


@pytest.mark.parametrize("lang", LANGS)
def test_every_calculator_request_answers_200_under_the_subpath(site, context, lang):
    page = context.new_page()
    statuses: dict[str, int] = {}
    failed: list[str] = []
    page.on("response", lambda r: statuses.__setitem__(r.url, r.status))
    page.on("requestfailed", lambda r: failed.append(f"{r.url}: {r.failure}"))
    rel = page_url("calculator.md", lang)
    open_page(page, site.url + rel, rel)
    wait_calculator(page)
    page.wait_for_load_state("networkidle")
    assert failed == []
    not_ok = {u: s for u, s in statuses.items() if s != 200 and not u.startswith("data:")}
    assert not_ok == {}
    outside = [u for u in statuses if not u.startswith(("data:", "blob:")) and not u.startswith(site.url)]
    assert outside == []
    assets = site.url + "assets/"
    manifest = json.loads((site.dir / "assets" / "calculator-src" / "manifest.json").read_text(encoding="utf-8"))
    wanted = [assets + "calculator-src/manifest.json"]
    wanted += [assets + "calculator-src/" + f["path"] for f in manifest["files"]]
    wanted += [assets + "pyodide/" + name for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")]
    wanted += [assets + "pyodide-stdlib/python_stdlib.zip"]
    # The sources of "later" come after the worker is ready (docs/assets/js/worker.js): waited for, not raced.
    for _ in range(HANG_MS // 250):
        if all(statuses.get(u) == 200 for u in wanted):
            break
        page.wait_for_timeout(250)
    missing = [u for u in wanted if statuses.get(u) != 200]
    assert missing == [], "not loaded with 200 under the subpath"


def test_404_page_works_deep_under_the_subpath(site, context):
    page = context.new_page()
    statuses: dict[str, int] = {}
    page.on("response", lambda r: statuses.__setitem__(r.url, r.status))
    response = page.goto(site.url + "zh/no/such/page/")
    assert response.status == 404
    page.wait_for_load_state("networkidle")
    others = {u: s for u, s in statuses.items() if u != response.url and not u.startswith("data:")}
    assert others and all(s == 200 for s in others.values()), others
    # Material's stylesheet and script are running (the header is styled, search is wired up).
    assert page.evaluate("getComputedStyle(document.querySelector('.md-header')).position") == "sticky"
    assert page.evaluate("document.documentElement.classList.contains('js')")
    assert page.get_by_text("页面不存在").first.is_visible()
    with page.expect_navigation():
        page.locator('article a[hreflang="zh"]').first.click()
    assert page.url == site.url + "zh/"
    page.go_back()
    with page.expect_navigation():
        page.locator('article a[hreflang="en"]').first.click()
    assert page.url == site.url
