"""XLM-RoBERTa-XL (``modeling_xlm_roberta_xl.py``): RoBERTa's classes around a pre-LayerNorm encoder.

transformers 5.23 generates it from ``modular_xlm_roberta_xl.py``, which takes
RoBERTa's classes and changes where the LayerNorms sit:

* ``XLMRobertaXLEmbeddings`` has **no LayerNorm**: word, token-type, then position
  table (``padding_idx = pad_token_id``, 1, on word and position tables, as RoBERTa).
* Each layer is pre-LN: ``attention.self_attn_layer_norm`` before attention (the
  attention output has no LayerNorm of its own), and the layer's ``LayerNorm``
  before the feed-forward, registered after ``output.dense``.
* The encoder ends with ``encoder.LayerNorm``.

So the count is RoBERTa's: the embeddings' LayerNorm (2H) moves to the end of the
encoder. The task classes register the backbone (``roberta.``) first, as RoBERTa
does (not XLM-R's head-first order), and ``XLMRobertaXLConfig`` defaults are the
XL checkpoint's own sizes (vocabulary 250,880, H 2560, 36 layers).
"""
from __future__ import annotations

from typing import Any

from ..costs import BERT_KEYS, CostModel, Sim, T, unread, position_buffers
from ..model import Inventory, TensorList
from . import bert, blocks, roberta
from .base import Preset, renamed, with_defaults
from .common import BERT_FIELDS, L

FIELDS = with_defaults(
    BERT_FIELDS, vocab_size=250880, hidden_size=2560, num_hidden_layers=36, num_attention_heads=32,
    intermediate_size=10240, max_position_embeddings=514, type_vocab_size=1,
)


#: ``XLMRobertaXLLayer``: the attention, then its ``self_attn_layer_norm``; the feed-forward pair, then the
#: layer's ``LayerNorm`` (registered last, run before the pair); ``XLMRobertaXLOutput`` has no dropout.
LAYER = blocks.PreLNLayer(
    "attention.self_attn_layer_norm", "LayerNorm",
    (blocks.QKV, blocks.ATTENTION_OUTPUT, blocks.ATTENTION_NORM, blocks.INTERMEDIATE, blocks.OUTPUT, blocks.FFN_NORM),
    output_dropout=False, ffn_norm_dies="act",
)
#: The layers and ``encoder.LayerNorm`` after the last.
ENCODER = blocks.PreLNEncoder(LAYER, "encoder.LayerNorm")


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    blocks.embeddings(t, c, prefix, ("word_embeddings", "token_type_embeddings", "position_embeddings"))
    ENCODER.tensors(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


formula = blocks.formula_without_embedding_norm


# --------------------------------------------------------------- training step


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, b: int, n: int) -> T:
    """``XLMRobertaXLEmbeddings``: RoBERTa's (positions computed from the ids, token types gathered at them, both
    [B, L] int64 tensors the tables' backward keeps, the temporaries of the positions' computation), summed,
    dropout; no LayerNorm."""
    return bert.step_embeddings(sim, inv, prefix, b, n, positions_from_ids=True, norm=False)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """XLM-RoBERTa-XL's classes: the embeddings, L pre-LN layers, ``encoder.LayerNorm``, RoBERTa's pooler and heads
    (the embeddings' output named by the model until it returns)."""
    prefix = bert.step_prefix(inv)
    if bert.step_task(inv) in roberta.LIFETIMES and not inv.config.get("is_decoder"):  # no causal mask
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared (blocks.PreLNLayer, RoBERTa's heads)
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies, the pre-LN residuals' promoting adds)
    mark = sim.scope()  # XLMRobertaXLModel.forward
    seq = ENCODER.step(sim, inv, prefix, step_embeddings(sim, inv, prefix, b, n))
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(mark, seq, *([pooled] if pooled is not None else []))
    return step_heads(sim, inv, seq, pooled)


#: RoBERTa's heads (X-MOD's too): the classifier dropout read where RoBERTa reads it, at its default here (the key
#: is declared unread, so a value that would cost otherwise is refused).
step_heads = roberta.step_heads


#: RoBERTa's positions: a table of P rows takes P - 2 tokens (they start after the padding row).
#: The attention dropout is read (bert.step_attention's, SDPA's dropout_p); the others are refused unless they cost as
#: the default.
COSTS = CostModel(step_program, bert.absolute_positions(offset=2), check=bert.step_check,
                  keys=(*unread(BERT_KEYS[:2]), BERT_KEYS[2], *unread(BERT_KEYS[3:])), buffers=position_buffers,
                  autocast=True, sdpa=True, reentrant=True)


def xl_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """A published XLM-R XL/XXL config.json's size-relevant keys."""
    return {
        "model_type": "xlm-roberta-xl",
        "vocab_size": 250880,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": 514,
        "type_vocab_size": 1,
    }


FAMILY = roberta.FAMILY.derive(
    #: Pre-LN layers run another program than RoBERTa's (``derive`` would copy RoBERTa's).
    costs=COSTS,
    model_type="xlm-roberta-xl",
    base="XLMRobertaXLModel",
    fields=FIELDS,
    backbone=backbone,
    formula=formula,
    architectures=tuple(renamed(arch, "Roberta", "XLMRobertaXL") for arch in roberta.FAMILY.architectures),
    title={"en": "XLM-RoBERTa-XL", "zh": "XLM-RoBERTa-XL"},
    # Sizes from snapshots of the published config.json files (facebook/xlm-roberta-xl,
    # facebook/xlm-roberta-xxl), both listing XLMRobertaXLForMaskedLM.
    presets=(
        Preset("facebook/xlm-roberta-xl", xl_config(2560, 36, 32), "XLMRobertaXLForMaskedLM"),
        Preset("facebook/xlm-roberta-xxl", xl_config(4096, 48, 32), "XLMRobertaXLForMaskedLM"),
    ),
    rank=23,
    peft_targets=(),  # peft 0.21.2 names no default targets for xlm-roberta-xl
    labels={
        "final_layer_norm": L(
            "Final LayerNorm (encoder.LayerNorm; the embeddings have none)",
            "编码器末尾的层归一化（encoder.LayerNorm；嵌入层没有层归一化）",
        ),
    },
)
