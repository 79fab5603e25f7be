"""Perceiver IO (text classes) facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from deepmind/language-perceiver's sizes and
modeling_perceiver.py's modules (PerceiverTextPreprocessor, the latents, one cross-attention layer, 26
self-attention layers, PerceiverBasicDecoder with 8 heads and 256 Q/K channels, PerceiverEmbeddingDecoder's
bias); the comparison with the real library is tests/crosscheck/.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error


def test_language_perceiver_by_hand():
    v, p, d, n_lat, dl, n = 262, 2048, 768, 256, 1280, 26
    inputs = v * d + p * d  # byte table and position table, width d_model
    latents = n_lat * dl
    # cross-attention: Q from the latents (D), K/V from the input (d); Q/K and V channels default to d ("kv")
    cross = (2 * dl + 2 * d) + (dl * d + d) + (d * d + d) + (d * d + d) + (d * dl + dl) + 2 * dl \
        + (dl * dl + dl) + (dl * dl + dl)
    # a latent self-attention: everything D wide, one LayerNorm before the attention
    self_layer = 2 * dl + 4 * (dl * dl + dl) + 2 * dl + 2 * (dl * dl + dl)
    # the decoder: P query positions (d wide), 8 heads over 256 Q/K channels, V d, no final projection
    decoder = p * d + (2 * d + 2 * dl) + (d * 256 + 256) + (dl * 256 + 256) + (dl * d + d) + (d * d + d) + 2 * d \
        + 2 * (d * d + d)
    bias = v
    inv = build(PRESETS["deepmind/language-perceiver"].config, "PerceiverForMaskedLM")
    assert inv.total == inputs + latents + cross + n * self_layer + decoder + bias
    assert views.formula(inv).total == inv.total
    base = build(PRESETS["deepmind/language-perceiver"].config, "PerceiverModel")
    assert base.total == latents + cross + n * self_layer  # no preprocessor when built from a config alone
    assert inv.tensors[0].name == "perceiver.input_preprocessor.embeddings.weight"
    assert not any(t.tied_to for t in inv.tensors)  # the logits reuse the table at run time, nothing is tied


def test_masked_lm_needs_d_model_divisible_by_eight():
    small = {"model_type": "perceiver", "d_model": 12, "d_latents": 16, "num_self_attends_per_block": 0,
             "num_cross_attention_heads": 4, "num_self_attention_heads": 4}
    assert build(small, "PerceiverModel").total > 0  # the encoder's heads (4) divide 12 and 16
    error = expect_error("heads_not_divisor", build, small, "PerceiverForMaskedLM")  # the decoder's 8 heads do not
    assert "d_model" in error.message("en")


def test_training_step_flops_by_hand():
    """Forward FLOPs by hand (2 per multiply-add) of PerceiverForSequenceClassification, B = 1, L = 2 bytes,
    d_model 8, N = 2 latents of D = 4, one head everywhere, one self-attention layer, widenings 1. The
    cross-attention's Q/K are d_model wide ("kv"): Q 2·N·D·8, K and V 2·L·8·8 each, QKᵀ and PV 2·N·8·L each,
    the output 2·N·8·D, the MLP 2 × 2·N·D·D. A self-attention layer: Q, K, V and the output 2·N·D·D each, QKᵀ
    and PV 2·N·D·N each, the MLP. The decoder: one query, keys and values from the latents, ``final_layer``."""
    from calculator.costs import compute, settings

    from .helpers import expect_error

    b, n, dm, lat, d, labels = 1, 2, 8, 2, 4, 2
    raw = {"model_type": "perceiver", "vocab_size": 20, "max_position_embeddings": 4, "d_model": dm,
           "num_latents": lat, "d_latents": d, "num_self_attends_per_block": 1, "num_self_attention_heads": 1,
           "num_cross_attention_heads": 1, "num_labels": labels}
    cross = 2 * lat * d * dm + 2 * (2 * n * dm * dm) + 2 * (2 * lat * dm * n) + 2 * lat * dm * d + 2 * (2 * lat * d * d)
    own = 4 * (2 * lat * d * d) + 2 * (2 * lat * d * lat) + 2 * (2 * lat * d * d)
    decoder = 2 * d * d + 2 * (2 * lat * d * d) + 2 * (2 * d * lat) + 2 * d * d + 2 * (2 * d * d) + 2 * d * labels
    inv = build(raw, "PerceiverForSequenceClassification")
    assert compute(inv, settings(b, n)).forward == cross + own + decoder == 1776
    # Mixed precision changes which copies are kept, not the products' sizes (tests/crosscheck: exact).
    assert compute(inv, settings(b, n, autocast="bf16")).forward == 1776
    # PerceiverModel takes embedded inputs, not input_ids; no gradient checkpointing, no SDPA in transformers:
    # each refused with its code.
    expect_error("costs_architecture", compute, build(raw, "PerceiverModel"), settings(b, n))
    expect_error("costs_no_checkpointing", compute, inv, settings(b, n, checkpointing=True))
    expect_error("costs_no_sdpa", compute, inv, settings(b, n, attention="sdpa"))
    expect_error("costs_forward_fails", compute, build(dict(raw, v_channels=8), "PerceiverForSequenceClassification"),
                 settings(b, n))
