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

from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Family, IgnoredKey, Preset
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
      "complex64 的 DFT 矩阵（dft_mat_hidden [H, H]、dft_mat_seq [s, s]）作为 buffer：它们进 state_dict，不算参数。"
      "（未装 SciPy 时，它的回退分支会构建失败。）这里的数字按不设此键的构建计算：用 FFT，不注册任何 buffer。"),
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
        Architecture(name="FNetModel", prefix="", pooler=None),
        Architecture(name="FNetForPreTraining", prefix=_P, pooler=True, head=bert.pretraining_head,
                     ties_embeddings=True),
        Architecture(name="FNetForMaskedLM", prefix=_P, pooler=True, head=bert.mlm_head, ties_embeddings=True),
        Architecture(name="FNetForNextSentencePrediction", prefix=_P, pooler=True, head=bert.nsp_head),
        Architecture(name="FNetForSequenceClassification", prefix=_P, pooler=True,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="FNetForMultipleChoice", prefix=_P, pooler=True, head=bert.linear_head("classifier", 1)),
        Architecture(name="FNetForTokenClassification", prefix=_P, pooler=True,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        Architecture(name="FNetForQuestionAnswering", prefix=_P, pooler=True,
                     head=bert.linear_head("qa_outputs", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "FNet", "zh": "FNet"},
    formula=formula,
    presets=(
        # https://huggingface.co/google/fnet-base/blob/main/config.json (FNetConfig's defaults are documented as it)
        Preset("google/fnet-base", fnet_config(768, 12, 3072), "FNetForPreTraining"),
        # https://huggingface.co/google/fnet-large/blob/main/config.json
        Preset("google/fnet-large", fnet_config(1024, 24, 4096), "FNetForPreTraining"),
    ),
    sample=sample,
    rank=83,
    ignored_keys=(TPU_FOURIER,),
)
