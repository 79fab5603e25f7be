"""The forward replayed exactly (calculator/costs/lifetime.py) and the inference span (calculator/costs/inference.py),
worked out by hand for bert-base (H = 768, I = 3072, A = 12 heads, 12 layers, V = 30522, P = 512, T = 2).

The live set is read off transformers 5.23's modeling_bert.py: a tensor lives until Python drops its last name.
``BertModel.forward`` holds ``embedding_output`` until it returns; ``BertEncoder`` rebinds ``hidden_states`` after each
layer; ``BertLayer`` holds the attention's probabilities (``self_attention_output, _ = self.attention(...)``) and
``attention_output`` until it returns; ``eager_attention_forward`` makes ``matmul(q, kᵀ) * scaling`` (the product a
temporary), rebinds ``attn_weights`` at the softmax and the dropout (identity in eval), and ``matmul``'s reshapes copy
q and kᵀ (and v) for ``bmm``, dropped when it returns; ``BertSelfOutput``/``BertOutput`` rebind ``hidden_states`` at
the dropout and the LayerNorm (whose mean and 1/std [B, L, 1] are made with it and dropped at once). The
cross-check measures both figures in PyTorch (tests/crosscheck/test_inference_engine.py::
test_bert_base_inference_figure: 478,839,808 bytes at ``aten.gelu``) and random configs of every family.
"""
from __future__ import annotations

import json

from calculator import costs, peft
from calculator.build import build
from calculator.costs.lifetime import LiveSim
from calculator.presets import get_preset

from .helpers import patched

F32, INT64 = 4, 8
V, H, I, A, P, T, LAYERS = 30522, 768, 3072, 12, 512, 2, 12
B, N = 8, 128


def moments() -> dict[str, int]:
    """Numbers live inside a layer i >= 1 beyond what it holds from outside (the embeddings' output, BertModel's
    name, and the layer's input, the encoder's), at each allocation that could be the largest (B = 8, L = 128)."""
    blh, bli, scores, rows = B * N * H, B * N * I, B * A * N * N, B * N
    return {
        "matmul(q, kT): q, k, v, the copies of q and kT, the product": 5 * blh + scores,
        "* scaling: q, k, v, the product, the scores": 3 * blh + 2 * scores,
        "softmax: q, k, v, the scores, the probabilities": 3 * blh + 2 * scores,
        "matmul(p, v): q, k, v, p, the copy of v, the product": 5 * blh + scores,
        "contiguous: q, k, v, p, the product, the context": 5 * blh + scores,
        "BertSelfOutput's LayerNorm: p, context, dense, sum, output, mean, 1/std": scores + 4 * blh + 2 * rows,
        "intermediate gelu: p, attention_output, dense [B, L, I], gelu": scores + blh + 2 * bli,
        "BertOutput's LayerNorm: p, attention_output, gelu, dense, sum, output, mean, 1/std": scores + bli + 4 * blh + 2 * rows,
    }


def start_bytes(params: int) -> int:
    return params * F32 + 2 * P * INT64 + B * N * INT64  # weights, position_ids and token_type_ids, input_ids


