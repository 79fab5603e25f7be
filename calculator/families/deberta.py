"""DeBERTa v1 (``modeling_deberta.py``): disentangled attention over relative positions.

* ``DebertaEmbeddings``: the word table, a position table only when
  ``position_biased_input`` (microsoft/deberta-base turns it off: positions enter
  through relative attention only), a token-type table only when
  ``type_vocab_size > 0`` (the default is 0), all of width ``embedding_size``
  (default H), an ``embed_proj`` (no bias) when that width is not H, and a LayerNorm.
* Each ``DisentangledSelfAttention`` fuses Q, K and V into one ``in_proj``
  without bias, and keeps only two bias vectors of its own, ``q_bias`` and
  ``v_bias`` (registered as Parameters, so they come first in ``state_dict``).
  With ``relative_attention`` it adds ``pos_proj`` (no bias) for the
  content-to-position term (``"c2p"`` in ``pos_att_type``) and ``pos_q_proj``
  for position-to-content (``"p2c"``); ``talking_head`` adds two heads × heads mixers.
* ``DebertaEncoder`` owns ``rel_embeddings``, an ``nn.Embedding`` of
  2 × ``max_relative_positions`` rows (``max_position_embeddings`` when that is
  below 1), registered after the layers.
* No pooler in the base model: the classification head brings its own
  ``ContextPooler`` (``pooler_hidden_size`` wide, default H). ``legacy`` (default)
  picks the BERT-style MLM head tied to the word table; otherwise a head that
  multiplies by the word table in ``forward`` and declares no tie.

The embeddings, the heads and the ContextPooler are shared with DeBERTa-v2
(:mod:`.deberta_v2`), whose modeling file copies them from here.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Callable, Mapping

from ..config import Field, read_fields
from ..costs import CostModel, Sim, T, activation_key, dropouts, unread, position_ids_buffer
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, VOCAB, L, heads_divide

# ------------------------------------------------------------------ fields shared with DeBERTa-v2

#: DeBERTa's default is 0 token types: no table at all (``type_vocab_size > 0`` builds one).
TOKEN_TYPES = Field(
    "type_vocab_size", 0, minimum=0,
    label=L("Token types (T; 0: no table)", "分段类型数（T；0 表示没有这张表）"), sample=(0, 3),
)
EMBEDDING_SIZE = Field(
    "embedding_size", None, default_from="hidden_size",
    label=L("Embedding size (E; default H)", "嵌入维度（E；默认等于 H）"), sample=(1, 48),
)
POSITION_BIASED_INPUT = Field(
    "position_biased_input", True, kind="bool",
    label=L(
        "Absolute position embeddings added to the input (position_biased_input)",
        "输入叠加绝对位置嵌入（position_biased_input）",
    ),
    sample=(0, 1),
)
RELATIVE_ATTENTION = Field(
    "relative_attention", False, kind="bool",
    label=L("Relative-position attention (relative_attention)", "相对位置注意力（relative_attention）"),
    sample=(0, 1),
)
MAX_RELATIVE_POSITIONS = Field(
    "max_relative_positions", -1, minimum=0, sentinels=(-1,),
    label=L(
        "Maximum relative distance (max_relative_positions; below 1: use P)",
        "最大相对距离（max_relative_positions；小于 1 时取 P）",
    ),
    sample=(0, 40),
)
POS_ATT_TYPE = Field(
    "pos_att_type", (), kind="flags", choices=("c2p", "p2c"),
    label=L(
        "Relative attention terms (pos_att_type: c2p content→position, p2c position→content)",
        "相对位置注意力项（pos_att_type：c2p 内容→位置，p2c 位置→内容）",
    ),
    sample=(0, 1),
)
POOLER_HIDDEN_SIZE = Field(
    "pooler_hidden_size", None, default_from="hidden_size",
    label=L(
        "ContextPooler width of the classification heads (pooler_hidden_size; default H)",
        "分类头中 ContextPooler 的维度（pooler_hidden_size；默认等于 H）",
    ),
    sample=(1, 48),
)
LEGACY = Field(
    "legacy", True, kind="bool",
    label=L("Legacy MLM head, tied to the word embeddings (legacy)", "旧版 MLM 任务头，与词嵌入共享权重（legacy）"),
    sample=(0, 1),
)

FIELDS = (
    replace(VOCAB, default=50265),
    HIDDEN,
    EMBEDDING_SIZE,
    LAYERS,
    HEADS,
    INTERMEDIATE,
    POSITIONS,
    TOKEN_TYPES,
    POSITION_BIASED_INPUT,
    RELATIVE_ATTENTION,
    MAX_RELATIVE_POSITIONS,
    POS_ATT_TYPE,
    Field(
        "talking_head", False, kind="bool",
        label=L("Talking-heads attention (talking_head)", "Talking-Heads 注意力（talking_head）"), sample=(0, 1),
    ),
    POOLER_HIDDEN_SIZE,
    LEGACY,
    LABELS,
    TIE,
)


def exact_terms(raw: Any) -> dict[str, Any]:
    """The raw config with a *list* ``pos_att_type`` kept to its exact names.

    transformers lower-cases and strips only the ``"a|b"`` string form; list entries are
    compared as they are (``["C2P"]`` builds no ``pos_proj``).
    """
    source = dict(raw)
    terms_ = source.get("pos_att_type")
    if isinstance(terms_, list) and all(isinstance(x, str) for x in terms_):
        source["pos_att_type"] = [x for x in terms_ if x in POS_ATT_TYPE.choices]
    return source


def read(raw: Any) -> dict[str, Any]:
    return read_fields(FIELDS, exact_terms(raw), {})


# ------------------------------------------------------------------ builders shared with DeBERTa-v2


def relative_rows(c: dict[str, Any], buckets: int = -1) -> int:
    """Rows of ``encoder.rel_embeddings``: 2 × buckets if bucketed, else 2 × max_relative_positions (P below 1)."""
    if buckets > 0:
        return 2 * buckets
    span = c["max_relative_positions"]
    return 2 * (span if span >= 1 else c["max_position_embeddings"])


def embeddings(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``DebertaEmbeddings`` / ``DebertaV2Embeddings``: tables of width E, ``embed_proj`` if E ≠ H, LayerNorm."""
    h, e = c["hidden_size"], c["embedding_size"]
    p = prefix + "embeddings."
    t.embedding(p + "word_embeddings", c["vocab_size"], e, "embeddings")
    if c["position_biased_input"]:
        t.embedding(p + "position_embeddings", c["max_position_embeddings"], e, "embeddings")
    if c["type_vocab_size"] > 0:
        t.embedding(p + "token_type_embeddings", c["type_vocab_size"], e, "embeddings")
    if e != h:
        t.linear(p + "embed_proj", h, e, "embeddings", bias=False)
    t.layer_norm(p + "LayerNorm", h, group="embeddings")


