"""The training step with SDPA attention (issue 32) against hand arithmetic for bert-base at B = 1, L = 128.

The step is ``attn_implementation="sdpa"`` with attention dropout 0: on CPU PyTorch's flash kernel
``_scaled_dot_product_flash_attention_for_cpu``. Its FLOPs are torch.utils.flop_counter's sdpa rules
(``sdpa_flop_count``: QKᵀ and PV; ``sdpa_backward_flop_count``: five products), written out below;
what its backward keeps: q, k, v, its output [B, A, L, d] and a float32 logsumexp [B, A, L]. The
cross-check (tests/crosscheck/test_costs_sdpa_reference.py) measures the same figures in PyTorch.

Standard library only, no fixtures: it runs inside Pyodide too.
"""
from __future__ import annotations

import json

from calculator import api, costs
from calculator.build import build
from calculator.presets import get_preset
from calculator.views import costs as cv

from .helpers import expect_error

H, I, LAYERS, A, D = 768, 3072, 12, 12, 64
B, L = 1, 128
T = B * L  # tokens


def bert_base(**keys):
    """bert-base-uncased (BertModel, with its pooler), with attention dropout 0 unless ``keys`` say otherwise."""
    return build({**get_preset("bert-base-uncased").config, "attention_probs_dropout_prob": 0.0, **keys})


def sdpa_step(inv=None, **settings) -> costs.Costs:
    return costs.compute(inv or bert_base(), costs.settings(B, L, attention="sdpa", **settings))


def test_sdpa_flops_of_one_layer_by_hand():
    # torch.utils.flop_counter.sdpa_flop_count(q [B, A, L, d], k [B, A, L, d], v [B, A, L, d]):
    #   QKᵀ: bmm of [B·A, L, d] by [B·A, d, L] = 2·B·A·L·d·L;  PV: [B·A, L, L] by [B·A, L, d] = 2·B·A·L·L·d
    #   = 4·1·12·128²·64 = 50,331,648
    # sdpa_backward_flop_count: the scores again (QKᵀ), dV = Pᵀ·dO, dP = dO·Vᵀ, dQ = dS·K, dK = dSᵀ·Q:
    #   five products of 2·B·A·L·L·d = 10·1·12·128²·64 = 125,829,120
    attention_forward = 2 * B * A * L * D * L + 2 * B * A * L * L * D
    attention_backward = 5 * 2 * B * A * L * L * D
    assert (attention_forward, attention_backward) == (50_331_648, 125_829_120)
    sim, _ = costs.simulate(bert_base(), costs.settings(B, L, attention="sdpa"))
    rows = [r for r in sim.tape if r.op == "_scaled_dot_product_flash_attention_for_cpu"]
    assert [(r.forward, r.backward) for r in rows] == [(attention_forward, attention_backward)] * LAYERS
    # The layer's products: Q, K, V and output projections 4·2·T·H·H, the feed-forward pair 2·2·T·H·I.
    linear = 4 * 2 * T * H * H + 2 * 2 * T * H * I
    assert sum(r.forward for r in sim.tape if r.module.startswith("encoder.layer.0.")) == linear == 1_811_939_328
    # The attention runs between modules (``sdpa_attention_forward`` is a function), as eager's bmm do.
    assert {r.module for r in rows} == {""}


