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

The training step (:func:`step_program`) is the forward transformers runs with ``input_ids`` alone, under eager
attention or SDPA, in float32, bf16 or under autocast (the patch stem is never called). It reads
``layer_types`` and each kind's ``partial_rotary_factor``, which :func:`read_config` keeps for it, and under SDPA
each layer's window (``sliding_window``, and ``per_layer_config`` where the config gives one: the masks).

The peak of live memory (issue 32) is replayed op by op for the three classes, eager or SDPA, float32 or bf16, any
plan, checkpointing of either kind (reentrant: each layer's positional initial_hidden_states and
value_embeds detached leaves of its recomputation), and inference: the program names every tensor as ``modeling_neomme.py`` does
(each layer's window mask and every kind's cos and sin made before the layers with their temporaries, kept to the
model's end) and ``LiveSim`` records each operation's autograd node as ``backward_ledger`` measured it. Under bf16
autocast too (measured with LiveBytes): ``lambdas[i] * x`` by a float32 0-dim factor stays bf16 (its gradient summed,
then cast to float32), V plus the float32 value embeddings promotes, eager attention's window mask is made in the
embeddings' bf16, the retrieval head's ``.to(proj.weight.dtype)`` is a float32 copy, and the decoder's
``unembedding_projection`` copy is autocast's cached one at inference too.
"""
from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any, Callable, Mapping

from ..config import Field, read_fields
from ..costs import CostModel, Sim, T, dropouts, size_key, step_value
from ..costs.tensor import contiguous_strides
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert
from .base import Architecture, Extra, Family, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LAYERS, TIE, VOCAB, L, value_extra


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
#: ``NeoMMEConfig.sliding_window``: the short sliding layers' window.
DEFAULT_WINDOW = 256
#: ``NeoMMEConfig.default_long_sliding_window``: the window of every second sliding layer.
LONG_WINDOW = 1024
#: ``NeoMMEConfig.default_partial_rotary_factor``: the share of each head a layer type rotates.
PARTIAL_ROTARY = {"full_attention": 0.25, "sliding_attention": 1.0}


def default_layer_types(n: int) -> tuple[str, ...]:
    """``NeoMMEConfig``'s default: every sixth layer and the last attend fully, the others in a window."""
    return tuple("full_attention" if (i + 1) % 6 == 0 or i == n - 1 else "sliding_attention" for i in range(n))


def layer_kinds(c: Mapping[str, Any]) -> tuple[str, ...]:
    """Each layer's kind: the config's ``layer_types`` (kept by :func:`read_config`), else NeoMMEConfig's default."""
    given = c.get("layer_types")
    return tuple(given) if given is not None else default_layer_types(c["num_hidden_layers"])


def rotated_width(c: Mapping[str, Any], kind: str) -> int:
    """The rotated part of each head in a layer of ``kind``: ``int(head_dim × partial_rotary_factor)``, the
    factor from ``rope_parameters`` (as kept by :func:`read_config`) or NeoMMEConfig's default for the kind."""
    factor: Any = PARTIAL_ROTARY[kind]
    rope = c.get("rope_parameters")
    if isinstance(rope, Mapping) and isinstance(rope.get(kind), Mapping):
        factor = rope[kind].get("partial_rotary_factor", factor)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0.0 < factor <= 1.0:
        raise CalcError("bad_value", key="partial_rotary_factor", value=factor)
    return int(c["head_dim"] * factor)


def read_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, then what ``NeoMMEConfig`` validates and no field kind reads (it shapes no tensor, but a config
    it refuses builds nothing): ``layer_types``, the rotated widths, the one activation it accepts.

    ``layer_types`` and each kind's ``partial_rotary_factor`` are kept (the training step reads them: which
    layers attend fully, take the value embeddings and how much of each head they rotate) and travel in the
    share link (:data:`EXTRAS`); ``rope_theta`` and the rest of ``rope_parameters`` change no figure: dropped."""
    values = read_fields(FIELDS, raw, {})
    n = values["num_hidden_layers"]
    given = raw.get("layer_types")
    if given is not None and (not isinstance(given, (list, tuple)) or len(given) != n
                              or any(k not in LAYER_TYPES for k in given) or "full_attention" not in given):
        raise CalcError("bad_value", fields=("num_hidden_layers",), key="layer_types", value=given)
    values["layer_types"] = list(given) if given is not None else None
    rope = raw.get("rope_parameters")
    kept: dict[str, dict[str, Any]] = {}
    if isinstance(rope, Mapping):
        for kind in LAYER_TYPES:
            if isinstance(rope.get(kind), Mapping) and "partial_rotary_factor" in rope[kind]:
                kept[kind] = {"partial_rotary_factor": rope[kind]["partial_rotary_factor"]}
    values["rope_parameters"] = kept or None
    values["per_layer_config"] = read_per_layer(raw, values)
    for kind in sorted(set(layer_kinds(values))):
        rotated = rotated_width(values, kind)
        if rotated < 4 or rotated % 4:
            raise CalcError("bad_value", fields=("head_dim",), key="head_dim", value=values["head_dim"])
    if raw.get("hidden_act", "relu2") != "relu2":
        raise CalcError("bad_value", key="hidden_act", value=raw.get("hidden_act"))
    return values


#: The per-layer overrides the step reads (``sliding_window``) and the one it may ignore (``skip``: NeoMME's
#: modeling file never reads it; the config only checks it is a list of names).
PER_LAYER_READ = ("sliding_window", "skip")


def read_per_layer(raw: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, dict[str, Any]] | None:
    """``per_layer_config`` as ``PreTrainedConfig`` applies it (``integrations/heterogeneity``): a mapping from
    layer index (``int(key)``, in [0, L)) to overrides; None when the config gives none (then NeoMMEConfig
    derives one: :func:`layer_windows`). Given, it replaces that default whole: a layer it does not name keeps
    the global ``sliding_window``, a full-attention layer too (its mask is then a sliding window's).

    Kept: each layer's ``sliding_window`` (None or a positive integer, as ``validate_architecture`` demands;
    a bool or float is refused as ``@strict`` refuses it), keys as ``str(int)``. ``skip`` is checked (a list of
    names) and dropped. Any other override is refused (``bad_value``) unless it equals the value the config
    reads for that field (transformers then drops it): the model reads such attributes from the global config,
    which raises for a per-layer one (``AmbiguousGlobalPerLayerAttributeError``), or builds nothing without a
    global one. A sliding layer left without a window is refused: ``NeoMMEAttention`` adds 1 to it.

    Refused though transformers builds them (never costed wrongly): an attribute no config field holds given for
    every layer (no global read, so no error there), and a global ``sliding_window`` of null whose layers all get
    their own window (the step key wants a whole number)."""
    given = raw.get("per_layer_config")
    n = values["num_hidden_layers"]
    kept: dict[str, dict[str, Any]] | None = None
    if given is not None:
        if not isinstance(given, Mapping):
            raise CalcError("bad_value", key="per_layer_config", value=given)
        kept = {}
        for key, overrides in given.items():
            try:
                index = int(key)
            except (TypeError, ValueError):
                raise CalcError("bad_value", key="per_layer_config", value=given) from None
            if not 0 <= index < n or not isinstance(overrides, Mapping):
                raise CalcError("bad_value", fields=("num_hidden_layers",), key="per_layer_config", value=given)
            for name, value in overrides.items():
                if name == "sliding_window":
                    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
                        raise CalcError("bad_value", key="per_layer_config", value=given)
                    kept.setdefault(str(index), {})["sliding_window"] = value
                elif name == "skip":
                    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
                        raise CalcError("bad_value", key="per_layer_config", value=given)
                elif name not in values or values[name] != value:  # transformers drops an override equal to it
                    raise CalcError("bad_value", key="per_layer_config", value=given)
        kept = {k: kept[k] for k in sorted(kept, key=int)}
    window = raw.get("sliding_window", DEFAULT_WINDOW)
    if any(w is None and kind == "sliding_attention" for kind, w in zip(layer_kinds(values),
                                                                         layer_windows(layer_kinds(values), window, kept))):
        raise CalcError("bad_value", key="per_layer_config" if kept is not None else "sliding_window",
                        value=given if kept is not None else window)
    return kept


def _rope_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """The share link's text for the kept rotary factors (left out when none was given)."""
    kept = config.get("rope_parameters")
    return None if not kept else json.dumps(kept, separators=(",", ":"), sort_keys=True)


