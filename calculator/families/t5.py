"""T5's encoder as transformers builds it alone (``T5EncoderModel`` in ``modeling_t5.py``): the text encoder of
sentence-T5, of FLUX and Stable Diffusion 3 (T5-XXL's encoder), counted without the decoder.

``AutoModel`` builds the whole encoder-decoder for ``model_type`` "t5"; this calculator counts only the
encoder class, so a config.json of a T5 checkpoint is read as ``T5EncoderModel`` (the title says so).

* ``shared`` is the token table [V, d_model]; ``encoder.embed_tokens`` is the same Parameter (the
  encoder's name for it), so ``state_dict`` lists it twice and ``parameters()`` once. There are no
  position tables: positions enter as a learned bias on the attention scores.
* Each block is pre-norm: ``layer.0`` is self-attention (``q``, ``k``, ``v`` [A·d_kv, d_model], ``o``
  [d_model, A·d_kv], no biases) after its ``layer_norm``; ``layer.1`` the feed-forward network after its
  own. ``d_kv`` is its own key: A·d_kv need not equal d_model.
* The norms are ``T5LayerNorm``: RMS-style, a weight and no bias (no mean subtracted).
* The feed-forward network is ``wi`` [d_ff, d_model] then ``wo`` (``T5DenseActDense``: the original T5,
  ``feed_forward_proj`` "relu"), or gated (``T5DenseGatedActDense``: ``wi_0``, ``wi_1``, ``wo``; T5 v1.1,
  FLAN-T5, mT5, umT5: "gated-gelu"). A config's own ``is_gated_act`` overrides what ``feed_forward_proj``
  implies (``T5Config.__post_init__`` sets it, then the config's keys are applied over it).
* ``relative_attention_bias`` [buckets, heads] is an ``nn.Embedding`` in block 0 only (the other blocks
  reuse its output); umT5 (:mod:`.umt5`) gives every block its own. ``final_layer_norm`` closes the stack.

mT5 (:mod:`.mt5`) and umT5 are this declaration with their own defaults and class names.
"""
from __future__ import annotations

import random
from typing import Any, Callable, Mapping

from ..config import Field, coerce_bool, read_fields
from ..errors import CalcError
from ..costs import CostModel, Sim, T, dropouts, no_buffers
from ..formula import Formula, FormulaLine, layers_lines
from ..model import Inventory, TensorList
from .base import Architecture, Extra, Family, IgnoredKey, Preset, Task
from .common import L

#: ``feed_forward_proj``: "ACT" or "gated-ACT" (``T5Config.validate_architecture``); ACT is a key of
#: transformers' ``ACT2FN``. "gated-gelu" is read as ``gelu_new``.
FEED_FORWARD = ("relu", "gated-gelu", "gated-silu", "gated-relu", "gelu", "gelu_new", "silu", "gated-gelu_new")


def fields(vocab: int, d_model: int, d_ff: int, layers: int, heads: int, proj: str) -> tuple[Field, ...]:
    """T5Config's size keys with one config class's defaults (T5's, mT5's and umT5's differ)."""
    return (
        Field("vocab_size", vocab, label=L("Vocabulary size (V)", "词表大小（V）"), sample=(1, 5000)),
        Field("d_model", d_model, label=L("Model width (H, d_model)", "隐藏层维度（H，d_model）"), sample=(1, 48)),
        Field("d_kv", 64, label=L("Width of one head (K, d_kv)", "每个注意力头的维度（K，d_kv）"), sample=(1, 16)),
        Field("d_ff", d_ff, label=L("Feed-forward inner size (F, d_ff)", "前馈网络中间层维度（F，d_ff）"),
              sample=(1, 300)),
        Field("num_layers", layers, minimum=0, maximum=512,
              label=L("Encoder blocks (L, num_layers)", "编码器层数（L，num_layers）"), sample=(0, 4)),
        Field("num_heads", heads, label=L("Attention heads (A, num_heads)", "注意力头数（A，num_heads）"),
              sample=(1, 16)),
        Field("relative_attention_num_buckets", 32,
              label=L("Relative position buckets (B)", "相对位置分桶数（B）"), sample=(1, 64)),
        Field("feed_forward_proj", proj, kind="choice", choices=FEED_FORWARD,
              label=L("Feed-forward kind (feed_forward_proj; gated-…: wi_0 and wi_1)",
                      "前馈网络类型（feed_forward_proj；gated-… 即 wi_0 和 wi_1 两个输入投影）"),
              sample=(0, 1)),
    )


