"""A static server that answers the way GitHub Pages does, for the quality gates.

* serves the directory *above* the built site, so the site lives under a
  project site's subpath (``/bert-parameter-count/``);
* ``/dir`` redirects to ``/dir/`` (301), ``/dir/`` serves ``dir/index.html``;
* a missing path gets the site's ``404.html`` with status 404;
* text responses are gzip-compressed when the client accepts it, and every
  response says ``Cache-Control: max-age=600`` (what Pages sends), so page
  weights and Lighthouse's timings are those of the real host, not of an
  uncompressed development server.
"""
from __future__ import annotations

import email.utils
import gzip
import http.server
import mimetypes
import posixpath
import socketserver
import sys
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

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


#: Compressed bodies, by file: every page load of every gate asks for the same
#: stylesheets, scripts, search index and Pyodide runtime, and compressing them again
#: each time (pyodide.asm.mjs alone: ~30 ms) took CPU from the browser under test.
#: A body is reused only for the very bytes it was made from (a rebuilt file differs).
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
    protocol_version = "HTTP/1.1"
    root: Path  # set by serve()
    not_found: Path

    def log_message(self, format, *args):  # noqa: A002 - quiet
        pass

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
        body = file.read_bytes()
        ctype = TYPES.get(file.suffix.lower()) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Cache-Control", "max-age=600")
        self.send_header("Last-Modified", email.utils.formatdate(file.stat().st_mtime, usegmt=True))
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


def serve(top: Path, subpath: str) -> tuple[Server, str]:
    """Serve ``top`` on 127.0.0.1 (a free port); returns the server and the site's URL.

    ``subpath=""`` serves a site built in ``top`` itself at the server's root.
    """
    handler = type("PagesHandler", (Handler,), {
        "root": top.resolve(),
        "not_found": (top / subpath / "404.html").resolve(),
    })
    server = Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    path = f"/{subpath}/" if subpath else "/"
    return server, f"http://127.0.0.1:{server.server_address[1]}{path}"
