"""MkDocs hook: the in-page calculator (``docs/calculator.md`` and ``docs/calculator.zh.md``).

What it does
------------
``on_page_content``
    Replaces the mount point ``<div class="calculator-mount" data-lang="en"></div>``
    in the calculator page with :func:`calculator.api.render_widget`: the form and
    the result for the default state (bert-base-uncased, ``BertModel`` with its
    pooler), rendered by the same Python that later runs in the browser. So the
    page shows an exact answer before any script has run.
``on_post_page``
    On the calculator page only, adds to ``<head>`` ``assets/css/calculator.css``,
    the classic script ``assets/js/calculator-start.js`` (starts the Pyodide
    worker once the page has loaded and the main thread is idle, holds back Material's search
    index until the worker is up, and registers the service worker
    ``calculator-sw.js`` once the first answer is in) and the module script
    ``assets/js/calculator.js`` (the form), with URLs relative to the page so the
    site works under any subpath. Explainer pages load none of them, and no Pyodide.
    One build per answer: a ``<meta name="calculator-build">`` carries the page's
    build id (:func:`build_id`, a digest of the calculator's sources, which made the
    pre-rendered numbers), also written into the manifest as ``build``; the worker
    refuses a manifest of another build. Each script's URL carries its own version
    (``?v=`` its SHA-256, and the worker's in the meta tag), so an HTTP cache
    (GitHub Pages: ``max-age=600``) cannot pair a new page with an old script.
``on_post_build``
    Copies the Pyodide runtime from ``node_modules/pyodide`` (installed by
    ``npm ci``; no CDN is used at run time) to ``assets/pyodide/``, and every
    ``.py`` file of the repository's ``calculator/`` package but the command
    line's own (:data:`CLI_ONLY`) to
    ``assets/calculator-src/calculator/``, with ``assets/calculator-src/manifest.json``
    (paths, sizes, SHA-256). The worker loads exactly those files, so the browser
    runs the package that pytest checks, not a copy kept somewhere else. Beside
    them goes ``bytecode.zip``: checked-hash ``__pycache__/*.pyc`` files compiled
    by the same Pyodide (``sitegen/compile_pyc.mjs``), listed under ``bytecode``,
    which the worker unpacks next to the sources: Python uses one only if it was
    compiled from the exact bytes of the ``.py`` beside it, which saves the worker
    ~40 ms of compiling before its first answer. A module that the default answer does
    not import has none (:func:`modules_left_to_compile`): families, the panel's modules
    and the rest are imported when asked for, and compiled then. The Hub's modules (:data:`ON_DEMAND`)
    are copied too but listed apart (``on_demand``), without bytecode: the worker
    fetches them the first time a reader asks for a model id.
    Then ``assets/pyodide-stdlib/python_stdlib.zip``: only the standard library
    modules Pyodide's start and the calculator import, as sourceless ``.pyc`` files
    of npm's sources (``sitegen/compile_stdlib.mjs``, which derives the list from
    the code). npm's zip holds the whole library as ``.py`` files, so every start
    of Pyodide compiles them (~1.2 s of its ~2 s start in Chromium here); the
    worker passes this zip as ``stdLibURL``. It is recorded under ``stdlib``.
    The manifest also lists, for the service worker (``docs/calculator-sw.js``),
    Pyodide's runtime files with SHA-256 (``runtime``) and each calculator page's
    own files (``pages``, read from the built HTML), and for the worker the lock
    file's ``info`` without its packages (``pyodide_lock``).
    mkdocs-static-i18n calls ``on_post_build`` once per language with the same
    ``site_dir``; the copy is idempotent, and the last call has seen every page.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from calculator import api  # noqa: E402

PACKAGE_DIR = os.path.join(ROOT, "calculator")
PYODIDE_DIR = os.path.join(ROOT, "node_modules", "pyodide")
#: The Pyodide files the worker needs (no packages: the calculator is stdlib only).
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PYODIDE_DEST = "assets/pyodide"
SOURCE_DEST = "assets/calculator-src"
#: npm's python_stdlib.zip with the modules imported at start precompiled (see compile_stdlib).
STDLIB_DEST = "assets/pyodide-stdlib/python_stdlib.zip"
CSS = "assets/css/calculator.css"
SCRIPT = "assets/js/calculator.js"
STARTER = "assets/js/calculator-start.js"
WORKER = "assets/js/worker.js"
#: The model-id field's module (issue 33), imported by calculator.js only when a model id is wanted; its
#: version goes in the page's meta tag (``data-model``), as the worker's does.
MODEL_SCRIPT = "assets/js/calculator-model.js"
#: The command line's own modules. The page never imports them (the worker calls
#: ``calculator.api``; tests/properties/test_layering.py holds that nothing else
#: imports them), so they are not shipped, and neither are the standard library
#: modules only they import (argparse and gettext: 38 KB of the stdlib zip).
CLI_ONLY = ("calculator/__main__.py", "calculator/cli.py", "calculator/hub_fetch.py")
#: Reading a model id from the Hub (issue 33, item 4): shipped beside the others but listed apart in the
#: manifest (``on_demand``), with no bytecode, so the worker downloads them only when a reader asks for a
#: model id: a shared link without one costs the same bytes as before.
ON_DEMAND = ("calculator/hub.py", "calculator/views/hub.py", "calculator/page/hub.py")

MOUNT = re.compile(r'<div class="calculator-mount" data-lang="(en|zh)"></div>')
_MARK = "calculator_page"
#: The Pyodide files the worker loads (the lock file is passed inline: see ``pyodide_lock``).
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")
#: The service worker (docs/calculator-sw.js, copied by MkDocs to the site's root).
SERVICE_WORKER = "calculator-sw.js"
#: URLs (relative to the site) of the pages with a calculator, as MkDocs writes them.
_CALCULATOR_PAGES: set[str] = set()


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files, **kwargs: Any) -> str:
    match = MOUNT.search(html)
    if match is None:
        return html
    if len(MOUNT.findall(html)) > 1:
        raise PluginError(f"calculator_assets: {page.file.src_uri} has more than one calculator mount point")
    page.meta[_MARK] = True
    try:
        widget = api.render_widget(match.group(1))
    except Exception as exc:  # a broken calculator must fail the build, with the reason
        raise PluginError(f"calculator_assets: cannot pre-render the calculator: {type(exc).__name__}: {exc}") from exc
    return html[: match.start()] + widget + html[match.end():]


def build_id() -> str:
    """The calculator's build: a digest of every source of ``calculator/`` (paths and bytes).

    The page's pre-rendered numbers and the worker's answers both come from these
    files, so two builds that could give different numbers have different ids.
    """
    listed = []
    for rel in package_sources() + list(ON_DEMAND):
        with open(os.path.join(ROOT, rel), "rb") as fh:
            listed.append((rel, _sha256(fh.read())))
    return _sha256(json.dumps(listed).encode())[:16]


def asset_version(docs_dir: str, rel: str) -> str:
    """A file's version for its URL (``?v=``): the start of its SHA-256."""
    with open(os.path.join(docs_dir, *rel.split("/")), "rb") as fh:
        return _sha256(fh.read())[:12]


