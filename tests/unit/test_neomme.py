"""NeoMME facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from NeoMMEConfig's defaults (V 131,072, R 256, H 1,024,
I 3,584, 17 layers, A 16, K 4, d 64, 32-pixel patches), never values the code produced.
"""
from calculator.build import build
from calculator.errors import CalcError

DEFAULT = {"model_type": "neomme"}
V, R, H, I, L, A, K, D, P = 131072, 256, 1024, 3584, 17, 16, 4, 64, 3 * 32 * 32


def _refused(raw, code):
    try:
        build(raw)
    except CalcError as exc:
        return exc.code == code
    return False


def test_default_model_is_its_tables_stem_layers_and_value_table():
    tokens = V * R + H * R
    stem = 2 * P + 2 * H * P + 2 * H * H + H
    layer = 2 + 3 * A * D * H + 2 * K * D * H + A + 2 * H * I
    values = V * K * D
    total = tokens + stem + L * layer + values
    assert total == 262_937_906
    assert build(dict(DEFAULT), "NeoMMEModel").total == total


def test_masked_lm_ties_both_factors_by_default_and_not_otherwise():
    base = build(dict(DEFAULT), "NeoMMEModel").total
    tied = build(dict(DEFAULT), "NeoMMEForMaskedLM")
    assert tied.total == base
    assert tied.state_dict_total == base + H * R + V * R
    assert build(dict(DEFAULT, tie_word_embeddings=False), "NeoMMEForMaskedLM").total == base + H * R + V * R


def test_retrieval_adds_one_projection():
    base = build(dict(DEFAULT), "NeoMMEModel").total
    assert build(dict(DEFAULT), "NeoMMEForRetrieval").total == base + 128 * H


def test_a_layer_lists_its_own_mixing_weights_first():
    names = [t.name for t in build(dict(DEFAULT), "NeoMMEModel").tensors if t.layer == 0]
    assert names[0] == "layers.0.lambdas"
    assert "layers.0.self_attn.exclusive_self_attention.alpha" in names


def test_what_the_config_class_refuses():
    assert _refused(dict(DEFAULT, num_key_value_heads=3), "heads_not_divisor")
    # full attention rotates a quarter of d: 40 // 4 = 10 is not a multiple of 4
    assert _refused(dict(DEFAULT, head_dim=40), "bad_value")
    assert _refused(dict(DEFAULT, num_hidden_layers=2, layer_types=["sliding_attention"] * 2), "bad_value")
    assert _refused(dict(DEFAULT, num_hidden_layers=2, layer_types=["full_attention"]), "bad_value")
    assert _refused(dict(DEFAULT, hidden_act="gelu"), "bad_value")
    # a whole-head factor for full layers, and only full layers: d = 4 rotates 4 dims, accepted
    ok = dict(DEFAULT, head_dim=4, num_hidden_layers=1,
              rope_parameters={"full_attention": {"partial_rotary_factor": 1.0}})
    assert build(ok).total > 0
