"""RoFormer (``modeling_roformer.py``): BERT with rotary positions, and tables that may be narrower than H.

What differs from BERT, tensor by tensor:

* **No learned position table in the embeddings.** Positions are rotary (RoPE):
  the encoder holds ``embed_positions``, a sinusoidal table of
  ``max_position_embeddings`` rows and one head's width (H / A). It is an
  ``nn.Embedding`` created with ``_freeze=True``: a Parameter that
  ``parameters()`` counts and nothing trains (``requires_grad=False``), so it
  is in the total and out of the trainable count.
* Word and token-type tables, and their LayerNorm, are ``embedding_size`` (E)
  wide; E defaults to H, and when it differs ``embeddings_project`` (E → H)
  follows the embeddings, as in ELECTRA.
* No pooler: ``RoFormerModel`` never builds one.
* ``RoFormerForQuestionAnswering`` sets ``config.num_labels = 2`` before building
  ``qa_outputs``: the label count of the config does not change it.
* The masked-LM head maps H → E before the decoder, so the decoder is [V, E]
  and can be tied to the word table.
* ``RoFormerForMultipleChoice`` pools with a ``SequenceSummary`` that adds
  nothing unless the config asks for a projection (``summary_use_proj``, a key
  no published RoFormer config sets: then ``sequence_summary.summary`` [H, H], or
  [num_labels, H] with ``summary_proj_to_labels``), then ``classifier`` [1, H].
  These keys have no form field; they travel in share links.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Callable, Mapping

from ..config import Field, coerce_bool, read_fields
from ..costs import CostModel, Sim, T, activation_key, dropouts, unread, no_buffers
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Extra, Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, TOKEN_TYPES, VOCAB, L, heads_divide
from .common import CROSS_ATTENTION, value_extra

FIELDS = (
    replace(VOCAB, default=50000),
    HIDDEN,
    Field(
        "embedding_size", None, default_from="hidden_size",
        label=L("Embedding size (E; defaults to H)", "词嵌入维度（E；默认等于 H）"), sample=(1, 64),
    ),
    LAYERS,
    HEADS,
    INTERMEDIATE,
    replace(
        POSITIONS, default=1536,
        label=L("Positions (P; rows of the frozen rotary table)", "最大位置数（P；冻结的旋转位置表的行数）"),
    ),
    TOKEN_TYPES,
    LABELS,
    TIE,
)


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and the SequenceSummary keys that only some hand-written configs carry.

    ``RoFormerSequenceSummary`` reads them with ``hasattr``/``getattr``: absent means
    no projection; ``summary_type="attn"`` raises ``NotImplementedError`` in
    transformers (for the multiple-choice class only, which alone builds one).
    """
    values = read_fields(FIELDS, raw, {})
    values["summary_use_proj"] = bool(raw.get("summary_use_proj") or False)
    values["summary_proj_to_labels"] = bool(raw.get("summary_proj_to_labels") or False)
    values["summary_type"] = raw.get("summary_type", "last")
    # Rotary positions on the values too (RoFormerConfig.rotary_value): no tensor of its own, but the step changes.
    values["rotary_value"] = False if raw.get("rotary_value") is None else coerce_bool("rotary_value", raw["rotary_value"])
    return values


def _flag_query(key: str) -> Any:
    def to_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
        return "1" if config.get(key) else None

    return to_query


EXTRAS = (
    Extra("summary_use_proj", lambda text: coerce_bool("summary_use_proj", text), _flag_query("summary_use_proj")),
    Extra(
        "summary_proj_to_labels", lambda text: coerce_bool("summary_proj_to_labels", text),
        _flag_query("summary_proj_to_labels"),
    ),
    Extra("rotary_value", lambda text: coerce_bool("rotary_value", text), _flag_query("rotary_value")),
    # "attn" makes the multiple-choice class refuse to build: in the link, so the page refuses it too.
    value_extra("summary_type", "last"),
)