def on_post_page(output: str, page: Page, config: MkDocsConfig, **kwargs: Any) -> str:
    if not page.meta.get(_MARK):
        return output
    docs = config["docs_dir"]
    css = get_relative_url(CSS, page.url) + "?v=" + asset_version(docs, CSS)
    script = get_relative_url(SCRIPT, page.url) + "?v=" + asset_version(docs, SCRIPT)
    starter = get_relative_url(STARTER, page.url) + "?v=" + asset_version(docs, STARTER)
    if "</head>" not in output:
        raise PluginError(f"calculator_assets: no </head> in {page.file.src_uri}")
    _CALCULATOR_PAGES.add(page.url)
    tags = (
        f'<meta name="calculator-build" content="{build_id()}" data-worker="{asset_version(docs, WORKER)}" '
        f'data-model="{asset_version(docs, MODEL_SCRIPT)}">\n'
        f'<link rel="stylesheet" href="{css}">\n<script src="{starter}"></script>\n'
        f'<script type="module" src="{script}"></script>\n'
    )
    return output.replace("</head>", tags + "</head>", 1)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def package_sources() -> list[str]:
    """The ``.py`` files of ``calculator/`` the page runs (all but :data:`CLI_ONLY`), as
    POSIX paths relative to the repository root."""
    found = []
    for folder, dirs, names in os.walk(PACKAGE_DIR):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(folder, name), ROOT).replace(os.sep, "/")
            if name.endswith(".py") and rel not in CLI_ONLY and rel not in ON_DEMAND:
                found.append(rel)
    return found


def _write_if_changed(path: str, data: bytes) -> None:
    if os.path.exists(path):
        with open(path, "rb") as fh:
            if fh.read() == data:
                return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


