// The calculator's service worker: a second visit downloads no Pyodide byte again,
// and a reader who has lost the network still gets answers.
//
// Registered by assets/js/calculator-start.js (after the calculator's first
// answer, never before: the first visit runs from the network alone), twice:
//   * scope = the calculator page (calculator/ or zh/calculator/, with any
//     ?query): the page itself and the files it loads;
//   * scope = assets/js/worker.js: the calculator's module worker, whose requests
//     (Pyodide, the standard library zip, the calculator's sources) a service
//     worker sees only if its scope covers the worker script's own URL.
// Why this file sits at the site root: a service worker's scope can only be its
// own folder or below, and the root is the one folder above both the pages and
// assets/js/ (GitHub Pages cannot send Service-Worker-Allowed). Every URL here is
// relative to this file, so a project site under /<repository>/ works as is.
// Explainer pages are in no scope at all: nothing here ever sees them.
//
// What is served how (assets/calculator-src/manifest.json, written by the build,
// sitegen/calculator_assets.py, lists every file with its SHA-256):
//   * the calculator page (a navigation) and what it loads (styles, scripts,
//     images, the worker script): from the network, the copy kept for when the
//     network fails. Always the deployed version when online.
//   * the manifest: from the network (revalidated, so 304 when unchanged), else
//     the copy kept. Asked once per worker.
//   * what the manifest lists for the worker (Pyodide's runtime, the standard
//     library zip, the calculator's sources and bytecode): from the cache if the
//     copy there has the SHA-256 the manifest names, else downloaded, checked
//     against that SHA-256 and kept. A new build that changed a file changed its
//     SHA-256, so the next visit downloads that file and nothing else; unchanged
//     files (Pyodide's 3.6 MB of WebAssembly) are never downloaded again.
// The manifest is kept only once every file it lists is in the cache, so the
// copies used offline always belong together.
//
// One build per answer: the page carries its build id (<meta name="calculator-build">,
// the manifest's "build"), its scripts are versioned (?v=<their SHA-256>), and the
// worker checks the manifest against the page's build. Here, each kept copy of the
// page is also kept under its build (page?__build=<id>), and the scripts under their
// versioned URLs, so offline the page served is the one whose build the kept manifest
// is: a short online visit after a deploy that kept the new page but not yet the new
// build's files does not leave the new page beside the old Python. A network answer
// that is not ok (a 404 or 5xx) is replaced by the kept copy too, as a network error is.
const VERSION = 1;
const SITE = new URL("./", self.location.href); // the site's root (this file's folder)
const CACHE = `bert-calculator-v${VERSION}:${SITE.pathname}`;
const MANIFEST = new URL("assets/calculator-src/manifest.json", SITE).href;
const WORKER_SCRIPT = new URL("assets/js/worker.js", SITE).href;
const SHA = "x-calculator-sha256";
const FOR_WORKER = self.registration.scope === WORKER_SCRIPT;

self.addEventListener("install", (event) => {
  // Everything the next visit needs offline, or no install (and no control) at all.
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((names) =>
      Promise.all(
        names
          .filter((n) => n.startsWith("bert-calculator-v") && n.endsWith(`:${SITE.pathname}`) && n !== CACHE)
          .map((n) => caches.delete(n)),
      ),
    ),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== SITE.origin || !url.pathname.startsWith(SITE.pathname)) return;
  if (FOR_WORKER) {
    if (url.href.split("?")[0] === WORKER_SCRIPT) {
      event.respondWith(networkFirst(event, versionedKey(url)));
    } else if (url.href.split("?")[0] === MANIFEST || /^(pyodide|pyodide-stdlib|calculator-src)\//.test(assetPath(url))) {
      const manifest = manifestFor(event);
      // Once per manifest fetched from the network: every file of that build into the cache.
      event.waitUntil(manifest.then((m) => m && m.fresh && (m.committed ||= commit(m))).catch(() => {}));
      event.respondWith(url.href.split("?")[0] === MANIFEST ? manifestResponse(event, manifest) : workerFile(event, manifest));
    }
    return; // anything else goes to the network, untouched
  }
  const page = new URL(self.registration.scope);
  if (request.mode === "navigate") {
    if (url.pathname === page.pathname) event.respondWith(networkFirst(event, page.href, true));
  } else if (["style", "script", "image", "font"].includes(request.destination)) {
    event.respondWith(networkFirst(event, versionedKey(url)));
  }
});