def block_tail(t: TensorList, p: str, i: int, h: int, inter: int) -> None:
    """After the self-attention: output projection and LayerNorm, the feed-forward pair, its LayerNorm (BERT's)."""
    t.linear(p + "attention.output.dense", h, h, "attention_output", i)
    t.layer_norm(p + "attention.output.LayerNorm", h, layer=i)
    t.linear(p + "intermediate.dense", inter, h, "feed_forward", i)
    t.linear(p + "output.dense", h, inter, "feed_forward", i)
    t.layer_norm(p + "output.LayerNorm", h, layer=i)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, heads = c["hidden_size"], c["num_attention_heads"]
    rel, terms = c["relative_attention"], c["pos_att_type"]
    embeddings(t, c, prefix)
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}encoder.layer.{i}."
        a = p + "attention.self."
        t.add(a + "q_bias", (h,), "attention_qkv", i)
        t.add(a + "v_bias", (h,), "attention_qkv", i)
        t.linear(a + "in_proj", 3 * h, h, "attention_qkv", i, bias=False)
        if c["talking_head"]:
            t.linear(a + "head_logits_proj", heads, heads, "attention_qkv", i, bias=False)
            t.linear(a + "head_weights_proj", heads, heads, "attention_qkv", i, bias=False)
        if rel and "c2p" in terms:
            t.linear(a + "pos_proj", h, h, "attention_qkv", i, bias=False)
        if rel and "p2c" in terms:
            t.linear(a + "pos_q_proj", h, h, "attention_qkv", i)
        block_tail(t, p, i, h, c["intermediate_size"])
    if rel:
        t.embedding(prefix + "encoder.rel_embeddings", relative_rows(c), h, "relative_position", section="encoder")


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``legacy``: BERT's MLM head at width E, tied to the word table; else ``lm_predictions.lm_head`` (no tie)."""
    h, e, v = c["hidden_size"], c["embedding_size"], c["vocab_size"]
    if c["legacy"]:
        t.add("cls.predictions.bias", (v,), "head")
        t.linear("cls.predictions.transform.dense", e, h, "head")
        t.layer_norm("cls.predictions.transform.LayerNorm", e, group="head")
        bert.tied_decoder(
            t, "cls.predictions.decoder", v, e, prefix + "embeddings.word_embeddings.weight", "cls.predictions.bias",
            c["tie_word_embeddings"],
        )
    else:
        t.add("lm_predictions.lm_head.bias", (v,), "head")
        t.linear("lm_predictions.lm_head.dense", h, h, "head")
        t.layer_norm("lm_predictions.lm_head.LayerNorm", h, group="head")


def context_pooler(t: TensorList, c: dict[str, Any]) -> None:
    """``ContextPooler``: a square Linear of ``pooler_hidden_size``, part of the classification class, not the backbone."""
    width = c["pooler_hidden_size"]
    t.linear("pooler.dense", width, width, "pooler")


def sequence_classification_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """ContextPooler, then ``classifier`` from H (the pooler's ``output_dim`` is hidden_size, whatever its width)."""
    context_pooler(t, c)
    t.linear("classifier", c["num_labels"], c["hidden_size"], "head")


