"""The language switcher keeps the reader's place: the address's #hash and ?query.

Headings have the same id in both languages (``## 位置嵌入 {#position-embeddings}``),
so a link to a section, shared on a forum, must survive a switch of language.
docs/assets/js/lang-switch.js adds the current hash and query to the header's
language links. Checked in Chromium, clicking like a visitor (open the menu,
pick the language): the other language's page opens with the same hash, on the
same heading, scrolled to it; the query comes along; on the calculator page
the calculator's own query (calculator.js) and the hash both do. Under the
project site's subpath (the ``site`` fixture serves ``/bert-parameter-count/``)
and at a server's root. Only 127.0.0.1 is reachable (``context``).
"""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from .browsing import open_page, switch_language, wait_calculator
from .pages import HTML_LANG

pytestmark = pytest.mark.browser

#: A short window, so that landing on a heading means scrolling to it.
VIEWPORT = {"width": 1280, "height": 600}

CASES = [
    # (from, to, hash): both directions, two explainer pages.
    ("embeddings/", "zh/embeddings/", "position-embeddings"),
    ("zh/embeddings/", "embeddings/", "embeddings-total"),
    ("self-attention/", "zh/self-attention/", "heads-do-not-count"),
    ("zh/self-attention/", "self-attention/", "per-head"),
]


def lang_of(rel: str) -> str:
    return "zh" if rel.startswith("zh/") else "en"


@pytest.fixture(scope="module")
def root_url(served_site):
    """The same built site, served at a server's root instead of under the subpath."""
    return served_site.root


def landed_on(page, heading_id: str) -> dict:
    """Where the page stands relative to the heading the hash names."""
    return page.evaluate(
        """id => {
            const h = document.getElementById(id);
            const max = document.documentElement.scrollHeight - innerHeight;
            return {
                exists: h !== null,
                target: h !== null && h.matches(':target'),
                heading: h !== null && /^H[1-6]$/.test(h.tagName),
                top: h === null ? null : h.getBoundingClientRect().top,
                scrollY: scrollY,
                atBottom: scrollY >= max - 1,
            };
        }""",
        heading_id,
    )


def assert_on_heading(page, heading_id: str, lang: str) -> None:
    assert page.evaluate("document.documentElement.lang") == HTML_LANG[lang]
    where = landed_on(page, heading_id)
    assert where["exists"] and where["heading"] and where["target"], where
    assert where["scrollY"] > 0, where
    # At the top of the window, below the sticky header; or as far as the page scrolls.
    assert 0 <= where["top"] < 300 or where["atBottom"], where


def switch_and_check(context, base: str, start: str, target: str, heading_id: str, query: str = "") -> None:
    page = context.new_page()
    page.set_viewport_size(VIEWPORT)
    open_page(page, f"{base}{start}{query}#{heading_id}", start)
    assert_on_heading(page, heading_id, lang_of(start))
    switch_language(page, lang_of(target))
    assert page.url == f"{base}{target}{query}#{heading_id}"
    page.wait_for_load_state("load")
    assert_on_heading(page, heading_id, lang_of(target))
    page.close()


@pytest.mark.parametrize("start,target,heading_id", CASES, ids=lambda v: v.rstrip("/") or "home")
def test_switch_keeps_the_hash_under_the_subpath(site, context, start, target, heading_id):
    assert site.path == "/bert-parameter-count/"
    switch_and_check(context, site.url, start, target, heading_id)


@pytest.mark.parametrize("start,target,heading_id", CASES[:2], ids=lambda v: v.rstrip("/") or "home")
def test_switch_keeps_the_hash_at_the_root(root_url, context, start, target, heading_id):
    switch_and_check(context, root_url, start, target, heading_id)


def test_switch_keeps_the_query_and_the_hash(site, context):
    switch_and_check(context, site.url, "zh/feed-forward/", "feed-forward/", "layernorm",
                     query="?utm_source=forum&x=%E4%B8%AD")


def test_switch_keeps_the_hash_after_following_a_permalink(site, context):
    """The hash changes after load (a heading's permalink): the switcher follows it."""
    page = context.new_page()
    page.set_viewport_size(VIEWPORT)
    open_page(page, site.url + "embeddings/", "embeddings/")
    page.locator('a.headerlink[href="#token-type-embeddings"]').click()
    assert page.url == site.url + "embeddings/#token-type-embeddings"
    switch_language(page, "zh")
    assert page.url == site.url + "zh/embeddings/#token-type-embeddings"
    page.wait_for_load_state("load")
    assert_on_heading(page, "token-type-embeddings", "zh")


@pytest.mark.parametrize("start,target", [("calculator/", "zh/calculator/"), ("zh/calculator/", "calculator/")])
def test_calculator_page_keeps_its_query_and_the_hash(site, context, start, target):
    """calculator.js writes the form's state into the query and patches the
    language links with it; the hash comes along too."""
    page = context.new_page()
    page.set_viewport_size(VIEWPORT)
    open_page(page, f"{site.url}{start}?preset=bert-large-uncased#how-it-works", start)
    before = urlsplit(page.url)
    assert parse_qs(before.query).get("preset") == ["bert-large-uncased"], page.url
    assert before.fragment == "how-it-works"
    switch_language(page, lang_of(target))
    after = urlsplit(page.url)
    assert after.path == urlsplit(site.url + target).path
    assert parse_qs(after.query) == parse_qs(before.query)
    assert after.fragment == "how-it-works"
    wait_calculator(page)
    assert parse_qs(urlsplit(page.url).query) == parse_qs(before.query)
    assert page.evaluate("document.documentElement.lang") == HTML_LANG[lang_of(target)]
    assert page.evaluate("document.getElementById('how-it-works').matches(':target')")
