"""RemBERT (``modeling_rembert.py``, "Rethinking embedding coupling", 2021): decoupled input and output embeddings.

* The input tables (words, positions, token types) and their LayerNorm are only
  ``input_embedding_size`` wide (E_in, 256 for google/rembert), and the encoder
  projects them up to H once (``encoder.embedding_hidden_mapping_in``), as ALBERT does.
* The encoder layers are BERT's.
* The masked-LM head is *not* tied to the input table and is wider: dense H → E_out
  (``output_embedding_size``, 1664), LayerNorm, then the decoder E_out → V. transformers
  5.23 declares no tied weights for RemBERT, so ``tie_word_embeddings`` changes nothing
  (the two tables generally differ in width anyway).

The point of the paper is visible in the count: google/rembert's input table is
250,300 × 256 (64M) while its output table, 250,300 × 1,664 (417M), exists only in
the pre-training classes and is dropped for fine-tuning.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..config import Field
from ..costs import CostModel, Sim, T, activation_key, dropouts, unread, position_ids_buffer
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TOKEN_TYPES, VOCAB, L, heads_divide
from .common import CROSS_ATTENTION

FIELDS = (
    replace(VOCAB, default=250300),
    Field(
        "input_embedding_size", 256,
        label=L("Input embedding size (E_in; the input tables' width)", "输入嵌入维度（E_in；输入词嵌入表的宽度）"),
        sample=(1, 64),
    ),
    replace(HIDDEN, default=1152),
    replace(LAYERS, default=32),
    replace(HEADS, default=18),
    replace(INTERMEDIATE, default=4608),
    Field(
        "output_embedding_size", 1664,
        label=L("Output embedding size (E_out; the MLM head's width)", "输出嵌入维度（E_out；MLM 输出头的宽度）"),
        sample=(1, 64),
    ),
    POSITIONS,
    TOKEN_TYPES,
    LABELS,
)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    e_in, h = c["input_embedding_size"], c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], e_in, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], e_in, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], e_in, "embeddings")
    t.layer_norm(e + "LayerNorm", e_in, group="embeddings")
    t.linear(prefix + "encoder.embedding_hidden_mapping_in", h, e_in, "embeddings")
    bert.encoder(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``RemBertLMPredictionHead``: dense H → E_out, decoder E_out → V (its own weight), LayerNorm(E_out)."""
    e_out = c["output_embedding_size"]
    t.linear("cls.predictions.dense", e_out, c["hidden_size"], "head")
    t.linear("cls.predictions.decoder", c["vocab_size"], e_out, "head")
    t.layer_norm("cls.predictions.LayerNorm", e_out, group="head")


def formula(inv: Inventory) -> Formula:
    """Tables of width E_in, their LayerNorm and the E_in → H projection; L BERT layers; the pooler."""
    c = inv.config
    v, p, t, e, h, n, i = (
        c["vocab_size"], c["max_position_embeddings"], c["type_vocab_size"], c["input_embedding_size"],
        c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"],
    )
    emb = FormulaLine(
        "embeddings", "(V + P + T)·E_in + 2E_in + E_in·H + H",
        f"({v} + {p} + {t})·{e} + 2·{e} + {e}·{h} + {h}", (v + p + t) * e + 2 * e + e * h + h,
    )
    lines = [emb, *layers_lines(*bert.layer_terms(h, i), n)]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    symbols = {"V": v, "P": p, "T": t, "E_in": e, "E_out": c["output_embedding_size"], "H": h, "I": i, "L": n}
    return Formula(symbols, tuple(lines + head_line(inv)))


def sample(rng: Any, config: dict[str, Any]) -> None:
    heads_divide()(rng, config)
    if rng.random() < 0.3:  # now and then the two widths equal: still not tied
        config["output_embedding_size"] = config.get("input_embedding_size", 256)


# --------------------------------------------------------------- training step


#: One ``RemBertLayer``: BERT's layer with the hand-written attention of ``modeling_rembert.py`` (the scaled scores
#: keep their name beside the probabilities until the attention returns); the layer returns ``(layer_output,
#: attention_probs)``, so the probabilities go to the encoder, whose ``layer_outputs`` holds them until the next
#: layer returns.
LAYER = bert.BertLayer(probs_die="encoder", keep_scores=True)


def step_encoder(sim: Sim, inv: Inventory, prefix: str, x: T) -> T:
    """``RemBertEncoder.forward``: ``embedding_hidden_mapping_in`` (E_in -> H, outside the checkpointed layers)
    rebinds ``hidden_states`` (the embeddings' output stays named by the model's ``embedding_output``); every layer
    rebinds it and ``layer_outputs`` (the previous layer's output and probabilities go when the next layer
    returns); the last layer's probabilities go as the encoder returns."""
    mark = sim.scope()
    x = sim.linear(prefix + "encoder.embedding_hidden_mapping_in", x)
    heads = inv.config["num_attention_heads"]
    held: list[T] = []
    for i in range(inv.config["num_hidden_layers"]):
        returned: list[T] = []
        y = sim.layer(LAYER.step(prefix, i, heads, returned=returned), x)
        sim.release(x, *held)
        held, x = returned, y
    return sim.end_scope(mark, x)


