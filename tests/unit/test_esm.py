"""ESM-2. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic from the shapes ``modeling_esm.py`` gives
each module; the tensor-by-tensor comparison with transformers is
tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.counts import reconcile
from calculator.presets import PRESETS
from calculator import costs

from .helpers import expect_error

SMALL = {"model_type": "esm", "vocab_size": 33, "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12,
         "num_hidden_layers": 3, "position_embedding_type": "rotary", "pad_token_id": 1}


def _layer(h, i):
    """Q, K, V, O with biases; the feed-forward pair; two LayerNorms (before attention, before the FFN)."""
    return 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * (2 * h)


def test_esm2_650m_by_hand():
    v, h, n, a, i = 33, 1280, 33, 20, 5120
    assert _layer(h, i) == 19_677_440
    backbone = v * h + n * _layer(h, i) + 2 * h  # one token table, no position table; the final LayerNorm
    contact = n * a + 1  # contact_head.regression: one weight per layer × head, one bias
    pooler = h * h + h
    inv = build(dict(PRESETS["facebook/esm2_t33_650M_UR50D"].config), "EsmModel")
    assert inv.total == backbone + pooler + contact == 651_040_661
    mlm = build(dict(PRESETS["facebook/esm2_t33_650M_UR50D"].config), "EsmForMaskedLM")
    head = v + (h * h + h) + 2 * h  # lm_head.bias, dense, layer_norm; the decoder (no bias) is the token table
    assert mlm.total == backbone + contact + head == 651_043_254
    # state_dict adds the tied decoder and the rotary buffer: ⌈64 / 2⌉ = 32 frequencies
    assert mlm.state_dict_total == mlm.total + v * h + 32 == 651_085_526
    assert views.formula(mlm).total == mlm.total


def test_esm2_8m_by_hand():
    v, h, n, a, i = 33, 320, 6, 20, 1280
    total = v * h + n * _layer(h, i) + 2 * h + (n * a + 1) + v + (h * h + h) + 2 * h
    assert total == 7_512_474  # the "8M" of the name
    assert build(dict(PRESETS["facebook/esm2_t6_8M_UR50D"].config), "EsmForMaskedLM").total == total


def test_rotary_buffer_is_in_state_dict_not_in_parameters():
    inv = build(dict(SMALL), "EsmModel")
    (buf,) = [t for t in inv.tensors if t.buffer]
    assert buf.name == "rotary_embeddings.inv_freq" and buf.shape == (2,) and not buf.trainable
    assert inv.state_dict_total == inv.total + 2
    assert buf not in inv.unique and buf not in inv.charged
    counts = {c.key: c for c in reconcile(inv)}
    assert counts["torchinfo"].value == inv.total
    assert counts["save_pretrained"].value == inv.total + 2 and counts["save_pretrained"].added == (buf.name,)
    # an odd head width: arange(0, 5, 2) has three entries
    odd = build(dict(SMALL, hidden_size=10), "EsmModel")
    assert [t.shape for t in odd.tensors if t.buffer] == [(3,)]


def test_absolute_positions_are_a_table_and_the_padding_row_must_fit():
    rotary = build(dict(SMALL), "EsmModel")
    absolute = build(dict(SMALL, position_embedding_type="absolute", max_position_embeddings=40), "EsmModel")
    assert absolute.total - rotary.total == 40 * 8
    assert not any(t.buffer for t in absolute.tensors)
    expect_error("padding_idx", build, dict(SMALL, position_embedding_type="absolute", max_position_embeddings=1))
    assert build(dict(SMALL, max_position_embeddings=1), "EsmModel").total == rotary.total  # rotary: no table
    expect_error("padding_idx", build, dict(SMALL, vocab_size=1))


def test_the_contact_head_is_in_every_class():
    for arch in ("EsmModel", "EsmForMaskedLM", "EsmForSequenceClassification", "EsmForTokenClassification"):
        shapes = {t.name: t.shape for t in build(dict(SMALL), arch).tensors}
        prefix = "" if arch == "EsmModel" else "esm."
        assert shapes[prefix + "contact_head.regression.weight"] == (1, 3 * 2), arch


def test_early_layer_norm_and_heads():
    base = build(dict(SMALL), "EsmModel").total
    assert build(dict(SMALL, emb_layer_norm_before=True), "EsmModel").total - base == 2 * 8
    expect_error("heads_not_divisor", build, dict(SMALL, num_attention_heads=3))


def test_tables_mark_the_buffer_and_do_not_add_it():
    inv = build(dict(SMALL), "EsmModel")
    table = views.markdown_table(inv)
    (line,) = [x for x in table.splitlines() if "inv_freq" in x]
    assert "(2: a buffer" in line
    assert "缓冲区" in views.markdown_table(inv, "zh")
    assert sum(s.count for s in views.section_breakdown(inv)) == inv.total


# ------------------------------------------------------------------ training step (calculator/costs/)
# B = 1, L = 4, fp32, H = 8, 2 heads of d = 4, I = 12, two layers, the base model without a pooler. A [1, 4, 8]
# tensor is 128 bytes, a [1, 4, 12] one 192, the [1, 2, 4, 4] attention maps 128, a LayerNorm's mean and 1/std
# 2 · 16 bytes, an int64 [1, 4] index 32. With B = 1 every head split reshapes as a view (nothing copied).
TINY = {"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 12,
        "max_position_embeddings": 20, "type_vocab_size": 2}


def test_step_by_hand():
    esm2 = dict(TINY, model_type="esm", position_embedding_type="rotary", pad_token_id=1, hidden_dropout_prob=0.0,
                attention_probs_dropout_prob=0.0)
    c = costs.compute(build(esm2, "EsmModel", False), costs.settings(1, 4))
    assert c.forward == 8192
    # input_ids; cos and sin ([1, 1, 4, 4], 64 bytes each) made once and shared by both layers.
    shared = 32 + 2 * 64
    # Per layer: attention.LayerNorm's input and statistics, its output, Q and K rotated, softmax's output
    # (dropout 0: kept once), V, the context copy; the second LayerNorm's input and statistics, its output;
    # ESM's erf GELU keeps x·0.5, x/√2 and 1 + erf (3 · 192), its output kept by output.dense.
    layer = (128 + 32) + 128 + 2 * 128 + 128 + 128 + 128 + (128 + 32) + 128 + 3 * 192 + 192
    assert c.activations == shared + 2 * layer + (128 + 32) == 4288  # + emb_layer_norm_after
    # Token dropout adds its [1, 4, 1] bool mask and the float32 [1] ratio it divides by.
    dropped = costs.compute(build(dict(esm2, token_dropout=True, mask_token_id=32), "EsmModel", False),
                            costs.settings(1, 4))
    assert dropped.activations == 4288 + 4 + 4
    # The contact head is built, never run: its L·A + 1 weights get no gradient.
    assert c.weights - c.gradients == (2 * 2 + 1) * 4


def test_step_refusals():
    rotary = dict(TINY, model_type="esm", position_embedding_type="rotary")
    expect_error("costs_esm_padding", costs.compute, build(rotary, "EsmModel"), costs.settings(1, 4))
    no_mask = build(dict(rotary, pad_token_id=1, token_dropout=True), "EsmModel")
    expect_error("costs_esm_mask_token", costs.compute, no_mask, costs.settings(1, 4))
    odd = build(dict(rotary, pad_token_id=1, hidden_size=6), "EsmModel")
    expect_error("costs_rotary_odd_head", costs.compute, odd, costs.settings(1, 4))
    # Absolute positions start after the padding row: a table of 20 rows takes 20 - 1 - 1 tokens.
    absolute = build(dict(TINY, model_type="esm", pad_token_id=1), "EsmModel")
    costs.compute(absolute, costs.settings(1, 18))
    expect_error("costs_seq_too_long", costs.compute, absolute, costs.settings(1, 19))
