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
from ..costs.tensor import INDEX_BYTES
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
#
# The peak (issue 32): the program declares every release of the forward, so the inference span and the training
# step's forward are replayed exactly (eager, fp32 or bf16; Funnel has no SDPA and no gradient checkpointing in
# transformers 5.23), and its backward is modelled node by node (measured with peak_measure.backward_ledger): the
# einsums' permuted operands and outputs (LiveSim.einsum_operand / einsum_result: the gradient reshaped to bmm's, a
# copy where its strides demand; one-wide heads' einsums without a contraction, a broadcast product:
# LiveSim.einsum_mul), ``positional_attn *= cls_mask`` in place on a view of the einsum's output
# (AsStridedBackward0 + CopySlices), ``token_type_attn *= cls_mask`` (MulBackward0), ``where`` over split's two columns
# (LiveSim.split_where), AccumulateGrad's copies of r_kernel's and seg_embed's permuted gradients (summed first when
# block_repeats runs a layer again), the query's gradients summed in their permuted layout, the poolings' slices, cat
# and avg/max pooling, the upsampling's repeat_interleave, pad and slices; LoRA on post_proj when d_head = 1 (peft's base
# layer on at::linear's matmul path of a strided view, lora_A folding a copy of it: LiveSim.linear_strided). Under bf16 autocast (CostModel.autocast) the einsums' bmm casts their float32 operands
# after the permutes and reshapes (the second first; LiveSim.einsum), a one-wide head's product promotes (bf16 times
# float32: its gradient summed, then cast back), and ``*= cls_mask`` (float32) makes a float32 ``grad * cls_mask``
# (cast back by validate_outputs, or by CopySlices' copy_ on the einsum's base): measured with backward_ledger.


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
    """``attention_inputs``: the position embeddings, the token-type matrix, the attention mask and the cls mask, as
    ``init_attention_inputs`` makes them (:func:`position_embeds`, :func:`token_type_mat`, :func:`cls_mask`) and the
    pooling functions replace them."""

    def __init__(self, sim: Sim, c: Mapping[str, Any], b: int, n: int, mask: T) -> None:
        self.length = n
        self.factorized = c["attention_type"] == "factorized"
        self.r: dict[tuple[int, int], T] = {}  # (block, shift) → the gathered [rows, D] vectors (relative_shift)
        self.mask = self.first_mask = mask  # the [B, L] mask as the model passes it (held by its caller)
        if self.factorized:  # phi, pi (query side), psi, omega (key side): [L, 2·⌊D/2⌋] concatenated sinusoids
            self.phi, self.pi, self.psi, self.omega = factorized_embeds(sim, c, n)
        else:
            self.r = shift_embeds(sim, c, n)
        self.types = token_type_mat(sim, b, n)
        self.cls = cls_mask(sim, n)

    def pool_rows(self, sim: Sim, hidden: T, mode: str) -> T:
        """``pre_attention_pooling`` (pool_q_only): the query side of the position embeddings (factorized), the
        token-type matrix's rows and the cls mask's rows by ``stride_pool``, the hidden states by ``pool_tensor``; the
        encoder rebinds ``attention_inputs`` to them (the old ones dropped) and returns the pooled hidden states."""
        mark = sim.scope()
        old = [self.types, self.cls]
        if self.factorized:
            old += [self.phi, self.pi]
            self.phi, self.pi = stride_pool(sim, self.phi, 0), stride_pool(sim, self.pi, 0)
        self.types = stride_pool(sim, self.types, 1)
        self.cls = stride_pool(sim, self.cls, 0)
        pooled = step_pool(sim, hidden, mode)
        sim.end_scope(mark, pooled, *self.tensors())
        sim.release(*old)
        return pooled

    def pool_columns(self, sim: Sim) -> None:
        """``post_attention_pooling``: the key side of the position embeddings (factorized), the token-type matrix's
        and the cls mask's columns, and the attention mask by ``pool_tensor(mode="min")``; the old ones dropped (the
        first mask is still held by the encoder's caller)."""
        mark = sim.scope()
        old = [self.types, self.cls] + ([self.mask] if self.mask is not self.first_mask else [])
        if self.factorized:
            old += [self.psi, self.omega]
            self.psi, self.omega = stride_pool(sim, self.psi, 0), stride_pool(sim, self.omega, 0)
        self.types = stride_pool(sim, self.types, 2)
        self.cls = stride_pool(sim, self.cls, 1)
        self.mask = min_pool(sim, self.mask)
        sim.end_scope(mark, self.mask, *self.tensors())
        sim.release(*old)

    def tensors(self) -> list[T]:
        """What ``attention_inputs`` holds besides the mask."""
        out = [self.types, self.cls, *self.r.values()]
        return out + ([self.phi, self.pi, self.psi, self.omega] if self.factorized else [])


