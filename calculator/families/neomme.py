"""NeoMME (``modeling_neomme.py``, native in transformers 5.23): one bidirectional encoder for text tokens and
raw image patches.

``NeoMMEModel`` registers, in this order:

* ``embed_tokens``: a factorised token table, ``word_embeddings`` [V, R] (R = ``embedding_rank``, no padding
  row) and ``embedding_projection`` [H, R] (no bias);
* ``patch_embeddings``, the image stem: a LayerNorm over a flattened patch (3·p² values, p = ``patch_size``),
  ``up_proj`` [2H, 3p²] without bias, GELU, ``down_proj`` [H, 2H] with bias; patches go straight into the
  same encoder as the tokens (there is no separate vision tower);
* ``rotary_emb`` (non-persistent inverse-frequency buffers: not in ``state_dict``), and two RMSNorms without a
  scale (no tensor);
* the layers: each holds its own ``lambdas`` [2] (how much of the first hidden state is mixed back in; a
  module's own Parameters come before its submodules'), then ``self_attn`` (``q_proj`` [A·d, H], ``k_proj`` and
  ``v_proj`` [K·d, H], biases only with ``attention_bias``; ``exclusive_self_attention.alpha`` [A]; the output
  gate ``output_projection.gate_proj`` [A·d, H] without bias and ``o_proj`` [H, A·d], biased with
  ``attention_bias``), then the ReLU² ``mlp`` (``up_proj`` [I, H], ``down_proj`` [H, I], biases with
  ``mlp_bias``); its RMSNorms have no scale;
* ``value_embeddings`` [V, K·d], a second token table added to the values of the first and last
  full-attention layers.

``NeoMMEForMaskedLM`` adds ``unembedding_projection`` [H, R] and ``lm_head`` [V, R] (no biases), the same
storage as the two embedding matrices when ``tie_word_embeddings`` (the default). ``NeoMMEForRetrieval`` adds
``multi_vector_head.proj`` [E, H] (E = ``embedding_dim``); its dense head is a mean pool, no tensor.

``NeoMMEConfig`` refuses ``num_key_value_heads`` that do not divide the heads, ``layer_types`` of another
length than the layers or without a full-attention layer, and a rotated width (head_dim × each layer type's
``partial_rotary_factor``, 0.25 for full and 1.0 for sliding attention unless ``rope_parameters`` says) that is
not a positive multiple of four; the calculator refuses the same configs.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Mapping

from ..config import Field, read_fields
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from .base import Architecture, Family, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LAYERS, TIE, VOCAB, L


def flag(key: str, default: bool, en: str, zh: str) -> Field:
    return Field(key, default, kind="bool", label=L(en, zh), sample=(0, 1))


FIELDS = (
    replace(VOCAB, default=131072),
    Field("embedding_rank", 256, label=L("Token table width (embedding_rank, R)", "词嵌入表的宽度（embedding_rank，R）"),
          sample=(1, 24)),
    replace(HIDDEN, default=1024),
    replace(INTERMEDIATE, default=3584),
    flag("mlp_bias", False, "Feed-forward biases (mlp_bias)", "前馈网络带偏置（mlp_bias）"),
    replace(LAYERS, default=17, minimum=1, sample=(1, 8)),
    replace(HEADS, default=16, sample=None),
    Field("num_key_value_heads", 4, label=L("Key/value heads (num_key_value_heads, K)", "键/值头数（num_key_value_heads，K）")),
    Field("head_dim", 64, label=L("Head size (head_dim, d)", "每个注意力头的维度（head_dim，d）"), sample=(1, 40)),
    flag("attention_bias", False, "Attention biases (attention_bias)", "注意力投影带偏置（attention_bias）"),
    Field("patch_size", 32, label=L("Image patch side (patch_size, p; a patch is 3·p² values)",
                                    "图像块的边长（patch_size，p；一个图像块有 3·p² 个值）"), sample=(1, 6)),
    Field("embedding_dim", 128, label=L("Retrieval vector width (embedding_dim, E)", "检索向量的维度（embedding_dim，E）"),
          sample=(1, 20)),
    TIE,
)

LAYER_TYPES = ("full_attention", "sliding_attention")
#: ``NeoMMEConfig.default_partial_rotary_factor``: the share of each head a layer type rotates.
PARTIAL_ROTARY = {"full_attention": 0.25, "sliding_attention": 1.0}


def default_layer_types(n: int) -> tuple[str, ...]:
    """``NeoMMEConfig``'s default: every sixth layer and the last attend fully, the others in a window."""
    return tuple("full_attention" if (i + 1) % 6 == 0 or i == n - 1 else "sliding_attention" for i in range(n))


