"""I-BERT (``modeling_ibert.py``, ``quant_modules.py``): RoBERTa's parameters, plus integer-only quantisation buffers.

Every Linear of the encoder and every embedding table is a ``QuantLinear`` / ``QuantEmbedding``
whose persistent buffers hold an integer copy of the weight (``weight_integer``, the weight's
shape; ``bias_integer``) and its scaling factors (``fc_scaling_factor`` [out], or one
``weight_scaling_factor``); every ``QuantAct`` holds ``x_min``, ``x_max``, ``act_scaling_factor``
(one element each); every ``IntLayerNorm`` a ``shift``. All of them are built whatever
``quant_mode`` says, so ``state_dict`` holds about twice the elements ``parameters()`` does,
while ``num_parameters()`` is RoBERTa's. A module's own parameters come first in ``state_dict``,
then its own buffers, then its children: the order below. The pooler and heads are plain
``nn.Linear`` / ``nn.LayerNorm`` (RoBERTa's).
"""
from __future__ import annotations

from typing import Any, Mapping

from ..costs import CostModel, Sim, T, activation_key, dropouts, position_ids_buffer
from ..config import read_fields
from ..errors import CalcError
from ..model import Inventory, TensorList
from . import bert, roberta
from .base import Architecture, Family, Preset, with_defaults, Task
from .common import BERT_FIELDS, L, heads_divide
from .base import IgnoredKey
from .common import POSITION_TYPE

#: Neither key changes a tensor: every quantised module builds its buffers whatever they say.
QUANT_MODE = IgnoredKey(
    "quant_mode", (False,),
    L("quant_mode = {value}: transformers 5.23's {architecture} holds the same parameters and buffers either way, "
      "as counted here; it then runs the integer-only path (integer GELU, softmax and LayerNorm), which this "
      "calculator does not cost.",
      "quant_mode = {value}：无论取值如何，transformers 5.23 的 {architecture} 都持有同样的参数和 buffer（缓冲区），这里也照此计数；"
      "此时它走纯整数计算路径（整数 GELU、softmax 与 LayerNorm），本计算器不计算这条路径下训练一步的开销。"),
)
FORCE_DEQUANT = IgnoredKey(
    "force_dequant", ("none",),
    L("force_dequant = {value}: transformers 5.23's {architecture} holds the same parameters and buffers, as counted "
      "here; it only makes the named non-linear operations run in floating point under quant_mode.",
      "force_dequant = {value}：transformers 5.23 的 {architecture} 持有同样的参数和 buffer（缓冲区），这里也照此计数；"
      "它只让 quant_mode 下指定的非线性运算改用浮点计算。"),
)

FIELDS = with_defaults(BERT_FIELDS, vocab_size=30522)

#: The buffers are listed with the group of the module that holds them (a QuantLinear's with its
#: Linear's); a ``QuantAct`` between blocks is listed with the block's LayerNorm group.
ACT = "layer_norm"


def quant_act(t: TensorList, name: str, section: str, group: str = ACT) -> None:
    """``QuantAct``: three one-element buffers."""
    for b in ("x_min", "x_max", "act_scaling_factor"):
        t.buffer(f"{name}.{b}", (1,), group, section=section)


def quant_linear(t: TensorList, name: str, out: int, inp: int, group: str, layer: int) -> None:
    """``QuantLinear``: weight and bias, then the integer weight, the per-row scaling factors, the integer bias."""
    # not an nn.Linear: peft's LoRA does not wrap it, and the crosscheck sees no "linear" module
    t.add(name + ".weight", (out, inp), group, layer)
    t.add(name + ".bias", (out,), group, layer)
    t.buffer(name + ".weight_integer", (out, inp), group, section="encoder")
    t.buffer(name + ".fc_scaling_factor", (out,), group, section="encoder")
    t.buffer(name + ".bias_integer", (out,), group, section="encoder")


def quant_embedding(t: TensorList, name: str, rows: int, dim: int) -> None:
    """``QuantEmbedding``: the table, its scaling factor (one element), its integer copy."""
    # not an nn.Embedding: num_parameters(exclude_embeddings=True) keeps it, as transformers counts it
    t.add(name + ".weight", (rows, dim), "embeddings")
    t.buffer(name + ".weight_scaling_factor", (1,), "embeddings", section="embeddings")
    t.buffer(name + ".weight_integer", (rows, dim), "embeddings", section="embeddings")


