"""Shared browser steps for the quality gates."""
from __future__ import annotations

from .conftest import HANG_MS
from .pages import is_calculator

#: The calculator's root element says data-state="loading" until Python is up
#: in its worker, then "ready" (or "failed"); data-busy while a request is with
#: the worker; data-result="pending" while a link's inputs await their answer.
#: Settled means all of that is over: the page shows its answer, and calculator.js
#: has written that answer's state into the address and the language links.
#: (Ready alone is not enough: the link's answer, and the address it rewrites,
#: come a moment later, sooner or later depending on the machine.)
CALCULATOR_SETTLED = ('#calc-root[data-state="failed"], '
                      '#calc-root[data-state="ready"]:not([data-busy]):not([data-result="pending"])')


def open_page(page, url: str, rel: str = "") -> None:
    """Load a page and let it settle: network idle, and on the calculator page Python is up."""
    response = page.goto(url)
    assert response is not None and response.status == 200, (url, response and response.status)
    page.wait_for_load_state("networkidle")
    if is_calculator(rel):
        wait_calculator(page)


def wait_calculator(page) -> None:
    page.wait_for_selector(CALCULATOR_SETTLED, state="attached", timeout=HANG_MS)
    assert page.locator('[data-state="failed"]').count() == 0, "the calculator failed to start"


def switch_language(page, lang: str) -> None:
    """Open the header's language menu and choose ``lang``, as a visitor would."""
    page.locator(".md-header .md-select > button").first.hover()
    link = page.locator(f'.md-header a.md-select__link[hreflang="{lang}"]').first
    link.wait_for(state="visible")
    with page.expect_navigation():
        link.click()
    page.wait_for_load_state("domcontentloaded")