def _rope_parse(text: str) -> Any:
    """A link's ``rope_parameters`` back as config.json holds it (a JSON object; anything else as text, refused)."""
    try:
        return json.loads(text)
    except ValueError:
        return text.strip()


def _per_layer_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """The share link's text for the kept per-layer windows (left out when the config gives no ``per_layer_config``)."""
    kept = config.get("per_layer_config")
    return None if kept is None else json.dumps(kept, separators=(",", ":"))


#: What the share link carries besides the fields: the layer kinds, the rotary factors and the per-layer windows
#: the step reads.
EXTRAS = (value_extra("layer_types", None), Extra("rope_parameters", _rope_parse, _rope_query),
          Extra("per_layer_config", _rope_parse, _per_layer_query))


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
    if rng.random() < 0.25:  # per-layer windows (a full layer's too); now and then what the config refuses
        n = config.get("num_hidden_layers", 17)
        kinds = config.get("layer_types") or default_layer_types(n)
        plc: dict[str, Any] = {}
        for i in range(n + (1 if rng.random() < 0.03 else 0)):  # one past the last layer: refused on both sides
            roll, kind = rng.random(), kinds[i] if i < len(kinds) else "full_attention"
            if roll < 0.3:
                plc[str(i)] = {"sliding_window": rng.randint(1, 8)}
            elif roll < 0.4 and (kind == "full_attention" or rng.random() < 0.05):  # None on a sliding layer: refused
                plc[str(i)] = {"sliding_window": None}
            elif roll < 0.43:
                plc[str(i).zfill(2)] = {"skip": ["mlp"]}  # unread by NeoMME's modeling; a zero-padded key as saved
            elif roll < 0.46:  # equal to the global value: dropped; else refused (read from the global config)
                plc[str(i)] = {"intermediate_size": config.get("intermediate_size", 3584) + (rng.random() < 0.3)}
        config["per_layer_config"] = plc


