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
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..i18n import pick
from ..model import Inventory, TensorList
from .base import Architecture, Family, Preset
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
    return c


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
        Architecture(name="FunnelModel", prefix="", pooler=False, head=with_decoder()),
        Architecture(name="FunnelBaseModel", prefix="", pooler=False),
        Architecture(name="FunnelForPreTraining", prefix="funnel.", pooler=False, head=with_decoder(discriminator)),
        Architecture(name="FunnelForMaskedLM", prefix="funnel.", pooler=False, head=with_decoder(lm_head),
                     ties_embeddings=True),
        Architecture(name="FunnelForSequenceClassification", prefix="funnel.", pooler=False,
                     head=classifier("num_labels"), uses_num_labels=True),
        Architecture(name="FunnelForMultipleChoice", prefix="funnel.", pooler=False, head=classifier(1)),
        Architecture(name="FunnelForTokenClassification", prefix="funnel.", pooler=False,
                     head=with_decoder(linear("classifier", "num_labels")), uses_num_labels=True),
        Architecture(name="FunnelForQuestionAnswering", prefix="funnel.", pooler=False,
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
    rank=68,
    labels=LABELS_,
)