def multiple_choice_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    context_pooler(t, c)
    t.linear("classifier", 1, c["hidden_size"], "head")


# ------------------------------------------------------------------ formula


def terms(*parts: tuple[str, str, int]) -> tuple[str, str, int]:
    """Join (symbolic, substituted, value) terms with " + "."""
    kept = [p for p in parts if p[0]]
    return " + ".join(p[0] for p in kept), " + ".join(p[1] for p in kept), sum(p[2] for p in kept)


def rest_of_layer(h: int, i: int) -> tuple[str, str, int]:
    """BERT's part of a layer after Q, K, V: output projection H² + H, FFN 2HI + I + H, two LayerNorms 4H."""
    return "H² + 2HI + I + 6H", f"{h}² + 2·{h}·{i} + {i} + 6·{h}", h * h + 2 * h * i + i + 6 * h


def embeddings_line(c: dict[str, Any]) -> FormulaLine:
    """V·E [+ P·E] [+ T·E] [+ E·H] + 2H, writing H for E when they are equal."""
    v, h, e, p, tt = (
        c["vocab_size"], c["hidden_size"], c["embedding_size"], c["max_position_embeddings"], c["type_vocab_size"],
    )
    w = "H" if e == h else "E"
    rows = [("V", v)]
    if c["position_biased_input"]:
        rows.append(("P", p))
    if tt > 0:
        rows.append(("T", tt))
    if len(rows) == 1:
        table = (f"V·{w}", f"{v}·{e}", v * e)
    else:
        table = (
            "(" + " + ".join(s for s, _ in rows) + f")·{w}",
            "(" + " + ".join(str(n) for _, n in rows) + f")·{e}",
            sum(n for _, n in rows) * e,
        )
    proj = ("E·H", f"{e}·{h}", e * h) if e != h else ("", "", 0)
    sym, sub, val = terms(table, proj, ("2H", f"2·{h}", 2 * h))
    return FormulaLine("embeddings", sym, sub, val)


def relative_line(c: dict[str, Any], buckets: int = -1) -> FormulaLine:
    """``encoder.rel_embeddings``: 2 rows per relative distance (or bucket), H wide."""
    h = c["hidden_size"]
    if buckets > 0:
        return FormulaLine("relative_embeddings", "2B·H", f"2·{buckets}·{h}", 2 * buckets * h)
    span = c["max_relative_positions"]
    if span >= 1:
        return FormulaLine("relative_embeddings", "2R·H", f"2·{span}·{h}", 2 * span * h)
    p = c["max_position_embeddings"]
    return FormulaLine("relative_embeddings", "2P·H", f"2·{p}·{h}", 2 * p * h)


def pooler_line(c: dict[str, Any]) -> FormulaLine:
    w = c["pooler_hidden_size"]
    if w == c["hidden_size"]:
        return FormulaLine("context_pooler", "H² + H", f"{w}² + {w}", w * w + w)
    return FormulaLine("context_pooler", "C² + C", f"{w}² + {w}", w * w + w)


def has_context_pooler(inv: Inventory) -> bool:
    """The sequence-classification and multiple-choice classes carry a ContextPooler."""
    return inv.arch.task in (Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE)


def symbols(c: dict[str, Any]) -> dict[str, int]:
    out = {
        "V": c["vocab_size"], "H": c["hidden_size"], "L": c["num_hidden_layers"], "A": c["num_attention_heads"],
        "I": c["intermediate_size"], "P": c["max_position_embeddings"],
    }
    if c["embedding_size"] != c["hidden_size"]:
        out["E"] = c["embedding_size"]
    if c["type_vocab_size"] > 0:
        out["T"] = c["type_vocab_size"]
    if c["relative_attention"] and c["max_relative_positions"] >= 1:
        out["R"] = c["max_relative_positions"]
    if c["pooler_hidden_size"] != c["hidden_size"]:
        out["C"] = c["pooler_hidden_size"]
    return out


def formula(inv: Inventory) -> Formula:
    """Embeddings; L layers of fused QKV (3H², q and v biases), relative projections, BERT's rest; rel_embeddings."""
    c = inv.config
    h, i, n, heads = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"], c["num_attention_heads"]
    rel = c["relative_attention"]
    c2p = rel and "c2p" in c["pos_att_type"]
    p2c = rel and "p2c" in c["pos_att_type"]
    if c2p and p2c:
        relative = ("(2H² + H)", f"(2·{h}² + {h})", 2 * h * h + h)
    elif c2p:
        relative = ("H²", f"{h}²", h * h)
    elif p2c:
        relative = ("(H² + H)", f"({h}² + {h})", h * h + h)
    else:
        relative = ("", "", 0)
    per = terms(
        ("3H² + 2H", f"3·{h}² + 2·{h}", 3 * h * h + 2 * h),  # in_proj without bias, q_bias and v_bias
        ("2A²", f"2·{heads}²", 2 * heads * heads) if c["talking_head"] else ("", "", 0),
        relative,
        rest_of_layer(h, i),
    )
    lines = [embeddings_line(c), *layers_lines(*per, n)]
    if relative[0]:
        lines.append(FormulaLine(
            "relative_projections", f"L × {relative[0]}", f"{n} × {relative[2]:,}", n * relative[2], counted=False,
        ))
    if rel:
        lines.append(relative_line(c))
    if has_context_pooler(inv):
        lines.append(pooler_line(c))
    return Formula(symbols(c), tuple(lines + head_line(inv)))


