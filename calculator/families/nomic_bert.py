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
from typing import Any, Mapping

from ..config import Field, read_fields
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Family, Preset
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
    architectures=(
        # add_pooling_layer defaults to False: the calculator counts the class as AutoModel builds it
        Architecture(name="NomicBertModel", prefix="", pooler=False),
        Architecture(
            name="NomicBertForMaskedLM", prefix="nomic_bert.", pooler=False, head=mlm_head, ties_embeddings=True,
        ),
        Architecture(
            name="NomicBertForSequenceClassification", prefix="nomic_bert.", pooler=True,
            head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
        ),
        Architecture(
            name="NomicBertForTokenClassification", prefix="nomic_bert.", pooler=False,
            head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
        ),
    ),
    title={"en": "Nomic BERT", "zh": "Nomic BERT"},
    formula=formula,
    presets=(
        Preset("nomic-ai/nomic-embed-text-v1.5", nomic_config(), "NomicBertModel"),
        Preset("nomic-ai/nomic-embed-text-v1", nomic_config(), "NomicBertModel"),
    ),
    sample=sample,
    rank=57,
)