def int_layer_norm(t: TensorList, name: str, dim: int, layer: int | None, section: str) -> None:
    """``IntLayerNorm``: weight and bias, ``shift``, then its output ``QuantAct``."""
    if layer is None:
        t.layer_norm(name, dim, group="embeddings")
    else:
        t.layer_norm(name, dim, layer=layer)
    group = "embeddings" if layer is None else "layer_norm"
    t.buffer(name + ".shift", (1,), group, section=section)
    quant_act(t, name + ".activation", section, group)


def encoder_layer(t: TensorList, prefix: str, i: int, h: int, inter: int) -> None:
    """One ``IBertLayer``: BERT's tensors, each quantised module followed by its buffers."""
    p = f"{prefix}encoder.layer.{i}."
    s = p + "attention.self."
    for proj in ("query", "key", "value"):
        quant_linear(t, s + proj, h, h, "attention_qkv", i)
    for act in ("query_activation", "key_activation", "value_activation", "output_activation", "softmax.act"):
        quant_act(t, s + act, "encoder", "attention_qkv")
    o = p + "attention.output."
    quant_linear(t, o + "dense", h, h, "attention_output", i)
    quant_act(t, o + "ln_input_act", "encoder")
    int_layer_norm(t, o + "LayerNorm", h, i, "encoder")
    quant_act(t, o + "output_activation", "encoder")
    quant_linear(t, p + "intermediate.dense", inter, h, "feed_forward", i)
    quant_act(t, p + "intermediate.output_activation", "encoder")
    quant_linear(t, p + "output.dense", h, inter, "feed_forward", i)
    quant_act(t, p + "output.ln_input_act", "encoder")
    int_layer_norm(t, p + "output.LayerNorm", h, i, "encoder")
    quant_act(t, p + "output.output_activation", "encoder")
    quant_act(t, p + "pre_intermediate_act", "encoder")
    quant_act(t, p + "pre_output_act", "encoder")


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    quant_embedding(t, e + "word_embeddings", c["vocab_size"], h)
    quant_embedding(t, e + "token_type_embeddings", c["type_vocab_size"], h)
    quant_embedding(t, e + "position_embeddings", c["max_position_embeddings"], h)
    quant_act(t, e + "embeddings_act1", "embeddings", "embeddings")
    quant_act(t, e + "embeddings_act2", "embeddings", "embeddings")
    int_layer_norm(t, e + "LayerNorm", h, None, "embeddings")
    quant_act(t, e + "output_activation", "embeddings", "embeddings")
    for i in range(c["num_hidden_layers"]):
        encoder_layer(t, prefix, i, h, c["intermediate_size"])
    if with_pooler:
        bert.pooler(t, c, prefix)


# --------------------------------------------------------------- training step
#
# quant_mode false (the published checkpoints', the default): every quantised module runs in floating point
# (``QuantLinear``: ``F.linear``; ``QuantEmbedding``: ``F.embedding``; ``IntGELU``: ``nn.GELU``; ``IntSoftmax``:
# ``softmax``), ``QuantAct`` returns its input (plus its ``identity``, the residual), after updating its running
# minimum and maximum in training (:func:`step_quant_act`: no graph, no FLOPs FlopCounterMode counts);
# ``IntLayerNorm`` is written out in Python (``Sim.int_layer_norm``). quant_mode true is refused
# (``costs_step_value``): PyTorch runs it, but its integer path is not modelled (tests/crosscheck/test_costs_reference.py
# shows it costs otherwise).


def step_int_layer_norm(sim: Sim, module: str, x: T) -> T:
    """``IntLayerNorm`` with quant_mode false (``Sim.int_layer_norm``: what autograd keeps; the lifetime simulator
    replays its nodes op by op)."""
    return sim.int_layer_norm(module, x)


