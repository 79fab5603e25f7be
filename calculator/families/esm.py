"""ESM (``modeling_esm.py``): Meta's protein language models, ESM-2 above all.

What differs from BERT, tensor by tensor:

* **One token table, no token types.** ``position_embedding_type`` decides the
  positions: ``"absolute"`` (ESM-1b) adds a learned table of
  ``max_position_embeddings`` rows; ``"rotary"`` (every ESM-2) adds none, and
  ``rotary_embeddings.inv_freq`` instead: a *persistent buffer* of ⌈(H / A) / 2⌉
  frequencies, so it is in ``state_dict`` (and the saved file) but not in
  ``parameters()``. ``emb_layer_norm_before`` (False in ESM-2) adds a LayerNorm
  after the table.
* **Pre-LN layers**: ``attention.LayerNorm`` before attention and the layer's
  ``LayerNorm`` before the feed-forward (registered after the modules they
  precede); the attention output has none of its own; the encoder ends with
  ``emb_layer_norm_after``.
* **The contact-prediction head is part of the backbone**: ``EsmModel`` always
  builds ``contact_head.regression``, a Linear from the L·A attention maps to one
  logit (L·A + 1 parameters), so every class carries it (``esm.contact_head``).
* Token dropout (``token_dropout``) rescales embeddings in ``forward``: no tensor.
* ``save_pretrained`` writes the original checkpoints' names (transformers reverts
  its ESM conversion mapping on save: ``LayerNorm.gamma``/``beta``, the rotary
  buffer under ``encoder.layer.*.attention.self``); the calculator lists the
  ``state_dict`` names, as for every family.
* The masked-LM decoder has no bias of its own (``bias=False``); the head's
  ``bias`` Parameter is added in ``forward``, so only the weight is tied.

``EsmConfig`` has no vocabulary default (``None``: transformers refuses to build
without one); the form starts from ESM-2's 33-token alphabet instead.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from ..config import Field
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Family, Preset
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, VOCAB, L, heads_divide

FIELDS = (
    replace(
        VOCAB, default=33,
        label=L("Vocabulary size (V; ESM-2's alphabet is 33 tokens)", "词表大小（V；ESM-2 的字母表为 33 个 token）"),
        sample=(1, 64),
    ),
    Field(
        "pad_token_id", None, minimum=0, optional=True,
        label=L("Padding token id (pad_token_id; that row must exist)", "填充符的 token id（pad_token_id；该行必须存在）"),
    ),
    HIDDEN,
    LAYERS,
    HEADS,
    INTERMEDIATE,
    Field(
        "position_embedding_type", "absolute", kind="choice", choices=("absolute", "rotary"),
        label=L("Positions (position_embedding_type: a learned table, or rotary with none)",
                "位置编码（position_embedding_type：可学习的位置表，或不占参数的旋转编码）"),
        sample=(0, 1),
    ),
    replace(
        POSITIONS, default=1026,
        label=L("Positions (P; a table only when absolute)", "最大位置数（P；仅 absolute 时有位置表）"),
    ),
    Field(
        "emb_layer_norm_before", False, kind="bool",
        label=L("LayerNorm right after the embeddings (emb_layer_norm_before)",
                "嵌入之后立即做层归一化（emb_layer_norm_before）"),
        sample=(0, 1),
    ),
    LABELS,
    TIE,
)


def check_padding(c: dict[str, Any]) -> None:
    """The learned position table (absolute only) takes ``padding_idx = pad_token_id`` too."""
    pad = c["pad_token_id"]
    if pad is not None and c["position_embedding_type"] == "absolute" and c["max_position_embeddings"] <= pad:
        raise CalcError(
            "padding_idx", key="max_position_embeddings", value=c["max_position_embeddings"], pad=pad,
            pad_key="pad_token_id",
        )


def encoder_layer(t: TensorList, prefix: str, i: int, h: int, inter: int) -> None:
    """One ``EsmLayer``: Q, K, V, output; the pre-attention norm; the feed-forward pair; the pre-FFN norm."""
    p = f"{prefix}encoder.layer.{i}."
    for proj in ("query", "key", "value"):
        t.linear(p + "attention.self." + proj, h, h, "attention_qkv", i)
    t.linear(p + "attention.output.dense", h, h, "attention_output", i)
    t.layer_norm(p + "attention.LayerNorm", h, layer=i)
    t.linear(p + "intermediate.dense", inter, h, "feed_forward", i)
    t.linear(p + "output.dense", h, inter, "feed_forward", i)
    t.layer_norm(p + "LayerNorm", h, layer=i)


def rotary_frequencies(c: dict[str, Any]) -> int:
    """``inv_freq``: one frequency per pair of a head's dimensions (``arange(0, head_dim, 2)``)."""
    head = c["hidden_size"] // c["num_attention_heads"]
    return (head + 1) // 2


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, n, a = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"]
    t.embedding(prefix + "embeddings.word_embeddings", c["vocab_size"], h, "embeddings")
    if c["emb_layer_norm_before"]:
        t.layer_norm(prefix + "embeddings.layer_norm", h, group="embeddings")
    if c["position_embedding_type"] == "absolute":
        t.embedding(prefix + "embeddings.position_embeddings", c["max_position_embeddings"], h, "embeddings")
    else:
        t.buffer(prefix + "rotary_embeddings.inv_freq", (rotary_frequencies(c),), "relative_position")
    for i in range(n):
        encoder_layer(t, prefix, i, h, c["intermediate_size"])
    t.layer_norm(prefix + "encoder.emb_layer_norm_after", h, section="encoder")
    if with_pooler:
        bert.pooler(t, c, prefix)
    # EsmModel always builds the contact head: attention maps of every layer and head → one logit.
    t.linear(prefix + "contact_head.regression", 1, n * a, "head")


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``EsmLMHead``: its vocabulary bias, dense, LayerNorm, and a decoder without bias tied to the token table."""
    h, v = c["hidden_size"], c["vocab_size"]
    t.add("lm_head.bias", (v,), "head")
    t.linear("lm_head.dense", h, h, "head")
    t.layer_norm("lm_head.layer_norm", h, group="head")
    owner = prefix + "embeddings.word_embeddings.weight"
    t.add("lm_head.decoder.weight", (v, h), "head", shares=owner if c["tie_word_embeddings"] else None, module="linear")


def classification_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h = c["hidden_size"]
    t.linear("classifier.dense", h, h, "head")
    t.linear("classifier.out_proj", c["num_labels"], h, "head")


# ------------------------------------------------------------------ formula


def formula(inv: Inventory) -> Formula:
    """V·H (+ P·H when absolute, + 2H with the early norm); BERT's layer terms; the final norm; the contact head."""
    c = inv.config
    v, h, p, n, a, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["num_hidden_layers"],
        c["num_attention_heads"], c["intermediate_size"],
    )
    absolute, early = c["position_embedding_type"] == "absolute", c["emb_layer_norm_before"]
    sym, sub, val = ["V·H"], [f"{v}·{h}"], v * h
    if absolute:
        sym.append("P·H")
        sub.append(f"{p}·{h}")
        val += p * h
    if early:
        sym.append("2H")
        sub.append(f"2·{h}")
        val += 2 * h
    lines = [FormulaLine("embeddings", " + ".join(sym), " + ".join(sub), val)]
    if not absolute:
        lines.append(FormulaLine("rotary_no_table", "0", "0", 0))
    lines += layers_lines(*bert.layer_terms(h, i), n)
    lines.append(FormulaLine("final_layer_norm", "2H", f"2·{h}", 2 * h))
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    lines.append(FormulaLine("contact_head", "L·A + 1", f"{n}·{a} + 1", n * a + 1))
    others = [t for t in inv.charged if t.group == "head" and "contact_head." not in t.name]
    return Formula({"V": v, "P": p, "H": h, "A": a, "I": i, "L": n}, tuple(lines + head_line(inv, others)))