#: ``T5Config.attribute_map``: the generic names a config may use for T5's own keys.
ALIASES = {"hidden_size": "d_model", "num_attention_heads": "num_heads", "num_hidden_layers": "num_layers",
           "head_dim": "d_kv"}


def reader(fields_: tuple[Field, ...]) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """The fields, and whether the feed-forward network is gated: the config's ``is_gated_act`` when it has one
    (transformers applies a config's keys after deriving it), else ``feed_forward_proj`` starting "gated-"."""

    def read(raw: Mapping[str, Any]) -> dict[str, Any]:
        values = read_fields(fields_, raw, ALIASES)
        given = raw.get("is_gated_act")
        derived = values["feed_forward_proj"].startswith("gated-")
        values["is_gated_act"] = derived if given is None else coerce_bool("is_gated_act", given)
        # The activation: the config's dense_act_fn when it has one (applied last, as is_gated_act), else the
        # part after "gated-" ("gated-gelu" is gelu_new). It shapes no tensor; the training step reads it.
        act = raw.get("dense_act_fn")
        proj = values["feed_forward_proj"]
        implied = "gelu_new" if proj == "gated-gelu" else proj.split("-")[-1]
        values["dense_act_fn"] = act.strip() if isinstance(act, str) and act.strip() else implied
        return values

    return read


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Now and then a config's own ``is_gated_act``, agreeing with ``feed_forward_proj`` or overriding it."""
    if rng.random() < 0.25:
        config["is_gated_act"] = rng.random() < 0.5


def _gated_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """``is_gated_act`` in a link only where it overrides what ``feed_forward_proj`` says."""
    gated = config.get("is_gated_act")
    if gated is None or gated == str(config.get("feed_forward_proj", "")).startswith("gated-"):
        return None
    return "true" if gated else "false"


#: A config's ``is_gated_act`` (saved by transformers beside ``feed_forward_proj``) travels in the share link.
GATED = Extra("is_gated_act", lambda text: text.strip().lower() in ("1", "true"), _gated_query)


def _act_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """``dense_act_fn`` in a link only where it overrides what ``feed_forward_proj`` implies."""
    act, proj = config.get("dense_act_fn"), str(config.get("feed_forward_proj", ""))
    implied = "gelu_new" if proj == "gated-gelu" else proj.split("-")[-1]
    return None if act is None or act == implied else str(act)


#: A config's own ``dense_act_fn`` (ComfyUI's copies have it instead of ``feed_forward_proj``) in the link.
ACTIVATION = Extra("dense_act_fn", lambda text: text.strip(), _act_query)


# --------------------------------------------------------------- training step


def rms_norm(sim: Sim, module: str, x: T) -> T:
    """``T5LayerNorm`` (:meth:`~calculator.costs.modules.Sim.rms_norm_t5`: what it keeps, and op by op in the
    lifetime simulator: a float32 input runs ``LlamaRMSNorm``'s operations in its order, a bf16 one multiplies the
    bf16 x, not its float32 copy, by the rsqrt)."""
    return sim.rms_norm_t5(module, x)


#: The bytes of an int64, a float32 and a bool element (the bucket computation's temporaries).
_LONG, _FLOAT, _BOOL = 8, 4, 1