def inv_freq(sim: Sim, half: int) -> tuple[T, T]:
    """``1 / (10000 ** (arange(0, D // 2).to(dtype) / (D // 2)))``: arange (int64), its cast, the division, the
    power, ``1 / x`` as reciprocal then a product, each temporary dropped once the next is made."""
    ar = sim.fresh((half,), "aten.arange", INDEX_BYTES)
    freq = sim.fresh((half,), "aten._to_copy")  # freq_seq, named until get_position_embeds returns
    sim.release(ar)
    quotient = sim.fresh((half,), "aten.div")
    power = sim.fresh((half,), "aten.pow")
    sim.release(quotient)
    reciprocal = sim.fresh((half,), "aten.reciprocal")
    out = sim.fresh((half,), "aten.mul")
    sim.release(reciprocal, power)
    return freq, out


def sinusoid_dropped(sim: Sim, shape: tuple[int, int], aten: str) -> T:
    """``self.sin_dropout(torch.sin(sinusoid))`` (or cos): the sinusoids, then the dropout's noise and product in
    training (the sinusoids a temporary then); in ``model.eval()`` the sinusoids themselves."""
    wave = sim.fresh(shape, aten)
    out = sim.dropout(wave)
    if out.storage != wave.storage:
        sim.release(wave)
    return out


def shift_embeds(sim: Sim, c: Mapping[str, Any], n: int) -> dict[tuple[int, int], T]:
    """``get_position_embeds`` for the relative_shift attention: a table of 4L sinusoids (dropped as it returns)
    and, per block, the rows ``torch.gather`` takes from it (with pooling and without), each index an arange plus
    2L (the previous index dropped when ``rel_pos`` is rebound)."""
    d = c["d_model"]
    half = d // 2
    named = list(inv_freq(sim, half))
    ar = sim.fresh((4 * n,), "aten.arange", INDEX_BYTES)
    named.append(sim.fresh((4 * n,), "aten._to_copy"))  # rel_pos_id
    sim.release(ar)
    named.append(sim.fresh((4 * n, half), "aten.mul"))  # sinusoid
    named.append(sinusoid_dropped(sim, (4 * n, half), "aten.sin"))
    named.append(sinusoid_dropped(sim, (4 * n, half), "aten.cos"))
    named.append(sim.fresh((4 * n, 2 * half), "aten.cat"))  # pos_embed
    out: dict[tuple[int, int], T] = {}
    index: list[T] = []

    def gather(rows: int) -> T:
        ar = sim.fresh((rows,), "aten.arange", INDEX_BYTES)
        sim.release(*index)  # rel_pos rebound
        index[:] = [sim.fresh((rows, 1), "aten.add", INDEX_BYTES)]
        sim.release(ar)
        return sim.fresh((rows, d), "aten.gather")

    pos = list(range(n))
    for block in range(len(c["block_sizes"])):
        pooled = pos
        if block > 0:
            pooled = [-(2 ** block) + 1] + pos[1:-1][::2]
            out[(block, 2)] = gather(_rel_len(n, block, pos, 2 ** (block - 1), pooled, shift=2))
        pos = pooled
        out[(block, 1)] = gather(_rel_len(n, block, pos, 2 ** block))
    sim.release(*named, *index)  # the function's locals, as it returns
    return out


def factorized_embeds(sim: Sim, c: Mapping[str, Any], n: int) -> tuple[T, T, T, T]:
    """``get_position_embeds`` for the factorized attention: positions and frequencies, their sinusoids (the
    dropped-out copies in training), and phi, psi, pi, omega concatenated in that order (omega's ``-sin`` a
    temporary)."""
    half = c["d_model"] // 2
    mark = sim.scope()
    ar = sim.fresh((n,), "aten.arange", INDEX_BYTES)
    sim.fresh((n,), "aten._to_copy")  # pos_seq
    sim.release(ar)
    inv_freq(sim, half)
    sim.fresh((n, half), "aten.mul")  # sinusoid
    sin = sim.fresh((n, half), "aten.sin")
    sim.dropout(sin)  # sin_embed_d (sin_embed itself in eval)
    cos = sim.fresh((n, half), "aten.cos")
    sim.dropout(cos)
    phi = sim.fresh((n, 2 * half), "aten.cat")
    psi = sim.fresh((n, 2 * half), "aten.cat")
    pi = sim.fresh((n, 2 * half), "aten.cat")
    negated = sim.fresh((n, half), "aten.neg")
    omega = sim.fresh((n, 2 * half), "aten.cat")
    sim.release(negated)
    sim.end_scope(mark, phi, pi, psi, omega)
    return phi, pi, psi, omega