LABELS_ = {
    "rotary_no_table": L(
        "Rotary positions: no table (rotary_embeddings.inv_freq is a buffer, in state_dict only)",
        "旋转位置编码：没有位置表（rotary_embeddings.inv_freq 是缓冲区，只出现在 state_dict 中）",
    ),
    "final_layer_norm": L(
        "Final LayerNorm (encoder.emb_layer_norm_after)", "编码器末尾的层归一化（encoder.emb_layer_norm_after）",
    ),
    "contact_head": L(
        "Contact-prediction head (contact_head.regression: one weight per layer × head, one bias)",
        "接触图预测头（contact_head.regression：每层每个注意力头一个权重，外加一个偏置）",
    ),
}


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads divide H; a vocabulary always (transformers has no default); now and then a padding row."""
    heads_divide()(rng, config)
    config.setdefault("vocab_size", rng.randint(1, 64))
    roll = rng.random()
    if roll < 0.4:
        config["pad_token_id"] = rng.randrange(config["vocab_size"] + 1)  # == vocab: refused on both sides
    if rng.random() < 0.1:
        config["max_position_embeddings"] = rng.randint(1, 3)  # below the padding row: refused only if absolute


def esm2_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """An ESM-2 config.json's size-relevant keys: 33 tokens, rotary, no early LayerNorm, 4H feed-forward."""
    return {
        "model_type": "esm",
        "vocab_size": 33,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": 1026,
        "position_embedding_type": "rotary",
        "emb_layer_norm_before": False,
        "token_dropout": True,
        "pad_token_id": 1,
        "mask_token_id": 32,
    }


FAMILY = Family(
    model_type="esm",
    base="EsmModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    checks=(check_padding,),
    pad_token_id=None,
    architectures=(
        Architecture(name="EsmModel", prefix="", pooler=None),
        Architecture(name="EsmForMaskedLM", prefix="esm.", pooler=False, head=mlm_head, ties_embeddings=True),
        Architecture(
            name="EsmForSequenceClassification", prefix="esm.", pooler=False, head=classification_head,
            uses_num_labels=True,
        ),
        Architecture(
            name="EsmForTokenClassification", prefix="esm.", pooler=False,
            head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
        ),
    ),
    title={"en": "ESM-2", "zh": "ESM-2"},
    formula=formula,
    # Sizes (width, depth, heads) as the ESM-2 paper's table and the checkpoints' names give
    # them; the other keys as every ESM-2 config.json has them (seen in copies of the
    # t6_8M and t36_3B files). Class: EsmForMaskedLM, as published.
    presets=(
        Preset("facebook/esm2_t6_8M_UR50D", esm2_config(320, 6, 20), "EsmForMaskedLM"),
        Preset("facebook/esm2_t12_35M_UR50D", esm2_config(480, 12, 20), "EsmForMaskedLM"),
        Preset("facebook/esm2_t30_150M_UR50D", esm2_config(640, 30, 20), "EsmForMaskedLM"),
        Preset("facebook/esm2_t33_650M_UR50D", esm2_config(1280, 33, 20), "EsmForMaskedLM"),
        Preset("facebook/esm2_t36_3B_UR50D", esm2_config(2560, 36, 40), "EsmForMaskedLM"),
    ),
    sample=sample,
    rank=80,
    labels=LABELS_,
)