def position_buckets(sim: Sim, n: int, umt5: bool) -> T:
    """``_relative_position_bucket`` (bidirectional, an encoder's) on the [L, L] relative positions, every
    temporary where Python drops it (measured with LiveBytes, L·L elements each unless said): ``(rel > 0)`` (bool)
    ``.to(long)`` ``* num_buckets``, then ``0 + that`` (``relative_buckets``, int64, returned); ``abs`` (rebinding
    the argument's name: the caller still names the original); ``is_small`` (bool); ``rel.float() / max_exact``,
    ``log``, ``/ log(...)``, ``* (num_buckets - max_exact)`` (float32, each dropped by the next; umT5 names the last
    ``log_ratio`` until the return), ``.to(long)``, ``max_exact +`` that, ``full_like``, ``minimum`` (both dropped by
    it), ``where`` (dropped after the in-place ``+=``). Only the lifetime simulator sees these (no gradient, no
    FLOPs); the buckets are the lookup's indices."""
    sq = n * n
    mark = sim.scope()
    gt = sim.named_transient(_BOOL * sq, "aten.gt")
    long_ = sim.named_transient(_LONG * sq, "aten._to_copy")
    sim.drop_transient(gt)
    times = sim.named_transient(_LONG * sq, "aten.mul")
    sim.drop_transient(long_)
    buckets = sim.made_by(sim.ids((n, n)), "aten.add")  # relative_buckets = 0 + ...: the returned storage
    sim.drop_transient(times)
    sim.named_transient(_LONG * sq, "aten.abs")  # relative_position rebound: named until the return
    sim.named_transient(_BOOL * sq, "aten.lt")  # is_small
    prev = sim.named_transient(_FLOAT * sq, "aten._to_copy")
    for op in ("aten.div", "aten.log", "aten.div", "aten.mul"):
        nxt = sim.named_transient(_FLOAT * sq, op)
        sim.drop_transient(prev)  # a temporary of the expression, or umT5's log_ratio rebound
        prev = nxt
    as_long = sim.named_transient(_LONG * sq, "aten._to_copy")
    if not umt5:  # T5: the expression's float32 product, consumed by .to(torch.long); umT5 names it (log_ratio)
        sim.drop_transient(prev)
    large = sim.named_transient(_LONG * sq, "aten.add")
    sim.drop_transient(as_long)
    full = sim.named_transient(_LONG * sq, "aten.full_like")
    sim.named_transient(_LONG * sq, "aten.minimum")  # relative_position_if_large rebound
    sim.drop_transient(large)
    sim.drop_transient(full)
    sim.named_transient(_LONG * sq, "aten.where")  # relative_buckets += where(...): in place, the where dropped
    return sim.end_scope(mark, buckets)


def relative_bias(sim: Sim, module: str, n: int, umt5: bool = False) -> T:
    """``compute_bias``: the positions (``arange(L)[:, None] + 0``, the first arange dropped by the sum;
    ``arange(L)[None, :]``; their difference [L, L], all int64, named until the return), the buckets
    (:func:`position_buckets`), the table looked up (keeps the buckets if it trains), ``permute([2, 0, 1])`` and
    ``unsqueeze(0)`` to [1, heads, L, L] (views)."""
    mark = sim.scope()
    first = sim.named_transient(_LONG * n, "aten.arange")
    sim.named_transient(_LONG * n, "aten.add")  # context_position
    sim.drop_transient(first)
    sim.named_transient(_LONG * n, "aten.arange")  # memory_position
    sim.named_transient(_LONG * n * n, "aten.sub")  # relative_position
    values = sim.embedding(module, position_buckets(sim, n, umt5))
    heads = values.shape[-1]
    out = sim.view(sim.permute(values, (2, 0, 1)), (1, heads, n, n))
    return sim.end_scope(mark, out)


