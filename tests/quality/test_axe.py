"""axe-core (npm, node_modules/axe-core/axe.min.js, injected through Playwright):
no violations on any page, in either language, in the light and the dark colour scheme.

The calculator page is checked once Python is up in its worker (the form is live).
The 404 page is checked as GitHub Pages serves it, for a missing URL under /zh/.
"""
from __future__ import annotations

import pytest

from .conftest import ROOT
from .browsing import open_page
from .pages import all_pages, ident

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
RUN = """async () => {
  const r = await axe.run(document, {resultTypes: ["violations"]});
  return {version: axe.version, violations: r.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(" ") + " :: " + (n.failureSummary || "").replace(/\\s+/g, " "))
  }))};
}"""


def axe_violations(page) -> list[dict]:
    assert AXE.is_file(), "node_modules/axe-core is missing: run `npm ci`"
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(RUN)
    assert result["version"].startswith("4.")
    return result["violations"]


def report(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        lines += [f"    {n}" for n in v["nodes"][:5]]
    return "\n".join(lines)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("rel", all_pages() + ["zh/no-such-page/"], ids=ident)
def test_no_axe_violations(site, browser, rel, scheme):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    try:
        page = ctx.new_page()
        if rel.endswith("no-such-page/"):
            response = page.goto(site.url + rel)
            assert response.status == 404
            page.wait_for_load_state("networkidle")
        else:
            open_page(page, site.url + rel, rel)
        violations = axe_violations(page)
    finally:
        ctx.close()
    assert violations == [], report(violations)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("rel", ["calculator/", "zh/calculator/"])
def test_calculator_showing_an_error_has_no_axe_violations(site, browser, rel, scheme):
    """While an input is wrong the last result stays on the page, marked out of date: still readable."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    try:
        page = ctx.new_page()
        open_page(page, site.url + rel, rel)
        page.fill("#calc-bert-hidden_size", "76x")
        page.locator('[data-error-code="not_integer"]').first.wait_for(state="visible", timeout=60_000)
        assert page.locator("#calc-summary.calc-stale").count() == 1
        violations = axe_violations(page)
    finally:
        ctx.close()
    assert violations == [], report(violations)
