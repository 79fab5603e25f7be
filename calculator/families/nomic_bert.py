"""Nomic BERT (``modeling_nomic_bert.py``, native in transformers 5): nomic-embed-text's encoder.

* Embeddings are a token table and a token-type table with their LayerNorm:
  positions are rotary (RoPE), computed from non-persistent buffers, so
  ``max_position_embeddings`` (2048) and the rotary base change no tensor.
* Each layer is post-norm, and has no bias in its attention or MLP:
  ``self_attn.q_proj``, ``k_proj``, ``v_proj`` are [A·d, H] and ``o_proj`` [H, A·d],
  with d = ``head_dim`` (default H // A); the SwiGLU MLP has three matrices,
  ``gate_proj`` and ``up_proj`` [I, H] and ``down_proj`` [H, I] (3HI, where
  BERT's two-matrix feed-forward has 2HI + I + H). The two LayerNorms
  (``post_attention_layernorm``, ``post_mlp_layernorm``) keep their biases.
  The layer registers its first LayerNorm, then the MLP, then attention.
* ``NomicBertModel`` has no pooler unless asked (``add_pooling_layer=False``), and
  when it has one it is registered before the layers; sequence classification
  builds it. The MLM head is BERT's, with ``transform.layer_norm`` spelled in
  lower case, and its decoder tied to the token table.

nomic-ai's own config.json files predate the native class: they use GPT-2's key
names (``n_embd``, ``n_layer``, ``n_head``, ``n_inner``) for their remote code. transformers
5.23's ``NomicBertConfig`` does not read those keys (it has no ``attribute_map``), so
it builds its defaults, which are exactly nomic-embed-text's sizes; the calculator
reads the same keys transformers reads, and so gives the same count.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Callable, Mapping

from ..config import Field, read_fields
from ..costs import CostModel, Sim, T, activation_key, classifier_dropout, dropouts, position_buffers, size_key, unread
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, esm
from .base import Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, TIE, TOKEN_TYPES, VOCAB, L

FIELDS = (
    replace(VOCAB, default=30528),
    HIDDEN,
    LAYERS,
    HEADS,
    Field(
        "head_dim", None, minimum=0, optional=True,
        label=L("Head size (head_dim; empty: H / A)", "每个注意力头的维度（head_dim；留空则为 H / A）"),
    ),
    replace(
        INTERMEDIATE,
        label=L("Feed-forward inner size (I; SwiGLU: gate, up and down are I wide)",
                "前馈网络中间层维度（I；SwiGLU 的 gate、up、down 三个矩阵都是 I 宽）"),
    ),
    TOKEN_TYPES,
    LABELS,
    TIE,
)


def head_size(c: Mapping[str, Any]) -> int:
    """``NomicBertConfig.head_dim``: as given, else ``hidden_size // num_attention_heads``."""
    given = c.get("head_dim")
    return given if given is not None else c["hidden_size"] // c["num_attention_heads"]


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and the head sizes transformers refuses.

    The config's RoPE validation refuses an odd head size above 4 (rotary pairs
    the dimensions), and every attention layer computes ``head_dim ** -0.5``, so a
    head size of 0 (``num_attention_heads`` > ``hidden_size``) fails once a layer is built.
    """
    values = read_fields(FIELDS, raw, {})
    d = head_size(values)
    key = "head_dim" if values["head_dim"] is not None else "head_dim = hidden_size // num_attention_heads"
    if (d > 4 and d % 2) or (d == 0 and values["num_hidden_layers"] > 0):
        raise CalcError("bad_value", key=key, value=d)
    return values


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, inter = c["hidden_size"], c["intermediate_size"]
    width = c["num_attention_heads"] * head_size(c)
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    if with_pooler:  # registered before the rotary buffers and the layers
        bert.pooler(t, c, prefix)
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}layers.{i}."
        t.layer_norm(p + "post_attention_layernorm", h, layer=i)
        t.linear(p + "mlp.gate_proj", inter, h, "feed_forward", i, bias=False)
        t.linear(p + "mlp.up_proj", inter, h, "feed_forward", i, bias=False)
        t.linear(p + "mlp.down_proj", h, inter, "feed_forward", i, bias=False)
        for proj in ("q_proj", "k_proj", "v_proj"):
            t.linear(p + "self_attn." + proj, width, h, "attention_qkv", i, bias=False)
        t.linear(p + "self_attn.o_proj", h, width, "attention_output", i, bias=False)
        t.layer_norm(p + "post_mlp_layernorm", h, layer=i)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``NomicBertOnlyMLMHead``: its own vocabulary bias, transform (dense, layer_norm), tied decoder."""
    h, v = c["hidden_size"], c["vocab_size"]
    t.add("cls.predictions.bias", (v,), "head")
    t.linear("cls.predictions.transform.dense", h, h, "head")
    t.layer_norm("cls.predictions.transform.layer_norm", h, group="head")
    bert.tied_decoder(
        t, "cls.predictions.decoder", v, h, prefix + "embeddings.word_embeddings.weight", "cls.predictions.bias",
        c["tie_word_embeddings"],
    )


