"""LayoutLM (``modeling_layoutlm.py``): BERT, plus four 2-D position tables for the words' boxes.

``LayoutLMEmbeddings`` registers, after BERT's word and position tables, four tables of
``max_2d_position_embeddings`` rows (x, y, h, w; x and y are each looked up twice, for the box's
two corners), then the token-type table and the LayerNorm. The encoder, pooler and MLM head are
BERT's (copied "with Bert->LayoutLM"). ``LayoutLMModel`` always builds its pooler: there is no
``add_pooling_layer``, so every class, the masked-LM one too, holds ``pooler.dense``.
"""
from __future__ import annotations

from typing import Any

from ..config import Field
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Family, Preset
from .common import BERT_FIELDS, L, heads_divide
from .common import POSITION_TYPE

FIELDS = (
    *BERT_FIELDS[:6],
    Field(
        "max_2d_position_embeddings", 1024,
        label=L("2-D positions per table (D)", "每张二维位置表的行数（D）"), sample=(1, 300),
    ),
    *BERT_FIELDS[6:],
)

#: The four 2-D tables, in the order ``LayoutLMEmbeddings`` registers them.
TABLES_2D = ("x_position_embeddings", "y_position_embeddings", "h_position_embeddings", "w_position_embeddings")


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    for table in TABLES_2D:
        t.embedding(e + table, c["max_2d_position_embeddings"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    bert.encoder(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


def formula(inv: Inventory) -> Formula:
    """BERT's terms, and 4·D·H for the box tables."""
    c = inv.config
    v, h, p, t, n, i, d = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"], c["max_2d_position_embeddings"],
    )
    lines = [
        bert.embeddings_line(v, p, t, h),
        FormulaLine("layout_2d", "4·D·H", f"4·{d}·{h}", 4 * d * h),
        *layers_lines(*bert.layer_terms(h, i), n),
    ]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "D": d, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


def layoutlm_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """microsoft/layoutlm-{base,large}-uncased's config.json, size-relevant keys (BERT's vocabulary, 1024 2-D rows)."""
    return {
        "model_type": "layoutlm",
        "vocab_size": 30522,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": 512,
        "max_2d_position_embeddings": 1024,
        "type_vocab_size": 2,
    }


FAMILY = Family(
    peft_targets=("query", "value"),
    model_type="layoutlm",
    base="LayoutLMModel",
    fields=FIELDS,
    backbone=backbone,
    architectures=(
        Architecture(name="LayoutLMModel", prefix="", pooler=True),
        Architecture(name="LayoutLMForMaskedLM", prefix="layoutlm.", pooler=True, head=bert.mlm_head,
                     ties_embeddings=True),
        Architecture(name="LayoutLMForSequenceClassification", prefix="layoutlm.", pooler=True,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="LayoutLMForTokenClassification", prefix="layoutlm.", pooler=True,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="LayoutLMForQuestionAnswering", prefix="layoutlm.", pooler=True,
                     head=bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "LayoutLM", "zh": "LayoutLM"},
    formula=formula,
    # https://huggingface.co/microsoft/layoutlm-base-uncased/blob/main/config.json and
    # https://huggingface.co/microsoft/layoutlm-large-uncased/blob/main/config.json: BERT-base/large
    # with max_2d_position_embeddings 1024 (LayoutLMConfig's defaults are the base file's values).
    presets=(
        Preset("microsoft/layoutlm-base-uncased", layoutlm_config(768, 12, 12), "LayoutLMForMaskedLM"),
        Preset("microsoft/layoutlm-large-uncased", layoutlm_config(1024, 24, 16), "LayoutLMForMaskedLM"),
    ),
    sample=heads_divide(),
    rank=70,
    default_attention="sdpa",
    ignored_keys=(POSITION_TYPE,),
    labels={"layout_2d": L("2-D position embeddings (x, y, h, w)", "边界框位置嵌入（x、y、h、w）")},
)