def test_bert_base_inference_peak_by_hand() -> None:
    """B = 8, L = 128, fp32, eager: the largest moment is the intermediate GELU of layer 1 (layer 0 holds one
    [B, L, H] less: its input is the embeddings' output itself)."""
    params = 109_482_240
    found = moments()
    at = max(found, key=lambda k: found[k])
    assert at.startswith("intermediate gelu")
    acts = (2 * B * N * H + found[at]) * F32  # the embeddings' output, layer 0's output, the moment
    assert acts == 40_894_464
    expected = start_bytes(params) + acts
    assert expected == 478_839_808
    inv = build(get_preset("bert-base-uncased").config)
    c = costs.compute_inference(inv, costs.settings(B, N))
    p = c.peak
    assert (p.bytes, p.phase, p.op, p.module) == (expected, "forward", "aten.gelu", "encoder.layer.1.intermediate: gelu")
    assert p.by_kind == {"weights": params * F32, "buffer": 2 * P * INT64, "input_ids": B * N * INT64, "activation": acts}
    # The forward's FLOPs: per layer the four projections, the two products of attention, the feed-forward;
    # the pooler on [B, H].
    per_layer = 2 * B * N * (4 * H * H + 2 * H * I) + 2 * (2 * B * A * N * N * (H // A))
    assert c.forward == LAYERS * per_layer + 2 * B * H * H == 178_787_450_880
    assert c.weights == params * F32


def test_frozen_backbone_step_peaks_in_the_forward_by_hand() -> None:
    """BertForSequenceClassification with the embeddings and all 12 layers frozen (the pooler and the classifier
    train), B = 8, L = 128, AdamW: nothing in the backbone needs a gradient, so nothing there is saved and its
    forward runs as in inference, but for dropout (training mode: its noise made and dropped at once, its output
    rebinding the name). Layer 1's GELU holds the same tensors as in inference, the largest moment of the step:
    the backward and the optimizer step touch only the pooler and the classifier."""
    inv = build(get_preset("bert-base-uncased").config, "BertForSequenceClassification", None)
    plan = peft.freeze(inv, embeddings=True, layers=LAYERS)
    params = 109_482_240 + H * 2 + 2  # the classifier [2, H] and its bias
    acts = (2 * B * N * H + moments()["intermediate gelu: p, attention_output, dense [B, L, I], gelu"]) * F32
    expected = start_bytes(params) + acts
    assert expected == 478_845_960
    p = costs.compute(inv, costs.settings(B, N), plan).peak
    assert (p.bytes, p.phase, p.op, p.module) == (expected, "forward", "aten.gelu",
                                                   "bert.encoder.layer.1.intermediate: gelu")
    # What the optimizer step holds is far less: the weights, the pooler's and the classifier's gradients and
    # AdamW's state for them, plus what autograd saved.
    assert p.bound == expected and p.lower == p.upper == expected


def _cli(*argv: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from calculator import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_cli_inference_json_text_and_refusals() -> None:
    code, out, err = _cli("--preset", "bert-base-uncased", "--inference", "--batch", "8", "--seq-len", "128",
                          "--gpu-gb", "1", "--attention", "eager", "--format", "json")  # eager: worked out for it
    assert code == 0 and err == ""
    c = json.loads(out)["costs"]
    assert c["mode"] == "inference" and (c["batch"], c["seq_len"], c["dtype"], c["attention"]) == (8, 128, "fp32", "eager")
    assert c["flops"] == {"forward": 178_787_450_880}
    assert c["memory"] == {"weights": 437_928_960, "peak": 478_839_808}
    assert c["peak_at"]["phase"] == "forward" and c["peak_at"]["op"] == "aten.gelu" and c["fits"] == "fits"
    assert "peak_note" not in c and "optimizer" not in c and "backward" not in c["flops"]
    for lang, words in (("en", ("Inference (model.eval()", "Peak of live memory: 456.7 MiB (478,839,808 bytes)")),
                        ("zh", ("推理（model.eval()", "显存峰值（同时存活的张量）：456.7 MiB（478,839,808 字节）"))):
        for fmt in ("text", "markdown"):
            code, out, _ = _cli("--preset", "bert-base-uncased", "--inference", "--batch", "8", "--seq-len", "128",
                                "--attention", "eager", "--lang", lang, "--format", fmt)
            assert code == 0 and all(w in out for w in words), (lang, fmt, out[-600:])
    # A training option beside --inference is refused, coded, in both languages.
    for extra in (("--optimizer", "sgd"), ("--grad-checkpointing",), ("--lora-r", "8"), ("--freeze-embeddings",),
                  ("--fit-gib", "8")):
        code, out, _ = _cli("--preset", "bert-base-uncased", "--inference", "--batch", "1", "--seq-len", "8",
                            *extra, "--format", "json")
        error = json.loads(out)["error"]
        assert code == 2 and error["code"] == "costs_inference_option" and extra[0] in error["message"], extra
    code, _, err = _cli("--preset", "bert-base-uncased", "--inference", "--batch", "1", "--seq-len", "8",
                        "--optimizer", "sgd", "--lang", "zh")
    assert code == 2 and "是训练步的选项" in err


def test_inference_without_an_exact_forward_gives_bounds() -> None:
    """A program that does not declare its forward's releases (declared away here: every family's inference span is
    replayed since; this is EuroBERT's one-wide heads, the last configs that were not, LiveSim.rotate_one_wide): no
    figure, the proven bounds (the start and the outputs below; the start, every
    storage and three of the largest above), the FLOPs all the same. Reformer's LSH and local attention, BigBird's block-sparse attention and DeBERTa's
    talking heads, this test's examples before, are replayed now (the BigBird
    preset at L 1,024: 702,440,280 bytes, LiveBytes' peak on fake tensors, ``peak_measure.measure_peak(...,
    fake=True)``, at ``aten.add``: the sliding diagonal's indices, every local of the kernel and the assembled
    probabilities live); its question answering's too (718,996,328 bytes, measured the same way: the lengths, the
    logits mask and the token types made from the ids first)."""
    one_wide = build(dict(get_preset("EuroBERT/EuroBERT-210m").config, hidden_size=12))  # 12 heads of 1
    assert costs.compute_inference(one_wide, costs.settings(1, 16)).peak.bytes is not None
    with patched(LiveSim, "exact_forward", lambda self: None):
        c = costs.compute_inference(one_wide, costs.settings(1, 16))
    d = c.to_dict()
    assert d["memory"]["peak"] is None and d["peak_at"] is None and d["flops"]["forward"] > 0
    note = d["peak_note"]
    assert note["code"] == "peak_not_modelled" and note["lower"] < note["upper"]
    assert note["lower"] > c.weights and note["reason"] == "forward"
    assert c.peak.bytes is None and c.peak.reason == "forward" and 0 < c.peak.lower < c.peak.upper
    bird = costs.compute_inference(build(get_preset("google/bigbird-roberta-base").config), costs.settings(1, 1024))
    assert (bird.peak.bytes, bird.peak.phase, bird.peak.op) == (702_440_280, "forward", "aten.add")
    talking = build(dict(get_preset("microsoft/deberta-base").config, talking_head=True))
    assert costs.compute_inference(talking, costs.settings(1, 8)).peak.bytes is not None
    qa = build(get_preset("google/bigbird-roberta-base").config, "BigBirdForQuestionAnswering")
    qa_peak = costs.compute_inference(qa, costs.settings(1, 1024)).peak  # block-sparse, its inputs made from the ids
    assert (qa_peak.bytes, qa_peak.phase, qa_peak.op) == (718_996_328, "forward", "aten.add")
    full = costs.compute_inference(build(get_preset("google/bigbird-roberta-base").config), costs.settings(1, 8))
    assert full.peak.bytes is not None  # original_full at L 8: replayed tensor by tensor