def step_quant_act(sim: Sim, x: T, identity: T | None = None, first: bool = True) -> T:
    """``QuantAct.forward`` with quant_mode false: ``x_act = identity + x`` (the residual add, when given), and in
    training the running range updated, which allocates only 0-dim and one-element tensors no figure of the tape
    counts (the lifetime simulator's :meth:`~.Sim.transients`, in the order and with the lifetimes measured):

    ``x_min = x_act.data.min()``, ``x_max = ...max()`` (named until the return); the NaN assertion
    (``isnan`` 1 byte, ``sum`` int64, ``== 0`` 1 byte, for each); ``self.x_min.min() > -1.1e-5`` (and, when true,
    ``self.x_max.max() < 1.1e-5``). ``first``: the module's first call (its buffers at their ±1e-5 start): the
    initialisation ``self.x_min = self.x_min + x_min`` and the same for ``x_max``; a later call (the embeddings call
    ``embeddings_act1`` twice) takes the first test false and updates each by its momentum
    (``self.x_min * 0.95 + x_min * 0.05``: two products and their sum). Each assignment replaces the buffer: the new
    one-element tensor is made, then the old one freed (issue 32's definition: a buffer is live until CPython frees
    it), so the buffers' bytes are as before with one element more for that moment, which is how it is counted
    here: a transient gone at once, counted as a buffer (:meth:`~.Sim.buffer_transient`). The embeddings' first
    call replaces its buffers twice, the interim pair an operation's output; no moment of the embeddings is the
    forward's maximum (the LayerNorm's centred copy and power that follow add more than any of these), so its
    count by kind is never the one compared."""
    mark = sim.scope()  # QuantAct.forward: x_min and x_max die as it returns
    x_act = x if identity is None else sim.add(identity, x)
    if sim.training:
        # the input's reductions in its dtype; the buffers' (and what they promote) in the model's: under bf16
        # autocast a projection's bf16 minimum plus the float32 buffer is a float32 buffer (measured)
        s, kept = x_act.itemsize, sim.itemsize
        low, high = sim.named_transient(s, "aten.min"), sim.named_transient(s, "aten.max")
        for _ in range(2):  # assert x_max.isnan().sum() == 0 and x_min.isnan().sum() == 0
            nan = sim.named_transient(1, "aten.isnan")
            total = sim.named_transient(8, "aten.sum")
            sim.drop_transient(nan)
            equal = sim.named_transient(1, "aten.eq")
            for gone in (total, equal):
                sim.drop_transient(gone)
        tests = (("aten.min", "aten.gt"), ("aten.max", "aten.lt")) if first else (("aten.min", "aten.gt"),)
        for reduce, compare in tests:  # the start test, short-circuited when the first is false
            reduced, told = sim.named_transient(kept, reduce), sim.named_transient(1, compare)
            for gone in (reduced, told):
                sim.drop_transient(gone)
        for _ in range(2):  # self.x_min = ..., self.x_max = ...: the new buffer made, the old one freed
            temps = [] if first else [sim.named_transient(kept, "aten.mul"), sim.named_transient(s, "aten.mul")]
            replaced = sim.buffer_transient(sim.named_transient(kept, "aten.add"))
            for gone in (*temps, replaced):
                sim.drop_transient(gone)
        sim.drop_transient(low)
        sim.drop_transient(high)
    return sim.end_scope(mark, x_act)


def step_attention(sim: Sim, x: T, s: str, heads: int) -> T:
    """``IBertSelfAttention`` (eager): Q, K, V (each named until the return), their ``QuantAct`` s, the scores
    ``/ sqrt(d)`` (named until the return beside the probabilities: ``attention_probs, _ = self.softmax(...)``),
    softmax, dropout, ``matmul`` with V, back to [B, L, H] (a copy), the context's ``QuantAct``. The probabilities
    are not returned (no ``output_attentions``): gone with the function unless autograd keeps them."""
    b, n, h = x.shape
    mark = sim.scope()
    width = sim.linear_info(s + "query").out_features
    d = width // heads
    q = sim.linear(s + "query", x)
    k = sim.linear(s + "key", x)
    v = sim.linear(s + "value", x)
    for t in (q, k, v):
        step_quant_act(sim, t)
    q, k, v = sim.heads(q, heads, d), sim.heads(k, heads, d), sim.heads(v, heads, d)
    product = sim.bmm(q, sim.transpose(k, 2, 3))
    scores = sim.made_by(sim.pointwise(product), "aten.div")  # attention_scores / scale
    sim.release(product)
    probs = sim.keep_output(scores)
    probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_probs_dropout_prob")))
    context = sim.bmm(probs, v)
    context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
    out = sim.contiguous(sim.reshape(context, (b, n, width)))
    step_quant_act(sim, out)
    return sim.end_scope(mark, out)


def step_output(sim: Sim, p: str, x: T, residual: T, hidden: bool) -> T:
    """``IBertSelfOutput`` / ``IBertOutput``: dense, dropout, ``ln_input_act(hidden, identity=input)`` (the residual
    sum; the dropout's output dropped as its name is rebound after the call), ``IntLayerNorm`` (the sum dropped
    then), ``output_activation``."""
    mark = sim.scope()
    y = sim.linear(p + "dense", x)
    y = sim.rebind(y, sim.dropout(y, hidden))
    total = step_quant_act(sim, y, residual)
    sim.release(y)
    out = step_int_layer_norm(sim, p + "LayerNorm", total)
    sim.release(total)
    step_quant_act(sim, out)
    return sim.end_scope(mark, out)