// A file's key in the cache: its URL with only its version (?v=), if it has one.
function versionedKey(url) {
  const v = url.searchParams.get("v");
  return url.href.split("?")[0] + (v ? `?v=${encodeURIComponent(v)}` : "");
}

const BUILD_META = /<meta name="calculator-build" content="([0-9a-f]+)"/;

// The build the kept manifest is (the calculator's files offline), or null.
async function keptBuild(cache) {
  const kept = await cache.match(MANIFEST);
  if (!kept) return null;
  try {
    return (await kept.json()).build || null;
  } catch {
    return null;
  }
}

// The kept copy for a request that the network did not answer well: for the page, the copy
// of the build whose files are kept, if there is one; for a versioned file, that version,
// else any version of it (the worker's build check still guards the numbers).
async function keptCopy(key, isPage) {
  const cache = await caches.open(CACHE);
  if (isPage) {
    const build = await keptBuild(cache);
    const same = build && (await cache.match(`${key}?__build=${build}`));
    if (same) return same;
  }
  return (await cache.match(key)) || (await cache.match(key.split("?")[0], { ignoreSearch: true }));
}

function assetPath(url) {
  const assets = new URL("assets/", SITE).pathname;
  return url.pathname.startsWith(assets) ? url.pathname.slice(assets.length) : "";
}

// From the server (revalidated: what is deployed now, a 304 when unchanged), and
// kept; the copy kept when the network fails.
async function networkFirst(event, key, isPage = false) {
  let response;
  try {
    response = await fetch(event.request, { cache: "no-cache" });
  } catch (error) {
    const kept = await keptCopy(key, isPage);
    if (kept) return kept;
    throw error;
  }
  if (!response.ok) {
    // A 404 or 5xx (a deploy under way, a host's bad minute): the kept copy, where there is one.
    const kept = await keptCopy(key, isPage);
    return kept || response;
  }
  if (response.type === "basic") {
    const copy = response.clone();
    event.waitUntil(caches.open(CACHE).then((cache) => keepResponse(cache, key, copy, isPage)));
  }
  return response;
}

// Keep a page or file; a page is kept twice: as the latest copy, and under its build.
async function keepResponse(cache, key, response, isPage) {
  // Kept without the URL it was fetched by: a module worker's import.meta.url is its response's
  // URL, and worker.js reads the page's build from there (?build=): served from here to another
  // page, it must see that page's URL, not the one of the visit that kept it.
  if (!isPage) {
    const body = await response.blob();
    const headers = new Headers(response.headers);
    for (const name of ["content-encoding", "content-length"]) headers.delete(name); // the body is decoded
    return cache.put(key, new Response(body, { status: response.status, headers }));
  }
  const text = await response.clone().text();
  const build = (BUILD_META.exec(text) || [])[1];
  await cache.put(key, response);
  if (build) {
    await cache.put(`${key}?__build=${build}`, new Response(text, { status: 200, headers: response.headers }));
  }
}

// ---------------------------------------------------------------- the worker's files

// One manifest per worker (client), fetched once: its own request for manifest.json
// and every file it loads are answered from the same build's list.
const manifests = new Map();

function manifestFor(event) {
  const id = event.clientId || event.resultingClientId || "";
  if (!manifests.has(id)) {
    manifests.set(id, loadManifest(true));
    while (manifests.size > 16) manifests.delete(manifests.keys().next().value);
  }
  return manifests.get(id);
}

