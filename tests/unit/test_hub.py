"""calculator/hub.py without a network: ids, the requests' addresses, the answers' parsers and the whole
lookup driven by an in-memory Hub. Every expected figure is worked out by hand here (a tensor of shape
[3, 4] holds 12 elements); the real Hub's paths are huggingface_hub's (quoted in each test).

Standard library only: these run in Pyodide too.
"""
from __future__ import annotations

import json
from calculator import hub
from calculator.build import build
from calculator.errors import MESSAGES, CalcError

from .helpers import expect_error

SHA = "86b5e0934494bd15c9632b12f734a8a67f723594"


def test_model_ids_and_hub_addresses():
    cases = {
        "google-bert/bert-base-uncased": ("google-bert/bert-base-uncased", "main"),
        "  bert-base-uncased  ": ("bert-base-uncased", "main"),
        f"google-bert/bert-base-uncased@{SHA}": ("google-bert/bert-base-uncased", SHA),
        "BAAI/bge-m3@v1.0": ("BAAI/bge-m3", "v1.0"),
        "https://huggingface.co/BAAI/bge-m3": ("BAAI/bge-m3", "main"),
        "https://huggingface.co/BAAI/bge-m3/": ("BAAI/bge-m3", "main"),
        f"https://huggingface.co/google-bert/bert-base-uncased/tree/{SHA}": ("google-bert/bert-base-uncased", SHA),
        "https://huggingface.co/BAAI/bge-m3/blob/main/config.json": ("BAAI/bge-m3", "main"),
        "https://hf-mirror.com/BAAI/bge-m3/resolve/refs%2Fpr%2F1/config.json": ("BAAI/bge-m3", "refs/pr/1"),
        "https://huggingface.co/bert-base-uncased?library=transformers": ("bert-base-uncased", "main"),
        "https://huggingface.co/api/models/BAAI/bge-m3/revision/v2": ("BAAI/bge-m3", "v2"),
        "HTTPS://huggingface.co/BAAI/bge-m3#model-card": ("BAAI/bge-m3", "main"),
    }
    for text, (repo, revision) in cases.items():
        ref = hub.parse_model_id(text)
        assert (ref.repo, ref.revision) == (repo, revision), text
    assert hub.parse_model_id("a/b").text == "a/b" and hub.parse_model_id("a/b@v1").text == "a/b@v1"
    for bad in ("", "   ", "a/b/c", "a b", "../etc", "a/..", "a--b/c", "a/b.git", "a/b@", "a/b@x y",
                "https://huggingface.co/datasets/squad", "https://huggingface.co/spaces/a/b",
                "https://huggingface.co/", "<script>/x", "a/" + "b" * 97, None, 3):
        expect_error("hub_bad_id", hub.parse_model_id, bad)


def test_quote_and_unquote_as_rfc_3986_writes_them():
    # urllib.parse.quote's output for each (checked against urllib itself in tests/hub/test_hub_cli.py):
    # UTF-8 bytes as %XX, unreserved characters and `safe` as they are. 中 文 / 分 支 are E4 B8 AD, E6 96 87,
    # E5 88 86, E6 94 AF in UTF-8.
    cases = [("refs/pr/1", "", "refs%2Fpr%2F1"), ("refs/pr/1", "/", "refs/pr/1"), ("v1.0~rc_x-y", "", "v1.0~rc_x-y"),
             ("a b+c&d", "", "a%20b%2Bc%26d"), ("中文/分支", "/", "%E4%B8%AD%E6%96%87/%E5%88%86%E6%94%AF"),
             ("%41", "", "%2541")]
    for text, safe, quoted in cases:
        assert hub.quote(text, safe) == quoted, (text, safe)
        assert hub.unquote(quoted) == text
    assert hub.unquote("%e4%b8%ad") == "中" and hub.unquote("100%") == "100%"
    assert hub.split_url("https://huggingface.co/a/b?x=1#y") == ("https://huggingface.co", "/a/b")


