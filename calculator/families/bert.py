"""BERT as Hugging Face ``transformers`` builds it (``modeling_bert.py``).

The encoder layer defined here is reused by RoBERTa and ELECTRA, whose layers
are BERT's with other names only for the embeddings and heads.
"""
from __future__ import annotations

from typing import Any

from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from .base import Architecture, Family, Preset
from .common import BERT_FIELDS, heads_divide


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
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
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
    t.add(name + ".weight", (vocab, width), "head", shares=embedding if tie else None, module="linear")
    t.add(name + ".bias", (vocab,), "head", shares=bias if (tie and bias) else None, module="linear")


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


def linear_head(name: str, out: str | int, width: str = "hidden_size") -> Any:
    """A single ``nn.Linear(c[width], out)``; ``out`` is a number or a config key such as num_labels."""

    def head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
        t.linear(name, c[out] if isinstance(out, str) else out, c[width], "head")

    return head


# --------------------------------------------------------------------- formula


def layer_terms(h: int, i: int) -> tuple[str, str, int]:
    """One post-LN BERT layer: Q, K, V and output projections with biases, the feed-forward pair, two LayerNorms."""
    symbolic = "4H² + 4H + 2HI + I + H + 4H"
    substituted = f"4·{h}² + 4·{h} + 2·{h}·{i} + {i} + {h} + 4·{h}"
    return symbolic, substituted, 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def embeddings_line(v: int, p: int, t: int, h: int) -> FormulaLine:
    """Word, position and token-type tables of width H, and their LayerNorm."""
    return FormulaLine("embeddings", "(V + P + T)·H + 2H", f"({v} + {p} + {t})·{h} + 2·{h}", (v + p + t) * h + 2 * h)


def factorised_embeddings_line(v: int, p: int, t: int, e: int, h: int) -> FormulaLine:
    """Tables of width E, their LayerNorm, and the E → H projection (ALBERT; ELECTRA when E ≠ H)."""
    return FormulaLine(
        "embeddings", "(V + P + T)·E + 2E + E·H + H",
        f"({v} + {p} + {t})·{e} + 2·{e} + {e}·{h} + {h}", (v + p + t) * e + 2 * e + e * h + h,
    )


def pooler_line(h: int) -> FormulaLine:
    return FormulaLine("pooler", "H² + H", f"{h}² + {h}", h * h + h)


def formula(inv: Inventory) -> Formula:
    """BERT (and RoBERTa, whose tensors are BERT's in another order)."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    lines = [embeddings_line(v, p, t, h), *layers_lines(*layer_terms(h, i), n)]
    if inv.pooler:
        lines.append(pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


def bert_config(vocab: int, hidden: int = 768, layers: int = 12, heads: int = 12, inter: int | None = None) -> dict[str, Any]:
    """A published BERT config.json's size-relevant keys."""
    return {
        "model_type": "bert",
        "vocab_size": vocab,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter if inter is not None else 4 * hidden,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    }


PRESETS = (
    Preset("bert-base-uncased", bert_config(30522), "BertForMaskedLM"),
    Preset("bert-base-cased", bert_config(28996), "BertForMaskedLM"),
    Preset("bert-large-uncased", bert_config(30522, 1024, 24, 16), "BertForMaskedLM"),
    Preset("bert-large-cased", bert_config(28996, 1024, 24, 16), "BertForMaskedLM"),
    Preset("bert-base-chinese", bert_config(21128), "BertForMaskedLM"),
    Preset("bert-base-multilingual-cased", bert_config(119547), "BertForMaskedLM"),
    Preset("bert-base-multilingual-uncased", bert_config(105879), "BertForMaskedLM"),
    # HFL's Chinese checkpoints: BERT's architecture and bert-base-chinese's vocabulary.
    # "RoBERTa" and "MacBERT" name how they were pre-trained, not what they are built of.
    Preset("hfl/chinese-roberta-wwm-ext", bert_config(21128), "BertForMaskedLM"),
    Preset("hfl/chinese-roberta-wwm-ext-large", bert_config(21128, 1024, 24, 16), "BertForMaskedLM"),
    Preset("hfl/chinese-macbert-base", bert_config(21128), "BertForMaskedLM"),
    Preset("hfl/chinese-macbert-large", bert_config(21128, 1024, 24, 16), "BertForMaskedLM"),
    Preset("hfl/chinese-bert-wwm-ext", bert_config(21128), "BertForMaskedLM"),
    Preset("hfl/rbt3", bert_config(21128, 768, 3, 12), "BertForMaskedLM"),
    Preset("google/bert_uncased_L-2_H-128_A-2", bert_config(30522, 128, 2, 2), "BertModel"),
    Preset("google/bert_uncased_L-4_H-256_A-4", bert_config(30522, 256, 4, 4), "BertModel"),
    Preset("google/bert_uncased_L-4_H-512_A-8", bert_config(30522, 512, 4, 8), "BertModel"),
    Preset("google/bert_uncased_L-8_H-512_A-8", bert_config(30522, 512, 8, 8), "BertModel"),
)


FAMILY = Family(
    peft_targets=("query", "value"),
    model_type="bert",
    base="BertModel",
    fields=BERT_FIELDS,
    backbone=backbone,
    architectures=(
        Architecture(name="BertModel", prefix="", pooler=None),
        Architecture(name="BertForPreTraining", prefix="bert.", pooler=True,
                     head=pretraining_head, ties_embeddings=True),
        Architecture(name="BertForMaskedLM", prefix="bert.", pooler=False, head=mlm_head, ties_embeddings=True),
        Architecture(name="BertLMHeadModel", prefix="bert.", pooler=False, head=mlm_head, ties_embeddings=True),
        Architecture(name="BertForNextSentencePrediction", prefix="bert.", pooler=True, head=nsp_head),
        Architecture(name="BertForSequenceClassification", prefix="bert.", pooler=True,
                     head=linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="BertForMultipleChoice", prefix="bert.", pooler=True, head=linear_head("classifier", 1)),
        Architecture(name="BertForTokenClassification", prefix="bert.", pooler=False,
                     head=linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="BertForQuestionAnswering", prefix="bert.", pooler=False,
                     head=linear_head("qa_outputs", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "BERT", "zh": "BERT"},
    formula=formula,
    presets=PRESETS,
    sample=heads_divide(),
    rank=10,
)
