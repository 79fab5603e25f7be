"""I-BERT (``modeling_ibert.py``, ``quant_modules.py``): RoBERTa's parameters, plus integer-only quantisation buffers.

Every Linear of the encoder and every embedding table is a ``QuantLinear`` / ``QuantEmbedding``
whose persistent buffers hold an integer copy of the weight (``weight_integer``, the weight's
shape; ``bias_integer``) and its scaling factors (``fc_scaling_factor`` [out], or one
``weight_scaling_factor``); every ``QuantAct`` holds ``x_min``, ``x_max``, ``act_scaling_factor``
(one element each); every ``IntLayerNorm`` a ``shift``. All of them are built whatever
``quant_mode`` says, so ``state_dict`` holds about twice the elements ``parameters()`` does,
while ``num_parameters()`` is RoBERTa's. A module's own parameters come first in ``state_dict``,
then its own buffers, then its children: the order below. The pooler and heads are plain
``nn.Linear`` / ``nn.LayerNorm`` (RoBERTa's).
"""
from __future__ import annotations

from typing import Any

from ..model import TensorList
from . import bert, roberta
from .base import Architecture, Family, Preset, with_defaults
from .common import BERT_FIELDS, L, heads_divide
from .base import IgnoredKey
from .common import POSITION_TYPE

#: Neither key changes a tensor: every quantised module builds its buffers whatever they say.
QUANT_MODE = IgnoredKey(
    "quant_mode", (False,),
    L("quant_mode = {value}: transformers 5.23's {architecture} holds the same parameters and buffers either way, "
      "as counted here; it then runs the integer-only path (integer GELU, softmax and LayerNorm), which this "
      "calculator does not cost.",
      "quant_mode = {value}：无论取值如何，transformers 5.23 的 {architecture} 都持有同样的参数和 buffer（缓冲区），这里也照此计数；"
      "此时它走纯整数计算路径（整数 GELU、softmax 与 LayerNorm），本计算器不计算这条路径下训练一步的开销。"),
)
FORCE_DEQUANT = IgnoredKey(
    "force_dequant", ("none",),
    L("force_dequant = {value}: transformers 5.23's {architecture} holds the same parameters and buffers, as counted "
      "here; it only makes the named non-linear operations run in floating point under quant_mode.",
      "force_dequant = {value}：transformers 5.23 的 {architecture} 持有同样的参数和 buffer（缓冲区），这里也照此计数；"
      "它只让 quant_mode 下指定的非线性运算改用浮点计算。"),
)

FIELDS = with_defaults(BERT_FIELDS, vocab_size=30522)

#: The buffers are listed with the group of the module that holds them (a QuantLinear's with its
#: Linear's); a ``QuantAct`` between blocks is listed with the block's LayerNorm group.
ACT = "layer_norm"


def quant_act(t: TensorList, name: str, section: str, group: str = ACT) -> None:
    """``QuantAct``: three one-element buffers."""
    for b in ("x_min", "x_max", "act_scaling_factor"):
        t.buffer(f"{name}.{b}", (1,), group, section=section)


def quant_linear(t: TensorList, name: str, out: int, inp: int, group: str, layer: int) -> None:
    """``QuantLinear``: weight and bias, then the integer weight, the per-row scaling factors, the integer bias."""
    # not an nn.Linear: peft's LoRA does not wrap it, and the crosscheck sees no "linear" module
    t.add(name + ".weight", (out, inp), group, layer)
    t.add(name + ".bias", (out,), group, layer)
    t.buffer(name + ".weight_integer", (out, inp), group, section="encoder")
    t.buffer(name + ".fc_scaling_factor", (out,), group, section="encoder")
    t.buffer(name + ".bias_integer", (out,), group, section="encoder")


def quant_embedding(t: TensorList, name: str, rows: int, dim: int) -> None:
    """``QuantEmbedding``: the table, its scaling factor (one element), its integer copy."""
    # not an nn.Embedding: num_parameters(exclude_embeddings=True) keeps it, as transformers counts it
    t.add(name + ".weight", (rows, dim), "embeddings")
    t.buffer(name + ".weight_scaling_factor", (1,), "embeddings", section="embeddings")
    t.buffer(name + ".weight_integer", (rows, dim), "embeddings", section="embeddings")