def test_requests_are_huggingface_hubs_paths():
    ep = "https://huggingface.co"
    # HfApi.model_info: f"{endpoint}/api/models/{repo_id}/revision/{quote(revision, safe='')}"
    assert hub.api_request(ep, hub.ModelRef("a/b", "refs/pr/1")).url == "https://huggingface.co/api/models/a/b/revision/refs%2Fpr%2F1"
    # hf_hub_url: ENDPOINT/{repo_id}/resolve/{quote(revision, safe="")}/{quote(filename)}
    r = hub.file_request(ep, "a/b", SHA, "2_Dense/model.safetensors", (0, 7))
    assert r.url == f"https://huggingface.co/a/b/resolve/{SHA}/2_Dense/model.safetensors"
    # One range, inclusive ends; the only header (CORS-safelisted, so the browser sends no preflight).
    assert r.headers == {"Range": "bytes=0-7"} and r.limit == 8
    assert hub.file_request(ep, "a/b", SHA, "config.json").headers == {}
    assert hub.endpoint_of("https://hf-mirror.com/") == "https://hf-mirror.com"
    assert hub.endpoint_of(None) == "https://huggingface.co"
    expect_error("hub_unreachable", hub.endpoint_of, "ftp://x")


def _resp(status, body=b"", **headers):
    return hub.Response(status, {k.replace("_", "-").lower(): v for k, v in headers.items()}, body)


def test_statuses_as_huggingface_hub_reads_them():
    ref = hub.ModelRef("a/b")
    api = hub.api_request("https://h", ref)
    cfg = hub.file_request("https://h", "a/b", SHA, "config.json")
    weights = hub.file_request("https://h", "a/b", SHA, "model.safetensors", (0, 7))
    cases = [
        (_resp(401, x_error_code="GatedRepo"), cfg, "hub_gated"),
        (_resp(403, x_error_code="GatedRepo"), weights, "hub_gated"),
        (_resp(401, x_error_code="RepoNotFound"), api, "hub_not_found"),
        (_resp(401), api, "hub_not_found"),  # the Hub's 401 for a private or missing repo
        (_resp(404, x_error_code="RevisionNotFound"), api, "hub_not_found"),
        (_resp(404), api, "hub_not_found"),
        (_resp(404, x_error_code="EntryNotFound"), cfg, "hub_no_config"),
        (_resp(404), cfg, "hub_no_config"),
        (_resp(404, x_error_code="EntryNotFound"), weights, "hub_not_found"),
        (_resp(403), weights, "hub_gated"),  # no readable X-Error-Code (a browser without exposed headers)
        (_resp(429), api, "hub_unreachable"),
        (_resp(503), weights, "hub_unreachable"),
    ]
    for resp, req, code in cases:
        exc = expect_error(code, hub.check_status, resp, req, "https://h", ref)
        assert str(resp.status) in exc.message("en") or code == "hub_no_config", (code, exc.message("en"))
    hub.check_status(_resp(206), weights, "https://h", ref)  # no error


def _header(tensors, metadata=None):
    """A safetensors file as the format defines it: N (8 bytes, little-endian), N bytes of JSON, the data."""
    entries, offset = {}, 0
    if metadata is not None:
        entries["__metadata__"] = metadata
    for name, dtype, shape, size in tensors:
        n = 1
        for d in shape:
            n *= d
        entries[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n * size]}
        offset += n * size
    head = json.dumps(entries).encode()
    return len(head).to_bytes(8, "little") + head + b"\0" * offset


