"""ALBERT (``modeling_albert.py``): factorised embeddings and cross-layer parameter sharing.

The vocabulary is embedded at ``embedding_size`` (E, e.g. 128) and projected up
to ``hidden_size`` (H) once. The encoder owns ``num_hidden_groups`` groups of
``inner_group_num`` layers; the 12 (or 24) layers reuse those few, which is why
``num_hidden_layers`` does not change the count at all.
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from ..config import MAX_LAYERS, Field
from ..costs import CostModel, Sim, T, activation_key, dropouts, position_buffers
from ..errors import CalcError
from ..formula import Formula, head_line, layers_lines
from ..i18n import label
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, with_defaults, Task
from .common import EMBEDDING, HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, TOKEN_TYPES, VOCAB, L, heads_divide
from .common import POSITION_TYPE

FIELDS = with_defaults((
    VOCAB,
    EMBEDDING,
    HIDDEN,
    LAYERS,
    Field("num_hidden_groups", 1, maximum=MAX_LAYERS, label=L("Shared layer groups", "共享层组数"), sample=(1, 3)),
    Field("inner_group_num", 1, maximum=MAX_LAYERS, label=L("Layers per group", "每组层数"), sample=(1, 2)),
    HEADS,
    INTERMEDIATE,
    POSITIONS,
    TOKEN_TYPES,
    LABELS,
    TIE,
), vocab_size=30000, hidden_size=4096, num_attention_heads=64, intermediate_size=16384)


def check_groups(c: dict[str, Any]) -> None:
    """The groups × layers per group that ALBERT builds must stay within the layer bound."""
    if c["num_hidden_groups"] * c["inner_group_num"] > MAX_LAYERS:
        raise CalcError(
            "too_large", fields=("num_hidden_groups", "inner_group_num"), key="num_hidden_groups × inner_group_num",
            value=c["num_hidden_groups"] * c["inner_group_num"], maximum=MAX_LAYERS,
        )


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    e_dim, h, inter = c["embedding_size"], c["hidden_size"], c["intermediate_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], e_dim, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], e_dim, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], e_dim, "embeddings")
    t.layer_norm(e + "LayerNorm", e_dim, group="embeddings")
    t.linear(prefix + "encoder.embedding_hidden_mapping_in", h, e_dim, "embeddings")
    for g in range(c["num_hidden_groups"]):
        for j in range(c["inner_group_num"]):
            p = f"{prefix}encoder.albert_layer_groups.{g}.albert_layers.{j}."
            t.layer_norm(p + "full_layer_layer_norm", h, layer=g)
            for proj in ("query", "key", "value"):
                t.linear(p + "attention." + proj, h, h, "attention_qkv", g)
            t.linear(p + "attention.dense", h, h, "attention_output", g)
            t.layer_norm(p + "attention.LayerNorm", h, layer=g)
            t.linear(p + "ffn", inter, h, "feed_forward", g)
            t.linear(p + "ffn_output", h, inter, "feed_forward", g)
    if with_pooler:
        t.linear(prefix + "pooler", h, h, "pooler")


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    e_dim, h, v = c["embedding_size"], c["hidden_size"], c["vocab_size"]
    t.add("predictions.bias", (v,), "head")
    t.layer_norm("predictions.LayerNorm", e_dim, group="head")
    t.linear("predictions.dense", e_dim, h, "head")
    bert.tied_decoder(
        t, "predictions.decoder", v, e_dim, prefix + "embeddings.word_embeddings.weight", "predictions.bias",
        c["tie_word_embeddings"],
    )


def pretraining_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    mlm_head(t, c, prefix)
    t.linear("sop_classifier.classifier", c["num_labels"], c["hidden_size"], "head")


def formula(inv: Inventory) -> Formula:
    """Factorised embeddings, then G = groups × layers per group distinct layers (the L layers reuse them)."""
    c = inv.config
    v, e, h, p, t, n, i = (
        c["vocab_size"], c["embedding_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    g = c["num_hidden_groups"] * c["inner_group_num"]
    lines = [bert.factorised_embeddings_line(v, p, t, e, h), *layers_lines(*bert.layer_terms(h, i), g, "G")]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    symbols = {"V": v, "P": p, "T": t, "H": h, "I": i, "L": n, "E": e, "G": g}
    return Formula(symbols, tuple(lines + head_line(inv)))


def layer_row(n: int, config: Mapping[str, Any], lang: str) -> str:
    return label("layer_group_n", lang, n=n)


def sample(rng: random.Random, config: dict) -> None:
    heads_divide()(rng, config)
    config["embedding_size"] = rng.choice([config["hidden_size"], rng.randint(1, 64)])


def albert_config(hidden: int, layers: int, heads: int, inter: int) -> dict[str, Any]:
    return {
        "model_type": "albert",
        "vocab_size": 30000,
        "embedding_size": 128,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_hidden_groups": 1,
        "inner_group_num": 1,
        "num_attention_heads": heads,
        "intermediate_size": inter,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    }


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """ALBERT's classes. AlbertConfig's defaults: no hidden or attention dropout (p = 0, so no masks),
    ``gelu_new`` (written out in Python: four tensors kept per call), the 0.1 classifier dropout; each read
    from the config (:data:`KEYS`).

    Layer ``i`` runs group ``int(i / (layers / groups))``, each group its ``inner_group_num`` layers.
    """
    c = inv.config
    prefix = bert.step_prefix(inv)
    if bert.step_task(inv) in LIFETIMES:  # every operation modelled by the lifetime simulator
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared below
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies: costs.lifetime)
    model = sim.scope()  # AlbertModel.forward: ``embedding_output`` held until it returns
    x = bert.step_embeddings(sim, inv, prefix, b, n)
    encoder = sim.scope()  # AlbertTransformer.forward
    x = sim.linear(prefix + "encoder.embedding_hidden_mapping_in", x)
    layers, groups = c["num_hidden_layers"], c["num_hidden_groups"]
    for i in range(layers):
        g = int(i / (layers / groups))
        group_input = x  # the transformer's ``hidden_states``, held until the group returns
        for j in range(c["inner_group_num"]):  # AlbertLayerGroup.forward rebinds its own ``hidden_states``
            y = step_layer(sim, f"{prefix}encoder.albert_layer_groups.{g}.albert_layers.{j}.", x,
                           c["num_attention_heads"])
            if j:
                sim.rebind(x, y)
            x = y
        sim.rebind(group_input, x)
    x = sim.end_scope(encoder, x)
    pooled = None
    if inv.pooler:  # pooler_activation(pooler(sequence_output[:, 0])): the Linear's output a temporary
        dense = sim.linear(prefix + "pooler", sim.select(x, 1))
        pooled = sim.rebind(dense, sim.keep_output(dense))
    sim.end_scope(model, x, *([pooled] if pooled is not None else []))
    return bert.run_head(ALBERT_HEADS, sim, inv, x, pooled, "classifier_dropout_prob")


def step_layer(sim: Sim, p: str, x: T, heads: int) -> T:
    """One ``AlbertLayer`` (not a checkpointable layer in transformers 5.23): the attention's ``output_dropout``
    (hidden_dropout_prob) after its dense; the layer's own ``dropout`` is never called by ``ff_chunk``."""
    layer = sim.scope()  # AlbertLayer.forward: holds ``_`` (the probabilities) and attention_output
    attention = sim.scope()  # AlbertAttention.forward: q, k, v, the attention, dense, dropout, LayerNorm
    held: list[T] = []
    context = bert.step_attention(sim, x, heads, p + "attention.query", p + "attention.key", p + "attention.value",
                                  frame=False, held=held)
    out = sim.rebind(context, sim.linear(p + "attention.dense", context))  # ``attn_output`` rebound at each line
    out = sim.rebind(out, sim.dropout(out, sim.drops("hidden_dropout_prob")))
    total = sim.add(x, out)
    attended = sim.layer_norm(p + "attention.LayerNorm", total)
    sim.release(out, total)
    attended = sim.end_scope(attention, attended, *held)
    chunk = sim.scope()  # ff_chunk: ``ffn_output`` rebound at each line
    inner = sim.linear(p + "ffn", attended)
    inner = sim.rebind(inner, sim.act("hidden_act", inner))
    inner = sim.end_scope(chunk, sim.rebind(inner, sim.linear(p + "ffn_output", inner)))
    total = sim.add(inner, attended)
    out = sim.layer_norm(p + "full_layer_layer_norm", total)
    sim.release(inner, total)
    return sim.end_scope(layer, out)


