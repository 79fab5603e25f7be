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
from typing import Any, Callable, Mapping

from ..config import read_fields
from ..costs import CostModel, Sim, T, activation_key, dropouts, unread
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, esm, eurobert, jina_embeddings_v3 as jina, roberta
from .base import Architecture, Family, Preset, Task
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


# --------------------------------------------------------------- training step


def step_layer(inv: Inventory, prefix: str, i: int, rotary: tuple[T, T]) -> Callable[[Sim, T], T]:
    """One ``EsmcLayer`` (pre-norm), every name dropped where ``modeling_esmc.py`` drops it: LayerNorm (an argument
    of the attention, gone when it returns), Q and K each LayerNormed over the whole projection (the projection an
    expression's temporary) before the split, Q and K rotated (Llama's ``apply_rotary_pos_emb``), the attention
    function, o_proj (``attn_output`` and the probabilities ``_`` named until the layer returns); ÷ √(L/36) (a
    number), + input; LayerNorm, the SwiGLU (SiLU) MLP, ÷ √(L/36), + residual, each temporary gone once used.
    ``EsmcLayerNorm``'s ``.to(dtype)`` and the projections' ``.to(dtype)`` return their input (no autocast)."""
    p = f"{prefix}layers.{i}."
    c = inv.config
    heads, d = c["num_attention_heads"], eurobert.head_size(c)

    def run(sim: Sim, x: T) -> T:
        a = p + "self_attn."
        b, n, _ = x.shape

        def normed_projection(proj: str, norm: str, h: T) -> T:
            projected = sim.linear(a + proj, h)
            out = sim.layer_norm(a + norm, projected)
            sim.release(projected)
            if out.itemsize != h.itemsize:  # autocast: the bf16 norm's output ``.to(hidden_states.dtype)``, a
                wide = sim.to_dtype(out, h.itemsize)  # float32 copy (ToCopyBackward0), the norm's gone after it
                sim.release(out)
                out = wide
            return out

        layer = sim.scope()
        normed = sim.layer_norm(p + "input_layernorm", x)
        mark = sim.scope()  # EsmcAttention.forward
        q = sim.heads(normed_projection("q_proj", "q_norm", normed), heads, d)
        k = sim.heads(normed_projection("k_proj", "k_norm", normed), heads, d)
        v = sim.heads(sim.linear(a + "v_proj", normed), heads, d)
        cos, sin = rotary
        apply = sim.scope()  # apply_rotary_pos_emb (Llama's: no upcast)
        if cos.shape[-1] != d:  # d = 1: cos and sin have 2 columns, and the products broadcast Q and K to them
            turned = list(sim.rotate_one_wide(q, k, cos, sin))  # GTE's (LiveSim.rotate_one_wide)
        else:
            turned = [sim.rotate(t, cos, sin, False) for t in (q, k)]
        sim.end_scope(apply, *turned)
        sim.release(q, k)
        q, k = turned
        inner = sim.scope()  # the attention function
        probs: T | None = None
        if sim.attention == "sdpa":  # sdpa_attention_forward: no mask, dropout 0 (checked), CPU's flash kernel
            context = sim.contiguous(sim.transpose(sim.sdpa(q, k, v), 1, 2))
            sim.end_scope(inner, context)
        else:
            product = sim.bmm(q, sim.transpose(k, 2, 3))
            scores = sim.rebind(product, sim.pointwise(product))  # * scaling
            probs = sim.rebind(scores, sim.keep_output(scores))  # softmax
            probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_dropout")))
            context = sim.bmm(probs, v)
            context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
            sim.end_scope(inner, context, probs)
        context = sim.contiguous(sim.reshape(context, (b, n, heads * d)))
        attention = sim.end_scope(mark, sim.linear(a + "o_proj", context), *([probs] if probs is not None else []))
        sim.release(normed)
        scaled = sim.divide(attention)  # attn_output / self.scaling_factor
        h = sim.add(x, scaled)
        sim.release(scaled)
        normed = sim.layer_norm(p + "post_attention_layernorm", h)
        m = p + "mlp."
        mlp = sim.scope()  # EsmcMLP.forward: one expression
        gate = sim.linear(m + "gate_proj", normed)
        act = sim.silu(gate)
        sim.release(gate)
        up = sim.linear(m + "up_proj", normed)
        gated = sim.mul_like(act, up)
        sim.release(act, up)
        down = sim.end_scope(mlp, sim.linear(m + "down_proj", gated))
        sim.release(gated, normed)
        scaled = sim.divide(down)
        sim.release(down)
        out = sim.add(h, scaled)
        sim.release(scaled)
        return sim.end_scope(layer, out)

    return run


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """ESM C's classes, every name dropped where ``modeling_esmc.py`` drops it: the token table; ``position_ids``
    (``arange(L).unsqueeze(0)``, named until the model returns); cos and sin computed once without a graph
    (:func:`.esm.step_rotary_tables`, the same forward) and shared by every layer (a keyword argument: a
    checkpoint's frame keeps them); the layers; the final norm (without bias); the heads: RoBERTa's MLM and
    classification heads (:func:`.roberta.step_heads`), token classification's dropout and ``score``."""
    prefix = bert.step_prefix(inv)
    c = inv.config
    d = eurobert.head_size(c)
    kind = bert.step_task(inv)
    if kind in EXACT_LIFETIMES:  # one-wide heads too (LiveSim.rotate_one_wide; where it fails: bounds)
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()  # and under autocast (Q, K normed in bf16, cast to float32 before the rotation)
    model = sim.scope()  # EsmcModel.forward
    x = sim.embedding(prefix + "embed_tokens", sim.ids((b, n)), first=True)
    sim.fresh((1, n), "aten.arange", 8)  # position_ids (unsqueeze: a view)
    rotary = esm.step_rotary_tables(sim, n, 2 * ((d + 1) // 2))
    hidden = x
    for i in range(c["num_hidden_layers"]):
        if sim.checkpointing:
            for argument in rotary:  # position_embeddings: a keyword argument
                sim.layer_argument(argument, counted=False)
        y = sim.layer(step_layer(inv, prefix, i, rotary), hidden)
        sim.rebind(hidden, y)
        hidden = y
    seq = sim.end_scope(model, sim.layer_norm(prefix + "norm", hidden))
    if kind == "ForTokenClassification":  # GenericForTokenClassification: dropout, score
        return [sim.linear("score", sim.dropout(seq, sim.drops("classifier_dropout")))]
    return roberta.step_heads(sim, inv, seq, None)


#: ESM C's classes whose every operation the lifetime simulator models.
EXACT_LIFETIMES = ("", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification")


def step_check(inv: Inventory) -> None:
    """Odd head sizes (rotary), and a head_dim with A·d ≠ H: q_norm normalises H numbers, and the forward fails."""
    c = inv.config
    d = eurobert.head_size(c)
    jina.rotary_check(d, c["num_hidden_layers"])
    if c["num_hidden_layers"] > 0 and c["num_attention_heads"] * d != c["hidden_size"]:
        raise CalcError("costs_esmc_head_dim", head_size=d, heads=c["num_attention_heads"], hidden=c["hidden_size"])


def esmc_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """The rotary embedding's ``inv_freq`` and ``original_inv_freq`` (non-persistent, ceil(head_dim / 2) each, in
    the model's dtype: size 0); no index buffers."""
    frequencies = (eurobert.head_size(inv.config) + 1) // 2
    rotary = inv.arch.prefix + "rotary_emb."
    return [(rotary + "inv_freq", (frequencies,), 0), (rotary + "original_inv_freq", (frequencies,), 0)]


#: EsmcConfig's defaults: SiLU (the program's; another is refused until read), attention dropout 0,
#: classifier dropout 0.1. Rotary: no length bound.
COSTS = CostModel(step_program, None, check=step_check, keys=(
    *unread((activation_key("silu"),)), *dropouts("attention_dropout", default=0.0),
    *dropouts("classifier_dropout", default=0.1)), autocast=True, sdpa=True, sdpa_dropout=("attention_dropout",),
    buffers=esmc_buffers, reentrant=True)


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
        Architecture(name="EsmcModel", task=Task.MODEL, prefix="", pooler=False),
        Architecture(name="EsmcForMaskedLM", task=Task.MASKED_LM, prefix="esmc.", pooler=False, head=mlm_head,
                     output_embeddings="lm_head.decoder"),
        Architecture(name="EsmcForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix="esmc.", pooler=False,
                     head=roberta.classification_head, uses_num_labels=True),
        Architecture(name="EsmcForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix="esmc.", pooler=False,
                     head=bert.linear_head("score", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "ESM C", "zh": "ESM C"},
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
    costs=COSTS,
)
