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

import math
import random
from typing import Any, Mapping

from ..config import MAX_LAYERS, Field, coerce_bool, coerce_fraction, coerce_int, read_fields
from ..costs import CostModel, Sim, T, classifier_dropout, dropouts
from ..costs.ops import Row
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, Task
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


#: The keys the training step reads that shape no tensor, with ReformerConfig's defaults: chunk lengths, chunks
#: looked at before the current one, hashing rounds, buckets (None: set from the first input's length).
STEP_DEFAULTS: dict[str, Any] = {"lsh_attn_chunk_length": 64, "local_attn_chunk_length": 64,
                                 "lsh_num_chunks_before": 1, "local_num_chunks_before": 1, "num_hashes": 1,
                                 "num_buckets": None}


def read_step_value(key: str, value: Any) -> Any:
    """A step key's value: a whole number ≥ 0 (≥ 1 for chunk lengths and hashes), ``num_buckets`` also a list of
    them or null; a chunk length may be null too (transformers' types allow it; the step refuses it)."""
    if value is None and key in ("num_buckets", "lsh_attn_chunk_length"):
        return None
    if key == "num_buckets" and isinstance(value, (list, tuple)):
        if not value or len(value) > 8:
            raise CalcError("bad_value", key=key, value=value)
        return tuple(read_step_value("num_hashes", v) for v in value)
    number = coerce_int(key, value)
    if number < (0 if key.endswith("chunks_before") else 1):
        raise CalcError("bad_value", key=key, value=value)
    return number


#: The keys only the inference span's replay reads, with ReformerConfig's defaults: ``use_cache`` (whether the
#: classes that pass it on keep each layer's LayerNorm output and buckets in a ReformerDynamicCache) and
#: ``hidden_act`` (the feed-forward's activation: its temporaries; one the simulator does not model keeps bounds).
INFERENCE_DEFAULTS: dict[str, Any] = {"use_cache": True, "hidden_act": "relu"}
#: The key only the training step's replay reads (:func:`training_replayed`), with ReformerConfig's default: local
#: attention's probabilities' dropout (the replay models it active; at 0 PyTorch allocates nothing for it, and the
#: step keeps its bounds, which list it always). Not a step key (:attr:`CostModel.keys`): the draws stay as they were.
TRAINING_DEFAULTS: dict[str, Any] = {"local_attention_probs_dropout_prob": 0.05}
#: The chunking of the feed-forward and the LM head along the sequence (``apply_chunking_to_forward``: per chunk,
#: then a ``cat``), with transformers' default 0 (none): the replays (training and inference) take only 0, another
#: value keeps the proven bounds (their storages list the feed-forward's cat). Measured: chunk_size_feed_forward 1
#: moves ReformerModel's forward maximum from 4,792 to 3,256 bytes (B2 L4, feed-forward 32).
CHUNK_DEFAULTS: dict[str, Any] = {"chunk_size_feed_forward": 0, "chunk_size_lm_head": 0}


def read_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, ``attn_layers`` (a list of names in order, repeats kept: no field kind reads that), the keys
    the training step reads (:data:`STEP_DEFAULTS`) and those the inference span reads (:data:`INFERENCE_DEFAULTS`)."""
    values = read_fields(FIELDS, raw, {})
    layers = raw.get("attn_layers")
    values["attn_layers"] = read_attn_layers(list(ATTN_LAYERS) if layers is None else layers)
    for key, default in STEP_DEFAULTS.items():
        values[key] = read_step_value(key, raw.get(key, default))
    values["use_cache"] = coerce_bool("use_cache", raw.get("use_cache", True))
    values["hidden_act"] = raw.get("hidden_act", "relu")
    for key, default in TRAINING_DEFAULTS.items():
        values[key] = coerce_fraction(key, raw.get(key, default))
    for key, default in CHUNK_DEFAULTS.items():
        values[key] = coerce_int(key, raw.get(key, default))
        if values[key] < 0:
            raise CalcError("bad_value", key=key, value=raw.get(key))
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


# --------------------------------------------------------------- training step
#
# ReformerConfig's defaults: ``hidden_dropout_prob`` 0.05 (the embeddings', the axial positions' and the
# encoder's output dropout), ``classifier_dropout`` None. The layers run their forward without a graph inside
# ``_ReversibleFunction`` (so their dropouts and activations keep nothing and count nothing), and its backward runs
# each layer again, feed-forward then attention, with a graph, then their backward.


def kinds_present(c: Mapping[str, Any]) -> set[str]:
    return set(layer_kinds(c))


def chunk_length(c: Mapping[str, Any], kind: str) -> int:
    return int(c["lsh_attn_chunk_length"] if kind == "lsh" else c["local_attn_chunk_length"])


def buckets_rotation(c: Mapping[str, Any], n: int) -> int:
    """``rotation_size`` of ``_hash_vectors``: ``num_buckets``, or the sum of its factors; when null,
    ``_set_num_buckets(L)`` picks it from the length on the first forward."""
    buckets = c["num_buckets"]
    if buckets is None:
        chunk = c["lsh_attn_chunk_length"]
        power = (2 * (n // chunk)).bit_length() - 1
        count = 2 ** power
        limit = 2 * max(int((c["max_position_embeddings"] // chunk) ** 0.5), chunk)
        if count > limit:
            buckets = (2 ** (power // 2), 2 ** (power - power // 2))
        else:
            buckets = count
    return int(buckets) if isinstance(buckets, int) else int(sum(buckets))


def bucket_factors(c: Mapping[str, Any], n: int) -> list[int]:
    """The bucket factors ``_hash_vectors`` loops over: ``num_buckets`` (one or a list), or when null what
    ``_set_num_buckets(L)`` picks (:func:`buckets_rotation`)."""
    buckets = c["num_buckets"]
    if buckets is None:
        chunk = c["lsh_attn_chunk_length"]
        power = (2 * (n // chunk)).bit_length() - 1
        limit = 2 * max(int((c["max_position_embeddings"] // chunk) ** 0.5), chunk)
        return [2 ** (power // 2), 2 ** (power - power // 2)] if 2 ** power > limit else [2 ** power]
    return [buckets] if isinstance(buckets, int) else list(buckets)


def products(sim: Sim, flops: int, grad: bool) -> None:
    """One attention product whose two factors need a gradient when ``grad`` (the keys and queries, the
    probabilities and the values): ``flops`` forward, the same again for each factor backward."""
    row = sim.record("bmm", flops)
    if grad and sim.grad_mode:
        row.backward += 2 * flops


def scratch(sim: Sim, sizes: list[tuple[int, int, int]]) -> None:
    """Storages the layers' Python makes that no figure of the tape counts (``sizes``: numbers, bytes per number,
    how many such storages: each its own, so that rounding every storage up to 512 bytes is bounded too),
    listed so that the peak's bounds count them (:attr:`Ops.storages`; nothing is kept, no FLOP, no row).

    Why: off the replayed domain (:func:`training_replayed`: LSH layers, a chunked feed-forward) the training step is
    bounded, not replayed: the storages the plain simulator's tape does not make are
    listed here, generously, so that the bound can only be too high, never too low (the streams and buckets that
    outlive a layer, the embeddings' noise and copies, what :func:`layer_storages` adds to a layer's description)."""
    for numel, size, count in sizes:
        for _ in range(count if numel else 0):
            sim.new((numel,), False, size)


def scratch_size(sim: Sim) -> int:
    """The bytes per number of a floating scratch storage: the model's, or float32 under autocast (an upper bound
    whatever autocast casts)."""
    return 4 if sim.lower else sim.itemsize


def step_attention(sim: Sim, inv: Inventory, kind: str, p: str, x: T) -> T:
    """``ReformerAttention`` as the backward's rerun runs it, for its rows (FLOPs both ways): LayerNorm, the
    projections (no biases), the two attention products, the output projection. With L > chunk length the queries
    attend their chunk and ``*_num_chunks_before``/``after`` chunks around it (LSH: per hashing round, after sorting
    by the buckets the first run kept: no rotation again); with L ≤ chunk length every query attends every key. The
    rerun's other storages: :func:`rerun_storages`."""
    c = inv.config
    b, n, _ = x.shape
    heads, d = c["num_attention_heads"], c["attention_head_size"]
    a = p + "attention."
    h = sim.layer_norm(a + "layer_norm", x)
    names = ("query_key", "value") if kind == "lsh" else ("query", "key", "value")
    projected = [sim.linear(a + "self_attention." + name, h) for name in names]
    grad = any(t.grad for t in projected)
    chunk = chunk_length(c, kind)
    rounds = c["num_hashes"] if kind == "lsh" else 1
    if n <= chunk:
        keys = n
        rounds = 1
    else:
        before = c["lsh_num_chunks_before"] if kind == "lsh" else c["local_num_chunks_before"]
        after = c["lsh_num_chunks_after"] if kind == "lsh" else c["local_num_chunks_after"]
        keys = chunk * (1 + before + after)
    flops = 2 * b * heads * rounds * n * d * keys
    products(sim, flops, grad)  # Q·Kᵀ
    products(sim, flops, grad)  # probabilities · V
    context = sim.new((b, n, heads * d), grad)
    return sim.linear(a + "output.dense", context)


