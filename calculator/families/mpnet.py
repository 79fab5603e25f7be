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
from .base import Family, Preset, Task
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


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, ids: T) -> T:
    """``MPNetEmbeddings``: positions from the ids (``create_position_ids_from_input_ids``: ``ne`` (bool),
    ``.int()``, ``cumsum`` (int64), ``.type_as``, ``* mask``, ``.long()``, ``+ padding_idx``, each temporary dropped
    once the next operation has used it, the mask as the function returns), word + position lookups, LayerNorm,
    dropout; its locals go as it returns."""
    e = prefix + "embeddings."
    b, n = ids.shape
    mark = sim.scope()
    sim.transients((b * n, 4 * b * n, 8 * b * n, 4 * b * n, 4 * b * n, 8 * b * n), (1, 6, 3, 4, 6, 6),
                   ("aten.ne", "aten._to_copy", "aten.cumsum", "aten._to_copy", "aten.mul", "aten._to_copy"))
    positions = sim.made_by(sim.ids((b, n)), "aten.add")
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    x = sim.add(words, sim.embedding(e + "position_embeddings", positions))
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    return sim.end_scope(mark, sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob"))))


def step_position_bias(sim: Sim, prefix: str, b: int, n: int, heads: int) -> T:
    """``MPNetEncoder.compute_position_bias``: two ``arange`` s, their difference [L, L] (int64), the buckets
    (``relative_position_bucket``'s temporaries, each dropped as Python drops it), the lookup of the [L, L] bucket
    table (kept by its backward when the table trains), permuted, expanded to [B, A, L, L] and copied
    (``contiguous``): the bias every layer adds in place."""
    cpb = sim.scope()
    sim.transients((8 * n, 8 * n, 8 * n * n), None, ("aten.arange", "aten.arange", "aten.sub"))
    rpb = sim.scope()  # relative_position_bucket
    negated = sim.named_transient(8 * n * n, "aten.neg")  # n = -relative_position
    # ret = 0 + (n < 0).to(long) * num_buckets: each temporary gone once the next is made
    sim.transients((n * n, 8 * n * n, 8 * n * n), (1, 2, 3), ("aten.lt", "aten._to_copy", "aten.mul"))
    buckets = sim.made_by(sim.ids((n, n)), "aten.add")
    sim.named_transient(8 * n * n, "aten.abs")  # n = torch.abs(n): named until the function returns
    sim.drop_transient(negated)
    sim.transients((n * n,), None, ("aten.lt",))  # is_small
    # val_if_large: float(), / max_exact, log, / log(...), * (...), .to(long), max_exact + ...; full_like, min
    sim.transients((4 * n * n,) * 5 + (8 * n * n,) * 3, (1, 2, 3, 4, 5, 6, 8, 8),
                   ("aten._to_copy", "aten.div", "aten.log", "aten.div", "aten.mul", "aten._to_copy", "aten.add",
                    "aten.full_like"))
    sim.transients((8 * n * n,), None, ("aten.minimum",))
    sim.transients((8 * n * n,), (0,), ("aten.where",))  # ret += torch.where(...): in place, the operand dropped
    buckets = sim.end_scope(rpb, buckets)
    values = sim.embedding(prefix + "encoder.relative_attention_bias", buckets)
    # values.permute([2, 0, 1]).unsqueeze(0).expand((bsz, -1, qlen, klen)).contiguous(): views, then the copy
    viewed = sim.transpose(sim.transpose(values, 0, 2), 1, 2)
    viewed = sim.expand(sim.view(viewed, (1, heads, n, n)), (b, heads, n, n))
    bias = sim.rebind(values, sim.contiguous(viewed))
    return sim.end_scope(cpb, bias)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """MPNet's classes: RoBERTa-style positions from the ids, one relative-position bias for all layers
    (a lookup of an [L, L] bucket table, kept if the table trains, named by the encoder until it returns), BERT's
    layer otherwise; every name dropped where ``modeling_mpnet.py`` drops it."""
    c = inv.config
    prefix = bert.step_prefix(inv)
    if bert.step_task(inv) in roberta.LIFETIMES:  # MPNet has no decoder mode
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared below (the heads: RoBERTa's)
        sim.exact_autocast()  # and under autocast (the Linears' bf16 copies, the bias added to bf16 scores)
    model = sim.scope()  # MPNetModel.forward
    ids = sim.ids((b, n))  # input_ids (the program's first index tensor: live from the start)
    x = step_embeddings(sim, inv, prefix, ids)
    heads = c["num_attention_heads"]
    encoder = sim.scope()  # MPNetEncoder.forward: ``position_bias`` named until it returns
    layers = c["num_hidden_layers"]
    # With no layer the bias is computed but never read: its graph (the lookup's saved buckets) goes with it, a local
    # of the encoder.
    bias = step_position_bias(sim, prefix, b, n, heads) if layers else sim.discarded(
        lambda: step_position_bias(sim, prefix, b, n, heads))
    for i in range(c["num_hidden_layers"]):
        y = step_layer(sim, f"{prefix}encoder.layer.{i}.", x, heads, bias)
        if i:
            sim.release(x)  # hidden_states = layer_outputs[0]
        x = y
    x = sim.end_scope(encoder, x)
    pooled = bert.step_pooler(sim, prefix, x) if inv.pooler else None
    sim.end_scope(model, x, *([pooled] if pooled is not None else []))
    return roberta.step_heads(sim, inv, x, pooled, dropout_key="hidden_dropout_prob")


def step_layer(sim: Sim, p: str, x: T, heads: int, bias: T) -> T:
    """One ``MPNetLayer`` (not a checkpointable layer in transformers 5.23): its attention computes the output
    projection ``o`` itself and keeps the scores named until it returns; ``MPNetAttention`` adds
    ``dropout(o) + hidden_states`` under its LayerNorm (the two temporaries gone after it), BERT's feed-forward."""
    a = p + "attention.attn."
    hidden = sim.drops("hidden_dropout_prob")
    layer = sim.scope()  # MPNetLayer.forward
    attention = sim.scope()  # MPNetAttention.forward
    inner = sim.scope()  # MPNetSelfAttention.forward
    context = bert.step_attention(sim, x, heads, a + "q", a + "k", a + "v", bias=bias, frame=False,
                                  keep_scores=True)
    o = sim.end_scope(inner, sim.linear(a + "o", context))
    dropped = sim.dropout(o, hidden)
    total = sim.add(dropped, x)
    attended = sim.layer_norm(p + "attention.LayerNorm", total)
    sim.release(dropped, total)
    attended = sim.end_scope(attention, attended)
    hidden_states = sim.linear(p + "intermediate.dense", attended)
    hidden_states = sim.rebind(hidden_states, sim.act("hidden_act", hidden_states))
    out = bert.self_output(sim, p + "output.", hidden_states, attended, hidden)  # MPNetOutput: BERT's
    return sim.end_scope(layer, out)


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
    # RoBERTa's heads, from the table whose forwards the step runs (roberta.step_heads)
    architectures=bert.task_classes("MPNet", "mpnet.", (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION,
        Task.QUESTION_ANSWERING), roberta.ROBERTA_HEADS),
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
