"""ELECTRA (``modeling_electra.py``): BERT's encoder behind a possibly narrower embedding.

When ``embedding_size`` differs from ``hidden_size`` an ``embeddings_project``
Linear maps one to the other; the discriminator has no pooler.
"""
from __future__ import annotations

from typing import Any

import random

from ..formula import Formula, head_line, layers_lines
from ..costs import BERT_KEYS, CostModel, Sim, T, position_buffers
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, Task
from .common import EMBEDDING, HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, TOKEN_TYPES, VOCAB, heads_divide
from .common import POSITION_TYPE, CROSS_ATTENTION
from dataclasses import replace

FIELDS = (
    VOCAB, EMBEDDING, replace(HIDDEN, default=256), LAYERS, replace(HEADS, default=4),
    replace(INTERMEDIATE, default=1024), POSITIONS, TOKEN_TYPES, LABELS, TIE,
)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    e_dim, h = c["embedding_size"], c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], e_dim, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], e_dim, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], e_dim, "embeddings")
    t.layer_norm(e + "LayerNorm", e_dim, group="embeddings")
    if e_dim != h:
        t.linear(prefix + "embeddings_project", h, e_dim, "embeddings")
    bert.encoder(t, c, prefix)


def discriminator_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h = c["hidden_size"]
    t.linear("discriminator_predictions.dense", h, h, "head")
    t.linear("discriminator_predictions.dense_prediction", 1, h, "head")


def generator_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    e_dim, h, v = c["embedding_size"], c["hidden_size"], c["vocab_size"]
    t.layer_norm("generator_predictions.LayerNorm", e_dim, group="head")
    t.linear("generator_predictions.dense", e_dim, h, "head")
    t.add(
        "generator_lm_head.weight",
        (v, e_dim),
        "head",
        shares=prefix + "embeddings.word_embeddings.weight" if c["tie_word_embeddings"] else None,
        module="linear",
    )
    t.add("generator_lm_head.bias", (v,), "head", module="linear")


def classification_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h = c["hidden_size"]
    t.linear("classifier.dense", h, h, "head")
    t.linear("classifier.out_proj", c["num_labels"], h, "head")


def formula(inv: Inventory) -> Formula:
    """BERT's, behind tables of width E that a projection maps to H when E ≠ H."""
    c = inv.config
    v, e, h, p, t, n, i = (
        c["vocab_size"], c["embedding_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    emb = bert.embeddings_line(v, p, t, h) if e == h else bert.factorised_embeddings_line(v, p, t, e, h)
    lines = [emb, *layers_lines(*bert.layer_terms(h, i), n)]
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n, "E": e}, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict) -> None:
    heads_divide()(rng, config)
    config["embedding_size"] = rng.choice([config["hidden_size"], rng.randint(1, 64)])


def discriminator_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``ElectraDiscriminatorPredictions``: dense, the activation (rebinding), ``dense_prediction``."""
    mark = sim.scope()
    x = sim.linear("discriminator_predictions.dense", seq)
    x = sim.rebind(x, sim.act("hidden_act", x))
    return [sim.end_scope(mark, sim.linear("discriminator_predictions.dense_prediction", x))]


def generator_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``ElectraGeneratorPredictions`` (dense, GELU whatever the config says, LayerNorm), then ``generator_lm_head``
    rebinding ``prediction_scores``."""
    mark = sim.scope()
    x = sim.linear("generator_predictions.dense", seq)
    x = sim.rebind(x, sim.keep_input(x))  # get_activation("gelu"), fixed
    x = sim.end_scope(mark, sim.rebind(x, sim.layer_norm("generator_predictions.LayerNorm", x)))
    return [sim.rebind(x, sim.linear("generator_lm_head", x))]


def classification_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``ElectraClassificationHead``: RoBERTa's on the first token, but BERT's tanh is a GELU here."""
    return bert.step_pair_head(sim, seq, sim.drops(dropout_key), sim.keep_input)


#: ELECTRA's classes, by task: no pooler anywhere; each head's tensors and forward.
ELECTRA_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.PRETRAINING: bert.Head(False, discriminator_head, step=discriminator_step),
    Task.MASKED_LM: bert.Head(False, generator_head, ties_embeddings=True, step=generator_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(False, classification_head, uses_num_labels=True,
                                            step=classification_step),
    Task.TOKEN_CLASSIFICATION: bert.BERT_HEADS[Task.TOKEN_CLASSIFICATION],
    Task.QUESTION_ANSWERING: bert.BERT_HEADS[Task.QUESTION_ANSWERING],
}


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """ELECTRA's classes: BERT's embeddings at width E, the projection to H when E ≠ H, BERT's encoder, no pooler."""
    prefix = bert.step_prefix(inv)
    if bert.step_task(inv) in LIFETIMES and not inv.config.get("is_decoder"):  # no causal mask: every op is modelled
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared below (and in bert's functions)
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies: costs.lifetime)
    model = sim.scope()  # ElectraModel.forward: ``embedding_output`` (projected, if so) held until it returns
    x = bert.step_embeddings(sim, inv, prefix, b, n)
    if inv.config["embedding_size"] != inv.config["hidden_size"]:
        x = sim.rebind(x, sim.linear(prefix + "embeddings_project", x))
    seq = sim.end_scope(model, bert.step_encoder(sim, inv, prefix, x))
    return bert.run_head(ELECTRA_HEADS, sim, inv, seq, None)


#: The classes whose every operation the lifetime simulator models (:mod:`calculator.costs.lifetime`).
LIFETIMES = ("", "ForPreTraining", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
             "ForQuestionAnswering")

COSTS = CostModel(step_program, bert.absolute_positions(), check=bert.step_check, keys=BERT_KEYS, buffers=position_buffers,
                  autocast=True, sdpa=True, reentrant=True)


def electra_config(embedding: int, hidden: int, layers: int, heads: int, inter: int) -> dict[str, Any]:
    return {
        "model_type": "electra",
        "vocab_size": 30522,
        "embedding_size": embedding,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    }


FAMILY = Family(
    peft_targets=("query", "value"),
    model_type="electra",
    base="ElectraModel",
    fields=FIELDS,
    backbone=backbone,
    architectures=bert.task_classes("Electra", "electra.", (
        Task.MODEL, Task.PRETRAINING, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION,
        Task.QUESTION_ANSWERING), ELECTRA_HEADS),
    title={"en": "ELECTRA", "zh": "ELECTRA"},
    formula=formula,
    presets=(
        Preset("google/electra-small-discriminator", electra_config(128, 256, 12, 4, 1024), "ElectraForPreTraining"),
        Preset("google/electra-base-discriminator", electra_config(768, 768, 12, 12, 3072), "ElectraForPreTraining"),
        Preset("google/electra-large-discriminator", electra_config(1024, 1024, 24, 16, 4096), "ElectraForPreTraining"),
        Preset("google/electra-small-generator", electra_config(128, 256, 12, 4, 1024), "ElectraForMaskedLM"),
    ),
    sample=sample,
    rank=50,
    default_attention="sdpa",
    ignored_keys=(POSITION_TYPE, CROSS_ATTENTION),
    costs=COSTS,
)
