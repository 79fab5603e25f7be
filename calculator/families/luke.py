"""LUKE (``modeling_luke.py``, Studio Ousia 2020): RoBERTa with a second input, entities, and their own table.

* Word embeddings are RoBERTa's (``padding_idx`` = ``pad_token_id``, 1, on the word *and* the position table).
* ``entity_embeddings`` is a second embedding block: a table of ``entity_vocab_size`` × ``entity_emb_size``
  (500,000 × 256 = 128,000,000 parameters in luke-base and luke-large: a third of luke-base), projected to the
  hidden size by a bias-free ``entity_embedding_dense`` when the two differ, with its own position and
  token-type tables and LayerNorm.
* Entity-aware attention (``use_entity_aware_attention``, on by default): three more query projections per
  layer, ``w2e_query``, ``e2w_query``, ``e2e_query`` (word-to-entity, entity-to-word, entity-to-entity).
* ``LukeForMaskedLM`` predicts words and entities: ``lm_head`` (its decoder is not tied to the word table in
  transformers 5.23; its bias is the head's ``bias``) and ``entity_predictions`` (a transform to
  ``entity_emb_size``, then a decoder tied to the entity table), both ties only with ``tie_word_embeddings``.
* The entity task classes read entity states: pair classification concatenates two (2H, no bias), span
  classification a word start, a word end and the entity (3H).
"""
from __future__ import annotations

from typing import Any

from ..config import Field
from ..costs import BERT_KEYS, CostModel, Sim, T, no_buffers
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, with_defaults, Task
from .common import BERT_FIELDS, L, heads_divide

