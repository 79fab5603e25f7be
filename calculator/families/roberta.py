"""RoBERTa (``modeling_roberta.py``): BERT's encoder, its own embedding order and heads.

In transformers 5 ``RobertaEmbeddings`` registers ``position_embeddings``
after the LayerNorm, so it comes last in the ``state_dict``.
"""
from __future__ import annotations

from typing import Any

from ..config import Field
from ..model import TensorList
from . import bert
from .base import Architecture, Family

FIELDS = tuple(
    Field(f.key, {"vocab_size": 50265}.get(f.key, f.default), f.kind, f.minimum, f.maximum) for f in bert.BERT_FIELDS
)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.add(e + "word_embeddings.weight", (c["vocab_size"], h), "embeddings")
    t.add(e + "token_type_embeddings.weight", (c["type_vocab_size"], h), "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    t.add(e + "position_embeddings.weight", (c["max_position_embeddings"], h), "embeddings")
    bert.encoder(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


def lm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h, v = c["hidden_size"], c["vocab_size"]
    t.add("lm_head.bias", (v,), "head")
    t.linear("lm_head.dense", h, h, "head")
    t.layer_norm("lm_head.layer_norm", h, group="head")
    bert.tied_decoder(
        t, "lm_head.decoder", v, h, prefix + "embeddings.word_embeddings.weight", "lm_head.bias", c["tie_word_embeddings"]
    )


def classification_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h = c["hidden_size"]
    t.linear("classifier.dense", h, h, "head")
    t.linear("classifier.out_proj", c["num_labels"], h, "head")


FAMILY = Family(
    model_type="roberta",
    base="RobertaModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    pad_token_id=1,
    positions_padded=True,
    architectures=(
        Architecture("RobertaModel", "", None),
        Architecture("RobertaForMaskedLM", "roberta.", False, lm_head, ties_embeddings=True),
        Architecture("RobertaForCausalLM", "roberta.", False, lm_head, ties_embeddings=True),
        Architecture("RobertaForSequenceClassification", "roberta.", False, classification_head, True),
        Architecture("RobertaForMultipleChoice", "roberta.", True, bert.linear_head("classifier", 1)),
        Architecture("RobertaForTokenClassification", "roberta.", False, bert.linear_head("classifier", "num_labels"), True),
        Architecture("RobertaForQuestionAnswering", "roberta.", False, bert.linear_head("qa_outputs", "num_labels"), True),
    ),
    title={"en": "RoBERTa", "zh": "RoBERTa"},
)
