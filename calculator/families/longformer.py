"""Longformer (``modeling_longformer.py``): RoBERTa with a second set of Q, K, V for global attention.

* Embeddings and heads are RoBERTa's: ``position_embeddings`` is registered after
  the LayerNorm (so it comes last), and it takes ``padding_idx = pad_token_id``
  (default 1), so the padding row must exist in both the token and position tables.
* Every layer's ``LongformerSelfAttention`` has ``query``, ``key``, ``value`` for
  the sliding-window attention **and** ``query_global``, ``key_global``,
  ``value_global`` (each [H, H] with a bias) for the tokens given global
  attention: 3H² + 3H more per layer than BERT's layer. This is the only
  difference in the count.
* ``attention_window`` (512, or one value per layer) sizes the window, not a
  tensor; transformers asserts that it is even and positive, and that a list has
  one value per layer, so the calculator refuses the same configs.
* Every task class builds the backbone without its pooler, except multiple choice.
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from ..config import read_fields
from ..errors import CalcError
from ..formula import Formula, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, roberta
from .base import Architecture, Family, Preset
from .common import BERT_FIELDS, heads_divide

FIELDS = BERT_FIELDS

#: ``LongformerConfig.attention_window``.
ATTENTION_WINDOW = 512


def _window_ok(value: Any) -> bool:
    """One window size as transformers accepts it: an int (not a bool), even, positive."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0 and value % 2 == 0


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and ``attention_window``, which shapes no tensor but can make the model refuse to build.

    ``LongformerModel`` asserts an int window is even and positive, and that a list has
    one even, positive int per layer; the config's type check refuses anything else
    (a float, a string, null).
    """
    values = read_fields(FIELDS, raw, {})
    window = raw.get("attention_window", ATTENTION_WINDOW)
    if isinstance(window, list):
        good = len(window) == values["num_hidden_layers"] and all(_window_ok(w) for w in window)
    else:
        good = _window_ok(window)
    if not good:
        raise CalcError("bad_value", key="attention_window", value=window)
    return values


def encoder(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``LongformerLayer``: BERT's layer, with the three global projections after the local ones."""
    h, inter = c["hidden_size"], c["intermediate_size"]
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}encoder.layer.{i}."
        for proj in ("query", "key", "value", "query_global", "key_global", "value_global"):
            t.linear(p + "attention.self." + proj, h, h, "attention_qkv", i)
        t.linear(p + "attention.output.dense", h, h, "attention_output", i)
        t.layer_norm(p + "attention.output.LayerNorm", h, layer=i)
        t.linear(p + "intermediate.dense", inter, h, "feed_forward", i)
        t.linear(p + "output.dense", h, inter, "feed_forward", i)
        t.layer_norm(p + "output.LayerNorm", h, layer=i)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    encoder(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


def layer_terms(h: int, i: int) -> tuple[str, str, int]:
    """BERT's layer, plus 3H² + 3H for query_global, key_global and value_global (each [H, H] with a bias)."""
    symbolic = "4H² + 4H + 3H² + 3H + 2HI + I + H + 4H"
    substituted = f"4·{h}² + 4·{h} + 3·{h}² + 3·{h} + 2·{h}·{i} + {i} + {h} + 4·{h}"
    return symbolic, substituted, 7 * h * h + 7 * h + 2 * h * i + i + h + 4 * h


def formula(inv: Inventory) -> Formula:
    """RoBERTa's count, each layer with 3H² + 3H more for the global-attention projections."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    lines = [bert.embeddings_line(v, p, t, h), *layers_lines(*layer_terms(h, i), n)]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Valid heads; now and then a window per layer, and now and then one transformers refuses."""
    heads_divide()(rng, config)
    roll = rng.random()
    layers = config.get("num_hidden_layers", 12)
    if roll < 0.2:
        config["attention_window"] = [2 * rng.randint(1, 8) for _ in range(layers)]
    elif roll < 0.3:
        config["attention_window"] = 2 * rng.randint(1, 300)
    elif roll < 0.35:
        config["attention_window"] = rng.choice([3, 0, [2] * (layers + 1)])  # refused on both sides


def longformer_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """A published Longformer config.json's size-relevant keys (RoBERTa's vocabulary, 4096 + 2 positions)."""
    return {
        "model_type": "longformer",
        "vocab_size": 50265,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": 4098,
        "type_vocab_size": 1,
        "pad_token_id": 1,
        # attention_window ([512] × L as published) shapes no tensor and is left out: kept, it would make
        # the form's answer fail as soon as the layer count is changed
    }


FAMILY = Family(
    model_type="longformer",
    base="LongformerModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    pad_token_id=1,
    positions_padded=True,
    read=read,
    architectures=(
        Architecture(name="LongformerModel", prefix="", pooler=None),
        Architecture(
            name="LongformerForMaskedLM", prefix="longformer.", pooler=False, head=roberta.lm_head,
            ties_embeddings=True,
        ),
        Architecture(
            name="LongformerForSequenceClassification", prefix="longformer.", pooler=False,
            head=roberta.classification_head, uses_num_labels=True,
        ),
        Architecture(
            name="LongformerForMultipleChoice", prefix="longformer.", pooler=True,
            head=bert.linear_head("classifier", 1),
        ),
        Architecture(
            name="LongformerForTokenClassification", prefix="longformer.", pooler=False,
            head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
        ),
        Architecture(
            name="LongformerForQuestionAnswering", prefix="longformer.", pooler=False,
            head=bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True,
        ),
    ),
    title={"en": "Longformer", "zh": "Longformer"},
    formula=formula,
    # allenai/longformer-base-4096's config.json lists no architectures: it loads as LongformerModel.
    presets=(Preset("allenai/longformer-base-4096", longformer_config(768, 12, 12), "LongformerModel"),),
    sample=sample,
    rank=25,
)
