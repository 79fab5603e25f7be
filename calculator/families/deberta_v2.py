"""DeBERTa-v2 (``modeling_deberta_v2.py``): the family of DeBERTa-v3 and mDeBERTa-v3.

Against DeBERTa v1 (:mod:`.deberta`), whose embeddings, MLM heads and
ContextPooler it copies:

* Q, K and V are three Linears with biases (``query_proj``, ``key_proj``,
  ``value_proj``), ``num_attention_heads × attention_head_size`` wide (H unless
  ``attention_head_size`` says otherwise).
* Relative attention projects the relative embeddings with ``pos_key_proj``
  (``"c2p"``) and ``pos_query_proj`` (``"p2c"``), both with biases, unless
  ``share_att_key``: then the content projections are reused and no tensor is
  added. DeBERTa-v3 shares them.
* ``position_buckets`` > 0 sizes ``rel_embeddings`` at 2 × buckets rows (v3: 256 → 512)
  instead of 2 × ``max_relative_positions``.
* ``norm_rel_ebd`` containing ``layer_norm`` adds ``encoder.LayerNorm`` for the
  relative embeddings, and ``conv_kernel_size`` > 0 an ``encoder.conv`` (a Conv1d
  with ``conv_groups`` groups and its LayerNorm) applied after the first layer.
  These keys are not declared by ``DebertaV2Config``; the model reads them with
  ``getattr`` and these defaults, so published configs carry them.

The config class's defaults are deberta-v2-xlarge's sizes (vocabulary 128,100,
H 1536, 24 layers) without its relative attention.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from ..config import Field, read_fields
from ..costs import CostModel, Sim, T, activation_key, dropouts, unread, position_ids_buffer
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, deberta
from .base import Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, VOCAB, L

FIELDS = (
    replace(VOCAB, default=128100),
    replace(HIDDEN, default=1536),
    deberta.EMBEDDING_SIZE,
    replace(LAYERS, default=24),
    replace(HEADS, default=24),
    Field(
        "attention_head_size", None, minimum=0, optional=True,
        label=L(
            "Attention head size (attention_head_size; empty: H / A)",
            "每个注意力头的维度（attention_head_size；留空为 H / A）",
        ),
        sample=(1, 12),
    ),
    replace(INTERMEDIATE, default=6144),
    POSITIONS,
    deberta.TOKEN_TYPES,
    deberta.POSITION_BIASED_INPUT,
    deberta.RELATIVE_ATTENTION,
    deberta.MAX_RELATIVE_POSITIONS,
    Field(
        "position_buckets", -1, minimum=0, sentinels=(-1,),
        label=L(
            "Relative position buckets (position_buckets; -1 or 0: none)",
            "相对位置分桶数（position_buckets；-1 或 0 表示不分桶）",
        ),
        sample=(0, 40),
    ),
    deberta.POS_ATT_TYPE,
    Field(
        "share_att_key", False, kind="bool",
        label=L(
            "Relative terms reuse the key and query projections (share_att_key)",
            "相对位置项复用每层的 Q、K 投影（share_att_key）",
        ),
        sample=(0, 1),
    ),
    Field(
        "norm_rel_ebd", "none", kind="flags", choices=("layer_norm",),
        label=L(
            "LayerNorm on the relative position embeddings (norm_rel_ebd)",
            "对相对位置嵌入做层归一化（norm_rel_ebd）",
        ),
        sample=(0, 1),
    ),
    Field(
        "conv_kernel_size", 0, minimum=0,
        label=L(
            "Convolution kernel after the first layer (conv_kernel_size; 0: none)",
            "第 0 层之后的卷积核大小（conv_kernel_size；0 表示不加卷积）",
        ),
        sample=(0, 4),
    ),
    Field(
        "conv_groups", 1, minimum=0,
        label=L("Convolution groups (conv_groups)", "卷积分组数（conv_groups）"),
        sample=(1, 4),
    ),
    deberta.POOLER_HIDDEN_SIZE,
    deberta.LEGACY,
    LABELS,
    TIE,
)


def read(raw: Any) -> dict[str, Any]:
    """The fields, with ``pos_att_type`` list entries exact; ``norm_rel_ebd``, when given, must be a string.

    The encoder calls ``getattr(config, "norm_rel_ebd", "none").lower()``: a list or null fails there.
    """
    if "norm_rel_ebd" in raw and not isinstance(raw["norm_rel_ebd"], str):
        raise CalcError("bad_value", key="norm_rel_ebd", value=raw["norm_rel_ebd"])
    return read_fields(FIELDS, deberta.exact_terms(raw), {})


def check_conv(c: dict[str, Any]) -> None:
    """``nn.Conv1d(H, H, k, groups=G)`` needs G ≥ 1 dividing H; only built when conv_kernel_size > 0."""
    if c["conv_kernel_size"] <= 0:
        return
    groups = c["conv_groups"]
    if groups == 0:
        raise CalcError("zero", key="conv_groups", value=0)
    if c["hidden_size"] % groups:
        raise CalcError(
            "heads_not_divisor", fields=("conv_groups", "hidden_size"), hidden_key="hidden_size", hidden=c["hidden_size"],
            heads_key="conv_groups", heads=groups,
        )


def head_width(c: dict[str, Any]) -> int:
    """``num_attention_heads × attention_head_size``: the width of Q, K, V and the position projections."""
    size = c["attention_head_size"]
    heads = c["num_attention_heads"]
    return heads * (c["hidden_size"] // heads if size is None else size)


def position_projections(c: dict[str, Any]) -> tuple[bool, bool]:
    """(pos_key_proj, pos_query_proj) exist: relative attention, not shared with K/Q, and the term asked for."""
    own = c["relative_attention"] and not c["share_att_key"]
    return own and "c2p" in c["pos_att_type"], own and "p2c" in c["pos_att_type"]


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, d = c["hidden_size"], head_width(c)
    key_proj, query_proj = position_projections(c)
    deberta.embeddings(t, c, prefix)
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}encoder.layer.{i}."
        a = p + "attention.self."
        for proj in ("query_proj", "key_proj", "value_proj"):
            t.linear(a + proj, d, h, "attention_qkv", i)
        if key_proj:
            t.linear(a + "pos_key_proj", d, h, "attention_qkv", i)
        if query_proj:
            t.linear(a + "pos_query_proj", d, h, "attention_qkv", i)
        deberta.block_tail(t, p, i, h, c["intermediate_size"])
    e = prefix + "encoder."
    if c["relative_attention"]:
        rows = deberta.relative_rows(c, c["position_buckets"])
        t.embedding(e + "rel_embeddings", rows, h, "relative_position", section="encoder")
    if "layer_norm" in c["norm_rel_ebd"]:
        t.layer_norm(e + "LayerNorm", h, section="encoder")
    k = c["conv_kernel_size"]
    if k > 0:
        t.conv1d(e + "conv.conv", h, h, k, "feed_forward", groups=c["conv_groups"], section="encoder")
        t.layer_norm(e + "conv.LayerNorm", h, section="encoder")


# ------------------------------------------------------------------ formula


def formula(inv: Inventory) -> Formula:
    """Embeddings; L layers of Q, K, V with biases (+ own position projections), BERT's rest; encoder-level terms."""
    c = inv.config
    h, i, n, d = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"], head_width(c)
    key_proj, query_proj = position_projections(c)
    if d == h:
        one = ("H² + H", f"{h}² + {h}", h * h + h)
        qkv = ("3(H² + H)", f"3·({h}² + {h})", 3 * (h * h + h))
    else:
        one = ("H·D + D", f"{h}·{d} + {d}", h * d + d)
        qkv = ("3(H·D + D)", f"3·({h}·{d} + {d})", 3 * (h * d + d))
    count = int(key_proj) + int(query_proj)
    if count == 2:
        relative = (f"2({one[0]})", f"2·({one[1]})", 2 * one[2])
    elif count == 1:
        relative = one
    else:
        relative = ("", "", 0)
    per = deberta.terms(qkv, relative, deberta.rest_of_layer(h, i))
    lines = [deberta.embeddings_line(c), *layers_lines(*per, n)]
    if relative[0]:
        lines.append(FormulaLine(
            "relative_projections", f"L × {relative[0]}", f"{n} × {relative[2]:,}", n * relative[2], counted=False,
        ))
    if c["relative_attention"]:
        lines.append(deberta.relative_line(c, c["position_buckets"]))
    if "layer_norm" in c["norm_rel_ebd"]:
        lines.append(FormulaLine("relative_norm", "2H", f"2·{h}", 2 * h))
    k = c["conv_kernel_size"]
    if k > 0:
        g = c["conv_groups"]
        lines.append(FormulaLine(
            "conv", "H·(H/G)·K + H + 2H", f"{h}·({h}/{g})·{k} + {h} + 2·{h}", h * (h // g) * k + 3 * h,
        ))
    if deberta.has_context_pooler(inv):
        lines.append(deberta.pooler_line(c))
    symbols = deberta.symbols(c)
    if d != h:
        symbols["D"] = d
    if c["relative_attention"] and c["position_buckets"] > 0:
        symbols.pop("R", None)
        symbols["B"] = c["position_buckets"]
    if k > 0:
        symbols["K"] = k
        symbols["G"] = c["conv_groups"]
    return Formula(symbols, tuple(lines + head_line(inv)))


LABELS_ = {
    **deberta.LABELS_,
    "relative_norm": L("LayerNorm of the relative position embeddings", "相对位置嵌入的层归一化"),
    "conv": L("Convolution after the first layer (encoder.conv)", "第 0 层之后的卷积（encoder.conv）"),
}


# ------------------------------------------------------------------ training step


def step_heads_split(sim: Sim, t: T, heads: int) -> T:
    """``transpose_for_scores``: view [B, L, A, D], permute to [B, A, L, D], ``contiguous()``, view [B·A, L, D]; the
    projection's output (its argument, a temporary of the caller's expression) dropped once the copy is made."""
    b, n, width = t.shape
    d = width // heads
    x = sim.contiguous(sim.transpose(sim.view(t, (b, n, heads, d)), 1, 2))
    if x.storage != t.storage:  # one head: already contiguous, the view is of the projection itself
        sim.release(t)
    return sim.view(x, (b * heads, n, d))


def step_divide(sim: Sim, t: T, scale: T) -> T:
    """``t / scale.to(t.dtype)``: ``DivBackward0`` keeps the scalar it reads (in bf16 a 2-byte copy, a temporary of
    the expression)."""
    read = scale if t.itemsize == scale.itemsize else sim.constant((), t.itemsize, "aten._to_copy")
    out = sim.op_with_constant(t, read, "aten.div")
    if read is not scale:
        sim.release(read)
    return out


def step_relative_positions(sim: Sim, c: dict[str, Any], n: int) -> T:
    """``build_relative_position`` (int64 [1, L, L]), with ``make_log_bucket_position`` when buckets are set: every
    temporary as the Python drops it (measured: ``aten.lt`` ... ``aten.where``, float32 whatever the dtype)."""
    ll = n * n
    buckets = c["position_buckets"]
    if buckets > 0:  # max_position is max_relative_positions or P: always > 0
        # q_ids, k_ids (arange), rel_pos_ids (sub); make_log_bucket_position: sign, lt, gt, and (lt, gt gone),
        # tensor(mid - 1), abs, where (and, the tensor, abs gone), abs_pos / mid, log (div gone), tensor, log (tensor
        # gone), div (log, log gone), * (mid - 1) (div gone), ceil (mul gone), + mid (ceil gone), le, type_as, mul,
        # where (le, type_as, mul gone); it returns: sign, abs_pos, log_pos gone; rel_pos_ids rebound (sub gone);
        # .to(long) (the float bucket_pos gone); q_ids and k_ids gone as the function returns.
        sizes = (8 * n, 8 * n, 8 * ll, 8 * ll, ll, ll, ll, 8, 8 * ll, 8 * ll, 4 * ll, 4 * ll, 4, 4, 4 * ll, 4 * ll,
                 4 * ll, 4 * ll, ll, 4 * ll, 4 * ll, 4 * ll)
        ops = ("aten.arange", "aten.arange", "aten.sub", "aten.sign", "aten.lt", "aten.gt", "aten.bitwise_and",
               "aten.lift_fresh", "aten.abs", "aten.where", "aten.div", "aten.log", "aten.lift_fresh", "aten.log",
               "aten.div", "aten.mul", "aten.ceil", "aten.add", "aten.le", "aten._to_copy", "aten.mul", "aten.where")
        # index: 0 q 1 k 2 sub 3 sign 4 lt 5 gt 6 and 7 t 8 abs 9 where 10 div 11 log 12 t 13 log 14 div 15 mul
        # 16 ceil 17 add 18 le 19 to 20 mul 21 where; 22: the .to(long) copy (the caller's storage)
        deaths = (22, 22, 21, 21, 6, 6, 9, 9, 9, 21, 11, 14, 13, 14, 15, 16, 17, 21, 21, 21, 21, 22)
        sim.transients(sizes, deaths, ops)
        return sim.constant((1, n, n), 8, "aten._to_copy")
    sim.transients((8 * n, 8 * n), (2, 2), ("aten.arange", "aten.arange"))
    return sim.constant((1, n, n), 8, "aten.sub")


def step_attention(sim: Sim, p: str, c: dict[str, Any], x: T, rel: T | None, rel_pos: T | None, mask: T) -> T:
    """``DisentangledSelfAttention.forward`` up to the context [B, L, A·D], as ``modeling_deberta_v2.py`` writes it,
    every name dropped where its Python drops it.

    The content scores ``bmm(Q, Kᵀ / scale)``; with relative attention, the dropped-out relative table
    (``pos_dropout``) goes to :func:`step_relative_bias` and its sum is added (``rel_att`` named until the function
    returns). Then ``attention_mask.bool()`` (a bool copy of the float32 [B, 1, L, L] mask, named until the return),
    ``masked_fill(~mask, min)`` (keeps the inverted mask; its output named ``attention_scores`` until the return),
    softmax, dropout, ``bmm`` with V, back to [B, L, A·D] (a copy; the product dropped).
    """
    a = p + "attention.self."
    heads = c["num_attention_heads"]
    b, n, _ = x.shape
    mark = sim.scope()
    q = step_heads_split(sim, sim.linear(a + "query_proj", x), heads)
    k = step_heads_split(sim, sim.linear(a + "key_proj", x), heads)
    v = step_heads_split(sim, sim.linear(a + "value_proj", x), heads)
    scale = deberta.step_scale(sim)
    divided = step_divide(sim, sim.transpose(k, 1, 2), scale)
    scores = sim.bmm(q, divided)
    sim.release(divided)
    if rel is not None:
        assert rel_pos is not None
        # pos_dropout: ``rel_embeddings`` rebound in this function; with no term its product is read by no node the
        # loss reaches (:meth:`Sim.discarded`: its node, and the mask it keeps, go as this function returns)
        dropped = sim.dropout(rel) if reads_table(c) else sim.discarded(lambda: sim.dropout(rel))
        bias = step_relative_bias(sim, a, c, q, k, dropped, rel_pos, b)
        scores = sim.rebind(scores, sim.add(scores, bias) if bias is not None else sim.plus_scalar(scores))
    scores = sim.view(scores, (b, heads, n, n))
    sim.constant((b, 1, n, n), 1, "aten._to_copy")  # attention_mask.bool(): named until the return
    inverted = sim.constant((b, 1, n, n), 1, "aten.bitwise_not")  # ~mask: kept by masked_fill
    scores = sim.rebind(scores, sim.masked_fill(scores, inverted))
    sim.release(inverted)
    probs = sim.keep_output(scores)
    probs = sim.rebind(probs, sim.dropout(probs))
    context = sim.bmm(sim.view(probs, (b * heads, n, n)), v)
    context = sim.rebind(context, sim.contiguous(sim.transpose(sim.view(context, (b, heads, n, context.shape[2])), 1, 2)))
    return sim.end_scope(mark, sim.view(context, (b, n, -1)))


def step_position_layer(sim: Sim, a: str, module: str, r3: T, heads: int, b: int) -> T:
    """``transpose_for_scores(proj(rel_embeddings)).repeat(B, 1, 1)``: the head split's copy dropped once repeated."""
    split = step_heads_split(sim, sim.linear(a + module, r3), heads)
    rows = split.shape[1]
    out = sim.repeat(split, (b * heads, rows, split.shape[2]))
    sim.release(split)
    return out


def step_relative_bias(sim: Sim, a: str, c: dict[str, Any], q: T, k: T, rel: T, rel_pos: T, b: int) -> T | None:
    """``disentangled_attention_bias``: the relative table projected (by the layer's own Q/K projections when
    ``share_att_key``: both, whatever the terms), split into heads and repeated B times; per term asked for a
    ``bmm`` against the content, the clamped relative positions (int64 [1, 1, L, L]: an ``add`` or ``neg`` and
    ``add``, then ``clamp``, each temporary gone once the next is made), a ``gather`` (keeps its input and that
    index; the product's name rebound to its output) and a division by its own ``scale``; ``score`` starts as the
    number 0 (``0 + x``, a new tensor), then ``+=`` in place. Every local goes when it returns ``score``."""
    heads = c["num_attention_heads"]
    n = q.shape[1]
    terms = [t for t in ("c2p", "p2c") if t in c["pos_att_type"]]
    mark = sim.scope()
    rows = rel.shape[0]
    r3 = sim.view(rel, (1, rows, rel.shape[1]))
    if c["share_att_key"]:  # both made; one no term reads gets no gradient, its nodes go with it (:meth:`Sim.discarded`)
        def position(module: str) -> T:
            return step_position_layer(sim, a, module, r3, heads, b)
        pos_q = position("query_proj") if "p2c" in terms else sim.discarded(lambda: position("query_proj"))
        pos_k = position("key_proj") if "c2p" in terms else sim.discarded(lambda: position("key_proj"))
    else:
        pos_k = step_position_layer(sim, a, "pos_key_proj", r3, heads, b) if "c2p" in terms else None
        pos_q = step_position_layer(sim, a, "pos_query_proj", r3, heads, b) if "p2c" in terms else None
    ll = 8 * n * n
    score: T | None = None
    scale: T | None = None
    if "c2p" in terms:
        assert pos_k is not None
        scale = deberta.step_scale(sim)
        att = sim.bmm(q, sim.transpose(pos_k, 1, 2))
        sim.transients((ll,), (1,), ("aten.add",))  # relative_pos + att_span
        index = sim.constant((1, 1, n, n), 8, "aten.clamp")
        att = sim.rebind(att, sim.gather(att, index, (q.shape[0], n, n)))
        term = step_divide(sim, att, scale)
        score = sim.plus_scalar(term)
        sim.release(term)
    if "p2c" in terms:
        assert pos_q is not None
        old = scale
        scale = deberta.step_scale(sim)
        if old is not None:
            sim.release(old)  # ``scale`` rebound
        sim.transients((ll, ll), (1, 2), ("aten.neg", "aten.add"))  # -r_pos + att_span
        index = sim.constant((1, 1, n, n), 8, "aten.clamp")
        att = sim.bmm(k, sim.transpose(pos_q, 1, 2))
        att = sim.rebind(att, sim.transpose(sim.gather(att, index, (q.shape[0], n, n)), 1, 2))
        term = step_divide(sim, att, scale)
        score = sim.add_(score, term) if score is not None else sim.plus_scalar(term)
        sim.release(term)
    if score is None:  # it returns the number 0: every local goes
        sim.end_scope(mark, rel)
        return None
    return sim.end_scope(mark, score)


def step_layer(p: str, c: dict[str, Any], rel: T | None, rel_pos: T | None, mask: T) -> Any:
    """One ``DebertaV2Layer``: disentangled attention, then BERT's output, intermediate (GELU) and output, each name
    dropped where ``modeling_deberta_v2.py`` drops it (the same functions as BERT's: :func:`bert.self_output`)."""

    def run(sim: Sim, x: T) -> T:
        layer = sim.scope()
        context = step_attention(sim, p, c, x, rel, rel_pos, mask)
        attended = bert.self_output(sim, p + "attention.output.", context, x, True)
        sim.release(context)  # DebertaV2Attention returns: ``self_output`` gone
        inner = sim.linear(p + "intermediate.dense", attended)
        inner = sim.rebind(inner, sim.act("hidden_act", inner))
        out = bert.self_output(sim, p + "output.", inner, attended, True)
        return sim.end_scope(layer, out)

    return run


def step_encoder(sim: Sim, inv: Inventory, prefix: str, x: T, mask: T) -> T:
    """``DebertaV2Encoder``: the float32 mask [B, 1, L, L] (``get_attention_mask``), the relative positions, the
    relative table (optionally normalised), every layer; the layers' outputs stay named (``all_hidden_states``,
    returned to the model) and the rest of its locals go when it returns the last."""
    c = inv.config
    b, n = x.shape[0], x.shape[1]
    e = prefix + "encoder."
    mark = sim.scope()
    extended = sim.constant((b, 1, n, n), 4, "aten.mul")  # get_attention_mask: float32 [B, 1, L, L]
    rel = rel_pos = None
    if c["relative_attention"]:
        rel_pos = step_relative_positions(sim, c, n)
        def table() -> T:
            return sim.parameter(e + "rel_embeddings.weight", sim.shapes[e + "rel_embeddings.weight"])
        # no term reads the table: its ``AccumulateGrad`` is fed by no node the loss reaches (:meth:`Sim.discarded`)
        rel = table() if reads_table(c) else sim.discarded(table)
        if "layer_norm" in c["norm_rel_ebd"]:
            raw = rel
            # no term reads it: a branch the loss never reaches, its node (and mean, 1/std) held by ``rel_embeddings``
            rel = (sim.layer_norm(e + "LayerNorm", raw) if reads_table(c)
                   else sim.discarded(lambda: sim.layer_norm(e + "LayerNorm", raw)))
            live = reads_table(c)
            if sim.checkpointing and sim.reentrant and rel.grad and live and c["num_hidden_layers"] > 1:
                # Reentrant checkpointing runs one backward per layer through this LayerNorm, computed once
                # before the layers: the second finds its saved tensors freed and PyTorch raises.
                raise CalcError("costs_checkpointing_fails", module=e + "LayerNorm")
            if sim.checkpointing and sim.reentrant and rel.grad and live:  # one layer: its nested backward runs it
                from ..costs.lifetime import LiveSim

                if isinstance(sim, LiveSim):
                    sim.run_by_one_block(rel)
        if not reads_table(c):  # no term reads it: no .grad
            sim.used.discard(e + "rel_embeddings.weight")
            sim.used.discard(e + "LayerNorm.weight")
            sim.used.discard(e + "LayerNorm.bias")
    if sim.checkpointing:
        deberta.step_layer_arguments(sim, extended, rel_pos, rel)
    embedded = x
    outputs = []  # all_hidden_states: every layer's output, returned to the model
    for i in range(c["num_hidden_layers"]):
        x = sim.layer(step_layer(f"{e}layer.{i}.", c, rel, rel_pos, extended), x)
        if i == 0 and c["conv_kernel_size"] > 0:
            x = sim.rebind(x, step_conv(sim, e, embedded, x, mask))  # ``output_states`` rebound
        outputs.append(x)
    return sim.end_scope(mark, x, *outputs)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """DeBERTa-v2's classes: ``DebertaV2Model.forward`` (the float32 mask of ones and the int64 token types it makes,
    the embeddings, the encoder; every layer's output named until it returns the last), then the task head.

    Every release is declared (the forward is replayed exactly, :meth:`~.ops.Ops.exact_forward`) for the classes
    whose every operation the lifetime simulator models, in every configuration (a relative table no term reads:
    :func:`reads_table`)."""
    prefix = bert.step_prefix(inv)
    kind = bert.step_task(inv)
    if kind in EXACT_LIFETIMES:
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()  # and under bf16 autocast (each Linear's copies, the promoting adds: costs.lifetime)
    mark = sim.scope()
    mask = sim.constant((b, n), 4, "aten.ones")  # torch.ones(input_shape): float32 whatever the model's dtype
    types = sim.constant((b, n), 8, "aten.zeros")  # token_type_ids
    x = deberta.step_embeddings(sim, inv, prefix, b, n, mask, types)
    seq = sim.end_scope(mark, step_encoder(sim, inv, prefix, x, mask))
    return deberta.step_heads(sim, inv, seq)


def reads_table(c: dict[str, Any]) -> bool:
    """A relative term (``c2p``, ``p2c``) reads the relative table: else the attention computes its dropout (and
    shared projections) for nothing, and nothing the loss reaches reads it (``"p2p"``, an empty list)."""
    return any(t in c["pos_att_type"] for t in ("c2p", "p2c"))


#: DeBERTa-v2's classes whose every operation the lifetime simulator models (:mod:`calculator.costs.lifetime`).
EXACT_LIFETIMES = (Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION,
                   Task.QUESTION_ANSWERING)


def step_conv(sim: Sim, e: str, embedded: T, x: T, mask: T) -> T:
    """``ConvLayer`` after layer 0, on the embeddings' output, as its forward drops names: Conv1d on a contiguous
    [B, H, L] copy (kept by the convolution), back to [B, L, H] (a copy; the convolution's output gone),
    ``(1 - input_mask).bool()`` (a float32 temporary, then the bool mask [B, L] ``masked_fill_`` keeps), dropout,
    tanh (``out`` rebound: the copy and the dropout's output gone), + the layer's output, LayerNorm, ``* input_mask``
    (the float32 mask, or its copy in the model's dtype); the LayerNorm's output goes as it returns."""
    b, n, h = embedded.shape
    k = sim.shapes[e + "conv.conv.weight"][2]
    out_len = n + 2 * ((k - 1) // 2) - k + 1
    mark = sim.scope()
    moved = sim.contiguous(sim.transpose(embedded, 1, 2))
    conv = sim.conv1d_length(e + "conv.conv", moved, out_len)
    if moved.storage != embedded.storage:  # L = 1: already contiguous, no copy
        sim.release(moved)
    out = sim.contiguous(sim.transpose(conv, 1, 2))
    if out.storage != conv.storage:
        sim.release(conv)
    sim.transients((4 * b * n,), (1,), ("aten.rsub",))
    out = sim.masked_fill_(out, sim.constant((b, n), 1, "aten._to_copy"))
    dropped = sim.dropout(out)
    out = sim.rebind(out, sim.keep_output(dropped))  # tanh
    sim.release(dropped)
    y = sim.layer_norm(e + "conv.LayerNorm", sim.add(x, out))
    return sim.end_scope(mark, sim.op_with_constant(y, deberta.mask_as(sim, mask, y)))


def step_check(inv: Inventory) -> None:
    """Configurations transformers' own step fails on (:func:`deberta.step_check_heads`), and DeBERTa-v2's own.

    No layers: the encoder returns a variable it never set. Q, K, V A·D wide feed an H-wide output dense.
    An even convolution kernel shortens the sequence by one and the padding mask no longer fits. One
    position bucket divides by zero in ``make_log_bucket_position``.
    """
    c = inv.config
    deberta.step_check_heads(inv)
    if c["num_hidden_layers"] == 0:  # the encoder returns a variable only its loop sets
        raise CalcError("costs_forward_fails", key="num_hidden_layers", value=0)
    if head_width(c) != c["hidden_size"]:
        raise CalcError("costs_forward_fails", key="attention_head_size", value=c["attention_head_size"])
    if c["conv_kernel_size"] > 0 and c["conv_kernel_size"] % 2 == 0:
        raise CalcError("costs_forward_fails", key="conv_kernel_size", value=c["conv_kernel_size"])
    if c["relative_attention"] and c["position_buckets"] == 1:
        raise CalcError("costs_forward_fails", key="position_buckets", value=1)


# ------------------------------------------------------------------ random configs


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """DeBERTa's variations, plus buckets, shared keys, the relative LayerNorm, the convolution and the head size."""
    deberta.sample(rng, config)
    h = config["hidden_size"]
    norm = config.get("norm_rel_ebd")
    if isinstance(norm, list) and rng.random() < 0.95:
        # transformers splits a string; a list (left 5% of the time) is refused on both sides
        config["norm_rel_ebd"] = rng.choice(["layer_norm", "LayerNorm", "layer_norm|other"]) if norm else "none"
    if rng.random() < 0.3:
        config["position_buckets"] = -1
    if rng.random() < 0.6:
        config["conv_kernel_size"] = 0
    if rng.random() < 0.8:
        config["conv_groups"] = rng.choice([g for g in range(1, h + 1) if h % g == 0])
    if rng.random() < 0.8:
        config.pop("attention_head_size", None)


def deberta_v3_config(vocab: int, hidden: int, layers: int, heads: int, inter: int) -> dict[str, Any]:
    """A published DeBERTa-v3 / mDeBERTa-v3 config.json's size-relevant keys."""
    return {
        "model_type": "deberta-v2",
        "vocab_size": vocab,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter,
        "max_position_embeddings": 512,
        "type_vocab_size": 0,
        "relative_attention": True,
        "max_relative_positions": -1,
        "position_buckets": 256,
        "norm_rel_ebd": "layer_norm",
        "share_att_key": True,
        "pos_att_type": "p2c|c2p",
        "position_biased_input": False,
    }


FAMILY = Family(
    peft_targets=("query_proj", "value_proj"),
    model_type="deberta-v2",
    base="DebertaV2Model",
    fields=FIELDS,
    backbone=backbone,
    checks=(check_conv,),
    read=read,
    architectures=bert.task_classes("DebertaV2", "deberta.", (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING,
        Task.MULTIPLE_CHOICE), deberta.DEBERTA_HEADS),
    title={"en": "DeBERTa-v2 / v3", "zh": "DeBERTa-v2 / v3"},
    formula=formula,
    # The published config.json files list no architectures, so they load as the base model.
    presets=(
        Preset("microsoft/deberta-v3-base", deberta_v3_config(128100, 768, 12, 12, 3072), "DebertaV2Model"),
        Preset("microsoft/deberta-v3-large", deberta_v3_config(128100, 1024, 24, 16, 4096), "DebertaV2Model"),
        Preset("microsoft/mdeberta-v3-base", deberta_v3_config(251000, 768, 12, 12, 3072), "DebertaV2Model"),
    ),
    sample=sample,
    rank=54,
    costs=CostModel(step_program, deberta.step_max_seq_len, check=step_check, keys=unread((activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"), *dropouts("pooler_dropout", default=0.0), activation_key("gelu", key="pooler_hidden_act"))), buffers=position_ids_buffer, autocast=True, reentrant=True),
    labels=LABELS_,
    untrained_modules=("pooler",),
)

