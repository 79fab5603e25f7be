"""axe-core (npm, node_modules/axe-core/axe.min.js, injected through Playwright):
no violations on any page, in either language, in the light and the dark colour scheme.

Each page is loaded once, light (the reader's system preference), checked, then
switched to dark with the header's palette toggle, as a reader does, and
checked again: the toggle sets the same attributes on <body> that a dark system
preference selects at load (Material's palette: mkdocs.yml), and
test_a_dark_system_preference_opens_the_dark_scheme checks that path itself.
One load instead of two halves the pages these gates open (on the calculator
page, the Pyodide starts).

The same first visit weighs each explainer page against its 400 KB budget
(weight.py): both gates judge the page as a new reader gets it, so one cold load
serves both.

The calculator page is checked once Python is up in its worker (the form is live),
and on the same visit again while an input is wrong (the last result stays,
marked out of date): dark first, as the page is then, and back to light.
The 404 page is checked as GitHub Pages serves it, for a missing URL under /zh/.

A page is read by someone before its scripts have run too (a slow phone, a
busy machine): on the same first visit, every explainer page is also checked
while Material's script has not arrived yet (its request is held, the parser
waits at its <script>, then it is sent on and the load goes on as usual), for
what its script would otherwise fix only after load (scrolling tables and code
blocks being keyboard-reachable: sitegen/scrollwrap.py makes them so in the
HTML as built). Without that, the verdict would depend on whether the script
had run when axe looked.
"""
from __future__ import annotations

import pytest

from .conftest import HANG_MS, ROOT, new_context
from .browsing import open_page
from .pages import all_pages, ident, is_calculator
from .weight import open_and_weigh, weight_problems

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: axe judges the page at rest. A CSS transition in flight has colours no reader
#: sees for more than a moment: Material fades the header's title when the page
#: scrolls (filling a field scrolls to it) and eases colours when the palette
#: switches, and axe once measured the title mid-fade (contrast 3.42). So the run
#: first brings every finite animation and transition under way to its end state
#: (Web Animations' finish(): the state it would rest in, at once). Waiting for
#: their `finished` instead hung the suite once: an animation that does not
#: advance (paused, or in a page not being rendered) never settles it, and
#: `page.evaluate` has no time limit.
RUN = """async () => {
  for (const a of document.getAnimations()) {
    if (!a.effect || !Number.isFinite(a.effect.getComputedTiming().endTime)) continue;
    try { a.finish(); } catch (e) { /* a zero playback rate: it rests where it is */ }
  }
  // A run that never ends fails this test, rather than holding the whole suite (no verdict on speed:
  // axe takes a second or two here).
  const stuck = new Promise((_, reject) => setTimeout(() => reject(new Error("axe.run did not end in 120 s")), 120000));
  const r = await Promise.race([axe.run(document, {resultTypes: ["violations"]}), stuck]);
  return {version: axe.version, violations: r.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(" ") + " :: " + (n.failureSummary || "").replace(/\\s+/g, " "))
  }))};
}"""


