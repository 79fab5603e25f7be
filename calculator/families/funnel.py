"""Funnel Transformer (``modeling_funnel.py``, 2020): blocks that pool the sequence, and a decoder that restores it.

* The encoder is ``block_sizes`` blocks (4, 4, 4 for funnel-transformer/small) of
  layers; between blocks the sequence is pooled to half its length. **Pooling adds
  no parameters** (a mean or max over pairs of positions), and neither does
  ``block_repeats``: a repeated layer is run again with the same weights. So the
  encoder holds sum(block_sizes) distinct layers, whatever the repeats.
* Every layer is Transformer-XL's relative attention: no position table, but per layer
  ``r_w_bias``, ``r_r_bias``, ``r_s_bias`` [N, D_h], ``r_kernel`` [D, N, D_h] and
  ``seg_embed`` [2, N, D_h] (the token-type information, two types, whatever
  ``type_vocab_size`` a config.json says); ``q_head`` has no bias, ``k_head`` and
  ``v_head`` have; ``post_proj`` [D, N·D_h]. Widths come from ``n_head`` (N) and
  ``d_head`` (D_h), not from D / N.
* The embeddings are the word table and a LayerNorm, nothing else.
* ``FunnelModel`` adds the decoder: ``num_decoder_layers`` more layers of the same
  kind, which upsample the last block's output back to full length. ``FunnelBaseModel``
  has no decoder; sequence classification and multiple choice are built on it, every
  other class on the full model. No pooler.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Mapping

from ..config import MAX_LAYERS, Field, read_fields
from ..costs import CostModel, Sim, T, activation_key, dropouts, unread, no_buffers
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..i18n import pick
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Family, Preset, Task
from .common import HIDDEN, INTERMEDIATE, LABELS, TIE, VOCAB, L

FIELDS = (
    VOCAB,
    Field(
        "block_sizes", (4, 4, 4), kind="ints", minimum=0, maximum=MAX_LAYERS,
        label=L("Layers per block (block_sizes, e.g. 4|4|4; the sequence is pooled between blocks)",
                "每个块的层数（block_sizes，例如 4|4|4；块与块之间对序列做池化）"),
    ),
    Field(
        "block_repeats", None, kind="ints", minimum=0, maximum=MAX_LAYERS, optional=True,
        label=L("Repeats per block (block_repeats; reuse the same weights: add no parameters)",
                "每个块的重复次数（block_repeats；重复使用同一组权重，不增加参数）"),
    ),
    Field(
        "num_decoder_layers", 2, minimum=0, maximum=MAX_LAYERS,
        label=L("Decoder layers (num_decoder_layers; FunnelModel only)", "解码器层数（num_decoder_layers；仅 FunnelModel 有）"),
        sample=(0, 3),
    ),
    replace(HIDDEN, key="d_model", label=L("Hidden size (d_model, D)", "隐藏层维度（d_model，D）")),
    Field("n_head", 12, label=L("Attention heads (n_head, N)", "注意力头数（n_head，N）"), sample=(1, 6)),
    Field("d_head", 64, label=L("Size of each head (d_head, D_h)", "每个注意力头的维度（d_head，D_h）"), sample=(1, 12)),
    replace(INTERMEDIATE, key="d_inner", label=L("Feed-forward inner size (d_inner, I)", "前馈网络中间层维度（d_inner，I）")),
    Field(
        "pooling_type", "mean", kind="choice", choices=("mean", "max"),
        label=L("Pooling between blocks (pooling_type; adds no parameters)", "块之间的池化方式（pooling_type；不增加参数）"),
        sample=(0, 1),
    ),
    Field(
        "attention_type", "relative_shift", kind="choice", choices=("relative_shift", "factorized"),
        label=L("Relative attention variant (attention_type; adds no parameters)",
                "相对位置注意力的实现方式（attention_type；不增加参数）"),
        sample=(0, 1),
    ),
    LABELS,
    TIE,
)

#: Classes built on ``FunnelModel`` (with the decoder); the others are built on ``FunnelBaseModel``.
FULL = ("FunnelModel", "FunnelForPreTraining", "FunnelForMaskedLM", "FunnelForTokenClassification",
        "FunnelForQuestionAnswering")


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, HF's attribute names (hidden_size, num_attention_heads) accepted, checked as FunnelConfig checks them.

    FunnelConfig derives ``num_hidden_layers`` and ``num_blocks`` from ``block_sizes`` and
    refuses a config.json that sets them; ``block_repeats`` must match ``block_sizes``.
    """
    for key in ("num_hidden_layers", "num_blocks"):
        if key in raw:  # FunnelConfig: "This model does not support the setting of `num_hidden_layers`."
            raise CalcError("derived_key", key=key, value=raw[key], source="block_sizes")
    c = read_fields(FIELDS, raw, {"hidden_size": "d_model", "num_attention_heads": "n_head"})
    if c["block_repeats"] is not None and len(c["block_repeats"]) != len(c["block_sizes"]):
        # FunnelConfig: "`block_sizes` and `block_repeats` should have the same length."
        raise CalcError("bad_value", key="block_repeats", value=list(c["block_repeats"]))
    if sum(c["block_sizes"]) > MAX_LAYERS:
        raise CalcError("too_large", key="sum(block_sizes)", value=sum(c["block_sizes"]), maximum=MAX_LAYERS)
    runs = sum(layer_runs(c))
    if runs > MAX_LAYERS:
        # The encoder runs each layer block_repeats times: a layer count for the step, bounded as one.
        raise CalcError("too_large", key="sum(block_sizes × block_repeats)", value=runs, maximum=MAX_LAYERS)
    return c