def step_feed_forward(sim: Sim, p: str, x: T) -> T:
    """``ChunkReformerFeedForward`` as the backward's rerun runs it, for its rows: LayerNorm, dense, activation,
    output (the rerun's other storages: :func:`rerun_storages`)."""
    f = p + "feed_forward."
    h = sim.linear(f + "dense.dense", sim.layer_norm(f + "layer_norm", x))
    return sim.linear(f + "output.dense", sim.pointwise(h))


def layer_storages(sim: Sim, inv: Inventory, kind: str, p: str, x: T) -> None:
    """The storages of one run of a reversible layer's forward on the stream ``x`` ([B, L, H]), for the peak's
    bound: the layer as :func:`_inference_layer` describes it (with training's dropouts), and what the plain
    simulator's operations leave out there that the op-by-op replay makes: each LayerNorm's mean and 1/std (float32
    [B, L, 1], two LayerNorms), ``gelu_new``'s seven temporaries, and a chunked feed-forward's ``cat`` (B·L·H)."""
    c = inv.config
    b, n, h = x.shape
    _inference_layer(sim, inv, kind, p, x, x, False, training=True)
    act = 7 if c.get("hidden_act", "relu") == "gelu_new" else 0
    scratch(sim, [(b * n, 4, 4), (b * n * c["feed_forward_size"], scratch_size(sim), act),
                  (b * n * h, scratch_size(sim), 1)])


def rerun_storages(sim: Sim, inv: Inventory, kind: str, p: str, x: T) -> None:
    """The storages of the backward's rerun of a layer (the feed-forward then the attention, with a graph): the same
    operations make the same storages as the first run (the rerun skips only the hashing), so :func:`layer_storages`
    lists them again, its rows dropped (the rerun's FLOPs are :func:`step_feed_forward`'s and
    :func:`step_attention`'s). With the first run's, they also bound the rerun's gradients pending in its nested
    backward (at most one per tensor), as a checkpointed block's two runs do (:func:`calculator.costs.peak.before_optimizer_bound`)."""
    rows, grad, lower = len(sim.tape), sim.grad_mode, sim.lower
    sim.grad_mode = False
    # Under autocast the backward runs outside its region (``loss.backward()`` after the forward's ``with``): the
    # rerun and its nested backward run in float32, no copies. The first run's (partly bf16) storages then no longer
    # bound the rerun's float32 gradients, so the rerun is listed twice: its tensors, and their gradients pending.
    sim.lower = None
    try:
        for _ in range(1 if lower is None else 2):
            layer_storages(sim, inv, kind, p, x)
    finally:
        sim.grad_mode, sim.lower = grad, lower
        del sim.tape[rows:]


def precast(sim: Sim, kind: str, p: str) -> None:
    """Under autocast, the bf16 copies of a layer's trained Linear weights (and LoRA factors) as
    :meth:`~calculator.costs.ops.Ops.weight_copy` caches them, made before the layer's block: autocast keeps them
    to the forward's end, past the layer's run (a frozen weight's copy is cast afresh at each use and dies in the
    run: left to it). Nothing without autocast."""
    if sim.lower is None:
        return
    a, f = p + "attention.", p + "feed_forward."
    names = ("query_key", "value") if kind == "lsh" else ("query", "key", "value")
    for module in (*(a + "self_attention." + n for n in names), a + "output.dense", f + "dense.dense",
                   f + "output.dense"):
        info = sim.linear_info(module)
        if info.weight_trains:
            sim.weight_copy(sim.storage_name(module + ".weight"), (info.out_features, info.in_features), True)
        if info.lora_r is not None:
            sim.weight_copy(module + ".lora_A", (info.lora_r, info.in_features), True)
            sim.weight_copy(module + ".lora_B", (info.out_features, info.lora_r), True)


