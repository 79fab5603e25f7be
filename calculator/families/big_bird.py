"""BigBird (``modeling_big_bird.py``): BERT's tensors, with block-sparse attention that adds none.

* Embeddings, layers and heads are BERT's, with BigBird's defaults: a 50,358-token
  vocabulary and 4,096 positions (a learned table, 4096 × H).
* Block-sparse attention (``attention_type="block_sparse"``, ``block_size``,
  ``num_random_blocks``) decides which positions attend to which; the Q, K, V
  projections are the same [H, H] matrices as full attention, so the sparse
  pattern changes no count. ``use_bias=False`` drops the Q, K, V biases.
* The pooler is a bare ``nn.Linear`` named ``pooler`` (not ``pooler.dense``), and
  every task class keeps it except question answering, whose head is a small
  feed-forward block (``qa_classifier``: intermediate, output, LayerNorm) and a
  ``qa_outputs`` layer that transformers always builds with 2 outputs (it sets
  ``config.num_labels = 2``).
* As a decoder with ``add_cross_attention`` (``BigBirdForCausalLM``), every layer
  gets a second attention block of the same shapes (``crossattention``).

Training step (issue 25): transformers runs full attention (``original_full``) when
the config says so, when cross-attention is on, and, with a warning, whenever
L ≤ (5 + 2·num_random_blocks)·block_size (704 tokens with the defaults). Longer
inputs are padded to a multiple of ``block_size`` and run the block-sparse kernel
(:func:`step_sparse_attention`), worked out operation by operation: the random
blocks change which blocks are read, never a shape, so the figures are exact.

Peak of live memory (issue 32): exact with ``original_full`` (:func:`step_full`, replayed tensor by tensor), a
decoder's too (its causal mask, its key/value cache) and question answering's (its inputs made from the ids).
Block-sparse attention lists every storage the forward makes, in PyTorch's order (the tape's, and as constants
those nothing keeps), with every name's release declared: the inference span is replayed exactly
(``tests/crosscheck/test_inference_engine.py::test_big_bird_block_sparse_inference_exact``), and so is the
training step, its backward node by node (``tests/crosscheck/test_peak_engine.py::
test_big_bird_block_sparse_bounds``, whose drawn steps then check the figure): each block ``t[:, :, i]`` a
``SelectBackward0`` and each slice ``t[:, :, 2:-2]`` (the middle blocks, the weights' columns, the unpadded output) a
``SliceBackward0``, both allocating a zero gradient of the whole tensor they read (:meth:`~.ops.Ops.select`,
:meth:`~.ops.Ops.slice_dim`); the gathers' ``GatherBackward0``; the in-place ``+=`` on the middle context
(``AddBackward0``); the assembled probability matrix's graph, which the loss never reaches, holding its
``scatter_`` indices until ``BigBirdLayer`` drops it (:meth:`~.ops.Ops.saved_with`); under checkpointing of
either kind the masks every layer takes by keyword (``band_mask``, and ``from_mask``/``to_mask``/
``blocked_encoder_mask``, views of the padded mask) are kept by its frame or its ``partial``. Question answering's
inputs made from the ids are listed; a decoder with block-sparse attention runs the encoder's forward, and is
replayed as it is. Without layers the padding and the masks are still made (the band mask too, held by
``BigBirdModel.forward`` to its end), so that step is replayed under bf16 autocast as well: no kernel runs, the masks
stay float32, and only the pooler's and heads' Linears take autocast's copies (with layers PyTorch fails, below).

The backward as measured (``peak_measure.backward_ledger``, B 2, L 18, block 2, one random block): 288 autograd
nodes a layer, 16 of them ``AccumulateGrad``: 28 ``SelectBackward0`` and 13 ``SliceBackward0`` (the backward's
largest allocations: 32,384 and 17,536 bytes of that layer's), summed out of place into the pending gradient
(``InputBuffer``); 2 ``GatherBackward0`` (zeros and ``scatter_add``), the einsums' ``UnsafeViewBackward0``/
``ViewBackward0`` copies of strided gradients (6 and 5 allocating), 16 ``BmmBackward0``, 9 ``MulBackward0`` (the
scale, ``from_mask``), 5 ``SoftmaxBackward0``, 8 ``CatBackward0``, the in-place ``+=`` and the probability matrix's
unreached branch.
"""
from __future__ import annotations

import random
from typing import Any, Callable, Mapping

from ..costs import CostModel, Sim, T, activation_key, classifier_dropout, dropouts, position_buffers
from ..costs.tensor import is_contiguous
from ..config import Field, coerce_int, read_fields  # coerce_int: the step's check
from ..errors import CalcError
from ..formula import Formula, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, roberta
from .base import Architecture, Family, Preset, with_defaults, Task
from .common import (
    HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, POSITIONS, TIE, TOKEN_TYPES, VOCAB, L, heads_divide, value_extra,
)


def _flag(key: str, default: bool, en: str, zh: str) -> Field:
    return Field(key, default, kind="bool", label=L(en, zh), sample=(0, 1))


FIELDS = with_defaults((
    VOCAB,
    HIDDEN,
    LAYERS,
    HEADS,
    INTERMEDIATE,
    POSITIONS,
    TOKEN_TYPES,
    _flag("use_bias", True, "Q, K, V biases (use_bias)", "Q、K、V 投影带偏置（use_bias）"),
    _flag("is_decoder", False, "Used as a decoder (is_decoder)", "作为解码器使用（is_decoder）"),
    _flag(
        "add_cross_attention", False, "Cross-attention in every layer (add_cross_attention; needs is_decoder)",
        "每层加交叉注意力（add_cross_attention；需要 is_decoder）",
    ),
    LABELS,
    TIE,
), vocab_size=50358, max_position_embeddings=4096)