def multiple_choice_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``sequence_summary`` (a projection only with ``summary_use_proj``), then ``classifier`` [1, H]."""
    h = c["hidden_size"]
    if c["summary_type"] == "attn":
        raise CalcError("bad_value", key="summary_type", value="attn")
    if c["summary_use_proj"]:
        out = c["num_labels"] if c["summary_proj_to_labels"] and c["num_labels"] > 0 else h
        t.linear("sequence_summary.summary", out, h, "head")
    t.linear("classifier", 1, h, "head")


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    e_dim, h = c["embedding_size"], c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], e_dim, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], e_dim, "embeddings")
    t.layer_norm(e + "LayerNorm", e_dim, group="embeddings")
    if e_dim != h:
        t.linear(prefix + "embeddings_project", h, e_dim, "embeddings")
    # The sinusoidal table RoPE reads from: a frozen nn.Embedding of one head's width.
    t.embedding(
        prefix + "encoder.embed_positions", c["max_position_embeddings"], h // c["num_attention_heads"],
        "relative_position", trainable=False, section="encoder",
    )
    bert.encoder(t, c, prefix)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``RoFormerOnlyMLMHead``: its vocabulary bias, transform H → E with a LayerNorm, decoder [V, E]."""
    e_dim, h, v = c["embedding_size"], c["hidden_size"], c["vocab_size"]
    t.add("cls.predictions.bias", (v,), "head")
    t.linear("cls.predictions.transform.dense", e_dim, h, "head")
    t.layer_norm("cls.predictions.transform.LayerNorm", e_dim, group="head")
    bert.tied_decoder(
        t, "cls.predictions.decoder", v, e_dim, prefix + "embeddings.word_embeddings.weight",
        "cls.predictions.bias", c["tie_word_embeddings"],
    )


def classification_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h = c["hidden_size"]
    t.linear("classifier.dense", h, h, "head")
    t.linear("classifier.out_proj", c["num_labels"], h, "head")


# ------------------------------------------------------------------ formula