def read_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, then what ``NeoMMEConfig`` validates and no field kind reads (it shapes no tensor, but a config
    it refuses builds nothing): ``layer_types``, the rotated widths, the one activation it accepts."""
    values = read_fields(FIELDS, raw, {})
    n = values["num_hidden_layers"]
    given = raw.get("layer_types")
    if given is None:
        kinds: tuple[str, ...] = default_layer_types(n)
    elif (not isinstance(given, (list, tuple)) or len(given) != n
          or any(k not in LAYER_TYPES for k in given) or "full_attention" not in given):
        raise CalcError("bad_value", fields=("num_hidden_layers",), key="layer_types", value=given)
    else:
        kinds = tuple(given)
    rope = raw.get("rope_parameters")
    for kind in sorted(set(kinds)):
        factor: Any = PARTIAL_ROTARY[kind]
        if isinstance(rope, Mapping) and isinstance(rope.get(kind), Mapping):
            factor = rope[kind].get("partial_rotary_factor", factor)
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0.0 < factor <= 1.0:
            raise CalcError("bad_value", key="partial_rotary_factor", value=factor)
        rotated = int(values["head_dim"] * factor)
        if rotated < 4 or rotated % 4:
            raise CalcError("bad_value", fields=("head_dim",), key="head_dim", value=values["head_dim"])
    if raw.get("hidden_act", "relu2") != "relu2":
        raise CalcError("bad_value", key="hidden_act", value=raw.get("hidden_act"))
    return values  # the layer kinds shape no tensor: checked, not kept (a link carries only what counts)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    v, r, h, i = c["vocab_size"], c["embedding_rank"], c["hidden_size"], c["intermediate_size"]
    a, k, d = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    patch = 3 * c["patch_size"] ** 2
    qkv_bias, mlp_bias = c["attention_bias"], c["mlp_bias"]
    t.embedding(prefix + "embed_tokens.word_embeddings", v, r)
    t.linear(prefix + "embed_tokens.embedding_projection", h, r, "embeddings", bias=False)
    p = prefix + "patch_embeddings."
    t.layer_norm(p + "norm", patch, group="embeddings")
    t.linear(p + "up_proj", 2 * h, patch, "embeddings", bias=False)
    t.linear(p + "down_proj", h, 2 * h, "embeddings")
    for n in range(c["num_hidden_layers"]):
        layer = f"{prefix}layers.{n}."
        s = layer + "self_attn."
        t.add(layer + "lambdas", (2,), "layer_norm", n)
        t.linear(s + "q_proj", a * d, h, "attention_qkv", n, bias=qkv_bias)
        t.linear(s + "k_proj", k * d, h, "attention_qkv", n, bias=qkv_bias)
        t.linear(s + "v_proj", k * d, h, "attention_qkv", n, bias=qkv_bias)
        t.add(s + "exclusive_self_attention.alpha", (a,), "attention_output", n)
        t.linear(s + "output_projection.gate_proj", a * d, h, "attention_output", n, bias=False)
        t.linear(s + "output_projection.o_proj", h, a * d, "attention_output", n, bias=qkv_bias)
        t.linear(layer + "mlp.up_proj", i, h, "feed_forward", n, bias=mlp_bias)
        t.linear(layer + "mlp.down_proj", h, i, "feed_forward", n, bias=mlp_bias)
    t.embedding(prefix + "value_embeddings", v, k * d)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """The factorised decoder: back to width R, then onto the vocabulary; both tied to the embeddings by default."""
    tie = c["tie_word_embeddings"]
    e = prefix + "embed_tokens."
    t.add("unembedding_projection.weight", (c["hidden_size"], c["embedding_rank"]), "head",
          shares=e + "embedding_projection.weight" if tie else None, module="linear")
    t.add("lm_head.weight", (c["vocab_size"], c["embedding_rank"]), "head",
          shares=e + "word_embeddings.weight" if tie else None, module="linear")


def retrieval_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``NeoMMEMultiVectorHead``: one Linear to the retrieval width, no bias (the dense head has no tensor)."""
    t.linear("multi_vector_head.proj", c["embedding_dim"], c["hidden_size"], "head", bias=False)