#: The attention kinds ``BigBirdAttention`` knows; any other is a ValueError once a layer is built.
ATTENTION_TYPES = ("block_sparse", "original_full")
#: ``BigBirdConfig``'s defaults for the block-sparse pattern.
SPARSE_DEFAULTS = {"block_size": 64, "num_random_blocks": 3}


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and the two refusals transformers makes while building a layer (none with no layers).

    ``attention_type`` shapes no tensor, but a value other than the two kinds stops
    ``BigBirdAttention``; ``add_cross_attention`` without ``is_decoder`` stops ``BigBirdLayer``.
    """
    values = read_fields(FIELDS, raw, {})
    kind = raw.get("attention_type", "block_sparse")
    if values["num_hidden_layers"] > 0:
        if kind not in ATTENTION_TYPES:
            raise CalcError("bad_value", key="attention_type", value=kind)
        if values["add_cross_attention"] and not values["is_decoder"]:
            raise CalcError("bad_value", key="add_cross_attention", value="true (is_decoder is false)")
    # Kept for the training step only (they shape no tensor): which attention a forward of length L runs.
    values["attention_type"] = kind
    for key, default in SPARSE_DEFAULTS.items():
        values[key] = raw.get(key, default)  # checked by the step only (counting never reads them)
    return values


def attention(t: TensorList, p: str, h: int, i: int, bias: bool) -> None:
    """``BigBirdAttention``: Q, K, V (bias if use_bias), then the output dense and its LayerNorm."""
    for proj in ("query", "key", "value"):
        t.linear(p + "self." + proj, h, h, "attention_qkv", i, bias=bias)
    t.linear(p + "output.dense", h, h, "attention_output", i)
    t.layer_norm(p + "output.LayerNorm", h, layer=i)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h, inter = c["hidden_size"], c["intermediate_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}encoder.layer.{i}."
        attention(t, p + "attention.", h, i, c["use_bias"])
        if c["add_cross_attention"]:
            attention(t, p + "crossattention.", h, i, c["use_bias"])
        t.linear(p + "intermediate.dense", inter, h, "feed_forward", i)
        t.linear(p + "output.dense", h, inter, "feed_forward", i)
        t.layer_norm(p + "output.LayerNorm", h, layer=i)
    if with_pooler:
        t.linear(prefix + "pooler", h, h, "pooler")


def qa_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``BigBirdForQuestionAnsweringHead``: a feed-forward block with its LayerNorm, then 2 outputs."""
    h, inter = c["hidden_size"], c["intermediate_size"]
    t.linear("qa_classifier.intermediate.dense", inter, h, "head")
    t.linear("qa_classifier.output.dense", h, inter, "head")
    t.layer_norm("qa_classifier.output.LayerNorm", h, group="head")
    t.linear("qa_classifier.qa_outputs", 2, h, "head")


# ------------------------------------------------------------------ formula


def formula(inv: Inventory) -> Formula:
    """BERT's count; Q, K, V biases only with use_bias; a second attention block per layer with cross-attention."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    # one attention block: Q, K, V (+ their biases), output dense with bias, LayerNorm
    if c["use_bias"]:
        att = ("4H² + 4H + 2H", f"4·{h}² + 4·{h} + 2·{h}", 4 * h * h + 4 * h + 2 * h)
    else:
        att = ("4H² + H + 2H", f"4·{h}² + {h} + 2·{h}", 4 * h * h + h + 2 * h)
    ffn = ("2HI + I + H + 2H", f"2·{h}·{i} + {i} + {h} + 2·{h}", 2 * h * i + i + h + 2 * h)
    parts = [att, att, ffn] if c["add_cross_attention"] else [att, ffn]
    per = (" + ".join(x[0] for x in parts), " + ".join(x[1] for x in parts), sum(x[2] for x in parts))
    lines = [bert.embeddings_line(v, p, t, h), *layers_lines(*per, n)]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Valid heads; cross-attention mostly as a decoder; the attention kind now and then given, or wrong."""
    heads_divide()(rng, config)
    if config.get("add_cross_attention") and rng.random() < 0.8:
        config["is_decoder"] = True
    roll = rng.random()
    if roll < 0.3:
        config["attention_type"] = rng.choice(ATTENTION_TYPES)
    elif roll < 0.33:
        config["attention_type"] = "sparse"  # refused once a layer is built
    if rng.random() < 0.3:
        config["block_size"] = rng.choice([16, 32, 64])
        config["num_random_blocks"] = rng.randint(1, 4)


# --------------------------------------------------------------- training step


def sparse_limit(c: Mapping[str, Any]) -> int:
    """The longest input ``BigBirdModel.forward`` runs with full attention when the config says block_sparse.

    transformers switches to ``original_full`` itself (with a warning) when
    L ≤ (5 + 2·num_random_blocks)·block_size: 2 global, 3 sliding and 2·r random blocks.
    """
    return (5 + 2 * coerce_int("num_random_blocks", c["num_random_blocks"])) * coerce_int("block_size", c["block_size"])


def runs_block_sparse(c: Mapping[str, Any], seq_len: int) -> bool:
    """Whether the forward of length ``seq_len`` stays block-sparse: pads to the block size, and runs the kernel.

    ``BigBirdModel.__init__`` already switches a model with cross-attention to
    ``original_full``; ``forward`` switches any other when L is at most :func:`sparse_limit`.
    A model without layers still pads (the padding follows the model's attention type).
    """
    if c["attention_type"] != "block_sparse" or c["add_cross_attention"]:
        return False
    return seq_len > sparse_limit(c)


def step_embeddings(sim: Sim, prefix: str, b: int, n: int, given: T | None, padded: bool = False,
                    sparse: bool = False, ones: T | None = None) -> tuple[T, T | None]:
    """``BigBirdEmbeddings``: word + token type (+= position), then dropout **before** the LayerNorm.

    Token types are a slice of a zero buffer (not counted), except in question
    answering, which makes them from the ids (``given``: [B, L] int64); positions a buffer slice.
    ``padded``: block-sparse attention ran ``_pad_to_block_size`` first, whose
    ``nn.functional.pad`` makes new [B, n] int64 tensors of the ids and of the token
    types (the buffer's slice too): those are what the embeddings keep.

    ``sparse``: the block-sparse path, its storages listed in PyTorch's order (the step's bounds, and the replay
    to come): the padded float32 attention mask is made between the ids' and the types' pads (returned), and
    ``embeddings += position_embeddings`` is in place. Returns the LayerNorm's output and that padded mask (None
    where not made here). ``ones``: ``torch.ones((B, L))``, whose name the padding rebinds (BigBirdModel.forward's
    ``attention_mask``, as ``_pad_to_block_size`` returns). The padded ids and types are BigBirdModel.forward's
    names (to its end); the embeddings' own locals go as they return.
    """
    e = prefix + "embeddings."
    if padded:
        sim.input_padded()
    ids = sim.ids((b, n))  # (unpadded: the input's, counted in F too: the embedding's backward keeps it)
    mask = sim.constant((b, n), 4, "aten.constant_pad_nd") if sparse and padded else None
    if padded:
        types = sim.ids((b, n))
        if ones is not None:
            sim.release(ones)
    else:
        types = given if given is not None else sim.expand(sim.buffer((1, n)), (b, n))
    mark = sim.scope()  # BigBirdEmbeddings.forward
    x = sim.embedding(e + "word_embeddings", ids, first=True)
    x = sim.add(x, sim.embedding(e + "token_type_embeddings", types))
    position = sim.embedding(e + "position_embeddings", sim.buffer((1, n)))
    x = sim.add_(x, position) if sparse else sim.add(x, position)
    x = sim.rebind(x, dropout(sim, x, sim.drops("hidden_dropout_prob")))
    return sim.end_scope(mark, layer_norm(sim, e + "LayerNorm", x)), mask


#: How many tensors ``NewGELUActivation`` (``gelu_new``, written out in Python) allocates: ``0.5 * x``, ``pow``, the
#: cube's product, the sum, its product by sqrt(2/π), ``tanh``, ``1 + tanh`` and the last product (measured).
GELU_NEW_ALLOCATIONS = 8


