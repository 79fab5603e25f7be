"""Mixed precision (issue 32): the step with fp32 weights and the forward under ``torch.autocast`` bf16.

One case worked out by hand, storage by storage (a one-layer BERT at B = 1, L = 8), from CPU autocast's rules
(aten/src/ATen/autocast_mode.cpp) and derivatives.yaml; PyTorch's own figures for random configs are the
cross-check's (tests/crosscheck/test_costs_autocast.py). Plus the settings' checks and refusals.
"""
from __future__ import annotations

from calculator import costs
from calculator.build import build

from .helpers import expect_error, patched

#: H = 16, two heads of 8, I = 32, V = 50, one layer, BERT's defaults otherwise (dropout 0.1, GELU, pooler).
TINY = {"model_type": "bert", "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
        "intermediate_size": 32, "vocab_size": 50}


def tiny_step(autocast: str | None = "bf16") -> costs.Costs:
    inv = build(dict(TINY), "BertModel")
    return costs.compute(inv, costs.settings(1, 8, "fp32", "adamw", False, autocast=autocast))


def test_a_bert_layer_under_autocast_keeps_bf16_copies_by_hand() -> None:
    """B = 1, L = 8, H = 16: fp32 is 4 bytes, bf16 2. The embeddings run in float32 (embedding and layer_norm are
    on no autocast list); every Linear reads a fresh bf16 copy of a float32 input (not of a bf16 one) and a bf16
    copy of its weight, and keeps both (the weight's for the input's gradient: it is not the parameter's
    storage); the attention runs in bf16 on the projections' outputs; the residual add promotes bf16 + fp32 to
    fp32, so each LayerNorm keeps a float32 input; LayerNorm keeps float32 mean and 1/std."""
    f32, b16 = 4, 2
    tokens, h, inner, heads = 8, 16, 32, 2
    embeddings = (
        tokens * 8  # input_ids, int64, kept by the word embedding
        + tokens * 8  # token_type_ids gathered from the buffer (B = 1 reads a fresh int64 copy), kept by its embedding
        + tokens * h * f32 + 2 * tokens * f32  # LayerNorm: float32 input, mean and 1/std
        + tokens * h * f32  # dropout's float32 mask
    )
    assert embeddings == 1216
    linear_hh = tokens * h * b16 + h * h * b16  # bf16 copy of the input [8, 16], bf16 copy of the weight [16, 16]
    layer = (
        3 * linear_hh  # query, key, value: each casts the same float32 input afresh (activations are never cached)
        + 2 * tokens * h * b16  # QKᵀ: keeps Q's and K's storages (the projections' bf16 outputs)
        + 2 * heads * tokens * tokens * b16  # softmax keeps its bf16 output; dropout its bf16 mask
        + 2 * tokens * h * b16  # PV: keeps the dropped-out probabilities and V's storage
        + tokens * h * b16 + h * h * b16  # attention.output.dense: the contiguous bf16 context (no cast), weight copy
        + tokens * h * b16  # hidden dropout's bf16 mask
        + tokens * h * f32 + 2 * tokens * f32  # LayerNorm on bf16 + fp32 = fp32
        + tokens * h * b16 + inner * h * b16  # intermediate.dense: bf16 copy of the input, weight copy [32, 16]
        + tokens * inner * b16  # GELU keeps its bf16 input
        + tokens * inner * b16 + h * inner * b16  # output.dense: the GELU output as is, weight copy [16, 32]
        + tokens * h * b16  # dropout's bf16 mask
        + tokens * h * f32 + 2 * tokens * f32  # LayerNorm, float32 again
    )
    assert layer == 9600
    pooler = h * b16 + h * h * b16 + h * b16  # first token cast to bf16 [1, 16], weight copy, tanh's bf16 output
    assert pooler == 576
    got = tiny_step()
    assert got.activations == embeddings + layer + pooler == 11392  # PyTorch measures 11,392 too


def test_autocast_changes_no_flop_and_no_parameter_byte() -> None:
    """FlopCounterMode counts per product whatever the dtype; the weights, their gradients and AdamW's moments
    stay float32 (4 bytes a number), as in the fp32 step."""
    mixed, full = tiny_step(), tiny_step(None)
    assert (mixed.forward, mixed.backward) == (full.forward, full.backward)
    assert (mixed.weights, mixed.gradients, mixed.optimizer) == (full.weights, full.gradients, full.optimizer)
    params = (50 * 16 + 512 * 16 + 2 * 16 + 2 * 16  # word, position, type tables; LayerNorm
              + 4 * (16 * 16 + 16) + 2 * 2 * 16 + 32 * 16 + 32 + 16 * 32 + 16  # the layer
              + 16 * 16 + 16)  # pooler
    assert mixed.weights == 4 * params
    assert mixed.settings.to_dict()["mixed_precision"] == "bf16"
    assert full.settings.to_dict()["mixed_precision"] is None


def test_the_peak_under_autocast_only_where_replayed() -> None:
    """BERT's program models autocast's copies op by op (``sim.exact_autocast()``): its peak is given, and never
    below the optimizer step's floor (weights, gradients, AdamW's state, all float32). A program that does not (every
    family's does now where it replays the step, ModernBERT's one-wide heads too since: declared away here) gets no
    figure under autocast, with a note naming the setting (no bound is proven there)."""
    from calculator.costs.lifetime import LiveSim

    got = tiny_step()
    assert got.peak is not None and got.peak.bytes is not None
    assert got.peak.bytes > got.weights + got.gradients + got.optimizer
    inv = build({"model_type": "modernbert", "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 16,
                 "intermediate_size": 32, "vocab_size": 50, "pad_token_id": 0}, "ModernBertModel")
    s = costs.settings(1, 8, "fp32", "adamw", False, autocast="bf16")
    assert costs.compute(inv, s).peak.bytes is not None
    with patched(LiveSim, "exact_autocast", lambda self: None):
        peak = costs.compute(inv, s).peak
    assert peak is not None and peak.bytes is None and peak.reason == "autocast"