def layer_runs(c: Mapping[str, Any]) -> list[int]:
    """Per block, how many layers the encoder runs: its size times its repeats (``FunnelEncoder``'s two loops)."""
    repeats = c["block_repeats"] or [1] * len(c["block_sizes"])
    return [size * times for size, times in zip(c["block_sizes"], repeats)]


def funnel_layer(t: TensorList, c: dict[str, Any], p: str, index: int, stack: str) -> None:
    """``FunnelLayer``: relative multi-head attention (its own Parameters first), then the position-wise FFN."""
    d, n, dh, inner = c["d_model"], c["n_head"], c["d_head"], c["d_inner"]
    a = p + "attention."
    for bias in ("r_w_bias", "r_r_bias"):
        t.add(a + bias, (n, dh), "relative_position", index, stack=stack)
    t.add(a + "r_kernel", (d, n, dh), "relative_position", index, stack=stack)
    t.add(a + "r_s_bias", (n, dh), "relative_position", index, stack=stack)
    t.add(a + "seg_embed", (2, n, dh), "relative_position", index, stack=stack)
    t.linear(a + "q_head", n * dh, d, "attention_qkv", index, bias=False, stack=stack)
    t.linear(a + "k_head", n * dh, d, "attention_qkv", index, stack=stack)
    t.linear(a + "v_head", n * dh, d, "attention_qkv", index, stack=stack)
    t.linear(a + "post_proj", d, n * dh, "attention_output", index, stack=stack)
    t.layer_norm(a + "layer_norm", d, layer=index, stack=stack)
    t.linear(p + "ffn.linear_1", inner, d, "feed_forward", index, stack=stack)
    t.linear(p + "ffn.linear_2", d, inner, "feed_forward", index, stack=stack)
    t.layer_norm(p + "ffn.layer_norm", d, layer=index, stack=stack)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    """``FunnelBaseModel``: the word table and its LayerNorm, then the blocks (the decoder is added by :func:`decoder`)."""
    t.embedding(prefix + "embeddings.word_embeddings", c["vocab_size"], c["d_model"], "embeddings")
    t.layer_norm(prefix + "embeddings.layer_norm", c["d_model"], group="embeddings")
    index = 0
    for b, size in enumerate(c["block_sizes"]):
        for j in range(size):
            funnel_layer(t, c, f"{prefix}encoder.blocks.{b}.{j}.", index, "encoder")
            index += 1