# --------------------------------------------------------------- training step (eager attention, input_ids alone)


def rms_norm(sim: Sim, x: T) -> T:
    """``NeoMMERMSNorm`` without a scale (:meth:`~calculator.costs.ops.Ops.rms_norm_pow`; op by op in the lifetime
    simulator: ``pow(2)``, ``mean``, ``+ eps``, ``torch.pow(·, -0.5)``, the product, in float32)."""
    return sim.rms_norm_pow(x)


def normalize(sim: Sim, x: T) -> T:
    """``F.normalize(x, dim=-1)`` (:meth:`~calculator.costs.ops.Ops.normalize_last`: the norm, ``clamp_min``,
    ``expand_as``, the division)."""
    return sim.normalize_last(x)


def repeat_kv(sim: Sim, t: T, heads: int) -> T:
    """``repeat_kv``: ``[:, :, None]``, an expand (its backward sums the gradient back) and a reshape, a copy unless
    it can view (as EuroBERT's)."""
    b, kv, n, d = t.shape
    if kv == heads:
        return t
    wide = sim.expand_summed(sim.view(t, (b, kv, 1, n, d)), (b, kv, heads // kv, n, d))
    return sim.reshape(wide, (b, heads, n, d))


def rotate(sim: Sim, q: T, k: T, rotary: tuple[T, T]) -> tuple[T, T]:
    """``apply_rotary_pos_emb``: each of Q and K sliced into its first ``rotated`` columns and the rest (views),
    the first part rotated (``x * cos + rotate_half(x) * sin``, cos and sin kept), then ``cat`` with the rest (a new
    tensor, even when the whole head rotates; the rotated part dropped as the name is rebound)."""
    cos, sin = rotary
    width = cos.shape[-1]
    parts = [(sim.slice_last(t, width), sim.slice_last(t, t.shape[-1] - width)) for t in (q, k)]
    turned = [sim.rotate(part, cos, sin, False) for part, _ in parts]
    out = []
    for done, (_, rest) in zip(turned, parts):
        out.append(sim.join_last([done, rest], False))
        sim.release(done)
    return out[0], out[1]


def window_mask(sim: Sim, b: int, n: int, size: int) -> T:
    """``create_bidirectional_sliding_window_mask`` without a padding mask, from L = the window on (below it the
    mask functions return None): the batch, head and index ``arange``s, ``|q - kv| <= window``, the bitwise ands
    (each temporary freed where measured); under SDPA that bool [L, L] is the mask (expanded [B, 1, L, L]); eager
    attention's ``where`` makes the additive float [B, 1, L, L] one, in the embeddings' dtype (``size`` bytes: bf16
    under autocast, measured). Named until the model's forward returns."""
    sim.transients((8 * b, 8, 8 * n, 8 * n, 8 * n, 8 * n, 1, 8 * n * n, 8 * n * n, n * n, n * n, n),
                   (12, 12, 3, 12, 5, 12, 10, 8, 9, 10, 12, 12),
                   ("aten.arange", "aten.arange", "aten.arange", "aten.add", "aten.arange", "aten.add",
                    "aten.new_ones", "aten.sub", "aten.abs", "aten.le", "aten.bitwise_and", "aten.ge"))
    bools = sim.constant_by("aten.bitwise_and", (1, 1, n, n), 1)
    if sim.attention == "sdpa":
        return sim.expand(bools, (b, 1, n, n))
    sim.transients((size, size), (2, 2), ("aten.zeros", "aten.scalar_tensor"))
    mask = sim.constant_by("aten.where", (b, 1, n, n), size)
    sim.release(bools)
    return mask


def rotary_tables(sim: Sim, b: int, n: int, width: int, dtype: int) -> tuple[T, T]:
    """``NeoMMERotaryEmbedding.forward`` under ``no_grad``: the positions' float32 copy [2, B, L, 1] (and the
    inverse frequencies' where the model is not float32), the frequencies [2, B, L, r/2], ``cos`` and ``sin`` each
    times ``attention_scaling``, each recomposed (``stack`` [B, L, r/4, 2], ``cat`` [B, L, r]), cast to the hidden
    states' dtype (``dtype``). Every temporary freed where the Python names go (measured)."""
    half = width // 2
    freq_bytes = 2 * b * n * half * 4
    sizes = [2 * b * n * 4]
    deaths = [len(sizes) + (1 if sim.itemsize != 4 else 0)]
    if sim.itemsize != 4:
        sizes.append(half * 4)  # inv_freq.to(float32)
        deaths.append(len(sizes))
    base = len(sizes)
    # freqs, cos, cos * scaling, sin, sin * scaling, stack (cos), [cat], stack (sin), [cat]
    sim.transients(sizes + [freq_bytes, freq_bytes, freq_bytes, freq_bytes, freq_bytes, b * n * half * 4],
                   deaths + [base + (8 if dtype == 4 else 10), base + 2, base + 6, base + 4, base + 8, base + 6],
                   ["aten._to_copy"] * len(sizes) + ["aten.mul", "aten.cos", "aten.mul", "aten.sin", "aten.mul",
                                                     "aten.stack"])
    cos = sim.constant_by("aten.cat", (b, 1, n, width), 4)
    sim.transients((b * n * half * 4,), (1,), ("aten.stack",))
    sin = sim.constant_by("aten.cat", (b, 1, n, width), 4)
    if dtype == 4:
        return cos, sin
    low = (sim.constant_by("aten._to_copy", cos.shape, dtype), sim.constant_by("aten._to_copy", sin.shape, dtype))
    sim.release(cos, sin)
    return low


def step_attention(sim: Sim, x: T, a: str, c: Mapping[str, Any], rotary: tuple[T, T], values: T | None,
                   mask: T | None = None) -> tuple[T, T | None]:
    """``NeoMMEAttention``, every name dropped where the modeling file drops it: Q, K, V; the scale-less RMSNorms
    on Q and K; rotary; the value embeddings added to V; eager attention (``repeat_kv``, scores, the mask, a float32
    softmax cast back, dropout, the weighted sum) or SDPA's flash kernel; exclusive self-attention; the
    sigmoid-gated output projection. Returns the output and eager attention's probabilities (the layer names them)."""
    b, n, _ = x.shape
    heads, kv, d = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    mark = sim.scope()  # NeoMMEAttention.forward

    def split(t: T, count: int) -> T:
        return sim.transpose(sim.view(t, (b, n, count, d)), 1, 2)

    q = split(sim.linear(a + "q_proj", x), heads)
    k = split(sim.linear(a + "k_proj", x), kv)
    v = split(sim.linear(a + "v_proj", x), kv)
    q = sim.rebind(q, rms_norm(sim, q))
    k = sim.rebind(k, rms_norm(sim, k))
    qr, kr = rotate(sim, q, k, rotary)
    sim.release(q, k)
    q, k = qr, kr
    if values is not None:  # in V's layout ([B, L, K, d] in memory: TensorIterator's order)
        v = sim.rebind(v, sim.add_like(v, split(values, kv)))
    probs = None
    if sim.attention == "sdpa":
        inner = sim.scope()  # sdpa_attention_forward
        # without a mask fewer K/V heads go to the kernel as they are (use_gqa_in_sdpa); with one (a sliding layer
        # from L = its window on) K and V are repeated and scaled_dot_product_attention turns the bool mask into an
        # additive one in the query's dtype (two scalars, then where), kept by the kernel
        kk, vv = (k, v) if mask is None else (repeat_kv(sim, k, heads), repeat_kv(sim, v, heads))
        float_mask = None
        if mask is not None:
            sim.transients((q.itemsize, q.itemsize), (2, 2), ("aten.scalar_tensor", "aten.scalar_tensor"))
            float_mask = sim.constant_by("aten.where", (b, 1, n, n), q.itemsize)
        out = sim.sdpa(q, kk, vv, float_mask)
        # CPU's flash kernel lays its output out as the query is laid out (measured): rotate's cat made Q a
        # contiguous [B, A, L, d], so the output is too, and transformers' transpose(1, 2).contiguous() copies it
        out = sim.relaid(out, contiguous_strides(out.shape))
        context = sim.end_scope(inner, sim.contiguous(sim.transpose(out, 1, 2)))  # [B, L, A, d]
    else:
        inner = sim.scope()  # eager_attention_forward
        kk, vv = repeat_kv(sim, k, heads), repeat_kv(sim, v, heads)
        product = sim.bmm(q, sim.transpose(kk, 2, 3))
        scores = sim.pointwise(product)  # * scaling
        sim.release(product)
        if mask is not None:
            scores = sim.rebind(scores, sim.add(scores, mask))
        probs = sim.softmax_to_float(scores)
        if q.itemsize != 4:
            probs = sim.rebind(probs, sim.to_dtype(probs, q.itemsize))
        sim.release(scores)
        probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_dropout")))
        context = sim.bmm(probs, vv)
        context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))  # [B, L, A, d]
        sim.end_scope(inner, context, probs)
    # NeoMMEExclusiveSelfAttention: V repeated again, its unit vectors (float32), the part along them removed
    excl = sim.scope()
    rep = sim.transpose(repeat_kv(sim, v, heads), 1, 2)  # value_states
    wide = rep if rep.itemsize == 4 else sim.to_dtype(rep, 4)  # .float()
    unit = normalize(sim, wide)
    if wide is not rep:
        sim.release(wide)
    if context.itemsize != 4:  # .to(attn_output.dtype): the model's bf16
        unit = sim.rebind(unit, sim.to_dtype(unit, context.itemsize))
    product = sim.mul_like(context, unit)
    projection = sim.sum_keep(product)
    sim.release(product)
    scale = sim.keep_output(sim.parameter(a + "exclusive_self_attention.alpha", (heads,)))  # tanh, float32
    if context.itemsize != scale.itemsize:  # .to(attn_output.dtype): a copy
        scale = sim.rebind(scale, sim.to_dtype(scale, context.itemsize))
    scale = sim.view(scale, (1, 1, heads, 1))
    scaled = sim.mul_broadcast(scale, projection, (b, n, heads, 1))
    along = sim.mul_broadcast(scaled, unit, (b, n, heads, d))
    sim.release(scaled)
    attn = sim.subtract(context, along)
    sim.release(along)
    attn = sim.end_scope(excl, attn)
    sim.release(context)  # attn_output rebound
    attn = sim.reshape(attn, (b, n, heads * d))
    o = a + "output_projection."
    gated = sim.scope()  # NeoMMESigmoidGatedProjection.forward
    gate = sim.linear(o + "gate_proj", x)
    sig = sim.sigmoid(gate)
    sim.release(gate)
    product = sim.mul_like(attn, sig)
    sim.release(sig)
    out = sim.linear(o + "o_proj", product)
    sim.release(product)
    out = sim.end_scope(gated, out)
    sim.release(attn)
    return sim.end_scope(mark, out, *([probs] if probs is not None else [])), probs


