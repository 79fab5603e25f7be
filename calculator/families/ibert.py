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

from ..costs import CostModel, Sim, T, activation_key, dropouts
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
# minimum and maximum on ``.data`` in training (no graph, no FLOPs FlopCounterMode counts); ``IntLayerNorm``
# is written out in Python (:func:`step_int_layer_norm`). quant_mode true is refused (``costs_step_value``):
# PyTorch runs it, but its integer path is not modelled (tests/crosscheck/test_costs_reference.py shows it costs otherwise).


def step_int_layer_norm(sim: Sim, module: str, x: T) -> T:
    """``IntLayerNorm`` with quant_mode false: ``mean``, ``y = x - mean``, ``var = mean(y ** 2)``,
    ``x = y / sqrt(eps + var)``, ``x * weight + bias``.

    What autograd keeps (derivatives.yaml): ``pow`` its input ``y``; ``sqrt`` its result ``s`` [B, L, 1];
    ``div`` both ``y`` and ``s`` (``y``'s gradient needs ``s``, ``s``'s both); ``mul`` by the weight the
    quotient when the weight trains (the weight itself, for the quotient's gradient, is a parameter). The
    means, the subtraction and the two additions keep nothing. No matrix product: no FLOPs.
    """
    with sim._in(module):
        w_trains, b_trains = sim.param_trains(module + ".weight"), sim.param_trains(module + ".bias")
        rows = x.shape[:-1] + (1,)
        mean = sim.new(rows, x.grad)
        y = sim.add(x, mean)  # x - mean
        squared = sim.keep_input(y)  # y ** 2: pow keeps y
        var = sim.new(rows, squared.grad)  # mean(..., keepdim=True)
        sim.keep_output(sim.new(rows, var.grad))  # sqrt(eps + var): keeps its result
        if y.grad:
            sim.save(y)
        quotient = sim.new(x.shape, y.grad)  # y / root
        if w_trains and sim.grad_mode:
            sim.save(quotient)
        scaled = sim.new(x.shape, quotient.grad or w_trains)
        return sim.new(x.shape, scaled.grad or b_trains)


def step_layer(prefix: str, i: int, heads: int) -> Any:
    """One ``IBertLayer``: BERT's attention (its scores ``/ sqrt(d)``, a plain softmax),
    ``QuantAct`` residual adds, :func:`step_int_layer_norm`, ``nn.GELU``."""
    p = f"{prefix}encoder.layer.{i}."

    def run(sim: Sim, x: T) -> T:
        s = p + "attention.self."
        hidden = sim.drops("hidden_dropout_prob")
        # scores / sqrt(d), then + attention_mask (create_bidirectional_mask's): an add that keeps nothing, no FLOPs
        context = bert.step_attention(sim, x, heads, s + "query", s + "key", s + "value")
        out = sim.dropout(sim.linear(p + "attention.output.dense", context), hidden)
        attended = step_int_layer_norm(sim, p + "attention.output.LayerNorm", sim.add(x, out))
        inner = sim.keep_input(sim.linear(p + "intermediate.dense", attended))  # IntGELU: nn.GELU
        out = sim.dropout(sim.linear(p + "output.dense", inner), hidden)
        return step_int_layer_norm(sim, p + "output.LayerNorm", sim.add(attended, out))

    return run


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """I-BERT's classes: ``IBertEmbeddings`` (RoBERTa's positions from the ids, ``torch.zeros`` token types; word +
    types, + positions, :func:`step_int_layer_norm`, dropout), the layers, BERT's pooler, RoBERTa's heads."""
    prefix = bert.step_prefix(inv)
    e = prefix + "embeddings."
    ids = sim.ids((b, n))
    types = sim.ids((b, n))
    x = sim.add(sim.embedding(e + "word_embeddings", ids, first=True), sim.embedding(e + "token_type_embeddings", types))
    x = sim.add(x, sim.embedding(e + "position_embeddings", sim.ids((b, n))))
    x = sim.dropout(step_int_layer_norm(sim, e + "LayerNorm", x), sim.drops("hidden_dropout_prob"))
    heads = inv.config["num_attention_heads"]
    for i in range(inv.config["num_hidden_layers"]):
        x = step_layer(prefix, i, heads)(sim, x)
    pooled = bert.step_pooler(sim, prefix, x) if inv.pooler else None
    return roberta.step_heads(sim, inv, x, pooled, dropout_key="hidden_dropout_prob")


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
COSTS = CostModel(step_program, bert.absolute_positions(offset=2), check=step_check, keys=KEYS, checkpointing=False)


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