#: The classes whose every operation the lifetime simulator models (:mod:`calculator.costs.lifetime`).
LIFETIMES = ("", "ForMaskedLM", "ForPreTraining", "ForSequenceClassification", "ForTokenClassification",
             "ForQuestionAnswering")

#: ``AlbertPreTrainedModel`` does not declare ``supports_gradient_checkpointing``.
#: AlbertConfig's defaults: ``hidden_act`` "gelu_new", no hidden or attention dropout, ``classifier_dropout_prob``
#: 0.1 (a number: AlbertConfig refuses None, so the token classifier's fallback to hidden_dropout_prob never runs).
KEYS = (activation_key("gelu_new"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob", default=0.0),
        *dropouts("classifier_dropout_prob", default=0.1))
COSTS = CostModel(step_program, bert.absolute_positions(), check=bert.step_check, checkpointing=False, keys=KEYS, buffers=position_buffers,
                  autocast=True, sdpa=True)


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``AlbertMLMHead``, ``hidden_states`` rebound at each line: dense, the configured activation, LayerNorm,
    ``predictions.decoder``."""
    mark = sim.scope()
    y = sim.linear("predictions.dense", seq)
    y = sim.rebind(y, sim.act("hidden_act", y))
    y = sim.rebind(y, sim.layer_norm("predictions.LayerNorm", y))
    return [sim.end_scope(mark, sim.rebind(y, sim.linear("predictions.decoder", y)))]


def pretraining_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """The MLM head on the sequence, then ``AlbertSOPHead`` (dropout, ``sop_classifier.classifier``) on the pooled
    output."""
    assert pooled is not None
    out = mlm_step(sim, seq, pooled, dropout_key)
    mark = sim.scope()  # AlbertSOPHead.forward
    return out + [sim.end_scope(mark, sim.linear("sop_classifier.classifier",
                                                 sim.dropout(pooled, sim.drops(dropout_key))))]


#: ALBERT's seven classes, by task: each head's tensors and its forward (the classifiers' dropout is
#: ``classifier_dropout_prob``); the bare model pools as the caller chooses.
ALBERT_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(None, step=bert.model_step),
    Task.PRETRAINING: bert.Head(True, pretraining_head, uses_num_labels=True, ties_embeddings=True,
                                step=pretraining_step),
    Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.SEQUENCE_CLASSIFICATION: bert.BERT_HEADS[Task.SEQUENCE_CLASSIFICATION],
    Task.MULTIPLE_CHOICE: bert.BERT_HEADS[Task.MULTIPLE_CHOICE],
    Task.TOKEN_CLASSIFICATION: bert.BERT_HEADS[Task.TOKEN_CLASSIFICATION],
    Task.QUESTION_ANSWERING: bert.BERT_HEADS[Task.QUESTION_ANSWERING],
}


FAMILY = Family(
    model_type="albert",
    base="AlbertModel",
    fields=FIELDS,
    backbone=backbone,
    architectures=bert.task_classes("Albert", "albert.", (
        Task.MODEL, Task.PRETRAINING, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE,
        Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING), ALBERT_HEADS),
    title={"en": "ALBERT", "zh": "ALBERT"},
    formula=formula,
    checks=(check_groups,),
    presets=(
        Preset("albert-base-v2", albert_config(768, 12, 12, 3072), "AlbertForMaskedLM"),
        Preset("albert-large-v2", albert_config(1024, 24, 16, 4096), "AlbertForMaskedLM"),
        Preset("albert-xlarge-v2", albert_config(2048, 24, 16, 8192), "AlbertForMaskedLM"),
        Preset("albert-xxlarge-v2", albert_config(4096, 12, 64, 16384), "AlbertForMaskedLM"),
    ),
    layer_row=layer_row,
    per_layer_title="per_group_title",
    sample=sample,
    rank=40,
    default_attention="sdpa",
    ignored_keys=(POSITION_TYPE,),
    costs=COSTS,
)