def step_encoder(sim: Sim, inv: Inventory, prefix: str, x: T) -> T:
    """``ReformerEncoder``: the two streams (``cat``), ``_ReversibleFunction`` (it keeps its two outputs, B·L·H
    each, and only when its input needs a gradient: otherwise no layer gets one), the final LayerNorm over 2H,
    dropout.

    Each layer's forward runs without a graph; the backward runs the feed-forward block, then the attention,
    again with a graph on inputs that need a gradient (``requires_grad = True``), and their backward. Each layer's two
    runs are one of :attr:`Sim.blocks` (the peak's bound counts the largest layer's, not every layer's); what
    outlives a run (the streams, the buckets) is listed before it, outside."""
    b, n, h = x.shape
    grad = x.grad
    streams = sim.new((b, n, 2 * h), grad)
    used = set(sim.used)
    c = inv.config
    cache = int(keeps_cache(inv))
    for i, kind in enumerate(layer_kinds(c)):
        p = f"{prefix}encoder.layers.{i}."
        sim.grad_mode = False
        # Outside the layer's block (they outlive its runs): the two residual sums, the next layer's inputs until it
        # returns; the backward's two differences and two gradient sums (backward_pass), the previous layer's inputs;
        # an LSH layer's buckets [B, A, R·L] (int64), which all_buckets keeps until the backward has run the layer;
        # with the cache (use_cache, in training too), the LayerNorm's output it keeps to the class's forward's end.
        scratch(sim, [(b * n * h, scratch_size(sim), 6 + cache)])
        if kind == "lsh" and n > c["lsh_attn_chunk_length"]:
            scratch(sim, [(b * c["num_attention_heads"] * c["num_hashes"] * n, 8, 1)])
        # Under autocast: each trained weight's bf16 copy the first run casts, cached to the forward's end (autocast's
        # cache): made here, outside the layer's block, so that the one-layer-at-a-time count never drops it.
        precast(sim, kind, p)
        first = sim.scope()
        half = sim.new((b, n, h), False)
        # The layer's forward without a graph, as the inference span describes it (with training's dropouts)
        layer_storages(sim, inv, kind, p, half)
        sim.grad_mode = True
        if not grad:
            sim.blocks.append((first, sim.scope()))
            continue
        start = T((b, n, h), (n * h, h, 1), sim.new((b, n, h), True).storage, True, sim.itemsize)
        for fn in (lambda s, t, p=p: step_feed_forward(s, p, t),
                   lambda s, t, p=p, kind=kind: step_attention(s, inv, kind, p, t)):
            rows, _ = sim.replay(fn, start)
            for row in rows:
                if row.op != "save":
                    sim.tape.append(Row(row.module, row.op, 0, row.forward + row.backward))
        rerun_storages(sim, inv, kind, p, start)
        # One layer runs at a time, in the forward (no graph: its storages gone as it returns) and in the backward (its
        # rerun with a graph, freed by backward_pass before the previous layer's): the peak's bound counts the largest
        # layer's two runs, as a checkpointed block's (:attr:`Sim.blocks`), not every layer's.
        sim.blocks.append((first, sim.scope()))
    if not grad:
        sim.used = used  # no gradient reaches the layers: their parameters end the step without one
    else:
        sim.save(sim.new((b, n, h), True))  # attn_output.detach()
        sim.save(sim.new((b, n, h), True))  # hidden_states.detach()
        scratch(sim, [(2 * b * n * h, scratch_size(sim), 1)])  # the backward's cat of the two streams' gradients
    out = sim.new(streams.shape, grad)  # torch.cat([attn_output, hidden_states], dim=-1)
    out = sim.layer_norm(prefix + "encoder.layer_norm", out)
    return sim.dropout(out, sim.drops("hidden_dropout_prob"))


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, b: int, n: int) -> T:
    """``ReformerEmbeddings``: the word table, dropout, plus the positions. Axial: each axis' weights broadcast
    and concatenated (nothing kept) and, with dropout, ``dropout2d`` on them with the first two axes swapped:
    a noise of B × s_2 numbers kept (one per sample and channel), of B × H for one axis (a 3-D input, which
    ``dropout2d`` drops as ``dropout1d``, channels H). A flat table: looked up at ``arange(L)`` expanded to B rows (L int64s kept), its own
    dropout."""
    c = inv.config
    e = prefix + "embeddings."
    drop = sim.drops("hidden_dropout_prob")
    x = sim.dropout(sim.embedding(e + "word_embeddings", sim.ids((b, n)), first=True), drop)
    if c["axial_pos_embds"]:
        shape = c["axial_pos_shape"]
        trains = any([sim.param_trains(f"{e}position_embeddings.weights.{k}") for k in range(len(c["axial_pos_embds_dim"]))])
        if drop and trains:
            sim.save(sim.new((b, shape[1]) if len(shape) > 1 else (b, c["hidden_size"]), False))
        positions = sim.new((b, n, c["hidden_size"]), trains)
    else:
        ids = sim.expand(sim.ids((1, n)), (b, n))  # arange(L).unsqueeze(0).expand(B, L): L int64s
        positions = sim.dropout(sim.embedding(e + "position_embeddings.embedding", ids), drop)
    # Not on the tape: the word dropout's noise; the axial weights' reshaped copies, their cat, dropout2d's noise
    # and output and the reshape after it (in eval: the cat, each row's index_select, their cat); a flat table's
    # dropout noise.
    width = c["hidden_size"]
    scratch(sim, [(b * n * width, scratch_size(sim), 5), (b * max(n, width), scratch_size(sim), 1), (n + 1, 8, 1)])
    return sim.add(x, positions)


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """Reformer's classes: the embeddings, the reversible encoder, the head on its 2H-wide output."""
    prefix = inv.arch.prefix
    # Under autocast the peak's bound holds too (:func:`precast`, :func:`rerun_storages`; step.py's ``_peak`` reads it)
    sim.bounded_under_autocast()
    x = step_embeddings(sim, inv, prefix, b, n)
    seq = step_encoder(sim, inv, prefix, x)
    return bert.run_head(REFORMER_HEADS, sim, inv, seq, None)  # the classifier's dropout: classifier_dropout


def lm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``ReformerOnlyLMHead`` (both LM classes): the decoder alone (its bias Parameter is never read)."""
    return [sim.linear("lm_head.decoder", seq)]


def classification_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``ReformerClassificationHead``: the first token, dropout, dense, tanh (keeps its output), dropout,
    out_proj."""
    drop = sim.drops(dropout_key)
    x = sim.dropout(sim.select(seq, 1), drop)
    x = sim.dropout(sim.keep_output(sim.linear("classifier.dense", x)), drop)
    return [sim.linear("classifier.out_proj", x)]


#: Reformer's classes, by task: each head's tensors and its forward on the 2H-wide output. ``ties_embeddings``:
#: the LM classes have an output embedding (get_output_embeddings), though not a tied one.
REFORMER_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.LM_HEAD_MODEL: bert.Head(False, lm_head(True), ties_embeddings=True, step=lm_step),
    Task.MASKED_LM: bert.Head(False, lm_head(False), ties_embeddings=True, step=lm_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(False, classification_head, uses_num_labels=True,
                                            step=classification_step),
    Task.QUESTION_ANSWERING: bert.Head(False, qa_head, uses_num_labels=True, step=bert.qa_step),
}


def step_check(inv: Inventory) -> None:
    """What transformers' training forward refuses, or what the step does not model (``costs_step_value``)."""
    c = inv.config
    bert.qa_needs_two_labels(inv)
    if c["lsh_attn_chunk_length"] is None:
        raise CalcError("costs_step_value", model_type=inv.model_type, key="lsh_attn_chunk_length", value=None,
                        modelled="≥ 1")


def step_length(inv: Inventory, n: int, training: bool = True) -> None:
    """Training refuses a length that is not a multiple of the chunk lengths' least common multiple (past the
    shortest chunk), and, with axial positions, one that is not the product of ``axial_pos_shape``. In
    ``model.eval()`` the axial positions take any length up to that product (the rows needed are cut from the
    broadcast weights); a length that is no such multiple is padded there (``_pad_to_mult_of_chunk_length``: an
    attention mask and its masking, not modelled), refused here as in training."""
    c = inv.config
    kinds = kinds_present(c)
    chunks = [chunk_length(c, k) for k in sorted(kinds)]
    lcm = chunks[0] if len(chunks) == 1 else math.lcm(*chunks)
    axial = math.prod(c["axial_pos_shape"]) if c["axial_pos_embds"] else None
    if (n % lcm and n > min(chunks)) or (axial is not None and (axial != n if training else axial < n)):
        raise CalcError("costs_reformer_length", value=n, axial="-" if axial is None else f"{axial:,}",
                        shortest=min(chunks), lcm=lcm)
    rotation = buckets_rotation(c, n) if "lsh" in kinds and n > c["lsh_attn_chunk_length"] else 2
    buckets = c["num_buckets"]
    if rotation == 0 or any(v % 2 for v in ((buckets,) if isinstance(buckets, int) else buckets or ())):
        raise CalcError("costs_forward_fails", key="num_buckets", value=buckets)


def program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """The step, or the inference span (``sim.training`` False: :func:`inference_program`, replayed storage by
    storage; with an activation the simulator does not model, the step's program and its bounds): in ``model.eval()``
    ``AxialPositionEmbeddings`` unpacks ``axial_pos_shape`` into exactly two axes (``axial_h, axial_w = ...``), so
    another count of axes fails in PyTorch and is refused here (``costs_forward_fails``)."""
    step_length(inv, n, sim.training)
    c = inv.config
    if not sim.training and c["axial_pos_embds"] and len(c["axial_pos_shape"]) != 2:
        raise CalcError("costs_forward_fails", key="axial_pos_shape", value=list(c["axial_pos_shape"]))
    if not sim.training and c.get("hidden_act", "relu") in INFERENCE_ACTIVATIONS and unchunked(inv):
        return inference_program(sim, inv, b, n)
    if training_replayed(sim, inv):  # the training step op by op (the lifetime simulator only)
        return training_program(sim, inv, b, n)
    return step_program(sim, inv, b, n)  # the training step; an inference span with another activation: bounds


