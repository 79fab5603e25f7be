"""``--model`` against the local Hub stand-in, every expected figure from transformers or safetensors.

The checkpoints are the ones transformers saved in ``conftest.py``; the totals are
``sum(p.numel() for p in AutoModel.from_pretrained(folder).parameters())``, the file's tensors are
``safetensors.safe_open``'s, and the names only in the file or only in the model are what
``from_pretrained(..., output_loading_info=True)`` reports as unexpected and missing.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from calculator import cli
from calculator import hub as calc_hub
from calculator.hub_fetch import transport

from .standin import GRANTED

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
safetensors = pytest.importorskip("safetensors")

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, env: dict | None = None) -> tuple[int, str, str]:
    """``python -m calculator`` in this process (HF_TOKEN/HF_ENDPOINT from ``env`` only)."""
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.pop(k) for k in ("HF_TOKEN", "HF_ENDPOINT") if k in os.environ}
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(args))
    finally:
        for k in ("HF_TOKEN", "HF_ENDPOINT"):
            os.environ.pop(k, None)
        os.environ.update(saved)
    return code, out.getvalue(), err.getvalue()


def answer(hub_server, model: str, *more: str, env: dict | None = None) -> dict:
    code, out, err = run_cli("--model", model, "--endpoint", hub_server.hub_url, "--format", "json", *more, env=env)
    assert code == 0, out + err
    return json.loads(out)


def file_tensors(folder: Path) -> dict[str, tuple[str, int]]:
    """name → (dtype, elements) of every safetensors file at the root, read by the safetensors library."""
    from safetensors import safe_open

    out = {}
    for path in sorted(folder.glob("*.safetensors")):
        header = json.loads(path.read_bytes()[8:8 + int.from_bytes(path.read_bytes()[:8], "little")])
        with safe_open(str(path), "pt") as f:
            for name in f.keys():
                n = 1
                for d in f.get_slice(name).get_shape():
                    n *= d
                out[name] = (header[name]["dtype"], n)
    return out


def loaded(folder: Path, cls=None):
    """transformers' own answer: the model AutoModel (or ``cls``) loads, and its loading info."""
    cls = cls or transformers.AutoModel
    model, info = cls.from_pretrained(folder, output_loading_info=True)
    return model, info


