"""The one harness of the browser-driven suites (tests/browser, tests/quality) and of scripts/.

* :func:`serve`: the one static server. It answers the way GitHub Pages does:
  the directory *above* the built site is served, so the site lives under a
  project site's subpath (``/bert-parameter-count/``) or, with ``subpath=""``,
  at the root; ``/dir`` redirects to ``/dir/`` (301) and ``/dir/`` serves
  ``dir/index.html``; a missing path gets the site's ``404.html`` with status
  404; text goes gzip-compressed when the client accepts it; every response
  says ``Cache-Control: max-age=600`` (what Pages sends) unless told otherwise,
  and ``If-Modified-Since`` is answered with 304. Page weights and Lighthouse's
  timings are therefore those of the real host, and the calculator is tested
  as readers get it. ``log=`` records every answer (path, status) for the tests
  that count requests.
* :class:`Traffic` and :func:`new_context`: a browser context that may talk to
  127.0.0.1 only (every other request is aborted and recorded), its waits
  limited by :data:`HANG_MS`, service workers blocked unless asked for.
* :func:`watch`: a tab's uncaught exceptions.
* :func:`build_site`: a site build of its own, for scripts (the tests share one:
  ``built_site`` in tests/conftest.py).

The fixtures built from these (``site``, ``context``, ``page``, ``traffic``...)
are in tests/conftest.py and in each suite's conftest.py.
"""
from __future__ import annotations

import email.utils
import gzip
import http.server
import mimetypes
import os
import posixpath
import socketserver
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
#: The site is published under a project site's subpath.
SUBPATH = "bert-parameter-count"
#: Every browser wait's limit. Only a guard against a hang, never a verdict: Pyodide
#: boots in ~2 s on an idle machine, many times that on a loaded one, and
#: calculator.js itself gives up (and says so on the page, data-state="failed")
#: after 120 s. A wait shorter than that would fail a page still within its own limit.
HANG_MS = 180_000

# ---------------------------------------------------------------------- server

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".xml": "application/xml; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
    ".py": "text/plain; charset=utf-8",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".gz": "application/gzip",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".map": "application/json; charset=utf-8",
}
COMPRESSIBLE = ("text/", "application/json", "application/xml", "image/svg+xml", "text/javascript")

#: Compressed bodies, by file: every page load asks for the same stylesheets,
#: scripts, search index and Pyodide runtime, and compressing them again each time
#: (pyodide.asm.mjs alone: ~30 ms) took CPU from the browser under test. A body
#: is reused only for the very bytes it was made from (a rebuilt file differs).
_GZIPPED: dict[Path, tuple[bytes, bytes]] = {}
_GZIPPED_LOCK = threading.Lock()


def _gzipped(file: Path, body: bytes) -> bytes:
    with _GZIPPED_LOCK:
        cached = _GZIPPED.get(file)
    if cached is not None and cached[0] == body:
        return cached[1]
    compressed = gzip.compress(body, compresslevel=6, mtime=0)
    with _GZIPPED_LOCK:
        _GZIPPED[file] = (body, compressed)
    return compressed