#: Words for the formula lines only the DeBERTa families have (DeBERTa-v2 adds its own).
LABELS_ = {
    "relative_embeddings": L("Relative position embeddings (rel_embeddings)", "相对位置嵌入（rel_embeddings）"),
    "relative_projections": L(
        "of which relative-position projections, all layers (already in the layers)",
        "其中：全部层的相对位置投影（已计入各层）",
    ),
    "context_pooler": L("ContextPooler of the classification head", "分类头的 ContextPooler"),
}


# ------------------------------------------------------------------ training step (shared with DeBERTa-v2)


def mask_as(sim: Sim, mask: T, like: T | None = None) -> T:
    """``attention_mask.unsqueeze(-1).to(dtype)``: the float32 mask itself, or a new copy in another dtype
    (``like``'s under autocast: ``mask.to(embeddings.dtype)``, bf16 after a projection)."""
    size = like.itemsize if like is not None and sim.lower is not None else sim.itemsize
    return mask if mask.itemsize == size else sim.constant((*mask.shape, 1), size)


def step_scale(sim: Sim) -> T:
    """``scaled_size_sqrt(...)``: ``torch.tensor(d, dtype=float)``, ``* scale_factor``, ``sqrt``: three float32
    scalars, each temporary gone once the next is made; the square root is the caller's ``scale``."""
    sim.transients((4, 4), (1, 2), ("aten.lift_fresh", "aten.mul"))
    return sim.constant((), 4, "aten.sqrt")


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, b: int, n: int, mask: T, types: T,
                    norm: Any = None) -> T:
    """``DebertaEmbeddings`` (and ``DebertaV2Embeddings``, copied from it) as its forward drops names: word [+ position, or ``zeros_like`` of the word output
    when the position table is off: made, never read, named until the return] [+ token type], ``embed_proj``,
    LayerNorm, ``* mask`` (the float32 mask, or its copy in the model's dtype, kept by the product), dropout.
    ``norm``: DeBERTa v1's ``DebertaLayerNorm`` (``norm(sim, module, x)``) instead of v2's ``nn.LayerNorm``."""
    c = inv.config
    e = prefix + "embeddings."
    mark = sim.scope()
    ids = sim.ids((b, n))
    x = words = sim.embedding(e + "word_embeddings", ids, first=True)
    if c["position_biased_input"]:
        x = sim.add(x, sim.embedding(e + "position_embeddings", sim.buffer((1, n))))
    else:
        sim.constant(words.shape, words.itemsize, "aten.zeros_like")
    if c["type_vocab_size"] > 0:
        summed = sim.add(x, sim.embedding(e + "token_type_embeddings", types))
        x = summed if x is words else sim.rebind(x, summed)
    if c["embedding_size"] != c["hidden_size"]:
        projected = sim.linear(e + "embed_proj", x)
        x = projected if x is words else sim.rebind(x, projected)
    normed = sim.layer_norm(e + "LayerNorm", x) if norm is None else norm(sim, e + "LayerNorm", x)
    x = normed if x is words else sim.rebind(x, normed)
    x = sim.rebind(x, sim.op_with_constant(x, mask_as(sim, mask, x)))
    return sim.end_scope(mark, sim.rebind(x, sim.dropout(x)))


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``legacy``: BERT's MLM head (its GELU fixed). Else ``DebertaLMPredictionHead``: dense, GELU, LayerNorm,
    matmul by the word table (transposed), + bias. Each step rebinds ``hidden_states``; the product is a temporary
    of ``matmul(...) + self.bias``."""
    if sim.inv.config["legacy"]:
        return [bert.step_mlm(sim, "cls.predictions", seq)]
    h = "lm_predictions.lm_head."
    mark = sim.scope()
    x = sim.linear(h + "dense", seq)
    x = sim.rebind(x, sim.keep_input(x))
    x = sim.rebind(x, sim.layer_norm(h + "LayerNorm", x))
    word = sim.inv.arch.prefix + "embeddings.word_embeddings.weight"
    logits = sim.matmul_param(x, word)
    out = sim.add(logits, sim.parameter(h + "bias", (sim.shapes[word][0],)))
    sim.release(logits, x)
    return [sim.end_scope(mark, out)]


def classification_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """ContextPooler: the first token, dropout (pooler_dropout, 0 by default: the input itself), dense, GELU;
    then dropout and ``classifier`` (``pooled_output`` rebound)."""
    mark = sim.scope()
    first = sim.dropout(sim.select(seq, 1), bool(sim.inv.config.get("pooler_dropout", 0)))
    dense = sim.linear("pooler.dense", first)
    pooled = sim.end_scope(mark, sim.rebind(dense, sim.keep_input(dense)))
    return [sim.linear("classifier", sim.rebind(pooled, sim.dropout(pooled)))]


def token_classifier_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """Dropout (the hidden one), then ``classifier``."""
    return [sim.linear("classifier", sim.dropout(seq))]


#: DeBERTa's and DeBERTa-v2's classes, by task: each head's tensors and its forward (no pooler in the backbone:
#: sequence classification's ContextPooler is its head's). Multiple choice (v2's) is refused before the head.
DEBERTA_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(False, sequence_classification_head, uses_num_labels=True,
                                            step=classification_step),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                         step=token_classifier_step),
    Task.QUESTION_ANSWERING: bert.Head(False, bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True,
                                       step=bert.qa_step),
    Task.MULTIPLE_CHOICE: bert.Head(False, multiple_choice_head),
}


def step_heads(sim: Sim, inv: Inventory, seq: T) -> list[T]:
    """The task classes' heads on the sequence output (the same in DeBERTa and DeBERTa-v2), as the class's task
    picks them from :data:`DEBERTA_HEADS`."""
    return bert.run_head(DEBERTA_HEADS, sim, inv, seq, None)


def step_check_heads(inv: Inventory) -> None:
    """Configurations transformers' own forward fails on, refused with a code rather than costed.

    A ContextPooler narrower or wider than H: its
    dense gets an H-wide token. The non-legacy MLM head multiplies an H-wide state by the E-wide word table.
    """
    c = inv.config
    bert.step_check(inv)
    if inv.arch.task == Task.SEQUENCE_CLASSIFICATION and c["pooler_hidden_size"] != c["hidden_size"]:
        raise CalcError("costs_forward_fails", key="pooler_hidden_size", value=c["pooler_hidden_size"])
    if (inv.arch.task == Task.MASKED_LM and not c["legacy"]
            and c["embedding_size"] != c["hidden_size"]):
        raise CalcError("costs_forward_fails", key="embedding_size", value=c["embedding_size"])


def step_max_seq_len(c: Mapping[str, Any]) -> int | None:
    """A position table only with ``position_biased_input``; relative positions take any length."""
    return c["max_position_embeddings"] if c["position_biased_input"] else None


def step_layer_norm(sim: Sim, module: str, x: T) -> T:
    """``DebertaLayerNorm``, written out in Python (epsilon inside the root), in float32: ``Ops.deberta_layer_norm``
    (what it keeps), :meth:`~calculator.costs.lifetime.LiveSim.deberta_layer_norm` (its nodes, op by op)."""
    return sim.deberta_layer_norm(module, x)


def self_output(sim: Sim, p: str, x: T, residual: T) -> T:
    """``DebertaSelfOutput`` / ``DebertaOutput``: dense, dropout (``hidden_states`` rebound), then the LayerNorm of
    ``hidden_states + input_tensor`` (the sum a temporary of the call), every name gone as it returns."""
    mark = sim.scope()
    y = sim.linear(p + "dense", x)
    y = sim.rebind(y, sim.dropout(y))
    summed = sim.add(y, residual)
    out = step_layer_norm(sim, p + "LayerNorm", summed)
    sim.release(summed)
    return sim.end_scope(mark, out)


def step_attention(sim: Sim, p: str, c: dict[str, Any], x: T, rel: T | None, rel_pos: T | None) -> T:
    """DeBERTa's ``DisentangledSelfAttention`` up to the context [B, L, H] (eager, ``modeling_deberta.py``), every
    name dropped where its Python drops it.

    ``in_proj`` [B, L, 3H] viewed [B, L, A, 3D], permuted and chunked: Q, K, V are strided views (one
    ``SplitBackward0``); ``+ q_bias`` and ``+ v_bias`` and Q's division by its scale (which keeps the 0-dim scale)
    keep that [B, L, A, D] layout, so ``matmul`` copies them to 3-D. The relative terms (:func:`step_relative_bias`)
    read the dropped-out table (``pos_dropout``, the whole table each layer); their sum ``rel_att`` is named until
    the return. Then ``attention_mask.bool()`` (named until the return), ``masked_fill(~mask, min)`` (keeps the
    inverted mask; named until the return), softmax, dropout, ``matmul`` with V, back to [B, L, H] (a copy).
    ``talking_head`` mixes the heads before the mask and after the dropout (:func:`step_mix_heads`).
    """

    a = p + "attention.self."
    heads = c["num_attention_heads"]
    b, n, h = x.shape
    d = h // heads
    mark = sim.scope()
    qp = sim.linear(a + "in_proj", x)
    q, k, v = sim.chunk_thirds(sim.permute(sim.view(qp, (b, n, heads, 3 * d)), (0, 2, 1, 3)))
    q = sim.add_head_bias(q, a + "q_bias")
    v = sim.add_head_bias(v, a + "v_bias")
    scale = step_scale(sim)
    read = scale if q.itemsize == 4 else sim.constant((), q.itemsize, "aten._to_copy")  # scale.to(dtype)
    q = sim.rebind(q, sim.divide_laid_out(q, read))
    if read is not scale:
        sim.release(read)  # a temporary of the expression (kept by the division)
    scores = sim.bmm(q, sim.transpose(k, 2, 3))
    if rel is not None and rel_pos is not None:
        # pos_dropout: ``rel_embeddings`` rebound in this function; with no term its product is read by no node the
        # loss reaches (:meth:`Sim.discarded`: its node, and the mask it keeps, go as this function returns)
        dropped = sim.dropout(rel) if reads_table(c) else sim.discarded(lambda: sim.dropout(rel))
        bias = step_relative_bias(sim, a, c, q, k, dropped, b)
        scores = sim.rebind(scores, sim.add(scores, bias) if bias is not None else sim.plus_scalar(scores))
    else:
        scores = sim.rebind(scores, sim.plus_scalar(scores))  # ``attention_scores + 0``
    if c["talking_head"]:
        mixed = step_mix_heads(sim, a + "head_logits_proj", scores)
        scores = sim.rebind(scores, sim.permute(mixed, (0, 3, 1, 2)))
    sim.constant((b, 1, n, n), 1, "aten._to_copy")  # attention_mask.bool(): named until the return
    inverted = sim.constant((b, 1, n, n), 1, "aten.bitwise_not")  # ~mask: kept by masked_fill
    scores = sim.rebind(scores, sim.masked_fill(scores, inverted))
    sim.release(inverted)
    probs = sim.keep_output(scores)  # softmax; ``attention_scores`` named until the return
    probs = sim.rebind(probs, sim.dropout(probs))
    if c["talking_head"]:
        mixed = step_mix_heads(sim, a + "head_weights_proj", probs)
        probs = sim.rebind(probs, sim.permute(mixed, (0, 3, 1, 2)))
    context = sim.bmm(probs, v)
    context = sim.rebind(context, sim.contiguous(sim.permute(context, (0, 2, 1, 3))))
    return sim.end_scope(mark, sim.view(context, (b, n, h)))


def step_mix_heads(sim: Sim, module: str, t: T) -> T:
    """Talking heads: a head-mixing Linear on ``t.permute(0, 2, 3, 1)`` (no bias): ``matmul`` copies the strided
    input to [B·L·L, A] (a temporary of the call, kept only when the product saves it), multiplies, and views the
    product [B, L, L, A]."""
    b, heads, n, m = t.shape
    flat = sim.reshape(sim.permute(t, (0, 2, 3, 1)), (b * n * m, heads))
    mixed = sim.linear(module, flat)
    if sim.grad_mode and heads > 1 and module not in sim.lora and not sim.param_trains(module + ".weight"):
        # a frozen weight (no gradient): matmul's should_fold declines the permuted input (its first dimensions do
        # not merge), so the same copy and product come from bmm (expand, clone, bmm: measured, the peak's op)
        sim.made_by(mixed, "aten.bmm")
    if flat.storage != t.storage:
        sim.release(flat)
    return sim.view(mixed, (b, n, m, heads))


def step_relative_bias(sim: Sim, a: str, c: dict[str, Any], q: T, k: T, table: T, b: int) -> T | None:
    """``disentangled_att_bias``: ``att_span`` (an int64 0-dim tensor named until the return; the slice's bounds
    two more, gone at once), 2·min(L, R) rows of the dropped-out table, then per term its projection viewed as heads
    (c2p: ``pos_proj``; p2c: ``pos_q_proj``, divided in place by a float32 0-dim scale), ``matmul`` against the
    projection expanded over B (a copy), the clamped positions (int64 temporaries, the clamp kept by ``gather``),
    ``gather`` (keeping the product). ``score = 0 + c2p``, then ``score += p2c`` in place; each projection and
    each gathered term named until the return. None: no term."""
    terms = [t for t in ("c2p", "p2c") if t in c["pos_att_type"]]
    heads = c["num_attention_heads"]
    n, h = q.shape[2], table.shape[1]
    d = h // heads
    span = min(n, relative_span(c))
    ll = 8 * n * n
    mark = sim.scope()
    sim.constant((), 8, "aten.lift_fresh")  # att_span
    sim.transients((8, 8), (1, 1), ("aten.rsub", "aten.add"))  # the slice's bounds, tensors
    rows = sim.slice_rows(table, relative_span(c) - span, 2 * span)
    score: T | None = None

    def heads_of(t: T) -> T:
        return sim.permute(sim.view(t, (1, 2 * span, heads, d)), (0, 2, 1, 3))

    def gathered(left: T, pos: T) -> T:
        att = sim.bmm(left, sim.expand(sim.transpose(pos, 2, 3), (b, heads, d, 2 * span)))
        return att

    if "c2p" in terms:
        pos_k = heads_of(sim.linear(a + "pos_proj", rows))
        att = gathered(q, pos_k)
        sim.transients((ll, 8, 8), (3, 2, 3), ("aten.add", "aten.mul", "aten.sub"))  # relative_pos + span, clamp's
        index = sim.constant((1, 1, n, n), 8, "aten.clamp")
        att = sim.rebind(att, sim.gather(att, sim.expand(index, (b, heads, n, n)), (b, heads, n, n)))
        score = sim.plus_scalar(att)
    if "p2c" in terms:
        pos_q = heads_of(sim.linear(a + "pos_q_proj", rows))
        factor = step_scale(sim)
        pos_q = sim.divide_view_(pos_q, factor)
        sim.release(factor)
        sim.transients((ll, ll, 8, 8), (1, 4, 3, 4), ("aten.neg", "aten.add", "aten.mul", "aten.sub"))
        index = sim.constant((1, 1, n, n), 8, "aten.clamp")
        att = gathered(k, pos_q)
        att = sim.rebind(att, sim.gather(att, sim.expand(index, (b, heads, n, n)), (b, heads, n, n)))
        term = sim.transpose(att, 2, 3)
        score = sim.add_(score, term) if score is not None else sim.plus_scalar(term)
    if score is None:  # it returns the number 0: every local goes
        sim.end_scope(mark, table)
        return None
    return sim.end_scope(mark, score)


def relative_span(c: Mapping[str, Any]) -> int:
    """``max_relative_positions``, or P when it is below 1."""
    span = c["max_relative_positions"]
    return span if span >= 1 else c["max_position_embeddings"]


def step_layer(p: str, c: dict[str, Any], rel: T | None, rel_pos: T | None) -> Callable[[Sim, T], T]:
    """One ``DebertaLayer``: disentangled attention, its output (dense, dropout, DebertaLayerNorm), the GELU
    intermediate and the output, each name dropped where ``modeling_deberta.py`` drops it."""

    def run(sim: Sim, x: T) -> T:
        layer = sim.scope()
        context = step_attention(sim, p, c, x, rel, rel_pos)
        attended = self_output(sim, p + "attention.output.", context, x)
        sim.release(context)  # DebertaAttention returns: ``self_output`` gone
        inner = sim.linear(p + "intermediate.dense", attended)
        inner = sim.rebind(inner, sim.act("hidden_act", inner))
        out = self_output(sim, p + "output.", inner, attended)
        return sim.end_scope(layer, out)

    return run


def step_encoder(sim: Sim, inv: Inventory, prefix: str, x: T, mask: T) -> T:
    """``DebertaEncoder``: the float32 mask [B, 1, L, L] (``get_attention_mask``), the relative positions
    (``build_relative_position``: two aranges, a repeat, their difference [1, L, L] int64), the raw relative table,
    every layer; the layers' outputs stay named (``all_hidden_states``, returned to the model)."""
    c = inv.config
    b, n = x.shape[0], x.shape[1]
    e = prefix + "encoder."
    layers = c["num_hidden_layers"]
    mark = sim.scope()
    extended = sim.constant((b, 1, n, n), 4, "aten.mul")  # get_attention_mask: float32 [B, 1, L, L]
    rel = rel_pos = None
    if c["relative_attention"]:
        sim.transients((8 * n, 8 * n, 8 * n * n), (3, 3, 3), ("aten.arange", "aten.arange", "aten.repeat"))
        rel_pos = sim.constant((1, n, n), 8, "aten.sub")
        def table() -> T:
            return sim.parameter(e + "rel_embeddings.weight", sim.shapes[e + "rel_embeddings.weight"])
        if layers:  # ``get_rel_embedding``: the table itself, read by every layer (by no reached node: no term)
            rel = table() if reads_table(c) else sim.discarded(table)
        if not reads_table(c) or not layers:
            sim.used.discard(e + "rel_embeddings.weight")  # no term reads it: no .grad
    if sim.checkpointing and layers:
        step_layer_arguments(sim, extended, rel_pos, rel)
    outputs = []  # all_hidden_states: every layer's output, returned to the model
    for i in range(layers):
        x = sim.layer(step_layer(f"{e}layer.{i}.", c, rel, rel_pos), x)
        outputs.append(x)
    return sim.end_scope(mark, x, *outputs)