def step_layer(c: Mapping[str, Any], p: str, initial: T, rotary: tuple[T, T], values: T | None,
               mask: T | None = None) -> Callable[[Sim, T], T]:
    """``NeoMMEEncoderLayer``: the input mixed with the first hidden state by ``lambdas`` (``lambdas[i]`` a 0-dim
    view: the product keeps the input's dtype), RMSNorm, attention, scaled residual; RMSNorm, the ReLU² MLP
    (``relu`` keeps its output, ``square`` the same tensor), scaled residual. ``attn_output``, the probabilities and
    the normed states are named until it returns."""

    def run(sim: Sim, x: T) -> T:
        layer = sim.scope()
        lambdas = sim.parameter(p + "lambdas", (2,))
        first = sim.scalar_times(sim.select(lambdas, 0, 0), x)
        first = sim.relaid(first, itemsize=x.itemsize)
        second = sim.scalar_times(sim.select(lambdas, 0, 1), initial)
        second = sim.relaid(second, itemsize=initial.itemsize)
        mixed = sim.add(first, second)
        sim.release(first, second)
        normed = rms_norm(sim, mixed)
        attn, _ = step_attention(sim, normed, p + "self_attn.", c, rotary, values, mask)
        scaled = sim.pointwise(attn)  # residual_multiplier * attn_output
        x = sim.add(x, scaled)
        sim.release(scaled)
        normed = sim.rebind(normed, rms_norm(sim, x))
        m = sim.scope()  # NeoMMEMLP.forward
        up = sim.linear(p + "mlp.up_proj", normed)
        act = sim.scope()  # ReLUSquaredActivation.forward
        relu = sim.activation("relu", up)
        squared = sim.end_scope(act, sim.square(relu))
        sim.release(up)
        mlp = sim.end_scope(m, sim.linear(p + "mlp.down_proj", squared))
        scaled = sim.pointwise(mlp)
        out = sim.add(x, scaled)
        return sim.end_scope(layer, out)

    return run


