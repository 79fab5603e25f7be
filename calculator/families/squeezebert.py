"""SqueezeBERT (``modeling_squeezebert.py``, 2020): BERT's layer with grouped convolutions in place of Linear layers.

Every projection of a layer is an ``nn.Conv1d`` with kernel size 1, which computes
what a Linear computes, except that with ``groups = g`` the channels are split into
g independent groups: the weight is ``[out, in / g, 1]``, so the layer has g times
fewer weights (the biases stay ``[out]``). squeezebert-uncased uses g = 4 for Q, K, V
and the two feed-forward convolutions, and g = 1 for the attention output.

* The module kind matters beyond the count: the convolutions are ``nn.Conv1d``, not
  ``nn.Linear``, so peft's ``all-linear`` does not adapt them, and LoRA on them (named
  explicitly) builds convolutional adapters (see ``calculator/peft.py``).
* ``embedding_size`` must equal ``hidden_size`` (transformers asserts it).
* The embeddings, pooler and heads are BERT's, under ``transformer.``; every class has
  the pooler (``SqueezeBertModel`` has no ``add_pooling_layer``).
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from ..config import Field, check_heads
from ..costs import CostModel, Sim, T, activation_key, dropouts, unread, position_ids_buffer
from ..errors import CalcError
from ..formula import Formula, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, Task
from .common import EMBEDDING, HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, TOKEN_TYPES, VOCAB, L


def _groups(key: str, default: int, en: str, zh: str) -> Field:
    return Field(key, default, label=L(f"Groups of the {en} convolution ({key})", f"{zh}卷积的分组数（{key}）"),
                 sample=(1, 4))


FIELDS = (
    VOCAB,
    replace(EMBEDDING, default=768, label=L("Embedding size (E; must equal H)", "嵌入维度（E；必须等于 H）"),
            sample=None),
    HIDDEN,
    LAYERS,
    HEADS,
    INTERMEDIATE,
    POSITIONS,
    TOKEN_TYPES,
    _groups("q_groups", 4, "query", "Q "),
    _groups("k_groups", 4, "key", "K "),
    _groups("v_groups", 4, "value", "V "),
    _groups("post_attention_groups", 1, "attention output", "注意力输出"),
    _groups("intermediate_groups", 4, "first feed-forward", "前馈网络第一层"),
    _groups("output_groups", 4, "second feed-forward", "前馈网络第二层"),
    LABELS,
    TIE,
)

#: (groups key, in-channels key, out-channels key) of each convolution in a layer.
CONVOLUTIONS = (
    ("q_groups", "hidden_size", "hidden_size"),
    ("k_groups", "hidden_size", "hidden_size"),
    ("v_groups", "hidden_size", "hidden_size"),
    ("post_attention_groups", "hidden_size", "hidden_size"),
    ("intermediate_groups", "hidden_size", "intermediate_size"),
    ("output_groups", "intermediate_size", "hidden_size"),
)


def check(c: dict[str, Any]) -> None:
    """The encoder asserts E = H; each layer's attention needs H divisible by the heads, and each
    ``nn.Conv1d`` its in and out channels divisible by its groups (with no layers, nothing is checked)."""
    if c["embedding_size"] != c["hidden_size"]:
        raise CalcError("bad_value", key="embedding_size", value=c["embedding_size"])
    if c["num_hidden_layers"] == 0:
        return
    check_heads(c, "hidden_size", "num_attention_heads")
    for groups, cin, cout in CONVOLUTIONS:
        for key in (cin, cout):
            if c[key] % c[groups] != 0:
                raise CalcError("heads_not_divisor", fields=(groups, key), hidden_key=key, hidden=c[key], heads_key=groups, heads=c[groups])


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, inter = c["hidden_size"], c["intermediate_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], c["embedding_size"], "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], c["embedding_size"], "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], c["embedding_size"], "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}encoder.layers.{i}."
        for proj, key in (("query", "q_groups"), ("key", "k_groups"), ("value", "v_groups")):
            t.conv1d(p + "attention." + proj, h, h, 1, "attention_qkv", i, groups=c[key])
        t.conv1d(p + "post_attention.conv1d", h, h, 1, "attention_output", i, groups=c["post_attention_groups"])
        t.layer_norm(p + "post_attention.layernorm", h, layer=i)
        t.conv1d(p + "intermediate.conv1d", inter, h, 1, "feed_forward", i, groups=c["intermediate_groups"])
        t.conv1d(p + "output.conv1d", h, inter, 1, "feed_forward", i, groups=c["output_groups"])
        t.layer_norm(p + "output.layernorm", h, layer=i)
    if with_pooler:
        bert.pooler(t, c, prefix)


def formula(inv: Inventory) -> Formula:
    """BERT's terms with each weight divided by its convolution's groups (g_q, g_k, g_v, g_p, g_i, g_o)."""
    c = inv.config
    v, p, t, h, n, i = (
        c["vocab_size"], c["max_position_embeddings"], c["type_vocab_size"], c["hidden_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    gq, gk, gv, gp, gi, go = (c[k] for k, _, _ in CONVOLUTIONS)
    per = (h * h // gq + h * h // gk + h * h // gv + 3 * h) + (h * h // gp + h) + 2 * h \
        + (h * i // gi + i) + (i * h // go + h) + 2 * h
    symbolic = "H²/g_q + H²/g_k + H²/g_v + 3H + H²/g_p + H + 2H + H·I/g_i + I + I·H/g_o + H + 2H"
    substituted = (
        f"{h}²/{gq} + {h}²/{gk} + {h}²/{gv} + 3·{h} + {h}²/{gp} + {h} + 2·{h} + {h}·{i}/{gi} + {i}"
        f" + {i}·{h}/{go} + {h} + 2·{h}"
    )
    lines = [bert.embeddings_line(v, p, t, h), *layers_lines(symbolic, substituted, per, n)]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    symbols = {"V": v, "P": p, "T": t, "H": h, "I": i, "L": n,
               "g_q": gq, "g_k": gk, "g_v": gv, "g_p": gp, "g_i": gi, "g_o": go}
    return Formula(symbols, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Sizes the convolutions' groups divide (nine times in ten), E = H (nineteen times in twenty)."""
    heads = rng.choice([1, 2, 3, 4, 6, 8])
    config["num_attention_heads"] = heads
    groups = {k: rng.choice([1, 1, 2, 4]) for k, _, _ in CONVOLUTIONS}
    config.update(groups)
    if rng.random() < 0.9:
        config["hidden_size"] = heads * 4 * rng.randint(1, 6)
        config["intermediate_size"] = 4 * rng.randint(1, 75)
    else:
        config["hidden_size"] = heads * rng.randint(1, 24)
    config["embedding_size"] = config["hidden_size"] if rng.random() < 0.95 else rng.randint(1, 64)


