"""Field declarations and helpers shared by the BERT-like families (BERT, RoBERTa, ELECTRA, ALBERT and their kin).

A family takes these as they are, or with its own default (:func:`base.with_defaults`);
each carries its labels in both languages and the range the cross-check draws from.
"""
from __future__ import annotations

import json
import random
from typing import Any, Mapping

from ..config import MAX_LAYERS, Field
from .base import Extra, IgnoredKey
from ..i18n import L  # noqa: F401 - L: the one way to write a word in both languages; families import it here


VOCAB = Field("vocab_size", 30522, label=L("Vocabulary size (V)", "词表大小（V）"), sample=(1, 5000))
HIDDEN = Field("hidden_size", 768, label=L("Hidden size (H)", "隐藏层维度（H）"), sample=(1, 24))
LAYERS = Field(
    "num_hidden_layers", 12, minimum=0, maximum=MAX_LAYERS,
    label=L("Encoder layers (L)", "编码器层数（L）"), sample=(0, 4),
)
HEADS = Field("num_attention_heads", 12, label=L("Attention heads (A)", "注意力头数（A）"), sample=(1, 16))
INTERMEDIATE = Field(
    "intermediate_size", 3072, label=L("Feed-forward inner size (I)", "前馈网络中间层维度（I）"), sample=(1, 300),
)
POSITIONS = Field("max_position_embeddings", 512, label=L("Positions (P)", "最大位置数（P）"), sample=(1, 600))
TOKEN_TYPES = Field(
    "type_vocab_size", 2, minimum=0, label=L("Token types (T)", "分段类型数（T）"), sample=(0, 4),
)  # 0 builds a [0, H] table in transformers: counted as built
EMBEDDING = Field("embedding_size", 128, label=L("Embedding size (E)", "嵌入维度（E）"), sample=(1, 64))
LABELS = Field("num_labels", 2, label=L("Number of labels (num_labels)", "标签数（num_labels）"), sample=(1, 9))
TIE = Field(
    "tie_word_embeddings", True, kind="bool",
    label=L("Tie the output projection to the input embeddings", "输出投影与输入词嵌入共享权重"),
    sample=(0, 1),
)

BERT_FIELDS = (VOCAB, HIDDEN, LAYERS, HEADS, INTERMEDIATE, POSITIONS, TOKEN_TYPES, LABELS, TIE)


def heads_divide(hidden: str = "hidden_size", heads: str = "num_attention_heads") -> Any:
    """A :attr:`Family.sample` hook: the drawn hidden size becomes heads × the drawn value (HF requires it)."""

    def adjust(rng: random.Random, config: dict[str, Any]) -> None:
        config[heads] = rng.choice([1, 2, 3, 4, 6, 8, 12, 16])
        config[hidden] = config[heads] * rng.randint(1, 24)

    return adjust


#: transformers before 5 read ``position_embedding_type`` in these families ("relative_key" and
#: "relative_key_query" added a distance table to every layer), and custom code (jina-embeddings-v3's
#: rotary XLM-R) reads it too; transformers 5.23 does not, and builds the learned absolute table.
POSITION_TYPE = IgnoredKey(
    "position_embedding_type", ("absolute",),
    L("position_embedding_type = {value}: transformers 5.23's {architecture} does not read it and builds a learned "
      "absolute position table, as counted here; code that reads it (transformers before 5, or the checkpoint's "
      "own) builds other position tensors.",
      "position_embedding_type = {value}：transformers 5.23 的 {architecture} 不读取这个键，照样构建可学习的绝对位置表，"
      "这里也按此计算；读取它的代码（transformers 5 之前的版本，或 checkpoint 自带的代码）构建的位置编码张量不同。"),
)
#: transformers 5.23 adds a cross-attention block (its own Q/K/V, output and LayerNorm) to every layer of
#: these classes when ``add_cross_attention`` is set (a decoder, with ``is_decoder``); the counts here do not.
CROSS_ATTENTION = IgnoredKey(
    "add_cross_attention", (False,),
    L("add_cross_attention = {value}: transformers 5.23's {architecture} then adds a cross-attention block to "
      "every layer (as a decoder, with is_decoder); the counts here leave those blocks out.",
      "add_cross_attention = {value}：此时 transformers 5.23 的 {architecture} 会给每一层再加一个交叉注意力模块"
      "（作为解码器使用，配合 is_decoder）；这里的数字不含这些模块。"),
)


def _link_value(text: str) -> Any:
    """A link's text for a config key as config.json holds it: a JSON number or list as parsed, else the text."""
    text = text.strip()
    if text[:1] in "-[0123456789" and text:
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, (int, float, list)):
            return value
    return text


def value_extra(key: str, default: Any) -> Extra:
    """An :class:`Extra` for a config.json key with no form field that the count or the training step reads
    (BigBird's ``attention_type``, ``block_size``): in the share link as read, left out when it is
    transformers' ``default``, so the panel costs the config the count read (page and CLI agree)."""
    def to_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
        value = config.get(key, default)
        if value == default and type(value) is type(default):
            return None
        return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))

    return Extra(key, _link_value, to_query)
