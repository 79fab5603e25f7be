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
    if (request.url === WORKER_SCRIPT) {
      event.respondWith(networkFirst(event, WORKER_SCRIPT));
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
    if (url.pathname === page.pathname) event.respondWith(networkFirst(event, page.href));
  } else if (["style", "script", "image", "font"].includes(request.destination)) {
    event.respondWith(networkFirst(event, url.href.split("?")[0]));
  }
});

function assetPath(url) {
  const assets = new URL("assets/", SITE).pathname;
  return url.pathname.startsWith(assets) ? url.pathname.slice(assets.length) : "";
}

// From the server (revalidated: what is deployed now, a 304 when unchanged), and
// kept; the copy kept when the network fails.
async function networkFirst(event, key) {
  let response;
  try {
    response = await fetch(event.request, { cache: "no-cache" });
  } catch (error) {
    const kept = await (await caches.open(CACHE)).match(key);
    if (kept) return kept;
    throw error;
  }
  if (response.ok && response.type === "basic") {
    const copy = response.clone();
    event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
  }
  return response;
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
  }
}

// ---------------------------------------------------------------- first visit

async function precache() {
  const cache = await caches.open(CACHE);
  const m = await loadManifest(true);
  if (!m || !m.fresh) throw new Error("the manifest did not load");
  if (FOR_WORKER) {
    await keep(cache, WORKER_SCRIPT);
    await commit(m);
    return;
  }
  const page = new URL(self.registration.scope);
  const files = (m.json.pages || {})[page.pathname.slice(SITE.pathname.length)] || [];
  await keep(cache, page.href);
  await Promise.all(files.map((path) => keep(cache, new URL(path, SITE).href)));
}

async function keep(cache, url) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  await cache.put(url, response);
}
