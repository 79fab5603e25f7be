"""The wrong derivations of BERT's parameter count that circulate, each computed for any BERT config.

Every function evaluates one posted derivation as its author wrote it, for the
given config, and sets it against the right number, which is always the
``total`` of the BertModel (with pooler) :class:`~calculator.model.Inventory`:
the figure papers round to 110M and 340M. Except for "L × H × A", each
derivation is the correct one with a single term changed, so ``difference``
is exactly what that one error costs.

Symbols: V vocabulary, P positions, T token types, H hidden size, L layers,
A heads, I intermediate (feed-forward) size. The correct whole-model formula
is ``(V + P + T)·H + 2H + L·(4H² + 4H + 2H + 2HI + I + H + 2H) + H² + H``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .build import build
from .errors import CalcError
from .families.bert import FAMILY as BERT  # the mistakes are about BERT's own derivations
from .model import Inventory


@dataclass(frozen=True)
class Mistake:
    id: str
    #: The wrong derivation, symbolic, for the whole model.
    formula_text: str
    #: What it gives for this config.
    value: int
    #: ``Inventory.total`` of BertModel with its pooler.
    correct: int
    #: ``value - correct``: positive when the derivation counts too many.
    difference: int
    #: One line per language: what the derivation gets wrong.
    explanation: dict[str, str] = field(default_factory=dict)


def bert_inventory(source: Inventory | Mapping[str, Any]) -> Inventory:
    """The BertModel-with-pooler Inventory for an Inventory of the bert family or a BERT config."""
    bert = BERT.model_type
    if isinstance(source, Inventory):
        if source.model_type != bert:
            raise CalcError("bad_value", key="model_type", value=source.model_type)
        if source.architecture == BERT.base and source.pooler:
            return source
        return build(dict(source.config, model_type=bert), architecture=BERT.base, pooler=True)
    if not isinstance(source, Mapping):
        raise CalcError("not_an_object", kind=type(source).__name__)
    model_type = source.get("model_type", bert)
    if model_type != bert:
        raise CalcError("bad_value", key="model_type", value=model_type)
    return build(dict(source, model_type=bert), architecture=BERT.base, pooler=True)


class _Symbols:
    def __init__(self, c: Mapping[str, Any]) -> None:
        self.V, self.P, self.T = c["vocab_size"], c["max_position_embeddings"], c["type_vocab_size"]
        self.H, self.L, self.A = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"]
        self.I = c["intermediate_size"]

    @property
    def embeddings(self) -> int:
        """(V + P + T)·H + 2H: three tables and the embeddings' LayerNorm."""
        return (self.V + self.P + self.T) * self.H + 2 * self.H

    @property
    def pooler(self) -> int:
        return self.H * self.H + self.H

    def model(self, per_layer: int) -> int:
        """Embeddings + L blocks of ``per_layer`` + pooler, i.e. the correct formula with one block term swapped."""
        return self.embeddings + self.L * per_layer + self.pooler


_EMB = "(V + P + T)·H + 2H"
_POOL = "H² + H"


def _whole(block: str) -> str:
    return f"{_EMB} + L·({block}) + {_POOL}"


def _make(mid: str, formula: str, value: int, inv: Inventory, en: str, zh: str) -> Mistake:
    correct = inv.total
    return Mistake(mid, formula, value, correct, value - correct, {"en": en, "zh": zh})


def l_times_h_times_a(source: Inventory | Mapping[str, Any]) -> Mistake:
    """(a) "12 × 768 × 12 = 110M": multiplying the three hyperparameters of the paper's table."""
    inv = bert_inventory(source)
    s = _Symbols(inv.config)
    return _make(
        "l_times_h_times_a", "L × H × A", s.L * s.H * s.A, inv,
        "L × H × A multiplies three settings and counts no weight matrix; the parameters are in the V × H "
        "embedding table and the H × H and H × I weights of every layer, which this product does not count.",
        "L × H × A 只是把三个超参数相乘，不对应任何权重矩阵；参数量来自 V × H 的词嵌入以及每层 H × H、"
        "H × I 的权重，这个乘积并没有数到它们。",
    )


def per_head_full_width_bias(source: Inventory | Mapping[str, Any]) -> Mistake:
    """(b) Per head: Q, K, V weights of H × H/A, each with a bias of H instead of H/A."""
    inv = bert_inventory(source)
    s = _Symbols(inv.config)
    d = s.H // s.A
    per_layer = s.A * 3 * (s.H * d + s.H) + s.H * s.H + s.H + 2 * s.H + 2 * s.H * s.I + s.I + s.H + 2 * s.H
    return _make(
        "per_head_full_width_bias",
        _whole("3A·(H·H/A + H) + H² + H + 2H + 2HI + I + H + 2H"),
        s.model(per_layer), inv,
        "Each head's query, key and value biases have H/A entries, not H: giving every head a full-width "
        "bias counts the 3H attention biases A times over.",
        "每个头的 Q、K、V 偏置只有 H/A 维，不是 H 维；给每个头都配一个 H 维偏置，"
        "等于把每层 3H 个注意力偏置重复算了 A 次。",
    )