def step_layer_arguments(sim: Sim, mask: T, rel_pos: T | None, rel: T | None) -> None:
    """What checkpointing keeps besides each layer's hidden states (DeBERTa's and DeBERTa-v2's encoders): the layer
    is checkpointed as ``checkpoint(partial(forward, **kwargs), hidden_states, attention_mask)``. Non-reentrant: each
    frame keeps the mask, the relative positions and table (the partial's keywords) until the backward has run the
    layer. Reentrant: ``CheckpointFunction`` saves the mask (a positional argument) for each layer's node, and the
    partial, ``ctx.run_function``, keeps its keywords until the graph goes. The tape counts the mask saved once
    either way."""
    if not sim.reentrant:
        sim.frame_keeps(mask, *(t for t in (rel_pos, rel) if t is not None))
        sim.save(mask)
        return
    sim.checkpoint_argument(mask)
    for t in (rel_pos, rel):
        if t is not None and sim.storages.get(t.storage, 0):  # the table itself is a parameter: no storage of the step
            sim.layer_argument(t, counted=False)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """DeBERTa's classes: ``DebertaModel.forward`` (the float32 mask of ones and the int64 token types it makes,
    the embeddings with DebertaLayerNorm, the encoder; every layer's output named until it returns), the head.

    Every release is declared (the forward is replayed exactly, :meth:`~.ops.Ops.exact_forward`) for the classes
    whose every operation the lifetime simulator models, in every configuration (talking heads, a relative table no
    term reads: :func:`reads_table`)."""

    prefix = bert.step_prefix(inv)
    if bert.step_task(inv) in EXACT_LIFETIMES:
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()  # without layers (fails_under_autocast): the embeddings' casts, the heads' (v2's)
    mark = sim.scope()
    mask = sim.constant((b, n), 4, "aten.ones")  # torch.ones(input_shape): float32 whatever the model's dtype
    types = sim.constant((b, n), 8, "aten.zeros")  # token_type_ids
    x = step_embeddings(sim, inv, prefix, b, n, mask, types, step_layer_norm)
    seq = sim.end_scope(mark, step_encoder(sim, inv, prefix, x, mask))
    return step_heads(sim, inv, seq)


