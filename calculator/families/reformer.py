"""Reformer (``modeling_reformer.py``, 2020): reversible layers, LSH and chunked local attention, axial positions.

What changes the count:

* **Axial position embeddings** (``axial_pos_embds``, on by default): instead of a P × H table, one small
  Parameter per axis, ``weights.{k}`` of shape [1, …, s_k, …, 1, d_k] with ``axial_pos_shape`` = (s_1, s_2…)
  and ``axial_pos_embds_dim`` = (d_1, d_2…) summing to H; position (i, j) concatenates row i of the first and
  row j of the second. The defaults (64, 64) × (64, 192) hold 64·64 + 64·192 = 16,384 numbers where a table of
  4,096 × 256 would hold 1,048,576. Off, it is an ``nn.Embedding(P, H)`` (``position_embeddings.embedding``).
* **The layers follow ``attn_layers``** (``num_hidden_layers`` is its length): an "lsh" layer projects with one
  shared ``query_key`` and a ``value`` (no biases), a "local" layer with ``query``, ``key``, ``value`` (no
  biases); their width is heads × ``attention_head_size``, which need not be H. The output projection has no
  bias either; the feed-forward block (``feed_forward_size``) has biases; each sub-block is pre-LN.
* **Reversible residuals**: the two streams are concatenated at the end, so the encoder's final LayerNorm and
  every head read 2H.

Classes: ``ReformerModel``; ``ReformerModelWithLMHead`` (causal: transformers asserts ``is_decoder``, as the
published checkpoints set it) and ``ReformerForMaskedLM`` (asserts it is not set), whose decoder [V, 2H] has no
bias of its own and is never tied (a separate ``lm_head.bias`` [V] is added); sequence classification (dense
2H → H, out_proj) and question answering (2H → num_labels).
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from ..config import MAX_LAYERS, Field, read_fields
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line
from ..model import Inventory, TensorList
from .base import Architecture, Family, Preset
from .common import LABELS, L, value_extra

ATTN_LAYERS = ("local", "lsh", "local", "lsh", "local", "lsh")
#: google/reformer-enwik8's twelve layers: an LSH layer third in every four.
ENWIK8_LAYERS = ["local", "local", "lsh", "local"] * 3

FIELDS = (
    Field("vocab_size", 320, label=L("Vocabulary size (V)", "词表大小（V）"), sample=(1, 300)),
    Field("hidden_size", 256, label=L("Hidden size (H)", "隐藏层维度（H）")),
    Field("num_attention_heads", 12, label=L("Attention heads (A)", "注意力头数（A）"), sample=(1, 4)),
    Field("attention_head_size", 64, label=L("Width of a head (attention_head_size)", "每个头的宽度（attention_head_size）"),
          sample=(1, 8)),
    Field("feed_forward_size", 512, label=L("Feed-forward inner size (I)", "前馈网络中间层维度（I）"), sample=(1, 40)),
    Field("axial_pos_embds", True, kind="bool",
          label=L("Axial position embeddings (axial_pos_embds)", "轴向位置编码（axial_pos_embds）"), sample=(0, 1)),
    Field("axial_pos_shape", (64, 64), kind="ints", maximum=1 << 20,
          label=L("Axial position shape (axial_pos_shape, e.g. 64|64; product = longest input)",
                  "轴向位置的形状（axial_pos_shape，例如 64|64；乘积即最长输入）")),
    Field("axial_pos_embds_dim", (64, 192), kind="ints",
          label=L("Widths per axis (axial_pos_embds_dim, e.g. 64|192; sum = H)",
                  "每个轴的宽度（axial_pos_embds_dim，例如 64|192；之和等于 H）")),
    Field("max_position_embeddings", 4096, label=L("Positions (P)", "最大位置数（P）"), sample=(1, 600)),
    # ReformerConfig sets it to len(attn_layers) unless the config gives it; given, the encoder builds that many
    # layers (each attn_layers[i] when the kinds are mixed, else the one kind).
    Field("num_hidden_layers", None, optional=True, maximum=MAX_LAYERS,
          label=L("Encoder layers (num_hidden_layers; null: one per attn_layers entry)",
                  "编码器层数（num_hidden_layers；null 表示每个 attn_layers 条目一层）"), sample=(1, 4)),
    Field("is_decoder", False, kind="bool",
          label=L("Causal (is_decoder; ReformerModelWithLMHead needs it, ReformerForMaskedLM refuses it)",
                  "因果掩码（is_decoder；ReformerModelWithLMHead 必须开启，ReformerForMaskedLM 必须关闭）"),
          sample=(0, 1)),
    Field("local_num_chunks_after", 0, minimum=0, label=L("Local chunks after (local_num_chunks_after)",
                                                          "局部注意力向后看的块数（local_num_chunks_after）")),
    Field("lsh_num_chunks_after", 0, minimum=0, optional=True,
          label=L("LSH chunks after (lsh_num_chunks_after)", "LSH 注意力向后看的块数（lsh_num_chunks_after）")),
    LABELS,
)


def read_attn_layers(value: Any) -> tuple[str, ...]:
    """``attn_layers`` as transformers builds it: a non-empty list of "lsh" / "local" (anything else raises there)."""
    if not isinstance(value, (list, tuple)) or not value or len(value) > MAX_LAYERS:
        raise CalcError("bad_value", key="attn_layers", value=value)
    if any(v not in ("lsh", "local") for v in value):
        raise CalcError("bad_value", key="attn_layers", value=value)
    return tuple(value)


def read_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and ``attn_layers`` (a list of names in order, repeats kept: no field kind reads that)."""
    values = read_fields(FIELDS, raw, {})
    layers = raw.get("attn_layers")
    values["attn_layers"] = read_attn_layers(list(ATTN_LAYERS) if layers is None else layers)
    return values