def attention_without_output(source: Inventory | Mapping[str, Any]) -> Mistake:
    """(c) Multi-head attention as Q, K and V only, without the output projection."""
    inv = bert_inventory(source)
    s = _Symbols(inv.config)
    per_layer = 3 * (s.H * s.H + s.H) + 2 * s.H + 2 * s.H * s.I + s.I + s.H + 2 * s.H
    return _make(
        "attention_without_output",
        _whole("3(H² + H) + 2H + 2HI + I + H + 2H"),
        s.model(per_layer), inv,
        "After the heads are concatenated, multi-head attention applies an output projection (an H × H weight "
        "and an H bias); leaving it out loses H² + H in every layer.",
        "多头自注意力在拼接各个头之后还有一个输出投影（H × H 的权重加 H 维偏置），"
        "漏掉它每层少算 H² + H 个参数。",
    )


def qkv_three_h_squared_over_a(source: Inventory | Mapping[str, Any]) -> Mistake:
    """(d) "A · 3 · (H/A) · H simplifies to 3H²/A": the Q, K, V weights divided by A once too often."""
    inv = bert_inventory(source)
    s = _Symbols(inv.config)
    per_layer = 3 * s.H * s.H // s.A + 3 * s.H + s.H * s.H + s.H + 2 * s.H + 2 * s.H * s.I + s.I + s.H + 2 * s.H
    return _make(
        "qkv_three_h_squared_over_a",
        _whole("3H²/A + 3H + H² + H + 2H + 2HI + I + H + 2H"),
        s.model(per_layer), inv,
        "A heads with three H × H/A matrices each hold 3H² weights, not 3H²/A: splitting the width into "
        "heads does not make the projections smaller.",
        "A 个头、每个头三个 H × (H/A) 的矩阵，合起来是 3H² 个权重，而不是 3H²/A；"
        "多头只是把宽度切开，投影矩阵的总量并没有变小。",
    )


def ffn_biases_as_h(source: Inventory | Mapping[str, Any]) -> Mistake:
    """(e) Feed-forward network as 2·(4H·H + H): assumes I = 4H and gives both biases H entries."""
    inv = bert_inventory(source)
    s = _Symbols(inv.config)
    per_layer = 4 * s.H * s.H + 4 * s.H + 2 * s.H + 2 * (4 * s.H * s.H + s.H) + 2 * s.H
    return _make(
        "ffn_biases_as_h",
        _whole("4H² + 4H + 2H + 2·(4H·H + H) + 2H"),
        s.model(per_layer), inv,
        "The feed-forward biases have I and H entries, not H and H, and I is a setting of its own: even "
        "with I = 4H the formula comes out I − H short in every layer.",
        "前馈网络两个偏置的长度分别是 I 和 H，不是两个 H，而且 I 是单独的超参数；"
        "即使 I = 4H，这个公式每层也少算了 I − H 个参数。",
    )


def blocks_without_bias_and_layernorm(source: Inventory | Mapping[str, Any]) -> Mistake:
    """(f) A transformer block as its weight matrices only: 4H² + 2HI (7,077,888 for BERT-base)."""
    inv = bert_inventory(source)
    s = _Symbols(inv.config)
    per_layer = 4 * s.H * s.H + 2 * s.H * s.I
    return _make(
        "blocks_without_bias_and_layernorm",
        _whole("4H² + 2HI"),
        s.model(per_layer), inv,
        "Counting only the weight matrices leaves out 9H + I per layer: four attention biases, the two "
        "feed-forward biases, and the weight and bias of both LayerNorms.",
        "只数权重矩阵会让每层漏掉 9H + I 个参数：注意力的四个偏置、前馈网络的两个偏置，"
        "以及两个层归一化各自的权重和偏置。",
    )


def dropped_intermediate_bias(source: Inventory | Mapping[str, Any]) -> Mistake:
    """(g) The BERT-large table whose layer sum leaves out ``intermediate.dense.bias`` ([I])."""
    inv = bert_inventory(source)
    s = _Symbols(inv.config)
    per_layer = 4 * s.H * s.H + 4 * s.H + 2 * s.H + 2 * s.H * s.I + s.H + 2 * s.H
    return _make(
        "dropped_intermediate_bias",
        _whole("4H² + 4H + 2H + 2HI + H + 2H"),
        s.model(per_layer), inv,
        "The per-layer sum skips the feed-forward intermediate bias (I entries) although the table lists "
        "it, so the total comes out L × I short.",
        "每层求和时漏加了前馈网络中间层的偏置（I 个参数），尽管表里列出了这一行，"
        "所以总数少了 L × I。",
    )


MISTAKES: dict[str, Callable[[Any], Mistake]] = {
    "l_times_h_times_a": l_times_h_times_a,
    "per_head_full_width_bias": per_head_full_width_bias,
    "attention_without_output": attention_without_output,
    "qkv_three_h_squared_over_a": qkv_three_h_squared_over_a,
    "ffn_biases_as_h": ffn_biases_as_h,
    "blocks_without_bias_and_layernorm": blocks_without_bias_and_layernorm,
    "dropped_intermediate_bias": dropped_intermediate_bias,
}


def all_mistakes(source: Inventory | Mapping[str, Any]) -> tuple[Mistake, ...]:
    """Every derivation above for one config, in the order readers meet them."""
    inv = bert_inventory(source)
    return tuple(fn(inv) for fn in MISTAKES.values())


def mistake(mistake_id: str, source: Inventory | Mapping[str, Any]) -> Mistake:
    if mistake_id not in MISTAKES:
        raise CalcError("bad_value", key="mistake", value=mistake_id)
    return MISTAKES[mistake_id](source)
