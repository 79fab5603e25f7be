"""ModernVBERT facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from ModernVBertConfig's defaults (its sub-configs' defaults: a
SigLIP vision tower of width 768, 12 layers, 224-pixel images in 16-pixel patches, with its pooling head; a
ModernBERT-base text encoder, 149,014,272 parameters; a pixel-shuffle factor of 4), never values the code produced.
"""
from calculator.build import build
from calculator.errors import CalcError

DEFAULT = {"model_type": "modernvbert"}


def _vision(hv=768, iv=3072, lv=12, c=3, p=16, image=224, head=True):
    g = (image // p) ** 2
    layer = 4 * hv * hv + 4 * hv + 2 * 2 * hv + 2 * hv * iv + iv + hv  # attention, two norms, MLP
    pool = hv + 3 * hv * hv + 3 * hv + hv * hv + hv + 2 * hv + 2 * hv * iv + iv + hv
    return hv * c * p * p + hv + g * hv + lv * layer + 2 * hv + (pool if head else 0)


def _modernbert_base():
    v, h, i, n = 50368, 768, 1152, 22
    return v * h + h + n * (4 * h * h + 3 * h * i + h) + (n - 1) * h + h


def test_default_model_is_vision_tower_connector_and_text_encoder():
    assert _modernbert_base() == 149_014_272
    vision = _vision()
    assert vision == 92_884_224
    connector = 768 * 768 * 4 * 4
    total = vision + connector + _modernbert_base()
    assert build(dict(DEFAULT), "ModernVBertModel").total == total == 251_335_680


def test_the_text_encoder_is_modernbert_tensor_for_tensor():
    ours = [(t.name[len("text_model."):], t.shape) for t in build(dict(DEFAULT), "ModernVBertModel").tensors
            if t.name.startswith("text_model.")]
    theirs = [(t.name, t.shape) for t in build({"model_type": "modernbert"}, "ModernBertModel").tensors]
    assert ours == theirs


def test_nested_config_and_form_keys_read_the_same():
    nested = dict(DEFAULT, text_config={"hidden_size": 64, "num_attention_heads": 4},
                  vision_config={"num_hidden_layers": 2, "vision_use_head": False})
    flat = dict(DEFAULT, text_hidden_size=64, text_num_attention_heads=4, vision_num_hidden_layers=2,
                vision_vision_use_head=False)
    flat = {k.replace("vision_vision_", "vision_"): v for k, v in flat.items()}
    assert build(nested).total == build(flat).total
    text = 50368 * 64 + 64 + 22 * (4 * 64 * 64 + 3 * 64 * 1152 + 64) + 21 * 64 + 64
    assert build(nested).total == _vision(lv=2, head=False) + 64 * 768 * 4 * 4 + text


def test_masked_lm_head_is_untied_by_default():
    base = build(dict(DEFAULT), "ModernVBertModel").total
    h, v = 768, 50368
    head = h * h + h + v * h + v  # projection_head dense (no bias) and norm, lm_head with its bias
    assert build(dict(DEFAULT), "ModernVBertForMaskedLM").total == base + head
    assert build(dict(DEFAULT, tie_word_embeddings=True), "ModernVBertForMaskedLM").total == base + head - v * h


def test_vision_heads_must_divide_the_vision_width():
    try:
        build(dict(DEFAULT, vision_config={"hidden_size": 10, "num_attention_heads": 4}))
    except CalcError as exc:
        assert exc.code == "heads_not_divisor"
    else:
        raise AssertionError("accepted 4 heads for a width of 10")


def test_the_vision_tower_is_its_own_group_in_both_composites():
    """Issue 34: the vision tower is not counted as embeddings in the groups (its own, "vision"), still in the
    embeddings' section (freezing the embeddings freezes it, as before); both languages name it."""
    from calculator.i18n import label
    from calculator.views import group_breakdown, section_breakdown

    for model_type, vision in (("modernvbert", _vision()), ("ultravbert", _vision(head=False))):
        inv = build({"model_type": model_type})
        groups = {s.key: s.count for s in group_breakdown(inv)}
        assert groups["vision"] == vision, model_type
        for t in inv.tensors:
            assert (t.group == "vision") == t.name.startswith("vision_model."), t.name
        assert [s.key for s in section_breakdown(inv)][0] == "embeddings"
        first = section_breakdown(inv)[0]
        assert [c.key for c in first.children][:2] == ["vision", "embeddings"], model_type
    assert label("vision", "en") == "Vision tower" and label("vision", "zh") == "视觉塔"


def test_step_keys_are_read_inside_text_config():
    """The training step's keys of the text encoder live in text_config (config.json nests them); the form's
    and the link's prefixed key wins over the nested one; classifier_pooling and classifier_dropout are the top
    level's. Expected values are the ones written in the configs below."""
    text = {"vocab_size": 20, "pad_token_id": 0, "hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 2,
            "local_attention": 6, "attention_dropout": 0.2, "layer_types": ["sliding_attention", "full_attention"]}
    c = build({"model_type": "modernvbert", "text_config": text, "classifier_pooling": "mean",
               "classifier_dropout": 0.3}).config
    assert (c["text_local_attention"], c["text_attention_dropout"]) == (6, 0.2)
    assert (c["classifier_pooling"], c["classifier_dropout"]) == ("mean", 0.3)
    assert c.layer_kinds == ("sliding_attention", "full_attention")
    c = build({"model_type": "modernvbert", "text_config": text, "text_local_attention": 10}).config
    assert c["text_local_attention"] == 10
    c = build({"model_type": "modernvbert"}).config
    assert (c["text_local_attention"], c["text_attention_dropout"], c["classifier_pooling"]) == (128, 0.0, "cls")
