"""FNet (``modeling_fnet.py``, 2021): BERT with every self-attention replaced by a Fourier transform.

Each layer mixes tokens with ``torch.fft.fftn(x, dim=(1, 2)).real``, which has no weights: a layer is the
mixing's LayerNorm and BERT's feed-forward block (dense, dense, LayerNorm), 2HI + I + 5H. The embeddings
end in a ``projection`` (H → H, with bias) after their LayerNorm; every class keeps the pooler
(``FNetModel(config)``, no ``add_pooling_layer=False``).

With ``use_tpu_fourier_optimizations`` and SciPy installed, transformers registers two complex64 DFT
matrices (``dft_mat_hidden`` [H, H], ``dft_mat_seq`` [s, s]) as persistent buffers of every layer:
they are in ``state_dict``, not in ``parameters()``. Without SciPy (the pinned environment) its fallback calls
``logging.warning``, which transformers' logging module lacks, and the build fails (P ≤ 4096). The counts here
are the build without the key (FFT, no buffers); a config setting it gets a note.
"""
from __future__ import annotations

import random
from typing import Any

from ..costs import CostModel, Sim, T, activation_key, dropouts, position_buffers
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Family, IgnoredKey, Preset, Task
from .common import HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, TOKEN_TYPES, VOCAB, L
from .base import with_defaults

FIELDS = with_defaults((VOCAB, HIDDEN, LAYERS, INTERMEDIATE, POSITIONS, TOKEN_TYPES, LABELS, TIE),
                       vocab_size=32000, type_vocab_size=4)

#: The DFT-matrix buffers transformers registers only with SciPy installed (see the module's docstring).
TPU_FOURIER = IgnoredKey(
    "use_tpu_fourier_optimizations", (False,),
    L("use_tpu_fourier_optimizations = {value}: where SciPy is installed, transformers 5.23's {architecture} then "
      "registers two complex64 DFT matrices per layer (dft_mat_hidden [H, H], dft_mat_seq [s, s]) as buffers: "
      "saved in state_dict, not parameters (without SciPy, its fallback fails to build). The counts here are the "
      "build without this key, which uses the FFT and registers none.",
      "use_tpu_fourier_optimizations = {value}：装有 SciPy 时，transformers 5.23 的 {architecture} 会在每层注册两个 "
      "complex64 的 DFT 矩阵（dft_mat_hidden [H, H]、dft_mat_seq [s, s]）作为 buffer：它们会写进 state_dict，但不是参数。"
      "（未装 SciPy 时，它的备用实现无法构建。）这里的数字按不设此键时的构建计算：用 FFT，不注册任何 buffer。"),
)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    """``FNetEmbeddings`` (tables, LayerNorm, projection), the layers (no attention weights), the pooler."""
    h, inter = c["hidden_size"], c["intermediate_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    t.linear(e + "projection", h, h, "embeddings")
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}encoder.layer.{i}."
        t.layer_norm(p + "fourier.output.LayerNorm", h, layer=i)
        t.linear(p + "intermediate.dense", inter, h, "feed_forward", i)
        t.linear(p + "output.dense", h, inter, "feed_forward", i)
        t.layer_norm(p + "output.LayerNorm", h, layer=i)
    if with_pooler:
        bert.pooler(t, c, prefix)


def formula(inv: Inventory) -> Formula:
    """BERT's terms without the attention's 4H² + 4H: the Fourier mixing has no weights."""
    c = inv.config
    v, p, t, h, n, i = (c["vocab_size"], c["max_position_embeddings"], c["type_vocab_size"], c["hidden_size"],
                        c["num_hidden_layers"], c["intermediate_size"])
    lines = [
        FormulaLine("embeddings", "(V + P + T)·H + 2H + H² + H", f"({v} + {p} + {t})·{h} + 2·{h} + {h}² + {h}",
                    (v + p + t) * h + 2 * h + h * h + h),
        *layers_lines("2H + 2HI + I + H + 2H", f"2·{h} + 2·{h}·{i} + {i} + {h} + 2·{h}",
                      2 * h + 2 * h * i + i + h + 2 * h, n),
    ]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """A vocabulary above the padding row (index 3), most of the time."""
    if "vocab_size" in config and rng.random() < 0.95:
        config["vocab_size"] = max(config["vocab_size"], 4)


# --------------------------------------------------------------- training step
#
# FNetConfig's defaults: ``hidden_act`` "gelu_new", ``hidden_dropout_prob`` 0.1 (the only dropout: there is no
# attention, and the task heads' dropouts use it too).