def int_layer_norm(t: TensorList, name: str, dim: int, layer: int | None, section: str) -> None:
    """``IntLayerNorm``: weight and bias, ``shift``, then its output ``QuantAct``."""
    if layer is None:
        t.layer_norm(name, dim, group="embeddings")
    else:
        t.layer_norm(name, dim, layer=layer)
    group = "embeddings" if layer is None else "layer_norm"
    t.buffer(name + ".shift", (1,), group, section=section)
    quant_act(t, name + ".activation", section, group)


def encoder_layer(t: TensorList, prefix: str, i: int, h: int, inter: int) -> None:
    """One ``IBertLayer``: BERT's tensors, each quantised module followed by its buffers."""
    p = f"{prefix}encoder.layer.{i}."
    s = p + "attention.self."
    for proj in ("query", "key", "value"):
        quant_linear(t, s + proj, h, h, "attention_qkv", i)
    for act in ("query_activation", "key_activation", "value_activation", "output_activation", "softmax.act"):
        quant_act(t, s + act, "encoder", "attention_qkv")
    o = p + "attention.output."
    quant_linear(t, o + "dense", h, h, "attention_output", i)
    quant_act(t, o + "ln_input_act", "encoder")
    int_layer_norm(t, o + "LayerNorm", h, i, "encoder")
    quant_act(t, o + "output_activation", "encoder")
    quant_linear(t, p + "intermediate.dense", inter, h, "feed_forward", i)
    quant_act(t, p + "intermediate.output_activation", "encoder")
    quant_linear(t, p + "output.dense", h, inter, "feed_forward", i)
    quant_act(t, p + "output.ln_input_act", "encoder")
    int_layer_norm(t, p + "output.LayerNorm", h, i, "encoder")
    quant_act(t, p + "output.output_activation", "encoder")
    quant_act(t, p + "pre_intermediate_act", "encoder")
    quant_act(t, p + "pre_output_act", "encoder")


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    quant_embedding(t, e + "word_embeddings", c["vocab_size"], h)
    quant_embedding(t, e + "token_type_embeddings", c["type_vocab_size"], h)
    quant_embedding(t, e + "position_embeddings", c["max_position_embeddings"], h)
    quant_act(t, e + "embeddings_act1", "embeddings", "embeddings")
    quant_act(t, e + "embeddings_act2", "embeddings", "embeddings")
    int_layer_norm(t, e + "LayerNorm", h, None, "embeddings")
    quant_act(t, e + "output_activation", "embeddings", "embeddings")
    for i in range(c["num_hidden_layers"]):
        encoder_layer(t, prefix, i, h, c["intermediate_size"])
    if with_pooler:
        bert.pooler(t, c, prefix)


def ibert_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """kssteven/ibert-roberta-{base,large}: roberta-{base,large}'s shape (50265 entries, 514 positions, one type)."""
    return dict(roberta.roberta_config(hidden, layers, heads, model_type="ibert"), quant_mode=False)


P = "ibert."

FAMILY = Family(
    model_type="ibert",
    base="IBertModel",
    fields=FIELDS,
    backbone=backbone,
    pad_token_id=1,
    positions_padded=True,
    architectures=(
        Architecture(name="IBertModel", prefix="", pooler=None),
        Architecture(name="IBertForMaskedLM", prefix=P, pooler=False, head=roberta.lm_head, ties_embeddings=True,
                     output_embeddings="lm_head.decoder"),  # its word table is a QuantEmbedding
        Architecture(name="IBertForSequenceClassification", prefix=P, pooler=False,
                     head=roberta.classification_head, uses_num_labels=True),
        Architecture(name="IBertForMultipleChoice", prefix=P, pooler=True, head=bert.linear_head("classifier", 1)),
        Architecture(name="IBertForTokenClassification", prefix=P, pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="IBertForQuestionAnswering", prefix=P, pooler=False,
                     head=bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "I-BERT", "zh": "I-BERT"},
    formula=bert.formula,
    # https://huggingface.co/kssteven/ibert-roberta-base and -large: RoBERTa checkpoints converted to
    # I-BERT (the research notes, section B); their config.json is roberta-{base,large}'s with
    # model_type "ibert" and quant_mode false. Not fetched here (no Hub access).
    presets=(
        Preset("kssteven/ibert-roberta-base", ibert_config(768, 12, 12), "IBertForMaskedLM"),
        Preset("kssteven/ibert-roberta-large", ibert_config(1024, 24, 16), "IBertForMaskedLM"),
    ),
    sample=heads_divide(),
    rank=73,
    default_attention="eager",
    ignored_keys=(POSITION_TYPE, QUANT_MODE, FORCE_DEQUANT),
)