def step_body(sim: Sim, inv: Inventory, b: int, n: int) -> T:
    """``NeoMMEModel`` on ``input_ids`` alone: the factorised table, the positions, the embedding RMSNorm (the
    layers' first hidden state), each layer's mask (from L = its window on), cos and sin per layer kind (no graph),
    the value table, the layers (the value embeddings in the first and last full-attention ones), the final
    RMSNorm. The masks, tables, positions and value embeddings are named until it returns."""
    prefix = bert.step_prefix(inv)
    c = inv.config
    mark = sim.scope()  # NeoMMEModel.forward
    ids = sim.ids((b, n))
    embed = sim.scope()  # NeoMMEEmbeddings.forward
    x = sim.embedding(prefix + "embed_tokens.word_embeddings", ids, first=True)
    x = sim.end_scope(embed, sim.linear(prefix + "embed_tokens.embedding_projection", x))
    sim.constant_by("aten.arange", (n,), 8)  # position_ids, named until the forward returns
    x = initial = sim.rebind(x, rms_norm(sim, x))
    kinds = layer_kinds(c)
    windows = layer_windows(kinds, step_value(inv, "sliding_window", DEFAULT_WINDOW), c.get("per_layer_config"))
    masks = [window_mask(sim, b, n, initial.itemsize) if w is not None and n >= w else None for w in windows]
    # cos and sin .to(x.dtype), x the embedding norm's output: bf16 under autocast; one pair per kind (the set's
    # order is the hash's: sorted here)
    tables = {kind: rotary_tables(sim, b, n, rotated_width(c, kind), initial.itemsize) for kind in sorted(set(kinds))}
    values = sim.embedding(prefix + "value_embeddings", ids)
    full = [i for i, kind in enumerate(kinds) if kind == "full_attention"]
    for i, kind in enumerate(kinds):
        extra = values if i in (full[0], full[-1]) else None
        also = [initial, *tables[kind]] + ([extra] if extra is not None else []) + \
            ([masks[i]] if masks[i] is not None else [])
        if sim.checkpointing and sim.reentrant:
            # initial_hidden_states and value_embeds positional (CheckpointFunction saves them; detached, they are
            # leaves of the recomputation), position_embeddings and attention_mask keywords (the partial keeps them)
            sim.positional_arguments(initial, *([extra] if extra is not None else []))
            for t in (*tables[kind], *([masks[i]] if masks[i] is not None else [])):
                sim.layer_argument(t, counted=False)
            also = []
        elif sim.checkpointing:  # the block's tensor arguments: kept by its frame until its backward is done
            sim.layer_argument(initial)
            if extra is not None:
                sim.layer_argument(extra)
        y = sim.layer(step_layer(c, f"{prefix}layers.{i}.", initial, tables[kind], extra, masks[i]), x, also)
        if i:
            sim.release(x)  # hidden_states rebound (the first layer's input stays: initial_hidden_states)
        x = y
    return sim.end_scope(mark, rms_norm(sim, x))