def attention(sim: Sim, x: T, p: str, heads: int, d_kv: int, bias: T | None, n: int,
              umt5: bool = False) -> tuple[T, T, T | None]:
    """``T5Attention.forward`` (umT5's): q, k, v split into heads (views), the position bias (computed here where
    ``bias`` is None: block 0's, or every umT5 block's), the attention function, the context reshaped (a view),
    ``o``. Returns the output, the bias and the probabilities (eager), as the model's function returns them; q, k and
    v (and umT5's own bias) go as it returns.

    ``eager_attention_forward``: scores (``* scaling`` of 1.0: a copy, the product dropped), ``+ position_bias``
    (the name rebound), softmax (keeps its output), dropout, ``matmul`` by V, ``transpose(1, 2).contiguous()`` (a
    copy, the product dropped); it returns the context and the probabilities."""
    b = x.shape[0]
    mark = sim.scope()

    q = sim.heads(sim.linear(p + "q", x), heads, d_kv)
    k = sim.heads(sim.linear(p + "k", x), heads, d_kv)
    v = sim.heads(sim.linear(p + "v", x), heads, d_kv)
    given = bias is not None  # a later T5 block's: the bias block 0 returned (under reentrant checkpointing, an argument)
    if bias is None:
        bias = relative_bias(sim, p + "relative_attention_bias", n, umt5)
    probs: T | None = None
    if sim.attention == "sdpa":
        # sdpa_attention_forward: the position bias is the mask (create_position_bias_mask: ``.contiguous()``, a
        # copy per call of the permuted [1, heads, L, L] view), scaling 1.0. A mask that needs a gradient (the bias
        # trains) sends PyTorch on CPU to SDPA's math path (Sim.sdpa_math). Without one, CPU's flash kernel, which
        # keeps the mask.
        inner = sim.scope()  # sdpa_attention_forward: the mask's copy goes as it returns (unless the kernel keeps it)
        mask = sim.contiguous(bias)
        if mask.grad and sim.checkpointing and sim.reentrant:
            # reentrant checkpointing runs the block's forward without a graph (the mask needs no gradient there:
            # the flash kernel) and its recomputation with one (the math path): the lifetime simulator records both
            # in one block (LiveSim.sdpa_split_by_reentrant); the step's costs are the math path's, as before
            context = _reentrant_sdpa(sim, q, k, v, mask, given and mask.storage == bias.storage)
        else:
            out = sim.sdpa_math_replayed(q, k, v, mask) if mask.grad else sim.sdpa(q, k, v, mask)
            context = sim.rebind(out, sim.contiguous(sim.transpose(out, 1, 2)))  # a copy of the math path's output
        sim.end_scope(inner, context)
    else:
        inner = sim.scope()  # eager_attention_forward
        product = sim.bmm(q, sim.transpose(k, 2, 3))
        scores = sim.pointwise(product)  # * scaling
        sim.release(product)
        scores = sim.rebind(scores, sim.add(scores, bias))
        probs = sim.rebind(scores, sim.keep_output(scores))
        probs = sim.rebind(probs, sim.dropout(probs, sim.drops("dropout_rate")))
        context = sim.bmm(probs, v)
        context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
        sim.end_scope(inner, context, probs)
    context = sim.contiguous(sim.reshape(context, (b, n, heads * d_kv)))
    out = sim.rebind(context, sim.linear(p + "o", context))
    returned = [bias] if not umt5 else []
    if probs is not None:
        returned.append(probs)
    return sim.end_scope(mark, out, *returned), bias, probs


def _reentrant_sdpa(sim: Sim, q: T, k: T, v: T, mask: T, argument: bool) -> T:
    """SDPA in a reentrant checkpointed block whose mask needs a gradient in the recomputation (the bias trains): the
    plain tape counts the math path and ``transpose(1, 2).contiguous()``'s copy (the recomputation's graph); the
    lifetime simulator also replays the forward's flash kernel (:meth:`~calculator.costs.lifetime.LiveSim.
    sdpa_split_by_reentrant`). ``argument``: the mask is a later block's bias argument itself (one position or one
    head: ``.contiguous()`` copies nothing), which needs a gradient in the forward too: the math path there as well
    (replayed; not under autocast, whose cached copy of that leaf is not modelled)."""
    from ..costs.lifetime import LiveSim

    if isinstance(sim, LiveSim):
        return sim.sdpa_split_by_reentrant(q, k, v, mask, argument)
    out = sim.sdpa_math(q, k, v, mask)
    return sim.rebind(out, sim.contiguous(sim.transpose(out, 1, 2)))


