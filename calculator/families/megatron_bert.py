"""Megatron-BERT (``modeling_megatron_bert.py``): BERT with the LayerNorms moved in front (pre-LN).

The tensors are BERT's with three differences, all in where the LayerNorms sit:

* the embeddings have **no LayerNorm** (word, position and token-type tables only);
* each layer normalises *before* attention (``attention.ln``) and before the
  feed-forward pair (``ln``), instead of after them, so the layer still has two
  LayerNorms (BERT's ``attention.output.LayerNorm`` and ``output.LayerNorm`` are gone);
* the encoder ends with one more LayerNorm, ``encoder.ln``, for the last layer's output.

So a Megatron-BERT has exactly BERT's count for the same sizes: the embedding
LayerNorm (2H) moved to the end of the encoder. The heads are BERT's, under ``bert.``.
"""
from __future__ import annotations

from typing import Any

from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Family, Preset, with_defaults
from .common import BERT_FIELDS, L, heads_divide

FIELDS = with_defaults(
    BERT_FIELDS, vocab_size=29056, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
    intermediate_size=4096,
)


def encoder_layer(t: TensorList, prefix: str, i: int, hidden: int, intermediate: int) -> None:
    """One ``MegatronBertLayer``: ln, Q/K/V, output dense; ln, the feed-forward pair."""
    p = f"{prefix}encoder.layer.{i}."
    t.layer_norm(p + "attention.ln", hidden, layer=i)
    for proj in ("query", "key", "value"):
        t.linear(p + "attention.self." + proj, hidden, hidden, "attention_qkv", i)
    t.linear(p + "attention.output.dense", hidden, hidden, "attention_output", i)
    t.layer_norm(p + "ln", hidden, layer=i)
    t.linear(p + "intermediate.dense", intermediate, hidden, "feed_forward", i)
    t.linear(p + "output.dense", hidden, intermediate, "feed_forward", i)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    for i in range(c["num_hidden_layers"]):
        encoder_layer(t, prefix, i, h, c["intermediate_size"])
    t.layer_norm(prefix + "encoder.ln", h, section="encoder")
    if with_pooler:
        bert.pooler(t, c, prefix)


def formula(inv: Inventory) -> Formula:
    """Three tables without a LayerNorm; L pre-LN layers (BERT's terms); the encoder's final LayerNorm."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    lines = [
        FormulaLine("embeddings", "(V + P + T)·H", f"({v} + {p} + {t})·{h}", (v + p + t) * h),
        *layers_lines(*bert.layer_terms(h, i), n),
        FormulaLine("final_layer_norm", "2H", f"2·{h}", 2 * h),
    ]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


def megatron_config(vocab: int, hidden: int, layers: int, heads: int, inter: int) -> dict[str, Any]:
    """A published Megatron-BERT config.json's size-relevant keys."""
    return {
        "model_type": "megatron-bert",
        "vocab_size": vocab,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    }


PRESETS = (
    # UFNLP's clinical GatorTron models (config.json without "architectures": they load as MegatronBertModel).
    Preset("UFNLP/gatortron-base", megatron_config(50176, 1024, 24, 16, 4096), "MegatronBertModel"),
    Preset("UFNLP/gatortron-medium", megatron_config(50176, 2560, 48, 40, 10240), "MegatronBertModel"),
    # IDEA-CCNL's Chinese Erlangshen (Fengshenbang), also published without "architectures".
    Preset("IDEA-CCNL/Erlangshen-MegatronBert-1.3B", megatron_config(21248, 2048, 24, 8, 8192), "MegatronBertModel"),
)


FAMILY = Family(
    model_type="megatron-bert",
    base="MegatronBertModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    architectures=(
        Architecture(name="MegatronBertModel", prefix="", pooler=None),
        Architecture(name="MegatronBertForPreTraining", prefix="bert.", pooler=True, head=bert.pretraining_head,
                     ties_embeddings=True),
        Architecture(name="MegatronBertForCausalLM", prefix="bert.", pooler=False, head=bert.mlm_head,
                     ties_embeddings=True),
        Architecture(name="MegatronBertForMaskedLM", prefix="bert.", pooler=False, head=bert.mlm_head,
                     ties_embeddings=True),
        Architecture(name="MegatronBertForNextSentencePrediction", prefix="bert.", pooler=True, head=bert.nsp_head),
        Architecture(name="MegatronBertForSequenceClassification", prefix="bert.", pooler=True,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="MegatronBertForMultipleChoice", prefix="bert.", pooler=True,
                     head=bert.linear_head("classifier", 1)),
        Architecture(name="MegatronBertForTokenClassification", prefix="bert.", pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="MegatronBertForQuestionAnswering", prefix="bert.", pooler=False,
                     head=bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "Megatron-BERT", "zh": "Megatron-BERT"},
    formula=formula,
    presets=PRESETS,
    sample=heads_divide(),
    rank=60,
    labels={
        "final_layer_norm": L(
            "Final LayerNorm of the encoder (encoder.ln; pre-LN has none on the embeddings)",
            "编码器末尾的层归一化（encoder.ln；前置归一化结构的嵌入层后没有层归一化）",
        ),
    },
)