def step_embeddings(sim: Sim, prefix: str, b: int, n: int) -> T:
    """``FNetEmbeddings``: word + token type (a buffer's slice, expanded by FNetModel) + position (``+=``, in place),
    LayerNorm, projection, dropout; ``inputs_embeds``, ``token_type_embeddings`` and ``position_embeddings`` named
    until it returns, ``embeddings`` rebound by each step."""
    e = prefix + "embeddings."
    mark = sim.scope()  # FNetEmbeddings.forward
    ids, types, positions = sim.ids((b, n)), sim.expand(sim.buffer((1, n)), (b, n)), sim.buffer((1, n))
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    x = sim.add(words, sim.embedding(e + "token_type_embeddings", types))
    x = sim.add_(x, sim.embedding(e + "position_embeddings", positions))  # ``embeddings += position_embeddings``
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    x = sim.rebind(x, sim.linear(e + "projection", x))
    x = sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob")))
    return sim.end_scope(mark, x)


def step_layer(prefix: str, i: int) -> Any:
    """One ``FNetLayer``: ``fftn(x, dim=(1, 2)).real``, LayerNorm(x + it), then BERT's feed-forward block.

    The FFT keeps nothing for its backward (``_fft_c2c`` and ``_to_copy`` need only sizes; ``.real`` is a view of
    the complex output, which it keeps alive until ``FNetFourierTransform.forward`` returns: :meth:`Ops.fft_real`),
    and PyTorch's FlopCounterMode has no formula for it: it counts 0 FLOPs, and so does this step."""
    p = f"{prefix}encoder.layer.{i}."

    def run(sim: Sim, x: T) -> T:
        layer = sim.scope()  # FNetLayer.forward: fourier_output named until it returns
        fourier = sim.scope()  # FNetFourierTransform.forward: self_outputs (the real view) until it returns
        mixed = sim.fft_real(x)
        basic = sim.scope()  # FNetBasicOutput.forward: LayerNorm(input_tensor + hidden_states), the sum a temporary
        total = sim.add(x, mixed)
        attended = sim.layer_norm(p + "fourier.output.LayerNorm", total)
        sim.release(total)
        attended = sim.end_scope(fourier, sim.end_scope(basic, attended))
        chunk = sim.scope()  # feed_forward_chunk: intermediate_output until it returns
        inner = sim.linear(p + "intermediate.dense", attended)
        inner = sim.rebind(inner, sim.act("hidden_act", inner))
        out = sim.end_scope(chunk, bert.self_output(sim, p + "output.", inner, attended, sim.drops("hidden_dropout_prob")))
        return sim.end_scope(layer, out)

    return run


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """FNet's classes: every one computes the pooler (returned by the base model and the classes that read it; the
    others hold it in ``outputs`` until their forward returns, and no gradient reaches it)."""
    if sim.itemsize != 4 and inv.config["num_hidden_layers"]:  # torch.fft: "Unsupported dtype BFloat16" on a CPU
        raise CalcError("costs_forward_fails", key="dtype", value="bf16")
    prefix = bert.step_prefix(inv)
    kind = bert.step_task(inv)
    sim.exact_lifetimes()  # every op modelled (another activation makes LiveSim fail: bounds kept)
    sim.exact_forward()  # every name's release declared below (modeling_fnet.py)
    sim.exact_autocast()  # under bf16 autocast too: fftn's float32 copy of a bf16 input (costs.lifetime.fft_real)
    model = sim.scope()  # FNetModel.forward: embedding_output named until it returns
    x = step_embeddings(sim, prefix, b, n)
    seq = x
    for i in range(inv.config["num_hidden_layers"]):  # FNetEncoder: hidden_states rebound by every layer
        y = sim.layer(step_layer(prefix, i), seq)
        if i:
            sim.rebind(seq, y)
        seq = y
    if kind in ("ForMaskedLM", "ForTokenClassification", "ForQuestionAnswering"):  # pooled, never returned
        pooled = sim.unused(lambda: bert.step_pooler(sim, prefix, seq)) if inv.pooler else None
    else:
        pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(model, seq, *([pooled] if pooled is not None else []))
    if kind == "":
        return [seq] + ([pooled] if pooled is not None else [])
    if kind == "ForMaskedLM":
        return [bert.step_mlm(sim, "cls.predictions", seq, act_key="hidden_act")]
    if kind == "ForPreTraining":
        assert pooled is not None
        return [bert.step_mlm(sim, "cls.predictions", seq, act_key="hidden_act"),
                sim.linear("cls.seq_relationship", pooled)]
    if kind == "ForNextSentencePrediction":
        assert pooled is not None
        return [sim.linear("cls.seq_relationship", pooled)]
    if kind == "ForSequenceClassification":
        assert pooled is not None
        return [sim.linear("classifier", sim.dropout(pooled, sim.drops("hidden_dropout_prob")))]
    if kind == "ForTokenClassification":
        return [sim.linear("classifier", sim.dropout(seq, sim.drops("hidden_dropout_prob")))]
    if kind == "ForQuestionAnswering":
        return bert.step_qa(sim, seq)
    raise AssertionError(inv.architecture)


