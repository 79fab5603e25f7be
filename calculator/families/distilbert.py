"""DistilBERT (``modeling_distilbert.py``): six BERT-like layers, no token types, no pooler.

Its config keys are ``dim``, ``n_layers``, ``n_heads``, ``hidden_dim``; HF's
``attribute_map`` also accepts the generic names, and so do we.

Sinusoidal positions: transformers 5 still creates ``position_embeddings`` as
an ``nn.Embedding`` and only *fills* it with sines, so the table is a
parameter (and, in 5.x, a trainable one): we count what the framework creates.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from ..config import Field
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..costs import CostModel, Sim, T, activation_key, dropouts, position_ids_buffer
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, VOCAB, L, heads_divide

FIELDS = (
    VOCAB,
    replace(HIDDEN, key="dim"),
    replace(LAYERS, key="n_layers", default=6),
    replace(HEADS, key="n_heads"),
    replace(INTERMEDIATE, key="hidden_dim"),
    POSITIONS,
    LABELS,
    TIE,
    Field(
        "sinusoidal_pos_embds", False, kind="bool", sample=(0, 1),
        label=L("Sinusoidal positions (still a parameter table in transformers)", "正弦位置编码（在 transformers 中仍是参数表）"),
    ),
)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    d, hid = c["dim"], c["hidden_dim"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], d, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], d, "embeddings")
    t.layer_norm(e + "LayerNorm", d, group="embeddings")
    for i in range(c["n_layers"]):
        p = f"{prefix}transformer.layer.{i}."
        for proj in ("q_lin", "k_lin", "v_lin"):
            t.linear(p + "attention." + proj, d, d, "attention_qkv", i)
        t.linear(p + "attention.out_lin", d, d, "attention_output", i)
        t.layer_norm(p + "sa_layer_norm", d, layer=i)
        t.linear(p + "ffn.lin1", hid, d, "feed_forward", i)
        t.linear(p + "ffn.lin2", d, hid, "feed_forward", i)
        t.layer_norm(p + "output_layer_norm", d, layer=i)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    d, v = c["dim"], c["vocab_size"]
    t.linear("vocab_transform", d, d, "head")
    t.layer_norm("vocab_layer_norm", d, group="head")
    t.add(
        "vocab_projector.weight",
        (v, d),
        "head",
        shares=prefix + "embeddings.word_embeddings.weight" if c["tie_word_embeddings"] else None,
        module="linear",
    )
    t.add("vocab_projector.bias", (v,), "head", module="linear")


def classifier_head(out: str | int) -> Any:
    def head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
        d = c["dim"]
        t.linear("pre_classifier", d, d, "head")
        t.linear("classifier", c[out] if isinstance(out, str) else out, d, "head")

    return head


def formula(inv: Inventory) -> Formula:
    """BERT's layer; word and position tables only (no token types), no pooler."""
    c = inv.config
    v, d, p, n, f = c["vocab_size"], c["dim"], c["max_position_embeddings"], c["n_layers"], c["hidden_dim"]
    lines = [
        FormulaLine("embeddings", "(V + P)·H + 2H", f"({v} + {p})·{d} + 2·{d}", (v + p) * d + 2 * d),
        *layers_lines(*bert.layer_terms(d, f), n),
    ]
    return Formula({"V": v, "P": p, "H": d, "I": f, "L": n}, tuple(lines + head_line(inv)))


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """DistilBERT's classes: word + position (a buffer slice), LayerNorm, dropout; six blocks without a
    dropout after the attention's projection; heads with their own dropouts (all > 0 by default)."""
    prefix = bert.step_prefix(inv)
    if bert.step_task(inv) in LIFETIMES:  # every operation modelled by the lifetime simulator
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared below
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies: costs.lifetime)
    e = prefix + "embeddings."
    model = sim.scope()  # DistilBertModel.forward: ``embeddings`` held until it returns
    mark = sim.scope()  # Embeddings.forward: inputs_embeds, position_embeddings held; ``embeddings`` rebound
    words = sim.embedding(e + "word_embeddings", sim.ids((b, n)), first=True)
    x = sim.add(words, sim.embedding(e + "position_embeddings", sim.buffer((1, n))))
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    x = sim.end_scope(mark, sim.rebind(x, sim.dropout(x, sim.drops("dropout"))))
    heads = inv.config["n_heads"]
    for i in range(inv.config["n_layers"]):
        y = sim.layer(step_block(prefix, i, heads), x)
        if i:  # Transformer.forward rebinds ``hidden_states``
            sim.rebind(x, y)
        x = y
    x = sim.end_scope(model, x)
    return bert.run_head(DISTILBERT_HEADS, sim, inv, x, None, "dropout")  # the token classifier's dropout: ``dropout``


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``DistilBertForMaskedLM``'s head, ``prediction_logits`` rebound at each line: ``vocab_transform``, the
    configured activation, ``vocab_layer_norm``, ``vocab_projector``."""
    y = sim.linear("vocab_transform", seq)
    y = sim.rebind(y, sim.act("activation", y))  # get_activation(config.activation)
    y = sim.rebind(y, sim.layer_norm("vocab_layer_norm", y))
    return [sim.rebind(y, sim.linear("vocab_projector", y))]


def classification_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """The first token, ``pre_classifier``, ReLU (keeps its output), ``seq_classif_dropout``, ``classifier``;
    ``pooled_output`` rebound at each line."""
    y = sim.linear("pre_classifier", sim.select(seq, 1))
    y = sim.rebind(y, sim.activation("relu", y))
    y = sim.rebind(y, sim.dropout(y, sim.drops("seq_classif_dropout")))
    return [sim.linear("classifier", y)]


def qa_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``qa_dropout``, then ``qa_outputs`` split into start and end logits."""
    return bert.step_qa(sim, sim.dropout(seq, sim.drops("qa_dropout")))