class Handler(http.server.BaseHTTPRequestHandler):
    """GitHub Pages' answers; the class attributes are set per server by :func:`serve`."""

    protocol_version = "HTTP/1.1"
    root: Path
    not_found: Path
    cache_control: str = "max-age=600"
    log: list[tuple[str, int]] | None = None

    def log_message(self, format, *args):  # noqa: A002 - quiet
        pass

    def send_response(self, code, message=None):
        if self.log is not None:
            self.log.append((unquote(urlsplit(self.path).path), code))
        super().send_response(code, message)

    def do_HEAD(self):  # noqa: N802
        self._respond(head=True)

    def do_GET(self):  # noqa: N802
        self._respond(head=False)

    def _file_for(self, url_path: str) -> tuple[Path | None, str | None]:
        """(file, redirect location)"""
        path = posixpath.normpath(unquote(url_path))
        if path.startswith(".."):
            return None, None
        target = (self.root / path.lstrip("/")).resolve()
        if self.root not in target.parents and target != self.root:
            return None, None
        if target.is_dir():
            if not url_path.endswith("/"):
                return None, url_path + "/"
            target = target / "index.html"
        return (target if target.is_file() else None), None

    def _not_modified(self, mtime: float) -> bool:
        """Whether the client's copy (``If-Modified-Since``, to the second) is still this file."""
        since = self.headers.get("If-Modified-Since")
        if not since:
            return False
        try:
            return int(mtime) <= email.utils.parsedate_to_datetime(since).timestamp()
        except (TypeError, ValueError):
            return False

    def _respond(self, head: bool) -> None:
        parts = urlsplit(self.path)
        file, location = self._file_for(parts.path)
        if location is not None:
            self.send_response(301)
            self.send_header("Location", location + (("?" + parts.query) if parts.query else ""))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        status = 200
        if file is None:
            status, file = 404, self.not_found
        mtime = file.stat().st_mtime
        if status == 200 and self._not_modified(mtime):
            self.send_response(304)
            self.send_header("Cache-Control", self.cache_control)
            self.end_headers()
            return
        body = file.read_bytes()
        ctype = TYPES.get(file.suffix.lower()) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Cache-Control", self.cache_control)
        self.send_header("Last-Modified", email.utils.formatdate(mtime, usegmt=True))
        accepts_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if accepts_gzip and ctype.startswith(COMPRESSIBLE) and len(body) > 256:
            body = _gzipped(file, body)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        """A tab closed mid-request (the test has moved on) is not an error; anything else is printed."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def stop(self) -> None:
        """The network is gone: nothing answers on this port any more."""
        self.shutdown()
        self.server_close()


def serve(top: Path, subpath: str = SUBPATH, *, log: list[tuple[str, int]] | None = None,
          cache_control: str = "max-age=600") -> tuple[Server, str]:
    """Serve ``top`` on 127.0.0.1 (a free port); returns the server and the site's URL.

    ``subpath=""`` serves a site built in ``top`` itself at the server's root.
    ``log`` receives (path, status) for every answer. ``cache_control="no-cache"``
    makes the browser revalidate every file it has, so every use shows here.
    """
    handler = type("PagesHandler", (Handler,), {
        "root": top.resolve(),
        "not_found": (top / subpath / "404.html").resolve(),
        "cache_control": cache_control,
        "log": log,
    })
    server = Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    path = f"/{subpath}/" if subpath else "/"
    return server, f"http://127.0.0.1:{server.server_address[1]}{path}"


def build_site(out: Path, site_url: str) -> None:
    """``mkdocs build --strict`` into ``out`` for ``site_url`` (for scripts; the tests share ``built_site``)."""
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
        env={**os.environ, "SITE_URL": site_url, "NO_MKDOCS_2_WARNING": "1"},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"mkdocs build failed:\n{proc.stdout}\n{proc.stderr}")


# ---------------------------------------------------------------------- browser


@dataclass
class Traffic:
    """Every request the browser attempted, and the ones refused for leaving 127.0.0.1."""

    seen: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)

    @staticmethod
    def local(url: str) -> bool:
        parts = urlsplit(url)
        return (parts.scheme in ("http", "https") and parts.hostname == "127.0.0.1") or parts.scheme in ("data", "blob")

    def record(self, request) -> None:
        """For a context whose other hosts cannot resolve: note the request, and whether it left."""
        self.seen.append(request.url)
        if not self.local(request.url):
            self.blocked.append(request.url)

    def route(self, route) -> None:
        """For a context with this route: let 127.0.0.1 through, abort and note the rest."""
        url = route.request.url
        self.seen.append(url)
        if self.local(url):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


def new_context(browser, traffic: Traffic | None = None, **options):
    """A context (1280×900 unless told), waits limited by ``HANG_MS``; with ``traffic``, every request goes through it.

    Without ``traffic`` there is no route (a route turns the HTTP cache off):
    for a context that cannot leave 127.0.0.1 anyway, or whose test checks that itself.

    Service workers are blocked unless a test asks for them
    (``service_workers="allow"``): the calculator page registers one
    (calculator-sw.js) once it has answered, and whether a later page is served
    by it would depend on the order the tests ran in and on how soon the install
    finished. Every test here is a first visit unless it says otherwise
    (tests/browser/test_calculator_offline.py makes the next ones).
    """
    options = {"viewport": {"width": 1280, "height": 900}, "service_workers": "block", **options}
    ctx = browser.new_context(**options)
    ctx.set_default_timeout(HANG_MS)
    if traffic is not None:
        ctx.route("**/*", traffic.route)
    return ctx


def watch(pg) -> list[str]:
    """Collect a tab's uncaught exceptions."""
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    return errors
