"""GTE (``modeling_gte.py``, native in transformers 5.23): gte-multilingual-base and gte-*-en-v1.5.

transformers 5.23 generates it from ``modular_gte.py``, built on jina-embeddings-v3's classes:

* Embeddings: the word table, the token-type table (**none** when ``type_vocab_size`` is 0, as
  gte-base-en-v1.5 sets it), their LayerNorm. Positions are rotary (θ 160000): no table.
* Each layer is jina-v3's post-norm layer with a gated MLP (``GteMLP``, Gemma's): it registers
  ``post_attention_layernorm``, then ``mlp.gate_proj`` and ``mlp.up_proj`` [I, H] without bias and
  ``mlp.down_proj`` [H, I] with one, then ``self_attn`` (Q, K, V, O, all with biases), then
  ``post_mlp_layernorm``.
* ``GteModel`` has no pooler unless asked (``add_pooling_layer=False``); sequence classification
  builds it (BERT's head: ``classifier`` after the backbone). The MLM head is jina-v3's without its
  separate bias: ``lm_head.dense``, ``lm_head.layer_norm``, ``lm_head.decoder`` (its own bias), the
  decoder's weight tied to the word table.

The published checkpoints (``Alibaba-NLP/gte-multilingual-base``, ``gte-base-en-v1.5``) say
``model_type: "new"`` and name their own code in ``auto_map``; this declaration is the native class.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..costs import CostModel, Sim, T, activation_key, classifier_dropout, dropouts
from ..model import Inventory, TensorList
from . import bert, jina_embeddings_v3 as jina
from .base import Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, TIE, TOKEN_TYPES, VOCAB, L

FIELDS = (
    replace(VOCAB, default=250048),
    HIDDEN,
    LAYERS,
    HEADS,
    replace(
        INTERMEDIATE,
        label=L("Feed-forward inner size (I; gate, up and down are I wide)",
                "前馈网络中间层维度（I；gate、up、down 三个矩阵都是 I 宽）"),
    ),
    replace(TOKEN_TYPES, default=1,
            label=L("Token types (T; 0: no table)", "分段类型数（T；为 0 时没有这张表）")),
    LABELS,
    TIE,
)


def _gated_tensors(t: TensorList, p: str, i: int, h: int, inter: int) -> None:
    t.linear(p + "mlp.gate_proj", inter, h, "feed_forward", i, bias=False)
    t.linear(p + "mlp.up_proj", inter, h, "feed_forward", i, bias=False)
    t.linear(p + "mlp.down_proj", h, inter, "feed_forward", i)


def _gated_step(sim: Sim, p: str, x: T, hidden: bool) -> T:
    """``act(gate(x)) * up(x)`` (each temporary gone once the product is made), dropout (rebinding
    ``hidden_states``, named until the return), ``down_proj``."""
    m = p + "mlp."
    gate = sim.linear(m + "gate_proj", x)
    act = sim.act("hidden_act", gate)
    sim.release(gate)
    up = sim.linear(m + "up_proj", x)
    gated = sim.mul_like(act, up)
    sim.release(act, up)
    gated = sim.rebind(gated, sim.dropout(gated, hidden))
    return sim.linear(m + "down_proj", gated)


#: ``GteMLP`` (Gemma's): gate and up without bias, down with one.
GATED_MLP = jina.MLP(_gated_tensors, _gated_step)
#: jina-v3's backbone with the gated MLP, and no token-type table when ``type_vocab_size`` is 0.
MODEL = jina.RotaryPostNormModel(GATED_MLP, types_optional=True)
backbone = MODEL.backbone


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``GteLMHead``: dense, layer_norm, and the decoder (its own bias), tied to the word table."""
    h, v = c["hidden_size"], c["vocab_size"]
    t.linear("lm_head.dense", h, h, "head")
    t.layer_norm("lm_head.layer_norm", h, group="head")
    bert.tied_decoder(t, "lm_head.decoder", v, h, prefix + "embeddings.word_embeddings.weight", None,
                      c["tie_word_embeddings"])


#: Word and type tables; per layer 4H² + 4H attention, 3HI + H gated MLP, two LayerNorms (4H): jina-v3's form.
formula = jina.formula_with("3HI", lambda h, i: f"3·{h}·{i}", lambda h, i: 3 * h * i)
#: Heads divide the hidden size; now and then a position count (jina-v3's draw).
sample = jina.sample