def layer_kinds(c: Mapping[str, Any]) -> tuple[str, ...]:
    """The kind of each layer as ``ReformerAttention`` picks it: the one kind, or ``attn_layers[i]`` when mixed."""
    kinds, n = c["attn_layers"], c["num_hidden_layers"]
    if n is None:
        return kinds
    return (kinds[0],) * n if len(set(kinds)) == 1 else kinds[:n]


def check(c: dict[str, Any]) -> None:
    """More layers than ``attn_layers`` names when its kinds are mixed (transformers indexes past its end); then
    ``AxialPositionEmbeddings``' own check (widths summing to H), and one width per axis at most."""
    n = c["num_hidden_layers"]
    if n is not None and len(set(c["attn_layers"])) > 1 and n > len(c["attn_layers"]):
        raise CalcError("bad_value", key="num_hidden_layers", value=n)
    if not c["axial_pos_embds"]:
        return
    dims, shape = c["axial_pos_embds_dim"], c["axial_pos_shape"]
    if sum(dims) != c["hidden_size"] or len(dims) > len(shape):
        raise CalcError("bad_value", key="axial_pos_embds_dim", value=list(dims))


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, inner = c["hidden_size"], c["num_attention_heads"] * c["attention_head_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h)
    if c["axial_pos_embds"]:
        shape = c["axial_pos_shape"]
        for axis, dim in enumerate(c["axial_pos_embds_dim"]):
            ax = [1] * len(shape)
            ax[axis] = shape[axis]
            t.add(f"{e}position_embeddings.weights.{axis}", (*ax, dim), "embeddings")
    else:
        t.embedding(e + "position_embeddings.embedding", c["max_position_embeddings"], h)
    for i, kind in enumerate(layer_kinds(c)):
        p = f"{prefix}encoder.layers.{i}."
        t.layer_norm(p + "attention.layer_norm", h, layer=i)
        projections = ("query_key", "value") if kind == "lsh" else ("query", "key", "value")
        for proj in projections:
            t.linear(f"{p}attention.self_attention.{proj}", inner, h, "attention_qkv", i, bias=False)
        t.linear(p + "attention.output.dense", h, inner, "attention_output", i, bias=False)
        t.layer_norm(p + "feed_forward.layer_norm", h, layer=i)
        t.linear(p + "feed_forward.dense.dense", c["feed_forward_size"], h, "feed_forward", i)
        t.linear(p + "feed_forward.output.dense", h, c["feed_forward_size"], "feed_forward", i)
    t.layer_norm(prefix + "encoder.layer_norm", 2 * h, section="encoder")


def lm_head(causal: bool) -> Any:
    """``ReformerOnlyLMHead``: its bias [V] (its own Parameter, so first), the decoder [V, 2H] without a bias.

    ``ReformerModelWithLMHead`` asserts ``is_decoder`` (and no chunk looked at after the current one);
    ``ReformerForMaskedLM`` asserts the opposite."""
    def head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
        if causal:
            if "local" in c["attn_layers"] and c["local_num_chunks_after"] != 0:
                raise CalcError("bad_value", key="local_num_chunks_after", value=c["local_num_chunks_after"])
            if "lsh" in c["attn_layers"] and c["lsh_num_chunks_after"] != 0:
                raise CalcError("bad_value", key="lsh_num_chunks_after", value=c["lsh_num_chunks_after"])
        t.add("lm_head.bias", (c["vocab_size"],), "head")
        t.linear("lm_head.decoder", c["vocab_size"], 2 * c["hidden_size"], "head", bias=False)

    return head


def classification_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``ReformerClassificationHead``: dense 2H → H, out_proj H → labels."""
    t.linear("classifier.dense", c["hidden_size"], 2 * c["hidden_size"], "head")
    t.linear("classifier.out_proj", c["num_labels"], c["hidden_size"], "head")


def qa_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    t.linear("qa_outputs", c["num_labels"], 2 * c["hidden_size"], "head")


def formula(inv: Inventory) -> Formula:
    """Word table, axial (Σ s_k·d_k) or flat (P·H) positions, each layer by its kind, the final 2H LayerNorm."""
    c = inv.config
    v, h, a, d, i = (c["vocab_size"], c["hidden_size"], c["num_attention_heads"], c["attention_head_size"],
                     c["feed_forward_size"])
    if c["axial_pos_embds"]:
        pairs = list(zip(c["axial_pos_shape"], c["axial_pos_embds_dim"]))
        positions = sum(s * k for s, k in pairs)
        pos_sym, pos_sub = "Σ s_k·d_k", " + ".join(f"{s}·{k}" for s, k in pairs)
    else:
        positions, pos_sym, pos_sub = c["max_position_embeddings"] * h, "P·H", f"{c['max_position_embeddings']}·{h}"
    lines = [FormulaLine("embeddings", f"V·H + {pos_sym}", f"{v}·{h} + {pos_sub}", v * h + positions)]
    common = 2 * h + a * d * h + 2 * h + 2 * h * i + i + h  # LNs, output, feed-forward
    for kind, count in (("lsh", 2), ("local", 3)):
        n = sum(1 for k in layer_kinds(c) if k == kind)
        per = count * h * a * d + common
        symbolic = f"{count}·H·A·d + 2H + A·d·H + 2H + 2H·I + I + H"
        substituted = f"{count}·{h}·{a}·{d} + 2·{h} + {a}·{d}·{h} + 2·{h} + 2·{h}·{i} + {i} + {h}"
        lines.append(FormulaLine(f"{kind}_layers", f"n_{kind} × ({symbolic})", f"{n} × ({substituted})", n * per))
    lines.append(FormulaLine("final_norm", "2·2H", f"2·2·{h}", 4 * h))
    symbols = {"V": v, "H": h, "A": a, "d": d, "I": i}
    return Formula(symbols, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """A mix of layer kinds; axial widths summing to H nine times in ten (H drawn as their sum)."""
    config["attn_layers"] = [rng.choice(["lsh", "local"]) for _ in range(rng.randint(1, 4))]
    shape = [rng.randint(1, 8) for _ in range(rng.choice([1, 2, 2, 3]))]
    dims = [rng.randint(1, 8) for _ in range(rng.randint(1, len(shape)))]
    config["axial_pos_shape"], config["axial_pos_embds_dim"] = shape, dims
    config["hidden_size"] = sum(dims) if rng.random() < 0.9 else rng.randint(1, 24)


def reformer_config(vocab: int, hidden: int, heads: int, head_size: int, ff: int, shape: list[int],
                    dims: list[int], layers: list[str]) -> dict[str, Any]:
    """A published Reformer config.json's size-relevant keys (both checkpoints are causal LMs: is_decoder)."""
    return {
        "model_type": "reformer", "vocab_size": vocab, "hidden_size": hidden, "num_attention_heads": heads,
        "attention_head_size": head_size, "feed_forward_size": ff, "axial_pos_embds": True,
        "axial_pos_shape": shape, "axial_pos_embds_dim": dims, "max_position_embeddings": shape[0] * shape[1],
        "attn_layers": layers, "is_decoder": True,
    }


FAMILY = Family(
    model_type="reformer",
    base="ReformerModel",
    fields=FIELDS,
    read=read_config,
    extras=(value_extra("attn_layers", list(ATTN_LAYERS)),),
    backbone=backbone,
    heads_check=None,  # a head's width is attention_head_size, not H / A
    checks=(check,),
    pad_token_id=None,  # the word table has no padding row
    architectures=(
        Architecture(name="ReformerModel", prefix="", pooler=False),
        # ties_embeddings: these classes have an output embedding (get_output_embeddings), though not a tied one
        Architecture(name="ReformerModelWithLMHead", prefix="reformer.", pooler=False, head=lm_head(True),
                     ties_embeddings=True, requires=(("is_decoder", True),)),
        Architecture(name="ReformerForMaskedLM", prefix="reformer.", pooler=False, head=lm_head(False),
                     ties_embeddings=True, requires=(("is_decoder", False),)),
        Architecture(name="ReformerForSequenceClassification", prefix="reformer.", pooler=False,
                     head=classification_head, uses_num_labels=True),
        Architecture(name="ReformerForQuestionAnswering", prefix="reformer.", pooler=False, head=qa_head,
                     uses_num_labels=True),
    ),
    title={"en": "Reformer", "zh": "Reformer"},
    formula=formula,
    # Both checkpoints' config.json values as PaddleNLP copied them (its REFORMER_PRETRAINED_INIT_CONFIGURATION,
    # github.com/PaddlePaddle/PaddleNLP paddlenlp/transformers/reformer/configuration.py @ b78bcbe): the Hub
    # files https://huggingface.co/google/reformer-crime-and-punishment/blob/main/config.json and
    # https://huggingface.co/google/reformer-enwik8/blob/main/config.json could not be read from here.
    presets=(
        Preset("google/reformer-crime-and-punishment",
               reformer_config(320, 256, 2, 64, 512, [512, 1024], [64, 192], list(ATTN_LAYERS)),
               "ReformerModelWithLMHead"),
        Preset("google/reformer-enwik8",
               reformer_config(258, 1024, 8, 128, 4096, [128, 512], [256, 768], ENWIK8_LAYERS),
               "ReformerModelWithLMHead"),
    ),
    sample=sample,
    rank=87,
    labels={
        "lsh_layers": L("LSH attention layers", "LSH 注意力层"),
        "local_layers": L("Local attention layers", "局部注意力层"),
        "final_norm": L("Final LayerNorm (2H)", "最后的层归一化（2H）"),
    },
)