def mask_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """The attention layers' mask values, 0-dim non-persistent buffers (cast with the model: ``torch.tensor`` makes
    them float32): an LSH layer's ``self_mask_value_float16/32`` and ``mask_value_float16/32``, a local layer's
    ``mask_value_float16/32``."""
    out: list[tuple[str, tuple[int, ...], int]] = []
    for i, kind in enumerate(layer_kinds(inv.config)):
        p = f"{inv.arch.prefix}encoder.layers.{i}.attention.self_attention."
        names = ("self_mask_value_float16", "self_mask_value_float32") if kind == "lsh" else ()
        out += [(p + name, (), 0) for name in (*names, "mask_value_float16", "mask_value_float32")]
    return out


#: ``buffers``: the training step is replayed op by op where :func:`training_replayed` says so (local attention only,
#: chunked or not, causal or not, flat or axial positions, any hidden dropout and the probabilities' strictly between 0
#: and 1, relu, gelu or gelu_new, LoRA, float32, bf16 and under bf16 autocast: the reversible layers' custom backward
#: as :meth:`~calculator.costs.lifetime.LiveSim.reversible_function` models it).
#: Elsewhere its peak is bounded (:mod:`calculator.costs.peak`), not replayed op by op (each layer's
#: two runs listed as the inference span describes the layer, :func:`layer_storages`, one layer's at a time: a block
#: of :attr:`Sim.blocks`, as a checkpointed layer's): its maximum lies in
#: ``_ReversibleFunctionBackward``, each layer's forward rerun with a graph and its own backward run inside the outer
#: one. The bound holds under bf16 autocast too (``sim.autocast_bounded``): the trained weights' cached copies listed
#: outside the layers' blocks (:func:`precast`), the backward's rerun, outside autocast's region, listed in float32
#: (:func:`rerun_storages`). The inference span is replayed storage by storage (:func:`inference_program`), eager and
#: under autocast.
COSTS = CostModel(program, lambda c: c["max_position_embeddings"], check=step_check, checkpointing=False, autocast=True,
                  keys=(*dropouts("hidden_dropout_prob", default=0.05), classifier_dropout()), buffers=mask_buffers)


FAMILY = Family(
    model_type="reformer",
    base="ReformerModel",
    fields=FIELDS,
    read=read_config,
    extras=(value_extra("attn_layers", list(ATTN_LAYERS)),
            *(value_extra(key, default) for key, default in STEP_DEFAULTS.items()),
            *(value_extra(key, default) for key, default in INFERENCE_DEFAULTS.items()),
            *(value_extra(key, default) for key, default in TRAINING_DEFAULTS.items()),
            *(value_extra(key, default) for key, default in CHUNK_DEFAULTS.items())),
    backbone=backbone,
    heads_check=None,  # a head's width is attention_head_size, not H / A
    checks=(check,),
    pad_token_id=None,  # the word table has no padding row
    # each class from its task's Head (transformers names the causal LM class ReformerModelWithLMHead)
    architectures=(
        bert.task_class("ReformerModel", Task.MODEL, "", REFORMER_HEADS[Task.MODEL]),
        bert.task_class("ReformerModelWithLMHead", Task.LM_HEAD_MODEL, "reformer.", REFORMER_HEADS[Task.LM_HEAD_MODEL],
                        requires=(("is_decoder", True),)),
        bert.task_class("ReformerForMaskedLM", Task.MASKED_LM, "reformer.", REFORMER_HEADS[Task.MASKED_LM],
                        requires=(("is_decoder", False),)),
        *bert.task_classes("Reformer", "reformer.", (Task.SEQUENCE_CLASSIFICATION, Task.QUESTION_ANSWERING),
                           REFORMER_HEADS),
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
        "costs_mixing": L(
            "Attention: LSH and chunked local attention, as transformers 5.23 builds {architecture} (it offers no "
            "SDPA). FLOPs as FlopCounterMode counts them: the products, and the random rotations that hash the "
            "keys into buckets (an einsum); the sorting and gathering by bucket count none. The layers are "
            "reversible: their forward keeps nothing, and the backward runs each layer's forward again, so the "
            "backward's FLOPs include a second forward (without the hashing), and the activations are only what "
            "is kept outside the layers.",
            "注意力：LSH 注意力和分块的局部注意力，与 transformers 5.23 构建 {architecture} 的方式相同（它不支持 SDPA）。"
            "FLOPs 与 FlopCounterMode 的统计一致：计入矩阵乘法，以及把键哈希到桶里的随机旋转（一次 einsum）；"
            "按桶排序和收集不计 FLOPs。各层是可逆的：前向不为反向传播保存任何张量，反向传播时把每层的前向重新算一遍，"
            "所以反向 FLOPs 包含第二次前向（不再哈希），激活值只有各层之外保存的张量。"),
    },
    costs=COSTS,
)


# --------------------------------------------------------------- the inference span, storage by storage
#
# ``model.eval()`` under ``torch.no_grad()``: ``_ReversibleFunction.apply`` runs its forward as a plain function (no
# graph, its ctx dropped as it returns), each layer a plain forward. Every storage below is one LiveBytes measured
# (tests/crosscheck/peak_measure.py), made by the aten operation named, and dropped where modeling_reformer.py
# drops its last name (``release``) or at the end of the function that made it (``end_scope``).
#
# ``use_cache`` (ReformerConfig's default True) is read by ReformerModel, ReformerModelWithLMHead and
# ReformerForSequenceClassification (ReformerForMaskedLM and ReformerForQuestionAnswering pass False): each layer's
# ReformerAttention then stores its LayerNorm's output (``states``) and an LSH layer's buckets in the
# ReformerDynamicCache, which lives until the outermost forward returns (the two model classes return it).


#: The activations whose temporaries the simulator makes as PyTorch does (:meth:`~calculator.costs.ops.Ops.activation`).
INFERENCE_ACTIVATIONS = ("relu", "gelu", "gelu_new")


def _int64(sim: Sim, shape: tuple[int, ...], aten: str) -> T:
    return sim.fresh(shape, aten, 8)


def _adjacent(sim: Sim, t: T, before: int, after: int) -> T:
    """``_look_adjacent``: per neighbouring chunk a ``cat`` of two slices (the vectors' size), then their ``cat``
    along dim 3 (1 + before + after times the size); the slices' cats die as it returns. None before nor after:
    the vectors themselves."""
    if before == 0 and after == 0:
        return t
    if sim.grad_mode and t.grad:  # the backward's rerun (training_program): the slices and cats with their nodes
        mark = sim.scope()
        chunks = range(t.shape[2])
        parts = [t if i == 0 else sim.concat([sim.slice_dim(t, 2, len(chunks[i:])),
                                              sim.slice_dim(t, 2, len(chunks[:i]))], 2)
                 for i in range(-before, after + 1)]
        return sim.end_scope(mark, sim.concat(parts, 3))
    size = t.itemsize
    shape = list(t.shape)
    rolled = [sim.fresh(t.shape, "aten.cat", size) for _ in range(before + after)]
    shape[3] *= 1 + before + after
    out = sim.fresh(tuple(shape), "aten.cat", size)
    sim.release(*rolled)
    return out


