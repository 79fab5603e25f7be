"""UltraVBERT facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from UltraVBertConfig's defaults (a SigLIP vision tower of width
768, 12 layers, 224-pixel images in 16-pixel patches, without its pooling head; an UltraBERT text encoder with
UltrabertConfig's defaults, Llama-7B's sizes; a pixel-shuffle factor of 4), never values the code produced.
"""
from calculator.build import build

DEFAULT = {"model_type": "ultravbert"}


def _vision(hv=768, iv=3072, lv=12, c=3, p=16, image=224, head=False):
    g = (image // p) ** 2
    layer = 4 * hv * hv + 4 * hv + 2 * 2 * hv + 2 * hv * iv + iv + hv
    pool = hv + 3 * hv * hv + 3 * hv + hv * hv + hv + 2 * hv + 2 * hv * iv + iv + hv
    return hv * c * p * p + hv + g * hv + lv * layer + 2 * hv + (pool if head else 0)


def _ultrabert(v=32000, h=4096, n=32, i=11008):
    return v * h + n * (4 * h * h + 3 * h * i + 2 * h) + h


def test_default_model_is_vision_tower_connector_and_text_encoder():
    assert _vision() == 85_797_120
    connector = 4096 * 768 * 4 * 4 + 4096  # the projection, then the RMSNorm
    total = _vision() + connector + _ultrabert()
    assert total == 6_743_476_480
    assert build(dict(DEFAULT), "UltraVBertModel").total == total


def test_the_text_encoder_is_ultrabert_tensor_for_tensor():
    small = {"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 96,
             "vocab_size": 100}
    ours = [(t.name[len("text_model."):], t.shape)
            for t in build(dict(DEFAULT, text_config=small), "UltraVBertModel").tensors
            if t.name.startswith("text_model.")]
    theirs = [(t.name, t.shape) for t in build(dict(small, model_type="ultrabert"), "UltrabertModel").tensors]
    assert ours == theirs


def test_pooling_head_only_where_siglip_defaults_it():
    # UltraVBertConfig builds its own vision config without the head; a given vision_config has SigLIP's default.
    given = build(dict(DEFAULT, vision_config={"num_hidden_layers": 12})).total
    assert given - build(dict(DEFAULT)).total == _vision(head=True) - _vision()


def test_masked_lm_head():
    base = build(dict(DEFAULT), "UltraVBertModel").total
    h, p, v = 4096, 768, 32000
    assert build(dict(DEFAULT), "UltraVBertForMaskedLM").total == base + 2 * p * h + v * h
    assert build(dict(DEFAULT, tie_word_embeddings=True), "UltraVBertForMaskedLM").total == base + 2 * p * h
