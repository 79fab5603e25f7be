"""T5's, mT5's and umT5's encoders (T5EncoderModel, MT5EncoderModel, UMT5EncoderModel). Standard library only
(runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor comparison with transformers 5.23
is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS


def test_t5_v1_1_xxl_encoder_by_hand():
    """The diffusion reader's question: T5-XXL's encoder (FLUX.1, SD3), term by term."""
    d_model, heads, d_kv, d_ff, layers, vocab, buckets = 4096, 64, 64, 10240, 24, 32128, 32
    attention = 4 * d_model * (heads * d_kv)  # q, k, v [4096, 4096] and o, no biases
    feed_forward = 3 * d_model * d_ff  # gated: wi_0, wi_1 [10240, 4096] and wo [4096, 10240]
    norms = 2 * d_model  # two RMS norms per block, a weight each
    per_layer = attention + feed_forward + norms
    assert (attention, feed_forward, per_layer) == (67_108_864, 125_829_120, 192_946_176)
    table = vocab * d_model  # shared = encoder.embed_tokens: one Parameter
    bias = buckets * heads  # block 0 only
    final = d_model
    total = layers * per_layer + table + bias + final
    assert total == 4_762_310_656
    inv = build(PRESETS["google/t5-v1_1-xxl"].config)
    assert inv.architecture == "T5EncoderModel" and inv.total == total
    assert views.formula(inv).total == total
    # state_dict lists the table twice (shared, encoder.embed_tokens); num_parameters leaves out both embeddings.
    assert inv.state_dict_total == total + table
    assert views.num_parameters(inv) == total
    assert views.num_parameters(inv, exclude_embeddings=True) == total - table - bias
    # Weight bytes: 2 per parameter in fp16 or bf16 (9.52 GB), 4 in fp32.
    assert 2 * total == 9_524_621_312


def test_original_t5_base_encoder_has_one_wi_and_relu():
    """t5-base (relu, one wi): the 109,628,544 the T5 tables quote for its encoder."""
    h, ff, layers = 768, 3072, 12
    per_layer = 4 * h * h + 2 * h * ff + 2 * h
    total = layers * per_layer + 32128 * h + 32 * 12 + h
    assert total == 109_628_544
    inv = build(PRESETS["google-t5/t5-base"].config)
    assert inv.total == total
    names = [t.name for t in inv.tensors]
    assert "encoder.block.0.layer.1.DenseReluDense.wi.weight" in names
    assert not any("wi_0" in n for n in names)


def test_state_dict_order_and_the_bias_in_block_zero_only():
    small = {"model_type": "t5", "vocab_size": 10, "d_model": 8, "d_kv": 3, "d_ff": 5, "num_layers": 2, "num_heads": 2}
    inv = build(small)
    names = [t.name for t in inv.tensors]
    assert names[:8] == [
        "shared.weight", "encoder.embed_tokens.weight",
        "encoder.block.0.layer.0.SelfAttention.q.weight", "encoder.block.0.layer.0.SelfAttention.k.weight",
        "encoder.block.0.layer.0.SelfAttention.v.weight", "encoder.block.0.layer.0.SelfAttention.o.weight",
        "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", "encoder.block.0.layer.0.layer_norm.weight",
    ]
    assert names[-1] == "encoder.final_layer_norm.weight"
    assert [n for n in names if "relative_attention_bias" in n] == [
        "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
    tied = [t for t in inv.tensors if t.name == "encoder.embed_tokens.weight"][0]
    assert tied.tied_to == "shared.weight"
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["encoder.block.1.layer.0.SelfAttention.q.weight"] == (6, 8)  # A·d_kv = 6, not d_model
    # 10·8 table + 2 × (4·8·6 + 2·8·5 + 2·8) + 32·2 + 8
    assert inv.total == 80 + 2 * (192 + 80 + 16) + 64 + 8 == 728


def test_is_gated_act_in_the_config_overrides_feed_forward_proj():
    """transformers applies a config's saved is_gated_act over what feed_forward_proj implies."""
    small = {"model_type": "t5", "vocab_size": 10, "d_model": 8, "d_kv": 3, "d_ff": 5, "num_layers": 1, "num_heads": 2}
    plain = build(small).total
    gated = build(dict(small, feed_forward_proj="gated-gelu")).total
    assert gated - plain == 5 * 8  # a second input projection [d_ff, d_model]
    assert build(dict(small, is_gated_act=True)).total == gated
    assert build(dict(small, feed_forward_proj="gated-gelu", is_gated_act=False)).total == plain