FIELDS = with_defaults(BERT_FIELDS, vocab_size=50267)[:7] + (
    Field("entity_vocab_size", 500000, label=L("Entity vocabulary (N_e, entity_vocab_size)", "实体词表大小（N_e，entity_vocab_size）"),
          sample=(1, 3000)),
    Field("entity_emb_size", 256, label=L("Entity embedding size (E_e, entity_emb_size)", "实体嵌入维度（E_e，entity_emb_size）"),
          sample=(1, 48)),
    Field("use_entity_aware_attention", True, kind="bool", sample=(0, 1),
          label=L("Entity-aware attention (three more query projections per layer)",
                  "实体感知注意力（每层多三个查询投影）")),
) + with_defaults(BERT_FIELDS, vocab_size=50267)[7:]


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, ee = c["hidden_size"], c["entity_emb_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h)
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h)
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h)
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    x = prefix + "entity_embeddings."
    t.embedding(x + "entity_embeddings", c["entity_vocab_size"], ee)
    if ee != h:
        t.linear(x + "entity_embedding_dense", h, ee, "embeddings", bias=False)
    t.embedding(x + "position_embeddings", c["max_position_embeddings"], h)
    t.embedding(x + "token_type_embeddings", c["type_vocab_size"], h)
    t.layer_norm(x + "LayerNorm", h, group="embeddings")
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}encoder.layer.{i}."
        queries = ("query", "key", "value") + (("w2e_query", "e2w_query", "e2e_query")
                                               if c["use_entity_aware_attention"] else ())
        for proj in queries:
            t.linear(p + "attention.self." + proj, h, h, "attention_qkv", i)
        t.linear(p + "attention.output.dense", h, h, "attention_output", i)
        t.layer_norm(p + "attention.output.LayerNorm", h, layer=i)
        t.linear(p + "intermediate.dense", c["intermediate_size"], h, "feed_forward", i)
        t.linear(p + "output.dense", h, c["intermediate_size"], "feed_forward", i)
        t.layer_norm(p + "output.LayerNorm", h, layer=i)
    if with_pooler:
        bert.pooler(t, c, prefix)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``LukeLMHead`` (its decoder's bias is the head's ``bias``) and ``EntityPredictionHead`` (decoder tied to
    the entity table), each tie only with ``tie_word_embeddings``."""
    h, v, ee, tie = c["hidden_size"], c["vocab_size"], c["entity_emb_size"], c["tie_word_embeddings"]
    # _tied_weights_keys ties lm_head.bias to lm_head.decoder.bias: the decoder's is the one save_pretrained
    # keeps (the owner), though lm_head.bias comes first in state_dict.
    t.add("lm_head.bias", (v,), "head", shares="lm_head.decoder.bias" if tie else None)
    t.linear("lm_head.dense", h, h, "head")
    t.layer_norm("lm_head.layer_norm", h, group="head")
    t.add("lm_head.decoder.weight", (v, h), "head", module="linear")
    t.add("lm_head.decoder.bias", (v,), "head", module="linear")
    t.add("entity_predictions.bias", (c["entity_vocab_size"],), "head")
    t.linear("entity_predictions.transform.dense", ee, h, "head")
    t.layer_norm("entity_predictions.transform.LayerNorm", ee, group="head")
    table = prefix + "entity_embeddings.entity_embeddings.weight"
    t.add("entity_predictions.decoder.weight", (c["entity_vocab_size"], ee), "head",
          shares=table if tie else None, module="linear")


def entity_pair_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    t.linear("classifier", c["num_labels"], 2 * c["hidden_size"], "head", bias=False)


def entity_span_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """A Linear over [word start; word end; entity] (3H), with a bias."""
    t.linear("classifier", c["num_labels"], 3 * c["hidden_size"], "head")


def formula(inv: Inventory) -> Formula:
    """RoBERTa's word embeddings and layers, the entity block, three more queries per layer, pooler, head."""
    c = inv.config
    v, h, p, t, n, i = (c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
                        c["num_hidden_layers"], c["intermediate_size"])
    ne, ee = c["entity_vocab_size"], c["entity_emb_size"]
    if ee != h:
        ent = FormulaLine("entity_embeddings", "N_e·E_e + E_e·H + (P + T)·H + 2H",
                          f"{ne}·{ee} + {ee}·{h} + ({p} + {t})·{h} + 2·{h}", ne * ee + ee * h + (p + t) * h + 2 * h)
    else:
        ent = FormulaLine("entity_embeddings", "N_e·H + (P + T)·H + 2H", f"{ne}·{h} + ({p} + {t})·{h} + 2·{h}",
                          ne * h + (p + t) * h + 2 * h)
    sym, sub, per = bert.layer_terms(h, i)
    if c["use_entity_aware_attention"]:
        sym, sub, per = sym + " + 3(H² + H)", sub + f" + 3·({h}² + {h})", per + 3 * (h * h + h)
    lines = [bert.embeddings_line(v, p, t, h), ent, *layers_lines(sym, sub, per, n)]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    symbols = {"V": v, "P": p, "T": t, "H": h, "I": i, "L": n, "N_e": ne, "E_e": ee}
    return Formula(symbols, tuple(lines + head_line(inv)))


# --------------------------------------------------------------- training step


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, b: int, n: int, ids: T, types: T) -> T:
    """``LukeEmbeddings`` as its forward drops names: ``create_position_ids_from_input_ids`` (``ne``, ``.int()``,
    ``cumsum``, ``type_as``, ``* mask``, ``.long()``, each temporary gone once the next has used it, ``mask`` and
    ``incremental_indices`` at its return, ``+ padding_idx`` the positions), the word, position and token-type
    lookups (named until the return), their sum (``a + b + c``: the first sum a temporary), LayerNorm, dropout."""
    e = prefix + "embeddings."
    mark = sim.scope()
    sim.transients((b * n, 4 * b * n, 8 * b * n, 4 * b * n, 4 * b * n, 8 * b * n), (1, 6, 3, 4, 6, 6),
                   ("aten.ne", "aten._to_copy", "aten.cumsum", "aten._to_copy", "aten.mul", "aten._to_copy"))
    positions = sim.constant((b, n), 8, "aten.add")
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    placed = sim.embedding(e + "position_embeddings", positions)
    typed = sim.embedding(e + "token_type_embeddings", types)
    first = sim.add(words, placed)
    x = sim.add(first, typed)
    sim.release(first)
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    x = sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob")))
    return sim.end_scope(mark, x)