# --------------------------------------------------------------- training step


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """The native classes: the backbone (:data:`MODEL`); BERT's heads or jina-v3's MLM head without its bias."""
    if bert.step_task(inv) in EXACT_LIFETIMES:  # one-wide heads too (LiveSim.rotate_one_wide; where it fails: bounds)
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()  # and under autocast (rotated Q and K float32: costs.lifetime's mul_table)
    seq, pooled = MODEL.step(sim, inv, b, n)
    return bert.run_head(GTE_HEADS, sim, inv, seq, pooled)  # the classifiers' dropout: classifier_dropout


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """jina-v3's MLM head under ``lm_head`` (its GELU fixed), without its bias."""
    return [bert.step_mlm(sim, "lm_head", seq)]


#: GTE's classes, by task: each head's tensors and its forward. ``add_pooling_layer`` defaults to False (the
#: calculator counts the bare class as AutoModel builds it); BERT's classifiers, sequence classification pooled.
GTE_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(True, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                            step=bert.pooled_classifier_step),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                         step=bert.token_classifier_step),
}


#: GTE's classes whose every operation the lifetime simulator models.
EXACT_LIFETIMES = ("", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification")


def step_check(inv: Inventory) -> None:
    c = inv.config
    jina.rotary_check(c["hidden_size"] // c["num_attention_heads"], c["num_hidden_layers"])


#: GteConfig's defaults: GELU, hidden dropout 0.1, attention dropout 0.0; rotary, so no length bound.
COSTS = CostModel(step_program, None, check=step_check, keys=(
    activation_key("gelu"), *dropouts("hidden_dropout_prob"), *dropouts("attention_probs_dropout_prob", default=0.0),
    classifier_dropout()), autocast=True, sdpa=True, buffers=jina.rotary_buffers, reentrant=True)  # no index buffers


def gte_config(vocab: int, type_vocab: int) -> dict[str, Any]:
    """A GTE base config's size-relevant keys under the native model_type (12 × 768, FFN 3072)."""
    return {"model_type": "gte", "vocab_size": vocab, "hidden_size": 768, "num_hidden_layers": 12,
            "num_attention_heads": 12, "intermediate_size": 3072, "type_vocab_size": type_vocab,
            "max_position_embeddings": 8192}


#: What the native class is beside Alibaba-NLP's own code (``NewModel``, model_type "new"), from transformers
#: 5.23's ``conversion_mapping.py`` (its "gte" entry).
PORT_WORDS = L(
    "counted as that class here. Its tensors are the custom code's under other names: transformers' "
    "conversion_mapping.py renames them and splits the fused attention.qkv_proj and mlp.up_gate_proj, so the "
    "counts are the same.",
    "这里就按这个类计算。它的张量就是自定义代码的张量，只是名字不同：transformers 的 conversion_mapping.py "
    "会改名，并拆开合并的 attention.qkv_proj 和 mlp.up_gate_proj，所以参数量相同。",
)


FAMILY = Family(
    model_type="gte",
    base="GteModel",
    fields=FIELDS,
    backbone=backbone,
    pad_token_id=1,
    architectures=bert.task_classes("Gte", "gte.", (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION), GTE_HEADS),
    title={"en": "GTE", "zh": "GTE"},
    formula=formula,
    presets=(
        # The native copy alibaba-nlp-community/gte-multilingual-base: GteConfig's defaults are its sizes
        # (configuration_gte.py, transformers 5.23). https://huggingface.co/alibaba-nlp-community/gte-multilingual-base
        Preset("alibaba-nlp-community/gte-multilingual-base", gte_config(250048, 1), "GteModel"),
        # Alibaba-NLP/gte-base-en-v1.5 (custom code, model_type "new"): BERT's uncased vocabulary padded to
        # 30,528 and type_vocab_size 0 ("Only gte-base-en-v1.5 sets type_vocab_size=0", modular_gte.py).
        # https://huggingface.co/Alibaba-NLP/gte-base-en-v1.5/blob/main/config.json
        Preset("Alibaba-NLP/gte-base-en-v1.5", gte_config(30528, 0), "GteModel"),
    ),
    sample=sample,
    rank=59,
    default_attention="sdpa",
    costs=COSTS,
    port_words=PORT_WORDS,
)
