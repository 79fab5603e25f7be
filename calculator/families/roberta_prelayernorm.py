"""RoBERTa-PreLayerNorm (``modeling_roberta_prelayernorm.py``): RoBERTa with each LayerNorm moved before its block.

fairseq's ``--encoder-normalize-before``: the embeddings are RoBERTa's (LayerNorm included,
positions registered last); each layer normalises before attention (``attention.LayerNorm``,
after ``attention.output``) and before the feed-forward (``intermediate.LayerNorm``, before
``intermediate.dense``), and ``output`` has no LayerNorm. The model adds one final
``LayerNorm`` after the encoder, before the pooler. The heads are RoBERTa's, under
``roberta_prelayernorm.``. A layer holds the same tensors as BERT's, in another order.
"""
from __future__ import annotations

from typing import Any

from ..costs import BERT_KEYS, CostModel, Sim, T, position_buffers
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, blocks, roberta
from .base import Family, Preset, with_defaults, Task
from .common import BERT_FIELDS, L, heads_divide
from .common import POSITION_TYPE, CROSS_ATTENTION

FIELDS = with_defaults(BERT_FIELDS, vocab_size=50265)


#: ``RobertaPreLayerNormLayer``: the attention, then its ``attention.LayerNorm``; ``intermediate.LayerNorm``
#: before ``intermediate.dense``; the config's activation and hidden dropout.
LAYER = blocks.PreLNLayer(
    "attention.LayerNorm", "intermediate.LayerNorm",
    (blocks.QKV, blocks.ATTENTION_OUTPUT, blocks.ATTENTION_NORM, blocks.FFN_NORM, blocks.INTERMEDIATE, blocks.OUTPUT),
    act_key="hidden_act", dropout_key="hidden_dropout_prob", ffn_norm_dies="dense",
)
#: The layers and the model's ``LayerNorm`` after the encoder (before the pooler), run in the model's ``forward``.
ENCODER = blocks.PreLNEncoder(LAYER, "LayerNorm", norm_in_encoder=False)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    blocks.embeddings(t, c, prefix, ("word_embeddings", "token_type_embeddings", "LayerNorm", "position_embeddings"))
    ENCODER.tensors(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


def formula(inv: Inventory) -> Formula:
    """BERT's terms (a pre-LN layer holds the same tensors), and 2H for the final LayerNorm."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    lines = [
        bert.embeddings_line(v, p, t, h),
        *layers_lines(*bert.layer_terms(h, i), n),
        FormulaLine("final_layer_norm", "2H", f"2·{h}", 2 * h),
    ]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """RoBERTa's embeddings and heads around the pre-LN layers and the final LayerNorm (the embeddings' output and
    the encoder's named by the model until it returns)."""
    prefix = bert.step_prefix(inv)
    if bert.step_task(inv) in roberta.LIFETIMES and not inv.config.get("is_decoder"):  # no causal mask
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared (blocks.PreLNLayer, RoBERTa's heads)
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies, the pre-LN residuals' promoting adds)
    mark = sim.scope()  # RobertaPreLayerNormModel.forward
    seq = ENCODER.step(sim, inv, prefix, bert.step_embeddings(sim, inv, prefix, b, n, positions_from_ids=True))
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(mark, seq, *([pooled] if pooled is not None else []))
    return roberta.step_heads(sim, inv, seq, pooled)


#: Its embeddings register BERT's two int64 buffers (``position_ids``, ``token_type_ids``).
COSTS = CostModel(step_program, bert.absolute_positions(offset=2), check=bert.step_check, keys=BERT_KEYS, autocast=True, sdpa=True,
                  buffers=position_buffers, reentrant=True)

P = "roberta_prelayernorm."

FAMILY = Family(
    model_type="roberta-prelayernorm",
    base="RobertaPreLayerNormModel",
    fields=FIELDS,
    backbone=backbone,
    pad_token_id=1,
    positions_padded=True,
    # RoBERTa's heads; ForCausalLM before ForMaskedLM, as transformers lists them
    architectures=bert.task_classes("RobertaPreLayerNorm", P, (
        Task.MODEL, Task.CAUSAL_LM, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE,
        Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING), roberta.ROBERTA_HEADS),
    # The menu shows the title beside the model_type (roberta-prelayernorm): the short name keeps it on one line.
    title={"en": "RoBERTa-PreLN", "zh": "RoBERTa-PreLN"},
    formula=formula,
    # andreasmadsen/efficient_mlm_m0.40 (https://huggingface.co/andreasmadsen/efficient_mlm_m0.40), the
    # checkpoint transformers' docs use: RoBERTa-large's shape (Wettig et al. 2022, "Should You Mask 15%
    # in MLM?", trained large models), 514 positions, one token type. Checked offline: the 50265-entry
    # vocabulary (transformers' integration test, tests/models/roberta_prelayernorm/
    # test_modeling_roberta_prelayernorm.py, expects MLM logits [1, 11, 50265]). Not verified offline (no Hub
    # access, no copy of its config.json found): the width, depth and heads, which are the paper's and
    # roberta-large's config.json's (a third-party table lists the checkpoint as 1.63 GB, a large model's
    # size in float32, though it says "dim 768": not taken as evidence either way).
    presets=(
        Preset("andreasmadsen/efficient_mlm_m0.40",
               roberta.roberta_config(1024, 24, 16, model_type="roberta-prelayernorm"),
               "RobertaPreLayerNormForMaskedLM"),
    ),
    sample=heads_divide(),
    rank=71,
    default_attention="sdpa",
    ignored_keys=(POSITION_TYPE, CROSS_ATTENTION),
    costs=COSTS,
    labels={"final_layer_norm": L("Final LayerNorm (after the encoder)", "最后的层归一化（编码器之后）")},
)
