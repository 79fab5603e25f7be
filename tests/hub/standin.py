"""A local stand-in for the Hugging Face Hub: the paths and answers ``huggingface_hub`` reads, on 127.0.0.1.

Nothing in the test suite may reach the Hub, so this serves, from folders that transformers itself
wrote (``save_pretrained``), what huggingface.co serves for them:

* ``GET /api/models/{repo}/revision/{rev}``: ``{id, sha, siblings: [{rfilename}], safetensors: {parameters,
  total}, gated, config: {architectures, model_type}}``; the ``safetensors`` block counts every stored
  tensor, read with the ``safetensors`` library (as the Hub counts: heads and buffers included);
* ``GET /{repo}/resolve/{rev}/{path}``: a 302 to the "CDN" (a second server on another port, as the
  Hub's redirect to its CDN leaves the host), which answers a single ``Range: bytes=a-b`` with a 206
  and ``Content-Range``, or, in mirror mode (``ignore_range``), with the whole file and a 200;
* the errors as the Hub sends them: an unknown repo, 401 ``X-Error-Code: RepoNotFound``; a bad
  revision, 404 ``RevisionNotFound``; a missing file, 404 ``EntryNotFound``; a gated repo's files,
  401 ``GatedRepo`` without a token and 403 ``GatedRepo`` with a token that was not granted.

Every request is recorded (path, headers, the server that got it) so tests can check what was sent.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: The token the gated repo grants; any other token is "not in the authorized list".
GRANTED = "hf_granted_token"


@dataclass
class Repo:
    folder: Path
    gated: bool = False
    sha: str = ""

    def __post_init__(self) -> None:
        if not self.sha:
            digest = hashlib.sha1()
            for p in sorted(self.files()):
                digest.update(p.encode() + (self.folder / p).read_bytes())
            self.sha = digest.hexdigest()

    def files(self) -> list[str]:
        return sorted(p.relative_to(self.folder).as_posix() for p in self.folder.rglob("*") if p.is_file())


def safetensors_block(folder: Path) -> dict | None:
    """What the Hub's API reports: the elements of every tensor of the root's safetensors files, by dtype."""
    from safetensors import safe_open

    files = sorted(folder.glob("*.safetensors"))
    if not files:
        return None
    by_dtype: dict[str, int] = {}
    for path in files:
        with safe_open(str(path), "np") as f:
            header_len = int.from_bytes(path.read_bytes()[:8], "little")
            header = json.loads(path.read_bytes()[8:8 + header_len])
            for name in f.keys():
                dtype = header[name]["dtype"]
                n = 1
                for d in f.get_slice(name).get_shape():
                    n *= d
                by_dtype[dtype] = by_dtype.get(dtype, 0) + n
    return {"parameters": by_dtype, "total": sum(by_dtype.values())}


@dataclass
class Hub:
    repos: dict[str, Repo] = field(default_factory=dict)
    ignore_range: bool = False
    #: (server, path, headers) of every request.
    log: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    hub_url: str = ""
    cdn_url: str = ""
    servers: list = field(default_factory=list)

    def start(self) -> "Hub":
        for role in ("hub", "cdn"):
            server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self, role))
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self.servers.append(server)
            url = f"http://127.0.0.1:{server.server_address[1]}"
            if role == "hub":
                self.hub_url = url
            else:
                self.cdn_url = url
        return self

    def stop(self) -> None:
        for server in self.servers:
            server.shutdown()
            server.server_close()


def _handler(hub: Hub, role: str) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def send(self, status: int, body: bytes = b"", headers: dict | None = None) -> None:
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Expose-Headers", "Content-Range, X-Error-Code, X-Repo-Commit")
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # a client that read only what it needed
                pass

        def error(self, status: int, code: str, message: str) -> None:
            body = json.dumps({"error": message}).encode()
            self.send(status, body, {"X-Error-Code": code, "X-Error-Message": message,
                                     "Content-Type": "application/json"})

        def do_GET(self) -> None:  # noqa: N802
            path = urlsplit(self.path).path
            hub.log.append((role, path, {k.lower(): v for k, v in self.headers.items()}))
            if role == "cdn":
                return self.cdn(path)
            m = re.fullmatch(r"/api/models/(.+)/revision/([^/]+)", path)
            if m:
                return self.api(unquote(m.group(1)), unquote(m.group(2)))
            m = re.fullmatch(r"/(.+?)/resolve/([^/]+)/(.+)", path)
            if m:
                return self.resolve(unquote(m.group(1)), unquote(m.group(2)), unquote(m.group(3)))
            self.error(404, "RepoNotFound", "Repository not found")

        def repo(self, name: str) -> Repo | None:
            repo = hub.repos.get(name)
            if repo is None:  # the Hub without a token: 401 for a repo that does not exist (or is private)
                self.error(401, "RepoNotFound", "Repository not found")
            return repo

        def api(self, name: str, rev: str) -> None:
            repo = self.repo(name)
            if repo is None:
                return
            if rev not in ("main", repo.sha):
                return self.error(404, "RevisionNotFound", "Invalid rev id: " + rev)
            config = json.loads((repo.folder / "config.json").read_text()) if (repo.folder / "config.json").exists() \
                else {}
            info = {"id": name, "modelId": name, "sha": repo.sha, "gated": "manual" if repo.gated else False,
                    "siblings": [{"rfilename": f} for f in repo.files()],
                    "config": {k: config[k] for k in ("architectures", "model_type") if k in config}}
            try:
                block = safetensors_block(repo.folder)
            except Exception:  # a file the safetensors library cannot read: the Hub shows no count for it
                block = None
            if block is not None:
                info["safetensors"] = block
            self.send(200, json.dumps(info).encode(), {"Content-Type": "application/json"})

        def resolve(self, name: str, rev: str, file: str) -> None:
            repo = self.repo(name)
            if repo is None:
                return
            if rev not in ("main", repo.sha):
                return self.error(404, "RevisionNotFound", "Invalid rev id: " + rev)
            if repo.gated:
                auth = self.headers.get("Authorization", "")
                if not auth:
                    return self.error(401, "GatedRepo", "Access to model " + name + " is restricted. You must have "
                                      "access to it and be authenticated to access it. Please log in.")
                if auth != "Bearer " + GRANTED:
                    return self.error(403, "GatedRepo", "Access to model " + name + " is restricted and you are "
                                      "not in the authorized list.")
            if not (repo.folder / file).is_file():
                return self.error(404, "EntryNotFound", "Entry not found")
            self.send(302, b"", {"Location": f"{hub.cdn_url}/{name}/{repo.sha}/{file}", "X-Repo-Commit": repo.sha})

        def cdn(self, path: str) -> None:
            parts = unquote(path).lstrip("/").split("/")
            for cut in range(1, len(parts)):
                repo = hub.repos.get("/".join(parts[:cut]))
                if repo is not None and len(parts) > cut + 1 and parts[cut] == repo.sha:
                    file = repo.folder / "/".join(parts[cut + 1:])
                    if file.is_file():
                        break
            else:
                return self.send(404, b"not found")
            data = file.read_bytes()
            m = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
            if m and not hub.ignore_range:
                a, b = int(m.group(1)), min(int(m.group(2)), len(data) - 1)
                return self.send(206, data[a:b + 1], {"Content-Range": f"bytes {a}-{b}/{len(data)}"})
            self.send(200, data)

    return Handler