def step_attention(sim: Sim, a: str, x: T, heads: int) -> T:
    """``LukeSelfAttention`` with no entity, eager: key, value, then query (each split into heads, a view); the
    scores ``matmul(Q, Kᵀ) / sqrt(d)`` (the product a temporary; ``attention_scores`` named until the return, as
    ``attention_probs`` is a new name), no mask (``create_bidirectional_mask`` gave None), softmax, dropout, the
    context made contiguous and viewed [B, L, H] (``[:, :word_size, :]`` of all of it: the tensor itself)."""
    b, n, _ = x.shape
    mark = sim.scope()
    width = sim.linear_info(a + "query").out_features
    d = width // heads

    k = sim.heads(sim.linear(a + "key", x), heads, d)
    v = sim.heads(sim.linear(a + "value", x), heads, d)
    q = sim.heads(sim.linear(a + "query", x), heads, d)
    product = sim.bmm(q, sim.transpose(k, 2, 3))
    scores = sim.made_by(sim.pointwise(product), "aten.div")
    sim.release(product)
    probs = sim.keep_output(scores)
    probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_probs_dropout_prob")))
    context = sim.bmm(probs, v)
    context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
    return sim.end_scope(mark, sim.view(context, (b, n, width)))


def self_attention(sim: Sim, x: T, s: str, heads: int) -> T:
    """``LukeSelfAttention`` with no entity (:func:`step_attention`), as :class:`bert.BertLayer` calls it."""
    return step_attention(sim, s, x, heads)


#: One ``LukeLayer`` with no entity: its own attention, then BERT's output, intermediate and output (the same
#: functions, :func:`bert.self_output`), each name dropped where ``modeling_luke.py`` drops it.
LAYER = bert.BertLayer(attention=self_attention)


def step_backbone(sim: Sim, inv: Inventory, prefix: str, b: int, n: int,
                  pooler_unused: bool = False) -> tuple[T, T | None]:
    """``LukeModel.forward`` with ``input_ids`` alone: the float32 mask of ones and the int64 token types it makes;
    the embeddings; ``create_bidirectional_mask`` (``attention_mask[..., None].to(dtype)``, a copy outside float32;
    a bool copy and ``.all()``: all ones, so no mask, and ``attention_mask`` rebound to None); the layers; the
    pooler where the class has one."""
    mark = sim.scope()
    ids = sim.ids((b, n))  # input_ids: live from the start
    ones = sim.constant((b, n), 4, "aten.ones")
    types = sim.constant((b, n), 8, "aten.zeros")
    x = step_embeddings(sim, inv, prefix, b, n, ids, types)
    if sim.itemsize != 4:
        sim.transients((sim.itemsize * b * n,), (0,), ("aten._to_copy",))
    sim.transients((b * n, 1), (1, 1), ("aten._to_copy", "aten.all"))
    sim.release(ones)
    seq = bert.step_encoder(sim, inv, prefix, x, layer=LAYER)  # BertEncoder's loop over this family's layers
    if pooler_unused:
        pooled = sim.unused(lambda: bert.step_pooler(sim, prefix, seq))
    else:
        pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(mark, seq, *([pooled] if pooled is not None else []))
    return seq, pooled


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """LUKE's classes with ``input_ids`` alone: no entity enters, so the word queries, keys and values only run (the
    three entity queries and the entity block get no gradient); the pooler runs where the class has one.

    Every release is declared (the forward replayed exactly) for the classes in :data:`EXACT_LIFETIMES`."""
    prefix = bert.step_prefix(inv)
    kind = bert.step_task(inv)
    if kind in EXACT_LIFETIMES:
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()
    # LukeForMaskedLM: the pooler runs and its output (``outputs``) reaches no loss; with no entity, only the word
    # head predicts
    seq, pooled = step_backbone(sim, inv, prefix, b, n, pooler_unused=kind == Task.MASKED_LM)
    return bert.run_head(LUKE_HEADS, sim, inv, seq, pooled)  # the classifiers' dropout: classifier_dropout


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """With no entity, only the word head predicts: ``lm_head`` (its GELU fixed)."""
    return [bert.step_mlm(sim, "lm_head", seq)]


