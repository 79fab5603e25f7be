"""ESM C, transformers 5.23's native class. Standard library only (runs in Pyodide).

Expected numbers are hand arithmetic written out below; the tensor-by-tensor
comparison with transformers 5.23 is tests/crosscheck/test_transformers.py.
"""
from calculator import views
from calculator.build import build
from calculator.errors import CalcError
from calculator.presets import PRESETS

SMALL = {"model_type": "esmc", "vocab_size": 64, "hidden_size": 16, "num_hidden_layers": 2,
         "num_attention_heads": 2, "intermediate_size": 20}


def test_small_model_by_hand():
    layer = 4 * 16 * 16 + 2 * 16 + 3 * 16 * 20 + 2 * (2 * 16)  # QKVO, q_norm and k_norm (no bias), SwiGLU, 2 LNs
    assert layer == 2080
    inv = build(SMALL)
    assert inv.total == 64 * 16 + 2 * layer + 16 == 5200  # the final norm has no bias
    assert views.formula(inv).total == 5200
    shapes = {t.name: t.shape for t in inv.tensors}
    assert shapes["layers.0.self_attn.q_norm.weight"] == (16,)
    assert "layers.0.self_attn.q_norm.bias" not in shapes and "norm.bias" not in shapes


def test_grouped_query_attention_is_refused():
    try:
        build(dict(SMALL, num_key_value_heads=1))
    except CalcError as exc:
        assert exc.code == "bad_value"
    else:
        raise AssertionError("ESMC refuses num_key_value_heads != num_attention_heads")


def test_published_300m_by_hand():
    """ESMC-300M: 64 tokens, H 960, L 30, A 15, I = (8/3 · 960 + 255) // 256 · 256 = 2560."""
    h, n, i = 960, 30, 2560
    layer = 4 * h * h + 2 * h + 3 * h * i + 4 * h
    assert layer == 11064960
    preset = PRESETS["biohub/ESMC-300M"].config
    assert preset["intermediate_size"] == i
    assert build(preset, "EsmcModel").total == 64 * h + n * layer + h == 332011200
    head = (h * h + h) + 2 * h + (64 * h + 64)
    assert build(preset, "EsmcForMaskedLM").total == 332011200 + head == 332997184
