"""YOSO (``modeling_yoso.py``, 2021): BERT's layer with attention by Bernoulli sampling of LSH collisions.

The tensors are Nyströmformer's (:mod:`.nystromformer`): BERT's layer, ``max_position_embeddings + 2``
position rows, no pooler, RoBERTa's sequence-classification head, DistilBERT's multiple-choice head, two
QA outputs whatever ``num_labels`` says; the depthwise ``Conv2d(A, A, (conv_window, 1), groups=A,
bias=False)`` over the values exists only when ``conv_window`` is set (yoso-4096 leaves it null).

``use_expectation``, ``hash_code_len``, ``num_hash``, ``use_fast_hash`` and ``lsh_backward`` shape no tensor.
With ``use_expectation`` (the default) the attention is PyTorch code: 1 - arccos(q·k)/π raised to
``hash_code_len``; without it, the LSH cumulation needs the ``kernels-community/yoso`` CUDA kernels.
"""
from __future__ import annotations

import random
from typing import Any

from ..config import Field
from . import bert, roberta
from .base import Architecture, Family, Preset, with_defaults
from .common import BERT_FIELDS, L
from .nystromformer import backbone_with, formula_with, multiple_choice_head

FIELDS = with_defaults(BERT_FIELDS, vocab_size=50265, max_position_embeddings=4096, type_vocab_size=1) + (
    Field("conv_window", None, optional=True,
          label=L("Depthwise convolution kernel over the values (conv_window; null: none)",
                  "V 上逐通道卷积的卷积核长度（conv_window；null 表示没有卷积）"), sample=(1, 9)),
    Field("hash_code_len", 9, label=L("Hash code length (hash_code_len)", "哈希码长度（hash_code_len）")),
    Field("num_hash", 64, label=L("Hashes (num_hash)", "哈希次数（num_hash）")),
    Field("use_expectation", True, kind="bool",
          label=L("Attention as the collision expectation (use_expectation)", "用碰撞概率的期望计算注意力（use_expectation）")),
)


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """H a multiple of the heads (HF requires it); the convolution left out half the time (null)."""
    heads = rng.choice([1, 2, 3, 4, 6, 8])
    config["num_attention_heads"] = heads
    config["hidden_size"] = heads * rng.randint(1, 12)
    if rng.random() < 0.5:
        config.pop("conv_window", None)


def yoso_config() -> dict[str, Any]:
    """uw-madison/yoso-4096's config.json, size-relevant keys (YosoConfig's defaults are documented as this
    checkpoint's: https://huggingface.co/uw-madison/yoso-4096/blob/main/config.json)."""
    return {
        "model_type": "yoso", "vocab_size": 50265, "hidden_size": 768, "num_hidden_layers": 12,
        "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 4096,
        "type_vocab_size": 1, "hash_code_len": 9, "num_hash": 64, "use_expectation": True,
    }


_P = "yoso."
FAMILY = Family(
    model_type="yoso",
    base="YosoModel",
    fields=FIELDS,
    backbone=backbone_with("conv_window"),
    pad_token_id=1,
    architectures=(
        Architecture(name="YosoModel", prefix="", pooler=False),
        Architecture(name="YosoForMaskedLM", prefix=_P, pooler=False, head=bert.mlm_head, ties_embeddings=True),
        Architecture(name="YosoForSequenceClassification", prefix=_P, pooler=False,
                     head=roberta.classification_head, uses_num_labels=True),
        Architecture(name="YosoForMultipleChoice", prefix=_P, pooler=False, head=multiple_choice_head),
        Architecture(name="YosoForTokenClassification", prefix=_P, pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        # its __init__ sets config.num_labels = 2 first, whatever the config says
        Architecture(name="YosoForQuestionAnswering", prefix=_P, pooler=False, head=bert.linear_head("qa_outputs", 2)),
    ),
    title={"en": "YOSO", "zh": "YOSO"},
    formula=formula_with("conv_window"),
    presets=(Preset("uw-madison/yoso-4096", yoso_config(), "YosoForMaskedLM"),),
    sample=sample,
    rank=84,
)