def inject_axe(page) -> None:
    """axe into the page, once per document: every check of a visit reads the same
    page, and parsing axe's 550 KB again for each one only costs time."""
    assert AXE.is_file(), "node_modules/axe-core is missing: run `npm ci`"
    if not page.evaluate("typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        page.add_script_tag(path=str(AXE))


def axe_violations(page) -> list[dict]:
    inject_axe(page)
    result = page.evaluate(RUN)
    assert result["version"].startswith("4.")
    return result["violations"]


def report(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        lines += [f"    {n}" for n in v["nodes"][:5]]
    return "\n".join(lines)


#: <body>'s colour scheme in each of mkdocs.yml's palettes.
SCHEMES = {"light": "default", "dark": "slate"}


def scheme_of(page) -> str:
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


#: The header's toggle shown in each scheme: the label of the palette it switches to (mkdocs.yml's order).
TOGGLE_TO = {"dark": '.md-header label[for="__palette_1"]', "light": '.md-header label[for="__palette_0"]'}


def switch_to(page, scheme: str) -> None:
    """Click the header's toggle to ``scheme`` ("dark" or "light"), as a reader does."""
    other = "light" if scheme == "dark" else "dark"
    assert scheme_of(page) == SCHEMES[other]
    page.locator(TOGGLE_TO[scheme]).click()
    page.wait_for_function("s => document.body.getAttribute('data-md-color-scheme') === s", arg=SCHEMES[scheme])


def light_then_dark(page) -> dict[str, list[dict]]:
    """axe's violations in the light scheme, then in the dark one, on the same page."""
    found = {"light": axe_violations(page)}
    switch_to(page, "dark")
    found["dark"] = axe_violations(page)
    return found


def report_schemes(found: dict[str, list[dict]]) -> str:
    return "\n".join(f"[{scheme}]\n{report(v)}" for scheme, v in found.items() if v)


def showing_an_error_dark_then_light(page) -> dict[str, list[dict]]:
    """On the live calculator, in the dark scheme: make an input wrong, then axe, dark and light.

    While an input is wrong the last result stays on the page, marked out of
    date: it must stay readable (contrast of the stale styling, the message
    beside its field) in both schemes.
    """
    page.fill("#calc-bert-hidden_size", "76x")
    page.locator('[data-error-code="not_integer"]').first.wait_for(state="visible", timeout=HANG_MS)
    assert page.locator("#calc-summary.calc-stale").count() == 1
    found = {"dark, showing an error": axe_violations(page)}
    switch_to(page, "light")
    found["light, showing an error"] = axe_violations(page)
    assert page.locator("#calc-summary.calc-stale").count() == 1
    return found


#: What a page's own scripts may change later, so must already hold in the HTML as built.
BEFORE_SCRIPTS = ["scrollable-region-focusable"]


def scrolling_regions_unreachable(page) -> list[str]:
    """axe's BEFORE_SCRIPTS rules on the page as it is now (before Material's script has run)."""
    inject_axe(page)
    return page.evaluate("""async (rules) => (await axe.run(document,
        {runOnly: rules, resultTypes: ["violations"]})).violations.map(v =>
        v.id + ": " + v.nodes.map(n => n.target.join(" ")).join(", "))""", BEFORE_SCRIPTS)


@pytest.mark.parametrize("rel", all_pages() + ["zh/no-such-page/"], ids=ident)
def test_first_visit_passes_axe_and_the_weight_budget(site, browser, rel):
    """axe, light then dark; an explainer page is also checked before Material's script has
    arrived and weighed (weight.py) on this same first visit, and the calculator is checked
    again on it while an input is wrong."""
    problems: list[str] = []
    ctx = new_context(browser, color_scheme="light")
    try:
        page = ctx.new_page()
        if rel.endswith("no-such-page/"):
            response = page.goto(site.url + rel)
            assert response.status == 404
            page.wait_for_load_state("networkidle")
        elif is_calculator(rel):
            open_page(page, site.url + rel, rel)
        else:
            def before_scripts(page):
                found_before = scrolling_regions_unreachable(page)
                if found_before:
                    problems.append("before any script: " + "; ".join(found_before))

            problems += weight_problems(rel, open_and_weigh(page, site, rel, before_scripts))
        found = light_then_dark(page)
        if is_calculator(rel):
            found |= showing_an_error_dark_then_light(page)
    finally:
        ctx.close()
    if any(found.values()):
        problems.append("axe:\n" + report_schemes(found))
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("rel", ["", "zh/calculator/"], ids=ident)
def test_a_dark_system_preference_opens_the_dark_scheme(site, browser, rel):
    """The other way into the dark scheme: the reader's system asks for it before the page loads."""
    ctx = new_context(browser, color_scheme="dark")
    try:
        page = ctx.new_page()
        open_page(page, site.url + rel, rel)
        scheme = scheme_of(page)
        violations = axe_violations(page)
    finally:
        ctx.close()
    assert scheme == SCHEMES["dark"]
    assert violations == [], report(violations)


