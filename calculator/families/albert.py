"""ALBERT (``modeling_albert.py``): factorised embeddings and cross-layer parameter sharing.

The vocabulary is embedded at ``embedding_size`` (E, e.g. 128) and projected up
to ``hidden_size`` (H) once. The encoder owns ``num_hidden_groups`` groups of
``inner_group_num`` layers; the 12 (or 24) layers reuse those few, which is why
``num_hidden_layers`` does not change the count at all.
"""
from __future__ import annotations

from typing import Any

from ..config import Field
from ..model import TensorList
from . import bert
from .base import Architecture, Family

FIELDS = (
    Field("vocab_size", 30000),
    Field("embedding_size", 128),
    Field("hidden_size", 4096),
    Field("num_hidden_layers", 12, minimum=0, maximum=512),
    Field("num_hidden_groups", 1, maximum=512),
    Field("inner_group_num", 1, maximum=512),
    Field("num_attention_heads", 64),
    Field("intermediate_size", 16384),
    Field("max_position_embeddings", 512),
    Field("type_vocab_size", 2),
    Field("num_labels", 2),
    Field("tie_word_embeddings", True, kind="bool"),
)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    e_dim, h, inter = c["embedding_size"], c["hidden_size"], c["intermediate_size"]
    e = prefix + "embeddings."
    t.add(e + "word_embeddings.weight", (c["vocab_size"], e_dim), "embeddings")
    t.add(e + "position_embeddings.weight", (c["max_position_embeddings"], e_dim), "embeddings")
    t.add(e + "token_type_embeddings.weight", (c["type_vocab_size"], e_dim), "embeddings")
    t.layer_norm(e + "LayerNorm", e_dim, group="embeddings")
    t.linear(prefix + "encoder.embedding_hidden_mapping_in", h, e_dim, "embeddings")
    for g in range(c["num_hidden_groups"]):
        for j in range(c["inner_group_num"]):
            p = f"{prefix}encoder.albert_layer_groups.{g}.albert_layers.{j}."
            t.layer_norm(p + "full_layer_layer_norm", h, layer=g)
            for proj in ("query", "key", "value"):
                t.linear(p + "attention." + proj, h, h, "attention_qkv", g)
            t.linear(p + "attention.dense", h, h, "attention_output", g)
            t.layer_norm(p + "attention.LayerNorm", h, layer=g)
            t.linear(p + "ffn", inter, h, "feed_forward", g)
            t.linear(p + "ffn_output", h, inter, "feed_forward", g)
    if with_pooler:
        t.linear(prefix + "pooler", h, h, "pooler")


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    e_dim, h, v = c["embedding_size"], c["hidden_size"], c["vocab_size"]
    t.add("predictions.bias", (v,), "head")
    t.layer_norm("predictions.LayerNorm", e_dim, group="head")
    t.linear("predictions.dense", e_dim, h, "head")
    bert.tied_decoder(
        t, "predictions.decoder", v, e_dim, prefix + "embeddings.word_embeddings.weight", "predictions.bias",
        c["tie_word_embeddings"],
    )


def pretraining_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    mlm_head(t, c, prefix)
    t.linear("sop_classifier.classifier", c["num_labels"], c["hidden_size"], "head")


FAMILY = Family(
    model_type="albert",
    base="AlbertModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    architectures=(
        Architecture("AlbertModel", "", None),
        Architecture("AlbertForPreTraining", "albert.", True, pretraining_head, True, ties_embeddings=True),
        Architecture("AlbertForMaskedLM", "albert.", False, mlm_head, ties_embeddings=True),
        Architecture("AlbertForSequenceClassification", "albert.", True, bert.linear_head("classifier", "num_labels"), True),
        Architecture("AlbertForMultipleChoice", "albert.", True, bert.linear_head("classifier", 1)),
        Architecture("AlbertForTokenClassification", "albert.", False, bert.linear_head("classifier", "num_labels"), True),
        Architecture("AlbertForQuestionAnswering", "albert.", False, bert.linear_head("qa_outputs", "num_labels"), True),
    ),
    title={"en": "ALBERT", "zh": "ALBERT"},
)
