"""Training-step costs of MobileBERT, SqueezeBERT, ConvBERT and Funnel against hand arithmetic.

The expected numbers are worked out in the comments from each published architecture
alone; the cross-check (tests/crosscheck/test_costs_reference.py) measures the same
figures in PyTorch on random small configs.
"""
from __future__ import annotations

from calculator import costs
from calculator.build import build
from calculator.presets import get_preset

from .helpers import expect_error


def step(raw, architecture=None, b=1, n=128, checkpointing=False) -> costs.Costs:
    return costs.compute(build(raw, architecture), costs.settings(b, n, "fp32", "adamw", checkpointing))


def test_mobilebert_forward_flops_by_hand():
    # google/mobilebert-uncased as MobileBertModel: H = 512, E = 128, bottleneck and layer width B = W = 128,
    # I = 512, 4 heads, 24 layers, F = 4 feed-forward networks, no pooler dense (classifier_activation false).
    # B = 2, L = 16: T = 32 tokens, 2 FLOPs per multiply-add.
    t, h, w, i = 32, 512, 128, 512
    embeddings = 2 * t * 3 * 128 * h  # the trigram's 3E → H projection; the lookups cost nothing
    per_layer = (
        2 * 2 * t * h * w  # bottleneck.input and bottleneck.attention: H → B each
        + 2 * 2 * t * w * w  # query and key read the shared bottleneck
        + 2 * t * h * w  # value reads H
        + 4 * 2 * 16 * 16 * w  # QKᵀ and probabilities·V: 4·B·L²·W
        + 2 * t * w * w  # attention output
        + 4 * 2 * 2 * t * w * i  # four feed-forward networks W → I → W
        + 2 * t * w * h  # output bottleneck W → H
    )
    c = step(get_preset("google/mobilebert-uncased").config, "MobileBertModel", b=2, n=16)
    assert per_layer == 53_739_520 and embeddings == 12_582_912
    assert c.forward == embeddings + 24 * per_layer == 1_302_331_392
    # Everything trains and the first projection's input comes from a trained table: twice the forward.
    assert c.backward == 2 * c.forward


def test_mobilebert_configs_pytorch_cannot_run_are_refused():
    tiny = {"model_type": "mobilebert", "vocab_size": 20, "embedding_size": 4, "hidden_size": 8, "num_hidden_layers": 1,
            "num_attention_heads": 2, "intermediate_size": 6, "intra_bottleneck_size": 4, "max_position_embeddings": 8}
    expect_error("costs_no_ffn", step, {**tiny, "num_feedforward_networks": 0}, n=3)
    err = expect_error("costs_widths", step, {**tiny, "true_hidden_size": 6}, n=3)
    assert "attention.self.query" in err.message("en") and "6" in err.message("zh")
    expect_error("costs_widths", step, {**tiny, "num_attention_heads": 3}, n=3)
    assert step(tiny, n=3).forward > 0