def test_sdpa_step_bert_base_by_hand():
    c = sdpa_step()
    linear = 4 * 2 * T * H * H + 2 * 2 * T * H * I  # per layer, as above
    attention_forward, attention_backward = 4 * B * A * L * L * D, 10 * B * A * L * L * D
    pooler = 2 * B * H * H  # one token per sequence
    # Forward: the same products as eager attention (SDPA multiplies the same matrices).
    assert c.forward == LAYERS * (linear + attention_forward) + pooler == 22_348_431_360
    # Backward: every Linear's input and weight gradients (2× its forward; the embeddings' LayerNorm trains,
    # so even layer 0's input needs one), SDPA's five products, the pooler's two.
    assert c.backward == LAYERS * (2 * linear + attention_backward) + 2 * pooler == 44_998_852_608
    # Eager keeps 4 products' worth in the backward (two bmm, each factor's gradient): SDPA recomputes QKᵀ,
    # one product of 2·B·A·L²·d per layer more.
    eager = costs.compute(bert_base(), costs.settings(B, L))
    assert c.backward - eager.backward == LAYERS * 2 * B * A * L * L * D == 301_989_888
    assert c.forward == eager.forward


def test_sdpa_activations_bert_base_by_hand():
    # Bytes autograd keeps, fp32 (4 bytes), per layer (hidden dropout 0.1: a mask, attention dropout 0):
    #   the layer's input x [T, H] (Q, K, V's Linear keeps it)                      1·T·H
    #   q, k, v [T, H] each (SDPA keeps them: views of the three Linear outputs)     3·T·H
    #   SDPA's output [B, A, L, d] laid out [B, L, A, d]: the output projection reads
    #   it through views, so one storage                                            1·T·H
    #   logsumexp [B, A, L], float32                                                A·L
    #   dropout mask, LayerNorm input, its mean and rstd [T, 1] each                2·T·H + 2·T
    #   intermediate input (the LayerNorm output), GELU input, output dense input   1·T·H + 2·T·I
    #   dropout mask, LayerNorm input, mean and rstd                                2·T·H + 2·T
    per_layer = 4 * (10 * T * H + 2 * T * I + A * L + 4 * T)
    assert per_layer == 7_086_080
    # Embeddings: input_ids and token types [1, L] (int64), the LayerNorm's input and stats, the dropout mask.
    embeddings = 8 * T + 8 * L + 4 * (2 * T * H + 2 * T)
    # Pooler: its Linear keeps the last LayerNorm's output storage (the first token is a view of it), tanh its output.
    pooler = 4 * T * H + 4 * B * H
    c = sdpa_step()
    assert c.activations == LAYERS * per_layer + embeddings + pooler == 86_218_752
    # Eager keeps, per layer, the probabilities [B, A, L, L] and the copies matmul makes of q, k, v, context
    # instead: far more, and growing with L².
    assert costs.compute(bert_base(), costs.settings(B, L)).activations > c.activations


