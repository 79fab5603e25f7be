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
from typing import Any, Callable, Mapping

from ..config import Field, coerce_bool, coerce_fraction, coerce_int, read_fields
from ..costs import CostModel, Sim, T, position_ids_buffer
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Extra, Family, Preset, with_defaults, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, VOCAB, L, heads_divide
from .common import CROSS_ATTENTION

FIELDS = with_defaults((
    replace(
        VOCAB,
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
        POSITIONS,
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
), vocab_size=33, max_position_embeddings=1026)


def check_padding(c: dict[str, Any]) -> None:
    """The learned position table (absolute only) takes ``padding_idx = pad_token_id`` too."""
    pad = c["pad_token_id"]
    if pad is not None and c["position_embedding_type"] == "absolute" and c["max_position_embeddings"] <= pad:
        raise CalcError(
            "padding_idx", fields=("max_position_embeddings", "pad_token_id"), key="max_position_embeddings", value=c["max_position_embeddings"], pad=pad,
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
        "旋转位置编码：没有位置表（rotary_embeddings.inv_freq 是 buffer，只出现在 state_dict 中）",
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


# --------------------------------------------------------------- reading what the step needs

#: EsmConfig's defaults for the keys that change only what a step runs (not the tensors). ESM-2's
#: published config.json files set both dropouts to 0.0 and turn token dropout on (mask token 32).
STEP_DEFAULTS: dict[str, Any] = {
    "token_dropout": False, "mask_token_id": None, "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
}


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and the keys of a training step: token dropout, its mask token, the two dropout rates."""
    values = read_fields(FIELDS, raw, {})
    get = {k: raw.get(k) for k in STEP_DEFAULTS}
    values["token_dropout"] = False if get["token_dropout"] is None else coerce_bool("token_dropout", get["token_dropout"])
    values["mask_token_id"] = None if get["mask_token_id"] is None else coerce_int("mask_token_id", get["mask_token_id"])
    for key in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
        values[key] = STEP_DEFAULTS[key] if get[key] is None else coerce_fraction(key, get[key])
    return values


def _step_extra(key: str, parse: Callable[[str], Any]) -> Extra:
    """A share link's step key: in the link only when it differs from EsmConfig's default."""

    def to_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
        value = config.get(key, STEP_DEFAULTS[key])
        if value == STEP_DEFAULTS[key]:
            return None
        return ("true" if value else "false") if isinstance(value, bool) else str(value)

    return Extra(key, parse, to_query)


EXTRAS = (
    _step_extra("token_dropout", lambda text: coerce_bool("token_dropout", text)),
    _step_extra("mask_token_id", lambda text: coerce_int("mask_token_id", text) if text.strip() else None),
    _step_extra("hidden_dropout_prob", lambda text: coerce_fraction("hidden_dropout_prob", text)),
    _step_extra("attention_probs_dropout_prob", lambda text: coerce_fraction("attention_probs_dropout_prob", text)),
)


# --------------------------------------------------------------- training step


def step_layer(inv: Inventory, prefix: str, i: int, rotary: tuple[T, T] | None) -> Callable[[Sim, T], T]:
    """One ``EsmLayer``, every name dropped where ``modeling_esm.py`` drops it: pre-LN attention (Q scaled by
    d^-0.5, then Q and K rotated with the shared cos/sin, in float32 for a bf16 model and cast back), dense,
    dropout, + input (the probabilities held as ``_`` until ``EsmAttention`` returns); pre-LN feed-forward with
    ESM's erf GELU, dropout, + residual."""
    p = f"{prefix}encoder.layer.{i}."
    c = inv.config
    heads = c["num_attention_heads"]
    hidden_drop, attention_drop = c["hidden_dropout_prob"] > 0, c["attention_probs_dropout_prob"] > 0

    def output(sim: Sim, module: str, x: T, residual: T) -> T:
        """``EsmSelfOutput`` / ``EsmOutput``: dense, dropout, ``hidden_states + input_tensor``."""
        mark = sim.scope()
        h = sim.linear(module + "dense", x)
        h = sim.rebind(h, sim.dropout(h, hidden_drop))
        return sim.end_scope(mark, sim.rebind(h, sim.add(h, residual)))

    def run(sim: Sim, x: T) -> T:
        s = p + "attention.self."
        layer = sim.scope()
        attention = sim.scope()  # EsmAttention.forward
        h = sim.layer_norm(p + "attention.LayerNorm", x)
        b, n, _ = h.shape
        width = sim.linear_info(s + "query").out_features
        d = width // heads

        mark = sim.scope()  # EsmSelfAttention.forward
        q = sim.heads(sim.linear(s + "query", h), heads, d)
        k = sim.heads(sim.linear(s + "key", h), heads, d)
        v = sim.heads(sim.linear(s + "value", h), heads, d)
        q = sim.rebind(q, sim.scalar(q))  # * d ** -0.5
        if rotary is not None:
            cos, sin = rotary
            apply = sim.scope()  # apply_rotary_pos_emb: in float32 (``q.float()``), cast back to the dtype
            if cos.shape[-1] != d:  # d = 1: cos and sin have 2 columns, and the products broadcast Q and K to them
                turned = list(sim.rotary_float(q, k, cos, sin))  # ModernBERT's same expression (LiveSim: op by op)
            else:
                upcast = q.itemsize != 4
                turned = [sim.rotate(t, cos, sin, False, upcast) for t in (q, k)]
                if upcast:
                    turned = [sim.cast_like(t, q.itemsize) for t in turned]
            sim.end_scope(apply, *turned)
            sim.release(q, k)
            q, k = turned
        inner = sim.scope()  # the attention function
        probs: T | None = None
        if sim.attention == "sdpa":  # sdpa_attention_forward: no mask, dropout 0 (checked), CPU's flash kernel
            context = sim.contiguous(sim.transpose(sim.sdpa(q, k, v), 1, 2))
            sim.end_scope(inner, context)
        else:
            product = sim.bmm(q, sim.transpose(k, 2, 3))
            scores = sim.rebind(product, sim.pointwise(product))  # * scaling (1.0)
            probs = sim.rebind(scores, sim.keep_output(scores))
            probs = sim.rebind(probs, sim.dropout(probs, attention_drop))
            context = sim.bmm(probs, v)
            context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
            sim.end_scope(inner, context, probs)
        context = sim.contiguous(sim.reshape(context, (b, n, width)))
        sim.end_scope(mark, context, *([probs] if probs is not None else []))
        attended = output(sim, p + "attention.output.", context, x)
        sim.release(context)
        attended = sim.end_scope(attention, attended)
        chunk = sim.scope()  # feed_forward_chunk
        normed = sim.layer_norm(p + "LayerNorm", attended)
        ffn = sim.scope()  # EsmIntermediate
        inner_out = sim.linear(p + "intermediate.dense", normed)
        inner_out = sim.end_scope(ffn, sim.rebind(inner_out, sim.gelu_erf(inner_out)))
        out = sim.end_scope(chunk, output(sim, p + "output.", inner_out, attended))
        return sim.end_scope(layer, out)

    return run


def step_rotary_tables(sim: Sim, n: int, width: int) -> tuple[T, T]:
    """The rotary embedding's forward (ESM's, Nomic BERT's; ``@torch.no_grad``, in float32): ``position_ids.float()``
    (and ``inv_freq.to(float32)`` where the buffer is in a narrower dtype), their product ``freqs`` and
    ``cat((freqs, freqs))`` (named until it returns), ``cos()`` and ``sin()`` each times ``attention_scaling``, cast to
    the model's dtype. Returns cos and sin as [1, 1, L, width] (``unsqueeze(1)``)."""
    table = sim.scope()
    if sim.itemsize == 4:  # position_ids.float(), gone once multiplied
        sim.transients((4 * n,), (1,), ("aten._to_copy",))
    else:  # and inv_freq.to(float32): the buffer is in the model's dtype
        sim.transients((4 * n, 4 * (width // 2)), (2, 2), ("aten._to_copy", "aten._to_copy"))
    sim.transients((4 * n * (width // 2), 4 * n * width), None, ("aten.mul", "aten.cat"))  # freqs, emb
    pair = []
    for op in ("aten.cos", "aten.sin"):
        sim.transients((4 * n * width,), (1,), (op,))  # emb.cos(), gone once scaled
        pair.append(sim.fresh((1, n, width), "aten.mul", 4))  # * attention_scaling
    if sim.itemsize != 4:
        pair = [sim.fresh((1, n, width), "aten._to_copy") for _ in pair]  # .to(x.dtype)
    sim.end_scope(table, *pair)
    cos, sin = (sim.view(t, (1, 1, n, width)) for t in pair)
    return cos, sin


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """ESM's classes, every name dropped where ``modeling_esm.py`` drops it: the positions computed from the ids
    (whatever the position type), the token table, token dropout's rescaling (the masked tokens zeroed, * 0.88,
    / (1 - the observed ratio), a float32 [B] factor), the learned positions (absolute) or, after the embeddings,
    the rotary cos/sin (``arange`` kept by the model's forward; computed without a graph in float32, cast to the
    dtype; shared by every layer, each checkpoint's frame keeping them), the early LayerNorm, no dropout in the
    embeddings; pre-LN layers; ``emb_layer_norm_after``; the pooler; the heads. The contact head is built but not
    run (its weights get no gradient)."""
    prefix = bert.step_prefix(inv)
    c = inv.config
    e = prefix + "embeddings."
    kind = bert.step_task(inv)
    # (a head of width 1, rotary: cos and sin 2 wide, the products broadcasting Q and K, as ModernBERT's)
    if kind in EXACT_LIFETIMES and not c.get("is_decoder"):
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()  # and under autocast (the rotation in float32 on q.float(), cast back: a bf16 model's)
    model = sim.scope()  # EsmModel.forward
    ids = sim.ids((b, n))
    embeddings = sim.scope()  # EsmEmbeddings.forward
    # create_position_ids_from_input_ids: mask = ne (bool) .int(); cumsum (int64) .type_as(mask) * mask; .long() +
    # padding_idx: each temporary dropped once the next operation has used it, the mask at the return.
    sim.transients((b * n, 4 * b * n, 8 * b * n, 4 * b * n, 4 * b * n, 8 * b * n), (1, 6, 3, 4, 6, 6),
                   ("aten.ne", "aten._to_copy", "aten.cumsum", "aten._to_copy", "aten.mul", "aten._to_copy"))
    positions = sim.ids((b, n))
    x = sim.embedding(e + "word_embeddings", ids, first=True)
    if c["token_dropout"]:
        zeroed = sim.mask((b, n, 1))  # input_ids == mask_token_id
        x = sim.masked_fill(x, zeroed)  # tokens equal to mask_token_id zeroed
        sim.release(zeroed)
        # mask_ratio_observed = (input_ids == mask_token_id).sum(-1).float() / src_lengths: named until the return
        sim.transients((b * n, 8 * b, 4 * b), (1, 2, 3), ("aten.eq", "aten.sum", "aten._to_copy"))
        sim.transients((4 * b,), None, ("aten.div",))
        scaled = sim.pointwise(x)  # * (1 - 0.15 * 0.8)
        # / (1 - the observed mask ratio)[:, None, None]: a float32 [B] tensor, so a bf16 run computes in
        # float32 and casts back (.to(dtype)): a copy, which keeps nothing
        factor = sim.fresh((b,), "aten.rsub", 4)
        y = sim.scale_by(scaled, factor, itemsize=4)
        sim.release(scaled, factor)
        if y.itemsize != sim.itemsize:
            y = sim.rebind(y, sim.cast_like(y, sim.itemsize))
        x = sim.rebind(x, y)
    if c["position_embedding_type"] == "absolute":
        x = sim.add(x, sim.embedding(e + "position_embeddings", positions))
    if c["emb_layer_norm_before"]:
        x = sim.rebind(x, sim.layer_norm(e + "layer_norm", x))
    x = sim.end_scope(embeddings, x)
    rotary = None
    if c["position_embedding_type"] == "rotary":
        d = c["hidden_size"] // c["num_attention_heads"]
        width = 2 * ((d + 1) // 2)  # one frequency per pair (arange(0, d, 2)), each twice
        sim.fresh((1, n), "aten.arange", 8)  # position_ids: named until the model's forward returns
        rotary = step_rotary_tables(sim, n, width)
    hidden = x
    for i in range(c["num_hidden_layers"]):
        if rotary is not None and sim.checkpointing:
            sim.layer_argument(rotary[0], counted=False)
            sim.layer_argument(rotary[1], counted=False)
        y = sim.layer(step_layer(inv, prefix, i, rotary), hidden)
        if i:
            sim.rebind(hidden, y)
        hidden = y
    seq = sim.layer_norm(prefix + "encoder.emb_layer_norm_after", hidden)
    if c["num_hidden_layers"]:
        sim.release(hidden)
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(model, seq, *([pooled] if pooled is not None else []))
    hidden_drop = c["hidden_dropout_prob"] > 0
    if kind == "":
        return [seq] + ([pooled] if pooled is not None else [])
    if kind == "ForMaskedLM":
        # EsmLMHead: dense, ESM's gelu, layer_norm, the decoder (no bias of its own), + the head's bias
        head = sim.scope()
        x = sim.linear("lm_head.dense", seq)
        x = sim.rebind(x, sim.gelu_erf(x))
        x = sim.rebind(x, sim.layer_norm("lm_head.layer_norm", x))
        logits = sim.linear("lm_head.decoder", x)
        out = sim.add_param(logits, "lm_head.bias")  # read (so it gets its .grad) whether or not the logits need one
        sim.release(logits)
        return [sim.end_scope(head, sim.rebind(x, out))]
    if kind == "ForSequenceClassification":
        # EsmClassificationHead: the first token, dropout, dense, tanh, dropout, out_proj
        # (an inactive dropout returns its input: the name rebound is the same storage, which lives on)
        return bert.step_pair_head(sim, seq, hidden_drop, sim.keep_output)
    if kind == "ForTokenClassification":
        x = sim.dropout(seq, hidden_drop)
        return [sim.rebind(x, sim.linear("classifier", x))]
    raise AssertionError(inv.architecture)


#: ESM's classes whose every operation the lifetime simulator models.
EXACT_LIFETIMES = ("", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification")


def step_check(inv: Inventory) -> None:
    """What makes ESM's forward fail on input_ids alone: no padding id (positions are computed from it
    whatever the position type), token dropout without a mask token; rotary needs an even head size."""
    c = inv.config
    if c["pad_token_id"] is None:
        raise CalcError("costs_esm_padding")
    if c["token_dropout"] and c["mask_token_id"] is None:
        raise CalcError("costs_esm_mask_token")
    d = c["hidden_size"] // c["num_attention_heads"]
    # d = 1 runs: its one frequency makes cos and sin 2 wide, and Q and K broadcast to them
    if c["position_embedding_type"] == "rotary" and d % 2 and d > 1 and c["num_hidden_layers"] > 0:
        raise CalcError("costs_rotary_odd_head", head_size=d)


def _longest(c: Mapping[str, Any]) -> int | None:
    """Absolute positions count from ``pad_token_id + 1``: a table of P rows takes P - pad - 1 tokens."""
    if c["position_embedding_type"] != "absolute" or c["pad_token_id"] is None:
        return None
    return c["max_position_embeddings"] - c["pad_token_id"] - 1


COSTS = CostModel(step_program, _longest, check=step_check, buffers=position_ids_buffer, autocast=True, sdpa=True, reentrant=True)


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
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
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
        Architecture(name="EsmModel", task=Task.MODEL, prefix="", pooler=None),
        Architecture(name="EsmForMaskedLM", task=Task.MASKED_LM, prefix="esm.", pooler=False, head=mlm_head, ties_embeddings=True),
        Architecture(
            name="EsmForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix="esm.", pooler=False, head=classification_head,
            uses_num_labels=True,
        ),
        Architecture(
            name="EsmForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix="esm.", pooler=False,
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
    default_attention="sdpa",
    ignored_keys=(CROSS_ATTENTION,),
    labels=LABELS_,
    read=read,
    extras=EXTRAS,
    costs=COSTS,
)