async function loadManifest(network) {
  const cache = await caches.open(CACHE);
  let text = null;
  let fresh = false;
  if (network) {
    try {
      const response = await fetch(MANIFEST, { cache: "no-cache" });
      if (response.ok) {
        text = await response.text();
        fresh = true;
      }
    } catch (error) {
      // offline: the copy kept below
    }
  }
  if (text === null) {
    const kept = await cache.match(MANIFEST);
    if (!kept) return null;
    text = await kept.text();
  }
  const json = JSON.parse(text);
  const entries = new Map();
  const add = (path, entry) => entries.set(path, { path, sha256: entry.sha256 });
  for (const e of json.runtime || []) add(e.path, e);
  if (json.stdlib) add(json.stdlib.path, json.stdlib);
  for (const e of json.files || []) add(`assets/calculator-src/${e.path}`, e);
  if (json.bytecode && json.bytecode.path) add(`assets/calculator-src/${json.bytecode.path}`, json.bytecode);
  return { text, json, entries, fresh };
}

async function manifestResponse(event, manifest) {
  const m = await manifest;
  if (!m) return fetch(event.request);
  return new Response(m.text, { headers: { "content-type": "application/json; charset=utf-8" } });
}

async function workerFile(event, manifest) {
  const m = await manifest;
  const url = new URL(event.request.url);
  const entry = m && m.entries.get(url.pathname.slice(SITE.pathname.length));
  if (!entry) return fetch(event.request);
  try {
    return await ensure(entry);
  } catch (error) {
    return fetch(event.request); // not what the manifest names: the worker's own check decides
  }
}

// A file the manifest names, from the cache with that SHA-256, or downloaded,
// checked and kept. Concurrent requests for one file share one download.
const downloads = new Map();

async function ensure(entry) {
  const url = new URL(entry.path, SITE).href;
  const cache = await caches.open(CACHE);
  const kept = await cache.match(url);
  if (kept && kept.headers.get(SHA) === entry.sha256) return kept;
  const key = `${url} ${entry.sha256}`;
  if (!downloads.has(key)) {
    const done = download(cache, url, entry.sha256);
    downloads.set(key, done);
    done.finally(() => downloads.delete(key)).catch(() => {});
  }
  await downloads.get(key);
  return cache.match(url);
}

async function download(cache, url, sha256) {
  // The HTTP cache first (the page has usually just loaded it), then the server itself.
  for (const mode of ["force-cache", "no-cache"]) {
    const response = await fetch(url, { cache: mode });
    if (!response.ok) continue;
    const body = await response.arrayBuffer();
    if (hex(await crypto.subtle.digest("SHA-256", body)) !== sha256) continue;
    const headers = { [SHA]: sha256, "content-length": String(body.byteLength) };
    const type = response.headers.get("content-type");
    if (type) headers["content-type"] = type;
    await cache.put(url, new Response(body, { status: 200, headers }));
    return;
  }
  throw new Error(`${url}: not the file the manifest names`);
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Every file of this build in the cache, then its manifest: the copy used offline.
// Files of earlier builds that this one no longer lists go.
async function commit(m) {
  await Promise.all([...m.entries.values()].map(ensure));
  const cache = await caches.open(CACHE);
  await cache.put(MANIFEST, new Response(m.text, { headers: { "content-type": "application/json; charset=utf-8" } }));
  const listed = new Set([...m.entries.values()].map((e) => new URL(e.path, SITE).href));
  const sources = new URL("assets/calculator-src/", SITE).href;
  for (const request of await cache.keys()) {
    if (request.url.startsWith(sources) && request.url !== MANIFEST && !listed.has(request.url)) {
      await cache.delete(request);
    }
    // Pages kept under an older build: their files are gone now.
    const build = new URL(request.url).searchParams.get("__build");
    if (build && build !== m.json.build) await cache.delete(request);
  }
}

// ---------------------------------------------------------------- first visit

async function precache() {
  const cache = await caches.open(CACHE);
  const m = await loadManifest(true);
  if (!m || !m.fresh) throw new Error("the manifest did not load");
  if (FOR_WORKER) {
    await keep(cache, m.json.worker ? new URL(m.json.worker, SITE).href : WORKER_SCRIPT);
    await commit(m);
    return;
  }
  const page = new URL(self.registration.scope);
  const files = (m.json.pages || {})[page.pathname.slice(SITE.pathname.length)] || [];
  await keep(cache, page.href, true);
  await Promise.all(files.map((path) => keep(cache, new URL(path, SITE).href)));
}

async function keep(cache, url, isPage = false) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  await keepResponse(cache, isPage ? url : versionedKey(new URL(url)), response, isPage);
}