def activation(sim: Sim, act: str, t: T) -> T:
    """``ACT2FN[hidden_act]`` (:meth:`~.ops.Ops.activation`), with every storage ``gelu_new`` allocates listed.

    The tape lists only the ``gelu_new`` tensors autograd keeps (three and the result; the result alone without a
    gradient); the block-sparse step's bounds count every storage the forward makes (``costs/peak.py``'s F), so
    the intermediate ones are added as constants (no FLOPs, nothing saved: no existing figure moves)."""
    made = len(sim.storages)
    out = sim.activation(act, t)
    if act == "gelu_new":  # only those the simulator did not make (the lifetime one makes them all)
        for _ in range(GELU_NEW_ALLOCATIONS - max(len(sim.storages) - made, 4 if t.grad and sim.grad_mode else 1)):
            sim.constant(t.shape, out.itemsize, "aten.mul")
    return out


def layer_norm(sim: Sim, module: str, x: T) -> T:
    """``nn.LayerNorm`` (:meth:`~.modules.Sim.layer_norm`), with the mean and 1/std listed where nothing keeps them.

    ``native_layer_norm`` returns them whatever autograd needs (in the input's dtype, measured); the tape lists
    them only where they are saved, so without a gradient (no_grad, a frozen LayerNorm on a frozen input) they
    are added as constants (no FLOPs, nothing saved): what the block-sparse step's bounds count."""
    made = len(sim.storages)
    out = sim.layer_norm(module, x)
    if not out.grad and len(sim.storages) - made == 1:  # (the lifetime simulator makes them itself)
        for _ in range(2):
            sim.constant(x.shape[:-1] + (1,), sim.itemsize, "aten.native_layer_norm")
    return out


def dropout(sim: Sim, t: T, active: bool) -> T:
    """Training-mode dropout (:meth:`~.ops.Ops.dropout`), with its mask listed where nothing keeps it: the mask
    (``empty_like``, filled in place) is made whether or not the input needs a gradient."""
    made = len(sim.storages)
    out = sim.dropout(t, active)
    if out.storage != t.storage and not t.grad and len(sim.storages) - made == 1:  # (the lifetime simulator makes it)
        sim.constant(t.shape, out.itemsize, "aten.empty_like")
    return out


def linear_unpadded(sim: Sim, module: str, x: T) -> T:
    """A head's ``nn.Linear`` on the unpadded sequence (``sequence_output[:, :-padding_len]``, a strided 3-D view):
    ``at::linear`` takes ``matmul``'s path, a contiguous copy of the input, ``mm``, then the bias added out of
    place (measured). The tape lists the copy and the output; the ``mm``'s own result is added as a constant (no
    FLOPs, nothing saved), of the output's size (the bounds' F; in PyTorch's order only by size)."""
    mark = sim.scope()
    out = sim.end_scope(mark, sim.linear(module, x))  # the copy goes as matmul returns
    if len(x.shape) == 3 and not is_contiguous(x):
        # listed after the output, of its size: the replay lets it go at once (the output named in its place)
        sim.release(sim.constant(out.shape, out.itemsize, "aten.mm"))
    return out


def step_feed_forward(sim: Sim, p: str, x: T, residual: T, act: str) -> T:
    """``BigBirdIntermediate`` (dense, hidden_act) and ``BigBirdOutput`` (dense, dropout, LayerNorm of the sum)."""
    inner = sim.linear(p + "intermediate.dense", x)
    inner = sim.rebind(inner, activation(sim, act, inner))
    out = sim.linear(p + "output.dense", inner)
    out = sim.rebind(out, dropout(sim, out, sim.drops("hidden_dropout_prob")))
    return layer_norm(sim, p + "output.LayerNorm", sim.add(out, residual))