def copy_pyodide(site_dir: str) -> None:
    missing = [f for f in PYODIDE_FILES if not os.path.isfile(os.path.join(PYODIDE_DIR, f))]
    if missing:
        raise PluginError(
            f"calculator_assets: {', '.join(missing)} not found in node_modules/pyodide; run `npm ci` first"
        )
    dest = os.path.join(site_dir, *PYODIDE_DEST.split("/"))
    os.makedirs(dest, exist_ok=True)
    for name in PYODIDE_FILES:
        src, dst = os.path.join(PYODIDE_DIR, name), os.path.join(dest, name)
        s = os.stat(src)
        if os.path.exists(dst):
            d = os.stat(dst)
            if d.st_size == s.st_size and d.st_mtime_ns == s.st_mtime_ns:
                continue
        shutil.copy2(src, dst)


def copy_sources(site_dir: str, pages: dict[str, list[str]] | None = None, worker: str | None = None) -> dict:
    """Copy the package's sources and write the manifest the worker reads; returns the manifest.

    ``pages``: each calculator page (its URL relative to the site) and the files it
    loads, for the service worker to keep (see :func:`page_files`).
    """
    dest = os.path.join(site_dir, *SOURCE_DEST.split("/"))
    entries: list[dict[str, Any]] = []
    for rel in package_sources():
        with open(os.path.join(ROOT, rel), "rb") as fh:
            data = fh.read()
        _write_if_changed(os.path.join(dest, rel), data)
        entries.append({"path": rel, "size": len(data), "sha256": _sha256(data)})
    on_demand: list[dict[str, Any]] = []
    for rel in ON_DEMAND:
        with open(os.path.join(ROOT, rel), "rb") as fh:
            data = fh.read()
        _write_if_changed(os.path.join(dest, rel), data)
        on_demand.append({"path": rel, "size": len(data), "sha256": _sha256(data)})
    # A module deleted from the package must not linger in the served copy
    # (its bytecode goes too: compile_bytecode sees the changed key).
    keep = {os.path.normpath(os.path.join(dest, e["path"])) for e in entries + on_demand}
    for folder, _dirs, names in os.walk(os.path.join(dest, "calculator")):
        for name in names:
            path = os.path.normpath(os.path.join(folder, name))
            if path not in keep and not name.endswith(".pyc"):
                os.remove(path)
    with open(os.path.join(PYODIDE_DIR, "package.json"), encoding="utf-8") as fh:
        pyodide_version = json.load(fh).get("version")
    # What the bytecode was compiled from: unchanged sources and Pyodide mean no recompiling.
    # ... and the scripts that compile them (how they compile is theirs to change).
    scripts = []
    for script in ("compile_pyc.mjs", "compile_stdlib.mjs"):
        with open(os.path.join(ROOT, "sitegen", script), "rb") as fh:
            scripts.append(_sha256(fh.read()))
    key = _sha256(json.dumps([pyodide_version, scripts, [(e["path"], e["sha256"]) for e in entries + on_demand],
                              BYTECODE_RULE]).encode())
    bytecode = compile_bytecode(dest, key)
    old_stdlib = _read_manifest(dest).get("stdlib") or {}
    stdlib = compile_stdlib(site_dir, dest, key, old_stdlib)
    # The sources the default answer does not import (those without bytecode): the worker fetches them after
    # its first answer, or when an answer asks for one of them first (docs/assets/js/worker.js: "later").
    compiled = {f["path"].replace("__pycache__/", "").rsplit(".cpython-", 1)[0] + ".py" for f in bytecode["files"]}
    later = sorted(e["path"] for e in entries if e["path"] not in compiled)
    manifest = {"package": "calculator", "pyodide": pyodide_version, "files": entries, "on_demand": on_demand,
                "later": later, "bytecode": bytecode, "bytecode_key": key, "stdlib": stdlib,
                "runtime": runtime_entries(), "pyodide_lock": pyodide_lock(), "pages": pages or {},
                "build": build_id()}
    if worker:
        manifest["worker"] = worker  # the worker script's versioned URL, for the service worker to keep
    _write_if_changed(
        os.path.join(dest, "manifest.json"), (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    )
    return manifest


def runtime_entries() -> list[dict]:
    """The Pyodide files the worker loads, as served (paths relative to the site), with SHA-256.

    The service worker (docs/calculator-sw.js) keeps them under these sums: a file
    whose sum is unchanged is never downloaded again.
    """
    out = []
    for name in RUNTIME_FILES:
        with open(os.path.join(PYODIDE_DIR, name), "rb") as fh:
            data = fh.read()
        out.append({"path": f"{PYODIDE_DEST}/{name}", "size": len(data), "sha256": _sha256(data)})
    return out


def pyodide_lock() -> dict:
    """npm's pyodide-lock.json without its 357 packages: the calculator loads none.

    The worker passes it as ``lockFileContents``, so Pyodide does not download the
    119 KB file (~20 KB gzip) at every start; ``info`` is what Pyodide checks (ABI).
    """
    with open(os.path.join(PYODIDE_DIR, "pyodide-lock.json"), encoding="utf-8") as fh:
        return {"info": json.load(fh)["info"], "packages": {}}


class _Subresources(HTMLParser):
    """The stylesheets, icons, scripts and images an HTML page loads."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        rel = set((a.get("rel") or "").lower().split())
        href, src = a.get("href"), a.get("src")
        if tag == "link" and rel & {"stylesheet", "icon", "preload", "modulepreload"} and href:
            self.found.append(href)
        elif tag in ("script", "img") and src:
            self.found.append(src)


def page_files(site_dir: str, page_url: str) -> list[str]:
    """What the built page ``page_url`` loads from this site (paths relative to the site), sorted."""
    path = os.path.join(site_dir, *page_url.split("/"), "index.html")
    parser = _Subresources()
    with open(path, encoding="utf-8") as fh:
        parser.feed(fh.read())
    base = "http://site.invalid/"
    out = set()
    for ref in parser.found:
        target = urlsplit(urljoin(base + page_url, ref))
        if target.scheme != "http" or target.netloc != "site.invalid":
            continue
        rel = target.path[1:]
        if rel and os.path.isfile(os.path.join(site_dir, *rel.split("/"))):
            out.add(rel + (f"?{target.query}" if target.query else ""))
    return sorted(out)


#: The calculator's bytecode, in one archive beside its sources (see compile_bytecode).
BYTECODE_ARCHIVE = "bytecode.zip"


#: Which modules' bytecode is shipped (part of the bytecode's key: a change of rule compiles again).
BYTECODE_RULE = "only the modules the default answer imports"


def modules_left_to_compile() -> set[str]:
    """Served modules (``calculator/**.py``) whose bytecode is not shipped: those a fresh interpreter
    does not import to answer the page's default request.

    Families are imported when asked for (``calculator/families/__init__.py``), and so are the
    modules of the "Training cost" panel's page side, the lifetime simulator, the largest-batch
    search and the hf_model_types table: such a module is compiled by the worker the first time a
    reader asks for what needs it (a few milliseconds, once), while every reader would download its
    bytecode: ~170 KB for the 27 other families, ~46 KB for the rest, 4 % of what a shared link
    costs on the wire. Derived by running the answer, not listed: a module the default answer
    starts to import gets its bytecode back.
    """
    code = ("import json, sys\nfrom calculator import api\n"
            "api.compute_json(json.dumps({'params': api.DEFAULT_PARAMS}))\n"
            "print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    imported = set(json.loads(out.stdout.strip().splitlines()[-1]))

    def module(rel: str) -> str:
        return rel[:-3].replace("/", ".").removesuffix(".__init__")

    return {rel for rel in package_sources() if module(rel) not in imported}


def compile_bytecode(dest: str, key: str) -> dict:
    """Checked-hash ``.pyc`` files for the served sources, compiled by the site's Pyodide.

    Python validates each against the hash of the ``.py`` beside it when importing
    (see ``sitegen/compile_pyc.mjs``), so they can only ever save the compile, never
    change what runs. They are served as one zip, ``bytecode.zip`` (deflated), which
    the worker unpacks next to the sources: one request instead of one per module,
    and compressed whatever the host does with ``.pyc`` files (GitHub Pages' type
    for them is unknown; a zip it sends as it is). Listed in the manifest as
    ``{"path", "size", "sha256", "files": [{"path", "size", "sha256"}, ...]}``.
    Compiled once per set of sources: mkdocs-static-i18n calls ``on_post_build``
    once per language, and ``mkdocs serve`` rebuilds often.
    """
    old = _read_manifest(dest)
    listed = old.get("bytecode")
    if (old.get("bytecode_key") == key and isinstance(listed, dict) and listed.get("files")
            and _matches(dest, listed)):
        return listed
    for folder, _dirs, names in os.walk(os.path.join(dest, "calculator")):
        for name in names:
            if name.endswith(".pyc"):
                os.remove(os.path.join(folder, name))
    written = _node("compile_pyc.mjs", "the calculator's bytecode", dest)
    later = modules_left_to_compile()
    files = []
    archive = os.path.join(dest, BYTECODE_ARCHIVE)
    with zipfile.ZipFile(archive + ".tmp", "w") as zout:
        for rel in sorted(written):
            path = os.path.join(dest, *rel.split("/"))
            with open(path, "rb") as fh:
                data = fh.read()
            os.remove(path)  # served in the archive only
            if rel.replace("__pycache__/", "").rsplit(".cpython-", 1)[0] + ".py" in later | set(ON_DEMAND):
                continue  # compiled by the worker if a reader asks for what imports it (a family, the panel, a model id)
            info = zipfile.ZipInfo(rel, (1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(info, data, compresslevel=9)
            files.append({"path": rel, "size": len(data), "sha256": _sha256(data)})
    os.replace(archive + ".tmp", archive)
    for folder, dirs, _names in os.walk(os.path.join(dest, "calculator"), topdown=False):
        for d in dirs:
            if d == "__pycache__" and not os.listdir(os.path.join(folder, d)):
                os.rmdir(os.path.join(folder, d))
    with open(archive, "rb") as fh:
        data = fh.read()
    return {"path": BYTECODE_ARCHIVE, "size": len(data), "sha256": _sha256(data), "files": files}


def compile_stdlib(site_dir: str, dest: str, key: str, old: dict) -> dict:
    """Write ``STDLIB_DEST`` (see ``sitegen/compile_stdlib.mjs``) and describe it for the manifest.

    Which modules get compiled depends on Pyodide and on what the calculator
    imports, so it is redone when npm's zip or the sources change (``key``).
    Like the calculator's bytecode, it only saves compiling: each ``.pyc`` is the
    same interpreter's compile of the ``.py`` it replaces
    (``tests/pyodide/test_stdlib.py`` checks each against npm's zip).
    """
    with open(os.path.join(PYODIDE_DIR, "python_stdlib.zip"), "rb") as fh:
        source_sha = _sha256(fh.read())
    out = os.path.join(site_dir, *STDLIB_DEST.split("/"))
    if (old.get("key") == key and old.get("source_sha256") == source_sha and os.path.isfile(out)
            and _matches(site_dir, {"path": STDLIB_DEST, "sha256": old.get("sha256")})):
        return old
    os.makedirs(os.path.dirname(out), exist_ok=True)
    result = _node("compile_stdlib.mjs", "the standard library's bytecode",
                   os.path.join(PYODIDE_DIR, "python_stdlib.zip"), dest, out)
    with open(out, "rb") as fh:
        data = fh.read()
    return {"path": STDLIB_DEST, "size": len(data), "sha256": _sha256(data), "source_sha256": source_sha,
            "key": key, "compiled": result["compiled"], "optimize": result["optimize"],
            "debug_ranges": result["debug_ranges"], "dropped": result["dropped"]}


def _node(script: str, what: str, *args: str) -> Any:
    """Run ``node sitegen/<script> <args>``; its last line of output is JSON."""
    path = os.path.join(ROOT, "sitegen", script)
    try:
        proc = subprocess.run(["node", path, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    except OSError as exc:
        raise PluginError(f"calculator_assets: cannot run node for {path}: {exc}") from exc
    if proc.returncode != 0:
        raise PluginError(f"calculator_assets: compiling {what} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _read_manifest(dest: str) -> dict:
    path = os.path.join(dest, "manifest.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _matches(dest: str, entry: dict) -> bool:
    path = os.path.join(dest, entry["path"])
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as fh:
        return _sha256(fh.read()) == entry["sha256"]


def on_post_build(config: MkDocsConfig, **kwargs: Any) -> None:
    copy_pyodide(config.site_dir)
    site_dir = config.site_dir
    # mkdocs-static-i18n builds each language in turn and calls this after each: the
    # last call has seen every calculator page.
    pages = {url: page_files(site_dir, url) for url in sorted(_CALCULATOR_PAGES)
             if os.path.isfile(os.path.join(site_dir, *url.split("/"), "index.html"))}
    worker = f"{WORKER}?v={asset_version(config['docs_dir'], WORKER)}"
    copy_sources(site_dir, pages, worker)