def by_dtype(tensors: dict[str, tuple[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for dtype, n in tensors.values():
        out[dtype] = out.get(dtype, 0) + n
    return out


def test_single_file_against_automodel(hub, repos):
    repo = repos["tiny/bert-mlm"]
    data = answer(hub, "tiny/bert-mlm")
    model, info = loaded(repo.folder)
    stored = file_tensors(repo.folder)
    h = data["hub"]
    assert data["architecture"] == type(model).__name__ == "BertModel"
    assert data["total"] == sum(p.numel() for p in model.parameters())
    assert (h["id"], h["revision"], h["requested"]) == ("tiny/bert-mlm", repo.sha, "main")
    assert h["architecture"] == json.loads((repo.folder / "config.json").read_text())["architectures"][0]
    assert h["file"] == {"files": ["model.safetensors"], "parameters": sum(n for _, n in stored.values()),
                         "tensors": len(stored), "by_dtype": by_dtype(stored)}
    assert h["api_total"] == sum(n for _, n in stored.values())
    assert set(h["only_in_file"]) == set(info["unexpected_keys"]) and info["unexpected_keys"]
    assert set(h["only_in_model"]) == set(info["missing_keys"]) == {"pooler.dense.weight", "pooler.dense.bias"}
    reasons = {d["name"]: d["reason"] for d in h["differences"]}
    assert {reasons[n] for n in info["unexpected_keys"]} == {"head"}
    assert {reasons[n] for n in info["missing_keys"]} == {"fresh"}
    assert h["mismatched"] == []


def test_the_checkpoint_class_one_option_away(hub, repos):
    """--architecture BertForMaskedLM: the class the file was saved from; the only names left are the ties."""
    repo = repos["tiny/bert-mlm"]
    data = answer(hub, f"tiny/bert-mlm@{repo.sha}", "--architecture", "BertForMaskedLM")
    model, info = loaded(repo.folder, transformers.BertForMaskedLM)
    h = data["hub"]
    assert data["total"] == sum(p.numel() for p in model.parameters())
    assert h["requested"] == h["revision"] == repo.sha
    assert h["only_in_file"] == [] and not info["unexpected_keys"] and not info["missing_keys"]
    # In the state_dict, not in the file: the copies save_pretrained leaves out because they are tied.
    not_saved = set(model.state_dict()) - set(file_tensors(repo.folder))
    assert set(h["only_in_model"]) == not_saved and not_saved
    ptrs = {}
    for name, t in model.state_dict().items():
        ptrs.setdefault(t.data_ptr(), []).append(name)
    tied = {n for names in ptrs.values() if len(names) > 1 for n in names}
    assert not_saved <= tied
    assert {d["reason"] for d in h["differences"]} == {"tied"}


def test_sharded_checkpoint(hub, repos):
    repo = repos["tiny/bert-pretraining-sharded"]
    index = json.loads((repo.folder / "model.safetensors.index.json").read_text())
    shards = list(dict.fromkeys(index["weight_map"].values()))
    assert len(shards) > 1
    data = answer(hub, "tiny/bert-pretraining-sharded")
    model, info = loaded(repo.folder)
    stored = file_tensors(repo.folder)
    h = data["hub"]
    assert data["total"] == sum(p.numel() for p in model.parameters())
    assert sorted(h["file"]["files"]) == sorted(shards)
    assert h["file"]["parameters"] == sum(n for _, n in stored.values()) == h["api_total"]
    assert h["file"]["tensors"] == len(stored) == len(index["weight_map"])
    assert set(h["only_in_file"]) == set(info["unexpected_keys"]) and not info["missing_keys"]
    assert h["only_in_model"] == []


def test_old_checkpoint_with_saved_position_ids(hub, repos):
    """gamma/beta names load (transformers' legacy renames: nothing missing), position_ids is only in the file."""
    repo = repos["tiny/bert-old"]
    data = answer(hub, "tiny/bert-old")
    model, info = loaded(repo.folder)
    assert not info["missing_keys"] and not info["unexpected_keys"]  # position_ids: silenced by transformers
    stored = file_tensors(repo.folder)
    # The file's names as documented for transformers' "legacy" mapping (LayerNorm.gamma → .weight, beta → .bias).
    renamed = {n.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")
               for n in stored}
    extra = renamed - set(model.state_dict())
    assert extra == {"embeddings.position_ids"} and stored["embeddings.position_ids"][0] == "I64"
    h = data["hub"]
    assert h["only_in_file"] == ["embeddings.position_ids"] and h["only_in_model"] == []
    assert [d["reason"] for d in h["differences"]] == ["old_buffer"]
    assert h["file"]["by_dtype"] == by_dtype(stored) and "I64" in h["file"]["by_dtype"]
    assert data["total"] == sum(p.numel() for p in model.parameters())


def test_sentence_transformers_dense(hub, repos):
    repo = repos["tiny/bert-st"]
    data = answer(hub, "tiny/bert-st")
    model, _ = loaded(repo.folder)
    cfg = json.loads((repo.folder / "2_Dense" / "config.json").read_text())
    linear = torch.nn.Linear(cfg["in_features"], cfg["out_features"], bias=cfg["bias"])
    dense = sum(p.numel() for p in linear.parameters())
    dense_file = sum(n for _, n in file_tensors(repo.folder / "2_Dense").values())
    st = data["hub"]["sentence_transformers"]
    assert [m["type"] for m in st["modules"]] == ["Transformer", "Pooling", "Dense", "Normalize"]
    assert st["dense"] == [{"path": "2_Dense", "in_features": 32, "out_features": 16, "bias": True,
                            "parameters": dense, "stored": dense_file}]
    assert st["added"] == dense and st["total"] == sum(p.numel() for p in model.parameters()) + dense
    code, out, _ = run_cli("--model", "tiny/bert-st", "--endpoint", hub.hub_url)
    assert code == 0 and "SentenceTransformer(id)" in out and f"{st['total']:,}" in out


def test_gated_repo(hub, repos):
    api_total = sum(n for _, n in file_tensors(repos["tiny/bert-gated"].folder).values())
    for lang, words in (("en", "gated"), ("zh", "受限")):
        code, out, err = run_cli("--model", "tiny/bert-gated", "--endpoint", hub.hub_url, "--format", "json",
                                 "--lang", lang)
        assert code == 2 and err == ""
        e = json.loads(out)["error"]
        assert e["code"] == "hub_gated" and words in e["message"] and f"{api_total:,}" in e["message"], e
        assert "HTTP 401" in e["message"]
    code, out, _ = run_cli("--model", "tiny/bert-gated", "--endpoint", hub.hub_url, "--format", "json",
                           env={"HF_TOKEN": "hf_not_granted"})
    assert code == 2 and json.loads(out)["error"]["code"] == "hub_gated" and "HTTP 403" in out
    hub.log.clear()
    data = answer(hub, "tiny/bert-gated", env={"HF_TOKEN": GRANTED})
    assert data["hub"]["file"]["parameters"] == api_total
    sent = [(role, h.get("authorization")) for role, _, h in hub.log]
    assert all(auth == "Bearer " + GRANTED for role, auth in sent if role == "hub")
    assert all(auth is None for role, auth in sent if role == "cdn") and any(r == "cdn" for r, _ in sent)


def test_ranges_through_the_redirect(hub):
    hub.log.clear()
    answer(hub, "tiny/bert-mlm")
    ranges = [(role, path, h.get("range")) for role, path, h in hub.log if path.endswith("model.safetensors")]
    assert [r for _, _, r in ranges if r] and all(r for _, _, r in ranges)
    assert ranges[0] == ("hub", "/tiny/bert-mlm/resolve/" + hub.repos["tiny/bert-mlm"].sha + "/model.safetensors",
                         "bytes=0-7")
    header_len = int.from_bytes((hub.repos["tiny/bert-mlm"].folder / "model.safetensors").read_bytes()[:8], "little")
    assert [r for role, _, r in ranges if role == "cdn"] == ["bytes=0-7", f"bytes=8-{8 + header_len - 1}"]
    # every read after the API's is pinned to the commit
    assert all(hub.repos["tiny/bert-mlm"].sha in path for role, path, _ in hub.log if role == "hub"
               and not path.startswith("/api/"))


def test_a_mirror_that_ignores_range(hub, repos):
    """A 200 with the whole file: the same answer, and only the bytes needed read from the body."""
    with_ranges = answer(hub, "tiny/bert-pretraining-sharded")
    hub.ignore_range = True
    without = answer(hub, "tiny/bert-pretraining-sharded")
    assert without == with_ranges
    progress = calc_hub.Progress()
    checkpoint = calc_hub.run(calc_hub.lookup(calc_hub.parse_model_id("tiny/bert-pretraining-sharded"), hub.hub_url),
                              transport(hub.hub_url), progress)
    folder = repos["tiny/bert-pretraining-sharded"].folder
    sizes = {p.name: p.stat().st_size for p in folder.glob("*.safetensors")}
    headers = {p.name: 8 + int.from_bytes(p.read_bytes()[:8], "little") for p in folder.glob("*.safetensors")}
    json_files = sum(len((folder / f).read_bytes()) for f in ("config.json", "model.safetensors.index.json"))
    assert checkpoint.files and progress.bytes < sum(sizes.values())
    # per shard: 8 bytes, then the header read from byte 0 (the 200 starts at the file's first byte)
    assert progress.bytes - json_files <= sum(8 + headers[n] for n in sizes) + 65536


@pytest.mark.parametrize(("model", "code"), [
    ("tiny/nope", "hub_not_found"),
    ("tiny/bert-mlm@no-such-branch", "hub_not_found"),
    ("tiny/no-config", "hub_no_config"),
    ("tiny/bad-header", "hub_bad_header"),
    ("tiny/bad-offsets", "hub_bad_header"),
    ("tiny/not-json", "hub_bad_header"),
    ("not a repo id", "hub_bad_id"),
    ("https://huggingface.co/datasets/x/y", "hub_bad_id"),
])
def test_refusals_are_coded_in_both_languages(hub, model, code):
    messages = []
    for lang in ("en", "zh"):
        status, out, err = run_cli("--model", model, "--endpoint", hub.hub_url, "--format", "json", "--lang", lang)
        assert status == 2 and err == "", (out, err)
        e = json.loads(out)["error"]
        assert e["code"] == code, e
        messages.append(e["message"])
        status, out, err = run_cli("--model", model, "--endpoint", hub.hub_url, "--lang", lang)
        assert status == 2 and out == "" and err.startswith(f"error: {code}: ") and err.count("\n") == 1
    assert messages[0] != messages[1] and all("{" not in m for m in messages)


def test_address_helpers_agree_with_urllib():
    """calculator/hub.py quotes by hand (the page's standard library has no urllib): the same as urllib.parse."""
    from urllib.parse import quote, unquote

    for text in ("refs/pr/1", "main", "v1.0~rc", "中文/分支", "a b+c&d", "%41", "é\u00a0x", "a/b@c:d"):
        for safe in ("", "/"):
            assert calc_hub.quote(text, safe) == quote(text, safe=safe), (text, safe)
        assert calc_hub.unquote(quote(text, safe="")) == text and calc_hub.unquote(text) == unquote(text)


def test_unreachable_endpoint():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    code, out, _ = run_cli("--model", "tiny/bert-mlm", "--endpoint", f"http://127.0.0.1:{port}", "--format", "json")
    assert code == 2 and json.loads(out)["error"]["code"] == "hub_unreachable"


def test_hub_address_and_hf_endpoint_in_a_real_process(hub, repos):
    """As a user runs it: HF_ENDPOINT, a Hub address with /tree/REV, text in both languages."""
    sha = repos["tiny/bert-mlm"].sha
    env = {k: v for k, v in os.environ.items() if k not in ("HF_TOKEN",)} | {"HF_ENDPOINT": hub.hub_url}
    for lang, title in (("en", "The file and the model"), ("zh", "文件与模型")):
        p = subprocess.run([sys.executable, "-m", "calculator", "--model", f"https://huggingface.co/tiny/bert-mlm/tree/{sha}",
                            "--lang", lang], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert title in p.stdout and sha in p.stdout and "cls.predictions.bias" in p.stdout
    p = subprocess.run([sys.executable, "-m", "calculator", "--model", "tiny/bert-mlm", "--format", "markdown"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "| `cls.predictions.bias` |" in p.stdout and f"tiny/bert-mlm@{sha}" in p.stdout
