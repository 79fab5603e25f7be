"""YOSO (``modeling_yoso.py``, 2021): BERT's layer with attention by Bernoulli sampling of LSH collisions.

The tensors are Nyströmformer's (:mod:`.nystromformer`): BERT's layer, ``max_position_embeddings + 2``
position rows, no pooler, RoBERTa's sequence-classification head, DistilBERT's multiple-choice head, two
QA outputs whatever ``num_labels`` says; the depthwise ``Conv2d(A, A, (conv_window, 1), groups=A,
bias=False)`` over the values exists only when ``conv_window`` is set (yoso-4096 leaves it null).

``use_expectation``, ``hash_code_len``, ``num_hash``, ``use_fast_hash`` and ``lsh_backward`` shape no tensor.
With ``use_expectation`` (the default) the attention is PyTorch code: 1 - arccos(q·k)/π raised to
``hash_code_len``; without it, the LSH cumulation needs the ``kernels-community/yoso`` CUDA kernels.
"""
from __future__ import annotations

import random
from typing import Any

from ..config import Field
from ..costs import CostModel, Sim, T, activation_key, dropouts, position_buffers
from ..errors import CalcError
from ..model import Inventory
from . import bert, roberta
from .base import Architecture, Family, Preset, with_defaults, Task
from .common import BERT_FIELDS, L
from .nystromformer import (backbone_with, formula_with, multiple_choice_head, project_heads, step_embeddings, step_heads,
                            step_layer)

FIELDS = with_defaults(BERT_FIELDS, vocab_size=50265, max_position_embeddings=4096, type_vocab_size=1) + (
    Field("conv_window", None, optional=True,
          label=L("Depthwise convolution kernel over the values (conv_window; null: none)",
                  "V 上逐通道卷积的卷积核长度（conv_window；null 表示没有卷积）"), sample=(1, 9)),
    Field("hash_code_len", 9, label=L("Hash code length (hash_code_len)", "哈希码长度（hash_code_len）")),
    Field("num_hash", 64, label=L("Hashes (num_hash)", "哈希次数（num_hash）")),
    Field("use_expectation", True, kind="bool",
          label=L("Attention as the collision expectation (use_expectation)", "用碰撞概率的期望计算注意力（use_expectation）")),
)


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """H a multiple of the heads (HF requires it); the convolution left out half the time (null)."""
    heads = rng.choice([1, 2, 3, 4, 6, 8])
    config["num_attention_heads"] = heads
    config["hidden_size"] = heads * rng.randint(1, 12)
    if rng.random() < 0.5:
        config.pop("conv_window", None)


def yoso_config() -> dict[str, Any]:
    """uw-madison/yoso-4096's config.json, size-relevant keys (YosoConfig's defaults are documented as this
    checkpoint's: https://huggingface.co/uw-madison/yoso-4096/blob/main/config.json)."""
    return {
        "model_type": "yoso", "vocab_size": 50265, "hidden_size": 768, "num_hidden_layers": 12,
        "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 4096,
        "type_vocab_size": 1, "hash_code_len": 9, "num_hash": 64, "use_expectation": True,
    }


# --------------------------------------------------------------- training step
#
# YosoConfig's defaults: ``hidden_act`` "gelu", ``hidden_dropout_prob`` 0.1. Its ``attention_probs_dropout_prob``
# builds an ``nn.Dropout`` the attention never calls: the step does not read it.