def test_sdpa_with_attention_dropout_is_the_fused_kernel_at_dropout_0_and_says_so():
    # BERT's default attention dropout (0.1): on CPU PyTorch runs SDPA's math path, a GPU's fused kernels apply the
    # dropout inside and keep no mask. The step is the fused kernel's with attention dropout 0 (issue 35, reader H1):
    # every figure equal to the same config's with attention_probs_dropout_prob 0 (the hidden dropout, 0.1, kept).
    published = build(get_preset("bert-base-uncased").config)
    assert published.config["attention_probs_dropout_prob"] == 0.1 and published.config["hidden_dropout_prob"] == 0.1
    got = costs.compute(published, costs.settings(B, L, attention="sdpa"))
    zero = sdpa_step()
    assert (got.forward, got.backward, got.weights, got.gradients, got.optimizer, got.activations, got.peak) == (
        zero.forward, zero.backward, zero.weights, zero.gradients, zero.optimizer, zero.activations, zero.peak)
    assert got.sdpa_dropout == (("attention_probs_dropout_prob", 0.1),) and zero.sdpa_dropout == ()
    # The hidden dropout is not the attention's: without it the layer keeps no dropout masks (2 per layer, [T, H]).
    no_hidden = costs.compute(bert_base(hidden_dropout_prob=0.0), costs.settings(B, L, attention="sdpa"))
    assert zero.activations - no_hidden.activations >= LAYERS * 2 * 4 * T * H
    # Eager attention keeps the dropout: the same config costs more with it than without.
    assert costs.compute(published, costs.settings(B, L)).activations > costs.compute(bert_base(), costs.settings(B, L)).activations
    # The note, both languages: what is measured, what a GPU adds, what CPU would keep.
    for lang in ("en", "zh"):
        notes = cv.step_notes(published, got.settings, lang)
        assert [(n["code"], n["key"], n["value"]) for n in notes] == [("sdpa_dropout_gpu", "attention_probs_dropout_prob", 0.1)]
        message = notes[0]["message"]
        for word in ("0.1", "attention_probs_dropout_prob", "_scaled_dot_product_flash_attention_for_cpu", "rng_state",
                     "Philox", "16", "8", "math", "B × "):
            assert word in message, (lang, word)
        assert (notes[0]["code"], message) in cv.assumptions(published, got.settings, lang)
        assert message in cv.render(got, lang, inv=published) and message in cv.render(got, lang, True, inv=published)
        assert cv.step_notes(bert_base(), zero.settings, lang) == []
        assert cv.step_notes(published, costs.settings(B, L), lang) == []  # eager: the dropout is run, no note
    assert cv.step_notes(published, got.settings, "en")[0]["message"] != cv.step_notes(published, got.settings, "zh")[0]["message"]
    # DistilBERT names its own key: attention_dropout.
    distil = build(get_preset("distilbert-base-uncased").config)
    notes = cv.step_notes(distil, costs.settings(B, L, attention="sdpa"), "zh")
    assert [n["key"] for n in notes] == ["attention_dropout"] and "attention_dropout" in notes[0]["message"]
    assert costs.compute(distil, costs.settings(B, L, attention="sdpa")).sdpa_dropout == (("attention_dropout", 0.1),)


def test_sdpa_refusals_are_coded():
    # DeBERTa-v2 has no SDPA in transformers 5.23.
    deberta = build(get_preset("microsoft/deberta-v3-base").config)
    exc = expect_error("costs_no_sdpa", costs.compute, deberta, costs.settings(B, L, attention="sdpa"))
    assert deberta.architecture in exc.message("en") and deberta.architecture in exc.message("zh")
    # T5's encoder: its relative position bias is SDPA's mask; trained, the mask needs a gradient, which sends
    # PyTorch on CPU to SDPA's math path (cross-checked in tests/crosscheck/test_costs_sdpa_reference.py): the
    # scores' and the context's products as eager runs them, each factor kept (q and kᵀ scaled by 1.0, the
    # float32 probabilities, V), the mask added in place: with attention dropout 0, eager's figures exactly.
    t5 = build({"model_type": "t5"})
    still = build({"model_type": "t5", "dropout_rate": 0.0})
    math, eager = (costs.compute(still, costs.settings(B, L, attention=a)) for a in ("sdpa", "eager"))
    assert (math.forward, math.backward, math.activations) == (eager.forward, eager.backward, eager.activations)
    # T5's one dropout_rate is also SDPA's dropout_p: measured at 0 there (every other dropout as configured), said so
    assert costs.compute(t5, costs.settings(B, L, attention="sdpa")).sdpa_dropout == (("dropout_rate", 0.1),)
    # With LoRA the bias is frozen: CPU's flash kernel with the bias as its mask, a contiguous [1, A, L, L] copy
    # per layer that the kernel keeps (T5Config's defaults, t5-small's sizes).
    from calculator import peft as planner

    small = t5
    lora = planner.lora(small)
    c = costs.compute(small, costs.settings(B, L, attention="sdpa"), lora)
    eager = costs.compute(small, costs.settings(B, L), lora)
    assert c.forward == eager.forward and c.activations < eager.activations
    assert c.sdpa_dropout == (("dropout_rate", 0.1),)  # T5's dropout_rate: measured at 0 in the kernel, said so
    expect_error("costs_attention", costs.settings, B, L, attention="flash")
    # ALBERT's attention dropout is 0 by default: SDPA runs as published.
    assert costs.compute(build(get_preset("albert-base-v2").config), costs.settings(1, 8, attention="sdpa")).forward > 0


