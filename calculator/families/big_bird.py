"""BigBird (``modeling_big_bird.py``): BERT's tensors, with block-sparse attention that adds none.

* Embeddings, layers and heads are BERT's, with BigBird's defaults: a 50,358-token
  vocabulary and 4,096 positions (a learned table, 4096 × H).
* Block-sparse attention (``attention_type="block_sparse"``, ``block_size``,
  ``num_random_blocks``) decides which positions attend to which; the Q, K, V
  projections are the same [H, H] matrices as full attention, so the sparse
  pattern changes no count. ``use_bias=False`` drops the Q, K, V biases.
* The pooler is a bare ``nn.Linear`` named ``pooler`` (not ``pooler.dense``), and
  every task class keeps it except question answering, whose head is a small
  feed-forward block (``qa_classifier``: intermediate, output, LayerNorm) and a
  ``qa_outputs`` layer that transformers always builds with 2 outputs (it sets
  ``config.num_labels = 2``).
* As a decoder with ``add_cross_attention`` (``BigBirdForCausalLM``), every layer
  gets a second attention block of the same shapes (``crossattention``).
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Mapping

from ..config import Field, read_fields
from ..errors import CalcError
from ..formula import Formula, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, roberta
from .base import Architecture, Family, Preset
from .common import (
    HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, TOKEN_TYPES, VOCAB, L, heads_divide,
)


def _flag(key: str, default: bool, en: str, zh: str) -> Field:
    return Field(key, default, kind="bool", label=L(en, zh), sample=(0, 1))


FIELDS = (
    replace(VOCAB, default=50358),
    HIDDEN,
    LAYERS,
    HEADS,
    INTERMEDIATE,
    replace(POSITIONS, default=4096),
    TOKEN_TYPES,
    _flag("use_bias", True, "Q, K, V biases (use_bias)", "Q、K、V 投影带偏置（use_bias）"),
    _flag("is_decoder", False, "Used as a decoder (is_decoder)", "作为解码器使用（is_decoder）"),
    _flag(
        "add_cross_attention", False, "Cross-attention in every layer (add_cross_attention; needs is_decoder)",
        "每层加交叉注意力（add_cross_attention；需要 is_decoder）",
    ),
    LABELS,
    TIE,
)

#: The attention kinds ``BigBirdAttention`` knows; any other is a ValueError once a layer is built.
ATTENTION_TYPES = ("block_sparse", "original_full")


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and the two refusals transformers makes while building a layer (none with no layers).

    ``attention_type`` shapes no tensor, but a value other than the two kinds stops
    ``BigBirdAttention``; ``add_cross_attention`` without ``is_decoder`` stops ``BigBirdLayer``.
    """
    values = read_fields(FIELDS, raw, {})
    if values["num_hidden_layers"] > 0:
        kind = raw.get("attention_type", "block_sparse")
        if kind not in ATTENTION_TYPES:
            raise CalcError("bad_value", key="attention_type", value=kind)
        if values["add_cross_attention"] and not values["is_decoder"]:
            raise CalcError("bad_value", key="add_cross_attention", value="true (is_decoder is false)")
    return values