def activation(sim: Sim, name: str, t: T) -> T:
    """``ACT2FN[dense_act_fn]``; ``gelu_pytorch_tanh`` (ComfyUI's T5 and umT5 configs) is ``F.gelu(approximate=
    "tanh")``, one kernel whose backward needs its input, as exact GELU's does."""
    return sim.keep_input(t) if name == "gelu_pytorch_tanh" else sim.activation(name, t)


def feed_forward(sim: Sim, x: T, p: str, c: Mapping[str, Any]) -> T:
    """``T5DenseActDense`` (wi, act, dropout, wo) or ``T5DenseGatedActDense`` (act(wi_0) * wi_1, dropout, wo),
    every name dropped where the modeling file drops it (``hidden_gelu`` and ``hidden_linear`` named until the
    return)."""
    act = c["dense_act_fn"]
    mark = sim.scope()
    if c["is_gated_act"]:
        wide = sim.linear(p + "wi_0", x)
        gate = activation(sim, act, wide)
        sim.release(wide)  # self.act(self.wi_0(...)): the Linear's output a temporary (unless the activation keeps it)
        h = sim.glu_product(gate, sim.linear(p + "wi_1", x))
    else:
        h = sim.linear(p + "wi", x)
        h = sim.rebind(h, activation(sim, act, h))
    h = sim.rebind(h, sim.dropout(h, sim.drops("dropout_rate")))
    if h.itemsize != sim.itemsize:
        # ``hidden_states.to(self.wo.weight.dtype)``: under autocast the bf16 hidden state is copied to float32, which
        # ``wo`` casts back (a second copy, kept if ``wo`` trains, apart from what the activation keeps)
        h = sim.rebind(h, sim.cast(h, sim.itemsize))
    return sim.end_scope(mark, sim.rebind(h, sim.linear(p + "wo", h)))


def step_program_for(bias_every_layer: bool) -> Callable[[Sim, Inventory, int, int], list[T]]:
    """The encoder's step (``T5Stack.forward``): the table (``inputs_embeds``, named until the return), dropout, the
    blocks (each pre-norm, two residuals), the final norm, dropout, every name dropped where ``modeling_t5.py``
    (``modeling_umt5.py``) drops it.

    T5 computes the relative bias in block 0 and hands it to the others (the stack names it until it returns); under
    checkpointing it is an argument of every later block's checkpoint (non-reentrant: its frame keeps it; reentrant:
    an output of each block's checkpoint, block 0's its own bias, a later one's the input it returns, which the next
    checkpoint saves as a positional input needing a gradient: a leaf of its recomputation, whose gradient goes back
    block by block to block 0's). umT5 computes one per block, dropped as its attention returns."""

    def program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
        c = inv.config
        prefix = inv.arch.prefix
        # The lifetime simulator replays the step op by op (issue 32): eager or SDPA (the flash kernel, or its math
        # path where the bias trains: float32, bf16 or under autocast), checkpointing of either kind (reentrant under
        # SDPA too: the forward's flash kernel without a graph, the recomputation's math path, :func:`attention`).
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared below
        sim.exact_autocast()  # and under autocast (the Linears' and matmul's bf16 copies, the promoting adds)
        drop = sim.drops("dropout_rate")
        stack = sim.scope()
        embeds = sim.embedding(prefix + "encoder.embed_tokens", sim.ids((b, n)), first=True)
        x = sim.dropout(embeds, drop)
        state: dict[str, T] = {}

        def block(i: int) -> Callable[[Sim, T], T]:
            p = f"{prefix}encoder.block.{i}.layer."

            def run(sim: Sim, x: T) -> T:
                mark = sim.scope()  # T5Block.forward: the probabilities (``_``) named until it returns
                layer = sim.scope()  # T5LayerSelfAttention.forward
                normed = rms_norm(sim, p + "0.layer_norm", x)
                bias = None if i == 0 or bias_every_layer else state["bias"]
                att, bias, probs = attention(sim, normed, p + "0.SelfAttention.", c["num_heads"], c["d_kv"], bias, n,
                                             bias_every_layer)
                if not bias_every_layer:
                    state["bias"] = bias
                dropped = sim.dropout(att, drop)
                h = sim.add(x, dropped)
                sim.release(att, dropped)  # attention_output rebound; the dropout's output a temporary
                sim.end_scope(layer, h, *([] if bias_every_layer else [bias]), *([probs] if probs else []))
                ff = sim.scope()  # T5LayerFF.forward
                normed = rms_norm(sim, p + "1.layer_norm", h)
                forwarded = sim.rebind(normed, feed_forward(sim, normed, p + "1.DenseReluDense.", c))
                dropped = sim.dropout(forwarded, drop)
                out = sim.add(h, dropped)
                sim.release(dropped, h)  # the dropout's output a temporary; T5Block's hidden_states rebound
                sim.end_scope(ff, out)
                return sim.end_scope(mark, out, *([] if bias_every_layer else [state["bias"]]))

            return run

        for i in range(c["num_layers"]):
            if sim.checkpointing and i > 0 and not bias_every_layer:
                bias = state["bias"]
                if sim.reentrant:
                    # the previous block's checkpoint output (block 0's bias, or the input a later block returns as it
                    # came: a view of it), kept as this block's positional input: under reentrant checkpointing it
                    # needs a gradient when the hidden states do (a Function's outputs), which this block's node
                    # returns to the previous one's
                    state["bias"] = sim.checkpoint_output(bias, bias.grad or x.grad)
                    sim.positional_arguments(state["bias"], counted=False)
                elif i == 1:  # non-reentrant: each later block's frame keeps it (position_bias, an argument)
                    sim.layer_argument(bias)
            y = sim.layer(block(i), x)
            if x.storage != embeds.storage:
                sim.release(x)  # hidden_states rebound (inputs_embeds stays named)
            x = y
        normed = rms_norm(sim, prefix + "encoder.final_layer_norm", x)
        if x.storage != embeds.storage:
            sim.release(x)
        x = sim.rebind(normed, sim.dropout(normed, drop))
        return [sim.end_scope(stack, x)]

    return program


