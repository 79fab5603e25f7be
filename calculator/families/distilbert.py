"""DistilBERT (``modeling_distilbert.py``): six BERT-like layers, no token types, no pooler.

Its config keys are ``dim``, ``n_layers``, ``n_heads``, ``hidden_dim``; HF's
``attribute_map`` also accepts the generic names, and so do we.

Sinusoidal positions: transformers 5 still creates ``position_embeddings`` as
an ``nn.Embedding`` and only *fills* it with sines, so the table is a
parameter (and, in 5.x, a trainable one): we count what the framework creates.
"""
from __future__ import annotations

from typing import Any

from ..config import Field
from ..model import TensorList
from . import bert
from .base import Architecture, Family

FIELDS = (
    Field("vocab_size", 30522),
    Field("dim", 768),
    Field("n_layers", 6, minimum=0, maximum=512),
    Field("n_heads", 12),
    Field("hidden_dim", 3072),
    Field("max_position_embeddings", 512),
    Field("num_labels", 2),
    Field("tie_word_embeddings", True, kind="bool"),
    Field("sinusoidal_pos_embds", False, kind="bool"),
)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    d, hid = c["dim"], c["hidden_dim"]
    e = prefix + "embeddings."
    t.add(e + "word_embeddings.weight", (c["vocab_size"], d), "embeddings")
    t.add(e + "position_embeddings.weight", (c["max_position_embeddings"], d), "embeddings")
    t.layer_norm(e + "LayerNorm", d, group="embeddings")
    for i in range(c["n_layers"]):
        p = f"{prefix}transformer.layer.{i}."
        for proj in ("q_lin", "k_lin", "v_lin"):
            t.linear(p + "attention." + proj, d, d, "attention_qkv", i)
        t.linear(p + "attention.out_lin", d, d, "attention_output", i)
        t.layer_norm(p + "sa_layer_norm", d, layer=i)
        t.linear(p + "ffn.lin1", hid, d, "feed_forward", i)
        t.linear(p + "ffn.lin2", d, hid, "feed_forward", i)
        t.layer_norm(p + "output_layer_norm", d, layer=i)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    d, v = c["dim"], c["vocab_size"]
    t.linear("vocab_transform", d, d, "head")
    t.layer_norm("vocab_layer_norm", d, group="head")
    t.add(
        "vocab_projector.weight",
        (v, d),
        "head",
        tied_to=prefix + "embeddings.word_embeddings.weight" if c["tie_word_embeddings"] else None,
    )
    t.add("vocab_projector.bias", (v,), "head")


def classifier_head(out: str | int) -> Any:
    def head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
        d = c["dim"]
        t.linear("pre_classifier", d, d, "head")
        t.linear("classifier", c[out] if isinstance(out, str) else out, d, "head")

    return head


FAMILY = Family(
    model_type="distilbert",
    base="DistilBertModel",
    fields=FIELDS,
    backbone=backbone,
    aliases={"hidden_size": "dim", "num_attention_heads": "n_heads", "num_hidden_layers": "n_layers"},
    heads_check=("dim", "n_heads"),
    architectures=(
        Architecture("DistilBertModel", "", False),
        Architecture("DistilBertForMaskedLM", "distilbert.", False, mlm_head, ties_embeddings=True),
        Architecture("DistilBertForSequenceClassification", "distilbert.", False, classifier_head("num_labels"), True),
        Architecture("DistilBertForMultipleChoice", "distilbert.", False, classifier_head(1)),
        Architecture("DistilBertForTokenClassification", "distilbert.", False, bert.linear_head("classifier", "num_labels"), True),
        Architecture("DistilBertForQuestionAnswering", "distilbert.", False, bert.linear_head("qa_outputs", "num_labels"), True, labels_must_be=2),
    ),
    title={"en": "DistilBERT", "zh": "DistilBERT"},
)