def step_sparse_attention(sim: Sim, x: T, heads: int, block: int, rand: int, mask: T, s: str) -> tuple[T, T]:
    """``BigBirdBlockSparseAttention`` on x [B, n, H] (n a multiple of ``block``): the context [B, n, H] and the
    assembled probabilities [B, A, n, n] (which ``BigBirdLayer`` holds, as ``_``, until it returns).

    ``bigbird_block_sparse_attention`` as transformers 5.23 runs it, with m = n / block blocks:
    q, k, v seen as [B, A, m, block, D]; the random key and value blocks gathered
    (``torch_gather_b2``: ``gather`` keeps its input and the int64 block indices);
    five parts, each ``matmul``/``einsum`` on the gathered or concatenated blocks
    (``cat`` keeps nothing; a reshape of a strided slice to 3-D copies, and the copy
    is what ``bmm`` keeps), every score scaled (a new tensor), masked in place and
    softmaxed (its output kept); the parts' contexts concatenated and multiplied by
    ``from_mask`` (kept: the float attention mask, cast to the model's dtype in each
    layer). The random blocks change which blocks, never a shape, so the figures are exact.
    ``mask``: the float32 [B, n] attention mask (``torch.ones``, padded).

    The full attention-probability matrix it then assembles (returned, never read by
    the loss) costs no FLOPs, but its ``scatter_`` calls keep their int64 indices: the
    random blocks (already kept by the gathers) and the diagonal [m - 4, 3] of the
    sliding window.

    Every name's release is declared where the Python drops it (the forward's replay, :mod:`..costs.lifetime`): a
    product rebound by its scaling (``x = x * rsqrt_d``), a mask's ``(1.0 - m) * penalty`` consumed by ``+=``, an
    ``einsum``'s operand copies as it returns, the ``+=`` summands; the function's other locals go as it returns.
    """
    b, n, hidden = x.shape
    d = hidden // heads
    m = n // block
    middle = m - 4
    z, f = sim.itemsize, 4  # the model's dtype; the float32 attention mask's (rand_mask stays float32)
    from_mask = mask
    if z != f:  # BigBirdAttention.forward: band_mask.to(dtype), from_mask.to(dtype), to_mask.to(dtype)
        sim.constant((b, 1, middle, block, 3 * block), z, "aten._to_copy")
        from_mask = sim.constant(mask.shape, z, "aten._to_copy")
        sim.constant((b, 1, 1, n), z, "aten._to_copy")

    forward = sim.scope()  # BigBirdBlockSparseAttention.forward
    q = sim.transpose(sim.view(sim.linear(s + "query", x), (b, n, heads, d)), 1, 2)
    k = sim.transpose(sim.view(sim.linear(s + "key", x), (b, n, heads, d)), 1, 2)
    v = sim.transpose(sim.view(sim.linear(s + "value", x), (b, n, heads, d)), 1, 2)
    kernel = sim.scope()  # bigbird_block_sparse_attention
    # rand_attn: numpy's [A, m - 2, r] as int64, expanded over the batch and made contiguous
    # torch.tensor(np.stack(...)): the int32 plan, cast to int64 (its shape, never its values, is fixed)
    # expanded over the batch and made contiguous: a copy unless B = 1 (the int64 copy is then what is read)
    plan = sim.constant((heads, m - 2, rand), 4, "aten.lift_fresh")
    if b > 1:
        wide = sim.constant((heads, m - 2, rand), 8, "aten._to_copy")
        sim.release(plan)
        rand_attn = sim.ids((b, heads, m - 2, rand))
        sim.release(wide)
    else:
        rand_attn = sim.ids((b, heads, m - 2, rand))
        sim.release(plan)
    # _create_rand_mask_from_inputs: a gather of the blocked float32 mask, then an einsum (a broadcast mul)
    gathered = sim.constant((b, heads * (m - 2) * rand, block), f, "aten.gather")
    sim.constant((b, heads, m - 2, block, rand * block), f, "aten.mul")
    sim.release(gathered)
    bq, bk, bv = (sim.view(t, (b, heads, m, block, d)) for t in (q, k, v))
    gk = sim.view(sim.gather(bk, rand_attn, (b, heads, (m - 2) * rand, block, d)), (b, heads, m - 2, rand * block, d))
    gv = sim.view(sim.gather(bv, rand_attn, (b, heads, (m - 2) * rand, block, d)), (b, heads, m - 2, rand * block, d))

    def block_of(t: T) -> T:  # t[:, :, i]: one block, a view (which one does not change a figure)
        return sim.select(t, 2)

    def penalty(shape: tuple[int, ...], size: int) -> None:
        # ``(1.0 - mask) * attn_mask_penalty``, added in place: the difference goes with the product, the product
        # with the ``+=``
        one = sim.constant(shape, size)
        product = sim.constant(shape, size)
        sim.release(one)
        sim.release(product)

    def scaled(product: T) -> T:  # ``x = x * rsqrt_d``: the unscaled product loses its name
        return sim.rebind(product, sim.pointwise(product))

    def einsum(spec: str, a: T, c: T) -> T:  # ``torch.einsum``: its operands' copies go as it returns
        mark = sim.scope()
        return sim.end_scope(mark, sim.einsum(spec, a, c))

    def global_row() -> tuple[T, T]:  # q[0] or q[-1] against every key; (1.0 - to_mask) * penalty
        product = scaled(sim.bmm(block_of(bq), sim.transpose(k, -1, -2)))
        penalty((b, 1, 1, n), z)
        weights = sim.keep_output(product)
        return weights, sim.view(sim.bmm(weights, v), (b, heads, 1, block, d))

    def second_row() -> tuple[T, T]:  # q[1] or q[-2]: 3 sliding, 1 global, r random blocks
        keys = sim.concat([block_of(bk) for _ in range(4)] + [block_of(gk)], 2)
        values = sim.concat([block_of(bv) for _ in range(4)] + [block_of(gv)], 2)
        wide = (b, heads, block, (4 + rand) * block)
        product = sim.bmm(block_of(bq), sim.transpose(keys, -1, -2))
        # to_mask.new_ones, the seq pad's cat (to_mask's dtype); rand_mask.new_ones, the rand pad's cat (float32)
        ones = sim.constant((b, 1, 1, rand * block), z)
        sim.constant((b, 1, 1, (4 + rand) * block), z)
        sim.release(ones)
        ones = sim.constant((b, heads, block, 4 * block), f)
        sim.constant(wide, f)
        sim.release(ones)
        product = scaled(product)
        # torch.minimum (float32), 1.0 - it, times the penalty
        least = sim.constant(wide, f)
        one = sim.constant(wide, f)
        sim.release(least)
        product_of_mask = sim.constant(wide, f)
        sim.release(one, product_of_mask)
        weights = sim.keep_output(product)
        return weights, sim.view(sim.bmm(weights, values), (b, heads, 1, block, d))

    first_w, first = global_row()
    _, second = second_row()
    # the middle blocks q[2:-2]
    keys3 = sim.concat([sim.slice_dim(bk, 2, middle) for _ in range(3)], 3)
    values3 = sim.concat([sim.slice_dim(bv, 2, middle) for _ in range(3)], 3)
    mq = sim.slice_dim(bq, 2, middle)
    inner = scaled(sim.bmm(mq, sim.transpose(keys3, -1, -2)))
    randb = scaled(sim.bmm(mq, sim.transpose(sim.slice_dim(gk, 2, middle), -1, -2)))
    firstb = scaled(einsum("bhlqd,bhkd->bhlqk", mq, block_of(bk)))
    lastb = scaled(einsum("bhlqd,bhkd->bhlqk", mq, block_of(bk)))
    # (1.0 - mask) * penalty for the band (band_mask), the first and last blocks (to_mask), the random (rand_mask)
    for shape, size in (((b, 1, middle, block, 3 * block), z), ((b, 1, 1, 1, block), z), ((b, 1, 1, 1, block), z),
                        ((b, heads, middle, block, rand * block), f)):
        penalty(shape, size)
    weights = sim.keep_output(sim.concat([firstb, inner, randb, lastb], 4))
    ctx = sim.bmm(sim.slice_dim(weights, 4, 3 * block), values3)
    # ``context_layer += ...`` (in place: each summand a temporary; AddBackward0 passes the gradient on to both)
    part = sim.bmm(sim.slice_dim(weights, 4, rand * block), sim.slice_dim(gv, 2, middle))
    middle_ctx = sim.add_(ctx, part)
    sim.release(part)
    for _ in range(2):
        part = einsum("bhlqk,bhkd->bhlqd", sim.slice_dim(weights, 4, block), block_of(bv))
        middle_ctx = sim.add_(middle_ctx, part)
        sim.release(part)
    _, second_last = second_row()
    _, last = global_row()
    context = sim.view(sim.concat([first, second, middle_ctx, second_last, last], 2), (b, heads, n, d))
    sim.release(ctx)  # ``context_layer`` rebound to the concatenation
    context = sim.rebind(context, sim.op_with_constant(context, from_mask))
    context = sim.transpose(context, 1, 2)
    # attention_probs: torch.zeros of the context's dtype, slice copies into it, then scatter_ with rand_attn and
    # the sliding diagonal (int64: two aranges and their sum)
    probs = sim.constant((b, heads, n, n), z, "aten.zeros")
    sim.constant((middle,), 8, "aten.arange")
    sim.constant((3,), 8, "aten.arange")
    if first_w.grad:  # (never under no_grad: a checkpointed forward's tensors need no gradient)
        sim.saved_with(probs, rand_attn, sim.made_by(sim.ids((middle, 3)), "aten.add"))  # the sliding diagonal
    else:
        sim.constant((middle, 3), 8, "aten.add")
    sim.end_scope(kernel, context, probs)
    # ``context_layer.contiguous().view(...)``: the transposed product loses its name as the forward returns
    out = sim.view(sim.contiguous(context), (b, n, hidden))
    sim.release(context)
    return sim.end_scope(forward, out, probs), probs


def step_sparse_layer(prefix: str, i: int, heads: int, act: str, block: int, rand: int,
                      mask: T) -> Callable[[Sim, T], T]:
    """One ``BigBirdLayer`` with block-sparse attention (:func:`step_sparse_attention`; no attention dropout), every
    release declared: ``BigBirdAttention``'s mask casts and context go as it returns (after its output's
    LayerNorm), ``BigBirdLayer`` holds the probabilities (``_``) until it returns, ``feed_forward_chunk``'s
    intermediate output goes as the chunk returns."""
    p = f"{prefix}encoder.layer.{i}."

    def run(sim: Sim, x: T) -> T:
        layer = sim.scope()  # BigBirdLayer.forward
        attention = sim.scope()  # BigBirdAttention.forward
        context, probs = step_sparse_attention(sim, x, heads, block, rand, mask, p + "attention.self.")
        out = sim.linear(p + "attention.output.dense", context)
        out = sim.rebind(out, dropout(sim, out, sim.drops("hidden_dropout_prob")))
        attended = sim.end_scope(attention, layer_norm(sim, p + "attention.output.LayerNorm", sim.add(out, x)), probs)
        chunk = sim.scope()  # feed_forward_chunk
        out = sim.end_scope(chunk, step_feed_forward(sim, p, attended, attended, act))
        return sim.end_scope(layer, out)

    return run


