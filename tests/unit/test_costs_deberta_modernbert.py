"""Training-step costs of DeBERTa, DeBERTa-v2/v3 and ModernBERT against hand arithmetic, and their refusals.

FLOPs are FlopCounterMode's: 2 per multiply-add, matmul-family operations only. The cross-check
(tests/crosscheck/test_costs_reference.py) measures every figure in PyTorch on random small configs.
"""
from __future__ import annotations

from calculator import costs, peft
from calculator.build import build
from calculator.presets import get_preset

from .helpers import expect_error


def step(inv, b=1, n=128, dtype="fp32", optimizer="adamw", checkpointing=False, plan=None) -> costs.Costs:
    return costs.compute(inv, costs.settings(b, n, dtype, optimizer, checkpointing), plan)


def test_deberta_v3_base_forward_by_hand():
    # microsoft/deberta-v3-base, B = 1, L = 128: H = 768, I = 3072, 12 layers of 12 heads; 256 position buckets,
    # so the relative table has 512 rows; share_att_key: the layer's own query_proj and key_proj project it.
    h, i, rows, n = 768, 3072, 512, 128
    per_layer = (
        4 * 2 * n * h * h  # query_proj, key_proj, value_proj, attention.output.dense: 603,979,776
        + 2 * 2 * n * h * i  # the feed-forward pair: 1,207,959,552
        + 4 * n * n * h  # Q·Kᵀ and probabilities·V: 50,331,648
        + 2 * 2 * rows * h * h  # the 512 relative rows through query_proj and key_proj: 1,207,959,552
        + 2 * 2 * n * h * rows  # c2p (Q against the position keys) and p2c (K against the position queries)
    )
    assert per_layer == 3_271_557_120
    c = step(build(get_preset("microsoft/deberta-v3-base").config))
    assert c.forward == 12 * per_layer == 39_258_685_440  # embeddings are lookups: E = H, no embed_proj
    # Everything trains, every matmul has a gradient for both operands: the backward is twice the forward.
    assert c.backward == 2 * c.forward


def test_deberta_base_forward_by_hand():
    # microsoft/deberta-base, B = 2, L = 64: fused in_proj (3H), pos_proj and pos_q_proj on 2·min(L, 512) = 128
    # relative rows, c2p and p2c against them, per batch row (the projections are expanded over B).
    h, i, n, b, span = 768, 3072, 64, 2, 64
    per_layer = (
        2 * b * n * h * 3 * h + 2 * b * n * h * h + 2 * 2 * b * n * h * i  # in_proj, output dense, FFN
        + 4 * b * n * n * h  # Q·Kᵀ and probabilities·V
        + 2 * 2 * (2 * span) * h * h  # pos_proj and pos_q_proj on the 128 rows
        + 2 * 2 * b * n * h * (2 * span)  # c2p and p2c
    )
    c = step(build(get_preset("microsoft/deberta-base").config), b=b, n=n)
    assert c.forward == 12 * per_layer


def test_modernbert_base_forward_by_hand():
    # answerdotai/ModernBERT-base as ModernBertForMaskedLM, B = 1, L = 128: H = 768, I = 1152 (Wi is 2I wide),
    # 22 layers, V = 50,368. Sliding-window layers cost the same as global ones in eager attention: the window
    # is a mask added to the full L × L scores.
    h, i, n, v = 768, 1152, 128, 50368
    per_layer = 2 * n * h * 3 * h + 2 * n * h * h + 2 * n * h * 2 * i + 2 * n * i * h + 4 * n * n * h
    assert per_layer == 1_333_788_672
    head = 2 * n * h * h + 2 * n * h * v  # head.dense, then the decoder onto the vocabulary
    inv = build(get_preset("answerdotai/ModernBERT-base").config, "ModernBertForMaskedLM")
    c = step(inv)
    assert c.forward == 22 * per_layer + head == 39_397_097_472
    assert c.backward == 2 * c.forward
    # Rotary positions: no table, so any length runs (no costs_seq_too_long).
    assert step(inv, n=9000).forward > c.forward