#: DistilBERT's six classes, by task: no pooler anywhere; each head's tensors and forward (the token classifier's
#: dropout is ``dropout``; multiple choice wants [B, choices, L] inputs, which the step refuses).
DISTILBERT_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(False, classifier_head("num_labels"), uses_num_labels=True,
                                            step=classification_step),
    Task.MULTIPLE_CHOICE: bert.Head(False, classifier_head(1)),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels", "dim"),
                                         uses_num_labels=True, step=bert.token_classifier_step),
    Task.QUESTION_ANSWERING: bert.Head(False, bert.linear_head("qa_outputs", "num_labels", "dim"),
                                       uses_num_labels=True, step=qa_step, labels_must_be=2),
}


def step_block(prefix: str, i: int, heads: int) -> Callable[[Sim, T], T]:
    p = f"{prefix}transformer.layer.{i}."

    def run(sim: Sim, x: T) -> T:
        a = p + "attention."
        block = sim.scope()  # TransformerBlock.forward: holds the probabilities (``_``) until it returns
        attention = sim.scope()  # DistilBertSelfAttention.forward: q, k, v until out_lin has run
        held: list[T] = []
        context = bert.step_attention(sim, x, heads, a + "q_lin", a + "k_lin", a + "v_lin",
                                      dropout_key="attention_dropout", frame=False, held=held)
        out = sim.rebind(context, sim.linear(a + "out_lin", context))
        out = sim.end_scope(attention, out, *held)
        total = sim.add(out, x)
        attended = sim.layer_norm(p + "sa_layer_norm", total)  # ``attention_output`` rebound
        sim.release(out, total)
        mark = sim.scope()  # FFN.forward (ff_chunk): ``x`` rebound at each line
        inner = sim.linear(p + "ffn.lin1", attended)
        inner = sim.rebind(inner, sim.act("activation", inner))
        inner = sim.rebind(inner, sim.linear(p + "ffn.lin2", inner))
        out = sim.end_scope(mark, sim.rebind(inner, sim.dropout(inner, sim.drops("dropout"))))
        total = sim.add(out, attended)
        result = sim.layer_norm(p + "output_layer_norm", total)  # ``ffn_output`` rebound
        sim.release(out, total)
        return sim.end_scope(block, result)

    return run


#: The classes whose every operation the lifetime simulator models (:mod:`calculator.costs.lifetime`).
LIFETIMES = ("", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering")

#: DistilBertConfig's defaults: ``activation`` "gelu", ``dropout``, ``attention_dropout`` and ``qa_dropout`` 0.1,
#: ``seq_classif_dropout`` 0.2.
KEYS = (activation_key("gelu", key="activation"), *dropouts("dropout", "attention_dropout", "qa_dropout"),
        *dropouts("seq_classif_dropout", default=0.2))
COSTS = CostModel(step_program, bert.absolute_positions(), check=bert.step_check, keys=KEYS, buffers=position_ids_buffer,
                  autocast=True, sdpa=True, sdpa_dropout=("attention_dropout",), reentrant=True)


def distilbert_config(vocab: int) -> dict[str, Any]:
    return {
        "model_type": "distilbert",
        "vocab_size": vocab,
        "dim": 768,
        "n_layers": 6,
        "n_heads": 12,
        "hidden_dim": 3072,
        "max_position_embeddings": 512,
        "sinusoidal_pos_embds": False,
    }


FAMILY = Family(
    model_type="distilbert",
    base="DistilBertModel",
    fields=FIELDS,
    backbone=backbone,
    aliases={"hidden_size": "dim", "num_attention_heads": "n_heads", "num_hidden_layers": "n_layers"},
    heads_check=("dim", "n_heads"),
    architectures=bert.task_classes("DistilBert", "distilbert.", (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION,
        Task.QUESTION_ANSWERING), DISTILBERT_HEADS),
    title={"en": "DistilBERT", "zh": "DistilBERT"},
    formula=formula,
    presets=(
        Preset("distilbert-base-uncased", distilbert_config(30522), "DistilBertForMaskedLM"),
        Preset("distilbert-base-cased", distilbert_config(28996), "DistilBertForMaskedLM"),
        Preset("distilbert-base-multilingual-cased", distilbert_config(119547), "DistilBertForMaskedLM"),
    ),
    sample=heads_divide("dim", "n_heads"),
    rank=30,
    default_attention="sdpa",
    costs=COSTS,
)