def layer_windows(kinds: tuple[str, ...], window: int | None,
                  per_layer: Mapping[str, Mapping[str, Any]] | None = None) -> list[int | None]:
    """Each layer's ``per_layer_config[i].sliding_window`` (the forward's mask: a window's from L = window on under
    SDPA, whatever the layer's kind). Given (``per_layer``, as :func:`read_per_layer` keeps it): the layer's
    override, else the global ``window``. Not given, NeoMMEConfig's default: no window for a full layer; the
    sliding layers alternate ``window`` and :data:`LONG_WINDOW`, starting with the short one."""
    if per_layer is not None:
        return [per_layer[str(i)]["sliding_window"] if "sliding_window" in per_layer.get(str(i), {}) else window
                for i in range(len(kinds))]
    out: list[int | None] = []
    sliding = 0
    for kind in kinds:
        if kind == "full_attention":
            out.append(None)
        else:
            out.append(LONG_WINDOW if sliding % 2 else window)
            sliding += 1
    return out


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """The three classes: the bare model's last hidden state; the factorised decoder (``hidden @
    unembedding_projection.weight``, then ``lm_head``); retrieval's normalised token vectors (``proj``,
    ``F.normalize``, ``masked_fill`` by the all-ones mask) and its mean-pooled dense vector, beside the hidden state.

    Replayed op by op (issue 32) where the lifetime simulator models every operation: eager attention or SDPA, in
    the model's dtype (float32 or bf16) or under bf16 autocast, any plan, checkpointing of either kind (reentrant:
    without autocast, :meth:`.lifetime.LiveSim.reentrant_layer`)."""
    kind = bert.step_task(inv)
    sim.exact_lifetimes()
    sim.exact_forward()
    sim.exact_autocast()
    seq = step_body(sim, inv, b, n)
    if kind == "":
        return [seq]
    if kind == "ForMaskedLM":
        name = "unembedding_projection.weight"
        w = sim.parameter(name, inv_shape(inv, name))
        # under autocast ``hidden @ weight`` reads the weight itself: a trained one's bf16 copy is autocast's cached
        # one (the embedding projection's, when tied), a frozen one's a fresh copy. Whether it trains, not whether it
        # gets a gradient: under no_grad (inference) autocast still caches a parameter that requires grad.
        copy = sim.weight_copy(sim.storage_name(name), w.shape, sim.param_trains(name))
        low = sim.matmul_matrix(seq, w if copy is None else copy)
        return [sim.linear("lm_head", low)]
    mark = sim.scope()  # NeoMMEForRetrieval.forward
    sim.constant_by("aten.ones", (b, n), 1)  # attention_mask, named until the forward returns
    head = sim.scope()  # NeoMMEMultiVectorHead.forward
    if seq.itemsize != sim.itemsize:  # autocast: hidden_states.to(self.proj.weight.dtype), a float32 copy, an argument
        wide = sim.to_dtype(seq, sim.itemsize)
        tokens = sim.linear("multi_vector_head.proj", wide)
        sim.release(wide)
    else:
        tokens = sim.linear("multi_vector_head.proj", seq)
    tokens = sim.rebind(tokens, normalize(sim, tokens))
    flipped = sim.constant_by("aten.bitwise_not", (b, n, 1), 1)  # ~attention_mask.bool().unsqueeze(-1)
    tokens = sim.end_scope(head, sim.masked_fill(tokens, flipped))
    dense = sim.scope()  # NeoMMEDenseHead.forward
    weights = sim.constant_by("aten._to_copy", seq.shape, seq.itemsize)  # the mask expanded and cast
    product = sim.op_with_constant(seq, weights)
    summed = sim.sum_dim(product, 1)
    sim.release(product)
    count = sim.constant_by("aten.sum", summed.shape, seq.itemsize)  # expanded_mask.sum(1)
    clamped = sim.constant_by("aten.clamp_min", summed.shape, seq.itemsize)
    sim.release(count)
    pooled = sim.op_with_constant(summed, clamped, "aten.div")
    sim.release(summed, clamped)
    vector = sim.end_scope(dense, normalize(sim, pooled))
    return [sim.end_scope(mark, seq), tokens, vector]


