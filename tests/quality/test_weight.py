"""Page weight: each explainer page transfers at most 400 KB, measured in Chromium.

The sum, over the page and everything it loads (stylesheets, scripts, images,
and what Material's search worker fetches, its index included), of the bytes
on the wire: response headers plus the (gzip-compressed, as GitHub Pages
sends it) body. A fresh browser context per page: nothing is cached.
"""
from __future__ import annotations

import pytest

from .conftest import HANG_MS, new_context, record
from .pages import explainer_pages, ident

pytestmark = pytest.mark.browser

BUDGET = 400 * 1024


def transfer_size(request) -> int:
    sizes = request.sizes()
    body = sizes["responseBodySize"]
    response = request.response()
    length = response.headers.get("content-length") if response else None
    # Chromium reports no body size for a worker's own script; the server's
    # Content-Length is the bytes it sent (compressed when it compressed).
    if length is not None:
        body = max(body, int(length))
    return sizes["responseHeadersSize"] + body


def is_search_index(request) -> bool:
    return request.url.split("?")[0].endswith("/search/search_index.json")


@pytest.mark.parametrize("rel", explainer_pages(), ids=ident)
def test_explainer_page_transfers_at_most_400_kb(site, browser, rel):
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        finished = []
        page.on("requestfinished", lambda r: finished.append(r))
        # Material's script asks for the search index as it runs; the page is
        # weighed once that has arrived and the network is quiet (the limit
        # only guards against a hang).
        with page.expect_request_finished(is_search_index, timeout=HANG_MS):
            response = page.goto(site.url + rel)
        assert response.status == 200
        page.wait_for_load_state("networkidle")
        rows = sorted(((transfer_size(r), r.url[len(site.url):] or "/") for r in finished
                       if not r.url.startswith("data:")), reverse=True)
    finally:
        ctx.close()
    total = sum(n for n, _ in rows)
    record("page-weight", {rel or "/": {"bytes": total, "requests": len(rows), "largest": rows[:5]}})
    assert any(url.startswith("assets/javascripts/bundle.") for _, url in rows), "Material's script not loaded?"
    assert any(url == "search/search_index.json" for _, url in rows), "the search index is not weighed"
    assert total <= BUDGET, f"{total} bytes > {BUDGET}: {rows[:8]}"
