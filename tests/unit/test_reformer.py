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


def test_training_step_flops_by_hand():
    """FLOPs by hand (2 per multiply-add), B = 1, L = 4, H = 4 (axial 2 × 2, widths 2 + 2), one head of d = 2,
    I = 4, chunks of 2 with one chunk before (each query sees 2 · 2 keys). A local layer: Q, K, V 2·L·H·d each,
    the two products 2·L·d·4 each, the output 2·L·d·H, the feed-forward pair 2·L·H·I each. The backward runs the
    layer's forward again, then its backward: every Linear's input and weight, both factors of each product,
    so three times the forward. An LSH layer shares Q and K, and its first forward alone hashes the keys:
    2·L·d·rounds·(buckets / 2)."""
    from calculator.costs import compute, settings

    from .helpers import expect_error

    b, n, h, d, i = 1, 4, 4, 2, 4
    raw = {"model_type": "reformer", "vocab_size": 20, "hidden_size": h, "num_attention_heads": 1,
           "attention_head_size": d, "feed_forward_size": i, "axial_pos_shape": [2, 2], "axial_pos_embds_dim": [2, 2],
           "max_position_embeddings": 8, "attn_layers": ["local"], "local_attn_chunk_length": 2,
           "lsh_attn_chunk_length": 2, "num_buckets": 2}
    common = 2 * (2 * n * d * 4) + 2 * n * d * h + 2 * (2 * n * h * i)
    local = compute(build(raw, "ReformerModel"), settings(b, n))
    assert (local.forward, local.backward) == (3 * 2 * n * h * d + common, 3 * (3 * 2 * n * h * d + common)) == (640, 1920)
    lsh = compute(build(dict(raw, attn_layers=["lsh"]), "ReformerModel"), settings(b, n))
    hashing = 2 * n * d * 1 * (2 // 2)
    assert (lsh.forward, lsh.backward) == (2 * 2 * n * h * d + common + hashing, 3 * (2 * 2 * n * h * d + common)) == (592, 1728)
    # Training refuses L = 2 here (the axial shape's product is 4); no checkpointing or SDPA is offered.
    error = expect_error("costs_reformer_length", compute, build(raw, "ReformerModel"), settings(b, 2))
    assert "(4;" in error.message("en") and "L = 2" in error.message("zh")
    expect_error("costs_no_checkpointing", compute, build(raw, "ReformerModel"), settings(b, n, checkpointing=True))
    expect_error("costs_no_sdpa", compute, build(raw, "ReformerModel"), settings(b, n, attention="sdpa"))
    # Under autocast (cross-checked in tests/crosscheck/test_costs_autocast.py) the products are the same products.
    mixed = compute(build(raw, "ReformerModel"), settings(b, n, autocast="bf16"))
    assert (mixed.forward, mixed.backward) == (640, 1920)
