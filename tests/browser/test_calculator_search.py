"""Site search on the calculator page: held back while Pyodide boots, never lost.

calculator-start.js delays Material's search index (fetched and indexed on
every page) until the calculator's worker is ready, so the two do not share
the CPU while the first answer is computed. These tests prove the delay is
real and that search still works: at once if the reader asks for it, and by
itself once the calculator is up.

Every wait here is on the event that decides the verdict (a request, a
message, a result on the page); the time limits only guard against a hang
(``BOOT_TIMEOUT_MS``), so a slow machine changes how long a test takes, never
its verdict. Two things in the page would otherwise make the verdict depend on
speed, and the init script below takes them out of the race:

* the page's own clock: the index is requested once the page heard "ready",
  which is recorded here by a listener on the worker that runs before any of
  the page's own (``calculator.js`` records its ``data-ready-at`` later when
  the message was queued before it adopted the worker);
* calculator-start.js's 10 s fallback, which releases the index by itself on a
  machine slow enough that Pyodide takes 10 s to boot, or the test 10 s to ask
  for search. Where a test is about what releases the index (the worker's
  "ready", the reader's click), the fallback is held.
"""
from __future__ import annotations

import pytest

from .support import BOOT_TIMEOUT_MS, wait_ready

pytestmark = pytest.mark.browser

INDEX = "search/search_index.json"
#: Material's search worker's script (assets/javascripts/workers/search.<hash>.min.js).
SEARCH_WORKER = "/assets/javascripts/workers/search."

#: Runs before the page's scripts. Records (in the page's clock) when the
#: worker first said "ready"/"failed" and whether Material asked for the index;
#: with HOLD = true, swallows calculator-start.js's 10 s release timer.
INSTRUMENT = """(() => {
  const HOLD = %s;
  const NativeWorker = window.Worker;
  window.Worker = function (url, options) {
    const worker = new NativeWorker(url, options);
    worker.addEventListener("message", (event) => {
      const type = event.data && event.data.type;
      if ((type === "ready" || type === "failed") && window.__workerSaid === undefined) {
        window.__workerSaid = {type, at: performance.now()};
      }
    });
    return worker;
  };
  window.Worker.prototype = NativeWorker.prototype;
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url) {
    if (/\\/search\\/search_index\\.json$/.test(new URL(String(url), location.href).pathname)) {
      window.__indexAsked = (window.__indexAsked || 0) + 1;
    }
    return open.apply(this, arguments);
  };
  if (HOLD) {
    const setTimeout_ = window.setTimeout;
    window.setTimeout = function (fn, ms) {
      if (ms === 10000 && typeof fn === "function" && fn.name === "release") {
        window.__fallbackHeld = (window.__fallbackHeld || 0) + 1;
        return 0;
      }
      return setTimeout_.apply(this, arguments);
    };
  }
})();"""


def instrument(page, hold_fallback: bool) -> None:
    page.add_init_script(INSTRUMENT % ("true" if hold_fallback else "false"))


INDEX_LOADED = "performance.getEntriesByType('resource').some((e) => e.name.includes('/search/search_index.json'))"


def index_requests(traffic, since: int) -> list[str]:
    return [u for u in traffic.seen[since:] if u.split("?")[0].endswith(INDEX)]


def is_index(request) -> bool:
    return request.url.split("?")[0].endswith(INDEX)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_index_waits_for_the_worker_then_loads(page, site, traffic, lang):
    instrument(page, hold_fallback=True)
    since = len(traffic.seen)
    page.goto(site.url("calculator/", lang))
    wait_ready(page)
    page.wait_for_function(INDEX_LOADED, timeout=BOOT_TIMEOUT_MS)
    # Requested once, and only after the page heard "ready" (both in this page's clock).
    started, said = page.evaluate(
        """() => [performance.getEntriesByType('resource')
                    .find((e) => e.name.includes('/search/search_index.json')).startTime,
                  window.__workerSaid]"""
    )
    assert page.evaluate("window.__fallbackHeld") == 1, "calculator-start.js's 10 s fallback was not found"
    assert said is not None and said["type"] == "ready", said
    assert started >= said["at"], (started, said)
    assert len(index_requests(traffic, since)) == 1


def test_asking_for_search_loads_the_index_at_once(page, site, traffic):
    """With the worker stuck (its script never arrives), search still answers when asked."""
    held = []
    # (The worker's URL carries its version and the page's build: ?v=…&build=….)
    page.route("**/assets/js/worker.js?*", lambda route: held.append(route))  # never answered
    instrument(page, hold_fallback=True)
    since = len(traffic.seen)
    with page.expect_request("**/assets/js/worker.js?*", timeout=BOOT_TIMEOUT_MS):
        page.goto(site.url("calculator/"), wait_until="domcontentloaded")
    # Material asked for the index while its bundle ran (before DOMContentLoaded),
    # and calculator-start.js held it: nothing went out.
    assert page.evaluate("window.__indexAsked") == 1
    assert page.evaluate("window.__fallbackHeld") == 1, "calculator-start.js's 10 s fallback was not found"
    assert index_requests(traffic, since) == [], "the index was fetched while the worker was booting"
    # Material's search worker too: its bundle asked for it, calculator-start.js holds a stand-in.
    assert [u for u in traffic.seen[since:] if SEARCH_WORKER in u] == [], "the search worker started while held"
    # At this width the search field is in the header; a click focuses it, as "/" or "s" would.
    with page.expect_request(is_index, timeout=BOOT_TIMEOUT_MS):
        page.locator(".md-search__input").click()
    # Typed like a reader: Material reads the field on each keyup (and when its
    # search worker is ready), not on "input" events, so fill() would race it.
    page.keyboard.type("pooler")
    first = page.locator(".md-search-result__item").first
    first.wait_for(state="visible", timeout=BOOT_TIMEOUT_MS)
    assert len(index_requests(traffic, since)) == 1
    assert "pooler" in first.inner_text().lower()  # the held worker, created at the click, answered
    assert len([u for u in traffic.seen[since:] if SEARCH_WORKER in u]) == 1
    assert held, "the worker's script was never requested"
    for route in held:
        route.abort()


def test_explainer_pages_load_the_index_as_usual(page, site, traffic):
    instrument(page, hold_fallback=False)
    since = len(traffic.seen)
    with page.expect_request(is_index, timeout=BOOT_TIMEOUT_MS):
        page.goto(site.url("embeddings/"), wait_until="domcontentloaded")
    page.wait_for_function(INDEX_LOADED, timeout=BOOT_TIMEOUT_MS)
    assert page.evaluate("window.__indexAsked") == 1
    assert len(index_requests(traffic, since)) == 1
