"""The "not supported" message names classes that exist in the pinned transformers (issue 35, reader M4).

``calculator/`` is standard-library only, so it carries its own table of the model types transformers
5.23 defines (``calculator/hf_model_types.py``) and its T5 encoder classes; here both are checked against
transformers itself, and the encoder one-liner is run as written (on the meta device, a small T5 config in
place of ``AutoConfig.from_pretrained(NAME)``).
"""
from __future__ import annotations

import transformers
from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

from calculator.errors import ENCODER_CLASSES, ONE_LINER
from calculator.families import FAMILIES
from calculator.hf_model_types import AUTO_MODEL_CLASSES


def test_the_table_is_transformers_own():
    expected = {k: (v if isinstance(v, str) else v[0]) for k, v in MODEL_MAPPING_NAMES.items() if k not in FAMILIES}
    assert AUTO_MODEL_CLASSES == expected
    # Each class exists: exported by transformers (one, an internal text model of Voxtral, only in its module).
    missing = [cls for cls in AUTO_MODEL_CLASSES.values() if not hasattr(transformers, cls)]
    assert missing == ["VoxtralRealtimeTextModel"]
    from transformers.models.voxtral_realtime import modeling_voxtral_realtime

    assert hasattr(modeling_voxtral_realtime, "VoxtralRealtimeTextModel")


def test_the_encoder_classes_exist_and_build_the_encoder_alone():
    import torch

    for model_type, name in ENCODER_CLASSES.items():
        config = transformers.AutoConfig.for_model(model_type, d_model=8, d_kv=4, d_ff=16, num_layers=2,
                                                   num_decoder_layers=2, num_heads=2, vocab_size=32)
        with torch.device("meta"):
            encoder = eval(f"{name}(config).num_parameters()", {name: getattr(transformers, name), "config": config})
            whole = eval(ONE_LINER.replace("AutoConfig.from_pretrained(NAME)", "config"),
                         {"AutoModel": transformers.AutoModel, "config": config})
        # The whole model adds the decoder; the encoder class is the encoder's count alone.
        assert 0 < encoder < whole, (model_type, encoder, whole)
        assert type(transformers.AutoModel.from_config(config)).__name__ == AUTO_MODEL_CLASSES[model_type]
