"""jina-embeddings-v3 (``modeling_jina_embeddings_v3.py``, native in transformers 5.23): a rotary XLM-R.

transformers 5.23 generates it from ``modular_jina_embeddings_v3.py``, which takes
XLM-RoBERTa's classes and changes three things:

* The embeddings are the word table, the token-type table and their LayerNorm:
  ``del self.position_embeddings``: positions are rotary (θ 20000), computed from
  non-persistent buffers, so ``max_position_embeddings`` (8194) shapes no tensor.
* Each layer (``JinaEmbeddingsV3Layer``, GPT-NeoX's layer reworked) is post-norm: it registers
  ``post_attention_layernorm``, then the GELU MLP ``mlp.fc1`` [I, H] / ``mlp.fc2`` [H, I]
  (CLIP's MLP), then ``self_attn`` (``q_proj``, ``k_proj``, ``v_proj``, ``o_proj``, all with
  biases, Llama's attention with biases forced on), then ``post_mlp_layernorm``.
* The layers live in ``layers`` directly (``del self.encoder``), after the pooler.

Every task class keeps XLM-R's order (head registered before ``roberta``), and the
checkpoint's five task LoRA adapters are *not* part of the native classes: the
published ``jinaai/jina-embeddings-v3`` ships them in its own code
(``XLMRobertaLoRA``); this declaration counts the native class.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

from ..costs import BERT_KEYS, CostModel, Sim, T, position_buffers, size_key
from ..errors import CalcError
from ..i18n import join_list, pick
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, esm, nomic_bert, roberta
from .base import Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, TIE, TOKEN_TYPES, VOCAB, L, heads_divide

FIELDS = (
    replace(VOCAB, default=250002),
    replace(HIDDEN, default=1024),
    replace(LAYERS, default=24),
    replace(HEADS, default=16),
    replace(INTERMEDIATE, default=4096),
    replace(TOKEN_TYPES, default=1),
    LABELS,
    TIE,
)


@dataclass(frozen=True)
class MLP:
    """A layer's feed-forward, its tensors and its forward together (under ``{layer}mlp.``).

    ``tensors(t, p, i, H, I)`` registers it; ``step(sim, p, x, hidden)`` runs it up to the output the layer
    drops out and adds (``hidden``: whether the hidden dropout is on).
    """

    tensors: Callable[[TensorList, str, int, int, int], None]
    step: Callable[[Sim, str, T, bool], T]


def _fc_tensors(t: TensorList, p: str, i: int, h: int, inter: int) -> None:
    t.linear(p + "mlp.fc1", inter, h, "feed_forward", i)
    t.linear(p + "mlp.fc2", h, inter, "feed_forward", i)


def _fc_step(sim: Sim, p: str, x: T, hidden: bool) -> T:
    """``fc1``, the activation, ``fc2``, each rebinding ``hidden_states``."""
    h = sim.linear(p + "mlp.fc1", x)
    h = sim.rebind(h, sim.act("hidden_act", h))
    return sim.rebind(h, sim.linear(p + "mlp.fc2", h))


#: ``JinaEmbeddingsV3MLP`` (CLIP's): fc1, the config's activation, fc2.
FC_MLP = MLP(_fc_tensors, _fc_step)


@dataclass(frozen=True)
class RotaryPostNormModel:
    """jina-v3's backbone, which GTE's modular file takes whole but for the MLP: word (and token-type) tables,
    their LayerNorm, the pooler (registered before the layers), then layers that register
    ``post_attention_layernorm``, the MLP, ``self_attn`` (Q, K, V, O with biases), ``post_mlp_layernorm``;
    rotary positions (no table). Tensors and forward from the same declaration.

    ``types_optional``: no token-type table (and no lookup) when ``type_vocab_size`` is 0 (GTE's); jina-v3
    builds it whatever its size.
    """

    mlp: MLP
    types_optional: bool = False

    def _types(self, c: Mapping[str, Any]) -> bool:
        return not self.types_optional or bool(c["type_vocab_size"])

    def backbone(self, t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
        h, inter = c["hidden_size"], c["intermediate_size"]
        e = prefix + "embeddings."
        t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
        if self._types(c):
            t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
        t.layer_norm(e + "LayerNorm", h, group="embeddings")
        if with_pooler:
            bert.pooler(t, c, prefix)
        for i in range(c["num_hidden_layers"]):
            p = f"{prefix}layers.{i}."
            t.layer_norm(p + "post_attention_layernorm", h, layer=i)
            self.mlp.tensors(t, p, i, h, inter)
            for proj in ("q_proj", "k_proj", "v_proj"):
                t.linear(p + "self_attn." + proj, h, h, "attention_qkv", i)
            t.linear(p + "self_attn.o_proj", h, h, "attention_output", i)
            t.layer_norm(p + "post_mlp_layernorm", h, layer=i)

    def step_layer(self, inv: Inventory, prefix: str, i: int, rotary: tuple[T, T]) -> Callable[[Sim, T], T]:
        """One layer, every name dropped where the modeling file drops it (Nomic BERT's layer, with biases and
        this model's MLP): attention (Q and K rotated with the shared cos/sin, :meth:`~calculator.costs.ops.Ops.rotate`),
        o_proj (the probabilities held as ``_`` and ``attention_output`` named until the layer returns), dropout,
        + input, LayerNorm (``residual`` named until the return); the MLP, dropout, + residual, LayerNorm."""
        p = f"{prefix}layers.{i}."
        heads = inv.config["num_attention_heads"]
        d = inv.config["hidden_size"] // heads

        def run(sim: Sim, x: T) -> T:
            a = p + "self_attn."
            hidden = sim.drops("hidden_dropout_prob")
            layer = sim.scope()
            attention = nomic_bert.step_rotary_attention(sim, a, x, heads, d, rotary)  # the attention's forward
            dropped = sim.dropout(attention, hidden)
            h = sim.add(x, dropped)
            if dropped.storage != attention.storage:  # ``attention_output`` itself stays named until the layer returns
                sim.release(dropped)
            h = sim.rebind(h, sim.layer_norm(p + "post_attention_layernorm", h))
            mlp = sim.scope()  # the MLP's forward
            down = sim.end_scope(mlp, self.mlp.step(sim, p, h, hidden))
            dropped = sim.dropout(down, hidden)
            out = sim.add(h, dropped)
            sim.release(down, dropped)
            out = sim.rebind(out, sim.layer_norm(p + "post_mlp_layernorm", out))
            return sim.end_scope(layer, out)

        return run

    def step(self, sim: Sim, inv: Inventory, b: int, n: int) -> tuple[T, T | None]:
        """The model's forward, every name dropped where the modeling file drops it: ``position_ids`` (``arange``,
        named until the forward returns); word + token types ([B, L] zeros; jina-v3 names the types' lookup until
        the embeddings return, GTE (``types_optional``) adds it in the expression), LayerNorm, dropout; cos and sin
        computed once without a graph (:func:`.esm.step_rotary_tables`) and shared by every layer (a keyword
        argument: a checkpoint's frame keeps them); the layers; the pooler. The sequence and the pooled output
        (None without a pooler)."""
        prefix = bert.step_prefix(inv)
        c = inv.config
        e = prefix + "embeddings."
        d = c["hidden_size"] // c["num_attention_heads"]
        model = sim.scope()
        ids = sim.ids((b, n))
        sim.fresh((1, n), "aten.arange", 8)  # position_ids
        embeddings = sim.scope()
        x = sim.embedding(e + "word_embeddings", ids, first=True)
        if self._types(c):
            types = sim.ids((b, n))  # torch.zeros
            looked = sim.embedding(e + "token_type_embeddings", types)
            x = sim.rebind(x, sim.add(x, looked))
            if self.types_optional:  # GTE: ``embeddings + self.token_type_embeddings(token_type_ids)``
                sim.release(looked)
        x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
        x = sim.end_scope(embeddings, sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob"))))
        rotary = esm.step_rotary_tables(sim, n, 2 * ((d + 1) // 2))
        hidden = x
        for i in range(c["num_hidden_layers"]):
            if sim.checkpointing:
                for argument in rotary:  # position_embeddings: a keyword argument
                    sim.layer_argument(argument, counted=False)
            y = sim.layer(self.step_layer(inv, prefix, i, rotary), hidden)
            if i:
                sim.rebind(hidden, y)
            hidden = y
        pooled = bert.step_pooler(sim, prefix, hidden) if inv.pooler else None
        sim.end_scope(model, hidden, *([pooled] if pooled is not None else []))
        return hidden, pooled


#: jina-embeddings-v3's backbone: the token-type table always, CLIP's MLP.
MODEL = RotaryPostNormModel(FC_MLP)
backbone = MODEL.backbone


def formula_with(mlp: str, mlp_sub: Callable[[int, int], str], mlp_count: Callable[[int, int], int]) -> Callable[[Inventory], Formula]:
    """The backbone's closed form with the MLP's term (``mlp``, its figures from H and I): word and type tables
    and their LayerNorm; the pooler; per layer 4H² + 4H attention, the MLP, two LayerNorms and the MLP's output
    bias (5H). GTE's formula is this one with its gated MLP's term."""

    def formula(inv: Inventory) -> Formula:
        c = inv.config
        v, h, t, n, i = (c["vocab_size"], c["hidden_size"], c["type_vocab_size"], c["num_hidden_layers"],
                         c["intermediate_size"])
        lines = [FormulaLine("embeddings", "(V + T)·H + 2H", f"({v} + {t})·{h} + 2·{h}", (v + t) * h + 2 * h)]
        if inv.pooler:
            lines.append(bert.pooler_line(h))
        per = 4 * h * h + mlp_count(h, i) + 9 * h
        lines.extend(layers_lines(f"4H² + {mlp} + 9H", f"4·{h}² + {mlp_sub(h, i)} + 9·{h}", per, n))
        return Formula({"V": v, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))

    return formula


#: Word and type tables; per layer 4H² + 4H attention, 2HI + I + H MLP, two LayerNorms (4H).
formula = formula_with("2HI + I", lambda h, i: f"2·{h}·{i} + {i}", lambda h, i: 2 * h * i + i)


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads divide the hidden size; now and then a position count, which shapes no tensor here."""
    heads_divide()(rng, config)
    if rng.random() < 0.3:
        config["max_position_embeddings"] = rng.randint(1, 600)


# --------------------------------------------------------------- training step


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """The native classes: the backbone (:data:`MODEL`), then XLM-R's heads (RoBERTa's, written once there)."""
    if bert.step_task(inv) in roberta.LIFETIMES:  # one-wide heads too: GTE's attention (LiveSim.rotate_one_wide)
        sim.exact_lifetimes()
        sim.exact_forward()
        sim.exact_autocast()  # and under autocast (rotated Q and K float32: costs.lifetime's mul_table)
    seq, pooled = MODEL.step(sim, inv, b, n)
    return roberta.step_heads(sim, inv, seq, pooled)


def rotary_check(d: int, layers: int) -> None:
    """An odd head size above 1 makes cos and sin one column wider than Q and K: transformers fails."""
    if d % 2 and d > 1 and layers > 0:
        raise CalcError("costs_rotary_odd_head", head_size=d)


def step_check(inv: Inventory) -> None:
    bert.qa_needs_two_labels(inv)
    c = inv.config
    rotary_check(c["hidden_size"] // c["num_attention_heads"], c["num_hidden_layers"])


def rotary_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """The rotary embedding's ``inv_freq`` and its clone ``original_inv_freq`` (non-persistent, ceil(d/2) each, in
    the model's dtype: size 0), under the backbone's ``rotary_emb``."""
    c = inv.config
    frequencies = (c["hidden_size"] // c["num_attention_heads"] + 1) // 2
    rotary = inv.arch.prefix + "rotary_emb."
    return [(rotary + "inv_freq", (frequencies,), 0), (rotary + "original_inv_freq", (frequencies,), 0)]


def jina_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """XLM-R's two index buffers in the embeddings (int64 [1, P]), and the rotary ones (:func:`rotary_buffers`)."""
    return [*position_buffers(inv), *rotary_buffers(inv)]


#: Rotary positions: no table bounds the input.
COSTS = CostModel(step_program, None, check=step_check,
                  keys=BERT_KEYS + (size_key("max_position_embeddings", 8194),),  # the index buffers' width
                  autocast=True, sdpa=True, buffers=jina_buffers, reentrant=True)


# --------------------------------------------------------------- the checkpoint's custom code


#: What the native class is beside jinaai/jina-embeddings-v3's own code (``XLMRobertaLoRA``), from
#: transformers 5.23's ``conversion_mapping.py`` (its "jina_embeddings_v3" entry) and the two models' code.
PORT_WORDS = L(
    "its tensors are that code's base tensors under other names (transformers' conversion_mapping.py renames "
    "them and splits the fused mixer.Wqkv into q_proj, k_proj and v_proj), with rotary positions and so no "
    "position table, where {architecture} counted here has one. Set model_type to \"jina_embeddings_v3\" to "
    "count the native class.",
    "它的张量就是自定义代码里基座模型的张量，只是名字不同（transformers 的 conversion_mapping.py 会改名，并把合并的 "
    "mixer.Wqkv 拆成 q_proj、k_proj、v_proj）；它用旋转位置编码，没有位置嵌入表，而这里计算的 {architecture} "
    "有一张。把 model_type 改成“jina_embeddings_v3”即可按原生类计算。",
)

ADAPTER_WORDS = L(
    "Its {count} task LoRA adapters ({tasks}; rank {rank}) are not in any transformers class: the custom code "
    "puts them on every Linear and Embedding (the word and token-type tables; Wqkv, out_proj, fc1, fc2 of each "
    "layer; the pooler), r·(fan-in + fan-out) per module and task, stacked one slice per task. Base (native "
    "{native}): {base} parameters; each task's adapter: {per}; all {count}: {all}; one task's forward uses the "
    "base and that task's {per} ({used} in all).",
    "它的 {count} 个任务 LoRA 适配器（{tasks}；秩 {rank}）不在任何 transformers 类里：自定义代码把它们挂在每个 "
    "Linear 和 Embedding 上（词嵌入表和分段嵌入表；每层的 Wqkv、out_proj、fc1、fc2；池化层），每个模块、每个任务 "
    "r ×（输入维度 + 输出维度）个参数，按任务堆叠，每个任务一片。基座模型（即原生的 {native}）：{base} 个参数；"
    "每个任务的适配器：{per} 个；全部 {count} 个：{all} 个；做某个任务的前向传播时只用到基座模型和该任务的 {per} 个"
    "（共 {used} 个）。",
)


def adapter_sizes(raw: Mapping[str, Any]) -> tuple[int, int]:
    """(one task's adapter, the native base with its pooler) for a jina-embeddings-v3 custom config.

    ``LoRAParametrization`` (the checkpoint's ``modeling_lora.py``): a Linear [out, in] gets lora_A
    [tasks, r, in] and lora_B [tasks, out, r]; an Embedding [rows, dim] lora_A [tasks, rows, r] and lora_B
    [tasks, r, dim]: r·(in + out) per task either way.
    """
    c = FAMILY.read_config(raw)
    r = raw.get("lora_rank", 4)
    r = r if isinstance(r, int) and not isinstance(r, bool) and r > 0 else 4
    h, v, t, i, n = (c["hidden_size"], c["vocab_size"], c["type_vocab_size"], c["intermediate_size"],
                     c["num_hidden_layers"])
    per_layer = (h + 3 * h) + (h + h) + (h + i) + (i + h)  # Wqkv, out_proj, fc1, fc2
    per_task = r * ((v + h) + (t + h) + n * per_layer + (h + h))  # tables, layers, the pooler
    # The native JinaEmbeddingsV3Model of these sizes, with its pooler (the backbone's terms, as :func:`formula`)
    base = (v + t) * h + 2 * h + (h * h + h) + n * (4 * h * h + 2 * h * i + i + 9 * h)
    return per_task, base


def adapters(raw: Mapping[str, Any], lang: str) -> str | None:
    """The task adapters of a config that lists them (``lora_adaptations``), apart from the count; else None."""
    tasks = raw.get("lora_adaptations")
    if not isinstance(tasks, list) or not tasks or not all(isinstance(x, str) for x in tasks):
        return None
    per, base = adapter_sizes(raw)
    rank = raw.get("lora_rank", 4)
    return pick(ADAPTER_WORDS, lang, count=len(tasks), tasks=join_list([str(x)[:40] for x in tasks[:8]], lang),
                rank=rank if isinstance(rank, int) else 4, native=FAMILY.base, base=f"{base:,}", per=f"{per:,}",
                all=f"{len(tasks) * per:,}", used=f"{base + per:,}")


FAMILY = Family(
    model_type="jina_embeddings_v3",
    base="JinaEmbeddingsV3Model",
    fields=FIELDS,
    backbone=backbone,
    pad_token_id=1,
    # XLM-R's heads (RoBERTa's), from the table whose forwards the step runs (roberta.step_heads); the task
    # classes register their head before the backbone (transformers 5.23's XLM-R classes, from its modular file)
    architectures=bert.task_classes("JinaEmbeddingsV3", "roberta.", (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING),
        roberta.ROBERTA_HEADS, head_first=True),
    title={"en": "jina-embeddings-v3", "zh": "jina-embeddings-v3"},
    formula=formula,
    presets=(
        # jinaai/jina-embeddings-v3-hf (the native port; its sizes are JinaEmbeddingsV3Config's defaults,
        # "jinaai/jina-embeddings-v3-hf style" in configuration_jina_embeddings_v3.py, transformers 5.23):
        # https://huggingface.co/jinaai/jina-embeddings-v3-hf/blob/main/config.json
        Preset("jinaai/jina-embeddings-v3-hf", {
            "model_type": "jina_embeddings_v3", "vocab_size": 250002, "hidden_size": 1024, "num_hidden_layers": 24,
            "num_attention_heads": 16, "intermediate_size": 4096, "type_vocab_size": 1,
            "max_position_embeddings": 8194,
        }, "JinaEmbeddingsV3Model"),
    ),
    sample=sample,
    rank=23,
    default_attention="sdpa",
    costs=COSTS,
    port_words=PORT_WORDS,
    adapters=adapters,
)