def attention(t: TensorList, p: str, h: int, i: int, bias: bool) -> None:
    """``BigBirdAttention``: Q, K, V (bias if use_bias), then the output dense and its LayerNorm."""
    for proj in ("query", "key", "value"):
        t.linear(p + "self." + proj, h, h, "attention_qkv", i, bias=bias)
    t.linear(p + "output.dense", h, h, "attention_output", i)
    t.layer_norm(p + "output.LayerNorm", h, layer=i)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, inter = c["hidden_size"], c["intermediate_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}encoder.layer.{i}."
        attention(t, p + "attention.", h, i, c["use_bias"])
        if c["add_cross_attention"]:
            attention(t, p + "crossattention.", h, i, c["use_bias"])
        t.linear(p + "intermediate.dense", inter, h, "feed_forward", i)
        t.linear(p + "output.dense", h, inter, "feed_forward", i)
        t.layer_norm(p + "output.LayerNorm", h, layer=i)
    if with_pooler:
        t.linear(prefix + "pooler", h, h, "pooler")


def qa_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``BigBirdForQuestionAnsweringHead``: a feed-forward block with its LayerNorm, then 2 outputs."""
    h, inter = c["hidden_size"], c["intermediate_size"]
    t.linear("qa_classifier.intermediate.dense", inter, h, "head")
    t.linear("qa_classifier.output.dense", h, inter, "head")
    t.layer_norm("qa_classifier.output.LayerNorm", h, group="head")
    t.linear("qa_classifier.qa_outputs", 2, h, "head")


# ------------------------------------------------------------------ formula


def formula(inv: Inventory) -> Formula:
    """BERT's count; Q, K, V biases only with use_bias; a second attention block per layer with cross-attention."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    # one attention block: Q, K, V (+ their biases), output dense with bias, LayerNorm
    if c["use_bias"]:
        att = ("4H² + 4H + 2H", f"4·{h}² + 4·{h} + 2·{h}", 4 * h * h + 4 * h + 2 * h)
    else:
        att = ("4H² + H + 2H", f"4·{h}² + {h} + 2·{h}", 4 * h * h + h + 2 * h)
    ffn = ("2HI + I + H + 2H", f"2·{h}·{i} + {i} + {h} + 2·{h}", 2 * h * i + i + h + 2 * h)
    parts = [att, att, ffn] if c["add_cross_attention"] else [att, ffn]
    per = (" + ".join(x[0] for x in parts), " + ".join(x[1] for x in parts), sum(x[2] for x in parts))
    lines = [bert.embeddings_line(v, p, t, h), *layers_lines(*per, n)]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Valid heads; cross-attention mostly as a decoder; the attention kind now and then given, or wrong."""
    heads_divide()(rng, config)
    if config.get("add_cross_attention") and rng.random() < 0.8:
        config["is_decoder"] = True
    roll = rng.random()
    if roll < 0.3:
        config["attention_type"] = rng.choice(ATTENTION_TYPES)
    elif roll < 0.33:
        config["attention_type"] = "sparse"  # refused once a layer is built
    if rng.random() < 0.3:
        config["block_size"] = rng.choice([16, 32, 64])
        config["num_random_blocks"] = rng.randint(1, 4)


def big_bird_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """A published BigBird config.json's size-relevant keys."""
    return {
        "model_type": "big_bird",
        "vocab_size": 50358,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": 4096,
        "type_vocab_size": 2,
        "use_bias": True,
        "attention_type": "block_sparse",
        "pad_token_id": 0,
    }


FAMILY = Family(
    model_type="big_bird",
    base="BigBirdModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    read=read,
    architectures=(
        Architecture(name="BigBirdModel", prefix="", pooler=None),
        Architecture(
            name="BigBirdForPreTraining", prefix="bert.", pooler=True, head=bert.pretraining_head,
            ties_embeddings=True,
        ),
        Architecture(name="BigBirdForMaskedLM", prefix="bert.", pooler=True, head=bert.mlm_head, ties_embeddings=True),
        Architecture(name="BigBirdForCausalLM", prefix="bert.", pooler=True, head=bert.mlm_head, ties_embeddings=True),
        Architecture(
            name="BigBirdForSequenceClassification", prefix="bert.", pooler=True,
            head=roberta.classification_head, uses_num_labels=True,
        ),
        Architecture(
            name="BigBirdForMultipleChoice", prefix="bert.", pooler=True, head=bert.linear_head("classifier", 1),
        ),
        Architecture(
            name="BigBirdForTokenClassification", prefix="bert.", pooler=True,
            head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
        ),
        # add_pooling_layer defaults to False here (the calculator counts the class as AutoModel builds it)
        Architecture(name="BigBirdForQuestionAnswering", prefix="bert.", pooler=False, head=qa_head),
    ),
    title={"en": "BigBird", "zh": "BigBird"},
    formula=formula,
    presets=(Preset("google/bigbird-roberta-base", big_bird_config(768, 12, 12), "BigBirdForPreTraining"),),
    sample=sample,
    rank=26,
)