def step_check(inv: Inventory) -> None:
    """Fewer than 4 buckets: ``_relative_position_bucket`` divides by ``log(max_distance / max_exact)`` with
    ``max_exact`` = buckets // 2 // 2 = 0 (a ZeroDivisionError in transformers' forward), once a block runs."""
    c = inv.config
    if c["num_layers"] > 0 and c["relative_attention_num_buckets"] < 4:
        raise CalcError("costs_forward_fails", key="relative_attention_num_buckets",
                        value=c["relative_attention_num_buckets"])


def costs_for(bias_every_layer: bool) -> CostModel:
    """No position table (``max_seq_len`` None); T5Config's ``dropout_rate`` 0.1 is every dropout."""
    return CostModel(step_program_for(bias_every_layer), None, check=step_check, keys=dropouts("dropout_rate"), autocast=True,
                     buffers=no_buffers,
                     sdpa=True, sdpa_dropout=("dropout_rate",), reentrant=True)


def backbone_for(bias_every_layer: bool) -> Callable[[TensorList, dict[str, Any], str, bool], None]:
    """The encoder's tensors in ``state_dict`` order; the relative bias in block 0 (T5, mT5) or every block (umT5)."""

    def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
        h, heads, inner, ff = c["d_model"], c["num_heads"], c["num_heads"] * c["d_kv"], c["d_ff"]
        t.embedding(prefix + "shared", c["vocab_size"], h)
        t.add(prefix + "encoder.embed_tokens.weight", (c["vocab_size"], h), "embeddings",
              shares=prefix + "shared.weight", embedding=True)
        for i in range(c["num_layers"]):
            p = f"{prefix}encoder.block.{i}.layer."
            for proj in ("q", "k", "v"):
                t.linear(p + "0.SelfAttention." + proj, inner, h, "attention_qkv", i, bias=False)
            t.linear(p + "0.SelfAttention.o", h, inner, "attention_output", i, bias=False)
            if i == 0 or bias_every_layer:
                t.embedding(p + "0.SelfAttention.relative_attention_bias", c["relative_attention_num_buckets"], heads,
                            "relative_position", layer=i)
            t.layer_norm(p + "0.layer_norm", h, layer=i, bias=False)
            ins = ("wi_0", "wi_1") if c["is_gated_act"] else ("wi",)
            for name in ins:
                t.linear(p + "1.DenseReluDense." + name, ff, h, "feed_forward", i, bias=False)
            t.linear(p + "1.DenseReluDense.wo", h, ff, "feed_forward", i, bias=False)
            t.layer_norm(p + "1.layer_norm", h, layer=i, bias=False)
        t.layer_norm(prefix + "encoder.final_layer_norm", h, bias=False, section="encoder")

    return backbone