def test_sdpa_setting_in_json_cli_and_page():
    c = sdpa_step()
    assert c.to_dict()["attention"] == "sdpa"
    assert costs.compute(bert_base(), costs.settings(B, L)).to_dict()["attention"] == "eager"
    # The peak (cross-checked with SDPA in tests/crosscheck/test_peak_engine.py): here AdamW's step, whose live
    # set (weights, buffers, input_ids, gradients, state, the division's temporaries) no attention changes, so it
    # is eager's figure (tests/unit/test_peak.py works it out by hand): 1,939,253,020 bytes.
    eager = costs.compute(bert_base(), costs.settings(B, L))
    assert c.peak is not None and c.peak.bytes == eager.peak.bytes == 1_939_253_020
    assert c.to_dict()["peak_at"]["phase"] == "optimizer"
    # At B = 16, L = 512 the activations make it: the backward's peak, worked out op by op with SDPA's own node
    # (LiveSim.sdpa: what the flash kernel saves, the three gradients its backward returns). PyTorch's LiveBytes
    # measures the same 6,042,919,944 bytes, phase and op (tests/crosscheck/test_peak_engine.py, FULL_SIZE_SDPA).
    long = costs.compute(bert_base(), costs.settings(16, 512, attention="sdpa")).peak
    assert (long.bytes, long.phase, long.op) == (6_042_919_944, "backward", "aten.sum")
    # Eager keeps the L × L probabilities, so its backward peaks higher.
    assert costs.compute(bert_base(), costs.settings(16, 512)).peak.lower > long.bytes
    # The page: the menu's key in the answer's link, and the sentence that says which attention ran.
    raw = {**get_preset("bert-base-uncased").config, "attention_probs_dropout_prob": 0.0}
    answer = cv.page_answer(bert_base(), None, {"batch": "1", "seq_len": "128", "attention": "sdpa"}, "en", raw=raw)
    assert answer["query"]["attention"] == "sdpa" and answer["costs"]["attention"] == "sdpa"
    assert "--attention sdpa" in answer["command"]
    keys = [a["key"] for a in answer["assumptions"]]
    assert "attention_sdpa_run" in keys
    eager = cv.page_answer(bert_base(), None, {"batch": "1", "seq_len": "128"}, "zh", raw=raw)
    assert "attention" not in eager["query"] and "--attention" not in eager["command"]
    # Through the worker's protocol: attention dropout 0.1 answered, the note among the assumptions and in the copy.
    request = {"params": {"preset": "bert-base-uncased"}, "costs": {"batch": "1", "seq_len": "8", "attention": "sdpa"}}
    c = json.loads(api.compute_json(json.dumps(request), "zh"))["costs"]
    assert c["ok"] and 'data-assumption="sdpa_dropout_gpu"' in c["html"], c
    assert cv.LABELS["sdpa_dropout_gpu"]["zh"].split("{value}")[0] in c["markdown"]
    request["params"]["attention_probs_dropout_prob"] = "0"
    c = json.loads(api.compute_json(json.dumps(request), "zh"))["costs"]
    assert c["ok"] and c["query"]["attention"] == "sdpa" and c["costs"]["attention"] == "sdpa", c
    assert "sdpa_dropout_gpu" not in c["html"]


