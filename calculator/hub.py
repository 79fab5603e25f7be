"""A model id on the Hugging Face Hub → its config.json, its checkpoint files' tensors, pinned to a commit.

A reader has a model id (``google-bert/bert-base-uncased``), not a config.json, and a Hub
page showing yet another number. This module reads what the Hub serves, by the paths
``huggingface_hub`` uses, and nothing else:

* ``GET {endpoint}/api/models/{repo}/revision/{rev}``: the commit ``sha`` (every later read
  is pinned to it, so an answer reproduces), the file list (``siblings``) and the Hub's own
  ``safetensors`` block (``{parameters: {DTYPE: n}, total: n}``);
* ``GET {endpoint}/{repo}/resolve/{sha}/config.json``;
* a safetensors header with two single-range GETs (``Range: bytes=0-7``, the little-endian
  length N, then ``bytes=8-{8+N-1}``), of ``model.safetensors`` or of every shard
  ``model.safetensors.index.json`` names; a server that ignores ``Range`` and answers 200 is
  read only as far as needed (the transport reads at most :attr:`Request.limit` bytes);
* ``modules.json`` (sentence-transformers) and each ``Dense`` folder's config and header.

No I/O happens here. :func:`lookup` is a generator that yields :class:`Request` objects and
is sent back :class:`Response` objects, so one program serves two transports: the CLI's
``urllib`` (:mod:`calculator.hub_fetch`, which adds ``HF_TOKEN``) and the page's
``fetch`` through Pyodide (:func:`run_async`, no header but ``Range``, ``cache: "no-store"``
on ranges: Chrome can keep a 206 and serve it later as the whole file). Every refusal is a
coded :class:`~calculator.errors.CalcError` (``hub_*``), in both languages.

How the answer is compared with the model transformers builds (the file's names after
transformers 5.23's own key renames on load) is :func:`compare`.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Mapping

from .errors import CalcError

DEFAULT_ENDPOINT = "https://huggingface.co"
DEFAULT_REVISION = "main"
#: ``huggingface_hub.constants.SAFETENSORS_MAX_HEADER_LENGTH`` (huggingface.js: ``MAX_HEADER_LENGTH``).
MAX_HEADER = 25_000_000
SINGLE_FILE = "model.safetensors"
INDEX_FILE = "model.safetensors.index.json"
CONFIG_FILE = "config.json"
MODULES_FILE = "modules.json"
#: An index is JSON the size of its tensor list; the largest seen on the Hub is ~60 MB.
MAX_JSON = 100_000_000
#: At most this many shards are read (huggingface.js reads 20 at a time; DeepSeek-V3 has 163).
MAX_SHARDS = 1000

#: Bytes per element of each safetensors dtype whose size is whole bytes (a header's
#: ``data_offsets`` must span exactly elements × size, as the safetensors crate checks).
DTYPE_BYTES: dict[str, int] = {
    "F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
    "U64": 8, "U32": 4, "U16": 2, "U8": 1, "BOOL": 1, "C64": 8,
    "F8_E4M3": 1, "F8_E5M2": 1, "F8_E4M3FNUZ": 1, "F8_E5M2FNUZ": 1, "F8_E8M0": 1, "E8M0": 1,
}

#: A repo id, as ``huggingface_hub.utils.validate_repo_id`` accepts it: ``name`` or ``owner/name``.
_NAME = r"[A-Za-z0-9_.\-]{1,96}"
REPO_ID = re.compile(rf"(?:{_NAME}/)?{_NAME}")


# ------------------------------------------------------------------- addresses
#
# Three small functions instead of urllib.parse: the page's worker starts on a standard library cut to what
# the calculator imports (sitegen/compile_stdlib.mjs), and these are all the Hub's addresses need.

#: RFC 3986's unreserved characters, which ``urllib.parse.quote`` leaves as they are.
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")


def quote(text: str, safe: str = "/") -> str:
    """``urllib.parse.quote(text, safe)``: UTF-8, every byte but the unreserved ones and ``safe`` as ``%XX``."""
    keep = _UNRESERVED | frozenset(safe.encode("ascii"))
    return "".join(chr(b) if b in keep else f"%{b:02X}" for b in text.encode("utf-8"))


def unquote(text: str) -> str:
    """``urllib.parse.unquote``: ``%XX`` sequences decoded as UTF-8 (invalid bytes replaced)."""
    return re.sub(r"(?:%[0-9A-Fa-f]{2})+",
                  lambda m: bytes.fromhex(m.group(0).replace("%", "")).decode("utf-8", "replace"), text)


def split_url(url: str) -> tuple[str, str]:
    """(``scheme://host``, path) of an absolute http(s) address, the query and fragment dropped."""
    m = re.match(r"(?i)(https?://[^/?#]*)([^?#]*)", url)
    return (m.group(1), m.group(2)) if m else ("", url)


# ------------------------------------------------------------------------ the id


@dataclass(frozen=True)
class ModelRef:
    """What the reader asked for: a repo and a revision (a branch, a tag or a 40-hex commit)."""

    repo: str
    revision: str = DEFAULT_REVISION

    @property
    def text(self) -> str:
        """``repo`` or ``repo@revision``: how a link writes it back."""
        return self.repo if self.revision == DEFAULT_REVISION else f"{self.repo}@{self.revision}"


def _valid_repo(repo: str) -> bool:
    return bool(REPO_ID.fullmatch(repo)) and ".." not in repo and "--" not in repo and not repo.endswith(".git") \
        and not any(part.startswith((".", "-")) or part.endswith((".", "-")) for part in repo.split("/"))


def parse_model_id(text: Any) -> ModelRef:
    """``REPO``, ``REPO@REV`` or a Hub address (``https://huggingface.co/owner/name[/tree|blob|resolve/REV/...]``).

    The address's host is not checked (a mirror's page address names the same repo); its
    path is. Datasets and Spaces are not models and are refused, as is anything that is not
    a repo id (``hub_bad_id``), so nothing typed reaches a URL unchecked.
    """
    if not isinstance(text, str) or not text.strip() or len(text) > 1000:
        raise CalcError("hub_bad_id", value="" if not isinstance(text, str) else text)
    raw = text.strip()
    if re.match(r"(?i)https?://", raw):
        parts = [unquote(p) for p in split_url(raw)[1].split("/") if p]
        if parts[:2] == ["api", "models"]:
            parts = parts[2:]
            if len(parts) >= 4 and parts[2] == "revision":
                return _ref(raw, "/".join(parts[:2]), parts[3])
        if parts[:1] == ["models"]:
            parts = parts[1:]
        if not parts or parts[0] in ("datasets", "spaces", "api", "docs"):
            raise CalcError("hub_bad_id", value=raw)
        # owner/name or a legacy one-part name, then an optional /tree|blob|resolve|commit/REV/...
        for n in (2, 1):
            if len(parts) >= n and (len(parts) == n or parts[n] in ("tree", "blob", "resolve", "commit", "raw")):
                rest = parts[n:]
                revision = rest[1] if len(rest) >= 2 else DEFAULT_REVISION
                return _ref(raw, "/".join(parts[:n]), revision)
        raise CalcError("hub_bad_id", value=raw)
    repo, sep, revision = raw.partition("@")
    return _ref(raw, repo, revision if sep else DEFAULT_REVISION)


def _ref(raw: str, repo: str, revision: str) -> ModelRef:
    if not _valid_repo(repo) or not revision or len(revision) > 256 or any(c.isspace() for c in revision):
        raise CalcError("hub_bad_id", value=raw)
    return ModelRef(repo, revision)


# ------------------------------------------------------------------- requests


@dataclass(frozen=True)
class Request:
    """One GET: ``url``, an optional inclusive byte ``range`` (sent as ``Range: bytes=a-b``), and what it
    reads (``what``: ``"api"`` or the file's path in the repo, for errors and progress)."""

    url: str
    what: str
    range: tuple[int, int] | None = None

    @property
    def headers(self) -> dict[str, str]:
        """The only header the page may send: ``Range`` is CORS-safelisted for one range (no preflight)."""
        return {"Range": f"bytes={self.range[0]}-{self.range[1]}"} if self.range else {}

    @property
    def limit(self) -> int:
        """The most bytes worth reading from the body: a server that ignored ``Range`` answers from byte 0,
        so ``end + 1``; a JSON file at most :data:`MAX_JSON`."""
        return self.range[1] + 1 if self.range else MAX_JSON


@dataclass(frozen=True)
class Response:
    """What came back: status, headers (names in lower case), the body (at most the request's ``limit``),
    and the final URL (after redirects)."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str = ""

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


def endpoint_of(value: Any) -> str:
    """An endpoint as ``huggingface_hub`` keeps it (``HF_ENDPOINT``): scheme and host, no trailing slash."""
    text = str(value or DEFAULT_ENDPOINT).strip().rstrip("/")
    if not re.fullmatch(r"(?i)https?://[^\s/?#]+(/[^\s?#]*)?", text):
        raise CalcError("hub_unreachable", fields=("endpoint",), endpoint=text, reason="endpoint", status="")
    return text


def api_request(endpoint: str, ref: ModelRef) -> Request:
    """``HfApi.model_info(repo, revision=rev)``'s path (the revision quoted whole: ``refs/pr/1``)."""
    return Request(f"{endpoint}/api/models/{ref.repo}/revision/{quote(ref.revision, safe='')}", "api")


def file_request(endpoint: str, repo: str, revision: str, path: str, range: tuple[int, int] | None = None) -> Request:
    """``hf_hub_url``'s path: ``{endpoint}/{repo}/resolve/{rev}/{path}``."""
    return Request(f"{endpoint}/{repo}/resolve/{quote(revision, safe='')}/{quote(path)}", path, range)


# -------------------------------------------------------------------- answers


def check_status(resp: Response, req: Request, endpoint: str, ref: ModelRef) -> None:
    """A non-2xx answer as ``huggingface_hub.utils.hf_raise_for_status`` reads it, by ``X-Error-Code``.

    ``GatedRepo`` (401 without a token, 403 without access) → ``hub_gated``; ``RepoNotFound``,
    ``RevisionNotFound``, a 404, or a 401 on the API (the Hub answers 401 for a private repo
    and for one that does not exist) → ``hub_not_found``; ``EntryNotFound`` on config.json →
    ``hub_no_config``; anything else (429, 5xx) → ``hub_unreachable`` with the status.
    """
    if 200 <= resp.status < 300:
        return
    code = resp.header("x-error-code") or ""
    where: dict[str, Any] = dict(repo=ref.repo, revision=ref.revision, endpoint=endpoint, status=resp.status, file=req.what)
    if code == "GatedRepo":
        raise CalcError("hub_gated", **where)
    if code == "EntryNotFound" or (resp.status == 404 and req.what != "api" and code not in ("RepoNotFound",
                                                                                              "RevisionNotFound")):
        raise CalcError("hub_no_config" if req.what == CONFIG_FILE else "hub_not_found", **where)
    if code in ("RepoNotFound", "RevisionNotFound") or resp.status == 404 or (resp.status == 401 and req.what == "api"):
        raise CalcError("hub_not_found", **where)
    if resp.status in (401, 403):
        raise CalcError("hub_gated", **where)
    raise CalcError("hub_unreachable", endpoint=endpoint, reason="status", status=resp.status)


def _text(body: bytes) -> str:
    """UTF-8 text, a byte-order mark dropped (by hand: the page's standard library has no utf-8-sig codec)."""
    return (body[3:] if body.startswith(b"\xef\xbb\xbf") else body).decode("utf-8")


def _json(body: bytes) -> Any:
    try:
        return json.loads(_text(body))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


@dataclass(frozen=True)
class ApiInfo:
    """The API's answer: the commit, the file list, and the Hub's own count (None where it has none)."""

    sha: str
    files: tuple[str, ...]
    api_total: int | None
    api_by_dtype: dict[str, int]
    gated: bool
    architectures: tuple[str, ...] = ()


def parse_api(body: bytes, endpoint: str) -> ApiInfo:
    """``/api/models/{repo}/revision/{rev}``'s JSON. An answer that is not that object (a mirror's HTML
    page, a proxy's error) is ``hub_unreachable``: the Hub was not what answered."""
    data = _json(body)
    sha = data.get("sha") if isinstance(data, dict) else None
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise CalcError("hub_unreachable", endpoint=endpoint, reason="not_api", status="")
    files = tuple(s["rfilename"] for s in data.get("siblings") or () if isinstance(s, dict)
                  and isinstance(s.get("rfilename"), str))
    st = data.get("safetensors")
    total, by_dtype = None, {}
    if isinstance(st, dict):
        if _is_count(st.get("total")):
            total = st["total"]
        if isinstance(st.get("parameters"), dict):
            by_dtype = {str(k): v for k, v in st["parameters"].items() if _is_count(v)}
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    archs = tuple(a for a in config.get("architectures") or () if isinstance(a, str))
    return ApiInfo(sha, files, total, by_dtype, bool(data.get("gated")), archs)


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def parse_config(body: bytes, repo: str, path: str = CONFIG_FILE) -> dict[str, Any]:
    """config.json: a JSON object, else the same ``invalid_json``/``not_an_object`` a pasted one gets."""
    from .config import parse_json

    try:
        text = _text(body)
    except UnicodeDecodeError:
        raise CalcError("invalid_json", detail="not text") from None
    return parse_json(text)


def content_range(resp: Response) -> tuple[int, int, int | None] | None:
    """``Content-Range: bytes a-b/size`` → (a, b, size or None for ``*``)."""
    m = re.fullmatch(r"\s*bytes\s+(\d+)-(\d+)/(\d+|\*)\s*", resp.header("content-range") or "")
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), None if m.group(3) == "*" else int(m.group(3))