def step_full_embeddings(sim: Sim, prefix: str, b: int, n: int, types: T | None = None) -> T:
    """``BigBirdEmbeddings`` as it runs with full attention, every name dropped where its Python drops it: the word
    lookup, ``+`` the token types' (a [1, L] buffer slice, expanded: not counted; ``types``: those question answering
    made from the ids), ``embeddings += position embeddings`` (in place: ``AddBackward0`` sums the [1, L, H]
    gradient), dropout (rebinding the sum), then the LayerNorm; the three lookups' outputs and the dropout's are
    named until the function returns."""
    e = prefix + "embeddings."
    mark = sim.scope()
    ids = sim.ids((b, n))
    if types is None:
        types = sim.expand(sim.buffer((1, n)), (b, n))
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    x = sim.add(words, sim.embedding(e + "token_type_embeddings", types))
    x = sim.add_(x, sim.embedding(e + "position_embeddings", sim.buffer((1, n))))
    x = sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob")))
    return sim.end_scope(mark, sim.layer_norm(e + "LayerNorm", x))


def step_causal_mask(sim: Sim, b: int, n: int) -> T:
    """``create_causal_mask`` (eager) on ``torch.ones((B, L))``, a decoder's [B, 1, L, L] additive mask in the
    embeddings' dtype, named by ``BigBirdModel.forward`` until it returns. Its temporaries, in order (measured): the
    ones as bool, ``arange`` of the batch, of one head and of the L queries and keys (each ``+ 0``: the aranges gone
    at once), the causal ``le`` [L, L] (``new_ones`` of one byte beside it) ``&`` the padding mask's index [B, L], the
    [B, 1, L, L] bool, then ``where`` between a zero and the dtype's minimum (two 0-dim tensors); the ones mask goes
    with the bool copy once the mask is made."""
    z = sim.itemsize
    sizes = (b * n, 8 * b, 8, 8 * n, 8 * n, 8 * n, 8 * n, 1, n * n, n * n, b * n, b * n * n, z, z)
    deaths = (14, 11, 11, 4, 11, 6, 11, 9, 9, 11, 11, 14, 14, 14)
    ops = ("aten._to_copy", "aten.arange", "aten.arange", "aten.arange", "aten.add", "aten.arange", "aten.add",
           "aten.new_ones", "aten.le", "aten.bitwise_and", "aten.index", "aten.bitwise_and", "aten.zeros",
           "aten.scalar_tensor")
    sim.transients(sizes, deaths, ops)
    return sim.constant((b, 1, n, n), z, "aten.where")


def decoder_attention(mask: T, cache: bool, returned: bool) -> Callable[[Sim, T, str, int], T]:
    """``BigBirdSelfAttention.forward`` of a decoder (eager, no encoder states), as :class:`bert.BertLayer` calls it:
    Q, K, V split into heads; with a cache (``use_cache``, the config's default, unless checkpointing drops it in
    training) ``past_key_values.update`` concatenates K and V onto its empty ones (``cat``: contiguous copies the
    output's cache holds, the projections' names rebound to them, so ``matmul`` copies neither); the scores divided
    by sqrt(d), then ``+ attention_mask`` (the quotient's name rebound: the sum keeps it until the return), softmax,
    dropout, the context made contiguous; it returns the probabilities too, held by ``BigBirdLayer`` (``_``).
    ``returned``: the class returns the cache (``BigBirdModel``, the causal LM; the others drop ``outputs``, and it
    with them, as their forward returns)."""

    def run(sim: Sim, x: T, s: str, heads: int) -> T:
        b, n, _ = x.shape
        mark = sim.scope()
        width = sim.linear_info(s + "query").out_features
        d = width // heads
        q = sim.heads(sim.linear(s + "query", x), heads, d)
        k = sim.heads(sim.linear(s + "key", x), heads, d)
        v = sim.heads(sim.linear(s + "value", x), heads, d)
        if cache:
            kept = sim.concat([k], 2), sim.concat([v], 2)
            sim.release(k, v)
            k, v = kept
            sim.held_by_outputs(k, v, returned=returned)
        product = sim.bmm(q, sim.transpose(k, 2, 3))
        scores = sim.made_by(sim.pointwise(product), "aten.div")
        sim.release(product)
        scores = sim.rebind(scores, sim.add(scores, mask))
        probs = sim.keep_output(scores)
        probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_probs_dropout_prob")))
        context = sim.bmm(probs, v)
        context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
        return sim.end_scope(mark, sim.view(context, (b, n, width)), probs)

    return run


def step_question_inputs(sim: Sim, b: int, n: int, listed: bool = False) -> tuple[T, T]:
    """``BigBirdForQuestionAnswering.forward`` before the model, from the ids (measured): ``question_lengths`` =
    ``argmax(input_ids.eq(sep).int(), -1) + 1`` (the bool, int32 and argmax temporaries), ``prepare_question_mask``
    (``arange`` < the lengths, ``where`` between two 0-dim int64: the int64 [B, L] ``logits_mask``), the token types
    ``ones - logits_mask`` (int64), ``logits_mask[:, 0] = False`` (a 0-dim tensor made and dropped). The lengths, the
    mask and the types are the class's names until it returns. Returns the types and the mask. ``listed``: the
    temporaries as storages of the tape too (block-sparse attention's bounds count every storage of the forward)."""
    if listed:
        made = [sim.constant((b * n,), 1, "aten.eq"), sim.constant((b * n,), 4, "aten._to_copy")]
        sim.release(made[0])
        made.append(sim.constant((b,), 8, "aten.argmax"))
        sim.release(made[1])
        sim.constant((b, 1), 8, "aten.add")  # question_lengths
        sim.release(made[2])
        made = [sim.constant((n,), 8, "aten.arange"), sim.constant((b * n,), 1, "aten.lt"),
                sim.constant((1,), 8, "aten.scalar_tensor"), sim.constant((1,), 8, "aten.scalar_tensor")]
        mask = sim.constant((b, n, 1), 8, "aten.where")
        sim.release(*made)
        ones = sim.constant((b * n,), 8, "aten.ones")
        types = sim.constant((b, n), 8, "aten.sub")
        sim.release(ones)
        sim.release(sim.constant((1,), 8, "aten.lift_fresh"))
        return types, mask
    sim.transients((b * n, 4 * b * n, 8 * b), (1, 2, 3), ("aten.eq", "aten._to_copy", "aten.argmax"))
    sim.constant((b, 1), 8, "aten.add")  # question_lengths
    sim.transients((8 * n, b * n, 8, 8), (4, 4, 4, 4), ("aten.arange", "aten.lt", "aten.scalar_tensor",
                                                         "aten.scalar_tensor"))
    mask = sim.constant((b, n, 1), 8, "aten.where")
    sim.transients((8 * b * n,), (1,), ("aten.ones",))
    types = sim.constant((b, n), 8, "aten.sub")
    sim.transients((8,), (0,), ("aten.lift_fresh",))
    return types, mask