def test_cli_attention_option():
    from .test_costs import run_cli

    code, out, err = run_cli("--preset", "albert-base-v2", "--batch", "1", "--seq-len", "8", "--attention", "sdpa",
                             "--format", "json")
    assert code == 0 and err == "" and json.loads(out)["costs"]["attention"] == "sdpa"
    # BERT's attention dropout 0.1 with SDPA: answered, the note in JSON's notes (coded) and in the text.
    for lang in ("en", "zh"):
        code, out, err = run_cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "8", "--attention",
                                 "sdpa", "--format", "json", "--lang", lang)
        notes = json.loads(out)["notes"]
        assert code == 0 and [(n["code"], n["key"], n["value"]) for n in notes] == [
            ("sdpa_dropout_gpu", "attention_probs_dropout_prob", 0.1)], out
        code, text, err = run_cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "8", "--attention",
                                  "sdpa", "--lang", lang)
        assert code == 0 and notes[0]["message"] in text
    for args, name in ((("--attention", "flash"), "costs_attention"),):
        messages = []
        for lang in ("en", "zh"):
            code, out, err = run_cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "8", *args,
                                     "--lang", lang)
            assert code == 2 and out == "" and err.startswith(f"error: {name}: "), (args, err)
            messages.append(err)
        assert messages[0] != messages[1], args
    code, out, err = run_cli("--preset", "microsoft/deberta-v3-base", "--batch", "1", "--seq-len", "8",
                             "--attention", "sdpa", "--format", "json", "--lang", "zh")
    assert code == 2 and json.loads(out)["error"]["code"] == "costs_no_sdpa"


def test_the_panel_says_what_sdpa_keeps():
    from calculator.page import costs as panel

    for lang in ("en", "zh"):
        request = {"params": {"preset": "albert-base-v2"}, "costs": {"batch": "1", "seq_len": "8", "attention": "sdpa"}}
        c = json.loads(api.compute_json(json.dumps(request), lang))["costs"]
        assert c["ok"] and panel.LABELS["series_note_sdpa"][lang] in c["html"]
        assert 'data-assumption="attention_sdpa_run"' in c["html"]
        request["costs"]["attention"] = "eager"
        c = json.loads(api.compute_json(json.dumps(request), lang))["costs"]
        assert panel.LABELS["series_note_sdpa"][lang] not in c["html"] and "attention_sdpa_run" not in c["html"]
        request["costs"].pop("attention")  # the default: SDPA, as transformers 5.23 builds AlbertModel
        c = json.loads(api.compute_json(json.dumps(request), lang))["costs"]
        assert panel.LABELS["series_note_sdpa"][lang] in c["html"] and 'data-assumption="attention_sdpa_run"' in c["html"]
        assert "attention" not in c["query"]


def test_ultrabert_sliding_layers_keep_their_mask_under_sdpa():
    # UltraBERT (layers 0 and 1 sliding-window, layer 2 full, by UltrabertConfig's default layer_types). With SDPA,
    # from L = sliding_window on transformers passes a [B, 1, L, L] boolean mask to each sliding layer, which
    # scaled_dot_product_attention turns into a new float mask in the query's dtype, kept by the kernel: at B = 2,
    # L = 9, two layers × 2·1·9·9 × 4 bytes = 1,296 more than with a window past L (no mask: the flash kernel
    # alone). PyTorch measures the same 1,296 (tests/crosscheck/test_costs_sdpa_reference.py draws UltraBERT).
    raw = {"model_type": "ultrabert", "vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 3,
           "num_attention_heads": 2, "intermediate_size": 24}
    s = costs.settings(2, 9, attention="sdpa")
    masked = costs.compute(build({**raw, "sliding_window": 9}, "UltrabertModel"), s)
    open_window = costs.compute(build({**raw, "sliding_window": 10}, "UltrabertModel"), s)
    assert masked.activations - open_window.activations == 2 * (2 * 1 * 9 * 9 * 4) == 1296
    assert (masked.forward, masked.backward) == (open_window.forward, open_window.backward)
    # Eager attention adds the mask to the scores, which keeps nothing: the window changes no figure.
    eager = [costs.compute(build({**raw, "sliding_window": w}, "UltrabertModel"), costs.settings(2, 9)) for w in (9, 10)]
    assert eager[0].activations == eager[1].activations