def test_mt5_and_umt5_defaults_and_umt5s_bias_per_block():
    mt5 = build({"model_type": "mt5"})
    assert mt5.architecture == "MT5EncoderModel"
    h, ff, layers, heads, d_kv = 512, 1024, 8, 6, 64  # MT5Config's defaults, gated
    per_layer = 4 * h * heads * d_kv + 3 * h * ff + 2 * h
    assert mt5.total == layers * per_layer + 250112 * h + 32 * heads + h
    umt5 = build({"model_type": "umt5"})
    assert umt5.architecture == "UMT5EncoderModel"
    assert umt5.total == mt5.total + (layers - 1) * 32 * heads  # a bias table in every block
    biases = [t.name for t in umt5.tensors if "relative_attention_bias" in t.name]
    assert len(biases) == layers
    assert views.formula(umt5).total == umt5.total


def test_umt5_xxl_wan_text_encoder_by_hand():
    h, ff, layers, heads = 4096, 10240, 24, 64
    per_layer = 4 * h * h + 32 * heads + 3 * h * ff + 2 * h
    total = layers * per_layer + 256384 * h + h
    assert build(PRESETS["google/umt5-xxl"].config).total == total == 5_680_910_336


def test_generic_names_are_read_as_t5s_own():
    """T5Config.attribute_map: hidden_size, num_attention_heads, num_hidden_layers, head_dim."""
    own = {"model_type": "t5", "d_model": 16, "num_heads": 2, "num_layers": 1, "d_kv": 4, "vocab_size": 20}
    generic = {"model_type": "t5", "hidden_size": 16, "num_attention_heads": 2, "num_hidden_layers": 1, "head_dim": 4,
               "vocab_size": 20}
    assert build(own).total == build(generic).total


def test_a_config_of_the_whole_model_is_counted_as_its_encoder_with_a_note():
    """A checkpoint's config.json names T5ForConditionalGeneration: counted as T5EncoderModel, and said so."""
    raw = dict(PRESETS["google/t5-v1_1-xxl"].config, architectures=["T5ForConditionalGeneration"], num_decoder_layers=24)
    inv = build(raw)
    assert inv.architecture == "T5EncoderModel" and inv.total == 4_762_310_656
    for lang, words in (("en", "its encoder alone"), ("zh", "只含它的编码器")):
        notes = views.config_notes(raw, lang, inv)
        assert [n["code"] for n in notes] == ["encoder_of", "ignored_key"]
        assert "T5ForConditionalGeneration" in notes[0]["message"] and words in notes[0]["message"]
        assert "num_decoder_layers = 24" in notes[1]["message"]
    # Asked for by name, the encoder-decoder class stays refused (its decoder is not counted here).
    from calculator.errors import CalcError

    try:
        build(raw, "T5ForConditionalGeneration")
    except CalcError as exc:
        assert exc.code == "unknown_architecture"
    else:
        raise AssertionError("T5ForConditionalGeneration was counted")
    # The encoder's own config (a diffusion pipeline's text_encoder_2) needs no such note.
    own = dict(raw, architectures=["T5EncoderModel"])
    assert [n["code"] for n in views.config_notes(own, "en", build(own))] == ["ignored_key"]


def test_training_step_of_the_encoder():
    """The step runs for the three encoder classes (exact against PyTorch: tests/crosscheck/test_costs_reference.py);
    the gated network's extra input projection costs 2·B·L·d_model·d_ff more forward FLOPs; fewer than 4
    relative-position buckets are refused, as transformers' bucketing divides by zero."""
    from calculator import costs
    from .helpers import expect_error

    small = {"model_type": "t5", "vocab_size": 10, "d_model": 8, "d_kv": 3, "d_ff": 5, "num_layers": 2, "num_heads": 2}
    s = costs.settings(2, 4)
    plain = costs.compute(build(small), s)
    gated = costs.compute(build(dict(small, feed_forward_proj="gated-gelu")), s)
    assert gated.forward - plain.forward == 2 * (2 * 2 * 4 * 8 * 5)  # wi_1 in each of the 2 blocks
    for model_type in ("mt5", "umt5"):
        assert costs.compute(build(dict(small, model_type=model_type)), s).forward == gated.forward
    expect_error("costs_forward_fails", costs.compute, build(dict(small, relative_attention_num_buckets=3)), s)
    assert costs.compute(build(dict(small, relative_attention_num_buckets=3, num_layers=0)), s).forward == 0
    # The activation: the config's dense_act_fn when it has one, else what feed_forward_proj implies.
    assert build(dict(small, feed_forward_proj="gated-gelu")).config["dense_act_fn"] == "gelu_new"
    assert build(dict(small, dense_act_fn="gelu_pytorch_tanh", is_gated_act=True)).config["dense_act_fn"] == \
        "gelu_pytorch_tanh"