def formula(inv: Inventory) -> Formula:
    """The factorised tables, the patch stem, L uniform layers, and the value table."""
    c = inv.config
    v, r, h, i, n = (c["vocab_size"], c["embedding_rank"], c["hidden_size"], c["intermediate_size"],
                     c["num_hidden_layers"])
    a, k, d, p = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"], 3 * c["patch_size"] ** 2
    qb, mb = int(c["attention_bias"]), int(c["mlp_bias"])
    per = 2 + 2 * a * d * h + 2 * k * d * h + a + h * a * d + 2 * h * i + qb * (a * d + 2 * k * d + h) + mb * (i + h)
    symbolic = "2 + 3·A·d·H + 2·K·d·H + A + 2HI" + (" + (A·d + 2K·d + H)" if qb else "") + (" + I + H" if mb else "")
    substituted = (f"2 + 3·{a}·{d}·{h} + 2·{k}·{d}·{h} + {a} + 2·{h}·{i}" + (f" + ({a}·{d} + 2·{k}·{d} + {h})" if qb else "")
                   + (f" + {i} + {h}" if mb else ""))
    lines = [
        FormulaLine("embeddings", "V·R + H·R", f"{v}·{r} + {h}·{r}", v * r + h * r),
        FormulaLine("neomme_patches", "2·(3p²) + 2H·(3p²) + 2H·H + H", f"2·{p} + 2·{h}·{p} + 2·{h}·{h} + {h}",
                    2 * p + 2 * h * p + 2 * h * h + h),
        *layers_lines(symbolic, substituted, per, n),
        FormulaLine("neomme_values", "V·K·d", f"{v}·{k}·{d}", v * k * d),
    ]
    return Formula({"V": v, "R": r, "H": h, "I": i, "A": a, "K": k, "d": d, "p": c["patch_size"], "L": n},
                   tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads that K divides (mostly), so that most draws build; head_dim is drawn freely (the rotated widths'
    rule then refuses some, as NeoMMEConfig does)."""
    k = rng.randint(1, 4)
    config["num_key_value_heads"] = k
    config["num_attention_heads"] = k * rng.randint(1, 4) + (1 if rng.random() < 0.05 else 0)
    roll = rng.random()
    if roll < 0.8:  # full attention rotates a quarter of the head: a multiple of 4 needs d a multiple of 16
        config["head_dim"] = 16 * rng.randint(1, 3)
    elif roll < 0.9:  # the quarter still a multiple of 4; the sliding layers' whole head not (one layer: none)
        config["head_dim"] = 16 * rng.randint(1, 3) + rng.randint(1, 3)
    if rng.random() < 0.25:  # layer kinds of the config's own (some without a full layer, some of another length)
        n = config.get("num_hidden_layers", 17) + (1 if rng.random() < 0.1 else 0)
        config["layer_types"] = [rng.choice(LAYER_TYPES) for _ in range(n)]
        if rng.random() < 0.8:  # mostly with the full-attention layer NeoMMEConfig requires
            config["layer_types"][-1] = "full_attention"
    if rng.random() < 0.1:
        config["rope_parameters"] = {"full_attention": {"rope_type": "default", "rope_theta": 10000.0,
                                                        "partial_rotary_factor": rng.choice([0.5, 1.0])}}


FAMILY = Family(
    model_type="neomme",
    base="NeoMMEModel",
    fields=FIELDS,
    backbone=backbone,
    read=read_config,
    architectures=(
        Architecture(name="NeoMMEModel", task=Task.MODEL, prefix="", pooler=False),
        Architecture(name="NeoMMEForMaskedLM", task=Task.MASKED_LM, prefix="model.", pooler=False, head=mlm_head, ties_embeddings=True),
        Architecture(name="NeoMMEForRetrieval", task=Task.RETRIEVAL, prefix="model.", pooler=False, head=retrieval_head),
    ),
    title={"en": "NeoMME", "zh": "NeoMME"},
    formula=formula,
    heads_check=("num_attention_heads", "num_key_value_heads"),
    pad_token_id=None,  # the token table has no padding row
    sample=sample,
    rank=72,
    default_attention="sdpa",
    labels={
        "neomme_patches": L("Image patch stem (LayerNorm, up, down)", "图像块输入层（LayerNorm、up、down）"),
        "neomme_values": L("Value embeddings (V × K·d)", "值嵌入表（V × K·d）"),
    },
)