def test_squeezebert_grouped_convolutions_by_hand():
    # squeezebert/squeezebert-uncased: H = 768, I = 3072, 12 layers of 12 heads; 1×1 convolutions with
    # groups 4 for Q, K, V and the feed-forward pair, 1 for the attention output. B = 1, L = 128: T = 128.
    t, h, i = 128, 768, 3072
    convs = [(h, h, 4)] * 3 + [(h, h, 1), (h, i, 4), (i, h, 4)]  # (in, out, groups)
    conv_forward = sum(2 * t * cout * cin // g for cin, cout, g in convs)
    attention = 4 * 128 * 128 * h  # QKᵀ and probabilities·V
    pooler = 2 * h * h  # one token per sequence
    c = step(get_preset("squeezebert/squeezebert-uncased").config, "SqueezeBertModel")
    assert c.forward == 12 * (conv_forward + attention) + pooler
    # FlopCounterMode counts a convolution's weight gradient as an ungrouped convolution
    # (conv_backward_flop): 2·T·C_out·C_in, g times its forward; the input's gradient is the forward again.
    weight_grads = sum(2 * t * cout * cin for cin, cout, _ in convs)
    assert c.backward == 12 * (conv_forward + weight_grads + 2 * attention) + 2 * pooler
    assert weight_grads > conv_forward * 2


def test_squeezebert_refuses_checkpointing():
    expect_error("costs_no_checkpointing", step, get_preset("squeezebert/squeezebert-uncased").config,
                 "SqueezeBertModel", n=8, checkpointing=True)


def test_convbert_mixed_attention_by_hand():
    # YituTech/conv-bert-base: H = 768, 12 heads halved by head_ratio 2 (A' = 6 of size d = 64: W = 384 wide),
    # kernel k = 9, I = 3072, 12 layers. B = 1, L = 128: T = 128.
    t, h, w, k, i, heads = 128, 768, 384, 9, 3072, 6
    per_layer = (
        4 * 2 * t * h * w  # query, key, value, conv_out_layer: H → W
        + 2 * t * h * k  # depthwise convolution: one k-wide filter per channel
        + 2 * t * h * w  # pointwise convolution H → W
        + 2 * t * w * heads * k  # conv_kernel_layer: W → A'·k
        + 2 * t * w * k  # each position's window [d, k] times its kernel [k, 1]
        + 4 * 128 * 128 * w  # QKᵀ and probabilities·V over the kept heads
        + 2 * t * h * h + 2 * 2 * t * h * i  # output dense, feed-forward pair
    )
    c = step(get_preset("YituTech/conv-bert-base").config, "ConvBertModel")
    assert c.forward == 12 * per_layer
    # Everything trains: twice the forward, except that FlopCounterMode counts the depthwise convolution's
    # weight gradient as an ungrouped convolution (2·T·H·H·k instead of 2·T·H·k).
    assert c.backward == 2 * c.forward + 12 * (2 * t * h * h * k - 2 * t * h * k)


def test_convbert_configs_pytorch_cannot_run_are_refused():
    tiny = {"model_type": "convbert", "vocab_size": 20, "embedding_size": 8, "hidden_size": 8, "num_hidden_layers": 1,
            "num_attention_heads": 2, "head_ratio": 1, "intermediate_size": 6, "max_position_embeddings": 8,
            "conv_kernel_size": 3}
    assert step(tiny, n=3).forward > 0
    expect_error("costs_even_kernel", step, {**tiny, "conv_kernel_size": 4}, n=3)
    expect_error("costs_widths", step, {**tiny, "hidden_size": 6}, n=3)
    expect_error("costs_widths", step, {**tiny, "num_groups": 4}, n=3)


def test_funnel_relative_attention_by_hand():
    # FunnelBaseModel with one block of one layer (no pooling): D = 8, N = 2 heads of D_h = 3, I = 6;
    # B = 2, L = 5: T = 10 tokens. The relative position vectors of block 0 are 2L = 10 rows.
    raw = {"model_type": "funnel", "vocab_size": 20, "block_sizes": [1], "d_model": 8, "n_head": 2, "d_head": 3,
           "d_inner": 6}
    b, n, t, d, heads, dh, inner, rows = 2, 5, 10, 8, 2, 3, 6, 10
    forward = (
        3 * 2 * t * d * heads * dh  # q_head, k_head, v_head
        + 2 * b * heads * n * n * dh  # content scores (einsum bind,bjnd->bnij)
        + 2 * rows * d * heads * dh  # r_head = r · r_kernel (td,dnh->tnh): once per layer, not per sequence
        + 2 * b * heads * n * rows * dh  # positional scores before the relative shift (binh,tnh->bnit)
        + 2 * b * n * heads * dh * 2  # token-type scores against seg_embed's two rows (bind,snd->bnis)
        + 2 * b * heads * n * n * dh  # probabilities · values
        + 2 * t * heads * dh * d  # post_proj
        + 2 * 2 * t * d * inner  # the feed-forward pair
    )
    c = step(raw, "FunnelBaseModel", b=2, n=5)
    assert c.forward == forward
    # The sinusoids r need no gradient: r_head's backward is only r_kernel's, so one matmul less than twice.
    assert c.backward == 2 * forward - 2 * rows * d * heads * dh


def test_funnel_refusals():
    raw = {"model_type": "funnel", "vocab_size": 20, "block_sizes": [1, 1], "d_model": 8, "n_head": 2, "d_head": 3,
           "d_inner": 6}
    assert step({**raw, "attention_type": "factorized"}, n=2).forward > 0  # no relative shift: two tokens run
    expect_error("costs_funnel_empty_block", step, {**raw, "block_sizes": [1, 0, 1]}, n=4)
    expect_error("costs_widths", step, {**raw, "d_model": 7}, n=4)
    expect_error("costs_funnel_short", step, raw, n=2)
    expect_error("costs_no_checkpointing", step, raw, n=4, checkpointing=True)
    assert step(raw, n=3).forward > 0
