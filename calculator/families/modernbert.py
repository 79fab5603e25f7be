"""ModernBERT (``modeling_modernbert.py``, 2024): BERT's successor, pre-norm and without most biases.

* Embeddings are one token table (``tok_embeddings``) and a LayerNorm: positions
  are rotary (RoPE), computed in ``forward`` from non-persistent buffers, so
  ``max_position_embeddings`` (8192) changes no tensor; there are no token types.
* Every layer is pre-norm: ``attn_norm``, fused ``attn.Wqkv`` [3H, H], ``attn.Wo``,
  ``mlp_norm``, and a gated MLP whose ``Wi`` is [2I, H] (the value and the gate
  halves) and ``Wo`` [H, I]. **Layer 0 has no attention norm** (``nn.Identity``:
  the embeddings' norm already precedes it). ``final_norm`` closes the stack.
* No biases by default: ``norm_bias``, ``attention_bias`` and ``mlp_bias`` are
  False; ``decoder_bias`` (the MLM decoder's) is True; ``classifier_bias`` is
  the bias of the heads' ``head.dense`` only (the task ``classifier`` always has one).
* No pooler: every task class has ``head`` (dense + norm) and then its own
  Linear, named ``classifier`` even for question answering. ``classifier_pooling``
  (cls or mean) chooses how tokens are pooled and adds nothing.
* The default ``pad_token_id`` is 50283, so the vocabulary must have more rows.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Mapping

from ..config import Field, read_fields
from ..costs import CostModel, Sim, T, activation_key, dropouts, size_key, step_value, unread
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, TIE, VOCAB, L, heads_divide


def _flag(key: str, default: bool, en: str, zh: str) -> Field:
    return Field(key, default, kind="bool", label=L(en, zh), sample=(0, 1))


FIELDS = (
    replace(VOCAB, default=50368),
    # A form field here, not a hidden extra: its default (50283) refuses any smaller vocabulary.
    Field(
        "pad_token_id", 50283, minimum=0, optional=True,
        label=L("Padding token id (pad_token_id; that row must exist, so V > it)",
                "填充符的 token id（pad_token_id；词嵌入表里必须有这一行，所以 V 要大于它）"),
    ),
    HIDDEN,
    # No layers leaves layer_types empty and ModernBertConfig's RoPE set-up refuses it.
    replace(LAYERS, default=22, minimum=1, sample=(1, 4)),
    HEADS,
    replace(
        INTERMEDIATE, default=1152,
        label=L("Feed-forward inner size (I; Wi is 2I wide)", "前馈网络中间层维度（I；Wi 的输出为 2I）"),
    ),
    _flag("norm_bias", False, "LayerNorm biases (norm_bias)", "层归一化带偏置（norm_bias）"),
    _flag("attention_bias", False, "Attention biases (attention_bias)", "注意力投影带偏置（attention_bias）"),
    _flag("mlp_bias", False, "Feed-forward biases (mlp_bias)", "前馈网络带偏置（mlp_bias）"),
    _flag("decoder_bias", True, "MLM decoder bias (decoder_bias)", "MLM 解码器带偏置（decoder_bias）"),
    _flag(
        "classifier_bias", False, "Bias of the heads' dense layer (classifier_bias)",
        "任务头的全连接层带偏置（classifier_bias）",
    ),
    Field(
        "classifier_pooling", "cls", kind="choice", choices=("cls", "mean"),
        label=L("Classifier pooling (classifier_pooling; adds no parameters)", "分类池化方式（classifier_pooling；不增加参数）"),
        sample=(0, 1),
    ),
    LABELS,
    TIE,
)

#: ``ModernBertConfig.pad_token_id``: the token table's padding row.
PAD_TOKEN_ID = 50283


#: The layer kinds ModernBERT's rotary embedding knows (any other is a KeyError in transformers).
LAYER_TYPES = ("full_attention", "sliding_attention")


def read(raw: Any) -> dict[str, Any]:
    """The fields, and the two keys that never shape a tensor but make ``ModernBertConfig`` fail.

    Without ``layer_types`` the config derives them with ``i % global_attn_every_n_layers``
    (default 3), so 0 (or null, or text) fails; a given ``layer_types`` must name one kind
    of attention per layer.
    """
    values = read_fields(FIELDS, raw, {})
    kinds = raw.get("layer_types")
    if kinds is None:
        every = raw.get("global_attn_every_n_layers", 3)
        if not isinstance(every, (int, float)) or every == 0:
            raise CalcError("bad_value", key="global_attn_every_n_layers", value=every)
    elif (
        not isinstance(kinds, list) or len(kinds) != values["num_hidden_layers"]
        or any(k not in LAYER_TYPES for k in kinds)
    ):
        raise CalcError("bad_value", key="layer_types", value=kinds)
    out = Values(values)
    if kinds is None:
        every = raw.get("global_attn_every_n_layers", 3)
        kinds = ["sliding_attention" if i % every else "full_attention" for i in range(values["num_hidden_layers"])]
    out.layer_kinds = tuple(kinds)
    return out


class Values(dict):
    """The values read, plus each layer's attention kind (``layer_kinds``): not a tensor's size, so not a
    field (nor in the JSON config), but the training step keeps one pair of rotary tables per kind."""

    layer_kinds: tuple[str, ...] = ()


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, inter = c["hidden_size"], c["intermediate_size"]
    nb, ab, mb = c["norm_bias"], c["attention_bias"], c["mlp_bias"]
    t.embedding(prefix + "embeddings.tok_embeddings", c["vocab_size"], h, "embeddings")
    t.layer_norm(prefix + "embeddings.norm", h, group="embeddings", bias=nb)
    heads = c["num_attention_heads"]
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}layers.{i}."
        if i > 0:  # layer 0's attn_norm is nn.Identity
            t.layer_norm(p + "attn_norm", h, layer=i, bias=nb)
        t.linear(p + "attn.Wqkv", 3 * (h // heads) * heads, h, "attention_qkv", i, bias=ab)
        t.linear(p + "attn.Wo", h, h, "attention_output", i, bias=ab)
        t.layer_norm(p + "mlp_norm", h, layer=i, bias=nb)
        t.linear(p + "mlp.Wi", 2 * inter, h, "feed_forward", i, bias=mb)
        t.linear(p + "mlp.Wo", h, inter, "feed_forward", i, bias=mb)
    t.layer_norm(prefix + "final_norm", h, bias=nb, section="encoder")


def prediction_head(t: TensorList, c: dict[str, Any]) -> None:
    """``ModernBertPredictionHead``: dense (bias = classifier_bias), activation, norm (bias = norm_bias)."""
    h = c["hidden_size"]
    t.linear("head.dense", h, h, "head", bias=c["classifier_bias"])
    t.layer_norm("head.norm", h, group="head", bias=c["norm_bias"])


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h, v = c["hidden_size"], c["vocab_size"]
    prediction_head(t, c)
    owner = prefix + "embeddings.tok_embeddings.weight"
    t.add("decoder.weight", (v, h), "head", shares=owner if c["tie_word_embeddings"] else None, module="linear")
    if c["decoder_bias"]:
        t.add("decoder.bias", (v,), "head", module="linear")


def classifier_head(out: str | int) -> Any:
    """head, then ``classifier`` (always with a bias) to num_labels, or to 1 for multiple choice."""

    def head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
        prediction_head(t, c)
        t.linear("classifier", c[out] if isinstance(out, str) else out, c["hidden_size"], "head")

    return head


# ------------------------------------------------------------------ formula


def formula(inv: Inventory) -> Formula:
    """One table; L pre-norm layers with a gated MLP; layer 0 without attention norm; the final norm."""
    c = inv.config
    v, h, i, n = c["vocab_size"], c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    nb, ab, mb = (int(c[k]) for k in ("norm_bias", "attention_bias", "mlp_bias"))
    # a norm: weight, plus bias if norm_bias
    norm_sym, norm_sub, norm_val = ("2H", f"2·{h}", 2 * h) if nb else ("H", f"{h}", h)
    emb = FormulaLine("embeddings", f"V·H + {norm_sym}", f"{v}·{h} + {norm_sub}", v * h + norm_val)
    parts = [
        ("4H² + 4H", f"4·{h}² + 4·{h}", 4 * h * h + 4 * h) if ab else ("4H²", f"4·{h}²", 4 * h * h),
        ("3HI + 2I + H", f"3·{h}·{i} + 2·{i} + {h}", 3 * h * i + 2 * i + h) if mb else ("3HI", f"3·{h}·{i}", 3 * h * i),
        (norm_sym, norm_sub, norm_val),  # mlp_norm
    ]
    per = (" + ".join(p[0] for p in parts), " + ".join(p[1] for p in parts), sum(p[2] for p in parts))
    lines = [emb, *layers_lines(*per, n)]
    if n > 1:
        lines.append(FormulaLine(
            "attention_norms", f"(L − 1)·{norm_sym}", f"{n - 1}·{norm_sub}", (n - 1) * norm_val,
        ))
    lines.append(FormulaLine("final_norm", norm_sym, norm_sub, norm_val))
    symbols = {"V": v, "H": h, "I": i, "L": n}
    return Formula(symbols, tuple(lines + head_line(inv)))


LABELS_ = {
    "attention_norms": L(
        "Attention norms (attn_norm) of layers 1 to L − 1; layer 0 has none",
        "第 1 至 L − 1 层注意力之前的层归一化（attn_norm；第 0 层没有）",
    ),
}


# ------------------------------------------------------------------ training step


def step_layer(p: str, i: int, heads: int, rotary: tuple[T, T], mask: T | None = None) -> Any:
    """One ``ModernBertEncoderLayer`` (dropouts at their default 0: the input itself), every name dropped where
    ``modeling_modernbert.py`` drops it (issue 32: the forward replayed storage by storage).

    Pre-norm (layer 0 has none before attention): fused ``Wqkv`` viewed [B, L, 3, A, D] and unbound, rotary on
    Q and K in float32 (:meth:`~calculator.costs.ops.Ops.rotary_float`), then eager attention: ``matmul`` (which
    copies Q, K and V to 3-D unless B or A is 1), ``* scaling``, ``+ mask`` (``mask``: a sliding-window layer's
    float [B, 1, L, L] mask, made once in ``ModernBertModel.forward``), softmax in float32 (kept), cast back, the
    context made contiguous, ``Wo``. The attention returns its probabilities too, which the layer holds (``_``) until
    it returns. Then ``mlp_norm``, ``Wi`` chunked into input and gate, ``GELU(input) * gate`` (GELU keeps the
    whole ``Wi`` output, the product both factors), ``Wo``.

    With SDPA (``sim.attention``): CPU's flash kernel on Q, K, V; a sliding-window layer given a mask (``mask``:
    the boolean [1, 1, L, L] window, made unless L < ``local_attention`` // 2, when transformers skips it,
    ``_ignore_bidirectional_mask_sdpa``) has ``scaled_dot_product_attention`` turn it into a new additive mask in
    the query's dtype for each call (two scalars, then ``where``), kept by the kernel's backward.
    """

    def run(sim: Sim, x: T) -> T:
        layer = sim.scope()  # ModernBertEncoderLayer.forward
        y = x if i == 0 else sim.layer_norm(p + "attn_norm", x)
        out, probs = attention(sim, y)
        if y is not x:
            sim.release(y)  # self.attn(self.attn_norm(hidden_states)): the argument goes as attn returns
        first = sim.add(x, out)
        normed = sim.layer_norm(p + "mlp_norm", first)
        m = mlp(sim, normed)
        sim.release(normed)
        total = sim.add(first, m)
        sim.release(m, first)  # the MLP's output (a temporary), and the rebound hidden_states
        del probs  # ``_``: the layer's name of the probabilities goes with its frame
        return sim.end_scope(layer, total)

    def attention(sim: Sim, y: T) -> tuple[T, T | None]:
        b, n, h = y.shape
        mark = sim.scope()  # ModernBertAttention.forward
        qkv = sim.linear(p + "attn.Wqkv", y)
        d = qkv.shape[-1] // (3 * heads)
        q, k, v = (sim.transpose(t, 1, 2) for t in sim.unbind_heads(sim.view(qkv, (b, n, 3, heads, d)), 2))
        q, k = sim.rotary_float(q, k, *rotary)
        if sim.attention == "sdpa":
            float_mask = None
            if mask is not None:  # convert_boolean_attn_mask: two scalars, then where (in the query's dtype)
                # (measured under autocast: bf16 scalars and mask, the query being the rotary's bf16 cast)
                size = q.itemsize if sim.lower is not None else sim.itemsize
                scalars = (size, size) if sim.lower is not None else (4, 4)
                sim.transients(scalars, (2, 2), ("aten.scalar_tensor", "aten.scalar_tensor"))
                float_mask = sim.constant_by("aten.where", (b, 1, n, n), size)
            attended = sim.sdpa(q, k, v, float_mask)
            if float_mask is not None:  # a temporary of the ATen call: only the kernel's node keeps it (none under
                sim.release(float_mask)  # checkpointing, whose packs drop it: gone as the call returns, measured)
            context = sim.reshape(sim.contiguous(sim.transpose(attended, 1, 2)), (b, n, h))
            out = sim.linear(p + "attn.Wo", context)
            sim.release(context)
            return sim.end_scope(mark, out), None
        inner = sim.scope()  # eager_attention_forward
        product = sim.bmm(q, sim.transpose(k, 2, 3))
        scores = sim.pointwise(product)  # * scaling
        sim.release(product)
        if mask is not None:
            scores = sim.rebind(scores, sim.add(scores, mask))
        probs = sim.softmax_to_float(scores)
        if q.itemsize != 4:  # .to(query.dtype): the float32 probabilities a temporary of the expression
            probs = sim.rebind(probs, sim.to_dtype(probs, q.itemsize))
        sim.release(scores)
        context = sim.bmm(probs, v)
        context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
        sim.end_scope(inner, context, probs)
        out = sim.linear(p + "attn.Wo", sim.reshape(context, (b, n, h)))
        sim.release(context)  # attn_output = self.out_drop(self.Wo(attn_output)): rebound
        return sim.end_scope(mark, out, probs), probs

    def mlp(sim: Sim, x: T) -> T:
        mark = sim.scope()  # ModernBertMLP.forward
        inner, gate = sim.chunk_halves(sim.linear(p + "mlp.Wi", x))
        act = sim.keep_input(inner)  # GELU keeps its input: the Wi output's storage
        gated = sim.glu_product(act, gate)
        sim.release(act)
        out = sim.linear(p + "mlp.Wo", gated)
        sim.release(gated)
        return sim.end_scope(mark, out)

    return run


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """ModernBERT's classes: token table, LayerNorm, the layers, ``final_norm``, the task head. The forward is
    replayed op by op (issue 32) for every class, without checkpointing or with its non-reentrant kind."""
    c = inv.config
    task = bert.step_task(inv)
    # SDPA's training step is replayed in bf16 and under non-reentrant checkpointing too: the gaps once measured
    # there (the backward 6,512 bytes above in bf16, the checkpointed forward below) were the rotary's SliceBackward0
    # and a frozen Linear's pack (fixed in LiveSim since), and the window's float mask, a temporary of the SDPA call
    # that only the kernel's node keeps (released in step_layer). Inference (no graph) is replayed either way.
    if not (sim.checkpointing and not EXACT_CHECKPOINTING):
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()  # under bf16 autocast too: every op above handles bf16 copies (measured, issue 32)
    x = step_body(sim, c, bert.step_prefix(inv), b, n, layer_kinds(c), step_value(inv, "local_attention", 128))
    return step_head(sim, task, x, c, b, n, c["classifier_pooling"])


#: Whether non-reentrant checkpointing's replay is proven for ModernBERT (its layers' extra inputs kept by the frame).
EXACT_CHECKPOINTING = True


def step_body(sim: Sim, c: Mapping[str, Any], prefix: str, b: int, n: int, kinds: list[str], window: int,
              embeds: T | None = None) -> T:
    """``ModernBertModel`` on input ids (``kinds``: each layer's attention, ``window``: ``local_attention``):
    ``position_ids`` (an int64 arange), the embeddings (token table, LayerNorm), the sliding-window mask (made unless
    L < ``local_attention`` // 2, whether or not a layer uses it), one pair of rotary tables per kind of layer, the
    layers, ``final_norm``; its locals go as it returns. ``c`` holds ModernBERT's own keys (ModernVBERT's text
    encoder passes its ``text_config``'s values, ``prefix`` its ``text_model.``, and ``embeds``, the token table's
    output its composite made and names until it returns: ``inputs_embeds``)."""
    mark = sim.scope()  # ModernBertModel.forward
    if embeds is None:
        ids = sim.ids((b, n))  # input_ids
    sim.constant_by("aten.arange", (1, n), 8)  # position_ids, held until the forward returns
    if embeds is None:
        words = sim.embedding(prefix + "embeddings.tok_embeddings", ids, first=True)
        x = sim.layer_norm(prefix + "embeddings.norm", words)
        sim.release(words)  # self.norm(self.tok_embeddings(input_ids)): a temporary
    else:
        x = sim.layer_norm(prefix + "embeddings.norm", embeds)
    size = sim.itemsize
    mask = None
    if n >= window // 2:
        # sdpa_mask: aranges over batch, head, query and key positions, |q - kv| <= window, combined; the boolean
        # [1, 1, L, L] mask expanded to B. Each index a step of the returned list's order (the boolean mask's next).
        sim.transients((8 * b, 8, 8 * n, 8 * n, 8 * n, 8 * n, 1, 8 * n * n, 8 * n * n, n * n, n * n, n),
                       (12, 12, 3, 12, 5, 12, 10, 8, 9, 10, 12, 12),
                       ("aten.arange", "aten.arange", "aten.arange", "aten.add", "aten.arange", "aten.add",
                        "aten.new_ones", "aten.sub", "aten.abs", "aten.le", "aten.bitwise_and", "aten.ge"))
        mask = sim.constant_by("aten.bitwise_and", (1, 1, n, n), 1)
        if sim.attention != "sdpa":  # eager_mask: where(mask, 0, min) in the model's dtype; the boolean one goes
            sim.transients((size, size), (2, 2), ("aten.zeros", "aten.scalar_tensor"))
            boolean, mask = mask, sim.constant_by("aten.where", (b, 1, n, n), size)
            sim.release(boolean)
    heads = c["num_attention_heads"]
    d = c["hidden_size"] // heads
    rotary = {kind: step_rotary_tables(sim, n, d) for kind in sorted(set(kinds))}
    for i, kind in enumerate(kinds):
        sliding = kind == "sliding_attention"
        # Under non-reentrant checkpointing the frame keeps the layer's keyword arguments too (tables, mask).
        own = mask if sliding else None
        args: tuple[T, ...] = (*rotary[kind], *([own] if own is not None else []))
        if sim.checkpointing and sim.reentrant:  # keywords: CheckpointFunction's partial keeps them until the graph goes
            for argument in args:
                sim.layer_argument(argument, counted=False)
            args = ()
        y = sim.layer(step_layer(f"{prefix}layers.{i}.", i, heads, rotary[kind], own), x, args)
        if i:  # hidden_states rebound (the embeddings' output stays: ``mask_kwargs["inputs_embeds"]`` names it)
            sim.release(x)
        x = y
    return sim.end_scope(mark, sim.layer_norm(prefix + "final_norm", x))


def step_rotary_tables(sim: Sim, n: int, d: int) -> tuple[T, T]:
    """``ModernBertRotaryEmbedding.forward`` (no gradient): ``position_ids[..., None].float() * inv_freq`` (the
    float32 copy of a bf16 ``inv_freq`` too), ``cat`` twice, ``cos() * scaling`` and ``sin() * scaling`` (each raw
    result gone after its product), cast to the model's dtype; the cos and sin tables [1, L, D] returned."""
    mark = sim.scope()
    size = sim.itemsize
    half = (d + 1) // 2  # ``arange(0, D, 2)``: one frequency for a one-wide head, doubled to two columns
    w = 2 * half
    pos = sim.constant_by("aten._to_copy", (1, n, 1), 4)
    casts = [pos] if size == 4 else [pos, sim.constant_by("aten._to_copy", (half,), 4)]
    freqs = sim.constant_by("aten.mul", (1, n, half), 4)
    sim.release(*casts)
    sim.constant_by("aten.cat", (1, n, w), 4)
    tables = []
    for name in ("aten.cos", "aten.sin"):
        raw = sim.constant_by(name, (1, n, w), 4)
        tables.append(sim.constant_by("aten.mul", (1, n, w), 4))
        sim.release(raw)
    if size != 4:
        tables = [sim.constant_by("aten._to_copy", (1, n, w), size) for _ in tables]
    del freqs
    sim.end_scope(mark, tables[0], tables[1])
    return tables[0], tables[1]


def step_head(sim: Sim, kind: str, x: T, c: Mapping[str, Any], b: int, n: int, pooling: str, head: str = "head",
              decoder: str = "decoder", drop: bool | None = None) -> list[T]:
    """The task head on the final norm's output (``kind``: :func:`bert.step_task`'s): pooling (``pooling``, cls or
    mean) for sequence classification, ``head`` (dense, GELU, norm), then ``decoder`` or ``classifier``. ``drop``:
    whether the classifier's dropout is active (ModernVBERT's ``classifier_dropout``); None: no dropout module
    modelled (ModernBERT's, refused above 0 by its keys)."""
    if kind == "":
        return [x]
    if kind == "ForSequenceClassification":
        if pooling == "cls":
            x = sim.select(x, 1)
        else:  # (x * mask.unsqueeze(-1)).sum(1) / mask.sum(1): a bool [B, L] mask and an int64 [B, 1] count kept
            x = sim.masked_mean(x)
    mark = sim.scope()  # ModernBertPredictionHead.forward: norm(act(dense(x)))
    dense = sim.linear(head + ".dense", x)
    act = sim.keep_input(dense)  # GELU
    sim.release(dense)
    x = sim.layer_norm(head + ".norm", act)
    sim.release(act)
    x = sim.end_scope(mark, x)
    if kind == "ForMaskedLM":
        logits = sim.linear(decoder, x)
        sim.release(x)  # self.decoder(self.head(...)): the head's output a temporary
        return [logits]
    if drop is not None:  # self.drop(pooled_output): rebound, the head's output gone unless kept
        x = sim.rebind(x, sim.dropout(x, drop))
    logits = sim.linear("classifier", x)  # classifier_dropout 0 by default: the input itself
    if kind == "ForQuestionAnswering":
        return sim.split_columns(logits)
    return [logits]


def layer_kinds(c: dict[str, Any]) -> list[str]:
    """Each layer's attention kind, as :func:`read` worked it out (``layer_types``, else global attention
    every ``global_attn_every_n_layers`` layers, 3 by default, sliding-window attention between)."""
    kinds = getattr(c, "layer_kinds", ())
    if len(kinds) == c["num_hidden_layers"]:
        return list(kinds)
    return ["sliding_attention" if i % 3 else "full_attention" for i in range(c["num_hidden_layers"])]


def step_check(inv: Inventory) -> None:
    """Multiple choice and QA's label count as for BERT; an odd head size makes the rotary tables one wider
    than the heads (``arange(0, D, 2)`` frequencies, doubled), and ``apply_rotary_pos_emb`` fails, except for
    one-wide heads, which broadcast against the two-wide tables (Q and K two columns, V one: PyTorch runs it)."""
    bert.step_check(inv)
    c = inv.config
    d = c["hidden_size"] // c["num_attention_heads"]
    if d % 2 and d != 1:
        raise CalcError("costs_forward_fails", key="num_attention_heads", value=c["num_attention_heads"])


def rotary_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """``ModernBertRotaryEmbedding``'s non-persistent buffers: per kind of layer (``layer_types``), ``inv_freq`` and
    ``original_inv_freq`` [D / 2], floating (0: cast with the model, as ``model.to(dtype)`` casts them)."""
    c = inv.config
    half = (c["hidden_size"] // c["num_attention_heads"] + 1) // 2  # ``arange(0, D, 2)``: one for a one-wide head
    prefix = inv.arch.prefix + "rotary_emb."
    return [(f"{prefix}{kind}_{name}", (half,), 0) for kind in sorted(set(layer_kinds(c)))
            for name in ("inv_freq", "original_inv_freq")]


COSTS = CostModel(step_program, None, check=step_check, buffers=rotary_buffers, keys=unread((activation_key("gelu", key="hidden_activation"), *dropouts("embedding_dropout", "attention_dropout", "mlp_dropout", "classifier_dropout", default=0.0), activation_key("gelu", key="classifier_activation"))) + (size_key("local_attention", 128),),
                  autocast=True, sdpa=True, sdpa_dropout=("attention_dropout",), reentrant=True)


# ------------------------------------------------------------------ random configs


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Valid heads (now and then one-wide: rotary makes Q and K two columns, SDPA's math path); a padding row
    inside the drawn vocabulary (HF's default 50283 is not), or none."""
    heads_divide()(rng, config)
    if rng.random() < 0.1:
        config["hidden_size"] = config["num_attention_heads"]
    vocab = config.get("vocab_size", 50368)
    choice = rng.random()
    if choice < 0.1:
        config["pad_token_id"] = None  # no padding row
    elif choice < 0.15:
        config["pad_token_id"] = vocab  # outside the table: both sides refuse it
    elif vocab <= PAD_TOKEN_ID or choice < 0.6:
        config["pad_token_id"] = rng.randrange(vocab)
    if rng.random() < 0.3:
        config["max_position_embeddings"] = rng.randint(1, 600)  # rotary: no tensor whatever its value
    choice = rng.random()
    if choice < 0.1:
        config["global_attn_every_n_layers"] = rng.choice([0, 1, 2, -1])  # 0: refused on both sides
    elif choice < 0.2:
        layers = config.get("num_hidden_layers", 22) + rng.choice([0, 0, 0, 1])  # one too many: refused
        config["layer_types"] = [rng.choice(LAYER_TYPES) for _ in range(layers)]


def modernbert_config(hidden: int, layers: int, heads: int, inter: int) -> dict[str, Any]:
    """A published ModernBERT config.json's size-relevant keys."""
    return {
        "model_type": "modernbert",
        "vocab_size": 50368,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter,
        "max_position_embeddings": 8192,
        "pad_token_id": 50283,
        "norm_bias": False,
        "attention_bias": False,
        "mlp_bias": False,
        "decoder_bias": True,
        "classifier_bias": False,
        "classifier_pooling": "mean",
    }


FAMILY = Family(
    model_type="modernbert",
    base="ModernBertModel",
    fields=FIELDS,
    backbone=backbone,
    pad_token_id=PAD_TOKEN_ID,
    read=read,
    architectures=(
        Architecture(name="ModernBertModel", task=Task.MODEL, prefix="", pooler=False),
        Architecture(name="ModernBertForMaskedLM", task=Task.MASKED_LM, prefix="model.", pooler=False, head=mlm_head, ties_embeddings=True),
        Architecture(name="ModernBertForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix="model.", pooler=False,
                     head=classifier_head("num_labels"), uses_num_labels=True),
        Architecture(name="ModernBertForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix="model.", pooler=False,
                     head=classifier_head("num_labels"), uses_num_labels=True),
        Architecture(name="ModernBertForQuestionAnswering", task=Task.QUESTION_ANSWERING, prefix="model.", pooler=False,
                     head=classifier_head("num_labels"), uses_num_labels=True),
        Architecture(name="ModernBertForMultipleChoice", task=Task.MULTIPLE_CHOICE, prefix="model.", pooler=False, head=classifier_head(1)),
    ),
    title={"en": "ModernBERT", "zh": "ModernBERT"},
    formula=formula,
    presets=(
        Preset("answerdotai/ModernBERT-base", modernbert_config(768, 22, 12, 1152), "ModernBertForMaskedLM"),
        Preset("answerdotai/ModernBERT-large", modernbert_config(1024, 28, 16, 2624), "ModernBertForMaskedLM"),
    ),
    sample=sample,
    rank=56,
    default_attention="sdpa",
    labels=LABELS_,
    costs=COSTS,
)
