"""The panel's inference mode, "embed N passages of L tokens" (calculator/views/embed.py, calculator/page/embed.py):
the FLOPs of all N passages worked out by hand for bert-base, the estimated time, the link's keys, the copies, and
each bad input's coded error beside its field, in both languages."""
from __future__ import annotations

from calculator import api
from calculator.views import embed

H, I, LAYERS = 768, 3072, 12


def bert_base_forward(batch: int, seq_len: int) -> int:
    """One forward of BertModel (eval, no grad), 2 FLOPs per multiply-add, matrix products only: per layer q, k, v and
    the output projection (4 · 2·B·L·H·H), the feed-forward (2 · 2·B·L·H·I), QKᵀ and PV (2 · 2·B·L·L·H); the pooler
    (2·B·H·H)."""
    layer = 4 * 2 * batch * seq_len * H * H + 2 * 2 * batch * seq_len * H * I + 2 * 2 * batch * seq_len * seq_len * H
    return LAYERS * layer + 2 * batch * H * H


def _answer(lang: str = "en", plan: dict | None = None, **keys: str) -> dict:
    """The panel's inference answer for bert-base, eager attention unless ``attention`` is given (the figures
    below are worked out by hand for eager; the inference peak under SDPA is proven separately)."""
    req = api.resolve({"preset": "bert-base-uncased", **(plan or {})})
    return api.costs_answer(req, {"mode": "inference", "attention": "eager", **keys}, lang)


def test_flops_of_all_passages_by_hand() -> None:
    out = _answer(batch="32", seq_len="256", passages="1000", tflops="19.5")
    assert out["ok"], out
    e = out["costs"]["embed"]
    # 1,000 passages in batches of 32: 31 full batches and one of 8.
    expected = 31 * bert_base_forward(32, 256) + bert_base_forward(8, 256)
    assert (e["forwards"], e["batch"], e["flops"]) == (32, 32, expected)
    assert out["costs"]["flops"]["forward"] == bert_base_forward(32, 256)
    assert abs(e["seconds_estimate"] - expected / 19.5e12) < 1e-9
    assert out["costs"]["mode"] == "inference" and out["costs"]["memory"]["peak"] is not None
    # Fewer passages than B: one forward at B = N.
    small = _answer(batch="32", seq_len="128", passages="5")["costs"]
    assert (small["embed"]["forwards"], small["embed"]["batch"], small["embed"]["flops"]) == \
        (1, 5, bert_base_forward(5, 128))


def test_link_copy_and_markup_in_both_languages() -> None:
    for lang, estimate in (("en", "estimate"), ("zh", "估算")):
        out = _answer(lang, batch="32", seq_len="256", passages="1000", tflops="19.5")
        assert out["query"] == {"mode": "inference", "batch": "32", "seq_len": "256", "attention": "eager",
                                "passages": "1000", "tflops": "19.5"}
        md = out["markdown"]
        assert f"{out['costs']['embed']['flops']:,}" in md and estimate in md and "--inference" in md
        assert "--optimizer" not in out["command"]  # the CLI refuses training options beside --inference
        html = out["html"]
        assert f'data-value="{out["costs"]["embed"]["flops"]}"' in html and "calc-embed-estimate" in html
        assert f'data-peak="{out["costs"]["memory"]["peak"]}"' in html
    defaults = _answer(batch="8", seq_len="128", attention="default")["query"]
    assert defaults == {"mode": "inference", "batch": "8", "seq_len": "128"}  # N and TFLOPS at their defaults


def test_bad_inputs_are_coded_beside_their_fields() -> None:
    for keys, code, field in (({"passages": "0"}, "costs_not_positive", "passages"),
                              ({"passages": "2000000000000"}, "too_large", "passages"),
                              ({"passages": "1000000000"}, "costs_embed_too_large", "passages"),
                              ({"tflops": "x"}, "costs_tflops", "tflops"), ({"tflops": "0"}, "costs_tflops", "tflops"),
                              ({"tflops": "nan"}, "costs_tflops", "tflops"), ({"mode": "bogus"}, "costs_mode", "mode")):
        for lang in ("en", "zh"):
            out = _answer(lang, **{"batch": "8", "seq_len": "128", **keys})
            assert not out["ok"] and out["error"]["code"] == code and out["error"]["field"] == field, (keys, out)
            assert out["error"]["slot"] == f"calc-{field}-error"
    out = _answer("zh", {"lora_r": "8"}, batch="8", seq_len="128")
    assert out["error"]["code"] == "costs_inference_plan" and "LoRA" in out["error"]["message"]


def test_duration_words() -> None:
    assert embed.duration(2.354, "en") == "2.35 s" and embed.duration(2.354, "zh") == "2.35 秒"
    assert embed.duration(7200, "en") == "2 h" and embed.duration(3 * 86400, "zh") == "3 天"
    assert embed.duration(150, "en") == "2.5 min"
