"""XLM (``modeling_xlm.py``): Facebook's cross-lingual language model, 2019; FlauBERT (:mod:`.flaubert`) is its
French sibling with the same tensors.

* Its own key names: ``emb_dim``, ``n_layers``, ``n_heads`` (``XLMConfig.attribute_map`` also takes the generic
  ``hidden_size``, ``num_hidden_layers``, ``num_attention_heads``, and ``n_words`` for ``vocab_size``). The
  feed-forward width is always 4 × ``emb_dim`` (no key).
* Embeddings: ``position_embeddings`` [P, D], then ``lang_embeddings`` [n_langs, D] only when ``n_langs`` > 1
  and ``use_lang_emb`` (xlm-mlm-100-1280 has 100 languages and no such table), then the token table
  ``embeddings`` (``padding_idx`` = ``pad_token_id``, 2), then ``layer_norm_emb``.
* ``sinusoidal_embeddings`` only *fills* the position table with sines: it stays a trainable parameter.
* The layers are four ``nn.ModuleList``s, so ``state_dict`` lists every layer's attention first
  (``attentions.0`` … ``attentions.N-1``), then every ``layer_norm1``, then every ``ffns``, then every
  ``layer_norm2``: not layer by layer.
* ``XLMWithLMHeadModel``'s ``pred_layer.proj`` is a Linear tied to the token table; with ``asm`` it is an
  ``nn.AdaptiveLogSoftmaxWithLoss`` (``asm_cutoffs``, ``asm_div_value``): a head [cutoffs[0] + clusters, D]
  with a bias and, per cluster, two bias-free Linears D → D // div^(i+1) → cluster size; the tie then adds a
  ``weight`` to that module (the token table again, counted once).
* The classification heads are ``XLMSequenceSummary`` (``summary_use_proj``, ``summary_proj_to_labels``); the
  full question-answering class has the SQuAD head (start, end and answer-class layers).
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Mapping

from ..config import Field, read_fields
from ..costs import CostModel, Sim, T, dropouts, flag_key, unread
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Family, Preset, Task
from .common import HEADS, HIDDEN, LABELS, LAYERS, POSITIONS, TIE, VOCAB, L, heads_divide, value_extra


def _flag(key: str, default: bool, en: str, zh: str) -> Field:
    return Field(key, default, kind="bool", label=L(en, zh), sample=(0, 1))


FIELDS = (
    replace(VOCAB, default=30145),
    replace(HIDDEN, key="emb_dim", default=2048, label=L("Hidden size (emb_dim, D; the feed-forward is 4D)",
                                                          "隐藏层维度（emb_dim，D；前馈网络中间层为 4D）")),
    replace(LAYERS, key="n_layers", label=L("Layers (n_layers, L)", "层数（n_layers，L）")),
    replace(HEADS, key="n_heads", default=16, label=L("Attention heads (n_heads)", "注意力头数（n_heads）")),
    POSITIONS,
    Field("n_langs", 1, label=L("Languages (n_langs; a table of their own when > 1)",
                                "语言数（n_langs；大于 1 时有自己的语言嵌入表）"), sample=(1, 4)),
    _flag("use_lang_emb", True, "Language embeddings (use_lang_emb; only when n_langs > 1)",
          "语言嵌入（use_lang_emb；仅在 n_langs 大于 1 时生效）"),
    _flag("sinusoidal_embeddings", False, "Sinusoidal positions (sinusoidal_embeddings; still a trainable table)",
          "正弦位置编码（sinusoidal_embeddings；仍是可训练的参数表）"),
    _flag("gelu_activation", True, "GELU activation (gelu_activation; else ReLU; adds no parameters)",
          "GELU 激活函数（gelu_activation；否则为 ReLU；不增加参数）"),
    _flag("asm", False, "Adaptive softmax head (asm; XLMWithLMHeadModel)", "自适应 softmax 输出层（asm；XLMWithLMHeadModel）"),
    Field("asm_cutoffs", None, kind="ints", optional=True,
          label=L("Adaptive softmax cutoffs (asm_cutoffs, e.g. 8000|20000; with asm)",
                  "自适应 softmax 的分段点（asm_cutoffs，例如 8000|20000；asm 开启时）")),
    _flag("summary_use_proj", True, "Projection in the summary head (summary_use_proj)",
          "序列汇总头带投影层（summary_use_proj）"),
    _flag("summary_proj_to_labels", True, "Summary projection onto the labels (summary_proj_to_labels; else onto D)",
          "汇总投影的输出维度为标签数（summary_proj_to_labels；否则为 D）"),
    LABELS,
    TIE,
)

#: ``XLMConfig.attribute_map`` (the token ids' aliases aside).
ALIASES = {"hidden_size": "emb_dim", "num_attention_heads": "n_heads", "num_hidden_layers": "n_layers",
           "n_words": "vocab_size"}


def _div_value(raw: Mapping[str, Any]) -> float | None:
    """``asm_div_value`` as a number > 0 (transformers passes it to ``AdaptiveLogSoftmaxWithLoss``), or None."""
    value = raw.get("asm_div_value")
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise CalcError("bad_value", key="asm_div_value", value=value) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e6:
        raise CalcError("bad_value", key="asm_div_value", value=value)
    return float(value)


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and the adaptive softmax's divisor (read only by the LM head class, see :func:`lm_head`)."""
    values = read_fields(FIELDS, raw, ALIASES)
    values["asm_div_value"] = _div_value(raw)
    return values


