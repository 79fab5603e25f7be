"""MobileBERT (``modeling_mobilebert.py``): a thin, deep BERT with bottlenecks and stacked feed-forward networks.

* Embeddings: the token table is only ``embedding_size`` (E = 128) wide. With
  ``trigram_input`` each token's vector is concatenated with its neighbours'
  (3E), and ``embedding_transformation`` projects 3E → H; position and token-type
  tables are H wide.
* Every layer works at W = ``true_hidden_size``: the bottleneck width B =
  ``intra_bottleneck_size`` (128) when ``use_bottleneck``, else H (a value written in
  config.json wins). ``bottleneck.input`` projects H → B (and ``bottleneck.attention``
  does so again for the shared query/key input when ``key_query_shared_bottleneck``);
  Q and K are [A·⌊W/A⌋, W]; V reads H (or W with ``use_bottleneck_attention``); the
  attention output is [W, W]; the feed-forward block is W → I → W and is repeated
  ``num_feedforward_networks`` times (the extra ones in ``ffn``); ``output.bottleneck``
  projects W back to H.
* ``normalization_type="no_norm"`` replaces each LayerNorm with ``NoNorm``, an
  element-wise ``x·weight + bias``: the same two vectors, registered bias first.
  The MLM head's transform keeps a real LayerNorm.
* The pooler has a dense layer only with ``classifier_activation`` (the published
  model sets it to false). The MLM decoder is [V, E], tied to the token table, and
  a second matrix ``cls.predictions.dense`` [H − E, V] (no bias) supplies the rest
  of the H-wide output projection.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Mapping

from ..config import MAX_LAYERS, Field, read_fields
from ..costs import CostModel, Sim, T, activation_key, classifier_dropout, dropouts, position_ids_buffer, unread
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, Task
from .common import EMBEDDING, HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, TOKEN_TYPES, VOCAB, L


def _flag(key: str, default: bool, en: str, zh: str) -> Field:
    return Field(key, default, kind="bool", label=L(en, zh), sample=(0, 1))


FIELDS = (
    VOCAB,
    EMBEDDING,
    _flag(
        "trigram_input", True, "Trigram input (trigram_input: the projection reads 3E)",
        "三元组输入（trigram_input：投影的输入为 3E）",
    ),
    replace(HIDDEN, default=512, sample=(1, 96)),
    replace(LAYERS, default=24),
    replace(HEADS, default=4, sample=(1, 8)),
    replace(INTERMEDIATE, default=512),
    _flag("use_bottleneck", True, "Bottlenecks (use_bottleneck)", "使用瓶颈层（use_bottleneck）"),
    Field(
        "intra_bottleneck_size", 128, label=L("Bottleneck size (B)", "瓶颈维度（B）"), sample=(1, 64),
    ),
    Field(
        "true_hidden_size", None, optional=True,
        label=L("Layer width (true_hidden_size; empty: B with bottlenecks, else H)",
                "层内宽度（true_hidden_size；留空则有瓶颈时为 B，否则为 H）"),
    ),
    _flag(
        "use_bottleneck_attention", False, "Value reads the bottleneck too (use_bottleneck_attention)",
        "V 也读瓶颈输出（use_bottleneck_attention）",
    ),
    _flag(
        "key_query_shared_bottleneck", True, "Shared query/key bottleneck (key_query_shared_bottleneck)",
        "Q、K 共用的瓶颈投影（key_query_shared_bottleneck）",
    ),
    Field(
        "num_feedforward_networks", 4, minimum=0, maximum=MAX_LAYERS, label=L("Feed-forward networks per layer (F)", "每层的前馈网络个数（F）"),
        sample=(0, 4),
    ),
    Field(
        "normalization_type", "no_norm", kind="choice", choices=("no_norm", "layer_norm"),
        label=L("Normalization (normalization_type; NoNorm has the same two vectors)",
                "归一化方式（normalization_type；NoNorm 同样是两个向量）"),
        sample=(0, 1),
    ),
    _flag(
        "classifier_activation", True, "Pooler dense layer (classifier_activation)",
        "池化层的全连接层（classifier_activation）",
    ),
    POSITIONS,
    TOKEN_TYPES,
    LABELS,
    TIE,
)


def width(c: Mapping[str, Any]) -> int:
    """``true_hidden_size``: the layers' working width W.

    ``MobileBertConfig`` derives it (the bottleneck size with bottlenecks, else the
    hidden size), but a ``true_hidden_size`` written in config.json, as the published
    files have it, is set after that and wins.
    """
    if c.get("true_hidden_size") is not None:
        return c["true_hidden_size"]
    return c["intra_bottleneck_size"] if c["use_bottleneck"] else c["hidden_size"]


def attention_width(c: Mapping[str, Any]) -> int:
    """``all_head_size`` = A × int(W / A): Q, K and V's outputs (W when A divides it)."""
    return c["num_attention_heads"] * (width(c) // c["num_attention_heads"])


#: Most feed-forward blocks a model may stack in all (layers × F), checked before any tensor is built: each
#: block is 6 tensors (rows of the per-tensor table, steps of the training-step program). The published
#: models have 24 × 4 = 96; 4 per layer at the most layers (512) keeps the table near BERT's largest.
MAX_FFN_BLOCKS = 4 * MAX_LAYERS


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and the head size every attention layer takes ``** -0.5`` of (0 fails).

    F is a per-layer count of blocks, bounded like a layer count, and layers × F by
    :data:`MAX_FFN_BLOCKS` (``too_large`` in milliseconds, before the tensors are listed).
    """
    values = read_fields(FIELDS, raw, {})
    blocks = values["num_hidden_layers"] * max(values["num_feedforward_networks"], 1)
    if blocks > MAX_FFN_BLOCKS:
        raise CalcError("too_large", fields=("num_hidden_layers", "num_feedforward_networks"),
                        key="num_hidden_layers × num_feedforward_networks", value=blocks,
                        maximum=MAX_FFN_BLOCKS)
    if values["num_hidden_layers"] > 0 and width(values) // values["num_attention_heads"] == 0:
        raise CalcError(
            "bad_value", key="true_hidden_size // num_attention_heads", value=0,
        )
    return values


def norm(t: TensorList, name: str, dim: int, c: Mapping[str, Any], layer: int | None = None,
         group: str = "layer_norm") -> None:
    """``NORM2FN[normalization_type](dim)``: a LayerNorm (weight, bias), or NoNorm (bias, then weight)."""
    if c["normalization_type"] == "layer_norm":
        t.layer_norm(name, dim, group=group, layer=layer)
    else:
        t.add(name + ".bias", (dim,), group, layer)
        t.add(name + ".weight", (dim,), group, layer)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, e_dim, inter = c["hidden_size"], c["embedding_size"], c["intermediate_size"]
    w, a = width(c), attention_width(c)
    intra = c["intra_bottleneck_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], e_dim, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.linear(e + "embedding_transformation", h, e_dim * (3 if c["trigram_input"] else 1), "embeddings")
    norm(t, e + "LayerNorm", h, c, group="embeddings")
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}encoder.layer.{i}."
        t.linear(p + "attention.self.query", a, w, "attention_qkv", i)
        t.linear(p + "attention.self.key", a, w, "attention_qkv", i)
        t.linear(p + "attention.self.value", a, w if c["use_bottleneck_attention"] else h, "attention_qkv", i)
        t.linear(p + "attention.output.dense", w, w, "attention_output", i)
        norm(t, p + "attention.output.LayerNorm", w, c, i)
        t.linear(p + "intermediate.dense", inter, w, "feed_forward", i)
        t.linear(p + "output.dense", w, inter, "feed_forward", i)
        norm(t, p + "output.LayerNorm", w, c, i)
        if c["use_bottleneck"]:
            t.linear(p + "output.bottleneck.dense", h, w, "feed_forward", i)
            norm(t, p + "output.bottleneck.LayerNorm", h, c, i)
            t.linear(p + "bottleneck.input.dense", intra, h, "feed_forward", i)
            norm(t, p + "bottleneck.input.LayerNorm", intra, c, i)
            if c["key_query_shared_bottleneck"]:
                t.linear(p + "bottleneck.attention.dense", intra, h, "attention_qkv", i)
                norm(t, p + "bottleneck.attention.LayerNorm", intra, c, i)
        for j in range(c["num_feedforward_networks"] - 1):
            f = f"{p}ffn.{j}."
            t.linear(f + "intermediate.dense", inter, w, "feed_forward", i)
            t.linear(f + "output.dense", w, inter, "feed_forward", i)
            norm(t, f + "output.LayerNorm", w, c, i)
    if with_pooler and c["classifier_activation"]:
        t.linear(prefix + "pooler.dense", h, h, "pooler")


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``MobileBertLMPredictionHead``: own bias, transform (dense, LayerNorm), dense [H − E, V], tied decoder [V, E]."""
    h, v, e_dim = c["hidden_size"], c["vocab_size"], c["embedding_size"]
    if h < e_dim:  # nn.Linear(V, H − E) with a negative size
        raise CalcError("bad_value", key="hidden_size − embedding_size", value=h - e_dim)
    t.add("cls.predictions.bias", (v,), "head")
    t.linear("cls.predictions.transform.dense", h, h, "head")
    t.layer_norm("cls.predictions.transform.LayerNorm", h, group="head")
    t.linear("cls.predictions.dense", h - e_dim, v, "head", bias=False)
    bert.tied_decoder(
        t, "cls.predictions.decoder", v, e_dim, prefix + "embeddings.word_embeddings.weight", "cls.predictions.bias",
        c["tie_word_embeddings"],
    )


def pretraining_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    mlm_head(t, c, prefix)
    t.linear("cls.seq_relationship", 2, c["hidden_size"], "head")


# ------------------------------------------------------------------ formula


def formula(inv: Inventory) -> Formula:
    """Embeddings at E projected to H; per layer the bottlenecks, attention at B, F feed-forward blocks at B."""
    c = inv.config
    v, e, h, p, t, n, i = (
        c["vocab_size"], c["embedding_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    m = 3 if c["trigram_input"] else 1
    w, a, f, b = width(c), attention_width(c), c["num_feedforward_networks"], c["intra_bottleneck_size"]
    emb = FormulaLine(
        "embeddings", f"V·E + (P + T)·H + {m}E·H + H + 2H",
        f"{v}·{e} + ({p} + {t})·{h} + {m}·{e}·{h} + {h} + 2·{h}",
        v * e + (p + t) * h + m * e * h + h + 2 * h,
    )
    vin, vin_s = (w, "W") if c["use_bottleneck_attention"] else (h, "H")
    parts = [
        # Q and K read W, V reads H (or W); each has D = A·⌊W/A⌋ outputs and biases; output [W, W]; its norm
        (f"2D·W + D·{vin_s} + 3D + W² + W + 2W", f"2·{a}·{w} + {a}·{vin} + 3·{a} + {w}² + {w} + 2·{w}",
         2 * a * w + a * vin + 3 * a + w * w + w + 2 * w),
        # F feed-forward blocks W → I → W, each with its norm (F = 0 still builds the main one)
        (f"{'F' if f >= 1 else '1'} × (2I·W + I + W + 2W)", f"{max(f, 1)} × (2·{i}·{w} + {i} + {w} + 2·{w})",
         max(f, 1) * (2 * i * w + i + w + 2 * w)),
    ]
    if c["use_bottleneck"]:
        k = 2 if c["key_query_shared_bottleneck"] else 1
        parts.append((
            f"H·W + H + 2H + {k} × (B·H + B + 2B)", f"{h}·{w} + {h} + 2·{h} + {k} × ({b}·{h} + {b} + 2·{b})",
            h * w + h + 2 * h + k * (b * h + b + 2 * b),
        ))
    per = (" + ".join(x[0] for x in parts), " + ".join(x[1] for x in parts), sum(x[2] for x in parts))
    lines = [emb, *layers_lines(*per, n)]
    if inv.pooler and c["classifier_activation"]:
        lines.append(bert.pooler_line(h))
    symbols = {"V": v, "E": e, "H": h, "P": p, "T": t, "W": w, "B": b, "D": a, "I": i, "F": f, "L": n}
    return Formula(symbols, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Mostly H ≥ E (the MLM head needs H − E ≥ 0), mostly a head size of at least 1; sometimes a written width."""
    h = config.get("hidden_size", 512)
    if "embedding_size" in config and rng.random() < 0.9:
        config["embedding_size"] = rng.randint(1, max(1, h))
    if rng.random() < 0.15:
        config["true_hidden_size"] = rng.randint(1, 64)  # written in config.json, it wins over the derived width
    heads = config.get("num_attention_heads", 4)
    w = width({"hidden_size": h, "intra_bottleneck_size": config.get("intra_bottleneck_size", 128),
               "use_bottleneck": config.get("use_bottleneck", True), "true_hidden_size": config.get("true_hidden_size")})
    if w < heads and rng.random() < 0.9:
        config["num_attention_heads"] = rng.randint(1, w)


# --------------------------------------------------------------- training step
#
# MobileBertConfig's defaults: ReLU, no hidden dropout (p = 0: nn.Dropout returns its
# input itself, no mask), attention-probability dropout 0.1, the classifier dropout
# falling back to the hidden one (0 too).


def step_norm(sim: Sim, inv: Inventory, module: str, x: T) -> T:
    """``NORM2FN[normalization_type]``: a LayerNorm, or NoNorm's ``x * weight + bias`` (its product a temporary)."""
    if inv.config["normalization_type"] == "layer_norm":
        return sim.layer_norm(module, x)
    return sim.scale_shift(x, module + ".weight", module + ".bias")


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, b: int, n: int) -> T:
    """``MobileBertEmbeddings``: the E-wide lookup, its trigram (each token with its neighbours, 3E), the
    projection to H (skipped when there is no trigram and E = H), plus positions and token types, norm.

    The token types are ``torch.zeros(B, L)`` (a new int64 tensor, kept if its table trains); the positions a
    slice of a buffer. The trigram's two padded slices are the ``cat``'s temporaries; ``inputs_embeds`` is rebound
    by the ``cat`` and the projection; the position and token-type embeddings are named until the function
    returns; ``inputs_embeds + position_embeddings`` is the expression's temporary; the dropout is p = 0.
    """
    c = inv.config
    e = prefix + "embeddings."
    mark = sim.scope()
    ids = sim.ids((b, n))
    positions = sim.buffer((1, n))
    types = sim.constant_by("aten.zeros", (b, n), 8)
    x = sim.embedding(e + "word_embeddings", ids, first=True)
    if c["trigram_input"]:
        after = sim.trigram_pad(x)  # pad(inputs_embeds[:, 1:], ...)
        before = sim.trigram_pad(x)  # pad(inputs_embeds[:, :-1], ...)
        x = sim.rebind(x, sim.concat([after, x, before], 2))
        sim.release(after, before)
    if c["trigram_input"] or c["embedding_size"] != c["hidden_size"]:
        x = sim.rebind(x, sim.linear(e + "embedding_transformation", x))
    pos = sim.embedding(e + "position_embeddings", positions)
    tt = sim.embedding(e + "token_type_embeddings", types)
    total = sim.add(x, pos)
    out = sim.add(total, tt)
    sim.release(total)
    out = sim.rebind(out, step_norm(sim, inv, e + "LayerNorm", out))
    return sim.end_scope(mark, out)


def step_attention(sim: Sim, heads: int, p: str, query_in: T, key_in: T, value_in: T) -> tuple[T, T | None]:
    """``MobileBertSelfAttention`` (eager, or SDPA as ``sim.attention`` says) whose query, key and value read three
    tensors (two of them the same with the shared bottleneck); the heads' width A·⌊W/A⌋ may differ from the
    inputs'. Returns the context and the probabilities (eager; the layer's ``_`` holds them until it returns);
    every other name goes as BERT's ``eager_attention_forward`` drops it."""
    b, n = query_in.shape[0], query_in.shape[1]
    width = sim.linear_info(p + "query").out_features
    d = width // heads
    mark = sim.scope()

    q = sim.heads(sim.linear(p + "query", query_in), heads, d)
    k = sim.heads(sim.linear(p + "key", key_in), heads, d)
    v = sim.heads(sim.linear(p + "value", value_in), heads, d)
    if sim.attention == "sdpa":  # sdpa_attention_forward: no mask, dropout 0 (checked), CPU's flash kernel
        context = sim.contiguous(sim.transpose(sim.sdpa(q, k, v), 1, 2))
        return sim.end_scope(mark, sim.contiguous(sim.reshape(context, (b, n, width)))), None
    product = sim.bmm(q, sim.transpose(k, 2, 3))
    scores = sim.pointwise(product)  # * scaling
    sim.release(product)
    probs = sim.rebind(scores, sim.keep_output(scores))  # softmax
    probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_probs_dropout_prob")))
    context = sim.bmm(probs, v)
    context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
    out = sim.contiguous(sim.reshape(context, (b, n, width)))
    return sim.end_scope(mark, out, probs), probs


def step_residual(sim: Sim, inv: Inventory, p: str, x: T, residual: T) -> T:
    """``dense``, then ``norm(layer_outputs + residual)`` (MobileBertSelfOutput, FFNOutput, OutputBottleneck: their
    dropouts p = 0): the dense output and the sum dropped once the norm has run."""
    mark = sim.scope()
    h = sim.linear(p + "dense", x)
    total = sim.add(h, residual)
    out = step_norm(sim, inv, p + "LayerNorm", total)
    sim.release(h, total)
    return sim.end_scope(mark, out)


def step_intermediate(sim: Sim, p: str, x: T) -> T:
    """``MobileBertIntermediate``: dense, ReLU (rebinding the dense output)."""
    mark = sim.scope()
    h = sim.linear(p + "intermediate.dense", x)
    return sim.end_scope(mark, sim.rebind(h, sim.activation("relu", h)))


def step_bottleneck(sim: Sim, inv: Inventory, p: str, x: T) -> T:
    """``BottleneckLayer``: dense then norm, the dense output rebound."""
    mark = sim.scope()
    h = sim.linear(p + "dense", x)
    return sim.end_scope(mark, sim.rebind(h, step_norm(sim, inv, p + "LayerNorm", h)))


def step_layer(inv: Inventory, p: str) -> Any:
    """One ``MobileBertLayer``: bottlenecks, attention at W, F feed-forward blocks, the way back to H. The
    bottleneck's four tensors, the attention's output and probabilities (``_``) and the last intermediate output
    are named until the layer returns; each FFN's output rebinds ``attention_output``."""
    c = inv.config
    heads = c["num_attention_heads"]

    def run(sim: Sim, x: T) -> T:
        layer = sim.scope()
        if c["use_bottleneck"]:
            neck = sim.scope()  # Bottleneck.forward
            layer_input = step_bottleneck(sim, inv, p + "bottleneck.input.", x)
            if c["use_bottleneck_attention"]:
                query_in = key_in = value_in = layer_input
            elif c["key_query_shared_bottleneck"]:
                shared = step_bottleneck(sim, inv, p + "bottleneck.attention.", x)
                query_in, key_in, value_in = shared, shared, x
            else:
                query_in = key_in = value_in = x
            sim.end_scope(neck, layer_input, query_in)
        else:
            layer_input = query_in = key_in = value_in = x
        attention = sim.scope()  # MobileBertAttention.forward
        context, probs = step_attention(sim, heads, p + "attention.self.", query_in, key_in, value_in)
        attended = step_residual(sim, inv, p + "attention.output.", context, layer_input)
        sim.release(context)  # attention_output = self.output(attention_output, layer_input)
        sim.end_scope(attention, attended, *([probs] if probs is not None else []))
        hidden = attended  # self_attention_output keeps its name; attention_output is rebound by each FFN
        for j in range(c["num_feedforward_networks"] - 1):
            f = f"{p}ffn.{j}."
            ffn = sim.scope()  # FFNLayer.forward
            inner = step_intermediate(sim, f, hidden)
            out = sim.end_scope(ffn, step_residual(sim, inv, f + "output.", inner, hidden))
            if hidden.storage != attended.storage:
                sim.release(hidden)
            hidden = out
        inner = step_intermediate(sim, p, hidden)
        output = sim.scope()  # MobileBertOutput.forward
        if c["use_bottleneck"]:
            mid = step_residual(sim, inv, p + "output.", inner, hidden)
            out = step_residual(sim, inv, p + "output.bottleneck.", mid, x)
            sim.release(mid)
        else:
            out = step_residual(sim, inv, p + "output.", inner, hidden)
        sim.end_scope(output, out)
        return sim.end_scope(layer, out)

    return run


def step_mlm(sim: Sim, x: T) -> T:
    """``MobileBertLMPredictionHead``: dense, ReLU, LayerNorm, then ``matmul`` by
    ``cat([decoder.weight.t(), dense.weight])`` ([H, V], a new tensor), ``+= decoder.bias`` in place.

    ``cls.predictions.dense`` is read through ``.weight`` only: under LoRA its adapters
    never run (and get no gradient); its own weight is then frozen. LoRA on the decoder (the
    output embedding, tied to the word table) is refused like LoRA on an embedding. In training ``cat``'s backward
    hands ``dense.weight`` a slice of the [H, V] gradient, which ``AccumulateGrad`` keeps as ``.grad`` (same
    strides), so that whole storage stays live through the optimizer step (measured: E·V numbers more than the
    parameter's, 1,600 bytes at E = H = 8, V = 50); the decoder's slice reaches the table's ``AccumulateGrad``
    transposed (summed with the table's own gradient in that layout when tied), which keeps a contiguous copy. The
    op-by-op replay models both (:meth:`~.lifetime.LiveSim.parameter_t`, :attr:`.lifetime.Timeline.grads`); the
    bounds count neither, so a step the replay does not cover gives no peak (:meth:`~.ops.Ops.refuse_peak`).
    """
    h = "cls.predictions."
    if h + "decoder" in sim.lora:  # the output embedding, read through .weight: its adapters would never run
        raise CalcError("costs_lora_embedding", module=h + "decoder")
    if sim.grad_mode:  # measured: dense.weight's .grad is a view keeping the whole [H, V] gradient (E·V more bytes)
        sim.refuse_peak("MobileBERT's MLM head keeps the concatenated [H, V] gradient as dense.weight's .grad")
    mark = sim.scope()  # MobileBertLMPredictionHead.forward: ``hidden_states`` rebound at every step
    transform = sim.scope()
    dense_out = sim.linear(h + "transform.dense", x)
    x = sim.rebind(dense_out, sim.activation("relu", dense_out))
    x = sim.end_scope(transform, sim.rebind(x, sim.layer_norm(h + "transform.LayerNorm", x)))
    decoder = sim.parameter_t(h + "decoder.weight")  # [E, V], a view
    dense = sim.parameter(h + "dense.weight", sim.shapes[h + "dense.weight"])  # frozen under LoRA on dense
    matrix = sim.concat([decoder, dense], 0)  # [H, V]: CatBackward0 hands each part a slice of its gradient
    out = sim.matmul_matrix(x, matrix)  # matmul of [B, L, H] by [H, V]: one mm (MmBackward0)
    sim.release(x, matrix)  # the concatenation is the expression's temporary (unless mm keeps it)
    out = sim.plus_param(out, h + "decoder.bias")  # in place: AddBackward0 sums the bias's gradient
    return sim.end_scope(mark, out)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """MobileBERT's classes, every one replayed op by op (the MLM head's [H, V] gradient kept by ``dense.weight``'s
    ``.grad`` too: :func:`step_mlm`): the outputs each returns."""
    prefix = bert.step_prefix(inv)
    sim.exact_lifetimes()
    sim.exact_forward()  # every name's release declared below
    sim.exact_autocast()  # under bf16 autocast too: NoNorm's promoting product (costs.lifetime)
    model = sim.scope()  # MobileBertModel.forward: the embeddings' output named until it returns
    seq = step_embeddings(sim, inv, prefix, b, n)
    for i in range(inv.config["num_hidden_layers"]):
        y = sim.layer(step_layer(inv, f"{prefix}encoder.layer.{i}."), seq)
        if i:
            sim.release(seq)
        seq = y
    pooled = None
    if inv.pooler:
        first = sim.select(seq, 1)
        if inv.config["classifier_activation"]:
            dense = sim.linear(prefix + "pooler.dense", first)
            pooled = sim.rebind(dense, sim.keep_output(dense))
        else:
            pooled = first
    sim.end_scope(model, seq, *([pooled] if pooled is not None else []))
    return bert.run_head(MOBILEBERT_HEADS, sim, inv, seq, pooled)


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``MobileBertOnlyMLMHead``: :func:`step_mlm` (its decoder's concatenated matrix)."""
    return [step_mlm(sim, seq)]


def pretraining_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``MobileBertPreTrainingHeads``: the MLM head on the sequence, then ``cls.seq_relationship`` on the pooled
    output."""
    assert pooled is not None
    return [step_mlm(sim, seq), sim.linear("cls.seq_relationship", pooled)]


def pooled_classifier_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``classifier`` on the pooled output: the classifier dropout is the hidden one, p = 0."""
    assert pooled is not None
    return [sim.linear("classifier", pooled)]


def token_classifier_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``classifier`` on every token (the hidden dropout, p = 0)."""
    return [sim.linear("classifier", seq)]


#: MobileBERT's classes, by task: each head's tensors and its forward (multiple choice refused before the head).
MOBILEBERT_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(None, step=bert.model_step),
    Task.PRETRAINING: bert.Head(True, pretraining_head, ties_embeddings=True, step=pretraining_step),
    Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.NEXT_SENTENCE_PREDICTION: bert.Head(True, bert.linear_head("cls.seq_relationship", 2), step=bert.nsp_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(True, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                            step=pooled_classifier_step),
    Task.MULTIPLE_CHOICE: bert.Head(True, bert.linear_head("classifier", 1)),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                         step=token_classifier_step),
    Task.QUESTION_ANSWERING: bert.Head(False, bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True,
                                       step=bert.qa_step),
}


def step_check(inv: Inventory) -> None:
    """Besides BERT's refusals, configs transformers builds but cannot run as they stand: no feed-forward
    network (``if self.num_feedforward_networks != 1: for ffn_module in self.ffn`` meets no ``ffn``), and
    widths that do not fit together (a ``true_hidden_size`` written apart from the width the layer's
    input has; heads whose output A·⌊W/A⌋ is not W)."""
    bert.step_check(inv)
    c = inv.config
    if c["num_hidden_layers"] == 0:
        return
    if c["num_feedforward_networks"] == 0:
        raise CalcError("costs_no_ffn")
    h, w = c["hidden_size"], width(c)
    into = c["intra_bottleneck_size"] if c["use_bottleneck"] else h  # the residual of the attention output
    if c["use_bottleneck"] and (c["use_bottleneck_attention"] or c["key_query_shared_bottleneck"]):
        query_in = c["intra_bottleneck_size"]
    else:
        query_in = h
    for module, got in (("attention.self.query", query_in), ("attention.output.LayerNorm", into),
                        ("attention.output.dense", attention_width(c))):
        if got != w:
            raise CalcError("costs_widths", module=module, expected=w, got=got)


COSTS = CostModel(step_program, bert.absolute_positions(), check=step_check, keys=(
    *unread((activation_key("relu"), *dropouts("hidden_dropout_prob", default=0.0))),
    *dropouts("attention_probs_dropout_prob"), *unread((classifier_dropout(),))), autocast=True, sdpa=True,
    buffers=position_ids_buffer, reentrant=True)


def mobilebert_config() -> dict[str, Any]:
    """google/mobilebert-uncased's config.json, its size-relevant keys."""
    return {
        "model_type": "mobilebert",
        "vocab_size": 30522,
        "embedding_size": 128,
        "trigram_input": True,
        "hidden_size": 512,
        "num_hidden_layers": 24,
        "num_attention_heads": 4,
        "intermediate_size": 512,
        "use_bottleneck": True,
        "intra_bottleneck_size": 128,
        "true_hidden_size": 128,
        "use_bottleneck_attention": False,
        "key_query_shared_bottleneck": True,
        "num_feedforward_networks": 4,
        "normalization_type": "no_norm",
        "classifier_activation": False,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    }


FAMILY = Family(
    model_type="mobilebert",
    base="MobileBertModel",
    #: Heads divide the layer width (true_hidden_size), not hidden_size; transformers checks neither.
    heads_check=None,
    fields=FIELDS,
    backbone=backbone,
    read=read,
    architectures=bert.task_classes("MobileBert", "mobilebert.", (
        Task.MODEL, Task.PRETRAINING, Task.MASKED_LM, Task.NEXT_SENTENCE_PREDICTION, Task.SEQUENCE_CLASSIFICATION,
        Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING), MOBILEBERT_HEADS),
    title={"en": "MobileBERT", "zh": "MobileBERT"},
    formula=formula,
    # google/mobilebert-uncased's config.json lists no architectures: it loads as MobileBertModel.
    presets=(Preset("google/mobilebert-uncased", mobilebert_config(), "MobileBertModel"),),
    sample=sample,
    rank=45,
    default_attention="sdpa",
    costs=COSTS,
)