COSTS = CostModel(step_program, bert.absolute_positions(), check=bert.step_check,
                  keys=(activation_key("gelu_new"), *dropouts("hidden_dropout_prob")), buffers=position_buffers,
                  autocast=True, reentrant=True)


def fnet_config(hidden: int, layers: int, inter: int) -> dict[str, Any]:
    """A published FNet config.json's size-relevant keys (google/fnet-base, google/fnet-large)."""
    return {
        "model_type": "fnet", "vocab_size": 32000, "hidden_size": hidden, "num_hidden_layers": layers,
        "intermediate_size": inter, "max_position_embeddings": 512, "type_vocab_size": 4,
    }


_P = "fnet."
FAMILY = Family(
    model_type="fnet",
    base="FNetModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=None,  # no attention, no heads
    pad_token_id=3,
    architectures=(
        Architecture(name="FNetModel", task=Task.MODEL, prefix="", pooler=None),
        Architecture(name="FNetForPreTraining", task=Task.PRETRAINING, prefix=_P, pooler=True, head=bert.pretraining_head,
                     ties_embeddings=True),
        Architecture(name="FNetForMaskedLM", task=Task.MASKED_LM, prefix=_P, pooler=True, head=bert.mlm_head, ties_embeddings=True),
        Architecture(name="FNetForNextSentencePrediction", task=Task.NEXT_SENTENCE_PREDICTION, prefix=_P, pooler=True, head=bert.nsp_head),
        Architecture(name="FNetForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix=_P, pooler=True,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="FNetForMultipleChoice", task=Task.MULTIPLE_CHOICE, prefix=_P, pooler=True, head=bert.linear_head("classifier", 1)),
        Architecture(name="FNetForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix=_P, pooler=True,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="FNetForQuestionAnswering", task=Task.QUESTION_ANSWERING, prefix=_P, pooler=True,
                     head=bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "FNet", "zh": "FNet"},
    formula=formula,
    presets=(
        # https://huggingface.co/google/fnet-base/blob/main/config.json (FNetConfig's defaults are documented as it)
        Preset("google/fnet-base", fnet_config(768, 12, 3072), "FNetForPreTraining"),
        # https://huggingface.co/google/fnet-large/blob/main/config.json, not fetched here; checked offline against
        # PaddleNLP's conversion of these weights (PaddlePaddle/PaddleNLP, paddlenlp/transformers/fnet/
        # configuration.py, "fnet-large"): 32000, 1024, 24 layers, 4096, 512 positions, 4 token types.
        Preset("google/fnet-large", fnet_config(1024, 24, 4096), "FNetForPreTraining"),
    ),
    sample=sample,
    rank=83,
    ignored_keys=(TPU_FOURIER,),
    costs=COSTS,
    labels={"costs_mixing": L(
        "Token mixing: {architecture} has no attention. Each layer's torch.fft.fftn counts 0 FLOPs here, as PyTorch's "
        "FlopCounterMode counts it (it has no formula for FFTs), so the FLOPs leave the Fourier transforms out; "
        "they keep nothing for the backward. Their storages count in the peak all the same: each layer's complex64 "
        "output (twice the hidden states' bytes) is live until its mixing returns. On a CPU torch.fft refuses bf16, "
        "so that dtype is refused too.",
        "token 混合：{architecture} 没有注意力。每层的 torch.fft.fftn 在这里记为 0 FLOPs，与 PyTorch 的 FlopCounterMode "
        "一致（它没有 FFT 的计算公式），所以 FLOPs 不含傅里叶变换；傅里叶变换也不为反向传播保存任何张量。"
        "但它的存储照样计入峰值：每层 complex64 的输出（隐藏状态字节数的两倍）一直存活到该层的混合返回。"
        "在 CPU 上 torch.fft 不支持 bf16，所以 bf16 下也不计算训练一步的开销。")},
)
