"""Longformer (``modeling_longformer.py``): RoBERTa with a second set of Q, K, V for global attention.

* Embeddings and heads are RoBERTa's: ``position_embeddings`` is registered after
  the LayerNorm (so it comes last), and it takes ``padding_idx = pad_token_id``
  (default 1), so the padding row must exist in both the token and position tables.
* Every layer's ``LongformerSelfAttention`` has ``query``, ``key``, ``value`` for
  the sliding-window attention **and** ``query_global``, ``key_global``,
  ``value_global`` (each [H, H] with a bias) for the tokens given global
  attention: 3H² + 3H more per layer than BERT's layer. This is the only
  difference in the count.
* ``attention_window`` (512, or one value per layer) sizes the window, not a
  tensor; transformers asserts that it is even and positive, and that a list has
  one value per layer, so the calculator refuses the same configs.
* Every task class builds the backbone without its pooler, except multiple choice.

Training step (issue 25): the input is padded to a multiple of the largest window,
so the layers' cost is that of the padded length; with input_ids alone no token has
global attention, except in sequence classification, which gives it to the first
token itself (the global projections then run). Question answering finds its global
tokens from the separators in the ids: its cost depends on the tokens, and is refused.

Peak (issue 32/34): LongformerModel, ForMaskedLM, ForTokenClassification and ForSequenceClassification (its first
token's global attention: the gathers, index_put_ and the empty fills' CopySlices) replay the step op by op (the
inference span's forward, every node of the backward as measured: :func:`_train_attention`), checkpointed or not;
LoRA on a strided Linear (B > 1: the transposed hidden states, the unpadded slice) too, in float32, bf16 and under
autocast: peft's base layer on ``at::linear``'s matmul path, the adapters folding the input (a copy kept by
``lora_A``'s node; ``x.to(float32)`` keeping a dense view's strides in a bf16 model), as
:meth:`~calculator.costs.lifetime.LiveSim.linear` models it (measured: 36 drawn LoRA steps at B 2-4, every target,
both checkpointings, each phase's maximum LiveBytes'; the drawn cross-checks reach it in all three).
Under bf16 autocast (weights float32) the same replay holds: the projections' bf16 outputs make the scores, chunks,
pads, tables and masks bf16 (``type_as(query_vectors)``, ``type_as(attn_scores)``), the softmax float32 between, and
a strided ``nn.Linear`` casts its bias, weight and input first (:meth:`~calculator.costs.lifetime.LiveSim.
linear_strided`); measured with LiveBytes (test_peak_engine's and test_inference_engine's autocast draws).
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Callable, Mapping

from ..config import MAX_SIZE, read_fields
from ..costs import CostModel, Sim, T, activation_key, dropouts, is_contiguous, no_buffers
from ..costs.tensor import dense_strides_like
from ..errors import CalcError
from ..formula import Formula, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, roberta
from .base import Extra, Family, Preset, Task
from .common import BERT_FIELDS, heads_divide

FIELDS = BERT_FIELDS

#: ``LongformerConfig.attention_window``.
ATTENTION_WINDOW = 512


def _window_ok(value: Any) -> bool:
    """One window size as transformers accepts it: an int (not a bool), even, positive."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0 and value % 2 == 0


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and ``attention_window``, which shapes no tensor but can make the model refuse to build.

    ``LongformerModel`` asserts an int window is even and positive, and that a list has
    one even, positive int per layer; the config's type check refuses anything else
    (a float, a string, null).
    """
    values = read_fields(FIELDS, raw, {})
    window = raw.get("attention_window", ATTENTION_WINDOW)
    if isinstance(window, list):
        good = len(window) == values["num_hidden_layers"] and all(_window_ok(w) for w in window)
    else:
        good = _window_ok(window)
    if not good:
        raise CalcError("bad_value", key="attention_window", value=window)
    widest = max(window) if isinstance(window, list) and window else window
    if isinstance(widest, int) and widest > MAX_SIZE:
        # A window pads every input up to a multiple of itself: bounded as any other size.
        raise CalcError("too_large", key="attention_window", value=widest, maximum=MAX_SIZE)
    values["attention_window"] = window  # shapes no tensor; the training step's attention depends on it
    return values


def encoder(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``LongformerLayer``: BERT's layer, with the three global projections after the local ones."""
    h, inter = c["hidden_size"], c["intermediate_size"]
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}encoder.layer.{i}."
        for proj in ("query", "key", "value", "query_global", "key_global", "value_global"):
            t.linear(p + "attention.self." + proj, h, h, "attention_qkv", i)
        t.linear(p + "attention.output.dense", h, h, "attention_output", i)
        t.layer_norm(p + "attention.output.LayerNorm", h, layer=i)
        t.linear(p + "intermediate.dense", inter, h, "feed_forward", i)
        t.linear(p + "output.dense", h, inter, "feed_forward", i)
        t.layer_norm(p + "output.LayerNorm", h, layer=i)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    encoder(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


def layer_terms(h: int, i: int) -> tuple[str, str, int]:
    """BERT's layer, plus 3H² + 3H for query_global, key_global and value_global (each [H, H] with a bias)."""
    symbolic = "4H² + 4H + 3H² + 3H + 2HI + I + H + 4H"
    substituted = f"4·{h}² + 4·{h} + 3·{h}² + 3·{h} + 2·{h}·{i} + {i} + {h} + 4·{h}"
    return symbolic, substituted, 7 * h * h + 7 * h + 2 * h * i + i + h + 4 * h


def formula(inv: Inventory) -> Formula:
    """RoBERTa's count, each layer with 3H² + 3H more for the global-attention projections."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    lines = [bert.embeddings_line(v, p, t, h), *layers_lines(*layer_terms(h, i), n)]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Valid heads; now and then a window per layer, and now and then one transformers refuses."""
    heads_divide()(rng, config)
    roll = rng.random()
    layers = config.get("num_hidden_layers", 12)
    if roll < 0.2:
        config["attention_window"] = [2 * rng.randint(1, 8) for _ in range(layers)]
    elif roll < 0.3:
        config["attention_window"] = 2 * rng.randint(1, 300)
    elif roll < 0.35:
        config["attention_window"] = rng.choice([3, 0, [2] * (layers + 1)])  # refused on both sides


# --------------------------------------------------------------- training step


def windows(c: Mapping[str, Any]) -> list[int]:
    """Each layer's ``attention_window`` (``LongformerModel`` turns an int into one value per layer)."""
    w = c.get("attention_window", ATTENTION_WINDOW)
    return list(w) if isinstance(w, list) else [w] * c["num_hidden_layers"]


def padded_length(c: Mapping[str, Any], n: int) -> int:
    """``_pad_to_window_size``: L padded up to a multiple of the largest window (the layers see this length)."""
    ws = windows(c)
    if not ws:
        return n
    w = max(ws)
    return n + (w - n % w) % w


def step_self_attention(sim: Sim, p: str, x: T, heads: int, window: int, masked: T, global_attention: bool) -> T:
    """``LongformerSelfAttention``; ``global_attention``: one global token a row (sequence classification's first).

    Shapes: x [B, Lp, H]; w = window / 2 (``one_sided_attn_window_size``); d = H / heads.
    The projections read x transposed to [Lp, B, H] (a ``matmul`` that copies it,
    unless B is 1); Q·Kᵀ is an ``einsum`` over overlapping chunks of 2w tokens
    (``bmm`` of [B·heads·(Lp/w − 1), 2w, d] by [.., d, 2w], both copied from the
    ``as_strided`` chunks), rearranged into [B, Lp, heads, 2w + 1] diagonals, with
    ``_mask_invalid_locations`` keeping two bool conditions of [B, w, heads, w + 1]
    (``where``); the padding mask's own sliding product has a contraction of size 1,
    which ``einsum`` does as a broadcasting ``mul`` (no FLOPs), as Q·Kᵀ itself when
    d is 1. Softmax in float32 keeps its output, ``masked_fill`` the [B, Lp] bool
    mask, dropout its mask; the product with V is a second ``einsum`` of the padded,
    diagonalised probabilities [.., w, 3w] by V in chunks of 3w ([.., 3w, d], copied).

    Global attention adds a column (every token's score against the global key),
    the global value times that column, and :func:`global_from_hidden`; the index
    tensors of ``nonzero`` ([B, 2] int64, twice) are kept by the gathers and scatters.
    """
    b, lp, h = x.shape
    d = h // heads
    bh = b * heads
    w = window // 2
    hs = sim.transpose(x, 0, 1)
    s = p + "attention.self."

    def split(t: T) -> T:  # [Lp, B, H] -> [B, Lp, heads, d]
        return sim.transpose(sim.view(t, (lp, b, heads, d)), 0, 1)

    def chunk(t: T) -> T:  # _chunk: [B·heads, Lp, d] -> overlapping [B·heads, Lp/w − 1, 2w, d]
        t = sim.view(t, (bh, lp // (2 * w), 2 * w, d))
        return sim.as_strided(t, (bh, lp // w - 1, 2 * w, d), (t.strides[0], t.strides[1] // 2, *t.strides[2:]))

    q = split(sim.linear(s + "query", hs))  # then /= sqrt(d), in place
    k = split(sim.linear(s + "key", hs))
    v = split(sim.linear(s + "value", hs))
    qc = chunk(sim.reshape(sim.transpose(q, 1, 2), (bh, lp, d)))
    kc = chunk(sim.reshape(sim.transpose(k, 1, 2), (bh, lp, d)))
    chunks = lp // w - 1
    if d == 1:  # einsum turns a contraction of size 1 into a broadcasting mul (no bmm, no FLOPs)
        scores = sim.mul(qc, kc, (bh, chunks, 2 * w, 2 * w))
    else:
        scores = sim.bmm(qc, sim.transpose(kc, 2, 3))  # einsum bcxd,bcyd->bcxy
    scores = sim.view(sim.pad(scores, (bh, chunks, 2 * w + 1, 2 * w)), (bh, chunks, 2 * w, 2 * w + 1))
    diagonal = sim.new((bh, chunks + 1, w, 2 * w + 1), scores.grad, scores.itemsize)  # new_zeros, filled by slices
    diagonal = sim.transpose(sim.view(diagonal, (b, heads, lp, 2 * w + 1)), 2, 1)
    sim.save_if(sim.mask((b, w, heads, w + 1)), diagonal.grad)  # _mask_invalid_locations: where(), twice
    sim.save_if(sim.mask((b, w, heads, w + 1)), diagonal.grad)
    if global_attention:
        # _get_global_attn_indices: nonzero(as_tuple=True) of [B, Lp] (one global token a row: [B, 2] int64)
        # and of [B, 1] (where each sits among the row's globals); the indexing below keeps them
        index_global, index_local = sim.new((b, 2), False, 8), sim.new((b, 2), False, 8)
        # _concat_with_global_key_attn_probs: the global keys gathered into zeros [B, 1, heads, d], then
        # einsum blhd,bshd->blhs: bmm of Q [B·heads, Lp, d] by [B·heads, d, 1] (a mul when d is 1)
        sim.save_if(index_global, k.grad)
        sim.save_if(index_local, k.grad)
        key_global = sim.new((b, 1, heads, d), k.grad, k.itemsize)
        qp = sim.permute(q, (0, 2, 1, 3))
        kp = sim.permute(key_global, (0, 2, 3, 1))
        if d == 1:
            from_global = sim.mul(qp, kp, (b, heads, lp, 1))
        else:
            from_global = sim.bmm(qp, kp)
        diagonal = sim.new((b, lp, heads, 2 * w + 2), diagonal.grad or from_global.grad, diagonal.itemsize)  # cat
    probs = sim.softmax_float32(diagonal)  # += the padding mask's diagonals first (in place)
    sim.save_if(masked, probs.grad)  # masked_fill(is_index_masked)
    probs = sim.new(probs.shape, probs.grad, probs.itemsize)  # masked_fill's output
    if probs.itemsize != diagonal.itemsize:  # type_as(attn_scores): bf16 under autocast too
        probs = sim.new(probs.shape, probs.grad, diagonal.itemsize)
    probs = sim.dropout(probs, sim.drops("attention_probs_dropout_prob"))
    if global_attention:
        # _compute_attn_output_with_global_indices: the global column times the global values (matmul of
        # clones, [B·heads, Lp, 1] by [B·heads, 1, d]), plus the sliding product of the other columns (a copy)
        sim.save_if(index_global, v.grad)
        sim.save_if(index_local, v.grad)
        value_global = sim.new((b, heads, 1, d), v.grad, v.itemsize)  # zeros, filled, transposed, cloned
        column = sim.new((b, heads, lp, 1), probs.grad, probs.itemsize)  # narrow(-1, 0, 1).transpose(1, 2).clone()
        only_global = sim.bmm(column, value_global)
        rest = sim.new((b, lp, heads, 2 * w + 1), probs.grad, probs.itemsize)  # narrow(-1, 1, 2w + 1).contiguous()
        local = sliding_values(sim, rest, v, w)
        total = sim.new((b, heads, lp, d), only_global.grad or local.grad, local.itemsize)  # the sum
        context = sim.transpose(total, 1, 2)
    else:
        context = sliding_values(sim, probs, v, w)
    out = sim.contiguous(sim.reshape(sim.transpose(context, 0, 1), (lp, b, h)))
    if global_attention:
        out = global_from_hidden(sim, s, hs, heads, masked, index_global, index_local, out)
        sim.save_if(index_global, probs.grad)  # attn_probs[is_index_global_attn_nonzero] = 0, in place
    return sim.transpose(out, 0, 1)


def sliding_values(sim: Sim, probs: T, v: T, w: int) -> T:
    """``_sliding_chunks_matmul_attn_probs_value``: probabilities [B, Lp, heads, 2w + 1] times V [B, Lp, heads, d]."""
    b, lp, heads, d = v.shape
    bh, blocks = b * heads, lp // w
    cp = sim.reshape(sim.transpose(probs, 1, 2), (bh, blocks, w, 2 * w + 1))
    vv = sim.reshape(sim.transpose(v, 1, 2), (bh, lp, d))
    padded = sim.pad(vv, (bh, lp + 2 * w, d))
    st = padded.strides
    cv = sim.as_strided(padded, (bh, blocks, 3 * w, d), (st[0], w * st[1], st[1], st[2]))
    diag = sim.pad(cp, (bh, blocks, w, 3 * w + 2))  # _pad_and_diagonalize
    diag = sim.narrow(sim.view(diag, (bh, blocks, w * (3 * w + 2))), 2, w * (3 * w + 1))
    diag = sim.narrow(sim.view(diag, (bh, blocks, w, 3 * w + 1)), 3, 3 * w)
    context = sim.bmm(diag, cv)  # einsum bcwd,bcdh->bcwh
    return sim.transpose(sim.view(context, (b, heads, lp, d)), 1, 2)


def global_from_hidden(sim: Sim, s: str, hs: T, heads: int, masked: T, index_global: T, index_local: T,
                       out: T) -> T:
    """``_compute_global_attn_output_from_hidden``, then its rows written into the output ([Lp, B, H], in place).

    The global token's hidden state is gathered into zeros [1, B, H] for ``query_global``;
    ``key_global`` and ``value_global`` read all of hs (copies, as the local
    projections); two ``bmm`` ([B·heads, 1, d] by [.., d, Lp], then by [.., Lp, d]) with a
    float32 softmax, the padding ``masked_fill`` and dropout between them.
    """
    lp, b, h = hs.shape
    d = h // heads
    bh = b * heads
    sim.save_if(index_global, hs.grad)
    sim.save_if(index_local, hs.grad)
    gathered = sim.new((1, b, h), hs.grad)
    gq = sim.linear(s + "query_global", gathered)  # then /= sqrt(d), in place
    gk = sim.linear(s + "key_global", hs)
    gv = sim.linear(s + "value_global", hs)
    gq = sim.transpose(sim.view(gq, (1, bh, d)), 0, 1)
    gk = sim.transpose(sim.view(gk, (lp, bh, d)), 0, 1)
    gv = sim.transpose(sim.view(gv, (lp, bh, d)), 0, 1)
    scores = sim.bmm(gq, sim.transpose(gk, 1, 2))
    sim.save_if(masked, scores.grad)  # masked_fill(is_index_masked[:, None, None, :])
    scores = sim.new(scores.shape, scores.grad, scores.itemsize)
    probs = sim.softmax_float32(scores)
    if probs.itemsize != scores.itemsize:
        probs = sim.new(probs.shape, probs.grad, scores.itemsize)  # type_as
    result = sim.bmm(sim.dropout(probs, sim.drops("attention_probs_dropout_prob")), gv)  # [B·heads, 1, d]
    sim.save_if(index_local, result.grad)  # global_attn_output[is_local_index_global_attn_nonzero ...]
    sim.save_if(index_global, out.grad or result.grad)  # attn_output[is_index_global_attn_nonzero[::-1]] = ...
    return T(out.shape, out.strides, out.storage, out.grad or result.grad, out.itemsize)


def step_layer(p: str, heads: int, window: int, masked: T, act: str, global_attention: bool) -> Any:
    """One ``LongformerLayer``: the sliding-window attention, then BERT's output, feed-forward (hidden_act), norms."""

    def run(sim: Sim, x: T) -> T:
        context = step_self_attention(sim, p, x, heads, window, masked, global_attention)
        hidden = sim.drops("hidden_dropout_prob")
        out = sim.dropout(sim.linear(p + "attention.output.dense", context), hidden)
        attended = sim.layer_norm(p + "attention.output.LayerNorm", sim.add(out, x))
        inner = sim.activation(act, sim.linear(p + "intermediate.dense", attended))
        out = sim.dropout(sim.linear(p + "output.dense", inner), hidden)
        return sim.layer_norm(p + "output.LayerNorm", sim.add(out, attended))

    return run


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """Longformer's classes: LongformerModel, ForMaskedLM and ForTokenClassification with sliding-window
    attention only (no token has global attention from input_ids alone), ForSequenceClassification with
    global attention on the first token (the class sets it itself).

    The input is padded to Lp (a multiple of the largest window; the padding
    tokens' ids, positions and types are new [B, Lp] tensors, and the layers run
    on all Lp); the encoder's output is sliced back to L (a view) for the heads.
    """
    c = inv.config
    ws = windows(c)
    lp = padded_length(c, n)
    for i, w in enumerate(ws):
        if w == 2:  # window_overlap 1: `[..., 1 - window_overlap:]` is the whole row, and the copy fails
            raise CalcError("costs_longformer_small_window", layer=i)
        if lp % w:
            raise CalcError("costs_longformer_window", layer=i, window=w, padded=lp, largest=max(ws), value=n)
    kind = bert.step_task(inv)
    classify = kind == Task.SEQUENCE_CLASSIFICATION  # global attention on the first token, set by the class
    if kind == Task.QUESTION_ANSWERING:
        raise CalcError("costs_data_dependent", architecture=inv.architecture)
    if not sim.grad_mode and kind in SPAN_HEADS:
        sim.exact_lifetimes()  # the inference span: no graph, every storage's release declared (step_inference)
        sim.exact_forward()
        sim.exact_autocast()  # autocast's copies and bf16 results too
        return step_inference(sim, inv, b, n)
    if kind in TRAIN_HEADS and _replayed(sim):
        sim.exact_lifetimes()  # every node of the training step modelled (the local attention's: _train_attention)
        sim.exact_forward()
        sim.exact_autocast()
        return step_inference(sim, inv, b, n, training=True)
    prefix = bert.step_prefix(inv)
    x = bert.step_embeddings(sim, inv, prefix, b, lp, positions_from_ids=True)
    masked = sim.mask((b, lp))  # is_index_masked = attention_mask < 0
    heads = c["num_attention_heads"]
    for i, w in enumerate(ws):
        x = sim.layer(step_layer(f"{prefix}encoder.layer.{i}.", heads, w, masked, c["hidden_act"], classify), x)
    seq = sim.narrow(x, 1, n)
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None  # the bare model's (no task class pools)
    return bert.run_head(LONGFORMER_HEADS, sim, inv, seq, pooled, "hidden_dropout_prob")  # no classifier_dropout


def _replayed(sim: Sim) -> bool:
    """The lifetime simulator (its nodes are the training step's graph); the plain tape runs
    :func:`step_self_attention`."""
    from ..costs.lifetime import LiveSim

    return isinstance(sim, LiveSim)


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``LongformerLMHead`` (RoBERTa's, its GELU fixed) under ``lm_head``."""
    return [bert.step_mlm(sim, "lm_head", seq)]


def classification_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``LongformerClassificationHead``: the first token, dropout, dense, tanh, dropout, out_proj."""
    hidden = sim.drops(dropout_key)
    x = sim.dropout(sim.keep_output(sim.linear("classifier.dense", sim.dropout(sim.select(seq, 1), hidden))), hidden)
    return [sim.linear("classifier.out_proj", x)]


#: Longformer's classes, by task: RoBERTa's heads (tensors), with the forwards of the training step defined here
#: (the classification head's first token has global attention, set by the class: :func:`step_program`). Multiple
#: choice and question answering (its global attention depends on the data) are refused before the head runs.
LONGFORMER_HEADS: dict[str, bert.Head] = {
    **roberta.ROBERTA_HEADS,
    Task.MASKED_LM: replace(roberta.ROBERTA_HEADS[Task.MASKED_LM], step=mlm_step),
    Task.SEQUENCE_CLASSIFICATION: replace(roberta.ROBERTA_HEADS[Task.SEQUENCE_CLASSIFICATION],
                                          step=classification_step),
    Task.QUESTION_ANSWERING: replace(roberta.ROBERTA_HEADS[Task.QUESTION_ANSWERING], step=None),
}


# ------------------------------------------------- the inference span, replayed tensor by tensor (issue 32)
#
# Under ``torch.no_grad()`` nothing is saved, so the peak is the forward's live storages alone: each one below is made
# where ``modeling_longformer.py`` (transformers 5.23) makes it and released where its Python drops the last name
# (measured op by op with LiveBytes, tests/crosscheck/test_inference_engine.py). The training step of the classes
# replays the same forward with its autograd nodes (``step_inference(..., training=True)``, the sections at the end of
# this file).


def _fresh(sim: Sim, shape: tuple[int, ...], aten: str, itemsize: int | None = None) -> T:
    """A new tensor no gradient reaches, named by the aten operation that makes it."""
    return sim.fresh(shape, aten, itemsize)


def _number(sim: Sim, aten: str) -> T:
    """A 0-dim int64 tensor (``torch.div(seq_len, w, rounding_mode="trunc")``, ``chunks_count + 1``): 8 bytes."""
    return sim.fresh((), aten, 8)


def _linear_any(sim: Sim, module: str, x: T) -> T:
    """``nn.Linear`` as ``F.linear`` runs it: a contiguous input (B = 1 for the transposed [Lp, B, H]) is ``addmm`` on
    its view; a strided one is ``matmul`` (the input copied to [N, in], ``mm``) then ``+ bias`` (a new tensor), the copy
    gone as ``matmul`` returns, the product once the sum is made."""
    if is_contiguous(x) or module in sim.lora:
        return sim.linear(module, x)
    if sim.lower is not None:  # autocast's linear: the bias's, weight's and input's copies, then the same path
        return sim.linear_strided(module, x)
    with sim._in(module):
        info = sim.linear_info(module)
        flat = sim.reshape(x, (-1, info.in_features))
        m = flat.shape[0]
        product = sim.made_by(sim.mm(flat, info.weight_trains, m, info.in_features, info.out_features,
                                     (*x.shape[:-1], info.out_features), False), "aten.mm")
        if flat.storage != x.storage:
            sim.release(flat)
        if not info.bias:
            return product
        out = _fresh(sim, product.shape, "aten.add")
        sim.release(product)
        return out


def _chunks_count(sim: Sim) -> T:
    """``chunks_count = torch.div(seq_len, window_overlap, rounding_mode="trunc") - 1``: two 0-dim numbers, the
    quotient a temporary."""
    t = _number(sim, "aten.div")
    count = _number(sim, "aten.sub")
    sim.release(t)
    return count


def _invalid_mask_tables(sim: Sim, w: int, size: int) -> None:
    """``_mask_invalid_locations``' two [w, w + 1] tables: ``new_ones(...).tril().flip(...)`` (the ones and the lower
    triangle temporaries) and its flip, both named until the function returns; ``size``: the scores' bytes a number
    (``new_ones`` takes their dtype: bf16 under autocast)."""
    ones = _fresh(sim, (w, w + 1), "aten.new_ones", size)
    lower = _fresh(sim, (w, w + 1), "aten.tril", size)
    sim.release(ones)
    _fresh(sim, (w, w + 1), "aten.flip", size)
    sim.release(lower)
    _fresh(sim, (w, w + 1), "aten.flip", size)


def _sliding_scores(sim: Sim, q: T, k: T, w: int) -> T:
    """``_sliding_chunks_query_key_matmul`` then ``_mask_invalid_locations``, q and k [B, Lp, A, d]: the scores in the
    ``new_zeros`` [B·A, Lp/w, w, 2w + 1] the chunks are copied into, seen as [B, Lp, A, 2w + 1]."""
    b, lp, heads, d = q.shape
    bh, chunks = b * heads, lp // w - 1
    mark = sim.scope()
    count = _chunks_count(sim)  # named until the return

    def chunk(x: T) -> T:  # _chunk: a view, then as_strided; torch.div(...) a temporary of the call
        flat = sim.reshape(sim.transpose(x, 1, 2), (bh, lp, d))
        sim.release(_number(sim, "aten.div"))
        v = sim.view(flat, (bh, lp // (2 * w), 2 * w, d))
        return sim.as_strided(v, (bh, chunks, 2 * w, d), (v.strides[0], v.strides[1] // 2, *v.strides[2:]))

    qc, kc = chunk(q), chunk(k)
    if d == 1:  # einsum with a contraction of size 1: a broadcasting mul
        scores = sim.made_by(sim.mul(qc, kc, (bh, chunks, 2 * w, 2 * w)), "aten.mul")
    else:  # einsum bcxd,bcyd->bcxy: both chunked operands copied, one bmm
        scores = sim.bmm(qc, sim.transpose(kc, 2, 3))
    size = scores.itemsize  # the product's (bf16 under autocast): the pad, the zeros and the tables take it
    _fresh(sim, (bh, chunks, 2 * w + 1, 2 * w), "aten.constant_pad_nd", size)  # the padded chunks, to the return
    sim.release(scores)
    t = _number(sim, "aten.add")
    out = _fresh(sim, (bh, chunks + 1, w, 2 * w + 1), "aten.new_zeros", size)
    sim.release(t)
    # _mask_invalid_locations: new_ones(w, w + 1).tril().flip(), its flip; each end's full_like, .bool(), where
    _invalid_mask_tables(sim, w, size)
    for _ in range(2):
        full = _fresh(sim, (b, w, heads, w + 1), "aten.full_like", size)
        cond = _fresh(sim, (b, w, heads, w + 1), "aten._to_copy", 1)
        sim.release(full, cond, _fresh(sim, (b, w, heads, w + 1), "aten.where", size))
    sim.release(count)
    sim.end_scope(mark, out)
    seen = sim.view(out, (b, heads, lp, 2 * w + 1))
    return sim.transpose(seen, 2, 1)


def _chunked(sim: Sim, probs: T, v: T, w: int) -> tuple[T, T]:
    """The start ``_sliding_chunks_matmul_attn_probs_value`` has with or without gradients: ``chunks_count``'s
    numbers, the probabilities chunked to [B·A, Lp / w, w, 2w + 1] and V to [B·A, Lp, d]."""
    b, lp, heads, d = v.shape
    bh, blocks = b * heads, lp // w
    _chunks_count(sim)
    t = _number(sim, "aten.div")
    cp = sim.reshape(sim.transpose(probs, 1, 2), (bh, blocks, w, 2 * w + 1))
    sim.release(t)
    return cp, sim.reshape(sim.transpose(v, 1, 2), (bh, lp, d))


def _sliding_context(sim: Sim, probs: T, v: T, w: int) -> T:
    """``_sliding_chunks_matmul_attn_probs_value``: probabilities [B, Lp, A, 2w + 1] by V [B, Lp, A, d]."""
    b, lp, heads, d = v.shape
    bh, blocks = b * heads, lp // w
    mark = sim.scope()
    cp, vv = _chunked(sim, probs, v, w)
    padded = _fresh(sim, (bh, lp + 2 * w, d), "aten.constant_pad_nd", v.itemsize)
    _number(sim, "aten.add")  # chunks_count + 1, held by the size tuple
    st = padded.strides
    cv = sim.as_strided(padded, (bh, blocks, 3 * w, d), (st[0], w * st[1], st[1], st[2]))
    diag = _fresh(sim, (bh, blocks, w, 3 * w + 2), "aten.constant_pad_nd", probs.itemsize)  # _pad_and_diagonalize
    if cp.storage != probs.storage:
        sim.release(cp)
    del vv
    diag = sim.narrow(sim.view(diag, (bh, blocks, w * (3 * w + 2))), 2, w * (3 * w + 1))
    diag = sim.narrow(sim.view(diag, (bh, blocks, w, 3 * w + 1)), 3, 3 * w)
    context = sim.end_scope(mark, sim.bmm(diag, cv))  # einsum bcwd,bcdh->bcwh
    return sim.transpose(sim.view(context, (b, heads, lp, d)), 1, 2)


def _global_indices(sim: Sim, b: int, lp: int) -> tuple[T, T]:
    """``_get_global_attn_indices`` with one global token a row (sequence classification's first): the int64 copy and
    its row sums (gone as it returns), the 0-dim maximum and two ``nonzero`` [B, 2] int64 (kept to the self-attention's
    end), ``arange(1) < sums`` [B, 1] and its ``== 0`` (whose ``nonzero`` is empty: no storage)."""
    mark = sim.scope()
    wide = _fresh(sim, (b, lp), "aten._to_copy", 8)
    _fresh(sim, (b,), "aten.sum", 8)
    sim.release(wide)
    largest = _fresh(sim, (), "aten.max", 8)
    where = _fresh(sim, (b, 2), "aten.nonzero", 8)
    counter = _fresh(sim, (1,), "aten.arange", 8)
    _fresh(sim, (b, 1), "aten.lt", 1)
    sim.release(counter)
    local = _fresh(sim, (b, 2), "aten.nonzero", 8)
    sim.release(_fresh(sim, (b, 1), "aten.eq", 1))
    sim.end_scope(mark, largest, where, local)
    return where, local


def _global_key_scores(sim: Sim, q: T, heads: int) -> T:
    """``_concat_with_global_key_attn_probs``: the global keys gathered into zeros [B, 1, A, d] (the gather a
    temporary), ``einsum("blhd,bshd->blhs")`` (a ``bmm`` on views; a broadcasting ``mul`` when d is 1), the
    empty rows' fill (its 0-dim value a temporary): the scores against the global key, [B, Lp, A, 1]."""
    b, lp, _, d = q.shape
    size = q.itemsize  # the projections' (bf16 under autocast): the keys' zeros, their gather and the fill's value
    mark = sim.scope()
    only = _fresh(sim, (b, 1, heads, d), "aten.new_zeros", size)
    sim.release(_fresh(sim, (b, heads, d), "aten.index", size))
    qp = sim.permute(q, (0, 2, 1, 3))
    kp = sim.permute(only, (0, 2, 3, 1))
    if d == 1:
        scores = sim.made_by(sim.mul(qp, kp, (b, heads, lp, 1)), "aten.mul")
    else:
        scores = sim.bmm(qp, kp)
    sim.release(_fresh(sim, (), "aten.lift_fresh", size))
    return sim.end_scope(mark, sim.permute(scores, (0, 2, 1, 3)))


def _global_context(sim: Sim, probs: T, v: T, w: int) -> T:
    """``_compute_attn_output_with_global_indices``: the global column times the global values (``matmul`` of two
    clones, which keep their strides: the column's is copied again by matmul's reshape unless A is 1), the other
    columns made contiguous (a clone) for the sliding product, and the sum, laid out as its operands ([B, A, Lp, d])."""
    b, lp, heads, d = v.shape
    size = v.itemsize  # the values' (bf16 under autocast): their zeros, gather, clone and the sum
    mark = sim.scope()
    only = _fresh(sim, (b, 1, heads, d), "aten.new_zeros", size)
    sim.release(_fresh(sim, (b, heads, d), "aten.index", size))
    column = sim.transpose(_fresh(sim, (b, lp, heads, 1), "aten.clone", probs.itemsize), 1, 2)
    values = sim.transpose(_fresh(sim, (b, 1, heads, d), "aten.clone", size), 1, 2)
    only_global = sim.bmm(column, values)
    sim.release(column, values)
    sim.release(_fresh(sim, (), "aten.rsub", 8))  # attn_probs.size(-1) - max_num_global_attn_indices
    rest = _fresh(sim, (b, lp, heads, 2 * w + 1), "aten.clone", probs.itemsize)
    local = _sliding_context(sim, rest, v, w)
    total = _fresh(sim, (b, heads, lp, d), "aten.add", size)
    del only, only_global, local
    return sim.end_scope(mark, sim.transpose(total, 1, 2))


def _global_from_hidden(sim: Sim, s: str, hs: T, heads: int) -> None:
    """``_compute_global_attn_output_from_hidden`` under no_grad, then the self-attention's use of its result: the
    global rows gathered into zeros [1, B, H], ``query_global`` on them, ``key_global`` and ``value_global`` on hs, two
    ``bmm`` (each followed by its size assertion, which compares with the 0-dim count: a bool temporary), the empty
    rows' fill, ``masked_fill``, the float32 softmax (its input cast first, its output cast back, in bf16); the output
    [B·A, 1, d] and the probabilities are returned, the rest is gone; then the output's rows are gathered (kept to
    the self-attention's end) and written into the context in place, and the probabilities' global rows zeroed."""
    lp, b, h = hs.shape
    d, bh = h // heads, b * heads
    mark = sim.scope()
    gathered = _fresh(sim, (1, b, h), "aten.new_zeros")
    sim.release(_fresh(sim, (b, h), "aten.index"))
    gq = _linear_any(sim, s + "query_global", gathered)  # then /= sqrt(d), in place
    gk = _linear_any(sim, s + "key_global", hs)
    gv = _linear_any(sim, s + "value_global", hs)
    gq = sim.transpose(sim.view(gq, (1, bh, d)), 0, 1)
    gk = sim.transpose(sim.view(gk, (lp, bh, d)), 0, 1)
    gv = sim.transpose(sim.view(gv, (lp, bh, d)), 0, 1)
    scores = sim.bmm(gq, sim.transpose(gk, 1, 2))
    size = scores.itemsize  # the products' (bf16 under autocast, or in bf16)
    sim.release(_fresh(sim, (), "aten.eq", 1))
    sim.release(_fresh(sim, (), "aten.lift_fresh", size))
    filled = _fresh(sim, (bh, 1, lp), "aten.masked_fill", size)
    sim.release(scores)
    wide = _fresh(sim, filled.shape, "aten._to_copy", 4) if size != 4 else None
    probs = _fresh(sim, filled.shape, "aten._softmax", 4)
    if wide is not None:
        sim.release(wide)
    kept = _fresh(sim, filled.shape, "aten._to_copy", size) if size != 4 else probs  # type_as
    out = sim.bmm(kept, gv)
    sim.release(_fresh(sim, (), "aten.eq", 1))
    sim.end_scope(mark, out, kept)
    _fresh(sim, (b, heads, d), "aten.index", size)  # nonzero_global_attn_output
    sim.release(_fresh(sim, (), "aten.lift_fresh", size))  # attn_probs[is_index_global_attn_nonzero] = 0


def _inference_attention(sim: Sim, p: str, x: T, heads: int, window: int, masked: T, mask: T,
                         global_attention: bool = False) -> T:
    """``LongformerAttention`` under no_grad: the self-attention, then its output. ``global_attention``: one global
    token a row (sequence classification's first), as measured with LiveBytes."""
    b, lp, h = x.shape
    d, w = h // heads, window // 2
    s = p + "attention.self."
    mark = sim.scope()
    own = sim.scope()  # LongformerSelfAttention.forward: its locals go as it returns, before the output's dense
    hs = sim.transpose(x, 0, 1)
    q = _linear_any(sim, s + "query", hs)  # then /= sqrt(d), in place
    k = _linear_any(sim, s + "key", hs)
    v = _linear_any(sim, s + "value", hs)

    def split(t: T) -> T:
        return sim.transpose(sim.view(t, (lp, b, heads, d)), 0, 1)

    scores = _sliding_scores(sim, split(q), split(k), w)
    _diagonal_mask(sim, b, lp, w, q.itemsize)
    # attn_scores += diagonal_mask: in place
    shape: tuple[int, ...] = (b, lp, heads, 2 * w + 1)
    if global_attention:
        _global_indices(sim, b, lp)
        from_global = _global_key_scores(sim, split(q), heads)
        joined = _fresh(sim, (b, lp, heads, 2 * w + 2), "aten.cat", q.itemsize)  # torch.cat((global, local), -1)
        sim.release(from_global, scores)
        scores, shape = joined, joined.shape
    narrow = scores.itemsize != 4  # bf16 scores (the model's dtype, or autocast's products)
    wide = _fresh(sim, shape, "aten._to_copy", 4) if narrow else None
    probs = _fresh(sim, shape, "aten._softmax", 4)
    if wide is not None:
        sim.release(wide)
    filled = _fresh(sim, shape, "aten.masked_fill", 4)
    sim.release(probs)
    if narrow:  # type_as(attn_scores)
        cast = _fresh(sim, shape, "aten._to_copy", scores.itemsize)
        sim.release(filled)
        filled = cast
    sim.release(scores)  # del attn_scores
    if global_attention:
        context = _global_context(sim, filled, split(v), w)
    else:
        context = _sliding_context(sim, filled, split(v), w)
    out = _merged_heads(sim, context, lp, b, h)
    if global_attention:
        _global_from_hidden(sim, s, hs, heads)
    attended = sim.end_scope(own, sim.transpose(out, 0, 1))
    # LongformerSelfOutput: dense (strided input), dropout (eval: none), LayerNorm(hidden + input)
    dense = _linear_any(sim, p + "attention.output.dense", attended)
    total = sim.add(dense, x)
    normed = sim.layer_norm(p + "attention.output.LayerNorm", total)
    sim.release(dense, total)
    return sim.end_scope(mark, normed)


def _diagonal_mask(sim: Sim, b: int, lp: int, w: int, size: int) -> None:
    """``LongformerSelfAttention.forward``'s float mask and its sliding diagonal, as the self-attention makes them:
    ``(attention_mask != 0)`` (named until the return), its copy ``type_as(query_vectors)`` (``size`` bytes a number:
    bf16 under autocast) and ``masked_fill``, and ``diagonal_mask`` (the sliding product of ``new_ones`` and the float
    mask, named to the end; the ones go as the call returns)."""
    _fresh(sim, (b, lp), "aten.ne", 1)
    cast = _fresh(sim, (b, lp), "aten._to_copy", size)
    float_mask = _fresh(sim, (b, lp), "aten.masked_fill", size)
    sim.release(cast)
    ones = _fresh(sim, (b, lp), "aten.new_ones", size)
    column = (b, lp, 1, 1)
    _sliding_scores(sim, sim.view(ones, column), sim.view(float_mask, column), w)
    sim.release(ones)


def _merged_heads(sim: Sim, context: T, lp: int, b: int, h: int) -> T:
    """``.transpose(0, 1).reshape(Lp, B, H).contiguous()``: one copy, by the reshape or (one head: a view) by
    ``contiguous``; the heads' context goes once copied."""
    out = sim.contiguous(sim.reshape(sim.transpose(context, 0, 1), (lp, b, h)))
    if out.storage != context.storage:
        sim.release(context)
    return out


def _layer(p: str, heads: int, window: int, masked: T, mask: T, global_attention: bool, training: bool) -> Any:
    """One ``LongformerLayer``: the attention (in training op by op: :func:`_train_attention`;
    else under no_grad: :func:`_inference_attention`), then ``ff_chunk`` (its dropout in training)."""

    def run(sim: Sim, x: T) -> T:
        mark = sim.scope()
        if training:
            attended = _train_attention(sim, p, x, heads, window, masked, global_attention)
        else:
            attended = _inference_attention(sim, p, x, heads, window, masked, mask, global_attention)
        chunk = sim.scope()  # ff_chunk
        inner = sim.linear(p + "intermediate.dense", attended)
        inner = sim.rebind(inner, sim.act("hidden_act", inner))
        drop = sim.drops("hidden_dropout_prob") if training else False
        out = sim.end_scope(chunk, bert.self_output(sim, p + "output.", inner, attended, drop))
        return sim.end_scope(mark, out)

    return run


def step_inference(sim: Sim, inv: Inventory, b: int, n: int, training: bool = False) -> list[T]:
    """The inference span of LongformerModel, ForMaskedLM and ForTokenClassification (no token has global attention
    from input_ids alone) and ForSequenceClassification (the class's ``global_attention_mask`` of zeros with a one at
    each row's first token, merged into the mask: :func:`_global_indices` and the layers' global path), every storage
    released where ``modeling_longformer.py`` drops its name:
    ``LongformerModel.forward`` checks the ids for padding (four temporaries), makes ``torch.ones`` (float32) and
    ``torch.zeros`` (int64) [B, L], pads ids, mask and types to Lp (rebinding the three), the embeddings (the position
    ids from the ids: six temporaries), ``create_bidirectional_mask`` materialised ([B, 1, Lp, Lp] in the model's dtype,
    sliced back to [B, Lp] and kept to the end: its temporaries below), the encoder's two bool masks, the layers, the
    unpadding slice, then the head."""
    c = inv.config
    lp = padded_length(c, n)
    kind = bert.step_task(inv)
    prefix = bert.step_prefix(inv)
    size = sim.itemsize
    classify = kind == Task.SEQUENCE_CLASSIFICATION  # global attention on the first token, set by the class
    ids = sim.ids((b, n))
    if classify:  # global_attention_mask = zeros_like(input_ids); [:, 0] = 1 (its value a 0-dim int64 temporary)
        _fresh(sim, (b, n), "aten.zeros_like", 8)
        sim.release(_fresh(sim, (), "aten.lift_fresh", 8))
    mark = sim.scope()  # LongformerModel.forward
    sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    ones = _fresh(sim, (b, n), "aten.ones", 4)
    types = _fresh(sim, (b, n), "aten.zeros", 8)
    if classify:  # _merge_to_attention_mask: attention_mask * (global_attention_mask + 1), rebinding the mask
        plus = _fresh(sim, (b, n), "aten.add", 8)
        merged = _fresh(sim, (b, n), "aten.mul", 4)
        sim.release(ones, plus)
        ones = merged
    if lp > n:  # _pad_to_window_size: the three rebound
        ids = _fresh(sim, (b, lp), "aten.constant_pad_nd", 8)
        _fresh(sim, (b, lp), "aten.constant_pad_nd", 4)
        padded_types = _fresh(sim, (b, lp), "aten.constant_pad_nd", 8)
        sim.release(ones, types)
        types = padded_types
    # LongformerEmbeddings: create_position_ids_from_input_ids (ne, .int(), cumsum, type_as, * mask, .long(), + pad)
    e = prefix + "embeddings."
    inner = sim.scope()
    m = b * lp
    sim.transients((m, 4 * m, 8 * m, 4 * m, 4 * m, 8 * m), (1, 6, 3, 4, 6, 6),
                   ("aten.ne", "aten._to_copy", "aten.cumsum", "aten._to_copy", "aten.mul", "aten._to_copy"))
    positions = _fresh(sim, (b, lp), "aten.add", 8)
    words = sim.embedding(e + "word_embeddings", ids, first=training)
    placed = sim.embedding(e + "position_embeddings", positions)
    typed = sim.embedding(e + "token_type_embeddings", types)
    first = sim.add(words, placed)
    total = sim.add(first, typed)
    sim.release(first)
    x = sim.layer_norm(e + "LayerNorm", total)
    if training:  # embeddings = self.dropout(embeddings)
        x = sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob")))
    x = sim.end_scope(inner, x)
    # create_bidirectional_mask(..., torch.clamp(attention_mask, 0, 1), allow_is_bidirectional_skip=False)
    clamped = _fresh(sim, (b, lp), "aten.clamp", 4)
    as_bool = _fresh(sim, (b, lp), "aten._to_copy", 1)
    sim.release(clamped)  # the clamp's result goes as the mask function takes its bool copy
    batch = _fresh(sim, (b,), "aten.arange", 8)
    head = _fresh(sim, (1,), "aten.arange", 8)
    a = _fresh(sim, (lp,), "aten.arange", 8)
    q_idx = _fresh(sim, (lp,), "aten.add", 8)
    sim.release(a)
    a2 = _fresh(sim, (lp,), "aten.arange", 8)
    kv_idx = _fresh(sim, (lp,), "aten.add", 8)
    sim.release(a2)
    one = _fresh(sim, (1,), "aten.new_ones", 1)
    ge = _fresh(sim, (lp,), "aten.ge", 1)
    both = _fresh(sim, (lp,), "aten.bitwise_and", 1)
    sim.release(ge, one)
    picked = _fresh(sim, (b, lp), "aten.index", 1)
    allowed = _fresh(sim, (b, lp, lp), "aten.bitwise_and", 1)
    sim.release(picked, both, batch, head, q_idx, kv_idx)
    zero = _fresh(sim, (), "aten.zeros", size)
    lowest = _fresh(sim, (), "aten.scalar_tensor", size)
    full = _fresh(sim, (b, 1, lp, lp), "aten.where", size)  # kept by its [:, 0, 0, :] slice to the end
    sim.release(lowest, zero, allowed, as_bool)
    twos = _fresh(sim, (b, lp), "aten.eq", 1)  # extended_attention_mask[attention_mask == 2] = max, in place
    sim.release(twos, _fresh(sim, (), "aten.lift_fresh", size))
    mask = T((b, lp), (lp * lp, 1), full.storage, False, size)
    # LongformerEncoder: is_index_masked, is_index_global_attn (to its return), is_global_attn's any().item()
    encoder = sim.scope()
    masked = _fresh(sim, (b, lp), "aten.lt", 1)
    index_global = _fresh(sim, (b, lp), "aten.gt", 1)
    sim.release(_fresh(sim, (), "aten.any", 1))
    heads = c["num_attention_heads"]
    if training:  # every layer's keyword arguments: under checkpointing its frame (or partial) keeps them
        for argument in (mask, masked, index_global):
            sim.layer_argument(argument, counted=False)
    seq = x
    for i, w in enumerate(windows(c)):
        y = sim.layer(_layer(f"{prefix}encoder.layer.{i}.", heads, w, masked, mask, classify, training), seq)
        if i:
            sim.rebind(seq, y)
        seq = y
    seq = sim.end_scope(encoder, sim.slice_dim(seq, 1, n) if training else sim.narrow(seq, 1, n))
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None  # the bare model's (no task class pools)
    sim.end_scope(mark, seq, *([pooled] if pooled is not None else []))
    return (TRAIN_HEADS if training else SPAN_HEADS)[kind](sim, seq, pooled, "hidden_dropout_prob")


def _lm_head(sim: Sim, seq: T, project: Callable[[Sim, str, T], T]) -> list[T]:
    """``LongformerLMHead``: dense (on the strided slice, by ``project``), gelu, layer_norm, decoder, each rebinding
    x."""
    head = sim.scope()
    h = project(sim, "lm_head.dense", seq)
    h = sim.rebind(h, sim.keep_input(h))
    h = sim.rebind(h, sim.layer_norm("lm_head.layer_norm", h))
    return [sim.end_scope(head, sim.rebind(h, sim.linear("lm_head.decoder", h)))]


def span_mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``LongformerLMHead`` in the inference span: its dense by :func:`_linear_any`."""
    return _lm_head(sim, seq, _linear_any)


def span_token_classifier_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``classifier`` on the strided slice (:func:`_linear_any`; dropout: eval)."""
    return [_linear_any(sim, "classifier", seq)]


#: The forwards of :data:`LONGFORMER_HEADS`' heads in the inference span (:func:`step_inference`: every class but
#: question answering's, whose global tokens depend on the ids, and multiple choice), where ``nn.Linear`` meets the
#: strided slice.
SPAN_HEADS: dict[str, bert.HeadStep] = {
    Task.MODEL: bert.model_step,
    Task.MASKED_LM: span_mlm_step,
    Task.TOKEN_CLASSIFICATION: span_token_classifier_step,
    Task.SEQUENCE_CLASSIFICATION: roberta.classification_step,  # the first token (a strided [B, H]: addmm, no copy)
}


def step_check(inv: Inventory) -> None:
    """Multiple choice (not the step defined here) and a layerless model (it cannot run); the refusals that
    depend on L (windows) and those transformers reaches only past them (global attention) are the program's."""
    if inv.arch.task == Task.MULTIPLE_CHOICE:
        raise CalcError("costs_architecture", architecture=inv.architecture)
    if not windows(inv.config):
        raise CalcError("costs_longformer_no_layers")


#: Positions start after the padding row (``padding_idx + 1``), as RoBERTa's.
#: LongformerConfig's defaults: ``hidden_act`` "gelu", hidden and attention dropout 0.1 (no classifier_dropout).
KEYS = (activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"))
COSTS = CostModel(step_program, bert.absolute_positions(offset=2), check=step_check, keys=KEYS, buffers=no_buffers,
                  autocast=True, reentrant=True)


def _window_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """The share link's ``attention_window``: left out at 512, one number when every layer has the same
    (what ``LongformerModel`` makes of an int), else the per-layer list as ``a|b|…``."""
    window = config["attention_window"]
    if isinstance(window, list) and not window:
        return "[]"  # no layers, and the config's empty list
    ws = set(window) if isinstance(window, list) else {window}
    if len(ws) == 1:
        value = next(iter(ws))
        return None if value == ATTENTION_WINDOW else str(value)
    return "|".join(str(w) for w in window)


def _window_from_query(text: str) -> Any:
    """``64`` or ``64|128|…`` (one per layer) from a link; anything else is kept for :func:`read` to refuse."""
    if text.strip() == "[]":
        return []
    parts = [p.strip() for p in text.strip().split("|")]
    if all(p.isdigit() for p in parts):
        return int(parts[0]) if len(parts) == 1 else [int(p) for p in parts]
    return text.strip()


def longformer_config(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    """A published Longformer config.json's size-relevant keys (RoBERTa's vocabulary, 4096 + 2 positions)."""
    return {
        "model_type": "longformer",
        "vocab_size": 50265,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": 4098,
        "type_vocab_size": 1,
        "pad_token_id": 1,
        # attention_window ([512] × L as published) shapes no tensor and is left out: kept, it would make
        # the form's answer fail as soon as the layer count is changed
    }


FAMILY = Family(
    model_type="longformer",
    base="LongformerModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=("hidden_size", "num_attention_heads"),
    pad_token_id=1,
    positions_padded=True,
    read=read,
    # The window shapes no tensor but the step's attention: in the link, so the panel costs the pasted one.
    extras=(Extra("attention_window", _window_from_query, _window_query),),
    architectures=bert.task_classes("Longformer", "longformer.", (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION,
        Task.QUESTION_ANSWERING), LONGFORMER_HEADS),
    title={"en": "Longformer", "zh": "Longformer"},
    formula=formula,
    # allenai/longformer-base-4096's config.json lists no architectures: it loads as LongformerModel.
    presets=(Preset("allenai/longformer-base-4096", longformer_config(768, 12, 12), "LongformerModel"),),
    sample=sample,
    rank=25,
    costs=COSTS,
)


# ------------------------------------- the training step, replayed op by op (issue 32/34: local attention)
#
# LongformerModel, ForMaskedLM and ForTokenClassification (no global attention) on the lifetime simulator: the forward
# of the inference span (:func:`step_inference`, the same storages made and dropped where ``modeling_longformer.py``
# drops them) with every autograd node the training step's graph holds, each node's allocations as
# ``tests/crosscheck/peak_measure.backward_ledger`` measured them (transformers 5.23, torch 2.13): the overlapping
# chunks' ``AsStridedBackward0`` (the storage's zeros, an int64 index of the input, a contiguous copy of a strided
# gradient, an int64 index of the chunks), the scores' four slice copies into ``new_zeros`` and the two ``where`` of
# ``_mask_invalid_locations`` written into views of it (``CopySlices``: a copy of the base's gradient, the slice's
# clone, and the old slice's zeros where the base has a history), ``attn_scores += diagonal_mask`` on that view, the
# slices' and selects' zeros of their input, the pads' cut copies. Sequence classification's global attention: the
# section after this one.


def _live_node(sim: Any, name: str, nexts: list[int | None], run: Any, out: T, saved: list[int] | None = None) -> T:
    """A node of the lifetime simulator (``sim`` a :class:`~calculator.costs.lifetime.LiveSim`)."""
    return sim._node(name, nexts, run, out, saved)


def _overlapping(sim: Any, t: T, shape: tuple[int, ...], strides: tuple[int, ...]) -> T:
    """``t.as_strided(shape, strides)`` with overlapping windows (``_chunk``, the padded values): its
    ``AsStridedBackward0`` (``as_strided_backward`` of an overlapping output) allocates the input's zeros, an int64
    index as long as the input, a contiguous copy of the gradient when it is strided, an int64 index as long as the
    output, then frees all but the zeros (measured); a single chunk does not overlap: the zeros alone."""
    out = sim.as_strided(t, shape, strides)
    if not out.grad:
        return out
    size, base, laid, count = t.itemsize, t.shape, t.strides, 1
    for s in shape:
        count *= s
    numel = t.numel

    overlap = any(shape[i] > 1 and shape[i] * strides[i] > strides[i - 1] for i in range(1, len(shape))
                  if shape[i - 1] > 1)

    def run(bw: Any, g: T) -> list[T | None]:
        grad = bw.alloc(base, size, "aten.new_zeros", laid)  # the input's geometry on the zeros' storage
        if not overlap:  # one chunk: the gradient is copied into the zeros' view
            return [grad]
        index = bw.alloc((numel,), 8, "aten.arange")
        copy = None if is_contiguous(g) else bw.alloc(shape, g.itemsize, "aten.clone")
        where = bw.alloc((count,), 8, "aten.clone")
        bw.drop(where.storage)
        if copy is not None:
            bw.drop(copy.storage)
        bw.drop(index.storage)
        return [grad]
    return _live_node(sim, "AsStridedBackward0", [sim._edge(t)], run, out, [])


def _copy_slices(sim: Any, history: int | None, base: T, src: T, aten: str = "aten.copy_") -> int | None:
    """``base[...] = src`` (``copy_`` into a view of ``base``): ``CopySlices`` becomes the base's history; its backward
    allocates a copy of the base's gradient (``new_empty_strided``) and the slice's clone (``src``'s gradient), then
    zeros of the slice for the overwritten values where the base has a history, else drops the copy (measured).
    ``history``: the base's node (None: ``new_zeros``, none). Returns the new history."""
    if not src.grad and history is None:
        return None
    size, flat, piece = base.itemsize, (base.numel,), src.shape
    needs_base = history is not None

    def run(bw: Any, g: T) -> list[T | None]:
        result = bw.alloc(flat, size, "aten.new_empty_strided")
        clone = bw.alloc(piece, size, "aten.clone")
        if needs_base:
            zeros = bw.alloc(piece, size, "aten.zeros_like")
            bw.drop(zeros.storage)
        else:
            bw.drop(result.storage)
        return [result if needs_base else None, clone if src.grad else None]
    handle = T(flat, (1,), base.storage, True, size)
    _live_node(sim, "CopySlices", [history, sim._edge(src) if src.grad else None], run, handle, [])
    return int(sim.edge.pop(id(handle)))


def _regenerated(sim: Any, history: int, view: T, base: T) -> T:
    """A view of a base an in-place op rebased: its ``grad_fn`` is regenerated as ``AsStridedBackward0`` on the base's
    history, which allocates the base's gradient (``new_zeros``, measured) and hands it on in the view's geometry."""
    out = T(view.shape, view.strides, view.storage, True, view.itemsize)
    size = base.itemsize
    return _live_node(sim, "AsStridedBackward0", [history],
                      lambda bw, g: [bw.alloc(view.shape, size, "aten.new_zeros", view.strides)], out, [])


def _train_einsum(sim: Sim, spec: str, a: T, b: T) -> T:
    """``torch.einsum`` of two operands: its copies dropped as it returns unless ``bmm`` keeps them."""
    mark = sim.scope()
    return sim.end_scope(mark, sim.einsum(spec, a, b))


def _train_scores(sim: Any, q: T, k: T, w: int) -> tuple[T, int | None, T]:
    """``_sliding_chunks_query_key_matmul`` then ``_mask_invalid_locations`` with gradients (q, k [B, Lp, A, d]): the
    scores seen as [B, Lp, A, 2w + 1] in the ``new_zeros`` the four slices are copied into, the two ``where`` written
    back into its ends."""
    b, lp, heads, d = q.shape
    bh, chunks = b * heads, lp // w - 1
    mark = sim.scope()
    count = _chunks_count(sim)  # named until the return

    def chunk(x: T) -> T:  # _chunk: a view, then the overlapping as_strided; torch.div(...) a temporary of the call
        flat = sim.reshape(sim.transpose(x, 1, 2), (bh, lp, d))
        sim.release(_number(sim, "aten.div"))
        v = sim.view(flat, (bh, lp // (2 * w), 2 * w, d))
        return _overlapping(sim, v, (bh, chunks, 2 * w, d), (v.strides[0], v.strides[1] // 2, *v.strides[2:]))

    qc, kc = chunk(q), chunk(k)
    product = _train_einsum(sim, "bcxd,bcyd->bcxy", qc, kc)
    padded = sim.made_by(sim.pad_end(product, (bh, chunks, 2 * w + 1, 2 * w)), "aten.constant_pad_nd")
    sim.release(product)  # diagonal_chunked_attention_scores rebound
    chunked = sim.view(padded, (bh, chunks, 2 * w, 2 * w + 1))
    t = _number(sim, "aten.add")
    zeros = _fresh(sim, (bh, chunks + 1, w, 2 * w + 1), "aten.new_zeros", product.itemsize)
    sim.release(t)
    base = T(zeros.shape, zeros.strides, zeros.storage, True, zeros.itemsize)
    # the four copies: [:, :-1, :, w:] = [:, :, :w, :w + 1]; [:, -1, :, w:] = [:, -1, w:, :w + 1];
    # [:, 1:, :, :w] = [:, :, -(w + 1):-1, w + 1:]; [:, 0, 1:w, 1:w] = [:, 0, :w - 1, 1 - w:]
    history = _copy_slices(sim, None, base, sim.slice_dim(sim.slice_dim(chunked, 2, w), 3, w + 1))
    last = sim.select(chunked, 1)
    history = _copy_slices(sim, history, base, sim.slice_dim(sim.slice_dim(last, 1, w), 2, w + 1))
    history = _copy_slices(sim, history, base, sim.slice_dim(sim.slice_dim(chunked, 2, w), 3, w))
    first = sim.select(chunked, 1)
    history = _copy_slices(sim, history, base, sim.slice_dim(sim.slice_dim(first, 1, w - 1), 2, w - 1))
    if history is not None:
        sim.edge[id(base)] = history
        sim.keep.append(base)
    else:
        base = zeros
    scores = sim.transpose(sim.view(base, (b, heads, lp, 2 * w + 1)), 2, 1)
    # _mask_invalid_locations: new_ones(w, w + 1).tril().flip(), its flip; each end's full_like, .bool(), where,
    # written into the end's slice
    _invalid_mask_tables(sim, w, base.itemsize)
    view = scores
    for end in range(2):
        if end and history is not None:
            view = _regenerated(sim, history, scores, base)
        piece = sim.slice_dim(sim.slice_dim(view, 1, w), 3, w + 1)
        full = _fresh(sim, piece.shape, "aten.full_like", piece.itemsize)
        cond = _fresh(sim, piece.shape, "aten._to_copy", 1)
        masked = sim.masked_where(piece, cond)
        sim.release(full, cond)
        history = _copy_slices(sim, history, base, masked)
        sim.release(masked)
    sim.release(count)
    sim.end_scope(mark, zeros)
    return scores, history, base


def _train_masked_scores(sim: Any, scores: T, history: int | None, base: T) -> T:
    """``attn_scores += diagonal_mask`` in place on the scores' view (the mask needs no gradient): ``CopySlices``
    allocates a copy of the base's gradient and the view's clone (dropped: nothing takes it), and the view's
    ``AsStridedBackward0`` the base's gradient (measured)."""
    if history is None:
        return scores
    flat, size, shape = (base.numel,), base.itemsize, scores.shape

    def run(bw: Any, g: T) -> list[T | None]:
        result = bw.alloc(flat, size, "aten.new_empty_strided")
        clone = bw.alloc(shape, size, "aten.clone")
        bw.drop(clone.storage)
        return [result]
    handle = T(flat, (1,), base.storage, True, size)
    _live_node(sim, "CopySlices", [history], run, handle, [])
    return _regenerated(sim, int(sim.edge.pop(id(handle))), scores, base)


def _train_context(sim: Any, probs: T, v: T, w: int) -> T:
    """``_sliding_chunks_matmul_attn_probs_value`` with gradients: probabilities [B, Lp, A, 2w + 1] by V [B, Lp, A, d]
    (the pads' nodes cut the gradient back, the slices' make zeros of their input, the chunked values' overlapping
    ``as_strided``)."""
    b, lp, heads, d = v.shape
    bh, blocks = b * heads, lp // w
    mark = sim.scope()
    cp, vv = _chunked(sim, probs, v, w)
    padded = sim.made_by(sim.pad_end(vv, (bh, lp + 2 * w, d)), "aten.constant_pad_nd")
    _number(sim, "aten.add")  # chunks_count + 1, held by the size tuple
    st = padded.strides
    cv = _overlapping(sim, padded, (bh, blocks, 3 * w, d), (st[0], w * st[1], st[1], st[2]))
    diag = sim.made_by(sim.pad_end(cp, (bh, blocks, w, 3 * w + 2)), "aten.constant_pad_nd")  # _pad_and_diagonalize
    if cp.storage != probs.storage:
        sim.release(cp)
    diag = sim.slice_dim(sim.view(diag, (bh, blocks, w * (3 * w + 2))), 2, w * (3 * w + 1))
    diag = sim.slice_dim(sim.view(diag, (bh, blocks, w, 3 * w + 1)), 3, 3 * w)
    context = sim.end_scope(mark, _train_einsum(sim, "bcwd,bcdh->bcwh", diag, cv))
    return sim.transpose(sim.view(context, (b, heads, lp, d)), 1, 2)


def _project(sim: Any, module: str, x: T) -> T:
    """``nn.Linear`` on the transposed hidden states or the strided slice (:meth:`~calculator.costs.lifetime.LiveSim.
    linear_strided`); under LoRA peft's Linear with that base layer, its adapters folding the strided input (a copy),
    as measured (float32 asks for it here; bf16 and autocast reach the same path through ``linear_strided``)."""
    if module in sim.lora and len(x.shape) == 3 and not is_contiguous(x) and x.itemsize == 4 and sim.lower is None:
        return sim.linear(module, x, strided=True)
    return sim.linear_strided(module, x)


def _divided(sim: Any, q: T) -> T:
    """``query_vectors /= math.sqrt(head_dim)`` in place: on ``addmm``'s view (B = 1) autograd rebases it
    (``CopySlices`` and ``AsStridedBackward0``, :meth:`~calculator.costs.lifetime.LiveSim._rebased_view`), on the
    strided Linear's sum (or LoRA's) ``DivBackward0`` makes the quotient (measured)."""
    if not q.grad:
        return q
    node = sim.nodes[sim.edge[id(q)]]
    if node.name == "ViewBackward0" and node.nexts[0] is not None:
        return sim._rebased_view(q, node.nexts[0], (q.numel,), "aten.div")
    return sim.scale_in_place(q)


def _train_attention(sim: Any, p: str, x: T, heads: int, window: int, masked: T, global_attention: bool = False) -> T:
    """``LongformerAttention`` in training: the self-attention (its locals gone as it returns; ``global_attention``: the
    first token's, :func:`_train_global_key_scores`, :func:`_train_global_context`, :func:`_train_global_from_hidden`),
    then its output (dense on the strided transpose, dropout, LayerNorm of the sum)."""
    b, lp, h = x.shape
    d, w = h // heads, window // 2
    s = p + "attention.self."
    mark = sim.scope()
    own = sim.scope()
    hs = sim.transpose(x, 0, 1)
    q = _project(sim, s + "query", hs)
    k = _project(sim, s + "key", hs)
    v = _project(sim, s + "value", hs)
    q = _divided(sim, q)  # after the three projections: its node comes after theirs

    def split(t: T) -> T:
        return sim.transpose(sim.view(t, (lp, b, heads, d)), 0, 1)

    scores, history, base = _train_scores(sim, split(q), split(k), w)
    _diagonal_mask(sim, b, lp, w, q.itemsize)
    scores = _train_masked_scores(sim, scores, history, base)
    if global_attention:
        where, local = _global_indices(sim, b, lp)
        from_global = _train_global_key_scores(sim, split(q), split(k), heads, where, local)
        joined = sim.concat([from_global, scores], 3)  # torch.cat((global, local), dim=-1)
        sim.release(from_global, scores)
        scores = joined
    probs = sim.softmax_float32(scores)
    filled = sim.masked_fill(probs, T((b, lp, 1, 1), (lp, 1, 1, 1), masked.storage, False, 1))
    sim.release(probs)
    if scores.itemsize != 4:  # type_as(attn_scores): bf16 (the model's, or autocast's products)
        filled = sim.rebind(filled, sim.cast(filled, scores.itemsize))
    sim.release(scores)  # del attn_scores
    filled = sim.rebind(filled, sim.dropout(filled, sim.drops("attention_probs_dropout_prob")))
    if global_attention:
        context = _train_global_context(sim, filled, split(v), w, where, local)
    else:
        context = _train_context(sim, filled, split(v), w)
    out = _merged_heads(sim, context, lp, b, h)
    if global_attention:
        out = _train_global_from_hidden(sim, s, hs, heads, masked, where, local, out)
        sim.release(_fresh(sim, (), "aten.lift_fresh", filled.itemsize))  # attn_probs[is_index_global_attn_nonzero] = 0
    attended = sim.end_scope(own, sim.transpose(out, 0, 1))
    dense = _project(sim, p + "attention.output.dense", attended)
    dense = sim.rebind(dense, sim.dropout(dense, sim.drops("hidden_dropout_prob")))
    total = sim.add(dense, x)
    normed = sim.layer_norm(p + "attention.output.LayerNorm", total)
    sim.release(dense, total)
    return sim.end_scope(mark, normed)


def train_mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``LongformerLMHead`` in training: its dense on the strided slice by :func:`_project` (``matmul``, then the
    bias)."""
    return _lm_head(sim, seq, _project)


def train_token_classifier_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """Dropout, then ``classifier`` (on the strided slice when the dropout is off)."""
    x = sim.dropout(seq, sim.drops(dropout_key))
    return [_project(sim, "classifier", x)]


def train_classification_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``LongformerClassificationHead`` in training: RoBERTa's (:func:`bert.step_pair_head`), each line rebinding
    ``hidden_states``. Under autocast ``dense`` keeps the dropout's bf16 copy, not its float32 output, which
    ``hidden_states = self.dense(hidden_states)`` drops, and tanh keeps its output, so dense's goes with the next
    line (measured with LiveBytes: the nested :func:`classification_step` kept both to the forward's end, 6·B·H bytes
    high at out_proj when the peak lay there; found by the edge sweep)."""
    return bert.step_pair_head(sim, seq, sim.drops(dropout_key), sim.keep_output)


#: The heads of the classes whose training step is replayed op by op (:func:`step_inference` with ``training``).
TRAIN_HEADS: dict[str, bert.HeadStep] = {
    Task.MODEL: bert.model_step,
    Task.MASKED_LM: train_mlm_step,
    Task.TOKEN_CLASSIFICATION: train_token_classifier_step,
    Task.SEQUENCE_CLASSIFICATION: train_classification_step,  # global attention on the first token: _train_global_*
}


# ------------------------- sequence classification's global attention in training, op by op (issue 32/34)
#
# One global token a row (the class's first), so every index below has B entries; each node's allocations as
# ``backward_ledger`` measured them: ``IndexBackward0`` (``index_backward``: zeros of the input, then
# ``index_put(..., accumulate=True)`` out of place, the zeros dropped), ``IndexPutBackward0`` (the values' gradient
# ``grad.index(indices)``; the destination's ``grad.index_put(indices, zeros_like(values))`` where it has a history),
# and the empty ``index_put_`` on a transposed view of a product (no row lacks its global token), which rebases the
# product on ``CopySlices``.


def _gather(sim: Any, t: T, index: T, shape: tuple[int, ...]) -> T:
    """``t[rows, cols]`` by two int64 index vectors (one ``nonzero`` [B, 2]): ``IndexBackward0`` keeps the indices;
    its backward makes zeros of ``t``'s shape and the scattered gradient (both live at once), the zeros dropped."""
    sim._begin()
    sim._labelled("index", "aten.index")
    out = sim.new(shape, t.grad, t.itemsize)
    if not out.grad:
        return out
    sim.save(index)
    base, size = t.shape, t.itemsize
    return _live_node(sim, "IndexBackward0", [sim._edge(t)],
                      lambda bw, g: [bw.scattered(base, base, size, "aten.new_zeros", "aten.index_put")], out)


def _empty_put(sim: Any, view: T, size: int, product: tuple[int, ...] | None = None) -> T:
    """``view[no_global_rows] = min`` with no such row: ``index_put_`` on a view of a product rebases it on
    ``CopySlices``, which allocates a copy of the product's gradient (``new_empty_strided``), the slice's clone, the
    value's zeros (0-dim) and ``index_put``'s result, all but the copy freed as it returns; the view's regenerated
    ``AsStridedBackward0`` allocates the product's gradient (``new_zeros``). The 0-dim value is a temporary.
    ``product``: the product's shape where its node reads the gradient's (einsum's broadcasting ``mul``)."""
    sim.release(_fresh(sim, (), "aten.lift_fresh", size))
    base = sim._einsum_bases.get(view.storage)
    if not view.grad:
        return view
    if base is None:
        sim.fail("an index_put_ on a view whose base is unknown")
        return view
    flat, shape = (view.numel,), view.shape

    def copy_slices(bw: Any, g: T) -> list[T | None]:
        result = bw.alloc(product or flat, size, "aten.new_empty_strided")
        piece = bw.alloc(shape, size, "aten.clone")
        zero = bw.alloc((), size, "aten.zeros_like")
        put = bw.alloc(shape, size, "aten.index_put")
        bw.drop(piece.storage)
        bw.drop(zero.storage)
        bw.drop(put.storage)
        return [result]
    handle = T(flat, (1,), view.storage, True, size)
    _live_node(sim, "CopySlices", [base], copy_slices, handle, [])
    copy = sim.edge.pop(id(handle))
    sim._einsum_bases[view.storage] = None
    out = T(view.shape, view.strides, view.storage, True, size)
    return _live_node(sim, "AsStridedBackward0", [copy], lambda bw, g: [bw.alloc(flat, size, "aten.new_zeros")],
                      out, [])


def _train_global_key_scores(sim: Any, q: T, k: T, heads: int, where: T, local: T) -> T:
    """``_concat_with_global_key_attn_probs`` with gradients: the global keys gathered (``IndexBackward0``) into zeros
    [B, 1, A, d] (``IndexPutBackward0``), ``einsum("blhd,bshd->blhs")``, the empty rows' fill on its transposed view
    (:func:`_empty_put`): [B, Lp, A, 1]."""
    b, lp, _, d = q.shape
    size = k.itemsize
    mark = sim.scope()
    only = _fresh(sim, (b, 1, heads, d), "aten.new_zeros", size)
    gathered = _gather(sim, k, where, (b, heads, d))
    only = sim.index_put(only, local, gathered)
    sim.release(gathered)
    scores = _train_einsum(sim, "blhd,bshd->blhs", q, only)
    view = _empty_put(sim, sim.transpose(scores, 1, 3), scores.itemsize, scores.shape if d == 1 else None)
    return sim.end_scope(mark, sim.transpose(view, 1, 3))


def _clone_laid(sim: Any, t: T) -> T:
    """``t.clone()``: a copy laid out in ``t``'s order of dimensions (``preserve_format``), so a later reshape of a
    transposed clone copies again where PyTorch's does (measured); ``CloneBackward0`` passes the gradient on."""
    out = sim.clone(t)
    laid = T(out.shape, dense_strides_like(t), out.storage, out.grad, out.itemsize)
    if id(out) in sim.edge:
        sim.edge[id(laid)] = sim.edge[id(out)]
        sim.keep.append(laid)
    return laid


def _train_global_context(sim: Any, probs: T, v: T, w: int, where: T, local: T) -> T:
    """``_compute_attn_output_with_global_indices`` with gradients: the global column (a slice) times the global values
    (gathered into zeros), both transposed and cloned, by ``matmul``; the other columns' contiguous copy by the sliding
    product; the sum."""
    b, lp, heads, d = v.shape
    size = v.itemsize
    mark = sim.scope()
    column = sim.slice_dim(probs, 3, 1)
    only = _fresh(sim, (b, 1, heads, d), "aten.new_zeros", size)
    gathered = _gather(sim, v, where, (b, heads, d))
    only = sim.index_put(only, local, gathered)
    sim.release(gathered)
    left = _clone_laid(sim, sim.transpose(column, 1, 2))
    right = _clone_laid(sim, sim.transpose(only, 1, 2))
    only_global = sim.transpose(sim.bmm(left, right), 1, 2)
    sim.release(left, right)
    sim.release(_fresh(sim, (), "aten.rsub", 8))
    rest = sim.contiguous(sim.slice_dim(probs, 3, 2 * w + 1))
    local_out = _train_context(sim, rest, v, w)
    total = sim.add(only_global, local_out)
    return sim.end_scope(mark, total)


def _train_global_from_hidden(sim: Any, s: str, hs: T, heads: int, masked: T, where: T, local: T, out: T) -> T:
    """``_compute_global_attn_output_from_hidden`` with gradients, then its rows written into the output: the global
    rows of hs gathered into zeros [1, B, H], ``query_global`` on them (divided in place), ``key_global`` and
    ``value_global`` on hs, ``bmm``, the empty rows' fill on the scores' transposed view, ``masked_fill``, the float32
    softmax, ``type_as``, dropout, ``bmm``; the output's rows gathered and put into ``out`` (``IndexPutBackward0``)."""
    lp, b, h = hs.shape
    d, bh = h // heads, b * heads
    mark = sim.scope()
    gathered = _fresh(sim, (1, b, h), "aten.new_zeros", hs.itemsize)
    rows = _gather(sim, hs, where, (b, h))
    gathered = sim.index_put(gathered, local, rows)
    sim.release(rows)
    gq = _project(sim, s + "query_global", gathered)
    gk = _project(sim, s + "key_global", hs)
    gv = _project(sim, s + "value_global", hs)
    gq = _divided(sim, gq)
    gq = sim.transpose(sim.view(gq, (1, bh, d)), 0, 1)
    gk = sim.transpose(sim.view(gk, (lp, bh, d)), 0, 1)
    gv = sim.transpose(sim.view(gv, (lp, bh, d)), 0, 1)
    scores = sim.bmm(gq, sim.transpose(gk, 1, 2))
    size = scores.itemsize
    sim._einsum_bases[scores.storage] = sim.edge.get(id(scores))
    sim.release(_fresh(sim, (), "aten.eq", 1))
    view = sim.transpose(sim.view(scores, (b, heads, 1, lp)), 1, 2)
    view = sim.transpose(_empty_put(sim, view, size), 1, 2)
    filled = sim.masked_fill(view, T((b, 1, 1, lp), (lp, lp, lp, 1), masked.storage, False, 1))
    sim.release(scores)
    probs = sim.softmax_float32(sim.view(filled, (bh, 1, lp)))
    sim.release(filled)
    if size != 4:
        probs = sim.rebind(probs, sim.cast(probs, size))
    probs = sim.rebind(probs, sim.dropout(probs, sim.drops("attention_probs_dropout_prob")))
    result = sim.bmm(probs, gv)
    sim.release(_fresh(sim, (), "aten.eq", 1))
    sim.end_scope(mark, result, probs)
    rows = _gather(sim, sim.view(result, (b, heads, 1, d)), local, (b, heads, d))
    out = sim.index_put(out, where, sim.view(rows, (b, h)))
    sim.release(rows)
    return out
