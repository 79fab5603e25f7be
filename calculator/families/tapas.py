"""TAPAS (``modeling_tapas.py``): BERT over a flattened table, with one token-type table per kind of index.

``TapasEmbeddings`` registers, after BERT's word and position tables, one table per entry of
``type_vocab_sizes`` (``token_type_embeddings_0`` … ``_6`` for the default [3, 256, 256, 2, 256, 256, 10]:
segment, column, row, previous label, column rank, inverted rank, numeric relation), each ``[size, H]``, then
the LayerNorm. The encoder, pooler and MLM head are BERT's. There is no ``type_vocab_size``: a config's list
decides how many tables there are.

``TapasForQuestionAnswering`` holds its cell-selection head as Parameters of the class itself
(``output_weights`` [H], ``column_output_weights`` [H], ``output_bias`` and ``column_output_bias``, two
scalars of shape []), which PyTorch lists before any submodule, so before ``tapas.*``; the aggregation
classifier (``nn.Linear(H, num_aggregation_labels)``, only when that is > 0) is a submodule registered after
the backbone.
"""
from __future__ import annotations

import random
from typing import Any

from ..config import MAX_LAYERS, Field
from ..costs import CostModel, Sim, T, activation_key, dropouts, flag_key, no_buffers
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Family, with_defaults, Task
from .common import BERT_FIELDS, CROSS_ATTENTION, L, heads_divide

#: TapasConfig's default, the SQA checkpoints' seven kinds of table index.
TYPE_VOCAB_SIZES = (3, 256, 256, 2, 256, 256, 10)