def step_sparse_question_head(sim: Sim, seq: T, act: str) -> list[T]:
    """:func:`step_question_head` on block-sparse attention's unpadded output (a strided view where the input was
    padded: the intermediate dense copies it, and the residual sum is a new tensor), every storage listed (the
    inactive dropout's mask, ``gelu_new``'s intermediates, the LayerNorm's statistics: the bounds' F)."""
    mark = sim.scope()
    drop = sim.drops("hidden_dropout_prob")
    h = dropout(sim, seq, drop)
    inner = linear_unpadded(sim, "qa_classifier.intermediate.dense", h)
    inner = sim.rebind(inner, activation(sim, act, inner))
    if h.storage != seq.storage:
        sim.release(h)
    output = sim.scope()  # BigBirdOutput.forward
    out = sim.linear("qa_classifier.output.dense", inner)
    out = sim.rebind(out, dropout(sim, out, drop))
    total = sim.add(out, seq)
    normed = layer_norm(sim, "qa_classifier.output.LayerNorm", total)
    sim.release(out, total)
    out = sim.end_scope(output, normed)
    sim.release(inner)
    return _question_logits(sim, mark, out)


def step_question_head(sim: Sim, seq: T) -> list[T]:
    """``BigBirdForQuestionAnsweringHead`` (dropout, ``BigBirdIntermediate``, ``BigBirdOutput`` on the model's output,
    ``qa_outputs``: each rebinding ``hidden_states``), then ``logits - logits_mask * 1e6`` (the product float32, so a
    bf16 model's logits are promoted) and the split's two contiguous columns."""
    mark = sim.scope()
    h = sim.dropout(seq, sim.drops("hidden_dropout_prob"))
    inner = sim.linear("qa_classifier.intermediate.dense", h)
    inner = sim.rebind(inner, sim.act("hidden_act", inner))
    if h.storage != seq.storage:
        sim.release(h)
    out = bert.self_output(sim, "qa_classifier.output.", inner, seq, sim.drops("hidden_dropout_prob"))
    sim.release(inner)
    return _question_logits(sim, mark, out)


def _question_logits(sim: Sim, mark: Any, out: T) -> list[T]:
    """The question-answering head's end, alike for both attentions: ``qa_outputs`` (the head's scope ends with it),
    ``logits - logits_mask * 1e6`` (the product float32, so a bf16 model's logits are promoted) and the split's two
    contiguous columns."""
    logits = sim.end_scope(mark, sim.rebind(out, sim.linear("qa_classifier.qa_outputs", out)))
    scaled = sim.constant((*logits.shape[:-1], 1), 4, "aten.mul")
    logits = sim.rebind(logits, sim.minus_mask(logits, scaled, promoted=True))
    sim.release(scaled)
    return sim.split_columns(logits)


#: One ``BigBirdLayer`` with ``original_full`` attention, each release where ``modeling_big_bird.py`` drops the name:
#: ``BigBirdSelfAttention`` divides the scores by sqrt(d) (``aten.div``; the quotient keeps its name until the function
#: returns, softmax naming the probabilities anew), no mask (the bidirectional mask function returns None for the ones
#: it is given), and returns the context and the probabilities, which ``BigBirdLayer`` holds (``_``) until it returns;
#: ``BigBirdSelfOutput``, ``BigBirdIntermediate`` and ``BigBirdOutput`` are BERT's.
FULL_LAYER = bert.BertLayer(keep_scores=True)


def step_full(sim: Sim, inv: Inventory, prefix: str, b: int, n: int) -> list[T]:
    """BigBird's classes with ``original_full`` attention, every release declared: question answering first makes
    its inputs from the ids (:func:`step_question_inputs`); ``BigBirdModel.forward`` checks the ids for padding
    (``warn_if_padding_and_no_attention_mask``: four temporaries), makes ``attention_mask = torch.ones((B, L))``
    (float32), runs the embeddings, then the mask function reads the ones (``.to(bool)``, ``.all()``) and returns
    None, dropping them, or, for a decoder, makes the causal mask (:func:`step_causal_mask`) each layer adds
    (:func:`decoder_attention`); the encoder; the pooler (``tanh(pooler(sequence_output[:, 0]))``, computed whether
    the head reads it or not: a branch the loss never reaches under the MLM, causal-LM and classification heads);
    then the head."""
    c = inv.config
    kind = bert.step_task(inv)
    types = None
    if kind == "ForQuestionAnswering":
        types, _ = step_question_inputs(sim, b, n)
    mark = sim.scope()  # BigBirdModel.forward
    sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    ones = sim.named_transient(4 * b * n, "aten.ones")
    if c["attention_type"] == "block_sparse" and not c["add_cross_attention"]:
        # L is at most sparse_limit: ``set_attention_type("original_full")`` builds, per layer, a new
        # BigBirdSelfAttention (query, key, value: nn.Linear's weight and bias, float32 whatever the model's dtype),
        # whose three Linears are replaced at once by the layer's own: made, then dropped together.
        h = c["hidden_size"]
        sizes = [4 * h * h, 4 * h] if c["use_bias"] else [4 * h * h]
        for _ in range(c["num_hidden_layers"]):
            made = 3 * sizes
            sim.transients(made, [len(made) - 1] * len(made), ["aten.empty"] * len(made))
    x = step_full_embeddings(sim, prefix, b, n, types)
    layer = FULL_LAYER
    if c["is_decoder"]:
        mask = step_causal_mask(sim, b, n)
        sim.drop_transient(ones)
        if sim.checkpointing and c["num_hidden_layers"]:
            sim.layer_argument(mask, counted=False)  # a keyword of every checkpointed layer
        # GradientCheckpointingLayer drops the cache of a checkpointed layer in training
        layer = bert.BertLayer(attention=decoder_attention(mask, not (sim.checkpointing and sim.training),
                                                           kind in ("", "ForCausalLM")))
    else:
        sim.transients((b * n, 1), (1, 1), ("aten._to_copy", "aten.all"))
        sim.drop_transient(ones)
    seq = bert.step_encoder(sim, inv, prefix, x, layer=layer)  # BigBirdEncoder's loop, BERT's

    def pool() -> T:
        dense = sim.linear(prefix + "pooler", sim.select(seq, 1))
        return sim.rebind(dense, sim.keep_output(dense))

    pooled = unread = None
    if kind in ("", "ForPreTraining", "ForQuestionAnswering") and inv.pooler:  # (QA: BigBirdModel's, returned)
        pooled = pool()
    elif inv.pooler:  # the head's class holds ``outputs`` (the pooled output too) until its forward returns
        unread = sim.unused(pool)
    sim.end_scope(mark, seq, *(t for t in (pooled, unread) if t is not None))
    act = c["hidden_act"]
    if kind == "":
        return [seq] + ([pooled] if pooled is not None else [])
    if kind in ("ForMaskedLM", "ForCausalLM"):
        return [bert.step_mlm(sim, "cls.predictions", seq, act_key="hidden_act")]
    if kind == "ForPreTraining":
        assert pooled is not None
        return [bert.step_mlm(sim, "cls.predictions", seq, act_key="hidden_act"),
                sim.linear("cls.seq_relationship", pooled)]
    drop = sim.drops("classifier_dropout")
    if kind == "ForSequenceClassification":
        # BigBirdClassificationHead: x = features[:, 0, :]; dropout, dense, ACT2FN[hidden_act], dropout, out_proj,
        # each rebinding ``x``
        mark = sim.scope()
        first = sim.select(seq, 1)
        x = sim.dropout(first, drop)
        dense = sim.linear("classifier.dense", x)
        # an inactive dropout (p = 0, eval) returned ``features[:, 0, :]``, a view of what the caller still names
        x = dense if x.storage == first.storage else sim.rebind(x, dense)
        x = sim.rebind(x, sim.activation(act, x))
        x = sim.rebind(x, sim.dropout(x, drop))
        return [sim.end_scope(mark, sim.rebind(x, sim.linear("classifier.out_proj", x)))]
    if kind == "ForTokenClassification":
        return [sim.linear("classifier", sim.dropout(seq, drop))]  # the dropout's output named to the end
    if kind == "ForQuestionAnswering":  # start and end logits, then the pooled output (a class given a pooler)
        return step_question_head(sim, seq) + ([pooled] if pooled is not None else [])
    raise AssertionError(inv.architecture)


