"""The page's model-id field (calculator/page/hub.py) without a network: an in-memory Hub (test_hub.FakeHub)
behind an async transport, as the worker's ``fetch`` is. Every figure is worked out by hand here.

The coroutine is driven by hand (``send(None)``): the fake transport never suspends, so no event loop is
needed, and this runs unchanged in Pyodide (the unit suite's run there).
"""
from __future__ import annotations

import json

from calculator import hub
from calculator.errors import CalcError
from calculator.page import hub as page_hub

from .test_hub import CONFIG, SHA, FakeHub, _header, _resp

#: BertModel for CONFIG (V=10, H=4, L=1, I=6, P=8, T=2), by hand:
#: embeddings 10·4 + 8·4 + 2·4 + LayerNorm 2·4 = 88; the layer: Q, K, V 3·(4·4+4) = 60, attention output
#: 4·4+4 + LayerNorm 8 = 28, intermediate 4·6+6 = 30, output 6·4+4 + LayerNorm 8 = 36: 154; pooler 4·4+4 = 20.
BERT_MODEL_TOTAL = 88 + 154 + 20


def drive(coro):
    """Run a coroutine that never suspends to its end (what an event loop would do, in one step)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the coroutine suspended: the fake transport must answer at once")


def transport_of(fake):
    async def send(req):
        return fake(req)

    return send


def ask(fake, request, lang="en", seen=None):
    progress = (lambda n, b: seen.append((n, b))) if seen is not None else None
    return json.loads(drive(page_hub.compute_json(json.dumps(request), lang, progress, transport_of(fake))))


def _file():
    # A BertForMaskedLM file in part, by hand: one backbone tensor under the "bert." prefix, the MLM head's
    # bias, and the position_ids buffer an older transformers saved (int64).
    return _header([("bert.embeddings.word_embeddings.weight", "F32", [10, 4], 4),
                    ("cls.predictions.bias", "F32", [10], 4),
                    ("bert.embeddings.position_ids", "I64", [1, 8], 8)])


def test_a_model_id_answers_as_the_base_model_named_by_its_id_and_pinned():
    page_hub._READ.clear()
    fake = FakeHub({"config.json": json.dumps(CONFIG).encode(), "model.safetensors": _file()})
    fake.api["safetensors"] = {"parameters": {"F32": 50, "I64": 8}, "total": 58}
    seen: list = []
    out = ask(fake, {"model": "https://huggingface.co/a/b", "forms": ["bert"]}, "en", seen)
    assert out["ok"], out
    assert out["total"] == BERT_MODEL_TOTAL and out["architecture"] == "BertModel"
    # the address: the id pinned to the commit, nothing else
    assert out["link"] == {"model": f"a/b@{SHA}"} and out["hub"]["pinned"] == f"a/b@{SHA}"
    # the paste box gets the config that came back; the form its values, named by the id
    assert json.loads(out["hub"]["config"]) == CONFIG
    assert out["query"]["label"] == "a/b" and out["query"]["hidden_size"] == "4"
    assert "a/b" in out["summary_html"]
    # API, config.json, 8 bytes, the header: one more request each time, bytes never fewer
    assert [n for n, _ in seen] == [1, 2, 3, 4] and all(a <= b for (_, a), (_, b) in zip(seen, seen[1:]))
    # the file against the model: 40 + 10 + 8 elements in the file (hand sum), the API's 58, the model's total
    html = out["html"]
    assert 'data-file-parameters="58"' in html and 'data-api-total="58"' in html
    assert f'data-model-total="{BERT_MODEL_TOTAL}"' in html and f'data-pinned="a/b@{SHA}"' in html
    for name in ("cls.predictions.bias", "bert.embeddings.position_ids", "pooler.dense.weight"):
        assert f"<code>{name}</code>" in html, name
    # the class the checkpoint was saved from, one click away, pinned
    assert f'href="?model=a/b@{SHA}&amp;architecture=BertForMaskedLM"' in html
    assert out["hub"]["data"]["only_in_file"] == ["cls.predictions.bias", "bert.embeddings.position_ids"]
    # the copies end with the file against the model, as the CLI's report does
    from calculator import api

    parts = api._parts_of_last(("copies",), "en")
    for kind in ("markdown", "markdown_full", "text"):
        assert "a/b" in parts[kind] and SHA in parts[kind] and "cls.predictions.bias" in parts[kind], kind


def test_the_checkpoint_class_and_a_pinned_id_read_nothing_again():
    page_hub._READ.clear()
    fake = FakeHub({"config.json": json.dumps(CONFIG).encode(), "model.safetensors": _file()})
    first = ask(fake, {"model": "a/b"})
    n = len(fake.seen)
    out = ask(fake, {"model": first["link"]["model"], "architecture": "BertForMaskedLM"}, "zh")
    assert len(fake.seen) == n, "a pinned id already read is not read again"
    assert out["ok"] and out["architecture"] == "BertForMaskedLM" and out["total"] != first["total"]
    assert out["link"] == {"model": f"a/b@{SHA}", "architecture": "BertForMaskedLM"}
    assert "文件与模型" in out["html"]


def test_every_error_of_the_field_is_beside_it_in_the_pages_words():
    page_hub._READ.clear()

    class Gated(FakeHub):
        def __call__(self, req):
            return _resp(401, x_error_code="GatedRepo") if "/resolve/" in req.url else super().__call__(req)

    gated = Gated({"config.json": b"{}"})
    gated.api["safetensors"] = {"parameters": {"F32": 1234567}, "total": 1234567}
    missing = FakeHub({})

    def nope(req):
        return _resp(401, x_error_code="RepoNotFound")

    async def offline(req):
        raise CalcError("hub_unreachable", endpoint="https://huggingface.co", reason="connection", status="",
                        detail="Failed to fetch")

    cases = [("hub_gated", gated, "a/b"), ("hub_not_found", nope, "a/nope"), ("hub_bad_id", missing, "a/b/c d"),
             ("hub_no_config", FakeHub({"README.md": b"x"}), "a/b"), ("hub_unreachable", None, "a/b")]
    for lang in ("en", "zh"):
        for code, fake, model in cases:
            request = json.dumps({"model": model})
            out = json.loads(drive(page_hub.compute_json(request, lang, None,
                                                         offline if fake is None else transport_of(fake))))
            assert not out["ok"], (code, out)
            [error] = out["errors"]
            assert error["code"] == code, (code, error)
            assert (error["slot"], error["marks"], error["field"]) == ("calc-model-error", ["calc-model"], "model")
            # the page sends no token and has no --endpoint: its messages do not ask for them
            assert "HF_TOKEN" not in error["message"] and "--endpoint" not in error["message"], error
        gated_out = json.loads(drive(page_hub.compute_json(json.dumps({"model": "a/b"}), lang, None,
                                                           transport_of(gated))))
        message = gated_out["errors"][0]["message"]
        # the Hub's public count, and the way forward: paste config.json
        assert "1,234,567" in message and "config.json" in message, message
    assert not missing.seen, "an id that is not one reaches no address"


def test_the_page_says_the_hub_codes_without_the_clis_options():
    for code in ("hub_not_found", "hub_gated", "hub_unreachable"):
        exc = CalcError(code, repo="a/b", revision="main", endpoint=hub.DEFAULT_ENDPOINT, status=401, file="api",
                        reason="connection", detail="x")
        for lang in ("en", "zh"):
            page, cli = exc.message(lang, "page"), exc.message(lang)
            assert page != cli and "HF_TOKEN" not in page and "HF_ENDPOINT" not in page, (code, lang)
        assert exc.message("en", "page") != exc.message("zh", "page")


def test_the_worker_keeps_the_last_few_checkpoints_only():
    page_hub._READ.clear()
    fake = FakeHub({"config.json": json.dumps(CONFIG).encode(), "model.safetensors": _file()})
    names = [f"a/m{i}" for i in range(page_hub.KEEP + 1)]
    for name in names:
        assert ask(fake, {"model": name})["ok"]
    assert list(page_hub._READ) == [f"{n}@{SHA}" for n in names[1:]]
    page_hub._READ.clear()
