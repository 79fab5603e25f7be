// The calculator page's first script: a classic script in <head>, added by
// sitegen/calculator_assets.py on that page only, so it runs before Material's
// bundle and before calculator.js (a module, which runs after parsing).
//
// Its first two jobs are about how soon the page answers its first input on a
// small machine, where the Pyodide worker's WebAssembly compile shares two cores
// with everything else the page does (benchmarks/calculator_page.py measures it);
// the third, about the next visit:
//
// 1. Start the Pyodide worker once the page has loaded and the main thread is
//    idle. The pre-rendered total is in the first paint whatever happens here.
//    Pyodide's WebAssembly compile runs on background threads, and on two cores
//    it slows every task the main thread runs meanwhile: started at the first
//    paint, it made the page's own start (Material's bundle, style and layout)
//    block a throttled phone's main thread 450-750 ms longer than an empty page
//    of the site; started after "load", about as long as that page
//    (benchmarks/main_thread.py). The answer comes ~0.1 s later on a desktop
//    (benchmarks/calculator_page.py). calculator.js adopts the worker through
//    window.__calcWorker and replays the messages queued here.
// 2. Hold back Material's search index (search/search_index.json: fetched on
//    every page, then indexed by lunr in a worker) until the calculator's worker
//    is ready (with a link: has answered it) or has failed, the reader reaches for
//    search, or 10 s have passed.
//    Search still works: it starts a little later, unless the reader asks first.
//    Material's search worker is created at that moment too (a stand-in until then).
// 3. Once this visit has its answer, register the service worker
//    (calculator-sw.js) that keeps the calculator for the next visit and offline.
// 4. On a narrow screen, where the pre-rendered breakdown is below the form and out of
//    sight, keep it out of the page's start: Material's bundle restyles the whole
//    document four times while it starts and the parser lays out what it has so far
//    several times, each pass over the breakdown's ~350 elements too; hidden until
//    "load" (calculator.css: .calc-output-later), it is styled and laid out once, in the
//    next frame (benchmarks/main_thread.py). Not with an anchor in the address
//    (the browser scrolls to it while loading), nor where JavaScript is off (the class
//    is this script's).
(function () {
  "use strict";
  if (window.__calcWorker) return;
  // The worker's URL carries this page's build (worker.js refuses a manifest of another) and
  // its own version (an HTTP cache cannot hand an older worker.js to this page): both are in
  // <meta name="calculator-build">, written by sitegen/calculator_assets.py before this script.
  var workerUrl = (function () {
    var url = new URL("worker.js", document.currentScript.src);
    var meta = document.querySelector('meta[name="calculator-build"]');
    if (meta) url.search = "?v=" + encodeURIComponent(meta.getAttribute("data-worker") || "") +
      "&build=" + encodeURIComponent(meta.getAttribute("content"));
    return url.href;
  })();
  var serviceWorkerUrl = new URL("../../calculator-sw.js", document.currentScript.src).href;

  // ---- 2. the search index waits
  var held = [];
  var released = false;
  function release() {
    if (released) return;
    released = true;
    held.splice(0).forEach(function (go) { go(); });
  }
  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    try {
      this.__calcHold = !released && /\/search\/search_index\.json$/.test(new URL(String(url), location.href).pathname);
    } catch (e) {
      this.__calcHold = false;
    }
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    if (this.__calcHold && !released) {
      var xhr = this;
      var args = arguments;
      held.push(function () { send.apply(xhr, args); });
      return;
    }
    return send.apply(this, arguments);
  };
  // The reader reaches for search: the header's search button (#__search) or the
  // search field, by mouse, touch or keyboard shortcut.
  function wantsSearch(event) {
    var t = event.target;
    if (t && t.closest && (t.id === "__search" || t.closest("form[name=search]") || t.closest("label[for=__search]"))) {
      release();
    }
  }
  // Material's search worker (assets/javascripts/workers/search.*.js: lunr, ~40 KB to compile, and a thread)
  // waits too: its bundle creates it while it starts, but sends it nothing before the index has arrived. Until
  // release, Material holds a stand-in that keeps its listeners and messages; release creates the worker and
  // forwards both ways (issue 31: its start was ~0.1 s of a link's CPU before the answer).
  var NativeWorker = window.Worker;
  var SEARCH_WORKER = /\/assets\/javascripts\/workers\/search\.[^/]*\.js$/;
  function searchWorkerUrl(url) {
    try {
      return SEARCH_WORKER.test(new URL(String(url), location.href).pathname);
    } catch (e) {
      return false;
    }
  }
  function HeldWorker(url, options) {
    var stand = new EventTarget();
    var real = null;
    var posted = [];
    var ended = false;
    stand.onmessage = null;
    stand.onerror = null;
    stand.postMessage = function () {
      if (real) real.postMessage.apply(real, arguments);
      else posted.push(arguments);
    };
    stand.terminate = function () {
      ended = true;
      if (real) real.terminate();
    };
    function forward(event) {
      var copy = event.type === "message" ? new MessageEvent("message", { data: event.data }) : new Event(event.type);
      var handler = event.type === "message" ? stand.onmessage : event.type === "error" ? stand.onerror : null;
      if (typeof handler === "function") handler.call(stand, copy);
      stand.dispatchEvent(copy);
    }
    held.push(function () {
      if (ended) return;
      real = new NativeWorker(url, options);
      real.addEventListener("message", forward);
      real.addEventListener("error", forward);
      posted.splice(0).forEach(function (args) { real.postMessage.apply(real, args); });
    });
    return stand;
  }
  if (NativeWorker && window.EventTarget && window.MessageEvent) {
    window.Worker = function (url, options) {
      if (!released && searchWorkerUrl(url)) return HeldWorker(url, options);
      return new NativeWorker(url, options);
    };
    window.Worker.prototype = NativeWorker.prototype;
  }
  document.addEventListener("focusin", wantsSearch, true);
  document.addEventListener("change", wantsSearch, true);
  document.addEventListener("pointerdown", wantsSearch, true);
  setTimeout(release, 10000);

  // ---- 4. the breakdown is laid out after the page's start (narrow screens: calculator.css)
  if (!location.hash) {
    var rootElement = document.documentElement;
    rootElement.classList.add("calc-output-later");
    // At "load" itself, so that whatever runs after it (a reader's script, a test) sees the whole page;
    // the style and layout this asks for run in the next frame, a task of their own.
    var showOutput = function () { rootElement.classList.remove("calc-output-later"); };
    if (document.readyState === "complete") showOutput();
    else window.addEventListener("load", showOutput);
  }

  // ---- 1. the worker starts once the page has loaded and the main thread is idle
  function go() {
    if (window.__calcWorker) {
      // calculator.js started it (it does when this script's turn comes late): still watch it.
      if (window.__calcWorker.worker) watch(window.__calcWorker.worker);
      return;
    }
    var queue = [];
    var worker;
    try {
      worker = new Worker(workerUrl, { type: "module" });
    } catch (e) {
      release();
      return; // calculator.js tries again and reports the failure
    }
    worker.onmessage = function (event) { queue.push(event); };
    worker.onerror = function (event) { queue.push({ error: (event && event.message) || "worker" }); };
    watch(worker);
    window.__calcWorker = { worker: worker, queue: queue };
  }
  // Stays attached when calculator.js replaces onmessage/onerror.
  var watched = null;
  function watch(worker) {
    if (watched) return;
    watched = worker;
    var answered = !location.search.replace(/^\?/, ""); // a link's inputs get an answer: wait for it
    worker.addEventListener("message", function (event) {
      var type = event.data && event.data.type;
      if (type === "result") answered = true;
      // A link's index waits for the link's answer too: its bytes and its indexing are not on the way there.
      if (type === "failed") release();
      // The index and the service worker's install start once the answer this message brings is painted
      // (this listener runs before calculator.js renders it): not beside its rendering (issue 31).
      if ((type === "ready" || type === "result") && answered) afterPaint(function () {
        release();
        keepForNextTime();
      });
    });
    worker.addEventListener("error", release);
  }
  // After the next frame is painted (the frame that shows what calculator.js does with the message at hand):
  // a task queued from requestAnimationFrame runs after that paint. A hidden page paints nothing: 1 s then.
  function afterPaint(fn) {
    var done = false;
    function once() {
      if (done) return;
      done = true;
      fn();
    }
    if (window.requestAnimationFrame) window.requestAnimationFrame(function () { setTimeout(once, 0); });
    setTimeout(once, 1000);
  }
  // ---- 3. the next visit needs no download, and works offline
  // calculator-sw.js (at the site's root; see there) keeps the page, the worker and
  // what it loads. Registered only once this visit has its answer: the first visit
  // runs from the network alone, and the service worker's install (which reads what
  // this visit downloaded from the HTTP cache) never competes with the first answer.
  // window.__calcOffline: the two registrations once asked for (null where there are
  // no service workers), for whoever wants to wait on them (the browser tests do).
  var kept = false;
  var settle;
  window.__calcOffline = new Promise(function (resolve) { settle = resolve; });
  function keepForNextTime() {
    if (kept) return;
    kept = true;
    if (!("serviceWorker" in navigator) || !window.isSecureContext) return settle(null);
    var page = new URL("./", location.href).href;
    var workerScope = workerUrl.split("?")[0]; // the scope covers every version of the script
    settle(Promise.all([page, workerScope].map(function (scope) {
      var options = { scope: scope, updateViaCache: "none" };
      return navigator.serviceWorker.register(serviceWorkerUrl, options);
    })).catch(function (error) {
      console.warn("calculator: no offline copy:", error && error.message);
      return null;
    }));
  }

  function whenIdle() {
    if (window.requestIdleCallback) window.requestIdleCallback(go, { timeout: 1000 });
    else setTimeout(go, 0);
  }
  if (document.readyState === "complete") whenIdle();
  else window.addEventListener("load", whenIdle);
  // A subresource that never finishes loading must not keep the calculator from starting.
  setTimeout(go, 4000);
})();
