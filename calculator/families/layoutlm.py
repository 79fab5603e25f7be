"""LayoutLM (``modeling_layoutlm.py``): BERT, plus four 2-D position tables for the words' boxes.

``LayoutLMEmbeddings`` registers, after BERT's word and position tables, four tables of
``max_2d_position_embeddings`` rows (x, y, h, w; x and y are each looked up twice, for the box's
two corners), then the token-type table and the LayerNorm. The encoder, pooler and MLM head are
BERT's (copied "with Bert->LayoutLM"). ``LayoutLMModel`` always builds its pooler: there is no
``add_pooling_layer``, so every class, the masked-LM one too, holds ``pooler.dense``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..config import Field
from ..costs import CostModel, Sim, T, activation_key, dropouts, position_ids_buffer
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, Task
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


# --------------------------------------------------------------- training step


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, ids: T, bbox: T, types: T) -> T:
    """``LayoutLMEmbeddings``: word, position (a slice of the buffer, [1, L]), the four corner lookups (``bbox[:, :,
    k]``: views of the one [B, L, 4] box tensor, which each table that trains keeps), the height and width lookups
    (``bbox[:, :, 3] - bbox[:, :, 1]``, ``bbox[:, :, 2] - bbox[:, :, 0]``: new int64 [B, L] each, an argument dropped
    once the lookup has run unless its table keeps it), the token types; summed in that order in one expression
    (eight adds, each partial sum dropped once the next is made; the lookups named until the return), LayerNorm,
    dropout."""
    e = prefix + "embeddings."
    mark = sim.scope()  # LayoutLMEmbeddings.forward: its locals die when it returns
    b, n = ids.shape
    parts = [sim.embedding(e + "word_embeddings", ids, first=True),
             sim.embedding(e + "position_embeddings", sim.buffer((1, n)))]
    for table, column in (("x", 0), ("y", 1), ("x", 2), ("y", 3)):
        parts.append(sim.embedding(f"{e}{table}_position_embeddings", sim.select(bbox, 2, column)))
    for table in ("h_position_embeddings", "w_position_embeddings"):
        extent = sim.ids((b, n))  # bbox[:, :, 3] - bbox[:, :, 1] (the width's: 2 - 0)
        parts.append(sim.embedding(e + table, extent))
        sim.release(extent)
    parts.append(sim.embedding(e + "token_type_embeddings", types))
    x = parts[0]
    for part in parts[1:]:
        total = sim.add(x, part)
        if x is not parts[0]:
            sim.release(x)  # a partial sum of the expression
        x = total
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    return sim.end_scope(mark, sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob"))))


#: One ``LayoutLMLayer`` (ALIGN's): BERT's but for where the attention's probabilities die
#: (``LayoutLMAttention.forward`` holds them, ``hidden_states, _ = self.self(...)``, until it returns, after the
#: output's LayerNorm; BERT's layer holds them to its own end) and the float32 softmax.
LAYER = bert.BertLayer(probs_die="attention", softmax32=True)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """LayoutLM's classes with ``input_ids`` alone, as ``LayoutLMModel.forward`` fills in what is absent.

    No ``bbox`` given: transformers uses ``torch.zeros(B, L, 4)`` (every box at the origin), so the step
    looks up row 0 of each 2-D table, as a forward without boxes does; a page's real boxes index other rows
    of the same tables and cost the same. The attention mask is ``torch.ones`` (float32 [B, L]), made
    additive in the model's dtype ([B, 1, 1, L]: ``.to(dtype)``, a copy only when that is not float32, then
    ``(1.0 - mask) * finfo.min``, the temporaries dropped once the product is made) and added to every layer's
    scores; the softmax is ALIGN's float32 one (:func:`bert.step_attention`'s ``softmax32``). ``LayoutLMModel``
    always pools, so under the masked-LM, token-classification and question-answering heads the pooler runs but no
    gradient reaches it. The classifier's dropout is ``hidden_dropout_prob`` (LayoutLM reads no
    ``classifier_dropout``). Every name's release is declared (the forward and the backward replayed op by op; under
    non-reentrant checkpointing each block's frame keeps the mask too).
    """
    prefix = bert.step_prefix(inv)
    kind = bert.step_task(inv)
    if kind in LIFETIMES:
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()  # and under autocast (the Linears' bf16 copies, the float32 mask's promoting add)
    model = sim.scope()  # LayoutLMModel.forward
    ids = sim.ids((b, n))
    if inv.config.get("pad_token_id", 0) is not None:
        # warn_if_padding_and_no_attention_mask: ``pad_token_id in input_ids[:, [-1, 0]]``: the index list (int64
        # [2]), the columns (int64 [B, 2]), ``==`` (bool [B, 2]), ``.any()`` (one byte); gone once ``.item()`` ran.
        # (Skipped by a config whose pad_token_id is null; LayoutLM's is 0. These 35 + 18·B bytes lie below the
        # embeddings' later ones, 44·B·L bytes of ids and mask alone, so they never decide the forward's maximum.)
        sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    ones = sim.constant((b, n), 4)  # attention_mask = torch.ones(input_shape)
    types = sim.ids((b, n))  # token_type_ids = torch.zeros(...)
    bbox = sim.ids((b, n, 4))  # bbox = torch.zeros(input_shape + (4,))
    cast = ones if sim.itemsize == 4 else sim.constant((b, 1, 1, n), sim.itemsize)  # .to(dtype=self.dtype)
    flipped = sim.constant((b, 1, 1, n), sim.itemsize)  # 1.0 - mask
    mask = sim.constant((b, 1, 1, n), sim.itemsize)  # * torch.finfo(dtype).min
    sim.release(flipped)
    if cast is not ones:
        sim.release(cast)
    x = step_embeddings(sim, inv, prefix, ids, bbox, types)
    if sim.checkpointing and inv.config["num_hidden_layers"]:
        sim.checkpoint_argument(mask)  # checkpointing of either kind keeps the block's tensor arguments: this mask too
    seq = bert.step_encoder(sim, inv, prefix, x, mask, LAYER)  # LayoutLMEncoder: BertEncoder's loop
    if kind in ("", "ForSequenceClassification"):
        pooled = bert.step_pooler(sim, prefix, seq)
    else:
        pooled = sim.unused(lambda: bert.step_pooler(sim, prefix, seq))
    sim.end_scope(model, seq, pooled)
    return bert.run_head(HEADS_ALWAYS_POOLED, sim, inv, seq, pooled, "hidden_dropout_prob")  # no classifier_dropout


#: LayoutLM's five classes in transformers' order: BERT's heads, but ``LayoutLMModel`` always builds its pooler.
TASKS = (Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING)
HEADS_ALWAYS_POOLED = {task: replace(bert.BERT_HEADS[task], pooler=True) for task in TASKS}


#: The classes whose every operation the lifetime simulator models (:mod:`calculator.costs.lifetime`).
LIFETIMES = ("", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering")


#: BERT's step keys but ``classifier_dropout``, which ``LayoutLMConfig`` does not have.
KEYS = (activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"))

COSTS = CostModel(step_program, bert.absolute_positions(), check=bert.step_check, keys=KEYS,
                  buffers=position_ids_buffer, autocast=True, sdpa=True, reentrant=True)


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
    architectures=bert.task_classes("LayoutLM", "layoutlm.", TASKS, HEADS_ALWAYS_POOLED),
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
    costs=COSTS,
    labels={"layout_2d": L("2-D position embeddings (x, y, h, w)", "边界框位置嵌入（x、y、h、w）")},
)
