"""Configs that name custom code transformers 5.23 ports natively (issue 34 items 3 and 4). Standard library only.

jina-embeddings-v3's config says "xlm-roberta" with its task adapters; gte's says "new". The note says which
class is counted, what the native class's tensors are beside the custom code's, and jina's adapters apart.
Expected numbers are hand arithmetic written out below.
"""
import json

from calculator import api
from calculator.build import build

from .test_reader_review_2 import JINA_V3

GTE_NEW = {
    "model_type": "new", "architectures": ["NewModel"],
    "auto_map": {"AutoConfig": "Alibaba-NLP/new-impl--configuration.NewConfig",
                 "AutoModel": "Alibaba-NLP/new-impl--modeling.NewModel"},
    "vocab_size": 250048, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
    "intermediate_size": 3072, "type_vocab_size": 1, "max_position_embeddings": 8192, "pack_qkv": True,
}


def test_jina_v3_adapters_reported_apart_from_the_count():
    r, v, h, t, i, n = 4, 250002, 1024, 1, 4096, 24
    # r·(in + out) per module and task: the two tables, Wqkv, out_proj, fc1, fc2 per layer, the pooler
    per_task = r * ((v + h) + (t + h) + n * ((h + 3 * h) + (h + h) + (h + i) + (i + h)) + (h + h))
    assert per_task == 2589260
    base = (v + t) * h + 2 * h + n * (4 * (h * h + h) + 2 * h * i + i + h + 4 * h) + h * h + h
    assert base == 559364096
    for lang, words in (("en", "each task's adapter: 2,589,260"), ("zh", "每个任务的适配器：2,589,260")):
        out = api.compute_config(json.dumps(JINA_V3), lang)
        assert out["ok"] and out["total"] == 567754752  # still the class the config names, as its note says
        note = out["notes"][0]
        assert words in note and f"{base:,}" in note and f"{5 * per_task:,}" in note, note
        assert f"{base + per_task:,}" in note and "JinaEmbeddingsV3Model" in note and "conversion_mapping" in note
    # Set model_type as the note says: the native class, whose count is the base.
    native = dict(JINA_V3, model_type="jina_embeddings_v3", architectures=["JinaEmbeddingsV3Model"])
    assert build(native).total == base


def test_gte_new_is_counted_as_the_native_class_and_says_so():
    out = api.compute_config(json.dumps(GTE_NEW), "en")
    assert out["ok"] and out["total"] == 305368320  # GteModel: gte-multilingual-base's sizes
    assert "GteModel" in out["notes"][0] and "counts are the same" in out["notes"][0]
    out = api.compute_config(json.dumps(GTE_NEW), "zh")
    assert "GteModel" in out["notes"][0] and "参数量相同" in out["notes"][0]
    # Without the auto_map (or with another one) "new" is no model_type this calculator knows.
    plain = {k: v for k, v in GTE_NEW.items() if k != "auto_map"}
    assert not api.compute_config(json.dumps(plain), "en")["ok"]