def step_mlm(sim: Sim, x: T) -> T:
    """``RemBertLMPredictionHead``: dense H -> E_out, the activation (``ACT2FN[hidden_act]``), LayerNorm, the
    decoder E_out -> V, each rebinding ``hidden_states``."""
    mark = sim.scope()
    x = sim.linear("cls.predictions.dense", x)
    x = sim.rebind(x, sim.act("hidden_act", x))
    x = sim.rebind(x, sim.layer_norm("cls.predictions.LayerNorm", x))
    return sim.end_scope(mark, sim.rebind(x, sim.linear("cls.predictions.decoder", x)))


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """RemBERT's classes, every name dropped where ``modeling_rembert.py`` drops it.

    ``RemBertModel.forward`` first checks the ids' first and last columns for padding
    (``warn_if_padding_and_no_attention_mask``, four temporaries), makes ``attention_mask = torch.ones((B, L))``
    (float32) and the token types ``torch.zeros(input_shape)`` (a [B, L] int64 tensor the type table's backward
    keeps); the embeddings are BERT's at width E_in (positions a slice of the buffer, added in place); the
    bidirectional mask function reads the ones (``.to(bool)``, ``.all()``) and returns None, dropping them; then
    the encoder (:func:`step_encoder`) and BERT's pooler.
    """
    prefix = bert.step_prefix(inv)
    kind = bert.step_task(inv)
    if kind in bert.EXACT_LIFETIMES and not inv.config.get("is_decoder"):  # no causal mask: every op is modelled
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared below
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies: the embedding projection's too)
    model = sim.scope()  # RemBertModel.forward
    ids = sim.ids((b, n))  # input_ids (the program's first index tensor: live from the start)
    if inv.config.get("pad_token_id") is not None:
        sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    ones = sim.named_transient(4 * b * n, "aten.ones")
    types = sim.ids((b, n))
    e = prefix + "embeddings."
    mark = sim.scope()  # RemBertEmbeddings.forward
    positions = sim.buffer((1, n))
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    x = sim.add(words, sim.embedding(e + "token_type_embeddings", types))
    x = sim.add_(x, sim.embedding(e + "position_embeddings", positions))  # embeddings += position_embeddings
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    x = sim.end_scope(mark, sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob"))))
    sim.transients((b * n, 1), (1, 1), ("aten._to_copy", "aten.all"))
    sim.drop_transient(ones)
    seq = step_encoder(sim, inv, prefix, x)
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(model, seq, *([pooled] if pooled is not None else []))
    return bert.run_head(REMBERT_HEADS, sim, inv, seq, pooled, "classifier_dropout_prob")


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``RemBertOnlyMLMHead``: :func:`step_mlm`."""
    return [step_mlm(sim, seq)]


#: BERT's heads under "rembert.", but its own LM head (decoupled: an output embedding, though not a tied one); the
#: classifiers' dropout is ``classifier_dropout_prob`` (:func:`step_program`).
REMBERT_HEADS: dict[str, bert.Head] = {
    **bert.BERT_HEADS,
    Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.CAUSAL_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
}


COSTS = CostModel(step_program, bert.absolute_positions(), check=bert.step_check, keys=unread((activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob", default=0.0), *dropouts("classifier_dropout_prob", default=0.1))), buffers=position_ids_buffer, autocast=True, reentrant=True)


FAMILY = Family(
    model_type="rembert",
    base="RemBertModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    architectures=bert.task_classes("RemBert", "rembert.", (
        Task.MODEL, Task.MASKED_LM, Task.CAUSAL_LM, Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE,
        Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING), REMBERT_HEADS),
    title={"en": "RemBERT", "zh": "RemBERT"},
    formula=formula,
    presets=(
        # https://huggingface.co/google/rembert/blob/main/config.json (architectures: RemBertModel)
        Preset("google/rembert", {
            "model_type": "rembert", "vocab_size": 250300, "hidden_size": 1152, "num_hidden_layers": 32,
            "num_attention_heads": 18, "input_embedding_size": 256, "output_embedding_size": 1664,
            "intermediate_size": 4608, "max_position_embeddings": 512, "type_vocab_size": 2,
        }, "RemBertModel"),
    ),
    sample=sample,
    rank=62,
    ignored_keys=(CROSS_ATTENTION,),
    costs=COSTS,
)
