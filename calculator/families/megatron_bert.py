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

from ..costs import CostModel, Sim, T, activation_key, dropouts, unread, position_ids_buffer
from ..model import Inventory, TensorList
from . import bert, blocks
from .base import Family, Preset, with_defaults, Task
from .common import BERT_FIELDS, L, heads_divide
from .common import POSITION_TYPE, CROSS_ATTENTION

FIELDS = with_defaults(
    BERT_FIELDS, vocab_size=29056, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
    intermediate_size=4096,
)


#: ``MegatronBertLayer``: ``attention.ln`` registered first, then the attention; ``ln`` before the feed-forward
#: pair; ``x + sublayer``; GELU and the dropouts fixed by the model's code. Its attention (not BERT's
#: ``eager_attention_forward``) names the probabilities apart from the scores, and the layer returns them.
LAYER = blocks.PreLNLayer(
    "attention.ln", "ln",
    (blocks.ATTENTION_NORM, blocks.QKV, blocks.ATTENTION_OUTPUT, blocks.FFN_NORM, blocks.INTERMEDIATE, blocks.OUTPUT),
    residual_first=True, keep_scores=True, returns_probs=True, ffn_norm_dies="chunk",
)
#: The layers and ``encoder.ln`` after the last.
ENCODER = blocks.PreLNEncoder(LAYER, "encoder.ln")


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    blocks.embeddings(t, c, prefix, ("word_embeddings", "position_embeddings", "token_type_embeddings"))
    ENCODER.tensors(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


formula = blocks.formula_without_embedding_norm


# --------------------------------------------------------------- training step


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, ids: T, types: T) -> T:
    """``MegatronBertEmbeddings``: word + token type + position (``+=``, in place), dropout; no LayerNorm. The
    positions are a slice of the ``position_ids`` buffer; the lookups' outputs go as it returns."""
    e = prefix + "embeddings."
    mark = sim.scope()
    positions = sim.buffer((1, types.shape[1]))
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    x = sim.add(words, sim.embedding(e + "token_type_embeddings", types))
    x = sim.add_(x, sim.embedding(e + "position_embeddings", positions))
    return sim.end_scope(mark, sim.rebind(x, sim.dropout(x)))


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """Megatron-BERT's classes: the embeddings, L pre-LN layers, the encoder's final ``ln``, BERT's pooler and heads.

    ``MegatronBertModel.forward`` first checks the ids' first and last columns for padding
    (``warn_if_padding_and_no_attention_mask``: ``pad_token_id in input_ids[:, [-1, 0]]``, four temporaries), makes
    ``attention_mask = torch.ones((B, L))`` (float32) and the token types ``torch.zeros(input_shape)`` (a [B, L]
    int64 tensor the type table's backward keeps, not BERT's [1, L] gather from a buffer); the bidirectional mask
    function reads the ones (``.to(bool)``, ``.all()``) and returns None, dropping them.
    """
    prefix = bert.step_prefix(inv)
    if bert.step_task(inv) in bert.EXACT_LIFETIMES and not inv.config.get("is_decoder"):
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared (blocks.PreLNLayer, the heads: BERT's)
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies, the pre-LN residuals' promoting adds)
    mark = sim.scope()  # MegatronBertModel.forward
    ids = sim.ids((b, n))  # input_ids (the program's first index tensor: live from the start)
    if inv.config.get("pad_token_id") is not None:
        sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    ones = sim.named_transient(4 * b * n, "aten.ones")
    types = sim.ids((b, n))
    x = step_embeddings(sim, inv, prefix, ids, types)
    sim.transients((b * n, 1), (1, 1), ("aten._to_copy", "aten.all"))
    sim.drop_transient(ones)
    seq = ENCODER.step(sim, inv, prefix, x)
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(mark, seq, *([pooled] if pooled is not None else []))
    return bert.step_heads(sim, inv, seq, pooled)  # BERT's heads: GELU and dropouts at the keys' defaults


COSTS = CostModel(step_program, bert.absolute_positions(), check=bert.step_check, keys=unread((activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"))), buffers=position_ids_buffer, autocast=True, reentrant=True)


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
    # BERT's heads under "bert."; ForCausalLM (BERT's LMHeadModel) before ForMaskedLM, as transformers lists them
    architectures=bert.task_classes("MegatronBert", "bert.", (
        Task.MODEL, Task.PRETRAINING, Task.CAUSAL_LM, Task.MASKED_LM, Task.NEXT_SENTENCE_PREDICTION,
        Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING)),
    title={"en": "Megatron-BERT", "zh": "Megatron-BERT"},
    formula=formula,
    presets=PRESETS,
    sample=heads_divide(),
    rank=60,
    ignored_keys=(POSITION_TYPE, CROSS_ATTENTION),
    costs=COSTS,
    labels={
        "final_layer_norm": L(
            "Final LayerNorm of the encoder (encoder.ln; pre-LN has none on the embeddings)",
            "编码器末尾的层归一化（encoder.ln；前置归一化结构的嵌入层后没有层归一化）",
        ),
    },
)