def ranged_bytes(resp: Response, req: Request, repo: str) -> tuple[bytes, int | None]:
    """The bytes of ``req.range`` from its answer, and the file's size where the answer tells it.

    A 206 must start where asked; a 200 (a mirror or CDN that ignores ``Range``) is the file
    from byte 0, of which the transport read at most ``req.limit`` bytes. Too few bytes: the
    file ends inside its own header (``hub_bad_header``).
    """
    assert req.range is not None
    start, end = req.range
    size: int | None = None
    if resp.status == 206:
        got = content_range(resp)  # a browser reads it only where the server exposes it (CORS)
        if got is not None and got[0] != start:
            raise CalcError("hub_bad_header", repo=repo, file=req.what, reason="range", detail="")
        size = got[2] if got is not None else None
        data = resp.body[: end - start + 1]
    else:
        length = resp.header("content-length")
        size = int(length) if length and length.isdigit() else None
        data = resp.body[start:end + 1]
    if len(data) < end - start + 1:
        raise CalcError("hub_bad_header", repo=repo, file=req.what, reason="short", detail="")
    return data, size


@dataclass(frozen=True)
class StoredTensor:
    """One entry of a safetensors header."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    file: str

    @property
    def count(self) -> int:
        return math.prod(self.shape)


def header_length(data: bytes, repo: str, path: str) -> int:
    """The first 8 bytes: N, little-endian unsigned (``struct.unpack("<Q")``), at most :data:`MAX_HEADER`."""
    n = int.from_bytes(data[:8], "little")  # struct.unpack("<Q", ...), as huggingface_hub reads it
    if n > MAX_HEADER:
        raise CalcError("hub_bad_header", repo=repo, file=path, reason="too_long", detail=f"{n:,}")
    if n < 2:
        raise CalcError("hub_bad_header", repo=repo, file=path, reason="not_json", detail="")
    return n


def parse_header(data: bytes, n: int, size: int | None, repo: str, path: str) -> tuple[StoredTensor, ...]:
    """The JSON header (N bytes): every tensor's dtype, shape and ``data_offsets``, checked as the safetensors
    crate checks them (offsets ordered, inside the file, spanning elements × dtype size), in file order."""
    def bad(reason: str, detail: str = "") -> CalcError:
        return CalcError("hub_bad_header", repo=repo, file=path, reason=reason, detail=detail)

    header = _json(data[:n])
    if not isinstance(header, dict):
        raise bad("not_json")
    room = None if size is None else size - 8 - n
    out = []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict):
            raise bad("entry", name)
        dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if not isinstance(dtype, str) or not isinstance(shape, list) or not all(_is_count(d) for d in shape):
            raise bad("entry", name)
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_count(o) for o in offsets)
                and offsets[0] <= offsets[1]):
            raise bad("offsets", name)
        if room is not None and offsets[1] > room:
            raise bad("offsets", name)
        t = StoredTensor(name, dtype, tuple(shape), path)
        if dtype in DTYPE_BYTES and offsets[1] - offsets[0] != t.count * DTYPE_BYTES[dtype]:
            raise bad("offsets", name)
        out.append(t)
    return tuple(out)


def parse_index(body: bytes, repo: str) -> tuple[str, ...]:
    """``model.safetensors.index.json``'s ``weight_map`` → the shard files, in order of first mention."""
    data = _json(body)
    wm = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(wm, dict) or not all(isinstance(v, str) for v in wm.values()):
        raise CalcError("hub_bad_header", repo=repo, file=INDEX_FILE, reason="index", detail="")
    shards = tuple(dict.fromkeys(wm.values()))
    if len(shards) > MAX_SHARDS or any(not _safe_path(s) for s in shards):
        raise CalcError("hub_bad_header", repo=repo, file=INDEX_FILE, reason="index", detail="")
    return shards