def step_attention(sim: Sim, inv: Inventory, p: str, x: T, mask: T) -> T:
    """``YosoSelfAttention`` with ``use_expectation`` (the only path PyTorch runs on a CPU: the other needs the
    ``kernels-community/yoso`` CUDA kernels), up to the context [B, L, H], every name dropped where
    ``modeling_yoso.py`` drops it.

    ``mask`` is the model's ``torch.ones(B, L)`` (float32, made once for every layer), not extended. With
    ``conv_window``, the values are multiplied by it (``mul`` keeps the mask; the product a temporary) and
    convolved (:meth:`Sim.conv_heads`; ``conv_value_layer`` named until the attention returns). Q, K, V are
    reshaped to [B·A, L, d] (copies unless B or A is 1; the projections' outputs dropped as the names are
    rebound); the mask becomes ``(1.0 + mask / 10000.0)`` (two [B, L] float32 tensors, the quotient freed by the
    sum), ``unsqueeze(1).repeat_interleave(A, 1)`` (a [B, A, L] float32 clone), ``.reshape().int()`` (the int32
    [B·A, L] mask; the clone and the sum freed); Q and K are normalized (``F.normalize``:
    :meth:`Sim.normalize_last`, both names rebound once both are made), then :meth:`Sim.yoso_cumulation`, the
    context normalized, viewed as [B, A, L, d], the convolution added in place, permuted back (a copy)."""
    c = inv.config
    b, n, h = x.shape
    heads = c["num_attention_heads"]
    d = h // heads
    s = p + "attention.self."
    mark = sim.scope()  # YosoSelfAttention.forward
    q, k, v = project_heads(sim, s, x, heads)
    conv = None
    if s + "conv.weight" in sim.shapes:
        masked = sim.op_with_constant(v, mask)  # value_layer * attention_mask[:, None, :, None]
        conv = sim.conv_heads(s + "conv", masked)
        sim.release(masked)
    q, k, v = (sim.rebind(t, sim.reshape(t, (b * heads, n, d))) for t in (q, k, v))
    sim.transients((4 * b * n, 4 * b * n, 4 * b * heads * n), (1, 3, 3), ("aten.div", "aten.add", "aten.clone"))
    hashed_mask = sim.constant((b * heads, n), 4, "aten._to_copy")  # (1.0 + mask / 10000.0)...repeat_interleave(A).int()
    normed_q, normed_k = sim.normalize_last(q), sim.normalize_last(k)
    sim.release(q, k)  # query_layer, key_layer = normalize([query_layer, key_layer])
    # The context's gradient comes back through the permute below: viewed as [B·A, L, d] without a copy when B is 1
    # (strides (d, H, 1)), so YosoCumulation's backward copies it (to_contiguous; measured) unless that is contiguous
    # anyway. With the convolution, CopySlices hands the normalized context a gradient laid out as it: contiguous.
    strides = (d, h, 1) if b == 1 and conv is None else None
    context = sim.yoso_cumulation(hashed_mask, normed_q, normed_k, v, strides)
    context = sim.rebind(context, sim.normalize_last(context))
    context = sim.view(context, (b, heads, n, d))  # reshape: a view of the normalized context
    if conv is not None:  # context_layer += conv_value_layer: in place into that view (CopySlices on its base)
        context = sim.add_to_view(context, conv)
    out = sim.rebind(context, sim.contiguous(sim.permute(context, (0, 2, 1, 3))))  # context_layer rebound
    return sim.end_scope(mark, sim.contiguous(sim.reshape(out, (b, n, h))))


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """YOSO's classes (multiple choice refused by :func:`step_check`): Nyströmformer's embeddings, layers and
    heads around YOSO's attention. ``YosoModel.forward`` checks the ids' first and last columns for padding (four
    temporaries), makes ``attention_mask = torch.ones((B, L))`` (float32) and hands it to every layer (no mask
    function reads it): named until the model returns, and under checkpointing kept by each layer's frame."""
    prefix = bert.step_prefix(inv)
    c = inv.config
    if c["num_hidden_layers"] and c.get("conv_window") is not None and sim.itemsize != 4:
        # value_layer (bf16) * the float32 mask is float32, and the bf16 convolution refuses it
        raise CalcError("costs_forward_fails", key="dtype", value="bf16")
    sim.exact_lifetimes()  # every op modelled (autocast: the cumulation fails in LiveSim, bounds kept)
    sim.exact_forward()  # every name's release declared below
    sim.exact_autocast()  # bf16 autocast: the cumulation on the projections' bf16 outputs (no copy), the promoted mask
    model = sim.scope()  # YosoModel.forward
    if c.get("pad_token_id", 1) is not None:  # warn_if_padding_and_no_attention_mask
        sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    mask = sim.constant((b, n), 4, "aten.ones")  # YosoModel: torch.ones((B, L)), float32

    def attention(sim: Sim, inv: Inventory, p: str, x: T) -> T:
        return step_attention(sim, inv, p, x, mask)

    x = step_embeddings(sim, prefix, b, n)
    if sim.checkpointing and c["num_hidden_layers"]:
        sim.checkpoint_argument(mask)  # a checkpointed layer's tensor arguments are kept, the mask with the hidden states
    seq = x
    for i in range(c["num_hidden_layers"]):  # the encoder: hidden_states rebound by every layer
        y = sim.layer(step_layer(inv, prefix, i, attention), seq)
        if i:
            sim.rebind(seq, y)
        seq = y
    sim.end_scope(model, seq)
    return step_heads(sim, inv, seq)