def reads_table(c: Mapping[str, Any]) -> bool:
    """A relative term (``c2p``, ``p2c``) reads the relative table: else each attention drops it out for nothing
    (``"p2p"``, an empty list), a branch no node the loss reaches reads."""
    return any(t in c["pos_att_type"] for t in ("c2p", "p2c"))




#: DeBERTa's classes whose every operation the lifetime simulator models (:mod:`calculator.costs.lifetime`).
EXACT_LIFETIMES = (Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION,
                   Task.QUESTION_ANSWERING)


def fails_under_autocast(c: Mapping[str, Any]) -> bool:
    """Every layer's ``DisentangledSelfAttention`` under bf16 autocast: ``query_layer`` is ``in_proj``'s bf16 output
    plus the float32 ``q_bias`` (float32), the scores bf16 (``matmul``), and ``masked_fill(~mask,
    torch.finfo(query_layer.dtype).min)`` writes float32's minimum into bf16: PyTorch raises "value cannot be
    converted to type c10::BFloat16 without overflow", training and inference, whatever else the config says
    (measured: tests/crosscheck/test_costs_autocast.py). Without layers the step runs (no attention)."""
    return bool(c["num_hidden_layers"] > 0)


COSTS = CostModel(step_program, step_max_seq_len, check=step_check_heads, keys=unread((activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"), *dropouts("pooler_dropout", default=0.0), activation_key("gelu", key="pooler_hidden_act"))), buffers=position_ids_buffer,
                  reentrant=True, autocast=True, autocast_fails=fails_under_autocast)


# ------------------------------------------------------------------ random configs


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Valid heads; E, the pooler width and the pair of relative terms varied; both spellings of pos_att_type."""
    heads_divide()(rng, config)
    h = config["hidden_size"]
    for key in ("embedding_size", "pooler_hidden_size"):
        choice = rng.random()
        if choice < 0.4:
            config.pop(key, None)
        elif choice < 0.6:
            config[key] = h
    if rng.random() < 0.7:
        config["relative_attention"] = True
    if rng.random() < 0.3:
        config["max_relative_positions"] = -1
    terms_ = config.get("pos_att_type")
    if isinstance(terms_, list) and rng.random() < 0.4:
        # transformers splits "a|b" (lower-cased, stripped) and ignores names it does not know
        config["pos_att_type"] = "|".join([t.upper() if rng.random() < 0.3 else t for t in terms_] + ["p2p"])
    elif isinstance(terms_, list) and rng.random() < 0.2:
        config["pos_att_type"] = [t.upper() if rng.random() < 0.5 else t for t in terms_]  # list entries: exact only


def deberta_config(vocab: int, hidden: int, layers: int, heads: int, inter: int) -> dict[str, Any]:
    """A published DeBERTa (v1) config.json's size-relevant keys."""
    return {
        "model_type": "deberta",
        "vocab_size": vocab,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter,
        "max_position_embeddings": 512,
        "type_vocab_size": 0,
        "relative_attention": True,
        "max_relative_positions": -1,
        "position_biased_input": False,
        "pos_att_type": "c2p|p2c",
    }


FAMILY = Family(
    peft_targets=("in_proj",),
    model_type="deberta",
    base="DebertaModel",
    fields=FIELDS,
    backbone=backbone,
    read=read,
    architectures=bert.task_classes("Deberta", "deberta.", (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING),
        DEBERTA_HEADS),
    title={"en": "DeBERTa", "zh": "DeBERTa"},
    formula=formula,
    # The published config.json lists no architectures, so it loads as the base model.
    presets=(
        Preset("microsoft/deberta-base", deberta_config(50265, 768, 12, 12, 3072), "DebertaModel"),
    ),
    sample=sample,
    rank=52,
    labels=LABELS_,
    costs=COSTS,
    untrained_modules=("pooler",),
)

