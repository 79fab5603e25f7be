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