def test_header_parsed_and_checked():
    data = _header([("a.weight", "F32", [3, 4], 4), ("a.bias", "F16", [3], 2), ("ids", "I64", [1, 5], 8)],
                   {"format": "pt"})
    n = hub.header_length(data[:8], "r", "f")
    got = hub.parse_header(data[8:8 + n], n, len(data), "r", "f")
    assert [(t.name, t.dtype, t.shape, t.count) for t in got] == [
        ("a.weight", "F32", (3, 4), 12), ("a.bias", "F16", (3,), 3), ("ids", "I64", (1, 5), 5)]
    # over huggingface_hub's SAFETENSORS_MAX_HEADER_LENGTH = 25_000_000
    expect_error("hub_bad_header", hub.header_length, (25_000_001).to_bytes(8, "little"), "r", "f")
    assert hub.header_length((25_000_000).to_bytes(8, "little"), "r", "f") == 25_000_000
    bad = [
        b"{nope}",
        b"[1, 2]",
        json.dumps({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 17]}}).encode(),  # 4·4 = 16 bytes
        json.dumps({"x": {"dtype": "F32", "shape": [4], "data_offsets": [16, 0]}}).encode(),
        json.dumps({"x": {"dtype": "F32", "shape": [-4], "data_offsets": [0, 16]}}).encode(),
        json.dumps({"x": {"shape": [4], "data_offsets": [0, 16]}}).encode(),
    ]
    for head in bad:
        expect_error("hub_bad_header", hub.parse_header, head, len(head), None, "r", "f")
    # offsets past the end of the file: 16 bytes of data declared, 8 present
    head = json.dumps({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
    exc = expect_error("hub_bad_header", hub.parse_header, head, len(head), 8 + len(head) + 8, "r", "f")
    assert "data_offsets" in exc.message("en") and "data_offsets" in exc.message("zh")
    assert len(hub.parse_header(head, len(head), 8 + len(head) + 16, "r", "f")) == 1


def test_a_range_answered_with_206_or_with_the_whole_file():
    data = bytes(range(100))
    req = hub.file_request("https://h", "a/b", SHA, "model.safetensors", (8, 19))
    got, size = hub.ranged_bytes(_resp(206, data[8:20], content_range="bytes 8-19/100"), req, "a/b")
    assert (got, size) == (data[8:20], 100)
    # a mirror that ignores Range: 200 and the file from byte 0, of which the transport read limit = 20 bytes
    assert req.limit == 20
    got, size = hub.ranged_bytes(_resp(200, data[:20], content_length="100"), req, "a/b")
    assert (got, size) == (data[8:20], 100)
    # a 206 whose Content-Range a browser cannot read (not exposed): taken as the range asked for
    assert hub.ranged_bytes(_resp(206, data[8:20]), req, "a/b") == (data[8:20], None)
    expect_error("hub_bad_header", hub.ranged_bytes, _resp(206, data[0:12], content_range="bytes 0-11/100"), req, "a/b")
    expect_error("hub_bad_header", hub.ranged_bytes, _resp(206, data[8:12], content_range="bytes 8-11/12"), req, "a/b")
    expect_error("hub_bad_header", hub.ranged_bytes, _resp(200, data[:15]), req, "a/b")


def test_index_lists_its_shards_once_in_order():
    index = {"metadata": {"total_size": 1}, "weight_map": {"a": "m-00001-of-00002.safetensors",
                                                           "b": "m-00002-of-00002.safetensors",
                                                           "c": "m-00001-of-00002.safetensors"}}
    assert hub.parse_index(json.dumps(index).encode(), "r") == ("m-00001-of-00002.safetensors",
                                                                "m-00002-of-00002.safetensors")
    for bad in (b"[]", b"{}", json.dumps({"weight_map": {"a": 1}}).encode(),
                json.dumps({"weight_map": {"a": "../../x"}}).encode(),
                json.dumps({"weight_map": {"a": "https://evil/x"}}).encode()):
        expect_error("hub_bad_header", hub.parse_index, bad, "r")


class FakeHub:
    """An in-memory Hub: files per path, Range answered with 206 (or, ``ignore_range``, the whole file)."""

    def __init__(self, files, api=None, ignore_range=False):
        self.files, self.ignore_range, self.seen = files, ignore_range, []
        self.api = api if api is not None else {"sha": SHA, "siblings": [{"rfilename": f} for f in files]}

    def __call__(self, req):
        self.seen.append((req.url, req.headers.get("Range")))
        if "/api/models/" in req.url:
            return _resp(200, json.dumps(self.api).encode())
        path = req.url.split(f"/resolve/{SHA}/", 1)[1]
        if path not in self.files:
            return _resp(404, x_error_code="EntryNotFound")
        data = self.files[path]
        if req.range and not self.ignore_range:
            a, b = req.range
            return _resp(206, data[a:b + 1], content_range=f"bytes {a}-{min(b, len(data) - 1)}/{len(data)}")
        return _resp(200, data[:req.limit], content_length=str(len(data)))


CONFIG = {"model_type": "bert", "architectures": ["BertForMaskedLM"], "vocab_size": 10, "hidden_size": 4,
          "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 6, "max_position_embeddings": 8,
          "type_vocab_size": 2}


def test_lookup_single_file_pinned_to_the_commit():
    weights = _header([("w", "F32", [3, 4], 4), ("ids", "I64", [1, 8], 8)])
    fake = FakeHub({"config.json": json.dumps(CONFIG).encode(), "model.safetensors": weights})
    fake.api["safetensors"] = {"parameters": {"F32": 12, "I64": 8}, "total": 20}
    cp = hub.run(hub.lookup(hub.parse_model_id("a/b"), "https://h"), fake)
    assert (cp.sha, cp.pinned, cp.files) == (SHA, f"a/b@{SHA}", ("model.safetensors",))
    assert cp.config == CONFIG and cp.api_total == 20 and cp.api_by_dtype == {"F32": 12, "I64": 8}
    assert (cp.parameters, cp.by_dtype) == (20, {"F32": 12, "I64": 8})
    n = int.from_bytes(weights[:8], "little")
    assert fake.seen == [
        ("https://h/api/models/a/b/revision/main", None),
        (f"https://h/a/b/resolve/{SHA}/config.json", None),
        (f"https://h/a/b/resolve/{SHA}/model.safetensors", "bytes=0-7"),
        (f"https://h/a/b/resolve/{SHA}/model.safetensors", f"bytes=8-{8 + n - 1}"),
    ]
    # The same through a mirror that ignores Range.
    mirror = FakeHub(dict(fake.files), ignore_range=True)
    progress = hub.Progress()
    same = hub.run(hub.lookup(hub.parse_model_id("a/b"), "https://h"), mirror, progress)
    assert same.tensors == cp.tensors and progress.requests == 4
    # the API, config.json, then from byte 0: 8 bytes, and 8 + N (never the whole file)
    assert progress.bytes == len(json.dumps(mirror.api).encode()) + len(fake.files["config.json"]) + 8 + (8 + n)


def test_lookup_sharded_and_sentence_transformers():
    s1 = _header([("a", "F32", [2, 2], 4)])
    s2 = _header([("b", "BF16", [5], 2)])
    index = {"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}
    modules = [{"type": "sentence_transformers.models.Transformer", "path": ""},
               {"type": "sentence_transformers.models.Pooling", "path": "1_Pooling"},
               {"type": "sentence_transformers.models.Dense", "path": "2_Dense"},
               {"type": "sentence_transformers.models.Normalize", "path": "3_Normalize"}]
    dense = _header([("linear.weight", "F32", [3, 4], 4), ("linear.bias", "F32", [3], 4)])
    files = {"config.json": json.dumps(CONFIG).encode(), "model.safetensors.index.json": json.dumps(index).encode(),
             "model-00001-of-00002.safetensors": s1, "model-00002-of-00002.safetensors": s2,
             "modules.json": json.dumps(modules).encode(),
             "2_Dense/config.json": json.dumps({"in_features": 4, "out_features": 3, "bias": True}).encode(),
             "2_Dense/model.safetensors": dense}
    cp = hub.run(hub.lookup(hub.parse_model_id("a/b@v1"), "https://h"), FakeHub(files))
    assert cp.files == ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")
    assert (cp.parameters, cp.by_dtype, cp.api_total) == (4 + 5, {"BF16": 5, "F32": 4}, None)
    st = cp.sentence
    assert [k for k, _ in st.modules] == ["Transformer", "Pooling", "Dense", "Normalize"]
    # nn.Linear(4, 3): 4·3 weights + 3 biases
    assert [(d.path, d.count, sum(t.count for t in d.stored)) for d in st.dense] == [("2_Dense", 15, 15)]
    assert st.added == 15


def test_lookup_refusals():
    cfg = json.dumps(CONFIG).encode()
    no_config = FakeHub({"README.md": b"x"})
    expect_error("hub_no_config", hub.run, hub.lookup(hub.ModelRef("a/b"), "https://h"), no_config)
    not_api = FakeHub({"config.json": cfg}, api={"error": "html page"})
    expect_error("hub_unreachable", hub.run, hub.lookup(hub.ModelRef("a/b"), "https://h"), not_api)
    short = FakeHub({"config.json": cfg, "model.safetensors": b"\x10\0\0"})
    expect_error("hub_bad_header", hub.run, hub.lookup(hub.ModelRef("a/b"), "https://h"), short)
    bad_json = FakeHub({"config.json": b"{", "model.safetensors": _header([])})
    expect_error("invalid_json", hub.run, hub.lookup(hub.ModelRef("a/b"), "https://h"), bad_json)


def test_gated_refusal_carries_the_public_count():
    class Gated(FakeHub):
        def __call__(self, req):
            if "/resolve/" in req.url:
                return _resp(401, x_error_code="GatedRepo")
            return super().__call__(req)

    fake = Gated({"config.json": b"{}"})
    fake.api["safetensors"] = {"parameters": {"F32": 1234567}, "total": 1234567}
    exc = expect_error("hub_gated", hub.run, hub.lookup(hub.ModelRef("a/b"), "https://h"), fake)
    assert "1,234,567" in exc.message("en") and "1,234,567" in exc.message("zh")


def test_file_against_model_after_transformers_renames():
    """A BertForPreTraining-shaped file (``bert.`` prefix, LayerNorm gamma/beta, an old int64 position_ids)
    loaded into BertModel: transformers strips ``bert.`` and renames gamma/beta, so only the heads and the
    buffer are left over, and a file without the pooler leaves the pooler to be initialised."""
    inv = build(CONFIG, "BertModel")
    theirs = build(CONFIG, "BertForPreTraining")
    stored = []
    for t in inv.tensors:
        if t.name.startswith("pooler."):
            continue
        name = "bert." + t.name.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")
        stored.append(hub.StoredTensor(name, "F32", t.shape, "model.safetensors"))
    heads = ["cls.predictions.bias", "cls.seq_relationship.weight"]
    stored += [hub.StoredTensor(heads[0], "F32", (10,), "m"), hub.StoredTensor(heads[1], "F32", (2, 4), "m"),
               hub.StoredTensor("bert.embeddings.position_ids", "I64", (1, 8), "m"),
               hub.StoredTensor("something.else", "F32", (3,), "m")]
    cp = hub.Checkpoint(hub.ModelRef("a/b"), "https://h", SHA, CONFIG, ("m",), tuple(stored), None, {}, False)
    c = hub.compare(inv, cp, theirs)
    assert [(d.name, d.count, d.reason) for d in c.only_in_file] == [
        ("cls.predictions.bias", 10, "head"), ("cls.seq_relationship.weight", 8, "head"),
        ("bert.embeddings.position_ids", 8, "old_buffer"), ("something.else", 3, "unused")]
    # pooler.dense: [4, 4] and [4]
    assert [(d.name, d.count, d.reason) for d in c.only_in_model] == [
        ("pooler.dense.weight", 16, "fresh"), ("pooler.dense.bias", 4, "fresh")]
    assert c.mismatched == ()
    # The other way: a BertModel file (no prefix) into BertForMaskedLM, whose decoder is tied to the embedding.
    mlm = build(CONFIG, "BertForMaskedLM")
    plain = tuple(hub.StoredTensor(t.name, "F32", t.shape, "m") for t in inv.tensors)
    cp = hub.Checkpoint(hub.ModelRef("a/b"), "https://h", SHA, CONFIG, ("m",), plain, None, {}, False)
    c = hub.compare(mlm, cp)
    assert [d.name for d in c.only_in_file] == ["pooler.dense.weight", "pooler.dense.bias"]
    reasons = {d.name: d.reason for d in c.only_in_model}
    assert reasons["cls.predictions.decoder.weight"] == "tied"  # tied to bert.embeddings.word_embeddings.weight
    assert reasons["cls.predictions.bias"] == "fresh" and reasons["cls.predictions.transform.dense.weight"] == "fresh"


def test_every_hub_message_renders_in_both_languages():
    params = dict(value="x y", repo="a/b", revision="main", endpoint="https://h", status=404, file="config.json",
                  detail="3", total=1234)
    reasons = ["connection", "timeout", "status", "not_api", "endpoint", "too_long", "not_json", "entry", "offsets",
               "short", "range", "index"]
    for code in [c for c in MESSAGES if c.startswith("hub_")]:
        for reason in reasons:
            exc = CalcError(code, reason=reason, **params)
            en, zh = exc.message("en"), exc.message("zh")
            assert en != zh and "{" not in en + zh and "None" not in en + zh, (code, reason, en, zh)
    assert set(c for c in MESSAGES if c.startswith("hub_")) == {
        "hub_bad_id", "hub_not_found", "hub_gated", "hub_unreachable", "hub_no_config", "hub_bad_header"}
