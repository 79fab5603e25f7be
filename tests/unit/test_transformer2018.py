"""The 2018 encoder-decoder Transformer (attention-is-all-you-need-pytorch). Standard library only (runs in Pyodide).

Expected numbers: the issue's facts for the one-layer printout, and arithmetic
written out below. The name-by-name comparison with torch and with the
printout itself is tests/crosscheck/test_transformer2018.py.
"""
from calculator.build import build

from .helpers import expect_error

ONE_LAYER = {"model_type": "transformer", "n_src_vocab": 5395, "n_tgt_vocab": 5395, "len_max_seq": 32, "n_layers": 1}

# Hand arithmetic, d = 512, 8 heads of 64, d_inner = 2048, vocab 5395, 33 positions:
EMB = 5395 * 512  # 2,762,240
POS = 33 * 512  # 16,896 (len_max_seq + 1 rows: row 0 is padding)
ATT = 3 * (512 * 512 + 512) + 2 * 512 + (512 * 512 + 512)  # w_qs, w_ks, w_vs, layer_norm, fc = 1,051,648
FFN = (2048 * 512 + 2048) + (512 * 2048 + 512) + 2 * 512  # w_1, w_2 (Conv1d, kernel 1), layer_norm = 2,100,736
ENC_LAYER = ATT + FFN
DEC_LAYER = 2 * ATT + FFN


def test_issue_facts_one_layer():
    inv = build(ONE_LAYER)
    assert inv.architecture == "Transformer"
    # One embedding table (shared three ways), two frozen position tables, the two stacks.
    assert EMB + 2 * POS + ENC_LAYER + DEC_LAYER == 10_152_448
    assert inv.total == 10_152_448
    assert inv.trainable == 10_152_448 - 2 * POS == 10_118_656
    # state_dict lists the shared table three times.
    assert inv.state_dict_total == 10_152_448 + 2 * EMB == 15_676_928


def test_ties_name_the_first_entry():
    inv = build(ONE_LAYER)
    assert {t.name: t.tied_to for t in inv.tensors if t.tied_to} == {
        "decoder.tgt_word_emb.weight": "encoder.src_word_emb.weight",
        "tgt_word_prj.weight": "encoder.src_word_emb.weight",
    }
    only_prj = build(dict(ONE_LAYER, emb_src_tgt_weight_sharing=False))
    assert {t.name: t.tied_to for t in only_prj.tensors if t.tied_to} == {
        "tgt_word_prj.weight": "decoder.tgt_word_emb.weight",
    }
    assert only_prj.total == 10_152_448 + EMB
    only_src = build(dict(ONE_LAYER, tgt_emb_prj_weight_sharing=False))
    assert {t.name: t.tied_to for t in only_src.tensors if t.tied_to} == {
        "decoder.tgt_word_emb.weight": "encoder.src_word_emb.weight",
    }
    assert only_src.total == 10_152_448 + EMB
    none = build(dict(ONE_LAYER, tgt_emb_prj_weight_sharing=False, emb_src_tgt_weight_sharing=False))
    assert not any(t.tied_to for t in none.tensors)
    assert none.total == none.state_dict_total == 15_676_928
    assert none.trainable == 15_676_928 - 2 * POS


def test_names_shapes_order():
    inv = build(ONE_LAYER)
    assert len(inv.tensors) == 47  # 2 + 16 (encoder) + 2 + 26 (decoder) + 1
    shapes = {t.name: t.shape for t in inv.tensors}
    assert inv.tensors[0].name == "encoder.src_word_emb.weight"
    assert inv.tensors[-1].name == "tgt_word_prj.weight"
    assert shapes["encoder.position_enc.weight"] == (33, 512)
    assert shapes["encoder.layer_stack.0.slf_attn.w_qs.weight"] == (512, 512)
    assert shapes["encoder.layer_stack.0.slf_attn.fc.weight"] == (512, 512)
    assert shapes["encoder.layer_stack.0.pos_ffn.w_1.weight"] == (2048, 512, 1)
    assert shapes["encoder.layer_stack.0.pos_ffn.w_2.weight"] == (512, 2048, 1)
    assert shapes["decoder.layer_stack.0.enc_attn.layer_norm.bias"] == (512,)
    assert "tgt_word_prj.bias" not in shapes
    layer = [t.name.split("slf_attn.")[1] for t in inv.tensors if t.name.startswith("encoder.layer_stack.0.slf_attn.")]
    assert layer == ["w_qs.weight", "w_qs.bias", "w_ks.weight", "w_ks.bias", "w_vs.weight", "w_vs.bias",
                     "layer_norm.weight", "layer_norm.bias", "fc.weight", "fc.bias"]
    frozen = [t.name for t in inv.tensors if not t.trainable]
    assert frozen == ["encoder.position_enc.weight", "decoder.position_enc.weight"]


def test_heads_and_key_value_widths():
    # n_head·d_k need not equal d_model: w_qs/w_ks are [n_head·d_k, d_model], w_vs [n_head·d_v, d_model], fc [d_model, n_head·d_v].
    inv = build(dict(ONE_LAYER, n_head=4, d_k=10, d_v=20, d_model=32, d_word_vec=32, d_inner=8))
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["decoder.layer_stack.0.enc_attn.w_ks.weight"] == (40, 32)
    assert shapes["decoder.layer_stack.0.enc_attn.w_vs.weight"] == (80, 32)
    assert shapes["decoder.layer_stack.0.enc_attn.fc.weight"] == (32, 80)
    att = 2 * (40 * 32 + 40) + (80 * 32 + 80) + 2 * 32 + (32 * 80 + 32)
    ffn = (8 * 32 + 8) + (32 * 8 + 32) + 2 * 32
    assert inv.total == 5395 * 32 + 2 * 33 * 32 + (att + ffn) + (2 * att + ffn)


def test_layers_numbered_encoder_then_decoder():
    inv = build(dict(ONE_LAYER, n_layers=6))
    assert inv.num_layers == 12
    assert {t.layer for t in inv.tensors if t.name.startswith("decoder.layer_stack.0.")} == {6}
    assert inv.total == EMB + 2 * POS + 6 * ENC_LAYER + 6 * DEC_LAYER


def test_errors():
    exc = expect_error("vocab_mismatch", build, dict(ONE_LAYER, n_tgt_vocab=6000))
    assert exc.params == {"src": 5395, "tgt": 6000}
    assert "5395" in exc.message("zh")
    ok = build(dict(ONE_LAYER, n_tgt_vocab=6000, emb_src_tgt_weight_sharing=False))
    assert ok.total == 5395 * 512 + 6000 * 512 + 2 * POS + ENC_LAYER + DEC_LAYER  # prj tied to the 6000-row table
    expect_error("bad_value", build, dict(ONE_LAYER, d_word_vec=256))
    expect_error("not_boolean", build, dict(ONE_LAYER, tgt_emb_prj_weight_sharing="sometimes"))
    expect_error("zero", build, dict(ONE_LAYER, n_head=0))
