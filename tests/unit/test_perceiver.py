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
