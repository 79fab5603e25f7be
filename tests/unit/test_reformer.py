"""Reformer facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from google/reformer-crime-and-punishment's sizes and
modeling_reformer.py's modules (axial position weights [512, 1, 64] and [1, 1024, 192]; "local" layers with
query, key, value, "lsh" layers with a shared query_key and value, none with biases; the final LayerNorm and the
LM head over the 2H reversible streams); the comparison with the real library is tests/crosscheck/.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error


def test_crime_and_punishment_by_hand():
    v, h, a, d, i = 320, 256, 2, 64, 512
    axial = 512 * 64 + 1024 * 192
    assert axial == 229_376  # a flat 524,288 × 256 table would hold 134,217,728
    rest = 2 * h + a * d * h + 2 * h + (h * i + i) + (i * h + h)  # LNs, output (no bias), feed-forward
    local = 3 * h * a * d + rest
    lsh = 2 * h * a * d + rest
    head = v + v * 2 * h  # lm_head.bias and a decoder over 2H without a bias
    inv = build(PRESETS["google/reformer-crime-and-punishment"].config, "ReformerModelWithLMHead")
    assert inv.total == v * h + axial + 3 * local + 3 * lsh + 2 * 2 * h + head
    assert views.formula(inv).total == inv.total
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["reformer.embeddings.position_embeddings.weights.0"] == (512, 1, 64)
    assert shapes["reformer.embeddings.position_embeddings.weights.1"] == (1, 1024, 192)
    assert "reformer.encoder.layers.1.attention.self_attention.query_key.weight" in shapes


def test_the_causal_checkpoints_are_refused_as_masked_lm():
    config = PRESETS["google/reformer-crime-and-punishment"].config
    expect_error("bad_value", build, config, "ReformerForMaskedLM")
    expect_error("bad_value", build, dict(config, is_decoder=False), "ReformerModelWithLMHead")
    expect_error("bad_value", build, dict(config, axial_pos_embds_dim=[64, 64]), "ReformerModel")  # sums to 128 ≠ H