def qa_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``qa_outputs``, then ``logits.split(1, dim=-1)`` and ``squeeze(-1)``: views, no copy (RoFormer's too)."""
    return sim.split_views(sim.linear("qa_outputs", seq))


#: LUKE's classes, by task: each head's tensors and its forward. The entity classes read entity states
#: (entity_ids, their spans) and multiple choice [B, choices, L] inputs: their steps are refused (:data:`COVERED`).
LUKE_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(None, step=bert.model_step),
    Task.MASKED_LM: bert.Head(True, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.ENTITY_CLASSIFICATION: bert.Head(True, bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
    Task.ENTITY_PAIR_CLASSIFICATION: bert.Head(True, entity_pair_head, uses_num_labels=True),
    Task.ENTITY_SPAN_CLASSIFICATION: bert.Head(True, entity_span_head, uses_num_labels=True),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(True, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                            step=bert.pooled_classifier_step),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                         step=bert.token_classifier_step),
    Task.QUESTION_ANSWERING: bert.Head(False, bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True,
                                       step=qa_step),
    Task.MULTIPLE_CHOICE: bert.Head(True, bert.linear_head("classifier", 1)),
}


#: LUKE's classes whose every operation the lifetime simulator models (:mod:`calculator.costs.lifetime`).
EXACT_LIFETIMES = (Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION,
                   Task.QUESTION_ANSWERING)


#: The classes whose step is input_ids alone; the entity classes read entity states (entity_ids, their spans).
COVERED = ("LukeModel", "LukeForMaskedLM", "LukeForSequenceClassification", "LukeForTokenClassification",
           "LukeForQuestionAnswering")
#: LukeConfig's defaults: BERT's (hidden_act "gelu", dropouts 0.1, classifier_dropout None).
COSTS = CostModel(step_program, bert.absolute_positions(offset=2), architectures=COVERED, check=bert.step_check,
                  keys=BERT_KEYS, autocast=True, buffers=no_buffers, reentrant=True)


def luke_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """studio-ousia's published LUKE configs: RoBERTa's 50,267-token vocabulary (+ 2 entity markers), 514
    positions, one token type, 500,000 entities of 256."""
    return {"model_type": "luke", "vocab_size": 50267, "hidden_size": hidden, "num_hidden_layers": layers,
            "num_attention_heads": heads, "intermediate_size": 4 * hidden, "max_position_embeddings": 514,
            "type_vocab_size": 1, "entity_vocab_size": 500000, "entity_emb_size": 256,
            "use_entity_aware_attention": True}


#: The family's own word (its formula's entity line).
WORDS = {"entity_embeddings": L("Entity embeddings (entity_embeddings)", "实体嵌入（entity_embeddings）")}

P = "luke."

FAMILY = Family(
    model_type="luke",
    base="LukeModel",
    fields=FIELDS,
    backbone=backbone,
    pad_token_id=1,
    positions_padded=True,
    architectures=bert.task_classes("Luke", P, (
        Task.MODEL, Task.MASKED_LM, Task.ENTITY_CLASSIFICATION, Task.ENTITY_PAIR_CLASSIFICATION,
        Task.ENTITY_SPAN_CLASSIFICATION, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION,
        Task.QUESTION_ANSWERING, Task.MULTIPLE_CHOICE), LUKE_HEADS),
    title=L("LUKE", "LUKE"),
    formula=formula,
    presets=(
        # https://huggingface.co/studio-ousia/luke-base/blob/main/config.json (LukeForMaskedLM)
        Preset("studio-ousia/luke-base", luke_config(768, 12, 12), "LukeForMaskedLM"),
        # https://huggingface.co/studio-ousia/luke-large/blob/main/config.json (LukeForMaskedLM)
        Preset("studio-ousia/luke-large", luke_config(1024, 24, 16), "LukeForMaskedLM"),
    ),
    sample=heads_divide(),
    rank=74,
    labels=WORDS,
    costs=COSTS,
)