def step_check(inv: Inventory) -> None:
    """Multiple choice wants [B, choices, L] inputs; without ``use_expectation`` the attention calls the
    ``kernels-community/yoso`` CUDA kernels, which a CPU does not have (transformers' forward fails); an even
    ``conv_window`` gives L + 1 positions, which the in-place sum with the context cannot take."""
    if inv.arch.task == Task.MULTIPLE_CHOICE:
        raise CalcError("costs_architecture", architecture=inv.architecture)
    c = inv.config
    if not c["num_hidden_layers"]:
        return
    if not c["use_expectation"]:
        raise CalcError("costs_forward_fails", key="use_expectation", value=False)
    window = c.get("conv_window")
    if window is not None and window % 2 == 0:
        raise CalcError("costs_forward_fails", key="conv_window", value=window)


#: ``YosoEmbeddings`` registers ``position_ids`` (``arange(P) + 2``) and ``token_type_ids``, int64 [1, P], non-persistent:
#: the peak's start set.
COSTS = CostModel(step_program, bert.absolute_positions(), check=step_check, autocast=True,
                  keys=(activation_key("gelu"), *dropouts("hidden_dropout_prob")), buffers=position_buffers,
                  reentrant=True)


_P = "yoso."
FAMILY = Family(
    model_type="yoso",
    base="YosoModel",
    fields=FIELDS,
    backbone=backbone_with("conv_window"),
    pad_token_id=1,
    architectures=(
        Architecture(name="YosoModel", task=Task.MODEL, prefix="", pooler=False),
        Architecture(name="YosoForMaskedLM", task=Task.MASKED_LM, prefix=_P, pooler=False, head=bert.mlm_head, ties_embeddings=True),
        Architecture(name="YosoForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix=_P, pooler=False,
                     head=roberta.classification_head, uses_num_labels=True),
        Architecture(name="YosoForMultipleChoice", task=Task.MULTIPLE_CHOICE, prefix=_P, pooler=False, head=multiple_choice_head),
        Architecture(name="YosoForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix=_P, pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        # its __init__ sets config.num_labels = 2 first, whatever the config says
        Architecture(name="YosoForQuestionAnswering", task=Task.QUESTION_ANSWERING, prefix=_P, pooler=False, head=bert.linear_head("qa_outputs", 2)),
    ),
    title={"en": "YOSO", "zh": "YOSO"},
    formula=formula_with("conv_window"),
    presets=(Preset("uw-madison/yoso-4096", yoso_config(), "YosoForMaskedLM"),),
    sample=sample,
    rank=84,
    costs=COSTS,
    labels={"costs_mixing": L(
        "Attention: YOSO's expected collisions (use_expectation), as transformers 5.23 builds {architecture} (it "
        "offers no SDPA): no hash is drawn; each layer counts its two products, Q·Kᵀ and E·V, and the four of its "
        "custom backward, as FlopCounterMode counts them (acos and the power are elementwise: no FLOPs). "
        "Without use_expectation the LSH attention needs CUDA kernels a CPU does not have, so that step is refused.",
        "注意力：YOSO 的碰撞概率期望（use_expectation），与 transformers 5.23 构建 {architecture} 的方式相同（它不支持 SDPA）："
        "不抽取任何哈希；每层计入两次矩阵乘法 Q·Kᵀ 和 E·V，以及自定义反向传播中的四次，与 FlopCounterMode 的统计一致"
        "（acos 和幂运算是逐元素运算，不计 FLOPs）。关闭 use_expectation 时，LSH 注意力需要 CPU 上没有的 CUDA kernel，"
        "因此不计算那种训练步骤的开销。")},
)