def check_asm(c: Mapping[str, Any]) -> None:
    """What ``AdaptiveLogSoftmaxWithLoss`` (and transformers, reading ``config.asm_cutoffs``) refuses: cutoffs
    missing, unsorted, repeated, or past the vocabulary; no divisor. Only the LM head class builds it."""
    cutoffs = c["asm_cutoffs"]
    if not cutoffs or list(cutoffs) != sorted(set(cutoffs)) or cutoffs[-1] > c["vocab_size"] - 1:
        raise CalcError("bad_value", key="asm_cutoffs", value=None if cutoffs is None else list(cutoffs))
    if c["asm_div_value"] is None:
        raise CalcError("bad_value", key="asm_div_value", value=None)


def has_lang_table(c: Mapping[str, Any]) -> bool:
    return c["n_langs"] > 1 and c["use_lang_emb"]


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    d, n = c["emb_dim"], c["n_layers"]
    t.embedding(prefix + "position_embeddings", c["max_position_embeddings"], d)
    if has_lang_table(c):
        t.embedding(prefix + "lang_embeddings", c["n_langs"], d)
    t.embedding(prefix + "embeddings", c["vocab_size"], d)
    t.layer_norm(prefix + "layer_norm_emb", d, group="embeddings")
    for i in range(n):
        for proj in ("q_lin", "k_lin", "v_lin"):
            t.linear(f"{prefix}attentions.{i}.{proj}", d, d, "attention_qkv", i)
        t.linear(f"{prefix}attentions.{i}.out_lin", d, d, "attention_output", i)
    for i in range(n):
        t.layer_norm(f"{prefix}layer_norm1.{i}", d, layer=i)
    for i in range(n):
        t.linear(f"{prefix}ffns.{i}.lin1", 4 * d, d, "feed_forward", i)
        t.linear(f"{prefix}ffns.{i}.lin2", d, 4 * d, "feed_forward", i)
    for i in range(n):
        t.layer_norm(f"{prefix}layer_norm2.{i}", d, layer=i)