# --------------------------------------------------------------- training step
#
# SqueezeBertConfig's defaults: GELU, hidden and attention-probability dropout 0.1. The
# encoder works on [B, C, L] (a permuted view); each LayerNorm permutes to [B, L, C] and back.


def step_embeddings(sim: Sim, prefix: str, ids: T, types: T, n: int) -> T:
    """``SqueezeBertEmbeddings``: word + position + token type, LayerNorm, dropout. The token types are the model's
    ``torch.zeros(B, L)``, the positions a slice of a buffer; ``inputs_embeds + position_embeddings`` is the
    expression's temporary, the three lookups are named until the function returns."""
    e = prefix + "embeddings."
    mark = sim.scope()
    positions = sim.buffer((1, n))
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    pos = sim.embedding(e + "position_embeddings", positions)
    tt = sim.embedding(e + "token_type_embeddings", types)
    total = sim.add(words, pos)
    x = sim.add(total, tt)
    sim.release(total)
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    x = sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob")))
    return sim.end_scope(mark, x)


def step_norm(sim: Sim, module: str, x: T) -> T:
    """``SqueezeBertLayerNorm``: permute [B, C, L] to [B, L, C], LayerNorm, permute back (views)."""
    return sim.transpose(sim.layer_norm(module, sim.transpose(x, 1, 2)), 1, 2)


def step_conv_norm(sim: Sim, p: str, x: T, residual: T) -> T:
    """``ConvDropoutLayerNorm``: conv, dropout (rebinding the conv's output), ``x + input_tensor`` (rebinding the
    dropout's), the LayerNorm (rebinding the sum)."""
    mark = sim.scope()
    h = sim.conv1x1(p + "conv1d", x)
    h = sim.rebind(h, sim.dropout(h, sim.drops("hidden_dropout_prob")))
    total = sim.rebind(h, sim.add(h, residual))
    out = sim.rebind(total, step_norm(sim, p + "layernorm", total))
    return sim.end_scope(mark, out)