def formula_for(bias_every_layer: bool) -> Callable[[Inventory], Formula]:
    """The encoder's closed form: the table once, L blocks, the relative bias once (or per block), the final norm."""

    def formula(inv: Inventory) -> Formula:
        c = inv.config
        v, h, k, a, f, b, n = (c["vocab_size"], c["d_model"], c["d_kv"], c["num_heads"], c["d_ff"],
                               c["relative_attention_num_buckets"], c["num_layers"])
        inputs = 3 if c["is_gated_act"] else 2
        sym = f"4·H·A·K + {inputs}·H·F + 2H"
        sub = f"4·{h}·{a}·{k} + {inputs}·{h}·{f} + 2·{h}"
        per = 4 * h * a * k + inputs * h * f + 2 * h
        if bias_every_layer:
            sym, sub, per = f"4·H·A·K + B·A + {inputs}·H·F + 2H", (
                f"4·{h}·{a}·{k} + {b}·{a} + {inputs}·{h}·{f} + 2·{h}"), per + b * a
        lines = [FormulaLine("embeddings", "V·H", f"{v}·{h}", v * h), *layers_lines(sym, sub, per, n)]
        if n and not bias_every_layer:
            lines.append(FormulaLine("relative_position", "B·A", f"{b}·{a}", b * a))
        lines.append(FormulaLine("final_layer_norm", "H", f"{h}", h))
        return Formula({"V": v, "H": h, "K": k, "A": a, "F": f, "B": b, "L": n}, tuple(lines))

    return formula


def t5_config(model_type: str, vocab: int, d_model: int, d_ff: int, layers: int, heads: int,
              proj: str) -> dict[str, Any]:
    """A published T5-shaped config.json's size-relevant keys (every one below has d_kv 64 and 32 buckets)."""
    return {"model_type": model_type, "vocab_size": vocab, "d_model": d_model, "d_kv": 64, "d_ff": d_ff,
            "num_layers": layers, "num_heads": heads, "relative_attention_num_buckets": 32,
            "feed_forward_proj": proj}


#: Every T5 config.json describes the encoder-decoder: its decoder depth is the one key that shapes tensors the
#: encoder class does not build, and the note it gives says what is counted (the encoder alone).
DECODER = IgnoredKey(
    "num_decoder_layers", (0,),
    L("num_decoder_layers = {value}: {architecture} is the encoder alone, as diffusion pipelines and sentence "
      "encoders load it; AutoModel and the checkpoint's encoder-decoder class add a decoder of that many blocks "
      "(and its own relative bias and final norm), not counted here.",
      "num_decoder_layers = {value}：{architecture} 只含编码器，扩散模型管线和句向量模型都是这样加载它的；"
      "AutoModel 以及 checkpoint 自己的编码器-解码器类还会再加上这么多层解码器（连同它自己的相对位置偏置和最后的归一化），"
      "这里不计入。"),
)

#: ``is_decoder`` (a decoder's config given to the encoder class) makes ``T5Stack`` add a cross-attention block
#: (``layer.1.EncDecAttention`` and its norm) to every block; the counts here are the encoder's, without them.
AS_DECODER = IgnoredKey(
    "is_decoder", (False,),
    L("is_decoder = {value}: transformers 5.23's {architecture} then adds a cross-attention block (q, k, v, o and a "
      "norm) to every block, as in a decoder; the counts here are the encoder's, without those blocks.",
      "is_decoder = {value}：此时 transformers 5.23 的 {architecture} 会像解码器那样给每一层再加一个交叉注意力模块"
      "（q、k、v、o 和一个归一化层）；这里的数字是编码器本身的，不含这些模块。"),
)

