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


# -- the training step (issue 34): its figures against PyTorch are tests/crosscheck/test_costs_reference.py's


SMALL = {"model_type": "neomme", "vocab_size": 40, "embedding_rank": 6, "hidden_size": 8, "intermediate_size": 12,
         "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
         "layer_types": ["sliding_attention", "full_attention", "full_attention"],
         "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 10000.0,
                                                "partial_rotary_factor": 0.5}}}


def test_step_forward_flops_are_the_products_written_out():
    """Per token: the factor R→H, per layer Q, gate and output (A·d·H each), K and V (K·d·H each), up and down
    (H·I each), QKᵀ and probabilities·V (L·A·d each), then the decoder's two factors H→R and R→V; 2 FLOPs each."""
    from calculator.costs import compute, settings

    b, n = 2, 5
    r, h, i, a, k, d, v = 6, 8, 12, 4, 2, 16, 40
    per_layer = 3 * a * d * h + 2 * k * d * h + 2 * h * i + 2 * n * a * d
    per_token = 2 * (r * h + 3 * per_layer + h * r + r * v)
    got = compute(build(SMALL, "NeoMMEForMaskedLM"), settings(b, n))
    assert got.forward == b * n * per_token
    # everything trains, so each product's two operands need a gradient (the table's output too: the table
    # trains): two products of the same size each in the backward
    assert got.backward == 2 * got.forward
    untied = compute(build(dict(SMALL, tie_word_embeddings=False), "NeoMMEForMaskedLM"), settings(b, n))
    assert untied.forward == got.forward  # the same products, tied or not


def test_layer_kinds_and_rotary_factors_are_kept_and_travel_in_the_link():
    from calculator.page.state import _resolve, extra_query

    inv = build(SMALL)
    assert inv.config["layer_types"] == SMALL["layer_types"]
    assert inv.config["rope_parameters"] == {"full_attention": {"partial_rotary_factor": 0.5}}  # rope_theta: no figure
    query = extra_query(SMALL, inv.family, inv.config)
    assert set(query) >= {"layer_types", "rope_parameters"}
    params = {key: value for key, value in SMALL.items() if key not in ("layer_types", "rope_parameters")}
    raw, _, _, _ = _resolve({**{key: str(value) for key, value in params.items()}, **query})
    again = build(raw)
    assert again.config["layer_types"] == SMALL["layer_types"]
    assert again.config["rope_parameters"] == inv.config["rope_parameters"]
    # the defaults travel as nothing
    assert not {"layer_types", "rope_parameters"} & set(extra_query(DEFAULT, build(DEFAULT).family, build(DEFAULT).config))


def test_sdpa_is_the_flash_kernel_and_autocast_the_same_products():
    """SDPA (cross-checked in tests/crosscheck/test_costs_sdpa_reference.py): the same two products forward; the
    kernel's backward computes the scores again, one product of 2·B·A·L·L·d more per layer than eager's four.
    Under autocast (tests/crosscheck/test_costs_autocast.py) the products are the same products."""
    from calculator.costs import compute, settings

    inv = build(SMALL)
    b, n = 2, 4
    eager, sdpa = compute(inv, settings(b, n)), compute(inv, settings(b, n, attention="sdpa"))
    c = inv.config
    extra = c["num_hidden_layers"] * 2 * b * c["num_attention_heads"] * n * n * c["head_dim"]
    assert (sdpa.forward, sdpa.backward) == (eager.forward, eager.backward + extra)
    mixed = compute(inv, settings(b, n, autocast="bf16"))
    assert (mixed.forward, mixed.backward) == (eager.forward, eager.backward)


def test_per_layer_config_is_read_as_transformers_applies_it_and_travels_in_the_link():
    """``per_layer_config`` (PreTrainedConfig's heterogeneity, transformers 5.23): given, it replaces NeoMMEConfig's
    derived one whole, so a layer it leaves out takes the global ``sliding_window`` (a full layer too); keys are
    ``int(key)`` in [0, L); a window is None or a positive int (not a bool); ``skip`` is a list of names, unread;
    another attribute only when equal to the global value (else the model's global read raises); a sliding layer
    without a window is refused (NeoMMEAttention adds 1 to it). Cross-checked in
    tests/crosscheck/test_transformers.py (random configs) and test_costs_sdpa_reference.py (the windows)."""
    from calculator.families import neomme
    from calculator.page.state import _resolve, extra_query

    kinds = ("sliding_attention", "full_attention", "full_attention")
    given = {"02": {"sliding_window": 5}, "0": {"skip": ["mlp"], "sliding_window": 9}, "1": {"intermediate_size": 12}}
    raw = dict(SMALL, per_layer_config=given)
    inv = build(raw)
    assert inv.total == build(SMALL).total  # a window shapes no tensor
    assert inv.config["per_layer_config"] == {"0": {"sliding_window": 9}, "2": {"sliding_window": 5}}
    # layer 1 (full) is not named: the global window, 256
    assert neomme.layer_windows(kinds, 256, inv.config["per_layer_config"]) == [9, 256, 5]
    assert neomme.layer_windows(kinds, 256, {}) == [256, 256, 256]
    assert neomme.layer_windows(kinds, 256) == [256, None, None]  # NeoMMEConfig's own: no window on a full layer
    query = extra_query(raw, inv.family, inv.config)
    assert "per_layer_config" in query
    params = {key: str(value) for key, value in SMALL.items() if key not in ("layer_types", "rope_parameters")}
    again = build(_resolve({**params, **query})[0])
    assert again.config["per_layer_config"] == inv.config["per_layer_config"]
    assert "per_layer_config" not in extra_query(SMALL, inv.family, build(SMALL).config)
    for bad in ({"3": {"sliding_window": 2}}, {"-1": {"sliding_window": 2}}, {"x": {"sliding_window": 2}},
                {"0": {"sliding_window": None}}, {"0": {"sliding_window": True}}, {"0": {"sliding_window": 0}},
                {"0": {"sliding_window": 2.0}}, {"0": {"intermediate_size": 13}}, {"0": {"rope_theta": 5.0}},
                {"0": {"skip": "mlp"}}, {"0": None}, [{"sliding_window": 3}]):
        assert _refused(dict(SMALL, per_layer_config=bad), "bad_value"), bad
