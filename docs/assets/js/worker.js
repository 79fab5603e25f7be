// The calculator's module worker: Pyodide and the calculator package, off the main thread.
//
// Everything is served by this site: the runtime from ../pyodide/ (copied from
// node_modules/pyodide at build time), its standard library from
// ../pyodide-stdlib/python_stdlib.zip (only the modules Pyodide's start and the
// calculator import, precompiled by the build: sitegen/compile_stdlib.mjs; 0.9 MB
// instead of npm's 2.5 MB, and Python starts ~1 s sooner) and the package from
// ../calculator-src/ (the repository's calculator/*.py, listed with SHA-256 in
// manifest.json). No CDN, no micropip, no packages beyond the standard library.
// After a first visit, ../../calculator-sw.js answers these requests from its
// cache (registered by calculator-start.js; this file does not know about it).
//
// Protocol (postMessage):
//   worker -> page  {type: "ready", ms}            Python is up, calculator.api imported
//   worker -> page  {type: "failed", detail}       the runtime or the sources did not load
//   worker -> page  {type: "failed", code: "build_mismatch", build}
//                                                  the manifest is another build's than the page's
//   page -> worker  {id, request, lang}            request: {params: {...}} or {config: "..."},
//                                                  plus costs: {batch, seq_len, ...} while the
//                                                  "Training cost" panel is open, forms: [the
//                                                  families whose fieldset the page holds], and
//                                                  want: ["tensors"] while the table is open;
//                                                  or {want: ["copies"] | ["tensors"]} alone: that
//                                                  part of the last good answer (Python keeps it)
//   worker -> page  {type: "result", id, result, ms}
//   page -> worker  {id, request: {model: "REPO[@REV]" | a Hub address, architecture?, costs?, forms, want?}, lang}
//                                                  a model id (issue 33, item 4): calculator/page/hub.py reads
//                                                  it from the Hub through fetch (calculator.hub.fetch_browser)
//                                                  and answers as compute_json does, plus "hub"; the Hub's
//                                                  modules (the manifest's "on_demand") are fetched the first
//                                                  time, never before: a link without a model id costs nothing more
//   worker -> page  {type: "later"}                 the sources the default answer does not import are written
//   worker -> page  {type: "progress", id, requests, bytes}
//                                                  while a model id is read: after each answer from the Hub
// The sources the default answer does not import (the manifest's "later") are fetched after the first answer;
// an answer that imported one of them before that is computed again once they are written.
// A result is calculator.api.compute_json's answer; anything thrown on the way
// becomes the error code "internal", never a stack trace on the page.
import { loadPyodide } from "../pyodide/pyodide.mjs";

const ASSETS = new URL("../", import.meta.url);
const PYODIDE_URL = new URL("pyodide/", ASSETS).href;
const STDLIB_URL = new URL("pyodide-stdlib/python_stdlib.zip", ASSETS).href;
const SOURCE_URL = new URL("calculator-src/", ASSETS);
const MOUNT = "/calculator-src/";
const started = performance.now();
// The build of the page that started this worker (calculator.js puts it in the script's URL;
// sitegen/calculator_assets.py writes it into the page): the manifest must be that build's.
const BUILD = new URL(import.meta.url).searchParams.get("build");

// Thrown when the manifest is another build's: the page is told with its own code.
class BuildMismatch extends Error {
  constructor(build) {
    super(`this page is build ${BUILD}, the calculator's files are build ${build}`);
    this.build = build;
  }
}