def _masked_softmax(sim: Sim, dots: T, causal: bool, self_mask: bool, drop_logits: bool) -> tuple[T, T, T]:
    """The causal mask (``ge``, bool, then ``where``), LSH's self mask (``ne``, ``where``), ``logsumexp``, the
    difference and ``exp``: (the probabilities, the logits, the masked dots still named). ``drop_logits``: local
    attention's ``del logits`` right after ``exp``."""
    if causal:
        mask = sim.fresh(dots.shape, "aten.ge", 1)
        dots = sim.rebind(dots, sim.fresh(dots.shape, "aten.where", dots.itemsize))
        sim.release(mask)
    if self_mask:
        mask = sim.fresh(dots.shape, "aten.ne", 1)
        dots = sim.rebind(dots, sim.fresh(dots.shape, "aten.where", dots.itemsize))
        sim.release(mask)
    logits = sim.fresh(dots.shape[:-1] + (1,), "aten.logsumexp", dots.itemsize)
    diff = sim.fresh(dots.shape, "aten.sub", dots.itemsize)
    probs = sim.fresh(dots.shape, "aten.exp", dots.itemsize)
    sim.release(diff)
    if drop_logits:
        sim.release(logits)
    return probs, logits, dots


def _merge_heads(sim: Sim, out: T) -> T:
    """``_merge_hidden_size_dims``: ``permute(0, 2, 1, 3)`` then ``reshape`` to [B, L, A·d], a copy unless the
    permuted strides allow a view (one head); ``out_vectors`` rebound."""
    b, heads, n, d = out.shape
    merged = sim.reshape(sim.permute(out, (0, 2, 1, 3)), (b, n, heads * d))
    return sim.rebind(out, merged)


def _dropped(sim: Sim, t: T, training: bool) -> T:
    """``nn.functional.dropout`` in training (``training``: and a probability above 0, or one not read: then a
    bound's storages, never fewer): the mask (``empty_like``, then ``bernoulli_`` and ``div_`` in place) and the
    product, the mask dropped after it and the name rebound (measured in the reversible layers' forward:
    ``empty_like``, ``mul``; nothing at probability 0); in ``model.eval()`` the input."""
    if not training:
        return t
    mask = sim.fresh(t.shape, "aten.empty_like", t.itemsize)
    out = sim.fresh(t.shape, "aten.mul", t.itemsize)
    sim.release(mask)
    return sim.rebind(t, out)


