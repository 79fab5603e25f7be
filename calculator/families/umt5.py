"""umT5's encoder (``UMT5EncoderModel`` in ``modeling_umt5.py``): mT5's (:mod:`.mt5`), but every block has its
own relative attention bias (``UMT5Attention`` builds ``relative_attention_bias`` in each layer), not only block 0.

Wan 2.1's and 2.2's text encoder is umt5-xxl's encoder (256,384 rows, 24 blocks of 4096).
"""
from __future__ import annotations

from . import t5
from .base import Architecture, Preset, Task
from .common import L

FIELDS = t5.fields(250112, 512, 1024, 8, 6, "gated-gelu")

FAMILY = t5.FAMILY.derive(
    model_type="umt5",
    base="UMT5EncoderModel",
    fields=FIELDS,
    read=t5.reader(FIELDS),
    backbone=t5.backbone_for(True),
    formula=t5.formula_for(True),
    costs=t5.costs_for(True),
    peft_targets=(),  # peft 0.21.2 names no default LoRA targets for umt5 (it does for t5 and mt5: q, v)
    architectures=(Architecture(name="UMT5EncoderModel", task=Task.MODEL, prefix="", pooler=False),),
    title=L("umT5 (UMT5EncoderModel)", "umT5（UMT5EncoderModel）"),
    presets=(
        # https://huggingface.co/google/umt5-xxl/blob/main/config.json (UMT5ForConditionalGeneration); the encoder
        # alone: https://huggingface.co/Wan-AI/Wan2.1-T2V-14B-Diffusers/blob/main/text_encoder/config.json
        # (UMT5EncoderModel).
        Preset("google/umt5-xxl", t5.t5_config("umt5", 256384, 4096, 10240, 24, 64, "gated-gelu"),
                  "UMT5EncoderModel"),
        # https://huggingface.co/google/umt5-base/blob/main/config.json (UMT5ForConditionalGeneration)
        Preset("google/umt5-base", t5.t5_config("umt5", 256384, 768, 2048, 12, 12, "gated-gelu"),
                  "UMT5EncoderModel"),
    ),
    # A config.json of the whole model (what the checkpoints list) is counted as the encoder class, with a note.
    encoder_of=("UMT5Model", "UMT5ForConditionalGeneration"),
    rank=87,
)