def step_mlm(sim: Sim, x: T, act: str) -> T:
    """``BigBirdLMPredictionHead``: dense, hidden_act, LayerNorm, the vocabulary projection."""
    x = linear_unpadded(sim, "cls.predictions.transform.dense", x)
    x = sim.rebind(x, activation(sim, act, x))
    x = sim.rebind(x, layer_norm(sim, "cls.predictions.transform.LayerNorm", x))
    return sim.rebind(x, sim.linear("cls.predictions.decoder", x))  # the transform's output goes as the head returns


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """BigBird's classes with the attention transformers runs for this L, the outputs each returns.

    Block-sparse attention pads the input to a multiple of ``block_size`` first (the
    embeddings and layers see the padded length, the pooler reads the padded
    sequence's first token) and slices the sequence output back to L for the heads.
    Every class but question answering builds the pooler; where the head does not
    read it (MLM, causal LM, classification, token classification) it still runs:
    its FLOPs and saved tensors count, its backward does not.
    """
    c = inv.config
    sparse = runs_block_sparse(c, n)
    block, rand = 1, 1  # read only where block-sparse runs (full attention never reads them)
    if sparse:
        block, rand = coerce_int("block_size", c["block_size"]), coerce_int("num_random_blocks", c["num_random_blocks"])
    if sparse and block < 1:  # _pad_to_block_size: L % 0 divides by zero
        raise CalcError("costs_forward_fails", key="block_size", value=block)
    if sparse and rand < 1 and c["num_hidden_layers"] > 0:  # no random block: the kernel's cat of nothing fails
        raise CalcError("costs_forward_fails", key="num_random_blocks", value=rand)
    if sparse and sim.lower is not None and c["num_hidden_layers"] > 0:
        # Under bf16 autocast the context (times the float32 from_mask) is float32 and the probabilities bf16:
        # bigbird_block_sparse_attention's scatter_ of one into a matrix of the other's dtype raises (measured)
        raise CalcError("costs_forward_fails", key="mixed_precision", value="bf16")
    padded = n + (block - n % block) % block if sparse else n  # _pad_to_block_size
    if padded > c["max_position_embeddings"]:  # the position_ids buffer's slice is shorter than the padded input
        table, limit = c["max_position_embeddings"], sparse_limit(c)
        longest = table // block * block if table // block * block > limit else min(limit, table)
        raise CalcError("costs_block_padding", value=n, padded=padded, block=block, maximum=table, longest=longest)
    prefix = bert.step_prefix(inv)
    kind = bert.step_task(inv)
    if kind == "ForQuestionAnswering" and n > 1 and c["type_vocab_size"] < 2:
        raise CalcError("costs_qa_token_types", architecture=inv.architecture, value=c["type_vocab_size"])
    if not sparse:
        sim.exact_lifetimes()  # original_full: BERT's operations, each node modelled (calculator/costs/lifetime.py)
        sim.exact_forward()  # every name's release declared (step_full)
        sim.exact_autocast()  # under bf16 autocast too: BERT's layer (its Linears' copies, the promoting adds)
        return step_full(sim, inv, prefix, b, n)
    # Block-sparse attention (not question answering): every storage its forward makes is listed (the tape's, and as
    # constants those it does not keep: the masks' temporaries, the random plan's int32 and int64 copies, the
    # probability matrix and its indices, gelu_new's intermediates, a LayerNorm's statistics and a dropout's mask
    # nothing saves), so costs/peak.py's and costs/inference.py's bounds hold (tests/crosscheck/test_peak_engine.py:
    # test_big_bird_block_sparse_bounds). The random plan (numpy's, seeded per layer in training, zeros in eval)
    # decides which blocks are read, never a shape: the sizes are deterministic. A decoder runs the same block-sparse
    # forward (the causal mask is made for original_full only; no cache is written: measured, the same storages and
    # peak as the encoder's); question answering's inputs are made from the ids first (step_question_inputs).
    # Every release declared (BigBirdModel.forward's scope, the embeddings', each layer's: step_sparse_layer), so the
    # forward is replayed exactly, and in training the kernel's backward node by node (its blocks' SelectBackward0 and
    # slices' SliceBackward0 each a zero gradient of the whole blocked Q, K or V, the gathers' scatters, the in-place
    # ``+=`` on the middle context, the probability matrix's unreached graph holding its indices: saved_with), both
    # kinds of checkpointing too (the masks each layer takes by keyword kept by its frame or its partial).
    sim.exact_lifetimes()
    sim.exact_forward()
    if c["num_hidden_layers"] == 0:  # no kernel: under bf16 autocast only the pooler's and heads' Linears change
        sim.exact_autocast()  # (their bf16 copies, as full attention's); the masks stay float32 (measured)
    given = step_question_inputs(sim, b, n, listed=True)[0] if kind == "ForQuestionAnswering" else None
    model = sim.scope()  # BigBirdModel.forward
    ones = None
    if sparse:  # warn_if_padding_and_no_attention_mask's temporaries, then torch.ones((B, L))
        made = []
        for size, op in zip((16, 16 * b, 2 * b, 1), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any")):
            made.append(sim.constant((size,), 1, op))
            if len(made) == 2:
                sim.release(made[0])  # the special tokens' tensor, dropped once indexed
        sim.release(*made)  # the others, gone as it returns
        ones = sim.constant((b, n), 4, "aten.ones")
    x, padded_mask = step_embeddings(sim, prefix, b, padded, given, padded > n, sparse, ones)
    heads, act = c["num_attention_heads"], c["hidden_act"]
    # torch.ones((B, L)) in float32, padded: block-sparse's from_mask (a full-attention path: a constant, never read)
    mask = padded_mask or ones or sim.constant((b, padded), 4)
    if sparse:  # with no layers too: BigBirdModel.forward makes the masks whatever its encoder holds (measured)
        # create_masks_for_block_sparse_attn: the band mask, a cat of three float32 slices and an einsum (a mul)
        m4 = padded // block - 4
        pad = sim.constant((b, m4, 3 * block), 4, "aten.cat")
        band = sim.constant((b, m4, block, 3 * block), 4, "aten.mul")
        sim.release(pad)  # exp_blocked_to_pad, gone as create_band_mask_from_inputs returns
        # BigBirdEncoder passes band_mask and from/to/blocked masks (views of ``mask``) by keyword to each layer (none
        # without layers: nothing but BigBirdModel.forward's names keeps them)
        if sim.checkpointing and c["num_hidden_layers"]:
            for t in (band, mask):
                sim.layer_argument(t, counted=False)
    for i in range(c["num_hidden_layers"]):
        y = sim.layer(step_sparse_layer(prefix, i, heads, act, block, rand, mask), x)
        if i:  # BigBirdEncoder rebinds hidden_states (the embeddings' output keeps BigBirdModel's name)
            sim.release(x)
        x = y
    full = x
    seq = sim.slice_dim(x, 1, n) if padded > n else x  # sequence_output[:, :-padding_len] (SliceBackward0)

    def pool() -> T:
        dense = sim.linear(prefix + "pooler", sim.select(full, 1))
        return sim.rebind(dense, sim.keep_output(dense))  # nn.Tanh, before the unpad

    pooled = None
    if kind == "ForPreTraining" or (kind in ("", "ForQuestionAnswering") and inv.pooler):
        pooled = pool()
    elif kind not in ("", "ForQuestionAnswering"):
        pooled = sim.unused(pool)  # the head's class holds ``outputs`` until its forward returns
    sim.end_scope(model, seq, *([pooled] if pooled is not None else []))
    if kind == "":
        return [seq] + ([pooled] if pooled is not None else [])
    if kind == "ForPreTraining":
        assert pooled is not None
        return [step_mlm(sim, seq, act), sim.linear("cls.seq_relationship", pooled)]
    if kind == "ForQuestionAnswering":  # start and end logits, then the pooled output (a class given a pooler)
        return step_sparse_question_head(sim, seq, act) + ([pooled] if pooled is not None else [])
    if kind in ("ForMaskedLM", "ForCausalLM"):
        return [step_mlm(sim, seq, act)]
    if kind == "ForSequenceClassification":
        # BigBirdClassificationHead: the first token, dropout, dense, hidden_act, dropout, out_proj
        drop = sim.drops("classifier_dropout")
        first = sim.select(seq, 1)
        x = dropout(sim, first, drop)
        dense = sim.linear("classifier.dense", x)
        # an inactive dropout (p = 0, eval) returned ``features[:, 0, :]``, a view of what the caller still names
        x = dense if x.storage == first.storage else sim.rebind(x, dense)
        x = sim.rebind(x, activation(sim, act, x))
        x = sim.rebind(x, dropout(sim, x, drop))
        return [sim.rebind(x, sim.linear("classifier.out_proj", x))]
    if kind == "ForTokenClassification":
        return [linear_unpadded(sim, "classifier", dropout(sim, seq, sim.drops("classifier_dropout")))]
    raise AssertionError(inv.architecture)


def step_check(inv: Inventory) -> None:
    """Multiple choice wants [B, choices, L] inputs (not the step defined here)."""
    if inv.arch.task == Task.MULTIPLE_CHOICE:
        raise CalcError("costs_architecture", architecture=inv.architecture)


#: BigBirdConfig's defaults: ``hidden_act`` "gelu_new", hidden and attention dropout 0.1, ``classifier_dropout``
#: None (= hidden_dropout_prob).
KEYS = (activation_key("gelu_new"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"),
        classifier_dropout())
#: ``buffers``: BERT's two (``position_ids``, ``token_type_ids``); the peak is given only where the program opts in
#: (``original_full``, every class, a decoder too: :func:`step_full`); block-sparse attention's too, inference and
#: training (each node of the kernel's backward), either checkpointing, a decoder's and question answering's too.
COSTS = CostModel(step_program, bert.absolute_positions(), check=step_check, keys=KEYS, buffers=position_buffers,
                  autocast=True, reentrant=True)
#: The keys that shape no tensor but decide the attention a step runs: in the share link, so the panel costs
#: the config the count read (a pasted ``original_full`` or ``block_size: 32`` is not lost on the way).
EXTRAS = (value_extra("attention_type", "block_sparse"),
          *(value_extra(key, default) for key, default in SPARSE_DEFAULTS.items()))


def big_bird_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """A published BigBird config.json's size-relevant keys."""
    return {
        "model_type": "big_bird",
        "vocab_size": 50358,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": 4096,
        "type_vocab_size": 2,
        "use_bias": True,
        "attention_type": "block_sparse",
        "pad_token_id": 0,
    }


FAMILY = Family(
    model_type="big_bird",
    base="BigBirdModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    read=read,
    extras=EXTRAS,
    architectures=(
        Architecture(name="BigBirdModel", task=Task.MODEL, prefix="", pooler=None),
        Architecture(
            name="BigBirdForPreTraining", task=Task.PRETRAINING, prefix="bert.", pooler=True, head=bert.pretraining_head,
            ties_embeddings=True,
        ),
        Architecture(name="BigBirdForMaskedLM", task=Task.MASKED_LM, prefix="bert.", pooler=True, head=bert.mlm_head, ties_embeddings=True),
        Architecture(name="BigBirdForCausalLM", task=Task.CAUSAL_LM, prefix="bert.", pooler=True, head=bert.mlm_head, ties_embeddings=True),
        Architecture(
            name="BigBirdForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix="bert.", pooler=True,
            head=roberta.classification_head, uses_num_labels=True,
        ),
        Architecture(
            name="BigBirdForMultipleChoice", task=Task.MULTIPLE_CHOICE, prefix="bert.", pooler=True, head=bert.linear_head("classifier", 1),
        ),
        Architecture(
            name="BigBirdForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix="bert.", pooler=True,
            head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
        ),
        # add_pooling_layer defaults to False here (the calculator counts the class as AutoModel builds it)
        Architecture(name="BigBirdForQuestionAnswering", task=Task.QUESTION_ANSWERING, prefix="bert.", pooler=False, head=qa_head),
    ),
    title={"en": "BigBird", "zh": "BigBird"},
    formula=formula,
    presets=(Preset("google/bigbird-roberta-base", big_bird_config(768, 12, 12), "BigBirdForPreTraining"),),
    sample=sample,
    rank=26,
    costs=COSTS,
)
