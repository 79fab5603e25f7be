"""ConvBERT (``modeling_convbert.py``, 2020): half the attention heads replaced by span-based dynamic convolution.

* ``head_ratio`` (γ, 2) divides the heads: a layer keeps A' = A // γ self-attention
  heads (at least 1), each of size d = (H // A') // 2, so Q, K and V are only
  A'·d = H/2 wide for the published sizes (``all_head_size``).
* The other half is the convolution branch: ``key_conv_attn_layer`` is a separable
  convolution (its own bias [A'·d, 1], a depthwise ``nn.Conv1d`` [H, 1, k] with one
  group per channel, a pointwise ``nn.Conv1d`` [A'·d, H, 1], neither with a bias);
  ``conv_kernel_layer`` (A'·d → A'·k) predicts each position's kernel and
  ``conv_out_layer`` (H → A'·d) projects the values. k is ``conv_kernel_size`` (9).
* ``num_groups`` > 1 turns the feed-forward pair into grouped linear layers: a bare
  weight [G, H/G, I/G] (not an nn.Linear: LoRA cannot adapt it) and a bias [I].
* Embeddings are ELECTRA's: width ``embedding_size`` (E), and a projection E → H
  (``embeddings_project``) only when E ≠ H. No pooler in any class.
* Multiple choice pools with ``ConvBertSequenceSummary``, which holds a Linear
  (``sequence_summary.summary``) only when config.json says ``summary_use_proj``
  (H → num_labels with ``summary_proj_to_labels``, else H → H); ``summary_type``
  "attn" is refused. Published ConvBERT configs have none of these keys.
* The masked-LM head is ELECTRA's generator head (``generator_predictions``: its
  LayerNorm first, then dense H → E; ``generator_lm_head`` E → V tied to the words).
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Mapping

from ..config import Field, coerce_bool, read_fields
from ..costs import BERT_KEYS, CostModel, Sim, T, unread, position_buffers
from ..errors import CalcError
from ..formula import Formula, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Extra, Family, Preset, Task
from .common import EMBEDDING, HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, TOKEN_TYPES, VOCAB, L
from .common import CROSS_ATTENTION

FIELDS = (
    VOCAB,
    replace(EMBEDDING, default=768, label=L("Embedding size (E; projected to H when different)",
                                            "嵌入维度（E；与 H 不同时再投影到 H）")),
    HIDDEN,
    LAYERS,
    HEADS,
    Field("head_ratio", 2, label=L("Head ratio (head_ratio, γ: A // γ heads stay self-attention)",
                                   "注意力头缩减比例（head_ratio，γ：保留 A // γ 个自注意力头）"), sample=(1, 4)),
    Field("conv_kernel_size", 9, label=L("Convolution kernel size (conv_kernel_size, k)", "卷积核大小（conv_kernel_size，k）"),
          sample=(1, 9)),
    Field("num_groups", 1, label=L("Feed-forward groups (num_groups; > 1: grouped linear layers)",
                                   "前馈网络分组数（num_groups；大于 1 时为分组线性层）"), sample=(1, 4)),
    INTERMEDIATE,
    POSITIONS,
    TOKEN_TYPES,
    LABELS,
    TIE,
)


#: ``ConvBertSequenceSummary``'s keys: no form field (published configs lack them), kept in the share link.
SUMMARY_KEYS = ("summary_use_proj", "summary_proj_to_labels")


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and the sequence summary's switches (absent: False, as ``hasattr`` finds nothing)."""
    c = read_fields(FIELDS, raw, {})
    for key in SUMMARY_KEYS:
        value = raw.get(key)
        c[key] = False if value is None else coerce_bool(key, value)
    summary_type = raw.get("summary_type", "last")
    c["summary_type"] = "last" if summary_type is None else summary_type
    return c


def _summary_query(key: str) -> Any:
    def to_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
        return "1" if config.get(key) else None

    return to_query


def _summary_type_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    value = config.get("summary_type", "last")
    return None if value == "last" else str(value)