def _inference_local(sim: Sim, c: Mapping[str, Any], a: str, h: T, training: bool = False) -> T:
    """``LocalSelfAttention.forward`` on the LayerNorm's output ``h`` (``training``: the probabilities' dropout)."""
    mark = sim.scope()
    b, n, _ = h.shape
    heads, d = c["num_attention_heads"], c["attention_head_size"]
    chunk = c["local_attn_chunk_length"]
    q, k, v = (sim.heads(sim.linear(a + "self_attention." + name, h), heads, d) for name in ("query", "key", "value"))
    k = sim.rebind(k, sim.divided(k))  # key_vectors / sqrt(d), laid out as its input
    arange = _int64(sim, (n,), "aten.arange")
    indices = _int64(sim, (b, heads, n), "aten.repeat")
    sim.release(arange)
    if n > chunk:
        before, after = c["local_num_chunks_before"], c["local_num_chunks_after"]
        split = (b, heads, n // chunk, chunk)
        q, k, v = (sim.reshape(t, split + (d,)) for t in (q, k, v))
        qi = sim.reshape(indices, split)
        k = sim.rebind(k, _adjacent(sim, k, before, after))
        v = sim.rebind(v, _adjacent(sim, v, before, after))
        _adjacent(sim, qi, before, after)  # key_indices
    else:
        qi = indices
    dots = sim.bmm(q, sim.transpose(k, -1, -2))
    sim.release(q, k)  # del query_vectors, key_vectors
    if sim.grad_mode:  # the backward's rerun with a graph (training_program), each op's node
        if c["is_decoder"]:  # the causal mask (ge, bool), where (its node keeps the mask), del mask
            mask = sim.fresh(dots.shape, "aten.ge", 1)
            dots = sim.rebind(dots, _live(sim).masked_where(dots, mask))
            sim.release(mask)
        probs = _live(sim).reformer_softmax(dots)
        probs = sim.dropout(probs, training)
    else:
        probs, _, dots = _masked_softmax(sim, dots, bool(c["is_decoder"]), False, True)
        probs = _dropped(sim, probs, training)
    out = sim.bmm(probs, v)
    sim.release(v)  # del value_vectors
    out = sim.reshape(out, (b, heads, n, d))  # flatten(2, 3): a view
    return sim.end_scope(mark, _merge_heads(sim, out))


def _hash_vectors(sim: Sim, c: Mapping[str, Any], qk: T) -> T:
    """``_hash_vectors``: the random rotations (``randn``), their ``einsum`` with the detached vectors (one
    ``bmm``; with d = 1 a broadcast ``mul``), per bucket factor ``cat([r, -r])`` and ``argmax`` (two factors: the
    second ``argmax`` times the first's count, added), the rounds' offsets: the buckets [B, A, R·L], int64. Only
    ``offset_buckets`` outlives the call."""
    mark = sim.scope()
    b, heads, n, d = qk.shape
    rounds = c["num_hashes"]
    factors = bucket_factors(c, n)
    rotation = sum(factors)
    size = qk.itemsize
    sim.fresh((heads, d, rounds, rotation // 2), "aten.randn", size)
    if d > 1:
        sim.record("bmm", 2 * b * heads * n * d * rounds * (rotation // 2))
        rotated = sim.fresh((b, heads, rounds, n, rotation // 2), "aten.bmm", size)
    else:
        rotated = sim.fresh((b, heads, rounds, n, rotation // 2), "aten.mul", size)
    shape = (b, heads, rounds, n)
    found: T | None = None
    both: T | None = None
    for factor in factors:
        if both is not None:
            sim.release(both)  # rotated_vectors_factor rebound to the next factor's slice
        neg = sim.fresh(shape + (factor // 2,), "aten.neg", size)
        both = sim.fresh(shape + (factor,), "aten.cat", size)
        sim.release(neg)
        if len(factors) == 1:
            rotated = sim.rebind(rotated, both)  # one factor: rotated_vectors itself rebound to the cat
        if found is None:
            found = _int64(sim, shape, "aten.argmax")
        else:  # buckets + cur_product * argmax(...)
            arg = _int64(sim, shape, "aten.argmax")
            times = _int64(sim, shape, "aten.mul")
            sim.release(arg)
            found = sim.rebind(found, _int64(sim, shape, "aten.add"))
            sim.release(times)
    offsets = _int64(sim, (rounds,), "aten.arange")
    offsets = sim.rebind(offsets, _int64(sim, (rounds,), "aten.mul"))
    out = _int64(sim, (b, heads, rounds * n), "aten.add")
    return sim.end_scope(mark, out)


def _inference_lsh(sim: Sim, c: Mapping[str, Any], a: str, h: T, training: bool = False) -> tuple[T, T | None]:
    """``LSHSelfAttention.forward`` on the LayerNorm's output ``h``: its output and the buckets (None when
    L ≤ chunk length: every query attends every key, no hashing); ``training``: the probabilities' dropout."""
    mark = sim.scope()
    b, n, _ = h.shape
    heads, d = c["num_attention_heads"], c["attention_head_size"]
    chunk, rounds = c["lsh_attn_chunk_length"], c["num_hashes"]
    qk = sim.heads(sim.linear(a + "self_attention.query_key", h), heads, d)
    v = sim.heads(sim.linear(a + "self_attention.value", h), heads, d)
    standard = n <= chunk
    buckets = None
    if not standard:
        buckets = _hash_vectors(sim, c, qk)
        m = rounds * n
        # _stable_argsort: arange, L·buckets, arange % L (expanded), their sum, sort (values dropped)
        arange = _int64(sim, (m,), "aten.arange")
        scaled = _int64(sim, (b, heads, m), "aten.mul")
        rest = _int64(sim, (b, heads, m), "aten.remainder")
        total = _int64(sim, (b, heads, m), "aten.add")
        sim.release(scaled, rest)
        values = _int64(sim, (b, heads, m), "aten.sort")
        _int64(sim, (b, heads, m), "aten.sort")  # sorted_bucket_idx: named until the attention returns
        sim.release(values, arange, total)
        arange = _int64(sim, (m,), "aten.arange")
        _int64(sim, (b, heads, m), "aten.empty")  # undo_sorted_bucket_idx: .new(...), then scatter_
        sim.release(arange)
        per_hash = _int64(sim, (b, heads, m), "aten.remainder")
        gathered = []
        for t in (qk, v):
            repeated = sim.fresh((b, heads, m, d), "aten.repeat", t.itemsize)
            g = sim.fresh((b, heads, m, d), "aten.gather", t.itemsize)
            sim.release(repeated, t)
            gathered.append(g)
        shape = (b, heads, m // chunk, chunk, d)
        qk, v = (sim.reshape(t, shape) for t in gathered)
    else:
        arange = _int64(sim, (n,), "aten.arange")
        per_hash = _int64(sim, (b, heads, n), "aten.repeat")
        sim.release(arange)
    # _len_and_dim_norm: x ** 2, its mean, + eps, rsqrt, the product, / sqrt(d)
    size, rows = qk.itemsize, qk.shape[:-1] + (1,)
    square = sim.fresh(qk.shape, "aten.pow", size)
    mean = sim.fresh(rows, "aten.mean", size)
    sim.release(square)
    shifted = sim.fresh(rows, "aten.add", size)
    root = sim.fresh(rows, "aten.rsqrt", size)
    sim.release(shifted)
    normed = sim.fresh(qk.shape, "aten.mul", size)
    sim.release(root, mean)
    k = sim.fresh(qk.shape, "aten.div", size)
    sim.release(normed)
    if not standard:
        k = T(k.shape, qk.strides, k.storage, False, size)
    else:
        k = T(qk.shape, qk.strides, k.storage, False, size)  # TensorIterator keeps the transposed layout
    attend = sim.scope()  # _attend
    if not standard:
        before, after = c["lsh_num_chunks_before"], c["lsh_num_chunks_after"]
        keys = _adjacent(sim, k, before, after)
        values = _adjacent(sim, v, before, after)
    else:
        keys, values = k, v
    dots = sim.bmm(qk, sim.transpose(keys, -1, -2))
    if keys is not k:
        sim.release(keys)  # del key_vectors (the adjacent copy; the caller still names k)
    if not standard:  # the bucket indices split into chunks (a view), the adjacent ones' cats
        _adjacent(sim, sim.reshape(per_hash, (b, heads, rounds * n // chunk, chunk)), before, after)
    probs, logits, dots = _masked_softmax(sim, dots, bool(c["is_decoder"]), True, False)
    sim.release(dots)  # del query_key_dots
    probs = _dropped(sim, probs, training)
    out = sim.bmm(probs, values)
    sim.end_scope(attend, out, logits, probs)
    sim.release(k, v)  # del key_vectors, value_vectors
    if not standard:
        # ReverseSort: the output and the logits gathered back into the sequence's order
        out = sim.rebind(out, sim.fresh((b, heads, rounds * n, d), "aten.gather", out.itemsize))
        logits = sim.rebind(logits, sim.fresh((b, heads, rounds * n), "aten.gather", logits.itemsize))
        if rounds > 1:
            lse = sim.fresh((b, heads, 1, n, 1), "aten.logsumexp", logits.itemsize)
            diff = sim.fresh((b, heads, rounds, n, 1), "aten.sub", logits.itemsize)
            sim.release(lse)
            weights = sim.fresh((b, heads, rounds, n, 1), "aten.exp", logits.itemsize)
            sim.release(diff)
            product = sim.fresh((b, heads, rounds, n, d), "aten.mul", out.itemsize)
            summed = sim.fresh((b, heads, n, d), "aten.sum", out.itemsize)
            sim.release(product, weights)
            out = sim.rebind(out, summed)
        sim.release(logits)  # del logits
    out = sim.reshape(out, (b, heads, n, d))
    out = _merge_heads(sim, out)
    sim.release(probs)  # attention_probs = ()
    kept = (buckets,) if buckets is not None else ()
    return sim.end_scope(mark, out, *kept), buckets


def _inference_layer(sim: Sim, inv: Inventory, kind: str, p: str, attn: T, hidden: T,
                     cache: bool, training: bool = False) -> tuple[T, T, list[T]]:
    """``ReformerLayer.forward`` under no_grad: the attention block (LayerNorm, self-attention, output dense) added
    to the previous attention output, the feed-forward block added to the hidden states; the attention's output
    and its dense's die as it returns. Also returned: what outlives it, the buckets (``_ReversibleFunction`` collects
    them in ``all_buckets``) and, with ``cache``, the LayerNorm's output (the cache's states).

    The one description of a layer's forward: the inference span's, and with ``training`` the training step's first
    run of each layer (``_ReversibleFunction.forward``, also under no_grad), which adds the dropouts (the attention's
    probabilities, ReformerSelfOutput's, the feed-forward's two: :func:`_dropped`) and, for an activation the
    simulator does not model, one new tensor and generous temporaries (:func:`scratch`: only the bound reads them)."""
    c = inv.config
    layer = sim.scope()
    a = p + "attention."
    block = sim.scope()  # ReformerAttention.forward
    h = sim.layer_norm(a + "layer_norm", hidden)
    if kind == "lsh":
        context, buckets = _inference_lsh(sim, c, a, h, training)
    else:
        context, buckets = _inference_local(sim, c, a, h, training), None
    # the hidden dropouts (hidden_dropout_prob, a step key: none at 0, measured); the probabilities' (LSH's and local
    # attention's own probabilities, not read) always, a bound's storages
    hidden_drop = training and sim.drops("hidden_dropout_prob")
    dense = _dropped(sim, sim.linear(a + "output.dense", context), hidden_drop)
    kept = [t for t in (h, buckets) if t is not None] if cache else ([buckets] if buckets is not None else [])
    sim.end_scope(block, dense, *kept)
    # prev_attn_output + attn_output (under autocast the float32 stream plus the bf16 dense: promoted to float32)
    attn = sim.fresh(attn.shape, "aten.add", max(attn.itemsize, dense.itemsize))
    f = p + "feed_forward."
    ff = sim.scope()  # forward_chunk
    normed = sim.layer_norm(f + "layer_norm", attn)
    x = _dropped(sim, sim.linear(f + "dense.dense", normed), hidden_drop)
    # ACT2FN[hidden_act] (relu: a new tensor); the dense's output and the LayerNorm's (forward_chunk's name, rebound
    # as ReformerFeedForwardDense returns) die after it
    act = c.get("hidden_act", "relu")
    if act in INFERENCE_ACTIVATIONS:
        x = sim.rebind(x, sim.activation(act, x))
    else:  # (training only: the inference span with another activation runs the step's program for its bounds)
        scratch(sim, [(x.numel, scratch_size(sim), 4)])
        x = sim.rebind(x, sim.fresh(x.shape, "aten.mul", x.itemsize))
    sim.release(normed)
    # forward_chunk still names the activation's output while ReformerFeedForwardOutput runs (its dense, its dropout:
    # measured in training), gone as forward_chunk returns
    act_out = x
    x = _dropped(sim, sim.linear(f + "output.dense", x), hidden_drop)
    sim.release(act_out)
    sim.end_scope(ff, x)
    hidden = sim.fresh(hidden.shape, "aten.add", max(hidden.itemsize, x.itemsize))  # hidden_states + feed_forward(...)
    sim.release(x)
    sim.end_scope(layer, hidden, attn, *kept)
    return attn, hidden, kept


def keeps_cache(inv: Inventory) -> bool:
    """Whether the class keeps each layer's LayerNorm output (and an LSH layer's buckets) in its cache:
    ``use_cache`` (ReformerConfig's default True, in training too) for ReformerModel, the causal LM and sequence
    classification, whose forwards pass it on."""
    return bool(inv.config.get("use_cache", True)) and inv.arch.task in (
        Task.MODEL, Task.LM_HEAD_MODEL, Task.SEQUENCE_CLASSIFICATION)


def _forward_start(sim: Sim, inv: Inventory, b: int, n: int) -> tuple[bool, int, int, T, int, T]:
    """How both replays (the inference span, the training step) open: whether the class keeps the cache
    (``use_cache``: ReformerModel, the causal LM, sequence classification), the class's and ReformerModel's scopes,
    ``input_ids``, the padding warning's transients, the embeddings' scope and its ``position_ids``; each declares
    every release, under bf16 autocast too (the Linears' copies, sim.linear: each weight's cached to the end, the
    input's dropped; the attention in the projections' bf16, the residual adds promoted to the float32 streams,
    LayerNorm in float32)."""
    sim.exact_lifetimes()
    sim.exact_forward()
    sim.exact_autocast()
    cache = keeps_cache(inv)
    top = sim.scope()  # the class's forward
    mark = sim.scope()  # ReformerModel.forward
    ids = sim.ids((b, n))
    # warn_if_padding_and_no_attention_mask: pad_token_id (0) in input_ids[:, [-1, 0]]
    sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    emb = sim.scope()  # ReformerEmbeddings.forward
    return cache, top, mark, ids, emb, _int64(sim, (n,), "aten.arange")


def inference_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """The inference span, every storage and its release (see above)."""
    c = inv.config
    cache, top, mark, ids, emb, positions = _forward_start(sim, inv, b, n)
    prefix = inv.arch.prefix
    task = inv.arch.task
    e = prefix + "embeddings."
    x = sim.embedding(e + "word_embeddings", ids, first=True)
    h = c["hidden_size"]
    if c["axial_pos_embds"]:
        sim.release(_int64(sim, (), "aten.max"))  # position_ids.max().item()
        rows, width = c["axial_pos_shape"]
        columns = (n - 1 + width) // width
        table = sim.fresh((b, columns, width, h), "aten.cat", x.itemsize)
        picked = [sim.fresh((n, h), "aten.index_select", x.itemsize) for _ in range(b)]
        sim.fresh((b, n, h), "aten.cat", x.itemsize)  # the rows' index_selects concatenated
        sim.release(*picked, table)
    else:
        sim.embedding(e + "position_embeddings.embedding", positions)
    x = sim.end_scope(emb, sim.fresh((b, n, h), "aten.add", x.itemsize))
    enc = sim.scope()  # ReformerEncoder.forward
    streams = sim.fresh((b, n, 2 * h), "aten.cat", x.itemsize)
    function = sim.scope()  # _ReversibleFunction.forward
    attn = hidden = T((b, n, h), (2 * n * h, 2 * h, 1), streams.storage, False, x.itemsize)
    kept: list[T] = []
    for i, kind in enumerate(layer_kinds(c)):
        p = f"{prefix}encoder.layers.{i}."
        new_attn, new_hidden, held = _inference_layer(sim, inv, kind, p, attn, hidden, cache)
        kept += held
        if i:
            sim.release(attn, hidden)  # the previous layer's outputs, rebound after this one returns
        attn, hidden = new_attn, new_hidden
    out = sim.fresh((b, n, 2 * h), "aten.cat", x.itemsize)
    if not cache:
        kept = []  # all_buckets dies with the function (its ctx too: no graph)
    sim.end_scope(function, out, *kept)
    sim.release(streams)
    seq = sim.rebind(out, sim.layer_norm(prefix + "encoder.layer_norm", out))
    sim.end_scope(enc, seq, *kept)
    sim.end_scope(mark, seq, *kept)
    outputs = REFORMER_INFERENCE_HEADS[task](sim, seq)
    if task == Task.SEQUENCE_CLASSIFICATION:
        kept = []  # the cache dies as the class's forward returns
    sim.end_scope(top, outputs[0], *outputs[1:], *kept)
    return outputs + kept


#: Each class's head in the inference span, on the 2H-wide output.
REFORMER_INFERENCE_HEADS = {
    Task.MODEL: lambda sim, seq: [seq],
    Task.LM_HEAD_MODEL: lambda sim, seq: [sim.linear("lm_head.decoder", seq)],
    Task.MASKED_LM: lambda sim, seq: [sim.linear("lm_head.decoder", seq)],
    Task.SEQUENCE_CLASSIFICATION: lambda sim, seq: bert.step_pair_head(sim, seq, False, sim.keep_output),
    Task.QUESTION_ANSWERING: lambda sim, seq: bert.step_qa(sim, seq),
}


# --------------------------------------------------------------- the training step, storage by storage
#
# Where it is proven (:func:`training_replayed`), the step is replayed op by op on :class:`~.costs.lifetime.LiveSim`:
# the embeddings and the streams' ``cat`` with their graph, ``_ReversibleFunction``'s forward running each layer as
# the inference span describes it (no graph, with training's dropouts), the backward's two reruns of each layer
# recorded with their graphs (:meth:`~.costs.lifetime.LiveSim.reversible_rerun`) and run by the function's node
# (:meth:`~.costs.lifetime.LiveSim.reversible_function`), the final LayerNorm. Every storage and its release as
# LiveBytes measured them (tests/crosscheck/peak_measure.py; a layer's backward op by op in the node's docstring).


def _live(sim: Sim) -> Any:
    """``sim`` as the lifetime simulator (only :func:`training_program` runs the reruns with a graph)."""
    from ..costs.lifetime import LiveSim

    assert isinstance(sim, LiveSim)
    return sim


def training_replayed(sim: Sim, inv: Inventory) -> bool:
    """Whether the training step is replayed op by op (else the step's program and its proven bounds): on the
    lifetime simulator (bf16 autocast too), local attention only (in chunks or not, causal or not), flat or axial
    positions, relu, gelu or gelu_new, the probabilities' dropout active (ReformerConfig's 0.05): the cases measured
    (LiveBytes) and proven by the cross-checks so far. LSH attention keeps the bounds."""
    from ..costs.lifetime import LiveSim

    c = inv.config
    return (isinstance(sim, LiveSim)
            and set(layer_kinds(c)) == {"local"}
            and c.get("hidden_act", "relu") in INFERENCE_ACTIVATIONS
            and 0 < c.get("local_attention_probs_dropout_prob", 0.05) < 1 and unchunked(inv))


def unchunked(inv: Inventory) -> bool:
    """Whether the feed-forward and the LM classes' head run whole (:data:`CHUNK_DEFAULTS` 0), as the replays describe
    them."""
    lm = inv.arch.task in (Task.LM_HEAD_MODEL, Task.MASKED_LM)
    return not inv.config.get("chunk_size_feed_forward", 0) and not (lm and inv.config.get("chunk_size_lm_head", 0))


def _graph_dropped(sim: Sim, t: T, active: bool) -> T:
    """``nn.functional.dropout`` with a graph (:meth:`~calculator.costs.ops.Ops.dropout`), the name rebound."""
    return sim.rebind(t, sim.dropout(t, active))


def _rerun_feed_forward(sim: Sim, c: Mapping[str, Any], p: str, x: T) -> T:
    """``ChunkReformerFeedForward`` on ``next_attn_output`` with a graph (``backward_pass``): LayerNorm, dense,
    the activation (the dense's output dropped after it), output."""
    f = p + "feed_forward."
    drop = sim.drops("hidden_dropout_prob")
    normed = sim.layer_norm(f + "layer_norm", x)
    h = _graph_dropped(sim, sim.linear(f + "dense.dense", normed), drop)
    h = sim.rebind(h, sim.activation(c.get("hidden_act", "relu"), h))
    sim.release(normed)
    return _graph_dropped(sim, sim.linear(f + "output.dense", h), drop)


def _rerun_attention(sim: Sim, c: Mapping[str, Any], p: str, x: T) -> T:
    """``ReformerAttention`` on the rebuilt hidden states with a graph (``backward_pass``, no cache): LayerNorm, the
    local self-attention (:func:`_inference_local`'s graph branch), the output dense."""
    a = p + "attention."
    h = sim.layer_norm(a + "layer_norm", x)
    context = _inference_local(sim, c, a, h, training=True)
    return _graph_dropped(sim, sim.linear(a + "output.dense", context), sim.drops("hidden_dropout_prob"))


def _classification_head(sim: Sim, seq: T) -> T:
    """``ReformerClassificationHead`` with each name's release (one function rebinding ``hidden_states``): the first
    token (a view), dropout, dense (its output gone after tanh), tanh (kept by its node), dropout, out_proj; the
    dropouts read ``classifier_dropout`` (else ``hidden_dropout_prob``)."""
    drop = sim.drops("classifier_dropout")
    mark = sim.scope()
    first = sim.select(seq, 1)  # hidden_states[:, 0, :]
    x = sim.dropout(first, drop)
    dense = sim.linear("classifier.dense", x)
    if x is not first:
        sim.release(x)
    x = sim.rebind(dense, sim.keep_output(dense))  # torch.tanh
    x = _graph_dropped(sim, x, drop)
    return sim.end_scope(mark, sim.linear("classifier.out_proj", x))


def _axial_positions(sim: Sim, inv: Inventory, b: int, n: int, drop: bool) -> T:
    """``AxialPositionEmbeddings`` in training, with its graph: each axis' weights expanded to [B, s_1, …, d_k]
    (ExpandBackward0 sums the gradient back to the weight's shape); without dropout each reshaped to [B, L, d_k] (a
    copy past one axis) and concatenated, the copies gone after the cat; with dropout their cat, ``dropout2d`` on it
    with dims 1 and 2 swapped (a noise of one number per sample and channel, kept by its node; a 3-D input, one
    axis, as dropout1d), swapped back and reshaped (a view)."""
    c = inv.config
    e = inv.arch.prefix + "embeddings.position_embeddings."
    mark = sim.scope()
    shape, dims = list(c["axial_pos_shape"]), list(c["axial_pos_embds_dim"])
    expanded = []
    for k, d in enumerate(dims):
        name = f"{e}weights.{k}"
        expanded.append(sim.expand(sim.parameter(name, sim.shapes[name]), (b, *shape, d)))
    if drop:
        swapped = sim.transpose(sim.concat(expanded, -1), 2, 1)
        noise = (b, swapped.shape[1]) + (1,) * (len(swapped.shape) - 2)
        back = sim.transpose(_live(sim).dropout(swapped, True, noise_shape=noise), 2, 1)
        return sim.end_scope(mark, sim.reshape(back, (b, n, c["hidden_size"])))
    parts = [sim.reshape(t, (b, n, d)) for t, d in zip(expanded, dims)]
    out = sim.concat(parts, -1)
    sim.release(*parts)
    return sim.end_scope(mark, out)


def training_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """The training step replayed storage by storage (see above; :func:`training_replayed` says where)."""
    c = inv.config
    live = _live(sim)
    cache, top, mark, ids, emb, positions = _forward_start(sim, inv, b, n)
    prefix = inv.arch.prefix
    task = inv.arch.task
    e = prefix + "embeddings."
    drop = sim.drops("hidden_dropout_prob")
    # ``embeddings = dropout(inputs_embeds)``: the word embeddings' output stays named until the embeddings return
    x = sim.dropout(sim.embedding(e + "word_embeddings", ids, first=True), drop)
    if c["axial_pos_embds"]:
        pos = _axial_positions(sim, inv, b, n, drop)
    else:
        pos = sim.embedding(e + "position_embeddings.embedding", sim.expand(sim.view(positions, (1, n)), (b, n)))
        pos = _graph_dropped(sim, pos, drop)  # PositionEmbeddings' own dropout
    x = sim.end_scope(emb, sim.add(x, pos))
    enc = sim.scope()  # ReformerEncoder.forward
    streams = sim.concat([x, x], -1)
    function = sim.scope()  # _ReversibleFunction.forward, no graph
    h = c["hidden_size"]
    grad = sim.grad_mode
    sim.grad_mode = False
    attn = hidden = T((b, n, h), (2 * n * h, 2 * h, 1), streams.storage, False, x.itemsize)
    kept: list[T] = []
    layers: list[tuple[int, list[T], int, list[T]]] = []
    for i, kind in enumerate(layer_kinds(c)):
        p = f"{prefix}encoder.layers.{i}."
        new_attn, new_hidden, held = _inference_layer(sim, inv, kind, p, attn, hidden, cache, training=True)
        kept += held
        if i:
            sim.release(attn, hidden)  # the previous layer's outputs, rebound after this one returns
        if streams.grad:  # the backward's two reruns of this layer, with their graphs (made only there), in float32:
            # the backward runs outside autocast's region
            lower, sim.lower = sim.lower, None
            try:
                k_ff, got_ff = live.reversible_rerun(lambda s, t, p=p: _rerun_feed_forward(s, c, p, t), new_attn)
                k_at, got_at = live.reversible_rerun(lambda s, t, p=p: _rerun_attention(s, c, p, t), hidden)
            finally:
                sim.lower = lower
            layers.append((k_ff, got_ff, k_at, got_at))
        attn, hidden = new_attn, new_hidden
    sim.grad_mode = grad
    if streams.grad:
        out = live.reversible_function(streams, attn, hidden, layers)
    else:  # the input needs no gradient (a frozen table): no node, its ctx gone, no layer gets a gradient
        out = sim.fresh(streams.shape, "aten.cat", streams.itemsize)
    sim.end_scope(function, out, *kept)
    sim.release(streams)
    # ``hidden_states`` rebound by the final LayerNorm (the function's output goes unless the norm saved it), then
    # by the dropout
    seq = _graph_dropped(sim, sim.rebind(out, sim.layer_norm(prefix + "encoder.layer_norm", out)), drop)
    sim.end_scope(enc, seq, *kept)
    sim.end_scope(mark, seq, *kept)
    if task == Task.SEQUENCE_CLASSIFICATION:
        outputs = [_classification_head(sim, seq)]
    else:
        outputs = bert.run_head(REFORMER_HEADS, sim, inv, seq, None)
    if task in (Task.MODEL, Task.LM_HEAD_MODEL):
        sim.held_by_outputs(*kept)  # the cache (use_cache): each layer's LayerNorm output, to the outputs' end
    else:
        kept = []  # the cache dies as the class's forward returns
    sim.end_scope(top, outputs[0], *outputs[1:], *kept)
    return outputs