def step_layer(prefix: str, i: int, heads: int) -> Any:
    """One ``IBertLayer``: attention and its output; ``pre_intermediate_act``; the intermediate dense, ``nn.GELU``
    (keeps its input) and its ``QuantAct``; ``pre_output_act``; the output (:func:`step_output`)."""
    p = f"{prefix}encoder.layer.{i}."

    def run(sim: Sim, x: T) -> T:
        hidden = sim.drops("hidden_dropout_prob")
        layer = sim.scope()  # IBertLayer.forward
        attention = sim.scope()  # IBertAttention.forward: the context named in ``self_outputs`` until it returns
        context = step_attention(sim, x, p + "attention.self.", heads)
        attended = sim.end_scope(attention, step_output(sim, p + "attention.output.", context, x, hidden))
        chunk = sim.scope()  # feed_forward_chunk
        step_quant_act(sim, attended)  # pre_intermediate_act
        inner_mark = sim.scope()  # IBertIntermediate.forward
        inner = sim.linear(p + "intermediate.dense", attended)
        inner = sim.rebind(inner, sim.keep_input(inner))  # IntGELU: nn.GELU
        step_quant_act(sim, inner)
        inner = sim.end_scope(inner_mark, inner)
        step_quant_act(sim, inner)  # pre_output_act
        out = sim.end_scope(chunk, step_output(sim, p + "output.", inner, attended, hidden))
        return sim.end_scope(layer, out)

    return run


def step_embeddings(sim: Sim, e: str, ids: T, types: T, b: int, n: int) -> T:
    """``IBertEmbeddings``: RoBERTa's positions from the ids (their int temporaries), word + types through
    ``embeddings_act1`` (first call), + positions through it again (its momentum update), ``IntLayerNorm``, dropout,
    ``output_activation``; the three looked-up tables named until the return."""
    mark = sim.scope()
    sim.transients((b * n, 4 * b * n, 8 * b * n, 4 * b * n, 4 * b * n, 4 * b * n, 8 * b * n), (1, 7, 3, 4, 5, 6, 7),
                   ("aten.ne", "aten._to_copy", "aten.cumsum", "aten._to_copy", "aten.add", "aten.mul",
                    "aten._to_copy"))
    positions = sim.ids((b, n))
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    kinds = sim.embedding(e + "token_type_embeddings", types)
    x = step_quant_act(sim, words, kinds)
    x = sim.rebind(x, step_quant_act(sim, x, sim.embedding(e + "position_embeddings", positions), first=False))
    x = sim.rebind(x, step_int_layer_norm(sim, e + "LayerNorm", x))
    x = sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob")))
    step_quant_act(sim, x)
    return sim.end_scope(mark, x)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """I-BERT's classes: ``IBertModel.forward`` (the padding check on the ids' first and last columns, four
    temporaries; ``attention_mask = torch.ones((B, L))`` float32, read by the mask function, which returns None,
    and dropped then; ``torch.zeros`` token types), the embeddings, the layers, BERT's pooler, RoBERTa's heads.
    Every class but multiple choice (refused) is replayed op by op."""
    prefix = bert.step_prefix(inv)
    sim.exact_lifetimes()
    sim.exact_forward()  # every name's release declared below (the heads: RoBERTa's)
    sim.exact_autocast()  # and under bf16 autocast (the Linears' copies, the promoting residual sums: costs.lifetime)
    mark = sim.scope()  # IBertModel.forward
    ids = sim.ids((b, n))
    if inv.config.get("pad_token_id", 1) is not None:  # warn_if_padding_and_no_attention_mask
        sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    ones = sim.named_transient(4 * b * n, "aten.ones")
    types = sim.ids((b, n))
    x = step_embeddings(sim, prefix + "embeddings.", ids, types, b, n)
    sim.transients((b * n, 1), (1, 1), ("aten._to_copy", "aten.all"))
    sim.drop_transient(ones)
    heads = inv.config["num_attention_heads"]
    seq = x
    for i in range(inv.config["num_hidden_layers"]):
        y = sim.layer(step_layer(prefix, i, heads), seq)
        if i:
            sim.rebind(seq, y)
        seq = y
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(mark, seq, *([pooled] if pooled is not None else []))
    return roberta.step_heads(sim, inv, seq, pooled, dropout_key="hidden_dropout_prob")


