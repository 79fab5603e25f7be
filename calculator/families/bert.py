"""BERT as Hugging Face ``transformers`` builds it (``modeling_bert.py``).

The encoder layer defined here is reused by RoBERTa and ELECTRA, whose layers
are BERT's with other names only for the embeddings and heads.
"""
from __future__ import annotations

from typing import Any

from ..config import Field
from ..model import TensorList
from .base import Architecture, Family

BERT_FIELDS = (
    Field("vocab_size", 30522),
    Field("hidden_size", 768),
    Field("num_hidden_layers", 12, minimum=0, maximum=512),
    Field("num_attention_heads", 12),
    Field("intermediate_size", 3072),
    Field("max_position_embeddings", 512),
    Field("type_vocab_size", 2),
    Field("num_labels", 2),
    Field("tie_word_embeddings", True, kind="bool"),
)


def encoder_layer(t: TensorList, prefix: str, i: int, hidden: int, intermediate: int) -> None:
    """One ``BertLayer``: self-attention (Q, K, V, output), its LayerNorm, the feed-forward pair, its LayerNorm."""
    p = f"{prefix}encoder.layer.{i}."
    for proj in ("query", "key", "value"):
        t.linear(p + "attention.self." + proj, hidden, hidden, "attention_qkv", i)
    t.linear(p + "attention.output.dense", hidden, hidden, "attention_output", i)
    t.layer_norm(p + "attention.output.LayerNorm", hidden, layer=i)
    t.linear(p + "intermediate.dense", intermediate, hidden, "feed_forward", i)
    t.linear(p + "output.dense", hidden, intermediate, "feed_forward", i)
    t.layer_norm(p + "output.LayerNorm", hidden, layer=i)


def encoder(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    for i in range(c["num_hidden_layers"]):
        encoder_layer(t, prefix, i, c["hidden_size"], c["intermediate_size"])


def pooler(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    t.linear(prefix + "pooler.dense", c["hidden_size"], c["hidden_size"], "pooler")


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.add(e + "word_embeddings.weight", (c["vocab_size"], h), "embeddings")
    t.add(e + "position_embeddings.weight", (c["max_position_embeddings"], h), "embeddings")
    t.add(e + "token_type_embeddings.weight", (c["type_vocab_size"], h), "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    encoder(t, c, prefix)
    if with_pooler:
        pooler(t, c, prefix)


def tied_decoder(
    t: TensorList,
    name: str,
    vocab: int,
    width: int,
    embedding: str,
    bias: str | None,
    tie: bool,
) -> None:
    """An output projection onto the vocabulary whose weight may be the input embedding.

    ``bias`` names the head's own bias Parameter that HF links into
    ``decoder.bias`` when the weights are tied (and only then, in transformers 5).
    """
    t.add(name + ".weight", (vocab, width), "head", tied_to=embedding if tie else None)
    t.add(name + ".bias", (vocab,), "head", tied_to=bias if (tie and bias) else None)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``BertOnlyMLMHead``: its own vocabulary bias first (a Parameter of the head), then transform, decoder."""
    h, v = c["hidden_size"], c["vocab_size"]
    t.add("cls.predictions.bias", (v,), "head")
    t.linear("cls.predictions.transform.dense", h, h, "head")
    t.layer_norm("cls.predictions.transform.LayerNorm", h, group="head")
    tied_decoder(
        t,
        "cls.predictions.decoder",
        v,
        h,
        prefix + "embeddings.word_embeddings.weight",
        "cls.predictions.bias",
        c["tie_word_embeddings"],
    )


def nsp_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    t.linear("cls.seq_relationship", 2, c["hidden_size"], "head")


def pretraining_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    mlm_head(t, c, prefix)
    nsp_head(t, c, prefix)


def linear_head(name: str, out: str | int) -> Any:
    """A single ``nn.Linear(hidden, out)``; ``out`` is a number or a config key such as num_labels."""

    def head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
        width = c["hidden_size"] if "hidden_size" in c else c["dim"]
        t.linear(name, c[out] if isinstance(out, str) else out, width, "head")

    return head


FAMILY = Family(
    model_type="bert",
    base="BertModel",
    fields=BERT_FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    architectures=(
        Architecture("BertModel", "", None),
        Architecture("BertForPreTraining", "bert.", True, pretraining_head, ties_embeddings=True),
        Architecture("BertForMaskedLM", "bert.", False, mlm_head, ties_embeddings=True),
        Architecture("BertLMHeadModel", "bert.", False, mlm_head, ties_embeddings=True),
        Architecture("BertForNextSentencePrediction", "bert.", True, nsp_head),
        Architecture("BertForSequenceClassification", "bert.", True, linear_head("classifier", "num_labels"), True),
        Architecture("BertForMultipleChoice", "bert.", True, linear_head("classifier", 1)),
        Architecture("BertForTokenClassification", "bert.", False, linear_head("classifier", "num_labels"), True),
        Architecture("BertForQuestionAnswering", "bert.", False, linear_head("qa_outputs", "num_labels"), True),
    ),
    title={"en": "BERT", "zh": "BERT"},
)
