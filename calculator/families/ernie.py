"""ERNIE (``modeling_ernie.py``): BERT, plus a task-type table when ``use_task_id`` is set.

transformers 5.23 generates ERNIE from ``modular_ernie.py`` on top of BERT: the
same embeddings, encoder, pooler and heads under ``ernie.``, and BERT's class set
(``ErnieForPreTraining``, ``ErnieForCausalLM`` for ``BertLMHeadModel``, ...), each
registering the backbone first. The one addition: with ``use_task_id`` (the
published ERNIE 3.0 checkpoints set it), ``ErnieEmbeddings`` registers a
``task_type_embeddings`` table of ``task_type_vocab_size`` rows after its LayerNorm.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..config import Field
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Family, Preset, Task
from .common import BERT_FIELDS, L, heads_divide
from .common import POSITION_TYPE, CROSS_ATTENTION

FIELDS = (
    *BERT_FIELDS[:7],
    Field(
        "use_task_id", False, kind="bool",
        label=L("Task-type embeddings (use_task_id)", "使用任务类型嵌入（use_task_id）"), sample=(0, 1),
    ),
    Field(
        "task_type_vocab_size", 3,
        label=L("Task types (K)", "任务类型数（K）"), sample=(1, 5),
    ),
    *BERT_FIELDS[7:],
)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    if c["use_task_id"]:
        t.embedding(e + "task_type_embeddings", c["task_type_vocab_size"], h, "embeddings")
    bert.encoder(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


def formula(inv: Inventory) -> Formula:
    """BERT's terms, and K·H for the task-type table when ``use_task_id`` is set."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    symbols = {"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}
    lines = [bert.embeddings_line(v, p, t, h)]
    if c["use_task_id"]:
        k = c["task_type_vocab_size"]
        symbols["K"] = k
        lines.append(FormulaLine("task_type", "K·H", f"{k}·{h}", k * h))
    lines += layers_lines(*bert.layer_terms(h, i), n)
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula(symbols, tuple(lines + head_line(inv)))


def _architectures() -> tuple[Architecture, ...]:
    """BERT's classes under ERNIE's names and prefix; ``BertLMHeadModel`` is ``ErnieForCausalLM``."""
    out = []
    for arch in bert.FAMILY.architectures:
        if arch.task == Task.LM_HEAD_MODEL:  # BertLMHeadModel: ERNIE names it as the causal LM it is
            out.append(replace(arch, name="ErnieForCausalLM", task=Task.CAUSAL_LM, prefix="ernie."))
            continue
        out.append(replace(arch, name=arch.name.replace("Bert", "Ernie", 1), prefix="ernie." if arch.prefix else ""))
    return tuple(out)


def ernie_config(vocab: int, positions: int, token_types: int, **more: Any) -> dict[str, Any]:
    """A published ERNIE (base, 12 × 768) config.json's size-relevant keys."""
    return {
        "model_type": "ernie",
        "vocab_size": vocab,
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
        "max_position_embeddings": positions,
        "type_vocab_size": token_types,
        **more,
    }


FAMILY = Family(
    model_type="ernie",
    base="ErnieModel",
    fields=FIELDS,
    backbone=backbone,
    architectures=_architectures(),
    title={"en": "ERNIE", "zh": "ERNIE"},
    formula=formula,
    # ERNIE 1.0: PaddleNLP's ernie-1.0 configuration (513 positions, 18,000 entries), which the
    # converted checkpoint keeps; ERNIE 3.0: copies of the published file (use_task_id true).
    presets=(
        Preset("nghuyong/ernie-1.0-base-zh", ernie_config(18000, 513, 2), "ErnieForMaskedLM"),
        Preset(
            "nghuyong/ernie-3.0-base-zh",
            ernie_config(40000, 2048, 4, use_task_id=True, task_type_vocab_size=3),
            "ErnieForMaskedLM",
        ),
    ),
    sample=heads_divide(),
    rank=60,
    default_attention="sdpa",
    ignored_keys=(POSITION_TYPE, CROSS_ATTENTION),
    costs=bert.COSTS,
    labels={"task_type": L("Task-type embeddings", "任务类型嵌入")},
)