def formula(inv: Inventory) -> Formula:
    """Tables of width E (no position table), E → H when E ≠ H, the frozen rotary table, BERT's layers."""
    c = inv.config
    v, e, h, p, t, n, i, a = (
        c["vocab_size"], c["embedding_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"], c["num_attention_heads"],
    )
    if e == h:
        emb = FormulaLine("embeddings", "(V + T)·H + 2H", f"({v} + {t})·{h} + 2·{h}", (v + t) * h + 2 * h)
    else:
        emb = FormulaLine(
            "embeddings", "(V + T)·E + 2E + E·H + H", f"({v} + {t})·{e} + 2·{e} + {e}·{h} + {h}",
            (v + t) * e + 2 * e + e * h + h,
        )
    rotary = FormulaLine("rotary_table", "P·(H / A)", f"{p}·({h} / {a})", p * (h // a))
    lines = [emb, rotary, *layers_lines(*bert.layer_terms(h, i), n)]
    return Formula({"V": v, "E": e, "P": p, "T": t, "H": h, "A": a, "I": i, "L": n}, tuple(lines + head_line(inv)))


LABELS_ = {
    "rotary_table": L(
        "Rotary position table (encoder.embed_positions; frozen: counted, not trained)",
        "旋转位置编码表（encoder.embed_positions；冻结：计入总数，不参与训练）",
    ),
}


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads divide H; E is H or something else (then the projection appears)."""
    heads_divide()(rng, config)
    if rng.random() < 0.5:
        config["embedding_size"] = config["hidden_size"]
    elif rng.random() < 0.2:
        config["embedding_size"] = None  # null: transformers takes H
    if rng.random() < 0.15:
        config["summary_use_proj"] = True
        config["summary_proj_to_labels"] = rng.random() < 0.5


# --------------------------------------------------------------- training step


def step_attention(sim: Sim, x: T, heads: int, p: str, rotary_value: bool, table: T) -> tuple[T, T]:
    """``RoFormerSelfAttention`` (eager: the only attention its classes have): Q, K (and V with ``rotary_value``)
    rotated before the scores; its scope returns the context and the probabilities.

    ``apply_rotary_position_embeddings`` (a function of its own) stacks ``sin_pos`` and ``cos_pos`` ([1, 1, L, d],
    new tensors in every call, kept by the products' backward) from the table's halves and rotates each of Q, K as
    ``q * cos_pos + rotate_half(q) * sin_pos`` (:meth:`~calculator.costs.ops.Ops.rotate`, laid out as Q:
    [B, L, A, d] in memory); the caller's names of the projections go when it returns. ``matmul`` copies the
    rotated Q and Kᵀ for ``bmm`` (unless B or the heads are 1), ``/ sqrt(d)``, softmax, dropout, the context made
    contiguous; the scores and the rotated Q and K die with the function. Returns the context and the
    probabilities."""
    b, n, h = x.shape
    mark = sim.scope()
    width = sim.linear_info(p + "query").out_features
    d = width // heads

    q = sim.heads(sim.linear(p + "query", x), heads, d)
    k = sim.heads(sim.linear(p + "key", x), heads, d)
    v = sim.heads(sim.linear(p + "value", x), heads, d)
    rotary = sim.scope()  # apply_rotary_position_embeddings
    sin = sim.view(sim.fresh((1, 1, n, d // 2, 2), "aten.stack", table.itemsize), (1, 1, n, d))
    cos = sim.view(sim.fresh((1, 1, n, d // 2, 2), "aten.stack", table.itemsize), (1, 1, n, d))
    turned = [sim.rotate(t, cos, sin, True) for t in ((q, k, v) if rotary_value else (q, k))]
    sim.end_scope(rotary, *turned)
    sim.release(q, k, *((v,) if rotary_value else ()))  # query_layer, key_layer (value_layer) rebound
    q, k = turned[0], turned[1]
    if rotary_value:
        v = turned[2]
    product = sim.bmm(q, sim.transpose(k, 2, 3))
    scores = sim.rebind(product, sim.divide(product))
    probs = sim.keep_output(scores)
    probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_probs_dropout_prob")))
    context = sim.bmm(probs, v)
    context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
    return sim.end_scope(mark, sim.view(context, (b, n, width)), probs), probs


def step_layer(inv: Inventory, prefix: str, i: int, table: T, held: list[T]) -> Callable[[Sim, T], T]:
    """One ``RoFormerLayer``: BERT's post-LN layer (:func:`bert.self_output`, the feed-forward chunk) around the
    rotary attention; it returns the probabilities too (appended to ``held``: the encoder's ``layer_outputs``
    names them until the next layer has returned)."""
    p = f"{prefix}encoder.layer.{i}."
    heads, rotary_value = inv.config["num_attention_heads"], inv.config["rotary_value"]

    def run(sim: Sim, x: T) -> T:
        hidden = sim.drops("hidden_dropout_prob")
        layer = sim.scope()
        context, probs = step_attention(sim, x, heads, p + "attention.self.", rotary_value, table)
        held.append(probs)
        attended = bert.self_output(sim, p + "attention.output.", context, x, hidden)
        sim.release(context)  # RoFormerAttention: ``self_outputs`` go when it returns
        chunk = sim.scope()  # feed_forward_chunk
        inner = sim.linear(p + "intermediate.dense", attended)
        inner = sim.rebind(inner, sim.keep_input(inner))  # GELU
        out = sim.end_scope(chunk, bert.self_output(sim, p + "output.", inner, attended, hidden))
        return sim.end_scope(layer, out, probs)

    return run


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """RoFormer's classes, every name dropped where ``modeling_roformer.py`` drops it: ``RoFormerModel.forward``
    makes ``ones`` [B, L] (float32, the attention mask: dropped once the bidirectional mask, None, replaces it)
    and token types ([B, L] zeros); the embeddings (word + token types, LayerNorm, dropout), the projection when
    E ≠ H; the encoder reads the rotary table without a graph (``@torch.no_grad``: ``arange`` then [L, d], an
    argument of every layer, which a checkpoint's frame keeps) and runs the layers; the heads (no pooler)."""
    prefix = bert.step_prefix(inv)
    c = inv.config
    e = prefix + "embeddings."
    if bert.step_task(inv) in EXACT_LIFETIMES and not c.get("is_decoder"):  # declared, not parsed off "RoFormerFor…"
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()  # and under autocast (rotated Q and K float32: costs.lifetime's mul_table)
    model = sim.scope()  # RoFormerModel.forward
    ids = sim.ids((b, n))
    ones = sim.fresh((b, n), "aten.ones", 4)
    types = sim.ids((b, n))
    embeddings = sim.scope()  # RoFormerEmbeddings.forward
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    x = sim.add(words, sim.embedding(e + "token_type_embeddings", types))
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    x = sim.end_scope(embeddings, sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob"))))
    if c["embedding_size"] != c["hidden_size"]:
        x = sim.rebind(x, sim.linear(prefix + "embeddings_project", x))
    # create_bidirectional_mask: the mask ``.to(bool)`` and ``.all()`` (all ones: no mask), then ``ones`` dropped.
    sim.transients((b * n, 1), (1, 1), ("aten._to_copy", "aten.all"))
    sim.release(ones)
    sim.param_trains(prefix + "encoder.embed_positions.weight")  # frozen: read, never trained
    d = c["hidden_size"] // c["num_attention_heads"]
    encoder = sim.scope()
    sim.transients((8 * n,), (1,), ("aten.arange",))  # the positions, dropped once the table is read
    table = sim.fresh((n, d), "aten.embedding")
    hidden = x
    held: list[T] = []  # each layer's probabilities, named by ``layer_outputs`` until the next layer returns
    for i in range(c["num_hidden_layers"]):
        if sim.checkpointing:
            sim.layer_argument(table, keyword=False)  # sinusoidal_pos: a positional argument
        y = sim.layer(step_layer(inv, prefix, i, table, held), hidden)
        if i:
            sim.rebind(hidden, y)
            sim.release(held[i - 1])
        hidden = y
    seq = sim.end_scope(encoder, hidden)
    sim.end_scope(model, seq)
    return bert.run_head(ROFORMER_HEADS, sim, inv, seq, None, "hidden_dropout_prob")


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``RoFormerOnlyMLMHead`` (the causal LM's too): dense H → E, GELU, LayerNorm, decoder."""
    return [bert.step_mlm(sim, "cls.predictions", seq)]


def classification_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``RoFormerClassificationHead``: the first token, dropout, dense, the activation (GELU), dropout,
    out_proj; ``x`` rebound by every step."""
    head = sim.scope()
    hidden_drop = sim.drops(dropout_key)
    x = sim.dropout(sim.select(seq, 1), hidden_drop)
    x = sim.rebind(x, sim.linear("classifier.dense", x))
    x = sim.rebind(x, sim.keep_input(x))
    x = sim.rebind(x, sim.dropout(x, hidden_drop))
    return [sim.end_scope(head, sim.rebind(x, sim.linear("classifier.out_proj", x)))]


def token_classifier_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """Dropout, then ``classifier``; ``sequence_output`` rebound by both."""
    x = sim.dropout(seq, sim.drops(dropout_key))
    return [sim.rebind(x, sim.linear("classifier", x))]


def qa_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``qa_outputs``, then ``split`` and ``squeeze``: views, no copy."""
    return sim.split_views(sim.linear("qa_outputs", seq))


#: RoFormer's classes, by task: each head's tensors and its forward (no pooler; every dropout in the heads is
#: the hidden one). QA's ``__init__`` sets ``config.num_labels = 2``, whatever was given; multiple choice is
#: refused by :func:`step_check` before the head runs.
ROFORMER_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.CAUSAL_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(False, classification_head, uses_num_labels=True,
                                            step=classification_step),
    Task.MULTIPLE_CHOICE: bert.Head(False, multiple_choice_head, uses_num_labels=True),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                         step=token_classifier_step),
    Task.QUESTION_ANSWERING: bert.Head(False, bert.linear_head("qa_outputs", 2), step=qa_step),
}


#: RoFormer's classes whose every operation the lifetime simulator models (multiple choice is not the step).
EXACT_LIFETIMES = ("", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification", "ForTokenClassification",
                   "ForQuestionAnswering")


def step_check(inv: Inventory) -> None:
    """Multiple choice is not the step; the rotation needs an even head size (it pairs the head's numbers)."""
    if inv.arch.task == Task.MULTIPLE_CHOICE:
        raise CalcError("costs_architecture", architecture=inv.architecture)
    d = inv.config["hidden_size"] // inv.config["num_attention_heads"]
    if d % 2 and inv.config["num_hidden_layers"] > 0:
        raise CalcError("costs_rotary_odd_head", head_size=d)


COSTS = CostModel(step_program, bert.absolute_positions(), check=step_check, keys=unread((activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"))), buffers=no_buffers, autocast=True, reentrant=True)


def roformer_config(
    vocab: int, hidden: int, layers: int, heads: int, inter: int, positions: int | None, embedding: int | None,
) -> dict[str, Any]:
    """A published RoFormer config.json's size-relevant keys (a key the file omits is left out)."""
    config: dict[str, Any] = {
        "model_type": "roformer",
        "vocab_size": vocab,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter,
        "type_vocab_size": 2,
    }
    if embedding is not None:
        config["embedding_size"] = embedding
    if positions is not None:
        config["max_position_embeddings"] = positions
    return config


FAMILY = Family(
    model_type="roformer",
    base="RoFormerModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    architectures=bert.task_classes("RoFormer", "roformer.", (
        Task.MODEL, Task.MASKED_LM, Task.CAUSAL_LM, Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE,
        Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING), ROFORMER_HEADS),
    title={"en": "RoFormer", "zh": "RoFormer"},
    formula=formula,
    # Sizes from the checkpoints' config.json as recorded by a source audit of junnyu's
    # checkpoints (class: RoFormerForMaskedLM, all of them).
    presets=(
        Preset(
            "junnyu/roformer_chinese_base", roformer_config(50000, 768, 12, 12, 3072, 1536, 768), "RoFormerForMaskedLM",
        ),
        Preset(
            "junnyu/roformer_chinese_small", roformer_config(50000, 384, 6, 6, 1536, None, 384), "RoFormerForMaskedLM",
        ),
        Preset(
            "junnyu/roformer_chinese_char_base", roformer_config(12000, 768, 12, 12, 3072, 512, None),
            "RoFormerForMaskedLM",
        ),
    ),
    read=read,
    extras=EXTRAS,
    sample=sample,
    rank=58,
    ignored_keys=(CROSS_ATTENTION,),
    labels=LABELS_,
    costs=COSTS,
)
