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
from ..errors import CalcError
from ..formula import Formula, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Extra, Family, Preset
from .common import EMBEDDING, HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, TOKEN_TYPES, VOCAB, L

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


def attention_sizes(c: dict[str, Any]) -> tuple[int, int]:
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
        raise CalcError("heads_not_divisor", hidden_key="hidden_size", hidden=c["hidden_size"],
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
        Architecture(name="ConvBertModel", prefix="", pooler=False),
        Architecture(name="ConvBertForMaskedLM", prefix="convbert.", pooler=False, head=mlm_head,
                     ties_embeddings=True),
        Architecture(name="ConvBertForSequenceClassification", prefix="convbert.", pooler=False,
                     head=classification_head, uses_num_labels=True),
        Architecture(name="ConvBertForMultipleChoice", prefix="convbert.", pooler=False,
                     head=multiple_choice_head),
        Architecture(name="ConvBertForTokenClassification", prefix="convbert.", pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="ConvBertForQuestionAnswering", prefix="convbert.", pooler=False,
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
)
