"""Layout gate: every page fits a phone (390 px) and a desktop (1280 px), in both languages.

Two things a reader sees as broken, and that no other gate looks at:

* **A word broken inside itself.** A squeezed table column lets
  the browser break ``BertModel`` over two lines, or
  ``sum(p.numel() for p in model.parameters())`` one character a line, although
  the table could have been wider and scrolled. A word here is a run of
  characters without white space and without CJK characters (Chinese may break
  between any two characters; Latin words, identifiers and numbers may not).
  It is a failure when its pieces sit on two lines while its unbroken width
  fits the room it has: inside a table, the table's scrolling box (the table can
  grow and scroll); elsewhere, its block's content width (its line). A word
  wider than that room (``torch.autograd.graph.saved_tensors_hooks`` in a
  phone's line) may break only where the site allows it: after a dash, or at a
  ``<wbr>`` the build puts after the dots and slashes of long inline code
  (``sitegen/codebreak.py``; such a word is then several text nodes, each
  measured alone). Broken anywhere else ("saved_tens" / "ors_hooks") it fails
  too: it needs break points, a rewording, or a box that scrolls.
* **A page that scrolls sideways**: ``document.scrollingElement.scrollWidth`` >
  ``clientWidth``. Wide content scrolls inside its own box, never the page.

Pages: every built page (``site.pages()``), and the calculator in the states
readers and reviewers named (the default answer with every tensor shown, the counts panel for
``BertForPreTraining`` whose tools disagree, a LoRA plan with its added
tensors and the "Training cost" panel open; issue 35: the exact peak with its largest
items and the search for what fits, an error beside a panel menu, a refusal in the
panel's own slot, a pasted custom-code config's notes and the unsupported-model hint).
One browser context per language, one page reused for every visit, and each page
loaded once: measured at one width, then the page is switched to the other width and
measured again (a load of an explainer page is cheap, the calculator's Python starts
four times per language; the other states are reached through the form). Switching is the
same emulation a context made for that width starts with (a phone: a mobile
viewport, its viewport meta tag honoured, and touch; a desktop: neither), set
through the DevTools protocol since Playwright fixes ``is_mobile`` and
``has_touch`` per context. What is measured is layout alone: CSS media queries
and Material's (``matchMedia`` listeners) follow the switch; no script of the
site lays anything out from the width it had at load.

The check measures the layout as it is once the page has settled (after a
switch: the new width in effect, two animation frames for resize and media
listeners, the fonts); nothing depends on speed. ``content-visibility: auto`` (the calculator's lower tables)
is turned off for the measurement, so every box is laid out, as it is when a
reader scrolls to it.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

WIDTHS = {"phone": (390, 844), "desktop": (1280, 900)}
LANGS = ("en", "zh")
#: Every wait's limit: a hang guard, never a verdict.
HANG_MS = 180_000

#: The calculator once Python has answered (tests/quality/browsing.py says why "ready" alone is not enough).
SETTLED = ('#calc-root[data-state="failed"], '
           '#calc-root[data-state="ready"]:not([data-busy]):not([data-result="pending"])')

#: Links that put the calculator in the states checked (after the default one).
LORA = ("?preset=bert-base-uncased&architecture=BertForSequenceClassification"
        "&lora_r=8&lora_targets=query,value&peft_task_type=SEQ_CLS")
#: ...with the "Training cost" panel open (its table, memory bar, charts and fits line; issue 25).
COSTS = "&batch=8&seq_len=256&dtype=bf16&optimizer=sgd-momentum&ckpt=1&gpu_gb=8"

#: More states the reviews named (issue 35), each measured at both widths: the exact peak, its largest live items
#: (module paths) and the search for the largest batch and length; then, on that page, SDPA asked for (BERT's
#: attention dropout: an error beside the panel's menu, in its narrow column at 1280 px).
PEAK = "?preset=bert-base-uncased&architecture=BertForSequenceClassification&batch=8&seq_len=512&fit=1"
#: A refusal in the panel's own slot (DeBERTa with reentrant checkpointing); then, pasted on that page, a config
#: naming custom code (its notes under the total) and an unknown model_type with auto_map (the one-liner hint).
REFUSED = ("?preset=microsoft%2Fdeberta-v3-large&architecture=DebertaV2ForSequenceClassification&pooler=0"
           "&batch=16&seq_len=512&dtype=bf16&ckpt=reentrant")
PASTES = (
    ("custom code, ignored key", '{"model_type": "xlm-roberta", "_name_or_path": "jinaai/jina-embeddings-v3", '
     '"auto_map": {"AutoModel": "jinaai/xlm-roberta-flash-implementation--modeling_lora.XLMRobertaLoRA"}, '
     '"position_embedding_type": "rotary", "lora_adaptations": ["retrieval.query", "retrieval.passage"], '
     '"lora_rank": 4}', "[data-note]"),
    ("unsupported model_type", '{"model_type": "acme_bert", "auto_map": {"AutoConfig": '
     '"acme/acme-bert--configuration_acme.AcmeConfig", "AutoModel": "acme/acme-bert--modeling_acme.AcmeModel"}}',
     '[data-error-code="unknown_model_type"]'),
)

#: The training cost table's readable sizes that lie beyond its box's right edge ([] when none; on a phone each shows
#: under its integer, the Size column hidden), and whether the box scrolls sideways at all.
COSTS_TABLE_CUT = r"""() => {
  const table = document.querySelector("#calc-costs-output .calc-costs-table");
  if (!table) return ["no table"];
  const box = table.closest(".calc-scroll");
  const right = box.getBoundingClientRect().right;
  const cut = [...table.querySelectorAll(".calc-costs-size, .calc-costs-under")]
    .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > right + 1)
    .map((e) => e.textContent);
  return box.scrollWidth > box.clientWidth + 1 ? [`scrollWidth ${box.scrollWidth} > ${box.clientWidth}`, ...cut] : cut;
}"""

#: The measurement, in the page. Returns {"sideways": [scrollWidth, clientWidth] | null, "broken": [...]}.
MEASURE = r"""() => {
  const root = document.scrollingElement;
  const sideways = root.scrollWidth > root.clientWidth ? [root.scrollWidth, root.clientWidth] : null;
  // Latin words, identifiers, numbers: runs without white space or CJK characters.
  const DASHES = "-\u2010\u2013\u2014";
  const WORD = /[^\s\u2e80-\u9fff\u3000-\u303f\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]+/g;
  const scroller = (el) => {
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      const s = getComputedStyle(e);
      if ((s.overflowX === "auto" || s.overflowX === "scroll") && e.tagName !== "TABLE") return e;
    }
    return null;
  };
  const contentWidth = (el) => {
    const s = getComputedStyle(el);
    return el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  };
  // The room a word has: a table's scrolling box (minus the cell's padding), else its block's line.
  const room = (el) => {
    const cell = el.closest("td, th");
    if (cell) {
      const box = scroller(cell) || document.querySelector(".md-content") || document.body;
      const s = getComputedStyle(cell);
      return contentWidth(box) - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    }
    let block = el;
    while (block && /^inline/.test(getComputedStyle(block).display)) block = block.parentElement;
    return contentWidth(block || document.body);
  };
  // Whether every line break inside the word comes right after a hyphen or a dash,
  // where prose may break ("per-|token"); a break anywhere else splits the word itself.
  const breaksAfterDashesOnly = (node, start, word) => {
    const r = document.createRange();
    let top = null;
    for (let i = 0; i < word.length; i++) {
      r.setStart(node, start + i);
      r.setEnd(node, start + i + 1);
      const box = r.getClientRects()[0];
      if (!box) continue;
      if (top !== null && box.top - top > 2 && !DASHES.includes(word[i - 1])) return false;
      top = box.top;
    }
    return true;
  };
  const broken = [];
  const scope = document.querySelector(".md-content") || document.body;
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !node.data.trim() || el.closest("svg, pre, script, style, noscript")) continue;
    range.selectNodeContents(node);
    const whole = range.getClientRects();
    if (whole.length < 2) continue;  // on one line: nothing is broken
    for (const m of node.data.matchAll(WORD)) {
      if (m[0].length < 2) continue;
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      if (rects.length < 2) continue;
      const tops = rects.map((r) => r.top);
      if (Math.max(...tops) - Math.min(...tops) < 2) continue;  // one line, several boxes
      const width = rects.reduce((a, r) => a + r.width, 0);
      const fits = room(el);
      // Wider than its room, a word has to break, but only after a dash (a <wbr> splits the text node,
      // so a break there is between two words); one that fits may break after a dash in prose only.
      const wider = width > fits - 1;
      if ((wider || !el.closest("td code, th code")) && breaksAfterDashesOnly(node, m.index, m[0])) continue;
      const where = el.closest("table") ? "table" : el.tagName.toLowerCase();
      const why = wider ? ", wider than its room and broken inside a name" : "";
      broken.push(`${JSON.stringify(m[0])} in <${where}> (${Math.round(width)} px, room ${Math.round(fits)} px${why})`);
    }
  }
  return {sideways, broken};
}"""

#: Broken words listed per visit (the count is always given).
SHOWN = 8

#: Lay out what content-visibility would skip (the calculator's lower tables), as a reader scrolling there sees it.
VISIBLE = "*{content-visibility: visible !important}"


def _settle_calculator(page) -> None:
    page.wait_for_selector(SETTLED, state="attached", timeout=HANG_MS)
    assert page.locator('#calc-root[data-state="failed"]').count() == 0, "the calculator failed to start"


def _open_all_details(page) -> None:
    """Open every collapsed block (every tensor, the LoRA tensors, the Keras summary) and let its rows arrive."""
    page.evaluate("() => document.querySelectorAll('.md-content details:not([open])').forEach(d => d.open = true)")
    page.wait_for_function("() => !document.querySelector('details[open][data-rows=\"later\"] noscript') || "
                           "document.querySelector('details[open][data-rows=\"later\"] table')", timeout=HANG_MS)
    _settle_calculator(page)


def _measure(page, what: str) -> list[str]:
    page.add_style_tag(content=VISIBLE)
    found = page.evaluate(MEASURE)
    # Right after the emulated width switches, Material's header can be laid out for a frame at a width
    # between the two (seen once in a few hundred visits, on a different page each run, never on a fresh
    # load at that width). A sideways page a reader sees stays so: settle again and measure again, a few
    # times, before calling it one. Each retry waits on frames, not on a clock.
    for _ in range(5):
        if not found["sideways"]:
            break
        page.evaluate(SETTLE_JS)
        found = page.evaluate(MEASURE)
    problems = []
    if found["sideways"]:
        problems.append(f"{what}: the page scrolls sideways (scrollWidth {found['sideways'][0]} > "
                        f"clientWidth {found['sideways'][1]})")
    broken = found["broken"]
    if broken:
        shown = "\n    ".join(broken[:SHOWN])
        more = f"\n    … and {len(broken) - SHOWN} more" if len(broken) > SHOWN else ""
        problems.append(f"{what}: {len(broken)} words broken inside themselves:\n    {shown}{more}")
    return problems


def _at_width(page, cdp, width: str) -> None:
    """Lay the loaded page out at ``width`` as a context made for it would (Playwright's own
    ``Emulation`` calls for ``viewport``, ``is_mobile`` and ``has_touch``), and let it settle."""
    w, h = WIDTHS[width]
    phone = width == "phone"
    cdp.send("Emulation.setDeviceMetricsOverride", {
        "width": w, "height": h, "screenWidth": w, "screenHeight": h, "deviceScaleFactor": 1, "mobile": phone,
        "screenOrientation": {"angle": 0, "type": "portraitPrimary" if phone else "landscapePrimary"}})
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": phone})
    page.wait_for_function(WIDTH_IN_EFFECT, arg=[w, phone], timeout=HANG_MS)
    page.evaluate(SETTLE_JS)


#: The width (the layout viewport media queries see) and the pointer of ``_at_width`` are in effect.
WIDTH_IN_EFFECT = """([w, phone]) => matchMedia(`(width: ${w}px)`).matches && screen.width === w
  && matchMedia("(pointer: coarse)").matches === phone"""
#: Two animation frames (resize events, media query listeners, resize observers run before the
#: second), then the fonts any newly shown text needs.
SETTLE_JS = """() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(
  () => document.fonts.ready.then(() => resolve(null)))))"""


class Widths:
    """Both widths for each state of a page, starting at the one in effect (one switch per state)."""

    def __init__(self, page, cdp) -> None:
        self.page, self.cdp = page, cdp
        self.now: str | None = None  # set on the first page (about:blank has no viewport meta tag)

    def each(self):
        for width in sorted(WIDTHS, key=lambda w: w != (self.now or list(WIDTHS)[0])):
            if width != self.now:
                _at_width(self.page, self.cdp, width)
                self.now = width
            yield width


def _visit(page, url: str) -> None:
    """Load ``url`` until its layout is final: the load event (Material's script has wrapped the
    tables by then), then the fonts. Not "networkidle": half a second of quiet per page is time only."""
    response = page.goto(url, wait_until="load")
    assert response is not None and response.status == 200, (url, response and response.status)
    page.evaluate("() => document.fonts.ready.then(() => null)")


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_fits_without_broken_words(site, browser, lang):
    """Every page of ``lang`` at each width: no word broken that would fit, no sideways page."""
    w, hgt = WIDTHS["phone"]
    ctx = browser.new_context(viewport={"width": w, "height": hgt}, service_workers="block")
    ctx.set_default_timeout(HANG_MS)
    problems: list[str] = []
    try:
        page = ctx.new_page()
        widths = Widths(page, ctx.new_cdp_session(page))
        pages = [rel for rel in site.pages() if site.lang_of(rel) == lang]
        assert len(pages) > 10, pages
        for rel in pages:
            calculator = rel.rstrip("/").split("/")[-1] == "calculator"
            _visit(page, site.url + rel)
            if not calculator:
                for width in widths.each():
                    problems += _measure(page, f"{width} /{rel}")
                continue
            _settle_calculator(page)
            _open_all_details(page)
            for width in widths.each():
                _settle_calculator(page)
                problems += _measure(page, f"{width} /{rel} (default)")
            page.select_option("#calc-architecture", "BertForPreTraining")
            _settle_calculator(page)
            for width in widths.each():
                page.locator("#calc-counts-title").scroll_into_view_if_needed()
                problems += _measure(page, f"{width} /{rel} (counts panel, BertForPreTraining)")
            _visit(page, site.url + rel + LORA + COSTS)
            _settle_calculator(page)
            assert page.locator("[data-peft-line]").count() == 1, "the LoRA link gave no plan"
            assert page.locator("#calc-costs-output tr[data-costs]").count() == 8, "the link gave no training cost"
            for width in widths.each():
                where = f"{width} /{rel}"
                _settle_calculator(page)
                # The sticky strip (a phone's) keeps the plan's trainable count in sight, as the result states it.
                strip = " ".join(page.locator("#calc-mini .calc-mini-plan").all_text_contents())
                trainable = page.locator('[data-plan="plan_trainable"] dd').text_content()
                if not trainable or trainable not in strip:
                    problems.append(f"{where} (LoRA plan): the sticky strip says {strip!r}, "
                                    f"not the trainable {trainable!r}")
                _open_all_details(page)
                problems += _measure(page, where + " (LoRA plan, training cost)")
                # reader-review-2 L2: the step's table never scrolls sideways, so every readable size is on screen.
                cut = page.evaluate(COSTS_TABLE_CUT)
                if cut:
                    problems.append(f"{where} (training cost): its table scrolls sideways, sizes cut off: {cut}")
            problems += _more_states(page, widths, site.url + rel)
    finally:
        ctx.close()
    assert problems == [], f"{len(problems)} visits with layout problems:\n" + "\n".join(problems)


def _more_states(page, widths: Widths, url: str) -> list[str]:
    """The calculator states of :data:`PEAK`, :data:`REFUSED` and :data:`PASTES`, each at both widths."""
    problems: list[str] = []

    def measure(what: str) -> None:
        for width in widths.each():
            _settle_calculator(page)
            problems.extend(_measure(page, f"{width} {url} ({what})"))

    _visit(page, url + PEAK)
    _settle_calculator(page)
    assert page.locator("#calc-costs-output .calc-costs-items tr[data-peak-item]").count() > 0, "no peak items"
    assert page.locator("#calc-costs-output .calc-costs-search p").count() > 1, "no search lines"
    measure("peak, its items, the search")
    page.select_option("#calc-attention", "sdpa")
    # Answered: refused beside the menu, or (once SDPA with dropout is worked out) its figures, in the address.
    page.wait_for_function("() => !document.getElementById('calc-attention-error').hidden"
                           " || location.search.includes('attention=sdpa')", timeout=HANG_MS)
    measure("SDPA asked for")
    _visit(page, url + REFUSED)
    _settle_calculator(page)
    page.wait_for_selector("#calc-costs-error[data-error-code]", state="attached", timeout=HANG_MS)
    measure("a refusal in the panel's slot")
    for what, config, shown in PASTES:
        if page.get_attribute("#calc-config-box", "open") is None:
            page.click("#calc-config-box summary")
        page.fill("#calc-config", config)
        page.click("#calc-config-apply")
        page.wait_for_selector(shown, state="attached", timeout=HANG_MS)
        measure(f"pasted: {what}")
    return problems