def token_type_mat(sim: Sim, b: int, n: int) -> T:
    """``token_type_ids_to_mat``: two comparisons and two ors (bool), the last returned."""
    mark = sim.scope()
    sim.fresh((b, n, n), "aten.eq", 1)
    sim.fresh((b, n), "aten.eq", 1)
    sim.fresh((b, n, n), "aten.bitwise_or", 1)
    return sim.end_scope(mark, sim.fresh((b, n, n), "aten.bitwise_or", 1))


def cls_mask(sim: Sim, n: int) -> T:
    """``pad(new_ones([L − 1, L − 1]), (1, 0, 1, 0))`` in the model's dtype (the ones a temporary)."""
    ones = sim.fresh((n - 1, n - 1), "aten.new_ones")
    out = sim.fresh((n, n), "aten.constant_pad_nd")
    sim.release(ones)
    return out


def stride_pool(sim: Sim, t: T, axis: int) -> T:
    """``stride_pool`` (separate_cls, truncate_seq): ``cat`` the first slice before the tensor, take every other
    one but the last (a view)."""
    shape = list(t.shape)
    shape[axis] += 1
    joined = sim.fresh(tuple(shape), "aten.cat", t.itemsize)
    return sim.narrow(joined, axis, shape[axis] // 2, 2)


def min_pool(sim: Sim, mask: T) -> T:
    """``pool_tensor(attention_mask, mode="min")``: ``cat`` the first column before all but the last, then
    ``-max_pool2d(-x)`` (its indices dropped at once, each negation a temporary)."""
    b, n = mask.shape
    rows = (n + 1) // 2
    mark = sim.scope()
    sim.fresh((b, n), "aten.cat", mask.itemsize)
    negated = sim.fresh((b, n), "aten.neg", mask.itemsize)
    pooled = sim.fresh((b, 1, rows, 1), "aten.max_pool2d_with_indices", mask.itemsize)
    sim.release(sim.fresh((b, 1, rows, 1), "aten.max_pool2d_with_indices", INDEX_BYTES), negated)
    out = sim.fresh((b, 1, rows, 1), "aten.neg", mask.itemsize)
    sim.release(pooled)
    return sim.view(sim.end_scope(mark, out), (b, rows))


def scaled(sim: Sim, name: str) -> T:
    """``self.r_*_bias * self.scale``: a new [N, D_h] tensor."""
    return sim.scalar(sim.parameter(name, sim.shapes[name]))


def einsum(sim: Sim, spec: str, a: T, b: T) -> T:
    """``torch.einsum`` of two operands: its copies dropped as it returns (unless ``bmm`` keeps them)."""
    mark = sim.scope()
    return sim.end_scope(mark, sim.einsum(spec, a, b))


def step_attention(sim: Sim, c: Mapping[str, Any], a: str, query: T, kv: T, block: int, inputs: Inputs) -> T:
    """``FunnelRelMultiheadAttention``: content, positional and token-type scores by einsum, each name dropped where
    the module's Python drops it (``q_head`` rebound by its scaling, the sums' temporaries, ``attn_score`` rebound by
    ``.float()`` and the mask's subtraction; every local at its return)."""
    b, i, _ = query.shape
    j = kv.shape[1]
    n, h = c["n_head"], c["d_head"]
    mark = sim.scope()
    q = sim.view(sim.linear(a + "q_head", query), (b, i, n, h))
    k = sim.view(sim.linear(a + "k_head", kv), (b, j, n, h))
    v = sim.view(sim.linear(a + "v_head", kv), (b, j, n, h))
    q = sim.rebind(q, sim.scalar(q))  # q_head * self.scale
    biased = sim.add(q, scaled(sim, a + "r_w_bias"))
    content = einsum(sim, "bind,bjnd->bnij", biased, k)
    sim.release(biased)
    if inputs.factorized:
        positional = step_factorized(sim, a, q, inputs)
    else:
        positional = step_relative_shift(sim, a, q, j, block, inputs)
    token_type = step_token_type(sim, a, q, inputs)
    partial = sim.add(content, positional)
    score = sim.add(partial, token_type)
    sim.release(partial)
    if score.itemsize != 4:  # attn_score.float()
        score = sim.rebind(score, sim.cast(score, 4))
    mask = sim.view(inputs.mask, (b, 1, 1, j))
    floated = sim.cast(mask, 4) if mask.itemsize != 4 else None  # attention_mask[:, None, None].float()
    complement = sim.fresh((b, 1, 1, j), "aten.rsub", 4)
    if floated is not None:
        sim.release(floated)
    product = sim.fresh((b, 1, 1, j), "aten.mul", 4)  # INF * (1 − mask)
    sim.release(complement)
    score = sim.rebind(score, sim.minus_mask(score, product))
    sim.release(product)
    dtype = content.itemsize
    low = sim.cast(score, dtype) if dtype != 4 else score  # softmax(..., dtype=dtype) casts first
    probs = sim.softmax(low)
    if low is not score:
        sim.release(low)
    probs = sim.rebind(probs, sim.dropout(probs))
    vec = einsum(sim, "bnij,bjnd->bind", probs, v)
    flat = sim.reshape(vec, (b, i, n * h))
    out = sim.linear_strided(a + "post_proj", flat)  # a view when d_head = 1: at::linear's matmul path
    if flat.storage != vec.storage:  # a copy (the view when d_head = 1 is attn_vec itself, named to the end)
        sim.release(flat)
    out = sim.rebind(out, sim.dropout(out))
    total = sim.add(query, out)
    normed = sim.layer_norm(a + "layer_norm", total)
    sim.release(total)
    return sim.end_scope(mark, normed)


def step_factorized(sim: Sim, a: str, q: T, inputs: Inputs) -> T:
    """The factorized positional scores: (q + r_r_bias·scale) · r_kernel (binh,dnh->bind), times phi and pi (each
    product keeps the sinusoids), against psi and omega (bind,jd->bnij, twice), summed; ``*= cls_mask``."""
    mark = sim.scope()
    biased = sim.add(q, scaled(sim, a + "r_r_bias"))
    q_r = einsum(sim, "binh,dnh->bind", biased, sim.parameter(a + "r_kernel", sim.shapes[a + "r_kernel"]))
    sim.release(biased)
    first = sim.times_table(q_r, inputs.phi)  # q_r_attention * phi[:, None]
    second = sim.times_table(q_r, inputs.pi)
    one = einsum(sim, "bind,jd->bnij", first, inputs.psi)
    two = einsum(sim, "bind,jd->bnij", second, inputs.omega)
    positional = sim.add(one, two)
    sim.release(one, two)
    return sim.end_scope(mark, sim.keep_other(positional, inputs.cls))


def step_relative_shift(sim: Sim, a: str, q: T, j: int, block: int, inputs: Inputs) -> T:
    """The relative_shift positional scores: q + r_r_bias·scale against r · r_kernel, then shifted by reshapes and
    slices (views); ``*= cls_mask`` in place."""
    b, i, n, _ = q.shape
    shift = 2 if i != j else 1
    r = inputs.r[(block, shift)]
    rows = r.shape[0]
    mark = sim.scope()
    bias = scaled(sim, a + "r_r_bias")
    r_head = einsum(sim, "td,dnh->tnh", r, sim.parameter(a + "r_kernel", sim.shapes[a + "r_kernel"]))
    biased = sim.add(q, bias)
    positional = einsum(sim, "binh,tnh->bnit", biased, r_head)
    sim.release(biased)
    positional = sim.slice_dim(sim.reshape(positional, (b, n, rows, i)), 2, rows - shift)
    positional = sim.reshape(positional, (b, n, i, rows - shift))
    if rows - shift < j:  # ``positional_attn *= cls_mask`` cannot broadcast in place: PyTorch fails
        raise CalcError("costs_funnel_short", value=inputs.length, block=block)
    positional = sim.slice_dim(positional, 3, j)
    return sim.end_scope(mark, sim.keep_other(positional, inputs.cls))


def step_token_type(sim: Sim, a: str, q: T, inputs: Inputs) -> T:
    """``relative_token_type_attention``: (q + r_s_bias·scale) against seg_embed (bind,snd->bnis), then ``where``
    over the token-type matrix between the two columns (expanded views); ``*= cls_mask`` in place."""
    b, i, n, _ = q.shape
    j = inputs.types.shape[2]
    mark = sim.scope()
    biased = sim.add(q, scaled(sim, a + "r_s_bias"))
    bias = einsum(sim, "bind,snd->bnis", biased, sim.parameter(a + "seg_embed", sim.shapes[a + "seg_embed"]))
    sim.release(biased)
    condition = sim.expand(sim.view(inputs.types, (b, 1, i, j)), (b, n, i, j))
    attn = sim.split_where(condition, bias, (b, n, i, j))
    return sim.end_scope(mark, sim.keep_other(attn, inputs.cls))


def step_ffn(sim: Sim, p: str, x: T) -> T:
    """``FunnelPositionwiseFFN``: linear_1, gelu_new (rebinding h), the activation dropout (p = 0: h itself),
    linear_2, dropout, the residual LayerNorm (the sum a temporary)."""
    mark = sim.scope()
    h = sim.linear(p + "linear_1", x)
    h = sim.rebind(h, sim.gelu_tanh(h))
    h = sim.rebind(h, sim.linear(p + "linear_2", h))
    h = sim.rebind(h, sim.dropout(h))
    total = sim.add(x, h)
    out = sim.layer_norm(p + "layer_norm", total)
    sim.release(total)
    return sim.end_scope(mark, out)


def step_layer(sim: Sim, c: Mapping[str, Any], p: str, query: T, kv: T, block: int, inputs: Inputs) -> T:
    """``FunnelLayer``: the attention (its output held by the layer until it returns), then the FFN."""
    mark = sim.scope()
    x = step_attention(sim, c, p + "attention.", query, kv, block, inputs)
    return sim.end_scope(mark, step_ffn(sim, p + "ffn.", x))


def step_pool(sim: Sim, x: T, mode: str) -> T:
    """``pool_tensor`` (separate_cls, truncate_seq): cat the first token before all but the last (dropped as it
    returns unless the pooling keeps it), pool pairs, ``[:, 0]``."""
    b, n, d = x.shape
    mark = sim.scope()
    suffix = sim.slice_dim(x, 1, n - 1)  # tensor[:, :-1] first, then tensor[:, :1] (the order of their nodes)
    joined = sim.concat([sim.slice_dim(x, 1, 1), suffix], 1)
    pooled = sim.pool_pairs(sim.view(joined, (b, 1, n, d)), mode)
    return sim.select(sim.end_scope(mark, pooled), 1)


def step_encoder(sim: Sim, c: Mapping[str, Any], prefix: str, x: T, mask: T, keep: bool) -> tuple[T, list[T]]:
    """``FunnelEncoder``: the mask ``type_as`` the embeddings, the attention inputs, then the blocks, pooling the
    query before each block after the first (when L > 2). ``keep``: every hidden state is held
    (``output_hidden_states``, FunnelModel's), else a layer's input is dropped when the next layer rebinds
    ``query``/``key``/``value``, the pooled states when the next pooling rebinds them."""
    b, n, _ = x.shape
    mark = sim.scope()
    if mask.itemsize != x.itemsize:
        mask = sim.cast(mask, x.itemsize)
    inputs = Inputs(sim, c, b, n, mask)
    hidden, states = x, [x]
    held: T | None = None  # query / key / value of the last layer run (the hidden states it read)
    pooled: T | None = None
    repeats = c["block_repeats"] or [1] * len(c["block_sizes"])
    for block, size in enumerate(c["block_sizes"]):
        pooling = hidden.shape[1] > 2 and block > 0
        if pooling:
            previous, pooled = pooled, inputs.pool_rows(sim, hidden, c["pooling_type"])
            if previous is not None:  # pooled_hidden rebound as pre_attention_pooling returns
                sim.release(previous)
        for j in range(size):
            for r in range(repeats[block]):
                first = pooling and j == 0 and r == 0
                if held is not None and not keep and held.storage != x.storage:
                    sim.release(held)
                held = hidden
                query = pooled if first and pooled is not None else hidden
                hidden = step_layer(sim, c, f"{prefix}encoder.blocks.{block}.{j}.", query, hidden, block, inputs)
                if first:
                    inputs.pool_columns(sim)
                states.append(hidden)
    sim.end_scope(mark, hidden, *(states if keep else ()))
    return hidden, states


def upsample(sim: Sim, x: T, stride: int, target: int) -> T:
    """``upsample`` (separate_cls, truncate_seq): all but the first token repeated ``stride`` times
    (``repeat_interleave``), padded by stride − 1 rows, cut to L − 1, the first token concatenated before."""
    b, m, d = x.shape
    mark = sim.scope()
    cls = sim.slice_dim(x, 1, 1)  # x[:, :1] first, then x[:, 1:] (the order of their nodes)
    rest = sim.slice_dim(x, 1, m - 1)
    repeated = sim.repeat_rows(rest, stride)
    padded = sim.pad_end(repeated, (b, (m - 1) * stride + stride - 1, d))
    sim.release(repeated)
    out = sim.concat([cls, sim.slice_dim(padded, 1, target - 1)], 1)
    sim.release(padded)
    return sim.end_scope(mark, out)


def step_decoder(sim: Sim, c: Mapping[str, Any], prefix: str, final: T, first_block: T, mask: T) -> T:
    """``FunnelDecoder``: upsample (held until it returns), add the first block's output, its own attention inputs
    (the float32 mask as the model made it), its layers (each rebinding ``hidden``)."""
    b, n, d = first_block.shape
    mark = sim.scope()
    stride = 2 ** (len(c["block_sizes"]) - 1)
    up = final if stride == 1 else upsample(sim, final, stride, n)
    hidden = sim.add(up, first_block)
    inputs = Inputs(sim, c, b, n, mask)
    for j in range(c["num_decoder_layers"]):
        hidden = sim.rebind(hidden, step_layer(sim, c, f"{prefix}decoder.layers.{j}.", hidden, hidden, 0, inputs))
    return sim.end_scope(mark, hidden)


def step_embeddings(sim: Sim, prefix: str, ids: T) -> T:
    """``FunnelEmbeddings``: the word table, its LayerNorm (the lookup named until it returns), dropout."""
    mark = sim.scope()
    x = sim.embedding(prefix + "embeddings.word_embeddings", ids, first=True)
    y = sim.layer_norm(prefix + "embeddings.layer_norm", x)
    y = sim.rebind(y, sim.dropout(y))
    return sim.end_scope(mark, y)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """Funnel's classes: the outputs each returns, every name dropped where ``modeling_funnel.py`` drops it. The
    model makes ``attention_mask = torch.ones(B, L)`` (float32) and ``token_type_ids = torch.zeros(B, L)`` (int64),
    named until it returns; FunnelModel asks the encoder for every hidden state (held until it returns)."""
    c = inv.config
    prefix = bert.step_prefix(inv)
    full = inv.architecture in FULL
    sim.exact_lifetimes()  # every release declared below, every node of the backward modelled (issue 32)
    sim.exact_forward()
    sim.exact_autocast()
    model = sim.scope()
    ids = sim.ids((b, n))
    mask = sim.fresh((b, n), "aten.ones", 4)
    sim.fresh((b, n), "aten.zeros", INDEX_BYTES)  # token_type_ids
    x = step_embeddings(sim, prefix, ids)
    hidden, states = step_encoder(sim, c, prefix, x, mask, full)
    if full:
        hidden = step_decoder(sim, c, prefix, hidden, states[c["block_sizes"][0]], mask)
    sim.end_scope(model, hidden)
    kind = bert.step_task(inv)
    if kind == "":
        return [hidden]
    if kind == "ForPreTraining":
        mark = sim.scope()
        y = sim.linear("discriminator_predictions.dense", hidden)
        y = sim.rebind(y, sim.gelu_tanh(y))
        logits = sim.end_scope(mark, sim.linear("discriminator_predictions.dense_prediction", y))
        return [sim.view(logits, (b, n))]  # .squeeze(-1)
    if kind == "ForMaskedLM":
        return [sim.linear("lm_head", hidden)]
    if kind == "ForSequenceClassification":
        mark = sim.scope()
        y = sim.linear("classifier.linear_hidden", sim.select(hidden, 1))
        y = sim.rebind(y, sim.keep_output(y))  # tanh
        y = sim.rebind(y, sim.dropout(y))
        return [sim.end_scope(mark, sim.linear("classifier.linear_out", y))]
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
COSTS = CostModel(step_program, None, check=step_check, checkpointing=False, autocast=True, keys=unread((activation_key("gelu_new"), *dropouts("hidden_dropout", "attention_dropout"), *dropouts("activation_dropout", default=0.0))), buffers=no_buffers)


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
