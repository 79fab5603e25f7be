"""ESM C (``modeling_esmc.py``, native in transformers 5.23): EvolutionaryScale's / Biohub's protein encoder.

transformers 5.23 generates it from ``modular_esmc.py`` (Llama's classes with LayerNorms):

* ``embed_tokens`` [V, H] (64 tokens; no padding row), the layers, a final ``norm``: a LayerNorm
  **without** bias. Positions are rotary: no table.
* Each layer registers ``self_attn`` (Llama's ``q_proj``, ``k_proj``, ``v_proj``, ``o_proj``, biases only
  with ``attention_bias``; then the QK LayerNorms ``q_norm`` and ``k_norm``, [H] weights without bias,
  applied to the whole projection), then the SwiGLU ``mlp`` (biases only with ``mlp_bias``), then
  ``input_layernorm`` and ``post_attention_layernorm`` (LayerNorms with biases). The residual scaling
  √(L/36) is a number, not a tensor.
* ``EsmcConfig`` refuses grouped-query attention (``num_key_value_heads`` must equal the heads).
  ``intermediate_size`` is a plain default in 5.23 (6,912, ESMC-6B's); the ESM C code derives it as
  ``(8/3·H + 255) // 256 · 256`` (2,560 at H = 960, 3,072 at 1,152), and the published configs write it.
* The MLM head (``EsmcMaskedLMHead``) is ``dense`` [H, H], ``layer_norm`` [H], ``decoder`` [V, H], all
  with biases and never tied; sequence classification is ESM's ``classifier.dense`` / ``out_proj``;
  token classification a ``score`` Linear.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Mapping

from ..config import read_fields
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, eurobert, roberta
from .base import Architecture, Family, Preset
from .common import HEADS, HIDDEN, LABELS, LAYERS, VOCAB

FIELDS = (
    replace(VOCAB, default=64),
    replace(HIDDEN, default=2560),
    replace(LAYERS, default=80),
    replace(HEADS, default=40),
    eurobert.KV_HEADS,
    eurobert.HEAD_DIM,
    replace(eurobert.SWIGLU_INTERMEDIATE, default=6912),
    eurobert.ATTENTION_BIAS,
    eurobert.MLP_BIAS,
    LABELS,
)


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields; transformers refuses grouped-query attention and odd head sizes above 4."""
    values = read_fields(FIELDS, raw, {})
    k = values["num_key_value_heads"]
    if k is not None and k != values["num_attention_heads"]:
        raise CalcError("bad_value", key="num_key_value_heads", value=k)
    eurobert.check_kv(values)
    return values


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    """``EsmcModel``: the token table, the layers, the final LayerNorm without bias."""
    h = c["hidden_size"]
    t.embedding(prefix + "embed_tokens", c["vocab_size"], h, "embeddings")
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}layers.{i}."
        eurobert.llama_attention(t, c, p + "self_attn.", i, c["attention_bias"])
        t.layer_norm(p + "self_attn.q_norm", h, layer=i, bias=False)
        t.layer_norm(p + "self_attn.k_norm", h, layer=i, bias=False)
        eurobert.swiglu(t, c, p + "mlp.", i, c["mlp_bias"])
        t.layer_norm(p + "input_layernorm", h, layer=i)
        t.layer_norm(p + "post_attention_layernorm", h, layer=i)
    t.layer_norm(prefix + "norm", h, bias=False, section="encoder")


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``EsmcMaskedLMHead``: dense, layer_norm, decoder, each with its bias; no tying."""
    h, v = c["hidden_size"], c["vocab_size"]
    t.linear("lm_head.dense", h, h, "head")
    t.layer_norm("lm_head.layer_norm", h, group="head")
    t.linear("lm_head.decoder", v, h, "head")


def formula(inv: Inventory) -> Formula:
    """Token table; per layer attention + QK norms (2H), SwiGLU, two LayerNorms (4H); the final norm (H)."""
    c = inv.config
    v, h, n, i = c["vocab_size"], c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"]
    a, d = c["num_attention_heads"], eurobert.head_size(c)
    ab, mb = bool(c["attention_bias"]), bool(c["mlp_bias"])
    per = 4 * h * a * d + (3 * a * d + h if ab else 0) + 3 * h * i + (2 * i + h if mb else 0) + 6 * h
    sym = "4HAd" + (" + 3Ad + H" if ab else "") + " + 3HI" + (" + 2I + H" if mb else "") + " + 6H"
    sub = f"4·{h}·{a}·{d}" + (f" + 3·{a}·{d} + {h}" if ab else "") + f" + 3·{h}·{i}" + (
        f" + 2·{i} + {h}" if mb else "") + f" + 6·{h}"
    lines = [FormulaLine("embeddings", "V·H", f"{v}·{h}", v * h)]
    lines.extend(layers_lines(sym, sub, per, n))
    lines.append(FormulaLine("final_norm", "H", f"{h}", h))
    symbols = {"V": v, "H": h, "A": a, "d": d, "I": i, "L": n}
    return Formula(symbols, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads that divide the hidden size; K/V heads mostly equal to them (others refused), now and then a head_dim."""
    eurobert.sample_heads(rng, config)
    if "num_key_value_heads" in config and rng.random() < 0.7:
        config["num_key_value_heads"] = config["num_attention_heads"]
    if rng.random() < 0.6:
        config["intermediate_size"] = rng.randint(1, 300)  # the default 6912 is slow to build 200 times


def esmc_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """An ESM C config.json's size-relevant keys: 64 tokens, the SwiGLU width the ESM C code derives."""
    return {"model_type": "esmc", "vocab_size": 64, "hidden_size": hidden, "num_hidden_layers": layers,
            "num_attention_heads": heads, "intermediate_size": (hidden * 8 // 3 + 255) // 256 * 256}


FAMILY = Family(
    model_type="esmc",
    base="EsmcModel",
    fields=FIELDS,
    backbone=backbone,
    read=read,
    pad_token_id=None,
    architectures=(
        Architecture(name="EsmcModel", prefix="", pooler=False),
        Architecture(name="EsmcForMaskedLM", prefix="esmc.", pooler=False, head=mlm_head),
        Architecture(name="EsmcForSequenceClassification", prefix="esmc.", pooler=False,
                     head=roberta.classification_head, uses_num_labels=True),
        Architecture(name="EsmcForTokenClassification", prefix="esmc.", pooler=False,
                     head=bert.linear_head("score", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "ESM C (protein)", "zh": "ESM C（蛋白质）"},
    formula=formula,
    presets=(
        # Sizes of EvolutionaryScale's esm package (ESMC(d_model=960, n_heads=15, n_layers=30) and
        # (1152, 18, 36), esm/pretrained.py, https://github.com/evolutionaryscale/esm), copied as
        # https://huggingface.co/biohub/ESMC-300M and https://huggingface.co/biohub/ESMC-600M;
        # ESMC-6B's are EsmcConfig's defaults ("biohub/ESMC-6B" in configuration_esmc.py, transformers 5.23).
        Preset("biohub/ESMC-300M", esmc_config(960, 30, 15), "EsmcForMaskedLM"),
        Preset("biohub/ESMC-600M", esmc_config(1152, 36, 18), "EsmcForMaskedLM"),
        Preset("biohub/ESMC-6B", {"model_type": "esmc", "vocab_size": 64, "hidden_size": 2560,
                                  "num_hidden_layers": 80, "num_attention_heads": 40, "intermediate_size": 6912},
               "EsmcForMaskedLM"),
    ),
    sample=sample,
    rank=61,
    default_attention="sdpa",
)