def step_layer(sim: Sim, p: str, x: T, heads: int) -> T:
    """One ``SqueezeBertModule`` on [B, C, L]: attention through 1×1 convolutions, then the two
    ConvDropoutLayerNorm blocks around the GELU feed-forward convolution. The attention's scaled scores stay named
    (``attention_score``) until it returns; the context (the ``att`` dict's), the post-attention and the
    intermediate outputs until the module returns."""
    b, c, n = x.shape
    d = c // heads
    a = p + "attention."
    module = sim.scope()
    att = sim.scope()  # SqueezeBertSelfAttention.forward
    q = sim.transpose(sim.view(sim.conv1x1(a + "query", x), (b, heads, d, n)), 2, 3)  # [B, A, L, d]
    k = sim.view(sim.conv1x1(a + "key", x), (b, heads, d, n))  # [B, A, d, L]
    v = sim.transpose(sim.view(sim.conv1x1(a + "value", x), (b, heads, d, n)), 2, 3)
    product = sim.bmm(q, k)
    scores = sim.rebind(product, sim.divide(product))  # / sqrt(d); the all-ones mask became None
    probs = sim.keep_output(scores)  # softmax
    probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_probs_dropout_prob")))
    context = sim.bmm(probs, v)
    context = sim.rebind(context, sim.contiguous(sim.transpose(context, 2, 3)))  # permute(0, 1, 3, 2).contiguous()
    context = sim.end_scope(att, sim.view(context, (b, c, n)))
    attended = step_conv_norm(sim, p + "post_attention.", context, x)
    inner = sim.scope()  # ConvActivation.forward
    conv = sim.conv1x1(p + "intermediate.conv1d", attended)
    inner_out = sim.end_scope(inner, sim.keep_input(conv))  # GELU
    out = step_conv_norm(sim, p + "output.", inner_out, attended)
    return sim.end_scope(module, out)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """SqueezeBERT's classes (every one has the pooler): the outputs each returns, every name dropped where
    ``modeling_squeezebert.py`` drops it. ``SqueezeBertModel.forward`` first checks the ids' first and last columns
    for padding (four temporaries), makes ``attention_mask = torch.ones((B, L))`` (float32) and the token types
    ``torch.zeros(input_shape)`` (int64, named until it returns); the bidirectional mask function reads the ones
    (``.to(bool)``, ``.all()``) and returns None, dropping them."""
    prefix = bert.step_prefix(inv)
    kind = bert.step_task(inv)
    sim.exact_lifetimes()
    sim.exact_forward()  # every name's release declared below
    sim.exact_autocast()  # under bf16 autocast too: conv1d's bias, weight and input copies (costs.lifetime)
    model = sim.scope()  # SqueezeBertModel.forward
    ids = sim.ids((b, n))  # input_ids (the program's first index tensor: live from the start)
    if inv.config.get("pad_token_id", 0) is not None:  # warn_if_padding_and_no_attention_mask
        sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    ones = sim.named_transient(4 * b * n, "aten.ones")
    types = sim.constant_by("aten.zeros", (b, n), 8)
    embedded = step_embeddings(sim, prefix, ids, types, n)
    sim.transients((b * n, 1), (1, 1), ("aten._to_copy", "aten.all"))
    sim.drop_transient(ones)
    x = sim.transpose(embedded, 1, 2)  # [B, C, L]
    for i in range(inv.config["num_hidden_layers"]):
        y = step_layer(sim, f"{prefix}encoder.layers.{i}.", x, inv.config["num_attention_heads"])
        if i:
            sim.release(x)  # hidden_states (and the previous layer_output dict) rebound
        x = y
    seq = sim.transpose(x, 1, 2)
    if kind in (Task.MASKED_LM, Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING):  # pooled, never returned
        pooled = sim.unused(lambda: bert.step_pooler(sim, prefix, seq))
    else:
        pooled = bert.step_pooler(sim, prefix, seq)
    sim.end_scope(model, seq, pooled)
    return bert.run_head(SQUEEZEBERT_HEADS, sim, inv, seq, pooled, "hidden_dropout_prob")  # the classifiers' dropout


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``SqueezeBertOnlyMLMHead``: BERT's MLM head under ``cls.predictions`` with a fixed GELU (its activation is
    not read from the config: :data:`COSTS` declares ``hidden_act`` unread)."""
    return [bert.step_mlm(sim, "cls.predictions", seq)]


#: SqueezeBERT's classes, by task: BERT's heads and forwards, every class (the bare model too) with the pooler,
#: the MLM head's GELU fixed; the classifiers' dropout is ``hidden_dropout_prob`` (the caller's key).
SQUEEZEBERT_HEADS: dict[str, bert.Head] = {
    **{task: replace(head, pooler=True) for task, head in bert.BERT_HEADS.items()},
    Task.MASKED_LM: replace(bert.BERT_HEADS[Task.MASKED_LM], pooler=True, step=mlm_step),
}


#: SqueezeBertPreTrainedModel does not declare gradient checkpointing: transformers refuses to turn it on.
COSTS = CostModel(step_program, bert.absolute_positions(), check=bert.step_check, checkpointing=False, keys=unread((activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"))), buffers=position_ids_buffer, autocast=True)


def squeezebert_config() -> dict[str, Any]:
    """squeezebert-uncased's config.json, size-relevant keys."""
    return {
        "model_type": "squeezebert", "vocab_size": 30528, "embedding_size": 768, "hidden_size": 768,
        "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
        "max_position_embeddings": 512, "type_vocab_size": 2, "q_groups": 4, "k_groups": 4, "v_groups": 4,
        "post_attention_groups": 1, "intermediate_groups": 4, "output_groups": 4,
    }


FAMILY = Family(
    model_type="squeezebert",
    base="SqueezeBertModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=None,  # check() makes it, only when there is a layer to refuse it
    checks=(check,),
    # BERT's heads under "transformer.", every class (the bare model too) with the pooler
    architectures=bert.task_classes("SqueezeBert", "transformer.", (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION,
        Task.QUESTION_ANSWERING), SQUEEZEBERT_HEADS),
    title={"en": "SqueezeBERT", "zh": "SqueezeBERT"},
    formula=formula,
    presets=(
        # squeezebert/squeezebert-uncased: the same sizes as the published squeezebert-mnli(-headless) files
        Preset("squeezebert/squeezebert-uncased", squeezebert_config(), "SqueezeBertModel"),
    ),
    sample=sample,
    rank=64,
    costs=COSTS,
)
