"""MPNet (``modeling_mpnet.py``): BERT-sized layers, no token types, one relative-position bias table.

* ``MPNetEmbeddings`` holds word and position tables and a LayerNorm; there is
  no token-type table (MPNet takes no ``token_type_ids``).
* Each layer is BERT's in count (Q, K, V, O with biases, two LayerNorms, the
  feed-forward pair) under other names (``attention.attn.q`` ...).
* ``MPNetEncoder`` owns ``relative_attention_bias``, an ``nn.Embedding`` of
  ``relative_attention_num_buckets`` × ``num_attention_heads``, registered after
  the layers (so ``num_parameters(exclude_embeddings=True)`` leaves it out). It is
  the only place the head count changes a total.
* The padding row is hard-coded: ``self.padding_idx = 1`` for the word and
  position tables, whatever ``pad_token_id`` says, so both need at least 2 rows.
* The heads are RoBERTa's (``lm_head``, ``classifier.dense``/``out_proj``), and,
  unlike XLM-R's, registered after the backbone.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from ..config import Field
from ..costs import CostModel, Sim, T, activation_key, dropouts, position_ids_buffer
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, roberta
from .base import Architecture, Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, VOCAB, L, heads_divide

#: ``MPNetEmbeddings`` and ``MPNetModel`` pass this, not ``config.pad_token_id``, as ``padding_idx``.
PADDING_IDX = 1

FIELDS = (
    replace(VOCAB, default=30527),
    HIDDEN,
    LAYERS,
    HEADS,
    INTERMEDIATE,
    POSITIONS,
    Field(
        "relative_attention_num_buckets", 32,
        label=L("Relative-position buckets (B)", "相对位置分桶数（B）"), sample=(1, 40),
    ),
    LABELS,
    TIE,
)


def encoder_layer(t: TensorList, prefix: str, i: int, hidden: int, intermediate: int) -> None:
    """One ``MPNetLayer``: ``attention.attn.{q,k,v,o}``, its LayerNorm, the feed-forward pair, its LayerNorm."""
    p = f"{prefix}encoder.layer.{i}."
    for proj in ("q", "k", "v"):
        t.linear(p + "attention.attn." + proj, hidden, hidden, "attention_qkv", i)
    t.linear(p + "attention.attn.o", hidden, hidden, "attention_output", i)
    t.layer_norm(p + "attention.LayerNorm", hidden, layer=i)
    t.linear(p + "intermediate.dense", intermediate, hidden, "feed_forward", i)
    t.linear(p + "output.dense", hidden, intermediate, "feed_forward", i)
    t.layer_norm(p + "output.LayerNorm", hidden, layer=i)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    for i in range(c["num_hidden_layers"]):
        encoder_layer(t, prefix, i, h, c["intermediate_size"])
    t.embedding(
        prefix + "encoder.relative_attention_bias", c["relative_attention_num_buckets"], c["num_attention_heads"],
        "relative_position", section="encoder",
    )
    if with_pooler:
        bert.pooler(t, c, prefix)


def formula(inv: Inventory) -> Formula:
    """(V + P)·H + 2H for the embeddings, BERT's layer, and B·A for the shared bias table."""
    c = inv.config
    v, h, p, n, i, a, b = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["num_hidden_layers"],
        c["intermediate_size"], c["num_attention_heads"], c["relative_attention_num_buckets"],
    )
    lines = [
        FormulaLine("embeddings", "(V + P)·H + 2H", f"({v} + {p})·{h} + 2·{h}", (v + p) * h + 2 * h),
        *layers_lines(*bert.layer_terms(h, i), n),
        FormulaLine("relative_position", "B·A", f"{b}·{a}", b * a),
    ]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    symbols = {"V": v, "P": p, "H": h, "I": i, "L": n, "A": a, "B": b}
    return Formula(symbols, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads divide the hidden size; now and then a one- or two-row table and another pad_token_id,
    so the cross-check sees the hard-coded padding row accepted and refused as transformers does."""
    heads_divide()(rng, config)
    if rng.random() < 0.1:
        config[rng.choice(["vocab_size", "max_position_embeddings"])] = rng.choice([1, 2])
    if rng.random() < 0.2:
        config["pad_token_id"] = rng.choice([0, 1, None, 5, 900])


def mpnet_config(vocab: int = 30527, positions: int = 514) -> dict[str, Any]:
    """A published MPNet-base config.json's size-relevant keys."""
    return {
        "model_type": "mpnet",
        "vocab_size": vocab,
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
        "max_position_embeddings": positions,
        "relative_attention_num_buckets": 32,
    }


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """MPNet's classes: RoBERTa-style positions from the ids, one relative-position bias for all layers
    (a lookup of an [L, L] bucket table, kept if the table trains), BERT's layer otherwise."""
    c = inv.config
    prefix = bert.step_prefix(inv)
    e = prefix + "embeddings."
    x = sim.embedding(e + "word_embeddings", sim.ids((b, n)), first=True)
    x = sim.add(x, sim.embedding(e + "position_embeddings", sim.ids((b, n))))
    hidden = sim.drops("hidden_dropout_prob")
    x = sim.dropout(sim.layer_norm(e + "LayerNorm", x), hidden)
    heads = c["num_attention_heads"]
    table = sim.embedding(prefix + "encoder.relative_attention_bias", sim.ids((n, n)))
    bias = sim.new((b, heads, n, n), table.grad)  # permute, expand, contiguous: a copy nothing keeps
    for i in range(c["num_hidden_layers"]):
        x = step_layer(sim, f"{prefix}encoder.layer.{i}.", x, heads, bias)
    if not c["num_hidden_layers"]:  # computed, kept, but no loss depends on it: the table gets no .grad
        sim.used.discard(prefix + "encoder.relative_attention_bias.weight")
    pooled = bert.step_pooler(sim, prefix, x) if inv.pooler else None
    kind = bert.step_task(inv)
    if kind == "":
        return [x] + ([pooled] if pooled is not None else [])
    if kind == "ForMaskedLM":
        return [bert.step_mlm(sim, "lm_head", x)]
    if kind == "ForSequenceClassification":
        y = sim.keep_output(sim.linear("classifier.dense", sim.dropout(sim.select(x, 1), hidden)))
        return [sim.linear("classifier.out_proj", sim.dropout(y, hidden))]
    if kind == "ForTokenClassification":
        return [sim.linear("classifier", sim.dropout(x, hidden))]
    if kind == "ForQuestionAnswering":
        return bert.step_qa(sim, x)
    raise AssertionError(inv.architecture)


def step_layer(sim: Sim, p: str, x: T, heads: int, bias: T) -> T:
    """One ``MPNetLayer`` (not a checkpointable layer in transformers 5.23)."""
    a = p + "attention.attn."
    context = bert.step_attention(sim, x, heads, a + "q", a + "k", a + "v", bias=bias)
    hidden = sim.drops("hidden_dropout_prob")
    attended = sim.layer_norm(p + "attention.LayerNorm", sim.add(sim.dropout(sim.linear(a + "o", context), hidden), x))
    inner = sim.act("hidden_act", sim.linear(p + "intermediate.dense", attended))
    out = sim.dropout(sim.linear(p + "output.dense", inner), hidden)
    return sim.layer_norm(p + "output.LayerNorm", sim.add(out, attended))


def step_check(inv: Inventory) -> None:
    """``compute_position_bias`` buckets with 32 whatever the config says: a smaller table fails its lookup."""
    bert.step_check(inv)
    if inv.config["relative_attention_num_buckets"] < 32:
        raise CalcError("bad_value", key="relative_attention_num_buckets",
                        value=inv.config["relative_attention_num_buckets"])


#: Positions start after the padding row (1): a table of P rows takes P - 2 tokens.
#: MPNetConfig's defaults: ``hidden_act`` "gelu", hidden and attention dropout 0.1 (its heads use the hidden one).
KEYS = (activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"))
COSTS = CostModel(step_program, bert.absolute_positions(offset=2), check=step_check, checkpointing=False, keys=KEYS, buffers=position_ids_buffer, autocast=True)


FAMILY = Family(
    model_type="mpnet",
    base="MPNetModel",
    fields=FIELDS,
    backbone=backbone,
    # The word and position tables take padding_idx=1 whatever pad_token_id says.
    padding_row=PADDING_IDX,
    pad_token_id=1,
    positions_padded=True,
    architectures=(
        Architecture(name="MPNetModel", task=Task.MODEL, prefix="", pooler=None),
        Architecture(name="MPNetForMaskedLM", task=Task.MASKED_LM, prefix="mpnet.", pooler=False,
                     head=roberta.lm_head, ties_embeddings=True),
        Architecture(name="MPNetForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix="mpnet.", pooler=False,
                     head=roberta.classification_head, uses_num_labels=True),
        Architecture(name="MPNetForMultipleChoice", task=Task.MULTIPLE_CHOICE, prefix="mpnet.", pooler=True,
                     head=bert.linear_head("classifier", 1)),
        Architecture(name="MPNetForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix="mpnet.", pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="MPNetForQuestionAnswering", task=Task.QUESTION_ANSWERING, prefix="mpnet.", pooler=False,
                     head=bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "MPNet", "zh": "MPNet"},
    formula=formula,
    presets=(
        Preset("sentence-transformers/all-mpnet-base-v2", mpnet_config(), "MPNetForMaskedLM"),
        Preset("microsoft/mpnet-base", mpnet_config(), "MPNetForMaskedLM"),
    ),
    sample=sample,
    rank=70,
    costs=COSTS,
)
