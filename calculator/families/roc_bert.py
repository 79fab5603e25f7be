"""RoCBert (``modeling_roc_bert.py``): BERT, plus pronunciation and glyph-shape tables and a mixing Linear.

``RoCBertEmbeddings`` registers, after the word table, a pronunciation table
(``pronunciation_vocab_size`` × ``pronunciation_embed_dim``) and a shape table
(``shape_vocab_size`` × ``shape_embed_dim``): both are always built, whatever
``enable_pronunciation`` / ``enable_shape`` say. With ``concat_input`` (the default) a
``map_inputs_layer`` Linear maps the concatenated word (+ pronunciation when enabled, + shape
when enabled) vectors back to H. Encoder, pooler and MLM head are BERT's, under ``roc_bert.``;
``RoCBertForPreTraining`` holds the MLM head only (its contrastive loss adds no tensors).
"""
from __future__ import annotations

from typing import Any

from ..config import Field
from ..costs import BERT_KEYS, CostModel, Sim, T, position_buffers
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, Task
from .common import BERT_FIELDS, L, heads_divide
from .common import POSITION_TYPE, CROSS_ATTENTION

FIELDS = (
    *BERT_FIELDS[:7],
    Field("pronunciation_vocab_size", 910, label=L("Pronunciation entries (Vp)", "读音词表大小（Vp）"), sample=(1, 300)),
    Field("pronunciation_embed_dim", 768, label=L("Pronunciation width (Ep)", "读音嵌入维度（Ep）"), sample=(1, 40)),
    Field("shape_vocab_size", 24858, label=L("Shape entries (Vs)", "字形词表大小（Vs）"), sample=(1, 300)),
    Field("shape_embed_dim", 512, label=L("Shape width (Es)", "字形嵌入维度（Es）"), sample=(1, 40)),
    Field("enable_pronunciation", True, kind="bool",
          label=L("Use pronunciation (enable_pronunciation)", "使用读音（enable_pronunciation）"), sample=(0, 1)),
    Field("enable_shape", True, kind="bool",
          label=L("Use shape (enable_shape)", "使用字形（enable_shape）"), sample=(0, 1)),
    Field("concat_input", True, kind="bool",
          label=L("Concatenate and project (concat_input)", "拼接后投影（concat_input）"), sample=(0, 1)),
    *BERT_FIELDS[7:],
)


