"""Training-step costs of Longformer and BigBird against hand arithmetic, and the families it refuses, and why.

The FLOPs below are worked out in the comments from the architecture alone (what
``modeling_longformer.py`` and ``modeling_big_bird.py`` multiply, 2 FLOPs per
multiply-add); the cross-check (tests/crosscheck/test_costs_reference.py)
measures the same figures in PyTorch on random small configs.
"""
from __future__ import annotations

from calculator import costs
from calculator.build import build
from calculator.presets import get_preset

from .helpers import expect_error


def step(inv, b=1, n=512, dtype="fp32", optimizer="adamw", checkpointing=False) -> costs.Costs:
    return costs.compute(inv, costs.settings(b, n, dtype, optimizer, checkpointing))


def longformer_base(arch: str = "LongformerModel"):
    return build(get_preset("allenai/longformer-base-4096").config, arch)


def bigbird_base(arch: str = "BigBirdForPreTraining", **changes):
    return build(dict(get_preset("google/bigbird-roberta-base").config, **changes), arch)


def test_longformer_forward_flops_by_hand():
    # longformer-base-4096: H = 768, I = 3072, 12 layers of 12 heads (d = 64), window 512 (w = 256 each side).
    # B = 1, L = 512: no padding. Per layer, Q, K, V and the output projection: 4 · 2·L·H²; the feed-forward
    # pair: 2 · 2·L·H·I. Q·Kᵀ over overlapping chunks of 2w: (L/w − 1) = 1 chunk per head, 2·(2w)·d·(2w);
    # probabilities · V: L/w = 2 chunks of w rows, each w × 3w by 3w × d: 2·w·3w·d per chunk.
    h, i, heads, d, w, n = 768, 3072, 12, 64, 256, 512
    layer = 4 * 2 * n * h * h + 2 * 2 * n * h * i
    layer += heads * (n // w - 1) * 2 * (2 * w) * d * (2 * w)
    layer += heads * (n // w) * 2 * w * (3 * w) * d
    pooler = 2 * h * h
    assert step(longformer_base()).forward == 12 * layer + pooler
    # Sequence classification gives the first token global attention: per layer, query_global on that one token
    # (2·H²), key_global and value_global on all L (2 · 2·L·H²), and four products of one token's row or column
    # with [L, d] per head: its scores against every key, every token's score against it times its value, its
    # scores against all keys again (the global path) and those probabilities times the global values:
    # 4 · 2·L·d·heads = 8·L·H. The head: dense on the first token (2·H²), out_proj to 2 labels (2·H·2).
    layer += 2 * h * h + 2 * 2 * n * h * h + 8 * n * h
    head = 2 * h * h + 2 * h * 2
    assert step(longformer_base("LongformerForSequenceClassification")).forward == 12 * layer + head


def test_longformer_pads_to_the_window():
    # The input is padded to a multiple of the window (512) before the layers: L = 5 costs the layers
    # as much as L = 512. Only the heads after the encoder (here: none but the pooler, one token) see L.
    inv = longformer_base()
    assert step(inv, n=5).forward == step(inv, n=512).forward
    assert step(inv, n=513).forward > step(inv, n=512).forward
    # The embeddings' index tensors (ids, positions, types: int64 [B, Lp]) are kept at the padded length too.
    assert step(inv, n=5).activations == step(inv, n=512).activations


def test_longformer_refusals_say_why():
    expect_error("costs_data_dependent", step, longformer_base("LongformerForQuestionAnswering"))
    small = dict(get_preset("allenai/longformer-base-4096").config, num_hidden_layers=2, attention_window=[2, 4])
    exc = expect_error("costs_longformer_small_window", step, build(small), 1, 8)
    assert "2" in exc.message("en")
    uneven = dict(small, attention_window=[4, 6])  # padded to 6: layer 0's window of 4 does not divide it
    exc = expect_error("costs_longformer_window", step, build(uneven), 1, 5)
    assert "6" in exc.message("zh") and "4" in exc.message("zh")
    assert step(build(dict(small, attention_window=[4, 8])), n=5).forward > 0
    expect_error("costs_longformer_no_layers", step, build(dict(small, num_hidden_layers=0, attention_window=4)))
    expect_error("costs_seq_too_long", step, longformer_base(), 1, 4097)  # 4098 positions, 2 before the first


def test_big_bird_forward_flops_by_hand():
    # bigbird-roberta-base with full attention: BERT's layer (4 · 2·L·H² projections, 2 · 2·L·L·H for the
    # scores and the context, 2 · 2·L·H·I feed-forward), the pooler (2·H² on one token), the MLM head
    # (transform 2·L·H², decoder 2·L·H·V) and next-sentence prediction (2·H·2). B = 1, L = 128.
    h, i, v, n = 768, 3072, 50358, 128
    layer = 4 * 2 * n * h * h + 2 * 2 * n * n * h + 2 * 2 * n * h * i
    heads = 2 * n * h * h + 2 * n * h * v + 2 * h * 2
    assert step(bigbird_base(), n=n).forward == 12 * layer + 2 * h * h + heads


def test_big_bird_switches_to_full_attention_where_transformers_does():
    # block_sparse with block_size 64 and 3 random blocks runs only for L > (5 + 2·3)·64 = 704: at 704 full
    # attention, at 705 the block-sparse kernel on 768 padded tokens (dearer there than full attention at 705);
    # at 4096 tokens the sparse pattern is cheaper than full attention (its L² scores), with under a quarter
    # of its activation memory.
    inv, full = bigbird_base(), bigbird_base(attention_type="original_full")
    at, same = step(inv, n=704), step(full, n=704)
    assert (at.forward, at.backward, at.activations, at.peak.bytes) == (
        same.forward, same.backward, same.activations, same.peak.bytes) and at.peak.bytes is not None
    # (the forward's timeline differs: the switch builds three Linears per layer in the forward, then drops them)
    assert step(inv, n=705).forward > step(full, n=705).forward
    sparse, dense = step(inv, n=4096), step(full, n=4096)
    assert sparse.forward < dense.forward and 4 * sparse.activations < dense.activations
    small = bigbird_base(block_size=16, num_random_blocks=1)
    assert step(small, n=112).forward == step(small, n=112).forward > 0
    assert step(small, n=113).forward == step(small, n=128).forward - 2 * 15 * 768 * (768 + 50358)
    # A padded length the position table cannot hold: transformers' position slice is too short.
    # 115 is padded to 128 > 120 positions; 113 to 128 as well; 112 runs full attention, the longest that runs.
    short = bigbird_base(block_size=16, num_random_blocks=1, max_position_embeddings=120)
    exc = expect_error("costs_block_padding", step, short, 1, 115)
    assert "128" in exc.message("en") and "128" in exc.message("zh") and "112" in exc.message("zh")
    assert step(short, n=112).forward > 0
    wide = bigbird_base(block_size=16, num_random_blocks=1, max_position_embeddings=150)  # 144 = 9 blocks fits
    assert "144" in expect_error("costs_block_padding", step, wide, 1, 145).message("en")
    assert step(wide, n=144).forward > 0


def test_big_bird_pooler_unread_by_the_head_gets_no_gradient():
    # BigBirdForMaskedLM builds and runs the pooler (tanh on the first token) but its output is not returned:
    # forward FLOPs count it, its 768² + 768 parameters get no gradient and no AdamW state.
    mlm = step(bigbird_base("BigBirdForMaskedLM"), n=128)
    h = 768
    assert mlm.weights - mlm.gradients == (h * h + h) * 4
    # AdamW: exp_avg and exp_avg_sq per trained number, and a 4-byte step per trained tensor: the embeddings' 5
    # (3 tables, LayerNorm's 2), 16 per layer, the head's 5 (its bias, which the decoder shares, the transform's
    # dense and LayerNorm; the decoder's weight is the word table). The pooler's 2 have none.
    assert mlm.optimizer == 2 * mlm.gradients + 4 * (5 + 12 * 16 + 5)


def test_big_bird_question_answering_needs_two_token_types():
    inv = bigbird_base("BigBirdForQuestionAnswering", type_vocab_size=1)
    expect_error("costs_qa_token_types", step, inv, 1, 2)
    assert step(inv, n=1).forward > 0


def test_keras_bert_and_the_2018_transformer_say_why_they_are_refused():
    exc = expect_error("costs_keras", step, build({"model_type": "keras-bert"}))
    assert "Keras" in exc.message("en") and "Keras" in exc.message("zh") and "PyTorch" in exc.message("zh")
    exc = expect_error("costs_seq2seq", step, build({"model_type": "transformer"}))
    assert "input_ids" in exc.message("en") and "编码器-解码器" in exc.message("zh")


def test_hidden_act_decides_what_the_feed_forward_keeps():
    # gelu keeps its input; gelu_new (BigBird's default) is written out in Python and keeps its input and three
    # more tensors of the same size; relu keeps its output, which output.dense keeps anyway (one storage, counted
    # once), so relu keeps one [B, L, I] tensor less than gelu per layer. fp32.
    n, i = 128, 3072
    gelu_new = step(bigbird_base("BigBirdModel", hidden_act="gelu_new"), n=n).activations
    gelu = step(bigbird_base("BigBirdModel", hidden_act="gelu"), n=n).activations
    relu = step(bigbird_base("BigBirdModel", hidden_act="relu"), n=n).activations
    assert gelu_new - gelu == 12 * 3 * n * i * 4
    assert gelu - relu == 12 * n * i * 4
    exc = expect_error("costs_hidden_act", step, bigbird_base("BigBirdModel", hidden_act="silu"), 1, 8)
    assert "gelu_new" in exc.message("zh")
    expect_error("costs_hidden_act", step, build(dict(get_preset("allenai/longformer-base-4096").config,
                                                      hidden_act="tanh")), 1, 8)