def step_check(inv: Inventory) -> None:
    """quant_mode true runs the integer-only path (integer GELU, softmax and LayerNorm, straight-through floors):
    not modelled, refused; multiple choice and question answering as BERT's."""
    if inv.config.get("quant_mode"):
        raise CalcError("costs_step_value", model_type=inv.model_type, key="quant_mode", value="true",
                        modelled="= false")
    bert.step_check(inv)


def read_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and ``quant_mode`` only when it is true: it shapes no tensor (:data:`QUANT_MODE`'s note says
    so), but the step is worked out for the floating-point path alone and refuses the integer one."""
    values = read_fields(FIELDS, raw, {})
    if raw.get("quant_mode") is True:
        values["quant_mode"] = True
    return values


#: ``IBertConfig``'s: BERT's two dropouts (every head's dropout is ``hidden_dropout_prob``: I-BERT reads no
#: ``classifier_dropout``); ``hidden_act`` must be "gelu" (IBertIntermediate raises otherwise), so another value
#: is refused as not read.
KEYS = (activation_key("gelu", read=False), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"))

#: I-BERT does not support gradient checkpointing (``gradient_checkpointing_enable`` raises).
#: Under bf16 autocast (``autocast``) the step is RoBERTa's with these modules: ``QuantLinear`` runs ``F.linear``
#: (autocast's copies), the residual sums are float32, so ``IntLayerNorm`` sees float32 (its ``x * weight`` promotes
#: to float32 anyway), and ``QuantAct`` reduces bf16 projections against its float32 buffers (:func:`step_quant_act`).
COSTS = CostModel(step_program, bert.absolute_positions(offset=2), check=step_check, keys=KEYS, checkpointing=False,
                  buffers=position_ids_buffer, autocast=True)


def ibert_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """kssteven/ibert-roberta-{base,large}: roberta-{base,large}'s shape (50265 entries, 514 positions, one type)."""
    return dict(roberta.roberta_config(hidden, layers, heads, model_type="ibert"), quant_mode=False)


P = "ibert."

FAMILY = Family(
    model_type="ibert",
    base="IBertModel",
    fields=FIELDS,
    backbone=backbone,
    read=read_config,
    pad_token_id=1,
    positions_padded=True,
    architectures=(
        Architecture(name="IBertModel", task=Task.MODEL, prefix="", pooler=None),
        Architecture(name="IBertForMaskedLM", task=Task.MASKED_LM, prefix=P, pooler=False, head=roberta.lm_head, ties_embeddings=True,
                     output_embeddings="lm_head.decoder"),  # its word table is a QuantEmbedding
        Architecture(name="IBertForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix=P, pooler=False,
                     head=roberta.classification_head, uses_num_labels=True),
        Architecture(name="IBertForMultipleChoice", task=Task.MULTIPLE_CHOICE, prefix=P, pooler=True, head=bert.linear_head("classifier", 1)),
        Architecture(name="IBertForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix=P, pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="IBertForQuestionAnswering", task=Task.QUESTION_ANSWERING, prefix=P, pooler=False,
                     head=bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "I-BERT", "zh": "I-BERT"},
    formula=bert.formula,
    # https://huggingface.co/kssteven/ibert-roberta-base and -large: RoBERTa checkpoints converted to I-BERT
    # (the research notes, section B). Base checked offline: the I-BERT authors' README
    # (github.com/kssteven418/I-BERT, README.md, "Model Quantization") prints the config.json of a checkpoint
    # fine-tuned from kssteven/ibert-roberta-base: 50265 entries, 768 wide, 12 layers, 12 heads, 3072,
    # 514 positions, one token type (quant_mode set to true by hand for integer-only fine-tuning, as that
    # README says: the published file is false, IBertConfig's default). Large: not verified offline (no Hub
    # access, no copy of its config.json found); roberta-large's shape, as the conversion keeps it.
    presets=(
        Preset("kssteven/ibert-roberta-base", ibert_config(768, 12, 12), "IBertForMaskedLM"),
        Preset("kssteven/ibert-roberta-large", ibert_config(1024, 24, 16), "IBertForMaskedLM"),
    ),
    sample=heads_divide(),
    rank=73,
    default_attention="eager",
    ignored_keys=(POSITION_TYPE, QUANT_MODE, FORCE_DEQUANT),
    costs=COSTS,
)