def _safe_path(path: str) -> bool:
    """A file inside the repo: no scheme, no ``..``, no leading slash."""
    return bool(path) and not path.startswith("/") and ".." not in path.split("/") and "://" not in path \
        and len(path) < 1000


# ----------------------------------------------------------- the whole lookup


@dataclass(frozen=True)
class DenseLayer:
    """A sentence-transformers ``Dense`` module: ``nn.Linear(in_features, out_features, bias)`` in its folder."""

    path: str
    in_features: int
    out_features: int
    bias: bool
    stored: tuple[StoredTensor, ...] = ()

    @property
    def count(self) -> int:
        return self.in_features * self.out_features + (self.out_features if self.bias else 0)


@dataclass(frozen=True)
class SentenceModules:
    """``modules.json``: the modules ``SentenceTransformer(id)`` chains, by their class's name."""

    modules: tuple[tuple[str, str], ...]  # (class name, path)
    dense: tuple[DenseLayer, ...]

    @property
    def added(self) -> int:
        """What the modules add to the transformer's parameters: the Dense layers' (pooling and normalisation have none)."""
        return sum(d.count for d in self.dense)


@dataclass(frozen=True)
class Checkpoint:
    """Everything read for one model id, pinned to ``sha``."""

    ref: ModelRef
    endpoint: str
    sha: str
    config: dict[str, Any]
    files: tuple[str, ...]  # the safetensors files read (empty: the repo has none)
    tensors: tuple[StoredTensor, ...]
    api_total: int | None
    api_by_dtype: dict[str, int]
    gated: bool
    sentence: SentenceModules | None = None

    @property
    def pinned(self) -> str:
        """``repo@sha``: the id that answers the same way years later."""
        return f"{self.ref.repo}@{self.sha}"

    @property
    def parameters(self) -> int:
        """What the Hub counts: every stored tensor's elements, whatever its dtype."""
        return sum(t.count for t in self.tensors)

    @property
    def by_dtype(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self.tensors:
            out[t.dtype] = out.get(t.dtype, 0) + t.count
        return dict(sorted(out.items()))


@dataclass
class Progress:
    """Requests made and bytes read so far (the page shows them while it waits)."""

    requests: int = 0
    bytes: int = 0
    files: list[str] = field(default_factory=list)


Lookup = Generator[Request, Response, Checkpoint]


def lookup(ref: ModelRef, endpoint: str = DEFAULT_ENDPOINT) -> Lookup:
    """The whole read as a generator: yields each :class:`Request`, is sent its :class:`Response`.

    API (→ sha) → config.json → safetensors headers (single file, else index and shards) →
    modules.json and its Dense folders. Every request after the first is pinned to the sha.
    """
    def get(req: Request) -> Generator[Request, Response, Response]:
        resp = yield req
        check_status(resp, req, endpoint, ref)
        return resp

    api = parse_api((yield from get(api_request(endpoint, ref))).body, endpoint)
    pinned = ModelRef(ref.repo, api.sha)

    def fetch(path: str, rng: tuple[int, int] | None = None) -> Generator[Request, Response, Response]:
        req = file_request(endpoint, ref.repo, api.sha, path, rng)
        resp = yield req
        check_status(resp, req, endpoint, pinned)
        return resp

    def header(path: str) -> Generator[Request, Response, tuple[StoredTensor, ...]]:
        first = file_request(endpoint, ref.repo, api.sha, path, (0, 7))
        resp = yield from fetch(path, (0, 7))
        data, size = ranged_bytes(resp, first, ref.repo)
        n = header_length(data, ref.repo, path)
        second = file_request(endpoint, ref.repo, api.sha, path, (8, 8 + n - 1))
        resp = yield from fetch(path, second.range)
        data, size2 = ranged_bytes(resp, second, ref.repo)
        return parse_header(data, n, size if size is not None else size2, ref.repo, path)

    listed = set(api.files)
    if api.files and CONFIG_FILE not in listed:
        raise CalcError("hub_no_config", repo=ref.repo, revision=ref.revision, endpoint=endpoint, status=404,
                        file=CONFIG_FILE)
    try:
        resp = yield from fetch(CONFIG_FILE)
    except CalcError as exc:
        if exc.code == "hub_gated":  # the API answers for a gated repo: its public count goes with the refusal
            exc.params["total"] = api.api_total
        raise
    config = parse_config(resp.body, ref.repo)
    files: tuple[str, ...] = ()
    tensors: tuple[StoredTensor, ...] = ()
    if SINGLE_FILE in listed or not api.files:
        files = (SINGLE_FILE,)
    elif INDEX_FILE in listed:
        files = parse_index((yield from fetch(INDEX_FILE)).body, ref.repo)
    for path in files:
        tensors += yield from header(path)
    sentence = None
    if MODULES_FILE in listed:
        sentence = yield from _sentence_modules(fetch, header, listed, ref.repo)
    return Checkpoint(ref, endpoint, api.sha, config, files, tensors, api.api_total, api.api_by_dtype, api.gated,
                      sentence)


def _sentence_modules(fetch: Callable, header: Callable, listed: set[str], repo: str) -> Any:
    """modules.json's modules; for each ``Dense``: its folder's config.json and, where present, its header."""
    data = _json((yield from fetch(MODULES_FILE)).body)
    if not isinstance(data, list):
        return None
    modules: list[tuple[str, str]] = []
    dense: list[DenseLayer] = []
    for entry in data:
        if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
            continue
        kind = entry["type"].rsplit(".", 1)[-1]
        path: str = entry["path"] if isinstance(entry.get("path"), str) else ""
        modules.append((kind, path))
        if kind != "Dense" or not _safe_path(path):
            continue
        cfg = _json((yield from fetch(f"{path}/config.json")).body)
        if not isinstance(cfg, dict) or not _is_count(cfg.get("in_features")) or not _is_count(cfg.get("out_features")):
            raise CalcError("hub_bad_header", repo=repo, file=f"{path}/config.json", reason="not_json", detail="")
        stored: tuple[StoredTensor, ...] = ()
        if f"{path}/{SINGLE_FILE}" in listed:
            stored = yield from header(f"{path}/{SINGLE_FILE}")
        dense.append(DenseLayer(path, cfg["in_features"], cfg["out_features"], cfg.get("bias", True) is not False,
                                stored))
    return SentenceModules(tuple(modules), tuple(dense))


def run(gen: Lookup, transport: Callable[[Request], Response], progress: Progress | None = None) -> Checkpoint:
    """Drive :func:`lookup` with a blocking ``transport`` (the CLI's urllib)."""
    try:
        req = next(gen)
        while True:
            resp = transport(req)
            if progress is not None:
                progress.requests += 1
                progress.bytes += len(resp.body)
            req = gen.send(resp)
    except StopIteration as stop:
        return stop.value


async def run_async(gen: Lookup, transport: Callable[[Request], Any], progress: Any = None) -> Checkpoint:
    """Drive :func:`lookup` with an async ``transport`` (:func:`fetch_browser` in Pyodide);
    ``progress(requests, bytes)`` is called after each answer."""
    requests = read = 0
    try:
        req = next(gen)
        while True:
            resp = await transport(req)
            requests += 1
            read += len(resp.body)
            if progress is not None:
                progress(requests, read)
            req = gen.send(resp)
    except StopIteration as stop:
        return stop.value


async def fetch_browser(req: Request) -> Response:  # pragma: no cover - runs in Pyodide only
    """One request through the browser's ``fetch``: no header but ``Range``, ``cache: "no-store"`` for a range
    (Chromium bug 490137346: a cached 206 served later as the whole file), no referrer (the Hub answers
    some referrers with a 404 without CORS headers). The body is read as a stream and cancelled at
    ``req.limit`` bytes, so a mirror that ignores ``Range`` costs only what is needed."""
    import js  # type: ignore[import-not-found]
    from pyodide.ffi import to_js  # type: ignore[import-not-found]

    options: dict[str, Any] = {"method": "GET", "referrerPolicy": "no-referrer", "redirect": "follow"}
    if req.range:
        options["headers"] = req.headers
        options["cache"] = "no-store"
    try:
        resp = await js.fetch(req.url, to_js(options, dict_converter=js.Object.fromEntries))
    except Exception as exc:  # a network error or a CORS refusal: fetch rejects with a TypeError
        raise CalcError("hub_unreachable", endpoint=split_url(req.url)[0],
                        reason="connection", status="", detail=str(exc)[:200]) from None
    headers = {}
    for name in ("content-range", "content-length", "x-error-code", "content-type"):
        value = resp.headers.get(name)
        if value is not None:
            headers[name] = str(value)
    body = bytearray()
    reader = resp.body.getReader() if resp.body else None
    while reader is not None and len(body) < req.limit:
        chunk = await reader.read()
        if chunk.done:
            break
        body += bytes(chunk.value.to_py())
    if reader is not None:
        await reader.cancel()
    return Response(int(resp.status), headers, bytes(body[: req.limit]), str(resp.url))


# ----------------------------------------------------------- file vs model


#: transformers 5.23's "legacy" renames (``conversion_mapping.py``), applied to every checkpoint key on load.
LEGACY_RENAMES: tuple[tuple[str, str], ...] = (("LayerNorm.gamma", "LayerNorm.weight"), ("LayerNorm.beta", "LayerNorm.bias"))


def loaded_name(name: str, model_names: Any, prefix: str) -> str:
    """The model name transformers 5.23 loads a checkpoint key into (``core_model_loading.rename_source_key``):
    the legacy renames, then the base model's prefix stripped (a ``BertForPreTraining`` file's ``bert.…``
    into ``BertModel``) or added (a ``BertModel`` file into ``BertForMaskedLM``) when that names a tensor
    the model has."""
    for old, new in LEGACY_RENAMES:
        name = name.replace(old, new)
    if prefix:
        if name.startswith(prefix + ".") and name[len(prefix) + 1:] in model_names:
            return name[len(prefix) + 1:]
        if prefix + "." + name in model_names:
            return prefix + "." + name
    return name


def base_model_prefix(family: Any) -> str:
    """The family's ``base_model_prefix``: the attribute its task classes keep the backbone under (``bert``)."""
    for arch in getattr(family, "architectures", ()):
        if arch.prefix:
            return arch.prefix.rstrip(".")
    return ""


@dataclass(frozen=True)
class Difference:
    """A name in one of the two lists only: ``where`` is ``"file"`` or ``"model"``; ``reason`` a code of
    :data:`REASONS`; ``other`` the name the reason points to (the tie's owner, the checkpoint class)."""

    name: str
    where: str
    count: int
    reason: str
    dtype: str = ""
    other: str = ""


@dataclass(frozen=True)
class Comparison:
    """The file's tensors against the ``state_dict`` of the class built (``inv``)."""

    only_in_file: tuple[Difference, ...]
    only_in_model: tuple[Difference, ...]
    mismatched: tuple[str, ...]


def compare(inv: Any, checkpoint: Checkpoint, checkpoint_class: Any = None) -> Comparison:
    """Match the file's names to ``inv``'s ``state_dict`` names as ``from_pretrained`` does, and say why each
    unmatched one is where it is.

    ``checkpoint_class``: the inventory of ``architectures[0]`` (the class the file was saved from), so a
    name it holds and ``inv`` does not reads as that class's head.
    """
    model = {t.name: t for t in inv.tensors}
    prefix = base_model_prefix(inv.family)
    theirs = {t.name for t in checkpoint_class.tensors} if checkpoint_class is not None else set()
    matched: dict[str, StoredTensor] = {}
    only_file: list[Difference] = []
    for st in checkpoint.tensors:
        name = loaded_name(st.name, model, prefix)
        if name in model:
            matched[name] = st
            continue
        if theirs and loaded_name(st.name, theirs, prefix) in theirs:
            reason, other = "head", checkpoint_class.architecture
        elif not st.dtype.startswith(("F", "BF", "C")) and (st.name == "position_ids" or st.name.endswith(".position_ids")):
            reason, other = "old_buffer", ""
        else:
            reason, other = "unused", ""
        only_file.append(Difference(st.name, "file", st.count, reason, st.dtype, other or inv.architecture))
    only_model: list[Difference] = []
    for t in inv.tensors:
        if t.name in matched:
            continue
        if t.owner is not None and t.owner != t.name and t.owner in matched:
            reason, other = "tied", t.owner
        elif t.buffer:
            reason, other = "buffer", ""
        else:
            reason, other = "fresh", ""
        only_model.append(Difference(t.name, "model", t.count, reason, "", other))
    mismatched = tuple(n for n, st in matched.items() if tuple(model[n].shape) != st.shape)
    return Comparison(tuple(only_file), tuple(only_model), mismatched)


def build_models(raw: Mapping[str, Any], architecture: str | None = None, pooler: Any = None) -> tuple[Any, Any]:
    """(the class built, the checkpoint's class or None) from a config read from the Hub.

    Without ``architecture`` the class built is the family's base model, as ``AutoModel.from_pretrained(id)``
    builds it (``BertModel`` with its pooler), not ``architectures[0]``; that class, when this calculator
    knows it and it is another, is built too, so its head can be named in the comparison.
    """
    from .build import DEFAULT_MODEL_TYPE, build
    from .families import FAMILIES

    family = FAMILIES.get(raw.get("model_type", DEFAULT_MODEL_TYPE)) if isinstance(raw, Mapping) else None
    if family is None:
        return build(raw, architecture, pooler), None  # raises the same error a pasted config gets
    inv = build(raw, architecture or family.base, pooler)
    listed = raw.get("architectures")
    listed = listed[0] if isinstance(listed, list) and listed and isinstance(listed[0], str) else None
    theirs = None
    if listed and listed != inv.architecture and family.architecture(listed) is not None:
        try:
            theirs = build(raw, listed)
        except CalcError:
            theirs = None
    return inv, theirs


def checkpoint_architecture(raw: Mapping[str, Any]) -> str | None:
    """``architectures[0]``: the class the checkpoint was saved from, as its config lists it."""
    listed = raw.get("architectures") if isinstance(raw, Mapping) else None
    return listed[0] if isinstance(listed, list) and listed and isinstance(listed[0], str) else None


def to_json(checkpoint: Checkpoint, inv: Any, comparison: Comparison, architecture: str | None,
            lang: str = "en") -> dict[str, Any]:
    """The CLI's ``hub`` object (names of each side, and each difference with its count and reason in ``lang``)."""
    from .i18n import pick

    def diff(d: Difference) -> dict[str, Any]:
        return {"name": d.name, "where": d.where, "count": d.count, "dtype": d.dtype or None, "reason": d.reason,
                "message": pick(REASONS[d.reason], lang, other=d.other, architecture=inv.architecture)}

    out: dict[str, Any] = {
        "id": checkpoint.ref.repo,
        "requested": checkpoint.ref.revision,
        "revision": checkpoint.sha,
        "pinned": checkpoint.pinned,
        "endpoint": checkpoint.endpoint,
        "architecture": architecture,
        "file": {
            "files": list(checkpoint.files),
            "parameters": checkpoint.parameters,
            "tensors": len(checkpoint.tensors),
            "by_dtype": checkpoint.by_dtype,
        } if checkpoint.files else None,
        "api_total": checkpoint.api_total,
        "api_by_dtype": checkpoint.api_by_dtype or None,
        "model": {"architecture": inv.architecture, "total": inv.total, "state_dict_total": inv.state_dict_total},
        "only_in_file": [d.name for d in comparison.only_in_file],
        "only_in_model": [d.name for d in comparison.only_in_model],
        "differences": [diff(d) for d in comparison.only_in_file + comparison.only_in_model],
        "mismatched": list(comparison.mismatched),
    }
    if checkpoint.sentence is not None:
        s = checkpoint.sentence
        out["sentence_transformers"] = {
            "modules": [{"type": k, "path": p} for k, p in s.modules],
            "dense": [{"path": d.path, "in_features": d.in_features, "out_features": d.out_features, "bias": d.bias,
                       "parameters": d.count, "stored": sum(t.count for t in d.stored) if d.stored else None}
                      for d in s.dense],
            "added": s.added,
            "total": inv.total + s.added,
        }
    return out


#: Why a name is in one list only, in both languages (``{other}``: the tie's owner or the checkpoint's class;
#: ``{architecture}``: the class built).
REASONS: dict[str, dict[str, str]] = {
    "head": {
        "en": "part of {other}, the class the file was saved from; {architecture} has no such module, so loading leaves it out",
        "zh": "属于保存这个文件的类 {other}；{architecture} 没有这个模块，加载时不用它",
    },
    "old_buffer": {
        "en": "a buffer an older transformers saved (persistent); today's class computes it and does not load it",
        "zh": "旧版 transformers 保存下来的持久化 buffer（persistent）；现在的类自己计算它，加载时不读取",
    },
    "unused": {
        "en": "no module of {architecture} holds it: from_pretrained reports it as unexpected and ignores it",
        "zh": "{architecture} 中没有对应的模块：from_pretrained 把它列为多余的键并忽略",
    },
    "tied": {
        "en": "tied to {other}: the file stores the weight once, and loading ties it again",
        "zh": "与 {other} 共享权重：文件只存一份，加载后重新绑定",
    },
    "buffer": {
        "en": "a persistent buffer the file does not hold: the class's code fills it when the model is built",
        "zh": "文件中没有的持久化 buffer：构建模型时由类的代码填入",
    },
    "fresh": {
        "en": "not in the file: from_pretrained initialises it at random (a missing key)",
        "zh": "文件中没有：from_pretrained 随机初始化它（缺失的键）",
    },
}
