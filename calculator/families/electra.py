"""ELECTRA (``modeling_electra.py``): BERT's encoder behind a possibly narrower embedding.

When ``embedding_size`` differs from ``hidden_size`` an ``embeddings_project``
Linear maps one to the other; the discriminator has no pooler.
"""
from __future__ import annotations

from typing import Any

from ..config import Field
from ..model import TensorList
from . import bert
from .base import Architecture, Family

FIELDS = (
    Field("vocab_size", 30522),
    Field("embedding_size", 128),
    Field("hidden_size", 256),
    Field("num_hidden_layers", 12, minimum=0, maximum=512),
    Field("num_attention_heads", 4),
    Field("intermediate_size", 1024),
    Field("max_position_embeddings", 512),
    Field("type_vocab_size", 2),
    Field("num_labels", 2),
    Field("tie_word_embeddings", True, kind="bool"),
)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    e_dim, h = c["embedding_size"], c["hidden_size"]
    e = prefix + "embeddings."
    t.add(e + "word_embeddings.weight", (c["vocab_size"], e_dim), "embeddings")
    t.add(e + "position_embeddings.weight", (c["max_position_embeddings"], e_dim), "embeddings")
    t.add(e + "token_type_embeddings.weight", (c["type_vocab_size"], e_dim), "embeddings")
    t.layer_norm(e + "LayerNorm", e_dim, group="embeddings")
    if e_dim != h:
        t.linear(prefix + "embeddings_project", h, e_dim, "embeddings")
    bert.encoder(t, c, prefix)


def discriminator_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h = c["hidden_size"]
    t.linear("discriminator_predictions.dense", h, h, "head")
    t.linear("discriminator_predictions.dense_prediction", 1, h, "head")


def generator_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    e_dim, h, v = c["embedding_size"], c["hidden_size"], c["vocab_size"]
    t.layer_norm("generator_predictions.LayerNorm", e_dim, group="head")
    t.linear("generator_predictions.dense", e_dim, h, "head")
    t.add(
        "generator_lm_head.weight",
        (v, e_dim),
        "head",
        tied_to=prefix + "embeddings.word_embeddings.weight" if c["tie_word_embeddings"] else None,
    )
    t.add("generator_lm_head.bias", (v,), "head")


def classification_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h = c["hidden_size"]
    t.linear("classifier.dense", h, h, "head")
    t.linear("classifier.out_proj", c["num_labels"], h, "head")


FAMILY = Family(
    model_type="electra",
    base="ElectraModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    architectures=(
        Architecture("ElectraModel", "", False),
        Architecture("ElectraForPreTraining", "electra.", False, discriminator_head),
        Architecture("ElectraForMaskedLM", "electra.", False, generator_head, ties_embeddings=True),
        Architecture("ElectraForSequenceClassification", "electra.", False, classification_head, True),
        Architecture("ElectraForTokenClassification", "electra.", False, bert.linear_head("classifier", "num_labels"), True),
        Architecture("ElectraForQuestionAnswering", "electra.", False, bert.linear_head("qa_outputs", "num_labels"), True),
    ),
    title={"en": "ELECTRA", "zh": "ELECTRA"},
)
