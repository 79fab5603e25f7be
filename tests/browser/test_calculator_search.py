"""Site search on the calculator page: held back while Pyodide boots, never lost.

calculator-start.js delays Material's search index (fetched and indexed on
every page) until the calculator's worker is ready, so the two do not share
the CPU while the first answer is computed. These tests prove the delay is
real and that search still works: at once if the reader asks for it, and by
itself once the calculator is up.
"""
from __future__ import annotations

import pytest

from .support import wait_ready

pytestmark = pytest.mark.browser

INDEX = "search/search_index.json"


def index_requests(traffic, since: int) -> list[str]:
    return [u for u in traffic.seen[since:] if u.split("?")[0].endswith(INDEX)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_index_waits_for_the_worker_then_loads(page, site, traffic, lang):
    since = len(traffic.seen)
    page.goto(site.url("calculator/", lang))
    wait_ready(page)
    page.wait_for_function(
        "performance.getEntriesByType('resource').some((e) => e.name.includes('/search/search_index.json'))",
        timeout=15_000,
    )
    # Requested once, and only after the page heard "ready" (both in this page's clock).
    started, ready_at = page.evaluate(
        """() => [performance.getEntriesByType('resource')
                    .find((e) => e.name.includes('/search/search_index.json')).startTime,
                  Number(document.getElementById('calc-root').dataset.readyAt)]"""
    )
    assert ready_at > 0
    assert started >= ready_at - 1, (started, ready_at)
    assert len(index_requests(traffic, since)) == 1


def test_asking_for_search_loads_the_index_at_once(page, site, traffic):
    """With the worker stuck (its script never arrives), search still answers when asked."""
    held = []
    page.route("**/assets/js/worker.js", lambda route: held.append(route))  # never answered
    since = len(traffic.seen)
    page.goto(site.url("calculator/"), wait_until="domcontentloaded")
    page.wait_for_timeout(1500)
    assert held, "the worker's script was never requested"
    assert index_requests(traffic, since) == [], "the index was fetched while the worker was booting"
    # At this width the search field is in the header; a click focuses it, as "/" or "s" would.
    page.locator(".md-search__input").click()
    page.locator(".md-search__input").fill("pooler")
    first = page.locator(".md-search-result__item").first
    first.wait_for(state="visible", timeout=15_000)
    assert len(index_requests(traffic, since)) == 1
    assert "pooler" in first.inner_text().lower()
    for route in held:
        route.abort()


def test_explainer_pages_load_the_index_as_usual(page, site, traffic):
    since = len(traffic.seen)
    page.goto(site.url("embeddings/"))
    page.wait_for_function(
        "performance.getEntriesByType('resource').some((e) => e.name.includes('/search/search_index.json'))",
        timeout=15_000,
    )
    assert len(index_requests(traffic, since)) == 1