def test_deberta_v3_checkpointing_with_trained_relative_norm_is_refused():
    # The relative table's LayerNorm runs once before the layers; reentrant checkpointing backpropagates
    # through it once per layer, and the second time PyTorch raises. LoRA (which freezes it) runs.
    inv = build(get_preset("microsoft/deberta-v3-base").config)
    exc = expect_error("costs_checkpointing_fails", step, inv, checkpointing="reentrant")
    assert "encoder.LayerNorm" in exc.message("en") and "encoder.LayerNorm" in exc.message("zh")
    # Issue 35, reader H3: it fails only with use_reentrant=True; transformers 5.23's default trains it, and
    # the refusal says so and names the choice that trains it, instead of advising to turn checkpointing off or
    # freeze as the fix.
    for lang, default, choose in (("en", "use_reentrant=False", "ckpt=1"), ("zh", "use_reentrant=False", "ckpt=1")):
        message = exc.message(lang)
        assert "use_reentrant=True" in message and default in message and choose in message, message
        assert "Turn checkpointing off" not in message and "请关闭梯度检查点" not in message and "freeze" not in message
    # Non-reentrant (the default, checkpointing=True) trains it: no refusal, every layer recomputed (test_costs_reference
    # proves the figures against PyTorch with use_reentrant=False, DeBERTa-v2 included).
    assert step(inv, checkpointing=True).settings.checkpointing_mode == "non-reentrant"
    assert step(inv, checkpointing=True).backward > step(inv).backward
    plan = peft.lora(inv, 8, ["query_proj", "value_proj"])
    c = step(inv, checkpointing="reentrant", plan=plan)
    assert c.backward > 0 and c.activations < step(inv, plan=plan).activations


def test_configs_transformers_cannot_run_are_refused():
    v3 = dict(get_preset("microsoft/deberta-v3-base").config, num_hidden_layers=2, hidden_size=64,
              num_attention_heads=2, intermediate_size=32, vocab_size=100)
    expect_error("costs_forward_fails", step, build(dict(v3, num_hidden_layers=0)))
    expect_error("costs_forward_fails", step, build(dict(v3, conv_kernel_size=2)))
    expect_error("costs_forward_fails", step, build(dict(v3, position_buckets=1)))
    expect_error("costs_forward_fails", step, build(dict(v3, attention_head_size=8)))
    expect_error("costs_forward_fails", step, build(dict(v3, pooler_hidden_size=32),
                                                     "DebertaV2ForSequenceClassification"))
    expect_error("costs_forward_fails", step, build(dict(v3, embedding_size=32, legacy=False), "DebertaV2ForMaskedLM"))
    # An odd kernel runs (the convolution keeps the length); so does DeBERTa v1 with no layers.
    assert step(build(dict(v3, conv_kernel_size=3)), n=16).forward > step(build(v3), n=16).forward
    empty = step(build({"model_type": "deberta", "num_hidden_layers": 0, "vocab_size": 50}), n=8)
    assert empty.forward == 0 and empty.activations > 0  # lookups and a LayerNorm: no matmul
    mb = {"model_type": "modernbert", "vocab_size": 100, "pad_token_id": 0, "hidden_size": 6,
          "num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": 8}
    expect_error("costs_forward_fails", step, build(mb))  # head size 3: the rotary tables are 4 wide
    assert step(build(dict(mb, hidden_size=8))).forward > 0


def test_deberta_multiple_choice_is_refused():
    inv = build(get_preset("microsoft/deberta-v3-base").config, "DebertaV2ForMultipleChoice")
    expect_error("costs_architecture", step, inv)


def test_modernbert_base_activations_by_hand():
    # ModernBertModel (ModernBERT-base's shapes), B = 2, L = 128, float32, everything trains: T = 256 tokens,
    # H = 768, I = 1152, 12 heads of 64, 22 layers (global attention every 3rd: both kinds of layer present).
    b, n, h, i, heads, d, layers = 2, 128, 768, 1152, 12, 64, 22
    t = b * n
    embeddings = t * 8 + t * h * 4 + 2 * t * 4  # input_ids; the norm's input, mean and 1/std
    per_layer = (
        t * h * 4  # Wqkv's input (the normed stream)
        + 2 * t * h * 4  # rotated Q and K, kept by Q·Kᵀ
        + b * heads * n * n * 4  # softmax's float32 output, kept by itself and by probabilities·V
        + t * h * 4  # V copied to [B·A, L, D] by matmul
        + t * h * 4  # the context, made contiguous, kept by Wo
        + t * h * 4 + 2 * t * 4  # mlp_norm: input, mean, 1/std
        + t * h * 4  # Wi's input
        + t * 2 * i * 4  # Wi's output, kept by GELU (whose input is its first half) and as the gate
        + 2 * t * i * 4  # GELU's output (kept by the product) and the product (kept by Wo)
    )
    attention_norms = (layers - 1) * (t * h * 4 + 2 * t * 4)  # layer 0 has none
    final_norm = t * h * 4 + 2 * t * 4
    rotary = 2 * 2 * n * d * 4  # cos and sin, [1, L, D], once per kind of layer
    config = {**get_preset("answerdotai/ModernBERT-base").config}
    c = step(build(config, "ModernBertModel"), b=b, n=n)
    assert c.activations == embeddings + layers * per_layer + attention_norms + final_norm + rotary