EXTRAS = (
    Extra("summary_use_proj", lambda text: text.strip(), _summary_query("summary_use_proj")),
    Extra("summary_proj_to_labels", lambda text: text.strip(), _summary_query("summary_proj_to_labels")),
    Extra("summary_type", lambda text: text.strip(), _summary_type_query),
)


def multiple_choice_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``ConvBertSequenceSummary`` (a Linear only with summary_use_proj), then ``classifier`` H → 1."""
    h = c["hidden_size"]
    if c["summary_type"] == "attn":  # NotImplementedError in transformers
        raise CalcError("bad_value", key="summary_type", value=c["summary_type"])
    if c["summary_use_proj"]:
        out = c["num_labels"] if c["summary_proj_to_labels"] and c["num_labels"] > 0 else h
        t.linear("sequence_summary.summary", out, h, "head")
    t.linear("classifier", 1, h, "head")


def attention_sizes(c: Mapping[str, Any]) -> tuple[int, int]:
    """(A', A'·d): the self-attention heads a layer keeps, and the width of Q, K, V and the convolution branch."""
    heads = c["num_attention_heads"] // c["head_ratio"]
    if heads < 1:
        heads = 1
    return heads, heads * ((c["hidden_size"] // heads) // 2)


def check(c: dict[str, Any]) -> None:
    """``ConvBertSelfAttention`` refuses H not divisible by the heads it keeps (with no layer, nothing is built)."""
    if c["num_hidden_layers"] == 0:
        return
    heads, _ = attention_sizes(c)
    if c["hidden_size"] % heads != 0:
        raise CalcError("heads_not_divisor", fields=("hidden_size",), hidden_key="hidden_size", hidden=c["hidden_size"],
                        heads_key="num_attention_heads // head_ratio", heads=heads)


def feed_forward(t: TensorList, name: str, out: int, width: int, groups: int, layer: int) -> None:
    """``nn.Linear`` when num_groups is 1, else ``GroupedLinearLayer``: weight [G, in // G, out // G], bias [out]."""
    if groups == 1:
        t.linear(name, out, width, "feed_forward", layer)
    else:
        t.add(name + ".weight", (groups, width // groups, out // groups), "feed_forward", layer)
        t.add(name + ".bias", (out,), "feed_forward", layer)


def encoder_layer(t: TensorList, c: dict[str, Any], prefix: str, i: int) -> None:
    h, inter, k, groups = c["hidden_size"], c["intermediate_size"], c["conv_kernel_size"], c["num_groups"]
    heads, width = attention_sizes(c)
    p = f"{prefix}encoder.layer.{i}.attention."
    for proj in ("query", "key", "value"):
        t.linear(p + "self." + proj, width, h, "attention_qkv", i)
    s = p + "self.key_conv_attn_layer."
    t.add(s + "bias", (width, 1), "attention_qkv", i)
    t.conv1d(s + "depthwise", h, h, k, "attention_qkv", i, groups=h, bias=False)
    t.conv1d(s + "pointwise", width, h, 1, "attention_qkv", i, bias=False)
    t.linear(p + "self.conv_kernel_layer", heads * k, width, "attention_qkv", i)
    t.linear(p + "self.conv_out_layer", width, h, "attention_qkv", i)
    t.linear(p + "output.dense", h, h, "attention_output", i)
    t.layer_norm(p + "output.LayerNorm", h, layer=i)
    q = f"{prefix}encoder.layer.{i}."
    feed_forward(t, q + "intermediate.dense", inter, h, groups, i)
    feed_forward(t, q + "output.dense", h, inter, groups, i)
    t.layer_norm(q + "output.LayerNorm", h, layer=i)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    e_dim, h = c["embedding_size"], c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], e_dim, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], e_dim, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], e_dim, "embeddings")
    t.layer_norm(e + "LayerNorm", e_dim, group="embeddings")
    if e_dim != h:
        t.linear(prefix + "embeddings_project", h, e_dim, "embeddings")
    for i in range(c["num_hidden_layers"]):
        encoder_layer(t, c, prefix, i)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``ConvBertGeneratorPredictions`` (LayerNorm(E) registered first, then dense H → E), then the tied lm head."""
    e_dim, v = c["embedding_size"], c["vocab_size"]
    t.layer_norm("generator_predictions.LayerNorm", e_dim, group="head")
    t.linear("generator_predictions.dense", e_dim, c["hidden_size"], "head")
    owner = prefix + "embeddings.word_embeddings.weight"
    t.add("generator_lm_head.weight", (v, e_dim), "head", shares=owner if c["tie_word_embeddings"] else None,
          module="linear")
    t.add("generator_lm_head.bias", (v,), "head", module="linear")


def classification_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h = c["hidden_size"]
    t.linear("classifier.dense", h, h, "head")
    t.linear("classifier.out_proj", c["num_labels"], h, "head")


def formula(inv: Inventory) -> Formula:
    """Embeddings (and E → H when E ≠ H); per layer the kept heads' Q, K, V (width W = A'·d), the convolution branch,
    BERT's output dense and LayerNorms, and the feed-forward pair (divided by G when grouped)."""
    c = inv.config
    v, p, t, e, h, n, i, k, g = (
        c["vocab_size"], c["max_position_embeddings"], c["type_vocab_size"], c["embedding_size"], c["hidden_size"],
        c["num_hidden_layers"], c["intermediate_size"], c["conv_kernel_size"], c["num_groups"],
    )
    heads, w = attention_sizes(c)
    if e == h:
        emb = bert.embeddings_line(v, p, t, h)
    else:
        emb = bert.factorised_embeddings_line(v, p, t, e, h)
    # 3(HW + W) Q K V; W + Hk + WH separable conv; (WA'k + A'k) kernel; HW + W conv out; H² + H output; 4H norms
    attention = 3 * (h * w + w) + (w + h * k + w * h) + (w * heads * k + heads * k) + (h * w + w) + (h * h + h) + 4 * h
    if g == 1:
        ffn = 2 * h * i + i + h
        ffn_sym, ffn_sub = "2HI + I + H", f"2·{h}·{i} + {i} + {h}"
    else:
        ffn = g * (h // g) * (i // g) + i + g * (i // g) * (h // g) + h
        ffn_sym, ffn_sub = "2G·(H/G)·(I/G) + I + H", f"2·{g}·({h}/{g})·({i}/{g}) + {i} + {h}"
    symbolic = f"4(HW + W) + W + Hk + WH + A'kW + A'k + H² + H + 4H + {ffn_sym}"
    substituted = (
        f"4·({h}·{w} + {w}) + {w} + {h}·{k} + {w}·{h} + {heads}·{k}·{w} + {heads}·{k} + {h}² + {h} + 4·{h}"
        f" + {ffn_sub}"
    )
    lines = [emb, *layers_lines(symbolic, substituted, attention + ffn, n)]
    symbols = {"V": v, "P": p, "T": t, "E": e, "H": h, "I": i, "L": n, "A'": heads, "W": w, "k": k, "G": g}
    return Formula(symbols, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads that divide H after head_ratio (mostly), E = H half the time."""
    heads = rng.choice([1, 2, 3, 4, 6, 8, 12])
    ratio = config.get("head_ratio", 2)
    kept = max(heads // ratio, 1)
    config["num_attention_heads"] = heads
    config["hidden_size"] = kept * rng.randint(1, 24) if rng.random() < 0.95 else rng.randint(1, 64)
    if rng.random() < 0.5:
        config["embedding_size"] = config["hidden_size"]
    if rng.random() < 0.2:  # a sequence summary with a projection (multiple choice)
        config["summary_use_proj"] = True
        config["summary_proj_to_labels"] = rng.random() < 0.5


# --------------------------------------------------------------- training step
#
# ConvBertConfig's defaults: GELU, hidden, attention-probability and classifier dropout 0.1.


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, ids: T, b: int, n: int) -> T:
    """``ConvBertEmbeddings``: word + position + token type (both slices of buffers: nothing counted), LayerNorm,
    dropout; ``inputs_embeds + position_embeddings`` the expression's temporary, the lookups named until it
    returns."""
    e = prefix + "embeddings."
    mark = sim.scope()
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    pos = sim.embedding(e + "position_embeddings", sim.buffer((1, n)))
    tt = sim.embedding(e + "token_type_embeddings", sim.expand(sim.buffer((1, n)), (b, n)))
    total = sim.add(words, pos)
    x = sim.add(total, tt)
    sim.release(total)
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    x = sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob")))
    return sim.end_scope(mark, x)


def step_self_attention(sim: Sim, c: Mapping[str, Any], p: str, x: T) -> tuple[T, T]:
    """``ConvBertSelfAttention``: A' heads of eager attention beside the span-based dynamic convolution; returns
    the context and the probabilities (held by ``ConvBertAttention``'s ``_`` until it returns).

    The convolution branch: the separable convolution of the keys (depthwise k-wide, pointwise,
    ``+= bias``) times the queries gives each position's kernel (``conv_kernel_layer`` on that product, which is
    laid out as the transposed convolution: ``linear``'s matmul path; softmax over k); ``conv_out_layer``'s values
    are unfolded into k-wide windows (``im2col``) and ``matmul``-ed with the kernels; both halves are concatenated
    back to H. Every local is named until the function returns, except where the code rebinds it.
    """
    b, n, h = x.shape
    heads, width = attention_sizes(c)
    d, k = width // heads, c["conv_kernel_size"]
    mark = sim.scope()
    key = sim.linear(p + "key", x)
    value = sim.linear(p + "value", x)
    s = p + "key_conv_attn_layer."
    separable = sim.scope()  # SeparableConv1D.forward
    depthwise = sim.conv1d(s + "depthwise", sim.transpose(x, 1, 2))
    conv = sim.rebind(depthwise, sim.conv1x1(s + "pointwise", depthwise))
    conv = sim.end_scope(separable, sim.plus_param(conv, s + "bias"))
    query = sim.linear(p + "query", x)

    q, kk, v = sim.heads(query, heads, d), sim.heads(key, heads, d), sim.heads(value, heads, d)
    mixed = sim.mul_like(sim.transpose(conv, 1, 2), query)
    kernel = sim.linear_strided(p + "conv_kernel_layer", mixed)
    kernel = sim.rebind(kernel, sim.reshape(kernel, (-1, k, 1)))
    kernel = sim.rebind(kernel, sim.softmax(kernel))  # over the k taps
    out = sim.linear(p + "conv_out_layer", x)
    out = sim.rebind(out, sim.reshape(out, (b, -1, width)))
    out = sim.rebind(out, sim.contiguous(sim.transpose(out, 1, 2)))  # [B, W, L]
    out = sim.view(out, (b, width, n, 1))  # unsqueeze(-1)
    out = sim.rebind(out, sim.unfold_windows(out, k))  # [B, W·k, L]
    out = sim.rebind(out, sim.reshape(sim.transpose(out, 1, 2), (b, -1, width, k)))
    out = sim.rebind(out, sim.reshape(out, (-1, d, k)))  # a copy (the windows' layout does not allow a view)
    conv_out = sim.rebind(out, sim.bmm(out, kernel))
    conv_out = sim.rebind(conv_out, sim.reshape(conv_out, (-1, width)))
    product = sim.bmm(q, sim.transpose(kk, 2, 3))
    scores = sim.rebind(product, sim.divide(product))  # / sqrt(d); the all-ones mask became None
    probs = sim.keep_output(scores)  # softmax: attention_scores keeps its name
    probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_probs_dropout_prob")))
    context = sim.bmm(probs, v)
    context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))  # permute(0, 2, 1, 3)
    halves = sim.reshape(conv_out, (b, -1, heads, d))
    context = sim.rebind(context, sim.concat([context, halves], 2))
    context = sim.view(context, (b, n, 2 * width))
    return sim.end_scope(mark, context, probs), probs


def step_feed_forward(sim: Sim, c: Mapping[str, Any], module: str, x: T) -> T:
    return sim.linear(module, x) if c["num_groups"] == 1 else sim.grouped_linear(module, x)


def step_layer(c: Mapping[str, Any], p: str) -> Any:
    """One ``ConvBertLayer``: mixed attention, BERT's self-output (dense, dropout, LayerNorm); the GELU
    feed-forward pair (grouped when G > 1), dropout, LayerNorm. The context and the probabilities go when
    ``ConvBertAttention`` returns, the intermediate output when ``feed_forward_chunk`` does."""

    def run(sim: Sim, x: T) -> T:
        hidden = sim.drops("hidden_dropout_prob")
        layer = sim.scope()
        attention = sim.scope()  # ConvBertAttention.forward
        context, _ = step_self_attention(sim, c, p + "attention.self.", x)
        attended = sim.end_scope(attention, bert.self_output(sim, p + "attention.output.", context, x, hidden))
        chunk = sim.scope()  # feed_forward_chunk
        inner_mark = sim.scope()  # ConvBertIntermediate.forward
        inner = step_feed_forward(sim, c, p + "intermediate.dense", attended)
        inner = sim.end_scope(inner_mark, sim.rebind(inner, sim.act("hidden_act", inner)))
        output = sim.scope()  # ConvBertOutput.forward
        h = step_feed_forward(sim, c, p + "output.dense", inner)
        h = sim.rebind(h, sim.dropout(h, hidden))
        total = sim.add(h, attended)
        out = sim.layer_norm(p + "output.LayerNorm", total)
        sim.release(h, total)
        out = sim.end_scope(chunk, sim.end_scope(output, out))
        return sim.end_scope(layer, out)

    return run


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """ConvBERT's classes (no pooler in any): the outputs each returns, every name dropped where
    ``modeling_convbert.py`` drops it. ``ConvBertModel.forward`` checks the ids' first and last columns for padding
    (four temporaries), makes ``attention_mask = torch.ones((B, L))``, which the bidirectional mask function reads
    (``.to(bool)``, ``.all()``) and drops, returning None; the encoder's input stays named by the model."""
    c = inv.config
    prefix = bert.step_prefix(inv)
    sim.exact_lifetimes()
    sim.exact_forward()  # every name's release declared below
    sim.exact_autocast()  # under bf16 autocast too: the strided and grouped linears' casts, the convolutions' copies
    model = sim.scope()  # ConvBertModel.forward
    ids = sim.ids((b, n))
    if c.get("pad_token_id", 1) is not None:  # warn_if_padding_and_no_attention_mask
        sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    ones = sim.named_transient(4 * b * n, "aten.ones")
    x = step_embeddings(sim, inv, prefix, ids, b, n)
    if c["embedding_size"] != c["hidden_size"]:
        x = sim.rebind(x, sim.linear(prefix + "embeddings_project", x))
    sim.transients((b * n, 1), (1, 1), ("aten._to_copy", "aten.all"))
    sim.drop_transient(ones)
    seq = x
    for i in range(c["num_hidden_layers"]):
        y = sim.layer(step_layer(c, f"{prefix}encoder.layer.{i}."), seq)
        if i:
            sim.release(seq)
        seq = y
    sim.end_scope(model, seq)
    kind = bert.step_task(inv)
    if kind == "":
        return [seq]
    if kind == "ForMaskedLM":  # generator_predictions: dense H → E, GELU, LayerNorm (rebinding); then the lm head
        head = sim.scope()
        y = sim.linear("generator_predictions.dense", seq)
        y = sim.rebind(y, sim.keep_input(y))
        y = sim.end_scope(head, sim.rebind(y, sim.layer_norm("generator_predictions.LayerNorm", y)))
        return [sim.linear("generator_lm_head", y)]
    if kind == "ForSequenceClassification":  # the first token, dropout, dense, GELU, dropout, out_proj (rebinding x)
        head = sim.scope()
        drop = sim.drops("classifier_dropout")
        first = sim.select(seq, 1)
        y = sim.dropout(first, drop)
        dense = sim.linear("classifier.dense", y)
        # an inactive dropout (p = 0, eval) returned ``features[:, 0, :]``, a view of what the caller still names
        y = dense if y.storage == first.storage else sim.rebind(y, dense)
        y = sim.rebind(y, sim.act("hidden_act", y))
        y = sim.rebind(y, sim.dropout(y, drop))
        return [sim.end_scope(head, sim.rebind(y, sim.linear("classifier.out_proj", y)))]
    if kind == "ForTokenClassification":
        return [sim.linear("classifier", sim.dropout(seq, sim.drops("classifier_dropout")))]
    if kind == "ForQuestionAnswering":
        return bert.step_qa(sim, seq)
    raise AssertionError(inv.architecture)


def step_check(inv: Inventory) -> None:
    """Besides BERT's refusals, configs transformers builds but cannot run: an even kernel (the
    convolution and the unfold disagree on the length), kept heads whose two halves, 2·A'·d
    with d = (H // A') // 2, do not give back the H the output dense reads (H / A' odd), and
    grouped feed-forward layers whose widths the groups do not divide."""
    bert.step_check(inv)
    c = inv.config
    if c["num_hidden_layers"] == 0:
        return
    if c["conv_kernel_size"] % 2 == 0:
        raise CalcError("costs_even_kernel", value=c["conv_kernel_size"])
    h, inter, groups = c["hidden_size"], c["intermediate_size"], c["num_groups"]
    _, width = attention_sizes(c)
    if 2 * width != h:
        raise CalcError("costs_widths", module="attention.output.dense", expected=h, got=2 * width)
    if groups > 1:  # GroupedLinearLayer: a [-1, G, in // G] view in, a [B, -1, out] reshape of G·(out // G) out
        for module, width_in, width_out in (("intermediate.dense", h, inter), ("output.dense", inter, h)):
            if width_in % groups:
                raise CalcError("costs_widths", module=module, expected=groups * (width_in // groups), got=width_in)
            if width_out % groups:
                raise CalcError("costs_widths", module=module + " (output)", expected=width_out,
                                got=groups * (width_out // groups))


COSTS = CostModel(step_program, bert.absolute_positions(), check=step_check, keys=unread(BERT_KEYS), buffers=position_buffers, autocast=True, reentrant=True)


def convbert_config(vocab: int, embedding: int, hidden: int, heads: int, inter: int) -> dict[str, Any]:
    """A published ConvBERT config.json's size-relevant keys."""
    return {
        "model_type": "convbert", "vocab_size": vocab, "embedding_size": embedding, "hidden_size": hidden,
        "num_hidden_layers": 12, "num_attention_heads": heads, "head_ratio": 2, "conv_kernel_size": 9,
        "num_groups": 1, "intermediate_size": inter, "max_position_embeddings": 512, "type_vocab_size": 2,
    }


FAMILY = Family(
    model_type="convbert",
    base="ConvBertModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=None,  # transformers skips it (the config has embedding_size); check() tests the kept heads
    checks=(check,),
    read=read,
    extras=EXTRAS,
    pad_token_id=1,
    architectures=(
        Architecture(name="ConvBertModel", task=Task.MODEL, prefix="", pooler=False),
        Architecture(name="ConvBertForMaskedLM", task=Task.MASKED_LM, prefix="convbert.", pooler=False, head=mlm_head,
                     ties_embeddings=True),
        Architecture(name="ConvBertForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix="convbert.", pooler=False,
                     head=classification_head, uses_num_labels=True),
        Architecture(name="ConvBertForMultipleChoice", task=Task.MULTIPLE_CHOICE, prefix="convbert.", pooler=False,
                     head=multiple_choice_head),
        Architecture(name="ConvBertForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix="convbert.", pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="ConvBertForQuestionAnswering", task=Task.QUESTION_ANSWERING, prefix="convbert.", pooler=False,
                     head=bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "ConvBERT", "zh": "ConvBERT"},
    formula=formula,
    presets=(
        # https://huggingface.co/YituTech/conv-bert-base/blob/main/config.json (ConvBertModel)
        Preset("YituTech/conv-bert-base", convbert_config(30522, 768, 768, 12, 3072), "ConvBertModel"),
        # https://huggingface.co/YituTech/conv-bert-small/blob/main/config.json (ConvBertModel)
        Preset("YituTech/conv-bert-small", convbert_config(30522, 128, 256, 4, 1024), "ConvBertModel"),
    ),
    sample=sample,
    rank=66,
    ignored_keys=(CROSS_ATTENTION,),
    costs=COSTS,
)