def test_settings_are_checked() -> None:
    assert costs.settings(1, 8, "fp32", "adamw", False, autocast="bf16").autocast == "bf16"
    for off in (None, "", "off"):
        assert costs.settings(1, 8, "fp32", "adamw", False, autocast=off).autocast is None
    expect_error("costs_autocast_dtype", costs.settings, 1, 8, "bf16", "adamw", False, autocast="bf16")
    expect_error("costs_mixed_precision", costs.settings, 1, 8, "fp32", "adamw", False, autocast="fp16")


def test_a_family_not_checked_under_autocast_is_refused() -> None:
    """A family whose step is not matched under autocast (``CostModel.autocast`` False) is refused, never costed as
    fp32. Every family's step is matched now (or refused in its own words where PyTorch raises), so BERT's cost model
    is declared unmatched here."""
    from dataclasses import replace

    from calculator.costs import step

    real = step.cost_model
    inv = build({"model_type": "bert"}, "BertModel")
    with patched(step, "cost_model", lambda inv: replace(real(inv), autocast=False)):
        exc = expect_error("costs_autocast_family", costs.compute, inv,
                           costs.settings(1, 8, "fp32", "adamw", False, autocast="bf16"))
    assert "bert" in exc.message("en")


def test_sdpa_under_autocast_by_hand() -> None:
    """``--attention sdpa --mixed-precision bf16`` on the tiny BERT (B = 1, L = 8, H = 16, 2 heads): as the eager
    layer above, but CPU's autocast lists ``scaled_dot_product_attention`` as a lower-precision operation, so the
    flash kernel runs on the projections' bf16 outputs as they are (no copy) and keeps q, k, v, its bf16 output and
    a float32 logsumexp [B, heads, L] instead of the probabilities, the dropout mask and QKᵀ's operands. The
    attention dropout (BERT's default, 0.1) is measured at 0 (a GPU's fused kernel keeps no mask) and said so.
    PyTorch measures 10,688 bytes too (tests/crosscheck/test_costs_sdpa_reference.py draws such steps)."""
    f32, b16 = 4, 2
    tokens, h, inner, heads = 8, 16, 32, 2
    embeddings = tokens * 8 + tokens * 8 + tokens * h * f32 + 2 * tokens * f32 + tokens * h * f32  # as above: 1216
    linear_hh = tokens * h * b16 + h * h * b16
    layer = (
        3 * linear_hh  # query, key, value: a bf16 copy of the float32 input each, and of each weight
        + 3 * tokens * h * b16  # the kernel keeps q, k, v: the projections' bf16 outputs (views of them)
        + tokens * h * b16 + heads * tokens * f32  # its bf16 output [B, L, heads, d] and float32 logsumexp
        + h * h * b16  # attention.output.dense reads that output as is (B = 1: no copy) and a weight copy
        + tokens * h * b16  # hidden dropout's bf16 mask
        + tokens * h * f32 + 2 * tokens * f32  # LayerNorm, float32
        + tokens * h * b16 + inner * h * b16  # intermediate.dense
        + tokens * inner * b16  # GELU's bf16 input
        + tokens * inner * b16 + h * inner * b16  # output.dense
        + tokens * h * b16  # dropout's bf16 mask
        + tokens * h * f32 + 2 * tokens * f32  # LayerNorm
    )
    assert layer == 8896
    pooler = h * b16 + h * h * b16 + h * b16
    inv = build(dict(TINY), "BertModel")
    got = costs.compute(inv, costs.settings(1, 8, "fp32", "adamw", False, attention="sdpa", autocast="bf16"))
    assert got.activations == embeddings + layer + pooler == 10688
    assert got.sdpa_dropout == (("attention_probs_dropout_prob", 0.1),)
    # FLOPs: SDPA's (its backward recomputes QKᵀ), unchanged by autocast.
    assert (got.forward, got.backward) == (
        lambda s: (s.forward, s.backward))(costs.compute(inv, costs.settings(1, 8, attention="sdpa")))
    assert got.peak is not None and got.peak.bytes is not None  # replayed op by op (BERT's program, SDPA too)


def test_the_page_keeps_mixed_precision_in_its_link_and_command() -> None:
    """The panel's ``mixed_precision`` key: in the share link's query, the CLI command and the figures' JSON, and
    the assumption the copied Markdown states, in both languages."""
    from calculator.views import costs as cv

    inv = build(dict(TINY), "BertModel")
    for lang, words in (("en", "autocast bf16, fp32 weights"), ("zh", "autocast bf16，fp32 权重")):
        answer = cv.page_answer(inv, None, {"batch": "1", "seq_len": "8", "mixed_precision": "bf16"}, lang)
        assert answer["query"] == {"batch": "1", "seq_len": "8", "mixed_precision": "bf16"}
        assert "--mixed-precision bf16" in answer["command"]
        assert answer["costs"]["mixed_precision"] == "bf16"
        assert answer["costs"]["memory"]["peak"] == tiny_step().peak.bytes  # the engine's figure, as the CLI's
        assert words in answer["markdown"], lang
    off = cv.page_answer(inv, None, {"batch": "1", "seq_len": "8"}, "en")
    assert "mixed_precision" not in off["query"] and "--mixed-precision" not in off["command"]
    expect_error("costs_autocast_dtype", cv.page_settings, {"dtype": "bf16", "mixed_precision": "bf16"})
