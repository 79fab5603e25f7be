"""Nyströmformer (``modeling_nystromformer.py``, 2021): BERT's layer with Nyström-approximated attention.

The tensors are BERT's but for three things:

* each layer's self-attention adds a depthwise ``nn.Conv2d(A, A, (conv_kernel_size, 1), groups=A,
  bias=False)`` over the values (the "skip" convolution): ``A × conv_kernel_size`` weights a layer,
  (the code skips it for a null kernel, which the 5.23 config refuses);
* the position table has ``max_position_embeddings + 2`` rows (positions start at 2);
* there is no pooler; the sequence-classification head is RoBERTa's (dense, out_proj) and the
  multiple-choice head DistilBERT's (pre_classifier, classifier).

``num_landmarks`` and ``segment_means_seq_len`` shape no tensor: they decide the attention's cost
(landmarks are segment means of Q and K, and the pseudo-inverse is iterated six times).
"""
from __future__ import annotations

import random
from typing import Any

from ..config import Field
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, roberta
from .base import Architecture, Family, Preset, with_defaults
from .common import BERT_FIELDS, L

FIELDS = with_defaults(BERT_FIELDS, vocab_size=30000, max_position_embeddings=510) + (
    # The model code skips the convolution when this is None, but NystromformerConfig 5.23 types it
    # ``int`` and refuses null: so does the calculator.
    Field("conv_kernel_size", 65,
          label=L("Depthwise convolution kernel over the values (conv_kernel_size)",
                  "V 上逐通道卷积的卷积核长度（conv_kernel_size）"), sample=(1, 9)),
    Field("num_landmarks", 64, label=L("Landmarks (num_landmarks)", "地标点数（num_landmarks）")),
    Field("segment_means_seq_len", 64,
          label=L("Sequence length the landmarks assume (segment_means_seq_len)",
                  "计算地标点时假定的序列长度（segment_means_seq_len）")),
)


def backbone_with(kernel_key: str | None) -> Any:
    """The backbone of Nyströmformer (``conv_kernel_size``), YOSO (``conv_window``, null: no convolution) and
    MRA (None: never a convolution)."""

    def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
        """The embeddings (P + 2 positions) and the layers; no pooler in any class."""
        h, heads = c["hidden_size"], c["num_attention_heads"]
        kernel = c[kernel_key] if kernel_key is not None else None
        e = prefix + "embeddings."
        t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
        t.embedding(e + "position_embeddings", c["max_position_embeddings"] + 2, h, "embeddings")
        t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
        t.layer_norm(e + "LayerNorm", h, group="embeddings")
        for i in range(c["num_hidden_layers"]):
            p = f"{prefix}encoder.layer.{i}."
            for proj in ("query", "key", "value"):
                t.linear(p + "attention.self." + proj, h, h, "attention_qkv", i)
            if kernel is not None:  # nn.Conv2d(A, A, (k, 1), groups=A, bias=False): weight [A, 1, k, 1]
                t.add(p + "attention.self.conv.weight", (heads, 1, kernel, 1), "attention_qkv", i)
            t.linear(p + "attention.output.dense", h, h, "attention_output", i)
            t.layer_norm(p + "attention.output.LayerNorm", h, layer=i)
            t.linear(p + "intermediate.dense", c["intermediate_size"], h, "feed_forward", i)
            t.linear(p + "output.dense", h, c["intermediate_size"], "feed_forward", i)
            t.layer_norm(p + "output.LayerNorm", h, layer=i)

    return backbone


backbone = backbone_with("conv_kernel_size")


def multiple_choice_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``pre_classifier`` (H → H, ReLU) then ``classifier`` (H → 1)."""
    t.linear("pre_classifier", c["hidden_size"], c["hidden_size"], "head")
    t.linear("classifier", 1, c["hidden_size"], "head")


def formula_with(kernel_key: str | None) -> Any:
    """BERT's layer plus A·k convolution weights (k = 0 without one; no term at all for MRA, ``None``);
    P + 2 position rows; no pooler."""

    def formula(inv: Inventory) -> Formula:
        c = inv.config
        v, p, t, h, n, i, a = (c["vocab_size"], c["max_position_embeddings"], c["type_vocab_size"],
                               c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"],
                               c["num_attention_heads"])
        symbolic, substituted, per = bert.layer_terms(h, i)
        symbols = {"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}
        if kernel_key is not None:
            k = c[kernel_key] or 0
            symbolic, substituted, per = f"{symbolic} + A·k", f"{substituted} + {a}·{k}", per + a * k
            symbols.update(A=a, k=k)
        lines = [
            FormulaLine("embeddings", "(V + P + 2 + T)·H + 2H", f"({v} + {p} + 2 + {t})·{h} + 2·{h}",
                        (v + p + 2 + t) * h + 2 * h),
            *layers_lines(symbolic, substituted, per, n),
        ]
        return Formula(symbols, tuple(lines + head_line(inv)))

    return formula


formula = formula_with("conv_kernel_size")


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """H a multiple of the heads (HF requires it)."""
    bert_heads = rng.choice([1, 2, 3, 4, 6, 8])
    config["num_attention_heads"] = bert_heads
    config["hidden_size"] = bert_heads * rng.randint(1, 12)


def nystromformer_config() -> dict[str, Any]:
    """uw-madison/nystromformer-512's config.json, size-relevant keys (NystromformerConfig's defaults are
    documented as this checkpoint's: https://huggingface.co/uw-madison/nystromformer-512/blob/main/config.json)."""
    return {
        "model_type": "nystromformer", "vocab_size": 30000, "hidden_size": 768, "num_hidden_layers": 12,
        "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 510,
        "type_vocab_size": 2, "num_landmarks": 64, "conv_kernel_size": 65, "segment_means_seq_len": 512,
    }


_P = "nystromformer."
FAMILY = Family(
    model_type="nystromformer",
    base="NystromformerModel",
    fields=FIELDS,
    backbone=backbone,
    pad_token_id=1,
    architectures=(
        Architecture(name="NystromformerModel", prefix="", pooler=False),
        Architecture(name="NystromformerForMaskedLM", prefix=_P, pooler=False, head=bert.mlm_head,
                     ties_embeddings=True),
        Architecture(name="NystromformerForSequenceClassification", prefix=_P, pooler=False,
                     head=roberta.classification_head, uses_num_labels=True),
        Architecture(name="NystromformerForMultipleChoice", prefix=_P, pooler=False, head=multiple_choice_head),
        Architecture(name="NystromformerForTokenClassification", prefix=_P, pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        # its __init__ sets config.num_labels = 2 first, whatever the config says
        Architecture(name="NystromformerForQuestionAnswering", prefix=_P, pooler=False,
                     head=bert.linear_head("qa_outputs", 2)),
    ),
    title={"en": "Nyströmformer", "zh": "Nyströmformer"},
    formula=formula,
    presets=(Preset("uw-madison/nystromformer-512", nystromformer_config(), "NystromformerForMaskedLM"),),
    sample=sample,
    rank=82,
)
