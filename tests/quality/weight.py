"""Page weight: each explainer page transfers at most 400 KB, measured in Chromium.

The sum, over the page and everything it loads (stylesheets, scripts, images,
and what Material's search worker fetches, its language's index included), of the bytes
on the wire: response headers plus the (gzip-compressed, as GitHub Pages
sends it) body, on a first visit (a fresh browser context: nothing is cached).

The gate runs on the first visit that test_axe.py makes to each explainer page
(``test_first_visit_passes_axe_and_the_weight_budget``): both judge the page as a
new reader gets it, and one cold load per page instead of two is 30 fewer page
loads in a suite that is CPU-bound on two cores. This module weighs; the test asserts.
"""
from __future__ import annotations

from typing import Callable

from .conftest import HANG_MS, record

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


#: Material's script: a classic script at the end of <body>, so the parser stops there until it arrives.
BUNDLE = "**/assets/javascripts/bundle.*.min.js"


def open_and_weigh(page, site, rel: str, before_scripts: Callable | None = None) -> list[tuple[int, str]]:
    """Load ``rel`` in ``page`` (the first tab of a fresh context) and weigh it: (bytes, url) rows, largest first.

    Material's script asks for the search index as it runs; the page is weighed
    once that has arrived and the network is quiet (the limit only guards
    against a hang).

    ``before_scripts(page)``, when given, runs in the state a slow load is in:
    the whole article parsed, Material's script not arrived yet. Its request is
    held until then (the parser waits at its ``<script>``, as it does on a slow
    network), then sent on to the server, and the load goes on as any other:
    the same requests, bytes and scripts.
    """
    finished = []
    page.on("requestfinished", lambda r: finished.append(r))
    held = []
    if before_scripts is not None:
        page.route(BUNDLE, lambda route: held.append(route))
    with page.expect_request_finished(is_search_index, timeout=HANG_MS):
        response = page.goto(site.url + rel, wait_until="commit" if before_scripts else "load")
        if before_scripts is not None:
            # The parser has inserted Material's <script> (so the article before it is
            # in the DOM) and waits for the held request.
            page.wait_for_function("document.querySelector('script[src*=\"assets/javascripts/bundle.\"]') !== null")
            assert page.evaluate("document.documentElement.classList.contains('no-js')"), "Material's script ran"
            before_scripts(page)
            waited = 0
            while not held:  # the request may reach the route a moment after the element exists
                assert waited < HANG_MS, "Material's script was never requested"  # a hang guard only
                page.wait_for_timeout(20)
                waited += 20
            assert len(held) == 1, held
            held[0].continue_()
            page.unroute(BUNDLE)
            page.wait_for_load_state("load")
    assert response is not None and response.status == 200, (rel, response and response.status)
    page.wait_for_load_state("networkidle")
    return sorted(((transfer_size(r), r.url[len(site.url):] or "/") for r in finished
                   if not r.url.startswith("data:")), reverse=True)


def weight_problems(rel: str, rows: list[tuple[int, str]]) -> list[str]:
    """Record the page's weight (test-results/quality/page-weight.json) and say what breaks the gate."""
    total = sum(n for n, _ in rows)
    record("page-weight", {rel or "/": {"bytes": total, "requests": len(rows), "largest": rows[:5]}})
    problems = []
    if not any(url.startswith("assets/javascripts/bundle.") for _, url in rows):
        problems.append("page weight: Material's script not loaded?")
    own_index = ("zh/" if rel.startswith("zh/") else "") + "search/search_index.json"  # sitegen/search_split.py
    if not any(url == own_index for _, url in rows):
        problems.append(f"page weight: the page's own search index ({own_index}) is not weighed")
    if any(url.endswith("search/search_index.json") and url != own_index for _, url in rows):
        problems.append("page weight: the other language's search index was loaded too")
    if total > BUDGET:
        problems.append(f"page weight: {total} bytes > {BUDGET}: {rows[:8]}")
    return problems
