"""mT5's encoder (``MT5EncoderModel`` in ``modeling_mt5.py``): T5 v1.1's encoder (:mod:`.t5`) with MT5Config's defaults.

``MT5Config`` defaults to a 250,112-row table, d_model 512, d_ff 1024, 8 layers, 6 heads and a gated
feed-forward network ("gated-gelu"); the tensors are T5's, the relative bias in block 0 only.
"""
from __future__ import annotations

from . import t5
from .base import Architecture, Preset, Task
from .common import L

FIELDS = t5.fields(250112, 512, 1024, 8, 6, "gated-gelu")

FAMILY = t5.FAMILY.derive(
    model_type="mt5",
    base="MT5EncoderModel",
    fields=FIELDS,
    read=t5.reader(FIELDS),
    architectures=(Architecture(name="MT5EncoderModel", task=Task.MODEL, prefix="", pooler=False),),
    title=L("mT5 (MT5EncoderModel)", "mT5（MT5EncoderModel）"),
    presets=(
        # https://huggingface.co/google/mt5-xxl/blob/main/config.json (MT5ForConditionalGeneration)
        Preset("google/mt5-xxl", t5.t5_config("mt5", 250112, 4096, 10240, 24, 64, "gated-gelu"), "MT5EncoderModel"),
        # https://huggingface.co/google/mt5-xl/blob/main/config.json (MT5ForConditionalGeneration): Hunyuan-DiT's
        # second text encoder is this encoder (t2i/mt5 in Tencent-Hunyuan/HunyuanDiT).
        Preset("google/mt5-xl", t5.t5_config("mt5", 250112, 2048, 5120, 24, 32, "gated-gelu"), "MT5EncoderModel"),
        # https://huggingface.co/google/mt5-base/blob/main/config.json (MT5ForConditionalGeneration)
        Preset("google/mt5-base", t5.t5_config("mt5", 250112, 768, 2048, 12, 12, "gated-gelu"), "MT5EncoderModel"),
    ),
    # A config.json of the whole model (what the checkpoints list) is counted as the encoder class, with a note.
    encoder_of=("MT5Model", "MT5ForConditionalGeneration"),
    rank=86,
)