#: The family's own words (the last line of its formula).
WORDS = {"final_layer_norm": L("Final RMS norm (final_layer_norm)", "最后的 RMS 归一化（final_layer_norm）")}

FIELDS = fields(32128, 512, 2048, 6, 8, "relu")

FAMILY = Family(
    peft_targets=("q", "v"),
    model_type="t5",
    base="T5EncoderModel",
    fields=FIELDS,
    read=reader(FIELDS),
    aliases=ALIASES,
    backbone=backbone_for(False),
    # nn.Embedding(vocab, d_model) without padding_idx: pad_token_id names no row to check.
    pad_token_id=None,
    # d_kv is its own key: transformers never asks the heads to divide d_model.
    heads_check=None,
    architectures=(Architecture(name="T5EncoderModel", task=Task.MODEL, prefix="", pooler=False),),
    # The menu names the class; the legend says it is the encoder alone (T5EncoderModel: the encoder only).
    title=L("T5 (T5EncoderModel)", "T5（T5EncoderModel）"),
    legend="fields_legend_encoder",
    formula=formula_for(False),
    extras=(GATED, ACTIVATION),
    sample=sample,
    presets=(
        # The text encoder of FLUX.1 and Stable Diffusion 3: the encoder of google/t5-v1_1-xxl,
        # https://huggingface.co/google/t5-v1_1-xxl/blob/main/config.json (T5ForConditionalGeneration), saved
        # alone as https://huggingface.co/black-forest-labs/FLUX.1-dev/blob/main/text_encoder_2/config.json
        # (architectures: T5EncoderModel; d_model 4096, d_ff 10240, 64 heads of 64, 24 layers, gated-gelu).
        Preset("google/t5-v1_1-xxl", t5_config("t5", 32128, 4096, 10240, 24, 64, "gated-gelu"), "T5EncoderModel"),
        # https://huggingface.co/google/t5-v1_1-xl/blob/main/config.json (T5ForConditionalGeneration)
        Preset("google/t5-v1_1-xl", t5_config("t5", 32128, 2048, 5120, 24, 32, "gated-gelu"), "T5EncoderModel"),
        # https://huggingface.co/google/flan-t5-xl/blob/main/config.json (T5ForConditionalGeneration); the encoder
        # alone: Kijai/flan-t5-xl-encoder-only-bf16 (ELLA's text encoder).
        Preset("google/flan-t5-xl", t5_config("t5", 32128, 2048, 5120, 24, 32, "gated-gelu"), "T5EncoderModel"),
        # https://huggingface.co/google/flan-t5-base/blob/main/config.json (T5ForConditionalGeneration)
        Preset("google/flan-t5-base", t5_config("t5", 32128, 768, 2048, 12, 12, "gated-gelu"), "T5EncoderModel"),
        # https://huggingface.co/google-t5/t5-base/blob/main/config.json (T5ForConditionalGeneration; original T5:
        # relu, one wi): sentence-transformers/sentence-t5-base is this encoder.
        Preset("google-t5/t5-base", t5_config("t5", 32128, 768, 3072, 12, 12, "relu"), "T5EncoderModel"),
        # https://huggingface.co/google-t5/t5-large/blob/main/config.json (T5ForConditionalGeneration)
        Preset("google-t5/t5-large", t5_config("t5", 32128, 1024, 4096, 24, 16, "relu"), "T5EncoderModel"),
    ),
    rank=85,
    default_attention="sdpa",
    labels=WORDS,
    ignored_keys=(DECODER, AS_DECODER),
    costs=costs_for(False),
    # A config.json of the whole model (what the checkpoints list) is counted as the encoder class, with a note.
    encoder_of=("T5Model", "T5ForConditionalGeneration", "T5WithLMHeadModel"),
)