def map_width(c: dict[str, Any]) -> int:
    """``map_inputs_layer``'s input: H, + Ep when pronunciation is enabled, + Es when shape is."""
    width = c["hidden_size"]
    if c["enable_pronunciation"]:
        width += c["pronunciation_embed_dim"]
    if c["enable_shape"]:
        width += c["shape_embed_dim"]
    return width


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "pronunciation_embed", c["pronunciation_vocab_size"], c["pronunciation_embed_dim"], "embeddings")
    t.embedding(e + "shape_embed", c["shape_vocab_size"], c["shape_embed_dim"], "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    if c["concat_input"]:
        t.linear(e + "map_inputs_layer", h, map_width(c), "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    bert.encoder(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


def formula(inv: Inventory) -> Formula:
    """BERT's terms, the two extra tables, and the mixing Linear when ``concat_input`` is set."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    vp, ep, vs, es = (c["pronunciation_vocab_size"], c["pronunciation_embed_dim"], c["shape_vocab_size"],
                      c["shape_embed_dim"])
    symbols = {"V": v, "P": p, "T": t, "H": h, "I": i, "L": n, "Vp": vp, "Ep": ep, "Vs": vs, "Es": es}
    lines = [
        bert.embeddings_line(v, p, t, h),
        FormulaLine("pronunciation_shape", "Vp·Ep + Vs·Es", f"{vp}·{ep} + {vs}·{es}", vp * ep + vs * es),
    ]
    if c["concat_input"]:
        m = map_width(c)
        symbols["M"] = m
        lines.append(FormulaLine("map_inputs", "M·H + H", f"{m}·{h} + {h}", m * h + h))
    lines += layers_lines(*bert.layer_terms(h, i), n)
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula(symbols, tuple(lines + head_line(inv)))


# --------------------------------------------------------------- training step


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, b: int, n: int) -> T:
    """``RoCBertEmbeddings`` with ``input_ids`` alone (the step's input), every name dropped where its forward drops it.

    Token types are gathered from the registered buffer as BERT's are ([1, L], expanded), positions a slice of
    one. With ``concat_input`` (``map_inputs_layer``): the word vectors cloned, the shape and then the
    pronunciation vectors concatenated when enabled (their ids default to zeros [B, L], ``torch.zeros``: the
    forward looks up row 0 of each table; ``embedding_in`` rebound at each ``cat``), projected to H, then token
    types and positions added in place into the Linear's 3-D view (``+=``: nothing kept; autograd's
    ``CopySlices``, :meth:`~calculator.costs.ops.Ops.add_to_view`), LayerNorm, dropout; the lookups' names live
    until the function returns. Without it: BERT's embeddings, then ``torch.clone`` and ``/= denominator`` in place
    (the dropout's output named until the return); with no shape or pronunciation ids given neither table is read
    and the denominator is 1 (a ``div_`` whose backward allocates the gradient once, as the clone's copy is
    modelled).
    """
    mark = sim.scope()  # RoCBertEmbeddings.forward: its locals die when it returns
    if not inv.config["concat_input"]:
        embeddings = bert.step_embeddings(sim, inv, prefix, b, n, frame=False)  # the same function goes on
        return sim.end_scope(mark, sim.scale_in_place(sim.clone(embeddings)))  # torch.clone, then /= 1 in place
    c = inv.config
    e = prefix + "embeddings."
    ids = sim.ids((b, n))
    positions = sim.buffer((1, n))
    types = sim.expand(sim.ids((1, n)), (b, n))  # torch.gather from the buffer, then expanded
    x = sim.clone(sim.embedding(e + "word_embeddings", ids, first=True))  # embedding_in = torch.clone(inputs_embeds)
    if c["enable_shape"]:
        x = sim.rebind(x, sim.concat([x, sim.embedding(e + "shape_embed", sim.ids((b, n)))], -1))
    if c["enable_pronunciation"]:
        x = sim.rebind(x, sim.concat([x, sim.embedding(e + "pronunciation_embed", sim.ids((b, n)))], -1))
    x = sim.rebind(x, sim.linear(e + "map_inputs_layer", x))
    for table, index in (("token_type_embeddings", types), ("position_embeddings", positions)):
        x = sim.add_to_view(x, sim.embedding(e + table, index))  # embedding_in += ...
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    return sim.end_scope(mark, sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob"))))


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """RoCBert's classes: its embeddings, then BERT's encoder, pooler and heads (``bert.step_program``'s, by task).

    ``RoCBertForPreTraining`` returns the MLM logits only (its contrastive loss needs the attack and label inputs
    the step does not give): the pooler it builds runs, but no gradient reaches it; its output lives until the
    class's forward returns.
    """
    prefix = bert.step_prefix(inv)
    kind = bert.step_task(inv)
    if kind in LIFETIMES and not inv.config.get("is_decoder"):  # no causal mask: every op is modelled
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared below
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies: map_inputs_layer's too)
    mark = sim.scope()  # RoCBertModel.forward: its name of the embeddings' output goes when it returns
    x = step_embeddings(sim, inv, prefix, b, n)
    seq = bert.step_encoder(sim, inv, prefix, x)
    if kind == Task.PRETRAINING:  # the pooler runs, no gradient reaches it
        pooled = None
        sim.end_scope(mark, seq, sim.unused(lambda: bert.step_pooler(sim, prefix, seq)))
    else:
        pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
        sim.end_scope(mark, seq, *([pooled] if pooled is not None else []))
    return bert.run_head(ROC_BERT_HEADS, sim, inv, seq, pooled)


#: RoCBert's classes, by task: BERT's heads (tensors and forwards), but its pre-training class's head is BERT's MLM
#: head alone (the contrastive loss needs inputs the step does not give), over a pooler it builds.
ROC_BERT_HEADS: dict[str, bert.Head] = {
    **bert.BERT_HEADS,
    Task.PRETRAINING: bert.Head(True, bert.mlm_head, ties_embeddings=True, step=bert.mlm_step),
}


#: The classes whose every operation the lifetime simulator models (:mod:`calculator.costs.lifetime`).
LIFETIMES = bert.EXACT_LIFETIMES

COSTS = CostModel(step_program, bert.absolute_positions(), check=bert.step_check, keys=BERT_KEYS,
                  buffers=position_buffers, autocast=True, sdpa=True, reentrant=True)


P = "roc_bert."

FAMILY = Family(
    model_type="roc_bert",
    base="RoCBertModel",
    fields=FIELDS,
    backbone=backbone,
    architectures=bert.task_classes("RoCBert", P, (
        Task.MODEL, Task.PRETRAINING, Task.MASKED_LM, Task.CAUSAL_LM, Task.SEQUENCE_CLASSIFICATION,
        Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING), ROC_BERT_HEADS),
    title={"en": "RoCBert", "zh": "RoCBert"},
    formula=formula,
    # RoCBertConfig's defaults, which transformers documents as "weiweishi/roc-bert-base-zh style"
    # (configuration_roc_bert.py, @auto_docstring(checkpoint="weiweishi/roc-bert-base-zh")). The
    # checkpoint's own config.json was not reachable here, so the preset is named for the defaults, not
    # for the checkpoint: transformers' own example (RoCBertForPreTraining's docstring in modeling_roc_bert.py)
    # shows that checkpoint's logits as [1, 11, 21128], a 21,128-entry vocabulary (bert-base-chinese's), not
    # the default 30,522; its other sizes (the shape and pronunciation tables: the research notes' 24,858 × 512
    # and 910 × 768 are these defaults) are not verified offline.
    presets=(
        Preset("roc-bert-config-defaults", {"model_type": "roc_bert"}, "RoCBertForMaskedLM"),
    ),
    sample=heads_divide(),
    rank=72,
    default_attention="sdpa",
    ignored_keys=(POSITION_TYPE, CROSS_ATTENTION),
    costs=COSTS,
    labels={
        "pronunciation_shape": L("Pronunciation and shape tables", "读音嵌入表与字形嵌入表"),
        "map_inputs": L("Input projection (map_inputs_layer)", "输入投影（map_inputs_layer）"),
    },
)