def inv_shape(inv: Inventory, name: str) -> tuple[int, ...]:
    """A tensor's shape in the inventory (the decoder's projection, read as a tensor)."""
    return next(t.shape for t in inv.tensors if t.name == name)


def rotary_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """``NeoMMERotaryEmbedding``'s non-persistent buffers: per layer kind present (sorted), ``{kind}_inv_freq`` and
    ``{kind}_original_inv_freq`` [rotated / 2] (``arange(0, rotated, 2)``, the rotated width a multiple of four),
    floating (0: cast with the model)."""
    c = inv.config
    prefix = inv.arch.prefix + "rotary_emb."
    return [(f"{prefix}{kind}_{name}", ((rotated_width(c, kind) + 1) // 2,), 0) for kind in sorted(set(layer_kinds(c)))
            for name in ("inv_freq", "original_inv_freq")]


#: NeoMMEConfig's ``attention_dropout`` (0.0). Its ``hidden_act`` is "relu2" only (the config refuses another).
#: Its ``sliding_window`` (256) is the short sliding layers' window (SDPA's mask). Rotary: no length bound. Under
#: autocast the residual stream stays bf16 (``lambdas[0] * x`` is by a 0-dim factor), cos and sin too.
COSTS = CostModel(step_program, None, keys=(*dropouts("attention_dropout", default=0.0), size_key("sliding_window", DEFAULT_WINDOW)),
                  autocast=True, sdpa=True, sdpa_dropout=("attention_dropout",), buffers=rotary_buffers,
                  reentrant=True)


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
    extras=EXTRAS,
    costs=COSTS,
    labels={
        "neomme_patches": L("Image patch stem (LayerNorm, up, down)", "图像块输入层（LayerNorm、up、down）"),
        "neomme_values": L("Value embeddings (V × K·d)", "值嵌入表（V × K·d）"),
    },
)