FIELDS = (
    *with_defaults(BERT_FIELDS[:6], max_position_embeddings=1024),
    Field(
        "type_vocab_sizes", TYPE_VOCAB_SIZES, kind="ints", minimum=0, maximum=MAX_LAYERS * 64,
        label=L("Token-type tables' sizes (type_vocab_sizes, e.g. 3|256|256|2|256|256|10)",
                "各分段类型表的行数（type_vocab_sizes，例如 3|256|256|2|256|256|10）"),
    ),
    *BERT_FIELDS[7:8],
    Field(
        "num_aggregation_labels", 0, minimum=0,
        label=L("Aggregation operators (num_aggregation_labels; 0: no aggregation head)",
                "聚合运算符个数（num_aggregation_labels；0 表示没有聚合头）"),
        sample=(0, 5),
    ),
    *BERT_FIELDS[8:],
)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    for i, rows in enumerate(c["type_vocab_sizes"]):
        t.embedding(f"{e}token_type_embeddings_{i}", rows, h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    bert.encoder(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


def qa_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``TapasForQuestionAnswering``'s heads: cell selection (the class's own Parameters), then aggregation.

    The head is declared after the backbone, as the class registers it, but the four cell-selection
    Parameters belong to the class itself, and ``named_parameters()`` / ``state_dict`` list a module's own
    Parameters before its submodules': they go to the front of the list, before ``tapas.*``.
    """
    h = c["hidden_size"]
    own = TensorList()
    own.add("output_weights", (h,), "head")
    own.add("column_output_weights", (h,), "head")
    own.add("output_bias", (), "head")
    own.add("column_output_bias", (), "head")
    t.items[0:0] = own.items
    if c["num_aggregation_labels"] > 0:
        t.linear("aggregation_classifier", c["num_aggregation_labels"], h, "head")


def formula(inv: Inventory) -> Formula:
    """BERT's terms, with the sum S of the token-type tables' rows in place of T."""
    c = inv.config
    v, h, p, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["num_hidden_layers"],
        c["intermediate_size"],
    )
    s = sum(c["type_vocab_sizes"])
    lines = [
        FormulaLine("embeddings", "(V + P + S)·H + 2H", f"({v} + {p} + {s})·{h} + 2·{h}", (v + p + s) * h + 2 * h),
        *layers_lines(*bert.layer_terms(h, i), n),
    ]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula({"V": v, "P": p, "S": s, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads that divide the hidden size, and a list of 0 to 8 token-type tables (some of 0 rows)."""
    heads_divide()(rng, config)
    if rng.random() < 0.85:
        config["type_vocab_sizes"] = [rng.randint(0, 40) for _ in range(rng.randint(0, 8))]


# --------------------------------------------------------------- training step


def step_positions_per_cell(sim: Sim, b: int, n: int, segments: int) -> tuple[T, list[T]]:
    """``reset_position_index_per_cell``: ``ProductIndexMap`` of the column and row ids (all 0: one cell),
    ``reduce_min`` of the positions per segment (``_segment_reduce``: the flattened index, the positions' float32
    copy, ``scatter_reduce`` into ``B × segments`` float32 zeros, back to int64), ``gather`` at the index, then
    ``torch.min(P - 1, position - first_position)``: integer tensors, no graph. ``segments`` = column ids × row ids.

    Every tensor as the Python drops it (measured, tests/crosscheck/peak_measure.LiveBytes); the product index,
    the per-segment minima and the gathered first positions stay named until the embeddings return (returned, for
    the caller to drop there). With B or L 1 the expanded positions reshape without a copy. They are storages of
    the program (not transients), so the step's bound counts them too: B × segments can outweigh the layers."""
    bl, bs = 8 * b * n, b * segments

    def new(nbytes: int, op: str) -> T:
        return sim.constant((nbytes,), 1, op)

    position = new(8 * n, "aten.arange")  # position_ids (expanded): rebound by torch.min
    outer = new(bl, "aten.mul")
    full = new(bl, "aten.add")  # full_index.indices
    sim.release(outer)
    offset = new(8 * b, "aten.arange")
    scaled = new(8 * b, "aten.mul")
    sim.release(offset)
    flat = new(bl, "aten.add")
    sim.release(scaled)
    # values.reshape(-1) of the positions expanded over B: a copy unless B or L is 1 (then a view)
    copies = [new(bl, "aten.clone")] if b > 1 and n > 1 else []
    zeros = new(4 * bs, "aten.zeros")
    floats = new(4 * b * n, "aten._to_copy")
    reduced = new(4 * bs, "aten.scatter_reduce")
    sim.release(floats)
    cloned = new(4 * bs, "aten.clone")
    minima = new(8 * bs, "aten._to_copy")  # first_position_per_segment
    sim.release(cloned)
    ids = new(8 * segments, "aten.arange")
    repeated = new(8 * bs, "aten.repeat")
    sim.release(flat, *copies, zeros, reduced, ids, repeated)
    first = new(bl, "aten.gather")  # first_position
    arange = new(8 * n, "aten.arange")  # position
    bound = new(8, "aten.lift_fresh")
    diff = new(bl, "aten.sub")
    positions = sim.constant((b, n), 8, "aten.minimum")
    sim.release(position, bound, diff)
    return positions, [full, minima, first, arange]


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, b: int, n: int, ids: T, types: T) -> T:
    """``TapasEmbeddings`` with ``input_ids`` alone, as its forward drops names: positions ``arange(L)`` expanded to
    [B, L] (a view of L numbers, which the position table keeps), or with ``reset_position_index_per_cell`` (the
    default) recomputed per cell (:func:`step_positions_per_cell`: a new int64 [B, L]); the word and position
    vectors added, then each token-type table's lookup of ``token_type_ids[:, :, i]`` (views of the one zeros
    [B, L, T] tensor, which every table that trains keeps) added in place, each lookup gone once added; LayerNorm,
    dropout. No product: no FLOPs."""
    e = prefix + "embeddings."
    mark = sim.scope()
    held: list[T] = []
    if inv.config["reset_position_index_per_cell"]:
        sizes = inv.config["type_vocab_sizes"]
        positions, held = step_positions_per_cell(sim, b, n, sizes[1] * sizes[2])
    else:
        positions = sim.expand(sim.constant((1, n), 8, "aten.arange"), (b, n))
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    placed = sim.embedding(e + "position_embeddings", positions)
    x = sim.add(words, placed)
    for i in range(len(inv.config["type_vocab_sizes"])):
        added = sim.embedding(f"{e}token_type_embeddings_{i}", sim.select(types, 2, i))
        x = sim.add_(x, added)  # embeddings += ...
        sim.release(added)
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    x = sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob")))
    sim.release(*held)
    return sim.end_scope(mark, x)


def self_attention(sim: Sim, x: T, s: str, heads: int) -> T:
    """``TapasSelfAttention``: BERT's attention with its scores ``/ sqrt(d)`` named until it returns (the
    probabilities are a new name, not returned; no mask: ``create_bidirectional_mask`` gave None)."""
    attention = sim.scope()
    return sim.end_scope(attention, bert.step_attention(sim, x, heads, s + "query", s + "key", s + "value",
                                                        frame=False, keep_scores=True))


