"""UltraBERT, transformers 5.23's native class. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor
comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build

SMALL = {"model_type": "ultrabert", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 3,
         "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 20, "prediction_head_size": 8}


def test_small_model_by_hand():
    d = 4
    layer = 16 * 4 * d + 2 * 16 * 2 * d + 4 * d * 16 + 3 * 16 * 20 + 2 * 16  # GQA, SwiGLU, two RMSNorms
    assert layer == 1760
    inv = build(SMALL)
    assert inv.total == 50 * 16 + 3 * layer + 16 == 6096  # sliding or full attention: the same tensors
    assert views.formula(inv).total == 6096


def test_heads():
    mlm = build(SMALL, "UltrabertForMaskedLM")
    assert mlm.total == 6096 + 8 * 16 + 16 * 8 + 50 * 16  # linear1, linear2, decoder: no biases, untied
    assert build(dict(SMALL, tie_word_embeddings=True), "UltrabertForMaskedLM").total == 6096 + 2 * 8 * 16
    qa = build(dict(SMALL, num_labels=5), "UltrabertForQuestionAnswering")
    assert qa.total == 6096 + 2 * 16 + 2  # two outputs whatever num_labels says
    assert build(dict(SMALL, num_labels=5), "UltrabertForTokenClassification").total == 6096 + 5 * 16 + 5


def test_config_defaults_by_hand():
    """UltrabertConfig()'s defaults are Llama-7B's body: V 32,000, H 4096, L 32, A 32, I 11,008."""
    v, h, n, i = 32000, 4096, 32, 11008
    layer = 4 * h * h + 3 * h * i + 2 * h
    assert layer == 202383360
    assert build({"model_type": "ultrabert"}).total == v * h + n * layer + h == 6607343616


def test_layer_types_are_read_as_transformers_reads_them():
    """``layer_types`` (else a legacy ``attention_windows``: 0 full attention, else sliding; else every third
    layer full) decides each layer's kind, which the step reads (cross-checked against PyTorch in
    tests/crosscheck/test_costs_reference.py); UltrabertConfig refuses a list of another length or kind."""
    from .helpers import expect_error

    raw = {"model_type": "ultrabert", "vocab_size": 20, "hidden_size": 8, "num_attention_heads": 2,
           "num_hidden_layers": 3, "intermediate_size": 8}
    assert build(raw).config.layer_kinds == ("sliding_attention", "sliding_attention", "full_attention")
    given = ["full_attention", "sliding_attention", "full_attention"]
    assert build(dict(raw, layer_types=given)).config.layer_kinds == tuple(given)
    legacy = build(dict(raw, attention_windows=[0, 4, 6]))
    assert legacy.config.layer_kinds == ("full_attention", "sliding_attention", "sliding_attention")
    assert legacy.config.window == 4  # the first nonzero window becomes sliding_window
    for bad in (given[:2], given + ["full_attention"], ["full_attention", "local", "full_attention"], "full_attention"):
        expect_error("bad_value", build, dict(raw, layer_types=bad))
    expect_error("bad_value", build, dict(raw, attention_windows=[0, 4]))
    # the counts do not change: the kinds shape no tensor
    assert build(dict(raw, layer_types=given)).total == build(raw).total


def test_lora_on_the_identity_decoder_is_refused_as_peft_refuses_it():
    # modeling_ultrabert.py (transformers 5.23): UltrabertForMaskedLM sets ``self.decoder = nn.Identity()`` beside
    # ``head.decoder`` (an nn.Linear); peft matches "decoder" against both and raises on the Identity ("Target module
    # Identity() is not supported"), while "head.decoder" names the Linear alone.
    from calculator import peft
    from calculator.build import build
    from calculator.errors import CalcError

    inv = build({"model_type": "ultrabert"}, "UltrabertForMaskedLM", None)
    try:
        peft.lora(inv, 4, ["decoder"], "none", None, None)
    except CalcError as e:
        assert e.code == "lora_target_unsupported" and e.params["module"] == "decoder"
    else:
        raise AssertionError("a target matching the Identity decoder was accepted")
    plan = peft.lora(inv, 4, ["head.decoder"], "none", None, None)
    v, h = inv.config["vocab_size"], inv.config["hidden_size"]
    assert plan.trainable == 4 * (v + h)  # lora_A [4, H] and lora_B [V, 4] on head.decoder alone


def test_layer_kinds_and_legacy_windows_travel_in_the_share_link():
    """A share link (``extra_query``, read back by ``_resolve``) reproduces the layer kinds and a legacy
    checkpoint's window, so the link's training step is the pasted config's (under SDPA the sliding layers' mask
    from L = window on); UltrabertConfig's default kinds and no ``attention_windows`` travel as nothing."""
    from calculator.costs import compute, settings
    from calculator.page.state import _resolve, extra_query

    raw = {"model_type": "ultrabert", "vocab_size": 20, "hidden_size": 8, "num_attention_heads": 2,
           "num_hidden_layers": 3, "intermediate_size": 8}
    fields = {key: str(value) for key, value in raw.items()}
    for extra in ({"layer_types": ["full_attention", "full_attention", "sliding_attention"], "sliding_window": 3},
                  {"attention_windows": [0, 3, 5]}, {"layer_types": ["sliding_attention"] * 3, "attention_windows": [2, 0, 0]}):
        pasted = build(dict(raw, **extra))
        query = extra_query(dict(raw, **extra), pasted.family, pasted.config)
        linked = build(_resolve({**fields, **query})[0])
        assert (linked.config.layer_kinds, linked.config.window) == (pasted.config.layer_kinds, pasted.config.window)
        step = settings(2, 6, attention="sdpa")
        assert compute(linked, step) == compute(pasted, step), extra
        # the kinds change the step: not the default's
        assert compute(pasted, step) != compute(build(dict(raw, sliding_window=extra.get("sliding_window", 128))), step)
    default = build(raw)
    assert not {"layer_types", "attention_windows"} & set(extra_query(raw, default.family, default.config))