# ------------------------------------------------------------------ formula


def formula(inv: Inventory) -> Formula:
    """Token and type tables; per layer 4·H·D attention (D = A·d, no biases), 3HI SwiGLU, two LayerNorms."""
    c = inv.config
    v, h, t, n, i, a = (
        c["vocab_size"], c["hidden_size"], c["type_vocab_size"], c["num_hidden_layers"], c["intermediate_size"],
        c["num_attention_heads"],
    )
    d = head_size(c)
    emb = FormulaLine("embeddings", "(V + T)·H + 2H", f"({v} + {t})·{h} + 2·{h}", (v + t) * h + 2 * h)
    per = ("4HD + 3HI + 4H", f"4·{h}·{a * d} + 3·{h}·{i} + 4·{h}", 4 * h * a * d + 3 * h * i + 4 * h)
    lines = [emb]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    lines.extend(layers_lines(*per, n))
    symbols = {"V": v, "T": t, "H": h, "A": a, "D": a * d, "I": i, "L": n}
    return Formula(symbols, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Even head sizes (or ≤ 4) mostly; now and then an explicit head_dim, or one transformers refuses."""
    heads = rng.choice([1, 2, 3, 4, 6, 8, 12, 16])
    config["num_attention_heads"] = heads
    config["hidden_size"] = heads * rng.choice([1, 2, 3, 4, 2 * rng.randint(1, 12)])
    roll = rng.random()
    if roll < 0.2:
        config["head_dim"] = rng.choice([1, 2, 3, 4, 2 * rng.randint(1, 16)])
    elif roll < 0.25:
        config["head_dim"] = rng.choice([5, 7, 0])  # odd above 4: refused; 0: refused when there are layers
    elif roll < 0.3:
        config["hidden_size"] = rng.randint(1, 64)  # not a multiple: H // A, as transformers takes it
    if rng.random() < 0.3:
        config["max_position_embeddings"] = rng.randint(1, 600)  # rotary: no tensor whatever its value


# --------------------------------------------------------------- training step


def step_rotary_attention(sim: Sim, a: str, x: T, heads: int, d: int, rotary: tuple[T, T]) -> T:
    """``NomicBertAttention.forward`` (jina-embeddings-v3's and GTE's attention run the same operations, with
    biases): Q, K, V split into heads, Q and K rotated with the shared cos/sin (Llama's ``apply_rotary_pos_emb``, no
    upcast: :meth:`~calculator.costs.ops.Ops.rotate`), eager or SDPA attention, ``o_proj``; every name dropped
    where the modeling files drop it, the probabilities (``_``) as it returns. Returns ``o_proj``'s output."""
    b, n = x.shape[0], x.shape[1]
    width = sim.linear_info(a + "q_proj").out_features

    mark = sim.scope()
    q = sim.heads(sim.linear(a + "q_proj", x), heads, d)
    k = sim.heads(sim.linear(a + "k_proj", x), heads, d)
    v = sim.heads(sim.linear(a + "v_proj", x), heads, d)
    cos, sin = rotary
    if cos.shape[-1] != d:  # d = 1: cos and sin have 2 columns, and the products broadcast Q and K to them
        apply = sim.scope()  # apply_rotary_pos_emb (LiveSim.rotate_one_wide: op by op, its backward nodes too)
        turned = sim.rotate_one_wide(q, k, cos, sin)
        sim.end_scope(apply, *turned)
        sim.release(q, k)
        q, k = turned
    else:
        apply = sim.scope()  # apply_rotary_pos_emb
        turned = [sim.rotate(t, cos, sin, False) for t in (q, k)]
        sim.end_scope(apply, *turned)
        sim.release(q, k)
        q, k = turned
    inner = sim.scope()  # the attention function
    probs: T | None = None
    if sim.attention == "sdpa":  # sdpa_attention_forward: no mask, dropout 0, CPU's flash kernel
        context = sim.contiguous(sim.transpose(sim.sdpa(q, k, v), 1, 2))
        sim.end_scope(inner, context)
    else:
        product = sim.bmm(q, sim.transpose(k, 2, 3))
        scores = sim.rebind(product, sim.pointwise(product))  # * scaling
        probs = sim.rebind(scores, sim.keep_output(scores))  # softmax
        probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_probs_dropout_prob")))
        context = sim.bmm(probs, v)
        context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
        sim.end_scope(inner, context, probs)
    context = sim.contiguous(sim.reshape(context, (b, n, width)))
    attention = sim.linear(a + "o_proj", context)
    sim.release(context)
    sim.end_scope(mark, attention, *([probs] if probs is not None else []))
    return attention


def step_layer(inv: Inventory, prefix: str, i: int, rotary: tuple[T, T]) -> Callable[[Sim, T], T]:
    """One ``NomicBertLayer``, every name dropped where ``modeling_nomic_bert.py`` drops it: attention (Q and K
    rotated with the shared cos/sin, :meth:`~calculator.costs.ops.Ops.rotate`), o_proj (the probabilities held as
    ``_`` and the attention's output named until the layer returns), + input, LayerNorm; the SwiGLU MLP
    ``down(silu(gate(x)) * up(x))``, + input, LayerNorm. No Linear has a bias; the dropouts are the config's."""
    p = f"{prefix}layers.{i}."
    heads = inv.config["num_attention_heads"]
    d = head_size(inv.config)

    def run(sim: Sim, x: T) -> T:
        a = p + "self_attn."
        hidden_drop = sim.drops("hidden_dropout_prob")
        layer = sim.scope()
        attention = step_rotary_attention(sim, a, x, heads, d, rotary)  # NomicBertAttention.forward
        dropped = sim.dropout(attention, hidden_drop)
        h = sim.add(x, dropped)
        if dropped.storage != attention.storage:  # ``attention_output`` itself stays named until the layer returns
            sim.release(dropped)
        h = sim.rebind(h, sim.layer_norm(p + "post_attention_layernorm", h))
        m = p + "mlp."
        mlp = sim.scope()  # NomicBertMLP.forward: one expression
        gate = sim.linear(m + "gate_proj", h)
        act = sim.silu(gate)
        sim.release(gate)
        up = sim.linear(m + "up_proj", h)
        gated = sim.mul_like(act, up)
        sim.release(act, up)
        down = sim.end_scope(mlp, sim.linear(m + "down_proj", gated))
        sim.release(gated)
        dropped = sim.dropout(down, hidden_drop)
        out = sim.add(h, dropped)
        sim.release(down, dropped)
        out = sim.rebind(out, sim.layer_norm(p + "post_mlp_layernorm", out))
        return sim.end_scope(layer, out)

    return run


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """Nomic BERT's classes, every name dropped where ``modeling_nomic_bert.py`` drops it: ``position_ids``
    (``arange``, named until the model's forward returns); word + token types ([B, L] zeros), LayerNorm, dropout;
    cos and sin computed once without a graph and shared by every layer (keyword arguments, as ``position_ids``: a
    checkpoint's frame keeps them); the layers; the pooler; the heads."""
    prefix = bert.step_prefix(inv)
    c = inv.config
    e = prefix + "embeddings."
    d = head_size(c)
    if bert.step_task(inv) in EXACT_LIFETIMES:  # one-wide heads too (LiveSim.rotate_one_wide; where it fails: bounds)
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()  # and under autocast (rotated Q and K float32: costs.lifetime's mul_table)
    model = sim.scope()  # NomicBertModel.forward
    ids = sim.ids((b, n))
    positions = sim.fresh((1, n), "aten.arange", 8)  # position_ids
    embeddings = sim.scope()  # NomicBertEmbeddings.forward
    x = sim.embedding(e + "word_embeddings", ids, first=True)
    types = sim.ids((b, n))  # torch.zeros
    x = sim.rebind(x, sim.add(x, sim.embedding(e + "token_type_embeddings", types)))
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    x = sim.end_scope(embeddings, sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob"))))
    width = 2 * ((d + 1) // 2)  # one frequency per pair (arange(0, d, 2)), each twice
    rotary = esm.step_rotary_tables(sim, n, width)
    hidden = x
    for i in range(c["num_hidden_layers"]):
        if sim.checkpointing:
            for argument in (*rotary, positions):  # position_embeddings and position_ids: keyword arguments
                sim.layer_argument(argument, counted=False)
        y = sim.layer(step_layer(inv, prefix, i, rotary), hidden)
        if i:
            sim.rebind(hidden, y)
        hidden = y
    seq = hidden
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(model, seq, *([pooled] if pooled is not None else []))
    return bert.run_head(NOMIC_BERT_HEADS, sim, inv, seq, pooled)  # classifier_dropout, else hidden_dropout_prob


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``NomicBertForMaskedLM``'s head: the transform (dense, the activation (SiLU), layer_norm), the decoder."""
    head = sim.scope()
    t = sim.linear("cls.predictions.transform.dense", seq)
    t = sim.rebind(t, sim.silu(t))
    t = sim.rebind(t, sim.layer_norm("cls.predictions.transform.layer_norm", t))
    return [sim.end_scope(head, sim.rebind(t, sim.linear("cls.predictions.decoder", t)))]


def pooled_classifier_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """Dropout on the pooled output, then ``classifier``; ``x`` rebound by both."""
    assert pooled is not None
    x = sim.dropout(pooled, sim.drops(dropout_key))
    return [sim.rebind(x, sim.linear("classifier", x))]


def token_classifier_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """Dropout on every token, then ``classifier``; ``x`` rebound by both."""
    x = sim.dropout(seq, sim.drops(dropout_key))
    return [sim.rebind(x, sim.linear("classifier", x))]


#: Nomic BERT's classes, by task: each head's tensors and its forward. ``add_pooling_layer`` defaults to False
#: (the bare model is counted as AutoModel builds it); only sequence classification pools.
NOMIC_BERT_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(True, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                            step=pooled_classifier_step),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                         step=token_classifier_step),
}


#: Nomic BERT's classes whose every operation the lifetime simulator models.
EXACT_LIFETIMES = ("", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification")


def step_check(inv: Inventory) -> None:
    """A head size of 3 (the only odd one above 1 the config accepts) makes cos and sin 4 wide: transformers fails."""
    d = head_size(inv.config)
    if d % 2 and d > 1 and inv.config["num_hidden_layers"] > 0:
        raise CalcError("costs_rotary_odd_head", head_size=d)


def nomic_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """BERT's two index buffers in the embeddings, and the rotary embedding's ``inv_freq`` and its clone
    ``original_inv_freq`` (non-persistent, in the model's dtype: size 0)."""
    frequencies = (head_size(inv.config) + 1) // 2
    rotary = inv.arch.prefix + "rotary_emb."
    return [*position_buffers(inv), (rotary + "inv_freq", (frequencies,), 0),
            (rotary + "original_inv_freq", (frequencies,), 0)]


COSTS = CostModel(step_program, None, check=step_check, keys=unread((activation_key("silu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob", default=0.0), classifier_dropout()))
                  + (size_key("max_position_embeddings", 2048),),  # the index buffers' width
                  autocast=True, sdpa=True, buffers=nomic_buffers, reentrant=True)


def nomic_config(vocab: int = 30528) -> dict[str, Any]:
    """The keys of nomic-ai's published config.json that transformers 5.23 reads (their sizes are its defaults)."""
    return {"model_type": "nomic_bert", "vocab_size": vocab, "type_vocab_size": 2}


FAMILY = Family(
    model_type="nomic_bert",
    base="NomicBertModel",
    #: Heads have their own width (head_dim); transformers asks no divisibility.
    heads_check=None,
    fields=FIELDS,
    backbone=backbone,
    read=read,
    architectures=bert.task_classes("NomicBert", "nomic_bert.", (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION), NOMIC_BERT_HEADS),
    title={"en": "Nomic BERT", "zh": "Nomic BERT"},
    formula=formula,
    presets=(
        Preset("nomic-ai/nomic-embed-text-v1.5", nomic_config(), "NomicBertModel"),
        Preset("nomic-ai/nomic-embed-text-v1", nomic_config(), "NomicBertModel"),
    ),
    sample=sample,
    rank=57,
    default_attention="sdpa",
    costs=COSTS,
)