#: One ``TapasLayer``: its attention (:func:`self_attention`), then BERT's output, intermediate and output
#: (:func:`bert.self_output`).
LAYER = bert.BertLayer(attention=self_attention)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """TAPAS's classes but question answering: ``TapasModel`` makes the float32 mask of ones and fills in
    ``token_type_ids`` as zeros [B, L, T] (one column per table), then the embeddings;
    ``create_bidirectional_mask`` (a bool copy and ``.all()``: all ones, so no mask, and ``attention_mask`` rebound
    to None); the layers; BERT's pooler and MLM head; the classifier's dropout is ``hidden_dropout_prob``. Every
    release is declared: the forward and the backward are replayed op by op."""
    prefix = bert.step_prefix(inv)
    sim.exact_lifetimes()
    sim.exact_forward()
    sim.exact_autocast()
    model = sim.scope()  # TapasModel.forward
    ids = sim.ids((b, n))  # input_ids: live from the start
    ones = sim.constant((b, n), 4, "aten.ones")
    types = sim.constant((b, n, len(inv.config["type_vocab_sizes"])), 8, "aten.zeros")
    x = step_embeddings(sim, inv, prefix, b, n, ids, types)
    sim.transients((b * n, 1), (1, 1), ("aten._to_copy", "aten.all"))
    sim.release(ones)
    seq = bert.step_encoder(sim, inv, prefix, x, layer=LAYER)  # BertEncoder's loop over this family's layers
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(model, seq, *([pooled] if pooled is not None else []))
    return bert.run_head(TAPAS_HEADS, sim, inv, seq, pooled, "hidden_dropout_prob")  # no classifier_dropout


#: TAPAS's classes, by task: BERT's bare model, MLM head and pooled classifier (tensors and forwards), and its own
#: cell-selection and aggregation head, whose step is refused (:data:`COSTS` lists the classes it runs).
TAPAS_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.BERT_HEADS[Task.MODEL],
    Task.MASKED_LM: bert.BERT_HEADS[Task.MASKED_LM],
    Task.SEQUENCE_CLASSIFICATION: bert.BERT_HEADS[Task.SEQUENCE_CLASSIFICATION],
    Task.QUESTION_ANSWERING: bert.Head(True, qa_head),
}


def step_check(inv: Inventory) -> None:
    """A token-type table of 0 rows cannot look up type 0 (the zeros the step's forward makes), and positions
    reset per cell read the column and row ids (``token_type_ids[:, :, 1]`` and ``[:, :, 2]``), which fewer than
    three tables do not have: PyTorch's forward fails (IndexError), so there is no step to cost."""
    sizes = list(inv.config["type_vocab_sizes"])
    if any(rows == 0 for rows in sizes):
        raise CalcError("costs_forward_fails", key="type_vocab_sizes", value=sizes)
    if inv.config["reset_position_index_per_cell"] and len(sizes) < 3:  # reads the column (1) and row (2) ids
        raise CalcError("costs_forward_fails", key="type_vocab_sizes", value=sizes)


#: ``TapasConfig``'s: BERT's activation and two dropouts (no ``classifier_dropout``), and whether positions restart
#: in each cell (its default True; computed per batch row, so kept as [B, L] by the position table).
KEYS = (activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"),
        flag_key("reset_position_index_per_cell", True))

#: ``TapasForQuestionAnswering`` is left out (``costs_architecture``): its training step reads the table's
#: structure (column and row ids in ``token_type_ids``, the answer coordinates, the aggregation labels), which
#: ``input_ids`` alone do not give; its segmented reductions over cells are not modelled.
COSTS = CostModel(step_program, bert.absolute_positions(), check=step_check, keys=KEYS,
                  architectures=("TapasModel", "TapasForMaskedLM", "TapasForSequenceClassification"),
                  autocast=True, buffers=no_buffers, reentrant=True)


FAMILY = Family(
    model_type="tapas",
    base="TapasModel",
    fields=FIELDS,
    backbone=backbone,
    architectures=bert.task_classes("Tapas", "tapas.", (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.QUESTION_ANSWERING), TAPAS_HEADS),
    title={"en": "TAPAS", "zh": "TAPAS"},
    formula=formula,
    sample=sample,
    rank=71,
    ignored_keys=(CROSS_ATTENTION,),
    costs=COSTS,
    labels={"S": L("token-type rows, all tables (S)", "所有分段类型表的行数之和（S）")},
)