async function fetchOk(url, options) {
  const response = await fetch(url, options);
  if (!response.ok) throw new Error(`${new URL(url).pathname}: HTTP ${response.status}`);
  return response;
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Fetch the package's files (in parallel with the runtime) and check each against the manifest.
// "bytecode" is one zip of checked-hash .pyc files compiled from those sources at build
// time (sitegen/compile_pyc.mjs), unpacked beside them: Python uses one only if its
// recorded hash matches the .py beside it, so they save compiling, never change what runs.
const SOURCE_PATH = /^calculator\/([A-Za-z0-9_]+\/)*[A-Za-z0-9_]+\.py$/;
const BYTECODE_PATH = /^calculator\/([A-Za-z0-9_]+\/)*__pycache__\/[A-Za-z0-9_]+\.cpython-\d+\.pyc$/;
const ARCHIVE_PATH = /^[A-Za-z0-9_]+\.zip$/;
async function fetchChecked(file, allowed) {
  if (!allowed.test(file.path)) throw new Error(`bad path in manifest: ${file.path}`);
  const url = new URL(file.path, SOURCE_URL);
  // An HTTP cache may still hold the previous deploy's copy (GitHub Pages: max-age=600):
  // a file that is not the one the manifest names is asked for again, revalidated.
  for (const cache of ["default", "no-cache"]) {
    const data = new Uint8Array(await (await fetchOk(url, { cache })).arrayBuffer());
    if (!(self.crypto && crypto.subtle)) return [file.path, data];
    const digest = hex(await crypto.subtle.digest("SHA-256", data));
    if (digest === file.sha256) return [file.path, data];
  }
  throw new Error(`${file.path}: checksum mismatch`);
}

async function loadSources(manifestPromise) {
  const manifest = await manifestPromise;
  const bytecode = manifest.bytecode && manifest.bytecode.files ? manifest.bytecode : null;
  for (const file of bytecode ? bytecode.files : []) {
    if (!BYTECODE_PATH.test(file.path)) throw new Error(`bad path in manifest: ${file.path}`);
  }
  // The sources the default answer does not import ("later": other families, the panel's modules) come after
  // the first answer (loadLater), not on a shared link's way.
  const later = new Set(manifest.later || []);
  const [sources, archive] = await Promise.all([
    Promise.all(manifest.files.filter((file) => !later.has(file.path)).map((file) => fetchChecked(file, SOURCE_PATH))),
    bytecode ? fetchChecked(bytecode, ARCHIVE_PATH) : null,
  ]);
  return { sources, archive, members: bytecode ? bytecode.files.map((file) => file.path) : [] };
}

let booted = false;
let bootFailed;
const failure = new Promise((resolve, reject) => (bootFailed = reject));
failure.catch(() => {});
self.addEventListener("unhandledrejection", (event) => {
  if (booted) return;
  event.preventDefault();
  bootFailed(event.reason instanceof Error ? event.reason : new Error(String(event.reason)));
});

// Milliseconds since the worker started, for the benchmark (benchmarks/calculator_page.py).
const timings = {};
const mark = (name) => (timings[name] = Math.round(performance.now() - started));

async function boot() {
  // Revalidated (a 304 when unchanged): the deployed manifest, never the HTTP cache's older one.
  const manifest = fetchOk(new URL("manifest.json", SOURCE_URL), { cache: "no-cache" })
    .then((response) => response.json())
    .then((m) => {
      if (BUILD && m.build !== BUILD) throw new BuildMismatch(m.build);
      return m;
    });
  manifest.catch((error) => error instanceof BuildMismatch && bootFailed(error));
  const sources = loadSources(manifest);
  sources.catch(() => {}); // reported below, once the runtime is awaited
  sources.then(() => mark("sources"), () => {});
  // Pyodide reports a failed WebAssembly download or compile only with console.warn
  // (and an unhandled rejection) and then never settles; turn either into a
  // rejection so the page can say so instead of loading forever.
  const warn = console.warn;
  console.warn = (...args) => {
    if (String(args[0]).includes("wasm instantiation failed")) bootFailed(new Error("WebAssembly did not load"));
    warn.apply(console, args);
  };
  let pyodide;
  try {
    // The lock file comes in the manifest, without its packages (the calculator loads
    // none): one request and ~20 KB fewer than Pyodide fetching pyodide-lock.json.
    const lockFileContents = manifest.then((m) => m.pyodide_lock);
    lockFileContents.catch(() => {}); // the sources report a manifest that did not load
    pyodide = await Promise.race([
      loadPyodide({ indexURL: PYODIDE_URL, stdLibURL: STDLIB_URL, lockFileContents, packages: [] }),
      failure,
    ]);
  } finally {
    console.warn = warn;
  }
  mark("runtime");
  const loaded = await sources;
  for (const [path, data] of loaded.sources) {
    const full = MOUNT + path;
    pyodide.FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
    pyodide.FS.writeFile(full, data);
  }
  if (loaded.archive) {
    // zipimport (frozen into Python) reads the archive; each member goes where Python looks for it.
    pyodide.FS.writeFile("/tmp/calculator-bytecode.zip", loaded.archive[1]);
    pyodide.runPython(`
def _unpack(archive, members, root):
    import os, zipimport
    zipped = zipimport.zipimporter(archive)
    for name in members:
        os.makedirs(os.path.dirname(root + name), exist_ok=True)
        with open(root + name, "wb") as fh:
            fh.write(zipped.get_data(name))
    os.remove(archive)
_unpack("/tmp/calculator-bytecode.zip", ${JSON.stringify(loaded.members)}, ${JSON.stringify(MOUNT)})
del _unpack
`);
  }
  // A module of "later" imported before loadLater has written it is noted here (Python raises as for any
  // missing module, and the answer is the error "internal"); the worker then loads them and asks again.
  pyodide.runPython(`
import sys
class _Later:
    """Finds nothing: notes the calculator's modules asked for before the worker has fetched them."""
    names = ${JSON.stringify((await manifest).later || [])}
    missing = []
    def find_spec(self, name, path=None, target=None):
        if name.replace(".", "/") + ".py" in self.names or name.replace(".", "/") + "/__init__.py" in self.names:
            self.missing.append(name)
        return None
_later = _Later()
sys.meta_path.append(_later)
sys.path.insert(0, ${JSON.stringify(MOUNT)})
import calculator.api`);
  const api = pyodide.pyimport("calculator.api");
  mark("imported");
  runtime = { pyodide, manifest };
  return api.compute_json;
}

// The runtime and the manifest, once booted: what the Hub's modules are loaded with, on demand.
let runtime = null;
// The manifest's "later" sources, fetched and checked as the others were, written where Python looks: after
// the first answer (a moment later, off its way), or at once when an answer needs one of them.
let laterLoaded = null;
function loadLater() {
  if (!laterLoaded) {
    laterLoaded = (async () => {
      const { pyodide, manifest } = runtime;
      const m = await manifest;
      const later = new Set(m.later || []);
      const files = await Promise.all(m.files.filter((file) => later.has(file.path)).map((file) => fetchChecked(file, SOURCE_PATH)));
      for (const [path, data] of files) {
        const full = MOUNT + path;
        pyodide.FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
        pyodide.FS.writeFile(full, data);
      }
      pyodide.runPython("import sys\nsys.path_importer_cache.clear()\n_later.names = []");
      postMessage({ type: "later" }); // for whoever waits on it (the browser tests: root's data-later)
    })();
    laterLoaded.catch(() => (laterLoaded = null)); // tried again on the next ask
  }
  return laterLoaded;
}
// Whether the last answer asked for a module not fetched yet (and forgets it).
function askedForLater(pyodide) {
  return pyodide.runPython("_asked = bool(_later.missing)\n_later.missing.clear()\n_asked");
}
let hubModule = null;
// calculator/page/hub.py and the modules it imports (the manifest's "on_demand"), fetched and checked as the
// others were, the first time a model id is asked for. A failed download is tried again on the next ask.
function loadHub() {
  if (!hubModule) {
    hubModule = (async () => {
      const { pyodide, manifest } = runtime;
      const m = await manifest;
      let files;
      try {
        files = await Promise.all((m.on_demand || []).map((file) => fetchChecked(file, SOURCE_PATH)));
      } catch (error) {
        throw new HubOffline(error);
      }
      for (const [path, data] of files) {
        const full = MOUNT + path;
        pyodide.FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
        pyodide.FS.writeFile(full, data);
      }
      // The folders' listings the import system cached before these files were written.
      pyodide.runPython("import sys\nsys.path_importer_cache.clear()");
      return pyodide.pyimport("calculator.page.hub");
    })();
    hubModule.catch(() => (hubModule = null));
  }
  return hubModule;
}

// The Hub's modules did not download (offline, before a first model id): said beside the field.
class HubOffline extends Error {
  constructor(cause) {
    super(String((cause && cause.message) || cause));
  }
}

// A model id: read from the Hub (progress posted after each answer), then answered. Every error is
// Python's, beside the field; only the Hub's modules failing to download (offline before a first
// model id) is said here, with the code the page words (calculator.js: L.model_offline).
async function computeHub(id, request, lang) {
  let module;
  try {
    module = await loadHub();
  } catch (error) {
    if (!(error instanceof HubOffline)) throw error; // a fault of this code: "internal", as any other
    const at = { field: "model", fields: ["model"], slot: "calc-model-error", marks: ["calc-model"], key: null };
    const e = { code: "hub_unreachable", message: null, ...at };
    return { ok: false, error: e, errors: [e], detail: String((error && error.message) || error).slice(0, 300) };
  }
  const progress = (requests, bytes) => postMessage({ type: "progress", id, requests, bytes });
  return JSON.parse(await module.compute_json(JSON.stringify(request), lang, progress));
}

const ready = boot().then(
  (compute) => {
    booted = true;
    postMessage({ type: "ready", ms: performance.now() - started, timings });
    // A page without a link asks nothing yet: the later sources come a moment after "ready" (a link's
    // answer, asked at once, is on its way first).
    setTimeout(() => loadLater().catch(() => {}), 2000);
    return compute;
  },
  (error) => {
    booted = true;
    const mismatch = error instanceof BuildMismatch ? { code: "build_mismatch", build: error.build } : {};
    postMessage({ type: "failed", detail: String((error && error.message) || error).slice(0, 300), ...mismatch });
    return null;
  },
);

self.onmessage = async (event) => {
  const { id, request, lang } = event.data || {};
  const compute = await ready;
  if (!compute) return; // "failed" was already posted
  const t0 = performance.now();
  let result;
  try {
    const language = lang === "zh" ? "zh" : "en";
    if (request && typeof request.model === "string") {
      await loadLater().catch(() => {}); // the Hub's answer may be any family's (unloaded: said as the Hub's modules are)
      result = await computeHub(id, request, language);
    } else {
      const answer = () => JSON.parse(compute(JSON.stringify(request), language));
      let thrown = null;
      try {
        result = answer();
      } catch (error) {
        thrown = error;
      }
      if (askedForLater(runtime.pyodide)) {
        await loadLater();
        result = answer(); // the same request, now with every module there
      } else if (thrown) {
        throw thrown;
      }
    }
  } catch (error) {
    result = {
      ok: false,
      error: { code: "internal", key: null, field: null, message: null },
      detail: String((error && error.message) || error).slice(0, 2000),
    };
  }
  postMessage({ type: "result", id, result, ms: performance.now() - t0 });
};