def asm_sizes(c: Mapping[str, Any]) -> tuple[int, list[tuple[int, int]]]:
    """``AdaptiveLogSoftmaxWithLoss``'s head rows (shortlist + clusters) and each cluster's (hidden, rows)."""
    cutoffs = list(c["asm_cutoffs"]) + [c["vocab_size"]]
    d, div = c["emb_dim"], c["asm_div_value"]
    tails = [(int(d // (div ** (i + 1))), cutoffs[i + 1] - cutoffs[i]) for i in range(len(cutoffs) - 1)]
    return cutoffs[0] + len(cutoffs) - 1, tails


def lm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``XLMPredLayer``: a Linear onto the vocabulary tied to the token table, or the adaptive softmax."""
    d, v, tie = c["emb_dim"], c["vocab_size"], c["tie_word_embeddings"]
    table = prefix + "embeddings.weight"
    if not c["asm"]:
        t.add("pred_layer.proj.weight", (v, d), "head", shares=table if tie else None, module="linear")
        t.add("pred_layer.proj.bias", (v,), "head", module="linear")
        return
    check_asm(c)
    if tie:  # tie_weights sets the module's ``weight`` to the token table: listed, counted once
        t.add("pred_layer.proj.weight", (v, d), "head", shares=table)
    rows, tails = asm_sizes(c)
    t.add("pred_layer.proj.head.weight", (rows, d), "head", module="linear")
    t.add("pred_layer.proj.head.bias", (rows,), "head", module="linear")
    for i, (hidden, size) in enumerate(tails):
        t.linear(f"pred_layer.proj.tail.{i}.0", hidden, d, "head", bias=False)
        t.linear(f"pred_layer.proj.tail.{i}.1", size, hidden, "head", bias=False)


def summary_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``XLMSequenceSummary``: a Linear onto the labels (or onto D), or nothing without ``summary_use_proj``."""
    if c["summary_use_proj"]:
        out = c["num_labels"] if c["summary_proj_to_labels"] and c["num_labels"] > 0 else c["emb_dim"]
        t.linear("sequence_summary.summary", out, c["emb_dim"], "head")


def choice_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    summary_head(t, c, prefix)
    t.linear("logits_proj", 1, c["num_labels"], "head")


def squad_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``XLMSQuADHead``: start logits, end logits (on [start; hidden], 2D wide), the answer class."""
    d = c["emb_dim"]
    t.linear("qa_outputs.start_logits.dense", 1, d, "head")
    t.linear("qa_outputs.end_logits.dense_0", d, 2 * d, "head")
    t.layer_norm("qa_outputs.end_logits.LayerNorm", d, group="head")
    t.linear("qa_outputs.end_logits.dense_1", 1, d, "head")
    t.linear("qa_outputs.answer_class.dense_0", d, 2 * d, "head")
    t.linear("qa_outputs.answer_class.dense_1", 1, d, "head", bias=False)


def formula(inv: Inventory) -> Formula:
    """Position, language and token tables with their LayerNorm; L layers of 12D² + 13D; the head."""
    c = inv.config
    v, d, p, n = c["vocab_size"], c["emb_dim"], c["max_position_embeddings"], c["n_layers"]
    if has_lang_table(c):
        g = c["n_langs"]
        emb = FormulaLine("embeddings", "(P + N + V)·D + 2D", f"({p} + {g} + {v})·{d} + 2·{d}", (p + g + v) * d + 2 * d)
    else:
        emb = FormulaLine("embeddings", "(P + V)·D + 2D", f"({p} + {v})·{d} + 2·{d}", (p + v) * d + 2 * d)
    per = 12 * d * d + 13 * d  # Q, K, V, O with biases; D → 4D → D with biases; two LayerNorms
    lines = [emb, *layers_lines("12D² + 13D", f"12·{d}² + 13·{d}", per, n)]
    symbols = {"V": v, "D": d, "P": p, "L": n}
    if has_lang_table(c):
        symbols["N"] = c["n_langs"]
    return Formula(symbols, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads divide the width; an adaptive softmax now and then, always with cutoffs inside the vocabulary and
    mostly a divisor (a config without them is refused on both sides: tests/crosscheck/test_xlm_refusals.py)."""
    heads_divide("emb_dim", "n_heads")(rng, config)
    if rng.random() < 0.3:
        config["asm"] = True
    if config.get("asm"):
        v = config.get("vocab_size", 30145)
        cuts = sorted(rng.sample(range(1, max(2, v - 1)), min(rng.randint(1, 3), max(1, v - 2))))
        config["asm_cutoffs"] = cuts
        config["asm_div_value"] = rng.choice([1.5, 2.0, 4.0])
    elif "asm_cutoffs" in config:
        config.pop("asm_cutoffs")


# --------------------------------------------------------------- training step


def step_attention(sim: Sim, x: T, heads: int, p: str, cache: list[T]) -> T:
    """``MultiHeadAttention``, every name dropped where ``modeling_xlm.py`` drops it.

    q, k, v projected and split into heads; the model's ``EncoderDecoderCache`` (made even in training) stores k
    and v by ``torch.cat`` of an empty tensor and them: two contiguous copies it holds until the model returns
    (``cache`` receives them), the projections' outputs dropped as ``k, v`` are rebound; ``q / sqrt(head_dim)``
    (a new tensor in q's transposed layout, so ``matmul`` copies it); the scores filled in place where
    ``(mask == 0)`` (a fresh [B, L] bool tensor, kept by the fill's backward); softmax of ``scores.float()``, then
    ``.type_as(scores)`` (both casts copies in bf16, no-ops in float32); dropout; the context made contiguous
    again (rebinding) for ``out_lin``. q, the scores and the bool mask go as it returns."""
    b, n, width = x.shape
    d = width // heads

    def split(t: T) -> T:
        return sim.transpose(sim.view(t, (b, n, heads, d)), 1, 2)

    mark = sim.scope()
    q = split(sim.linear(p + "q_lin", x))
    k = split(sim.linear(p + "k_lin", x))
    v = split(sim.linear(p + "v_lin", x))
    k_cached = sim.concat([k], 2)  # torch.cat([self.keys (empty), key_states], dim=-2)
    v_cached = sim.concat([v], 2)
    sim.release(k, v)  # ``k, v = curr_past_key_values.update(k, v, ...)``
    q = sim.rebind(q, sim.divided(q))
    scores = sim.bmm(q, sim.transpose(k_cached, 2, 3))
    zero = sim.made_by(sim.mask((b, n)), "aten.eq")  # mask = (mask == 0).view(...).expand_as(scores)
    scores = sim.masked_fill_(scores, zero)
    if scores.itemsize != 4:
        wide = sim.cast(scores, 4)  # scores.float()
        weights = sim.keep_output(wide, 4)
        sim.release(wide)
        weights = sim.rebind(weights, sim.cast(weights, scores.itemsize))  # .type_as(scores)
    else:
        weights = sim.keep_output(scores)
    weights = sim.rebind(weights, sim.dropout(weights, sim.drops("attention_dropout")))
    context = sim.bmm(weights, v_cached)
    context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
    out = sim.linear(p + "out_lin", sim.view(context, (b, n, width)))
    cache += [k_cached, v_cached]
    return sim.end_scope(mark, out, k_cached, v_cached)


def padding_mask(sim: Sim, x: T) -> T:
    """``tensor *= mask.unsqueeze(-1).to(tensor.dtype)``: a fresh [B, L, 1] factor, kept by the in-place product
    (else dropped at once)."""
    factor = sim.made_by(sim.new((x.shape[0], x.shape[1], 1), False, x.itemsize), "aten._to_copy")
    out = sim.scale_(x, factor)
    sim.release(factor)
    return out


def step_program(sim: Sim, inv: Inventory, b: int, n: int, positions_per_row: bool = False) -> list[T]:
    """XLM's (and FlauBERT's post-norm) classes the step covers, every name dropped where ``modeling_xlm.py``
    drops it: the lengths (``(input_ids != pad).sum(1)``, kept by the model) and ``get_masks``' temporaries (two
    ``lengths.max()``, ``arange``) and padding mask ``alen < lengths[:, None]`` (kept); tokens (named
    ``inputs_embeds`` until the model returns) + positions (a slice of a buffer, ``expand_as``), LayerNorm,
    dropout, the padding mask in place; per layer attention (its output held by ``attn_outputs`` until the next
    attention returns), dropout, residual, LayerNorm, the feed-forward network (GELU or ReLU, dropout), residual,
    LayerNorm, the padding mask; then the head.

    ``positions_per_row``: FlauBERT's model expands the buffer's slice to [B, L] before the lookup (``position_ids
    .expand((bs, slen))``), so the table's output is [B, L, D] and ``expand_as`` keeps its shape."""
    c = inv.config
    prefix = bert.step_prefix(inv)
    if not c.get("causal"):  # a causal model's [B, L, L] mask: not replayed here
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared below
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies, the residuals' promoting adds)
    model = sim.scope()  # XLMModel.forward
    ids = sim.ids((b, n))  # input_ids (the program's first index tensor: live from the start)
    ne = sim.named_transient(b * n, "aten.ne")
    lengths = sim.named_transient(8 * b, "aten.sum")
    sim.drop_transient(ne)
    sim.transients((8,), (0,), ("aten.max",))  # assert lengths.max().item() <= slen
    alen = sim.named_transient(8 * n, "aten.arange")
    sim.transients((8,), (0,), ("aten.max",))
    mask = sim.named_transient(b * n, "aten.lt")
    sim.drop_transient(alen)
    words = sim.embedding(prefix + "embeddings", ids, first=True)  # inputs_embeds: named until the return
    position_ids = sim.buffer((1, n))
    if positions_per_row:
        position_ids = sim.expand(position_ids, (b, n))
    positions = sim.embedding(prefix + "position_embeddings", position_ids)
    x = sim.add(words, sim.expand(positions, words.shape))
    sim.release(positions)
    x = sim.rebind(x, sim.layer_norm(prefix + "layer_norm_emb", x))
    x = sim.rebind(x, sim.dropout(x, sim.drops("dropout")))
    x = padding_mask(sim, x)
    act = "gelu" if c["gelu_activation"] else "relu"
    cache: list[T] = []
    held: list[T] = []  # the last attention's output (``attn_outputs``) and its dropout (``attn``)
    for i in range(c["n_layers"]):
        attn = step_attention(sim, x, c["n_heads"], f"{prefix}attentions.{i}.", cache)
        sim.release(*held)
        dropped = sim.dropout(attn, sim.drops("dropout"))
        held = [attn, dropped]
        x = sim.rebind(x, sim.add(x, dropped))
        x = sim.rebind(x, sim.layer_norm(f"{prefix}layer_norm1.{i}", x))
        chunk = sim.scope()  # TransformerFFN.ff_chunk
        inner = sim.linear(f"{prefix}ffns.{i}.lin1", x)
        inner = sim.rebind(inner, sim.activation(act, inner))
        out = sim.rebind(inner, sim.linear(f"{prefix}ffns.{i}.lin2", inner))
        out = sim.end_scope(chunk, sim.rebind(out, sim.dropout(out, sim.drops("dropout"))))
        y = sim.add(x, out)
        sim.release(out)
        x = sim.rebind(x, y)
        x = sim.rebind(x, sim.layer_norm(f"{prefix}layer_norm2.{i}", x))
        x = padding_mask(sim, x)
    sim.release(words, *held, *cache)
    sim.drop_transient(lengths)
    sim.drop_transient(mask)
    x = sim.end_scope(model, x)
    return bert.run_head(XLM_HEADS, sim, inv, x, None, "dropout")  # the token classifier's dropout: ``dropout``


def lm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``XLMPredLayer`` without the adaptive softmax (:func:`step_check` refuses it): ``pred_layer.proj``."""
    return [sim.linear("pred_layer.proj", seq)]


def step_check(inv: Inventory) -> None:
    """What transformers' own step cannot run: the adaptive softmax's ``log_prob`` takes [N, D] rows, not the
    [B, L, D] states (a RuntimeError); the simple QA head splits its logits into exactly two."""
    c = inv.config
    if c["asm"] and inv.arch.task == Task.LM_HEAD_MODEL:
        raise CalcError("costs_forward_fails", key="asm", value=True)
    if inv.arch.task == Task.QUESTION_ANSWERING_SIMPLE and c["num_labels"] != 2:
        raise CalcError("labels_fixed", architecture=inv.architecture, required=2, value=c["num_labels"])


def covered(name: str) -> tuple[str, ...]:
    """The classes the step covers: the base model, the LM head, token classification and the simple QA head
    (the summary heads' summary_type and summary_activation, and the SQuAD head's beam search, are not modelled)."""
    return tuple(f"{name}{suffix}" for suffix in ("Model", "WithLMHeadModel", "ForTokenClassification",
                                                  "ForQuestionAnsweringSimple"))


#: XLMConfig's defaults: ``dropout`` and ``attention_dropout`` 0.1 (``gelu_activation`` is a field).
#: ``causal`` (default False): a True value makes ``get_masks`` build a [B, L, L] causal mask the program does not run,
#: so it is refused (``costs_step_value``) rather than costed as the bidirectional step.
KEYS = dropouts("dropout", "attention_dropout") + unread((flag_key("causal", False),))


def buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """``XLMModel`` (and ``FlaubertModel``) registers ``position_ids`` (int64 [1, max_position_embeddings],
    non-persistent) on the model itself, not on an embeddings module."""
    return [(inv.arch.prefix + "position_ids", (1, int(inv.config["max_position_embeddings"])), 8)]


COSTS = CostModel(step_program, bert.absolute_positions(), architectures=covered("XLM"), check=step_check,
                  checkpointing=False, keys=KEYS, autocast=True, buffers=buffers)


def xlm_config(vocab: int, d: int, layers: int, heads: int, langs: int = 1, lang_emb: bool = True,
               model_type: str = "xlm") -> dict[str, Any]:
    """A published XLM-shaped config.json's size-relevant keys."""
    return {"model_type": model_type, "vocab_size": vocab, "emb_dim": d, "n_layers": layers, "n_heads": heads,
            "max_position_embeddings": 512, "n_langs": langs, "use_lang_emb": lang_emb}


#: XLM's (and FlauBERT's) classes, by task: each head's tensors and its forward. The summary heads'
#: summary_type and summary_activation and the SQuAD head's beam search are not modelled: those classes'
#: steps are refused (:func:`covered`) before the head runs.
XLM_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.LM_HEAD_MODEL: bert.Head(False, lm_head, ties_embeddings=True, step=lm_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(False, summary_head, uses_num_labels=True),
    Task.MULTIPLE_CHOICE: bert.Head(False, choice_head, uses_num_labels=True),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels", "emb_dim"),
                                         uses_num_labels=True, step=bert.token_classifier_step),
    Task.QUESTION_ANSWERING_SIMPLE: bert.Head(False, bert.linear_head("qa_outputs", "num_labels", "emb_dim"),
                                              uses_num_labels=True, step=bert.qa_step),
    Task.QUESTION_ANSWERING: bert.Head(False, squad_head),
}


def architectures(name: str) -> tuple[Architecture, ...]:
    """XLM's seven classes under ``name`` (FlauBERT's are the same with ``Flaubert``), backbone under
    ``transformer.``, each from its task's :data:`XLM_HEADS` entry (the LM class is ``…WithLMHeadModel``)."""
    p = "transformer."
    return (
        bert.task_class(f"{name}Model", Task.MODEL, "", XLM_HEADS[Task.MODEL]),
        bert.task_class(f"{name}WithLMHeadModel", Task.LM_HEAD_MODEL, p, XLM_HEADS[Task.LM_HEAD_MODEL]),
        *bert.task_classes(name, p, (Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION,
                                     Task.QUESTION_ANSWERING_SIMPLE, Task.QUESTION_ANSWERING), XLM_HEADS),
    )


FAMILY = Family(
    model_type="xlm",
    base="XLMModel",
    fields=FIELDS,
    read=read,
    aliases=ALIASES,
    backbone=backbone,
    heads_check=("emb_dim", "n_heads"),
    pad_token_id=2,
    architectures=architectures("XLM"),
    title=L("XLM", "XLM"),
    formula=formula,
    extras=(value_extra("asm_div_value", None),),
    presets=(
        # https://huggingface.co/FacebookAI/xlm-mlm-en-2048/blob/main/config.json (XLMWithLMHeadModel): XLMConfig's
        # defaults are this checkpoint's (30,145 tokens, 12 layers of 2048, 16 heads, one language).
        Preset("FacebookAI/xlm-mlm-en-2048", xlm_config(30145, 2048, 12, 16), "XLMWithLMHeadModel"),
        # https://huggingface.co/FacebookAI/xlm-mlm-enfr-1024/blob/main/config.json (XLMWithLMHeadModel): two
        # languages, so a language table of 2 rows.
        Preset("FacebookAI/xlm-mlm-enfr-1024", xlm_config(64139, 1024, 6, 8, langs=2), "XLMWithLMHeadModel"),
    ),
    sample=sample,
    rank=72,
    costs=COSTS,
)