def decoder(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``FunnelDecoder``: num_decoder_layers layers, numbered after the encoder's."""
    first = sum(c["block_sizes"])
    for j in range(c["num_decoder_layers"]):
        funnel_layer(t, c, f"{prefix}decoder.layers.{j}.", first + j, "decoder")


def with_decoder(head: Any = None) -> Any:
    """A class built on ``FunnelModel``: the decoder comes after the encoder, then the class's own head."""

    def build(t: TensorList, c: dict[str, Any], prefix: str) -> None:
        decoder(t, c, prefix)
        if head is not None:
            head(t, c, prefix)

    return build


def linear(name: str, out: str | int) -> Any:
    def head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
        t.linear(name, c[out] if isinstance(out, str) else out, c["d_model"], "head")

    return head


def discriminator(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    d = c["d_model"]
    t.linear("discriminator_predictions.dense", d, d, "head")
    t.linear("discriminator_predictions.dense_prediction", 1, d, "head")


def lm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``lm_head`` D → V: its weight is the word table when tied, its bias its own."""
    v, d = c["vocab_size"], c["d_model"]
    owner = prefix + "embeddings.word_embeddings.weight"
    t.add("lm_head.weight", (v, d), "head", shares=owner if c["tie_word_embeddings"] else None, module="linear")
    t.add("lm_head.bias", (v,), "head", module="linear")


def classifier(out: str | int) -> Any:
    """``FunnelClassificationHead``: linear_hidden D → D, then linear_out to the labels (or 1)."""

    def head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
        d = c["d_model"]
        t.linear("classifier.linear_hidden", d, d, "head")
        t.linear("classifier.linear_out", c[out] if isinstance(out, str) else out, d, "head")

    return head


# ------------------------------------------------------------------ formula


def formula(inv: Inventory) -> Formula:
    """V·D + 2D; S = sum(block_sizes) encoder layers; the decoder's layers for classes on FunnelModel; the head."""
    c = inv.config
    v, d, n, dh, i = c["vocab_size"], c["d_model"], c["n_head"], c["d_head"], c["d_inner"]
    s, dec = sum(c["block_sizes"]), c["num_decoder_layers"]
    m = n * dh
    per = 7 * m + 5 * d * m + 2 * d * i + i + 6 * d
    symbolic = "7M + 5D·M + 2D·I + I + 6D (M = N·D_h)"
    substituted = f"7·{m} + 5·{d}·{m} + 2·{d}·{i} + {i} + 6·{d}"
    lines = [
        FormulaLine("embeddings", "V·D + 2D", f"{v}·{d} + 2·{d}", v * d + 2 * d),
        *layers_lines(symbolic, substituted, per, s, "S"),
    ]
    if inv.architecture in FULL:
        lines.append(FormulaLine("decoder_layers", f"L_dec × ({symbolic})", f"{dec} × {per:,}", dec * per))
    symbols = {"V": v, "D": d, "N": n, "D_h": dh, "M": m, "I": i, "S": s, "L_dec": dec}
    return Formula(symbols, tuple(lines + head_line(inv)))


def layer_row(n: int, config: Mapping[str, Any], lang: str) -> str:
    """Encoder layers by block (the sequence is pooled between blocks), then the decoder's."""
    start = 0
    for b, size in enumerate(config["block_sizes"]):
        if n < start + size:
            return pick(LABELS_["block_layer"], lang, block=b, layer=n - start)
        start += size
    return pick(LABELS_["decoder_layer"], lang, layer=n - start)


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Short lists of small blocks; repeats now and then (one time in ten of the wrong length: refused by both)."""
    blocks = [rng.randint(0, 3) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.9:
        config["block_sizes"] = blocks
    roll = rng.random()
    if roll < 0.3:
        config["block_repeats"] = [rng.randint(1, 3) for _ in blocks]
    elif roll < 0.35:
        config["block_repeats"] = [1] * (len(blocks) + 1)
    if rng.random() < 0.2:  # HF's attribute names
        config["hidden_size"] = config.pop("d_model", 768)
        config["num_attention_heads"] = config.pop("n_head", 12)


LABELS_ = {
    "decoder_layers": L("Decoder layers (FunnelModel: L_dec more layers, same shape)",
                        "解码器各层（FunnelModel：再加 L_dec 层，结构相同）"),
    "block_layer": L("Block {block}, layer {layer}", "第 {block} 块第 {layer} 层"),
    "decoder_layer": L("Decoder layer {layer}", "解码器第 {layer} 层"),
}


# --------------------------------------------------------------- training step
#
# FunnelConfig's defaults: gelu_new, hidden and attention dropout 0.1, activation dropout 0,
# separate_cls, truncate_seq and pool_q_only on (no form field changes them).


def _rel_len(n: int, block: int, pos: list[int], stride: int, pooled: list[int] | None = None, shift: int = 1) -> int:
    """The length of ``FunnelAttentionStructure.relative_pos``: an arange from max_dist down to min_dist,
    whose values + 2L index a table of 4L sinusoids (``torch.gather`` fails outside it: refused)."""
    pooled = pos if pooled is None else pooled
    max_dist = pooled[0] - pos[0] + shift * len(pooled) * stride
    min_dist = pooled[0] - pos[-1]
    values = range(max_dist, min_dist - 1, -stride)
    if len(values) and not (0 <= values[-1] + 2 * n and values[0] + 2 * n < 4 * n):
        raise CalcError("costs_funnel_short", value=n, block=block)
    return len(values)


def position_lengths(blocks: int, n: int) -> list[tuple[int, int | None]]:
    """Per block, the rows of the relative position vectors (without pooling, with pooling), as
    ``get_position_embeds`` builds them for the relative_shift attention."""
    pos = list(range(n))
    out: list[tuple[int, int | None]] = []
    for b in range(blocks):
        pooled = pos
        pooling = None
        if b > 0:
            pooled = [-(2 ** b) + 1] + pos[1:-1][::2]
            pooling = _rel_len(n, b, pos, 2 ** (b - 1), pooled, shift=2)
        pos = pooled
        out.append((_rel_len(n, b, pos, 2 ** b), pooling))
    return out


class Inputs:
    """``attention_inputs``: the relative position vectors, token-type matrix and cls mask as tensors."""

    def __init__(self, sim: Sim, c: Mapping[str, Any], b: int, n: int) -> None:
        d = c["d_model"]
        self.length = n
        self.r: dict[tuple[int, int], T] = {}  # (block, shift) → the gathered [rows, D] vectors, made once per init
        self.factorized = c["attention_type"] == "factorized"
        if self.factorized:  # phi, pi (query side), psi, omega (key side): [L, 2·⌊D/2⌋] concatenated sinusoids
            width = 2 * (d // 2)
            self.phi, self.pi, self.psi, self.omega = (sim.new((n, width), False) for _ in range(4))
        else:
            for i, (plain, pooling) in enumerate(position_lengths(len(c["block_sizes"]), n)):
                self.r[(i, 1)] = sim.new((plain, d), False)
                if pooling is not None:
                    self.r[(i, 2)] = sim.new((pooling, d), False)
        self.types = sim.new((b, n, n), False, 1)  # token_type_mat: bool
        self.cls = sim.new((n, n), False)  # cls_mask: pad(new_ones([L − 1, L − 1])), the model's dtype

    def pool_rows(self, sim: Sim) -> None:
        """``stride_pool`` of the query axis (pre-attention, pool_q_only): cat the first row, take every other."""
        b, i, j = self.types.shape
        rows = (i + 1) // 2
        self.types = sim.narrow(sim.new((b, i + 1, j), False, 1), 1, rows, 2)
        self.cls = sim.narrow(sim.new((i + 1, j), False), 0, rows, 2)
        if self.factorized:
            self.phi, self.pi = (sim.narrow(sim.new((i + 1, t.shape[1]), False), 0, rows, 2) for t in (self.phi, self.pi))

    def pool_columns(self, sim: Sim) -> None:
        """``stride_pool`` of the key axis after the pooling layer."""
        b, i, j = self.types.shape
        cols = (j + 1) // 2
        self.types = sim.narrow(sim.new((b, i, j + 1), False, 1), 2, cols, 2)
        self.cls = sim.narrow(sim.new((i, j + 1), False), 1, cols, 2)
        if self.factorized:
            self.psi, self.omega = (sim.narrow(sim.new((j + 1, t.shape[1]), False), 0, cols, 2)
                                    for t in (self.psi, self.omega))


def step_attention(sim: Sim, c: Mapping[str, Any], a: str, query: T, kv: T, block: int, inputs: Inputs) -> T:
    """``FunnelRelMultiheadAttention``: content, positional and token-type scores by einsum."""
    b, i, _ = query.shape
    j = kv.shape[1]
    n, h = c["n_head"], c["d_head"]
    q = sim.pointwise(sim.view(sim.linear(a + "q_head", query), (b, i, n, h)))  # * scale
    k = sim.view(sim.linear(a + "k_head", kv), (b, j, n, h))
    v = sim.view(sim.linear(a + "v_head", kv), (b, j, n, h))

    def scaled(name: str) -> T:
        return sim.new((n, h), sim.param_trains(a + name))  # r_*_bias * scale

    content = sim.einsum("bind,bjnd->bnij", sim.add(q, scaled("r_w_bias")), k)
    if inputs.factorized:
        positional = step_factorized(sim, a, sim.add(q, scaled("r_r_bias")), inputs)
    else:
        positional = step_relative_shift(sim, a, sim.add(q, scaled("r_r_bias")), j, block, inputs)
    positional = sim.keep_other(positional, inputs.cls)
    types = sim.einsum("bind,snd->bnis", sim.add(q, scaled("r_s_bias")), sim.param(a + "seg_embed"))
    condition = sim.expand(sim.view(inputs.types, (b, 1, i, j)), (b, n, i, j))
    token_type = sim.keep_other(sim.where(condition, sim.new((b, n, i, j), types.grad)), inputs.cls)
    score = sim.add(sim.add(content, positional), token_type)
    probs = sim.dropout(sim.keep_output(score))  # .float(), − mask, softmax(dtype=...), dropout
    vec = sim.reshape(sim.einsum("bnij,bjnd->bind", probs, v), (b, i, n * h))
    out = sim.dropout(sim.linear(a + "post_proj", vec))
    return sim.layer_norm(a + "layer_norm", sim.add(query, out))


def step_factorized(sim: Sim, a: str, q: T, inputs: Inputs) -> T:
    """The factorized positional scores: q · r_kernel (binh,dnh->bind), times phi and pi (each product keeps
    the sinusoids), against psi and omega (bind,jd->bnij, twice), summed."""
    q_r = sim.einsum("binh,dnh->bind", q, sim.param(a + "r_kernel"))
    b, i, n, d = q_r.shape
    first = sim.pointwise(sim.keep_other(q_r, inputs.phi))  # q_r * phi[:, None]
    second = sim.pointwise(sim.keep_other(q_r, inputs.pi))
    return sim.add(sim.einsum("bind,jd->bnij", first, inputs.psi), sim.einsum("bind,jd->bnij", second, inputs.omega))


def step_relative_shift(sim: Sim, a: str, q: T, j: int, block: int, inputs: Inputs) -> T:
    """The relative_shift positional scores: q against r · r_kernel, then shifted by reshapes and slices (views)."""
    b, i, n, _ = q.shape
    shift = 2 if i != j else 1
    r = inputs.r[(block, shift)]
    rows = r.shape[0]
    r_head = sim.einsum("td,dnh->tnh", r, sim.param(a + "r_kernel"))
    positional = sim.einsum("binh,tnh->bnit", q, r_head)
    positional = sim.narrow(sim.reshape(positional, (b, n, rows, i)), 2, rows - shift)
    positional = sim.reshape(positional, (b, n, i, rows - shift))
    if rows - shift < j:  # ``positional_attn *= cls_mask`` cannot broadcast in place: PyTorch fails
        raise CalcError("costs_funnel_short", value=inputs.length, block=block)
    positional = sim.narrow(positional, 3, j)
    return positional


def step_layer(sim: Sim, c: Mapping[str, Any], p: str, query: T, kv: T, block: int, inputs: Inputs) -> T:
    """``FunnelLayer``: the attention, then the position-wise FFN (gelu_new, no activation dropout)."""
    x = step_attention(sim, c, p + "attention.", query, kv, block, inputs)
    inner = sim.gelu_tanh(sim.linear(p + "ffn.linear_1", x))
    out = sim.dropout(sim.linear(p + "ffn.linear_2", inner))
    return sim.layer_norm(p + "ffn.layer_norm", sim.add(x, out))


def step_pool(sim: Sim, x: T, mode: str) -> T:
    """``pool_tensor`` (separate_cls, truncate_seq): cat the first token before all but the last, pool pairs."""
    b, n, d = x.shape
    joined = sim.new((b, n, d), x.grad)
    return sim.select(sim.pool_pairs(sim.view(joined, (b, 1, n, d)), mode), 1)


def step_encoder(sim: Sim, c: Mapping[str, Any], prefix: str, x: T) -> tuple[T, list[T]]:
    """``FunnelEncoder``: the blocks, pooling the query before each block after the first (when L > 2)."""
    b, n, _ = x.shape
    inputs = Inputs(sim, c, b, n)
    hidden, states = x, [x]
    repeats = c["block_repeats"] or [1] * len(c["block_sizes"])
    for block, size in enumerate(c["block_sizes"]):
        pooling = hidden.shape[1] > 2 and block > 0
        if pooling:
            inputs.pool_rows(sim)
            pooled = step_pool(sim, hidden, c["pooling_type"])
        for j in range(size):
            for r in range(repeats[block]):
                first = pooling and j == 0 and r == 0
                query = pooled if first else hidden
                hidden = step_layer(sim, c, f"{prefix}encoder.blocks.{block}.{j}.", query, hidden, block, inputs)
                if first:
                    inputs.pool_columns(sim)
                states.append(hidden)
    return hidden, states


def step_decoder(sim: Sim, c: Mapping[str, Any], prefix: str, final: T, first_block: T) -> T:
    """``FunnelDecoder``: upsample (repeat, pad, cat: nothing kept), add the first block's output, its layers."""
    b, n, d = first_block.shape
    hidden = final
    if len(c["block_sizes"]) > 1:
        hidden = sim.new((b, n, d), final.grad)
    hidden = sim.add(hidden, first_block)
    inputs = Inputs(sim, c, b, n)
    for j in range(c["num_decoder_layers"]):
        hidden = step_layer(sim, c, f"{prefix}decoder.layers.{j}.", hidden, hidden, 0, inputs)
    return hidden


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """Funnel's classes: the outputs each returns."""
    c = inv.config
    prefix = bert.step_prefix(inv)
    x = sim.embedding(prefix + "embeddings.word_embeddings", sim.ids((b, n)), first=True)
    x = sim.dropout(sim.layer_norm(prefix + "embeddings.layer_norm", x))
    hidden, states = step_encoder(sim, c, prefix, x)
    if inv.architecture in FULL:
        hidden = step_decoder(sim, c, prefix, hidden, states[c["block_sizes"][0]])
    kind = bert.step_task(inv)
    if kind == "":
        return [hidden]
    if kind == "ForPreTraining":
        y = sim.gelu_tanh(sim.linear("discriminator_predictions.dense", hidden))
        return [sim.linear("discriminator_predictions.dense_prediction", y)]
    if kind == "ForMaskedLM":
        return [sim.linear("lm_head", hidden)]
    if kind == "ForSequenceClassification":
        y = sim.keep_output(sim.linear("classifier.linear_hidden", sim.select(hidden, 1)))  # tanh
        return [sim.linear("classifier.linear_out", sim.dropout(y))]
    if kind == "ForTokenClassification":
        return [sim.linear("classifier", sim.dropout(hidden))]
    if kind == "ForQuestionAnswering":
        return bert.step_qa(sim, hidden)
    raise AssertionError(inv.architecture)


def step_check(inv: Inventory) -> None:
    """Besides BERT's refusals: an odd d_model (sinusoids one column short) or an empty block before a non-empty one makes PyTorch's forward pass fail (the sequence length too short
    for the relative positions is refused while the step is worked out: it depends on L)."""
    bert.step_check(inv)
    c = inv.config
    if c["d_model"] % 2:  # the sinusoids are 2·⌊D/2⌋ wide: gathering D columns of them fails
        raise CalcError("costs_widths", module="attention.r_kernel", expected=c["d_model"], got=c["d_model"] - 1)
    sizes = layer_runs(c)  # a block repeated 0 times runs no layer: as empty as a block of none
    for b in range(1, len(sizes)):
        if sizes[b] == 0 and any(sizes[b + 1:]):
            # The masks are pooled for the empty block, the hidden states are not: a later block fails.
            raise CalcError("costs_funnel_empty_block", block=b)
    if inv.architecture in FULL:
        # FunnelModel's decoder adds hidden_states[block_sizes[0]], the first block's last output at full length.
        if not c["block_sizes"]:  # block_sizes[0]: IndexError
            raise CalcError("costs_funnel_decoder_input", value="[]")
        if c["block_sizes"][0] > 0 and sizes[0] == 0:
            # Block 0 runs no layer: that index is missing (IndexError) or a pooled, shorter state (a size mismatch).
            raise CalcError("costs_funnel_decoder_input", value="block_repeats[0] = 0")


#: FunnelPreTrainedModel does not declare gradient checkpointing; there is no position table.
COSTS = CostModel(step_program, None, check=step_check, checkpointing=False, keys=unread((activation_key("gelu_new"), *dropouts("hidden_dropout", "attention_dropout"), *dropouts("activation_dropout", default=0.0))), buffers=no_buffers)


def funnel_config(blocks: tuple[int, ...], d: int, heads: int, inner: int,
                  repeats: tuple[int, ...] | None = None) -> dict[str, Any]:
    """A published funnel-transformer config.json's size-relevant keys."""
    return {
        "model_type": "funnel", "vocab_size": 30522, "block_sizes": list(blocks),
        "block_repeats": list(repeats or (1,) * len(blocks)), "num_decoder_layers": 2, "d_model": d,
        "n_head": heads, "d_head": 64, "d_inner": inner, "pooling_type": "mean", "attention_type": "relative_shift",
    }


FAMILY = Family(
    model_type="funnel",
    base="FunnelModel",
    fields=FIELDS,
    backbone=backbone,
    read=read,
    heads_check=None,  # widths are n_head × d_head: nothing has to divide
    pad_token_id=None,
    aliases={"hidden_size": "d_model", "num_attention_heads": "n_head"},
    architectures=(
        Architecture(name="FunnelModel", task=Task.MODEL, prefix="", pooler=False, head=with_decoder()),
        Architecture(name="FunnelBaseModel", task=Task.MODEL, prefix="", pooler=False),
        Architecture(name="FunnelForPreTraining", task=Task.PRETRAINING, prefix="funnel.", pooler=False, head=with_decoder(discriminator)),
        Architecture(name="FunnelForMaskedLM", task=Task.MASKED_LM, prefix="funnel.", pooler=False, head=with_decoder(lm_head),
                     ties_embeddings=True),
        Architecture(name="FunnelForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix="funnel.", pooler=False,
                     head=classifier("num_labels"), uses_num_labels=True),
        Architecture(name="FunnelForMultipleChoice", task=Task.MULTIPLE_CHOICE, prefix="funnel.", pooler=False, head=classifier(1)),
        Architecture(name="FunnelForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix="funnel.", pooler=False,
                     head=with_decoder(linear("classifier", "num_labels")), uses_num_labels=True),
        Architecture(name="FunnelForQuestionAnswering", task=Task.QUESTION_ANSWERING, prefix="funnel.", pooler=False,
                     head=with_decoder(linear("qa_outputs", "num_labels")), uses_num_labels=True),
    ),
    title={"en": "Funnel Transformer", "zh": "Funnel Transformer"},
    formula=formula,
    presets=(
        Preset("funnel-transformer/small", funnel_config((4, 4, 4), 768, 12, 3072), "FunnelModel"),
        Preset("funnel-transformer/medium", funnel_config((6, 3, 3), 768, 12, 3072, (1, 2, 2)), "FunnelModel"),
        Preset("funnel-transformer/intermediate", funnel_config((6, 6, 6), 768, 12, 3072), "FunnelModel"),
        Preset("funnel-transformer/intermediate-base", funnel_config((6, 6, 6), 768, 12, 3072), "FunnelBaseModel"),
        Preset("funnel-transformer/large", funnel_config((8, 8, 8), 1024, 16, 4096), "FunnelModel"),
        Preset("funnel-transformer/xlarge", funnel_config((10, 10, 10), 1024, 16, 4096), "FunnelModel"),
    ),
    layer_row=layer_row,
    sample=sample,
    costs=COSTS,
    rank=68,
    labels=LABELS_,
)
