"""Perceiver IO (``modeling_perceiver.py``, 2021): a small array of learned latents reads the input by cross-attention.

The encoder is not a stack of token layers: a trainable array ``embeddings.latents`` [N, D_l]
(``num_latents`` × ``d_latents``) cross-attends once to the input (width ``d_model``), then
``num_self_attends_per_block`` self-attention layers run on the latents alone (applied ``num_blocks`` times
with the same weights, so ``num_blocks`` adds no tensor). Each layer is pre-LN: ``layernorm1`` on the queries
(and ``layernorm2`` on the inputs in a cross-attention), Q/K/V of ``qk_channels``/``v_channels`` (default: the
width the config names), an output projection, ``layernorm`` and a two-layer MLP widened by
``*_widening_factor``. A self-attention's output projection is ``v_channels`` → ``v_channels``.

The classes counted are the text ones, as transformers builds them from a config:

* ``PerceiverModel(config)``: latents and encoder only; it has no preprocessor, so it takes inputs already
  embedded to ``d_model``;
* ``PerceiverForMaskedLM``: ``PerceiverTextPreprocessor`` (a byte/token table V × d_model and a learned
  position table P × d_model) registered first, then the latents and encoder, then a decoder whose P trainable
  query positions cross-attend to the latents (8 heads, 256 Q/K channels: ``d_model`` must divide by 8), and
  ``embedding_decoder.bias`` [V]; the logits reuse the input table at run time (no tied tensor);
* ``PerceiverForSequenceClassification``: the same preprocessor and encoder, and one trainable query
  (1 × d_latents) that cross-attends to the latents, then ``final_layer`` (d_latents → num_labels).

The peak of live memory (issue 32) is replayed op by op for the two text classes the step covers, float32, bf16 or
under bf16 autocast, any plan, and inference: :func:`step_program` names every tensor as ``modeling_perceiver.py``
does, and ``LiveSim`` records each node as ``backward_ledger`` measured it.

Not covered: the image classes (``PerceiverForImageClassificationLearned``, ``…Fourier``,
``…ConvProcessing``), ``PerceiverForOpticalFlow`` and ``PerceiverForMultimodalAutoencoding``, whose
preprocessors and decoders read ``image_size``, ``train_size``, ``num_frames``, ``audio_samples_per_frame``,
``samples_per_patch``, ``output_shape`` and ``output_num_channels``.
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from ..config import MAX_LAYERS, Field
from ..costs import CostModel, Sim, T, activation_key, dropouts, no_buffers
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line
from ..i18n import pick
from ..model import Inventory, TensorList
from .base import Architecture, Family, Preset, Task
from .common import LABELS, L

FIELDS = (
    Field("vocab_size", 262, label=L("Vocabulary size (V; bytes + specials)", "词表大小（V；字节加特殊 token）"),
          sample=(1, 300)),
    Field("max_position_embeddings", 2048, label=L("Positions (P)", "最大位置数（P）"), sample=(1, 64)),
    Field("d_model", 768, label=L("Input width (d_model)", "输入宽度（d_model）"), sample=(1, 16)),
    Field("num_latents", 256, label=L("Latents (N)", "潜变量个数（N）"), sample=(1, 16)),
    Field("d_latents", 1280, label=L("Latent width (d_latents)", "潜变量宽度（d_latents）"), sample=(1, 16)),
    Field("num_blocks", 1, label=L("Times the self-attention block is applied (num_blocks; shared weights)",
                                   "自注意力块重复次数（num_blocks；权重共享）"), sample=(1, 3)),
    Field("num_self_attends_per_block", 26, minimum=0, maximum=MAX_LAYERS,
          label=L("Latent self-attention layers (num_self_attends_per_block)",
                  "潜变量自注意力层数（num_self_attends_per_block）"), sample=(0, 3)),
    Field("num_self_attention_heads", 8, label=L("Self-attention heads", "自注意力头数"), sample=(1, 4)),
    Field("num_cross_attention_heads", 8, label=L("Cross-attention heads", "交叉注意力头数"), sample=(1, 4)),
    Field("qk_channels", None, optional=True,
          label=L("Q/K channels (qk_channels; null: from the widths)", "Q/K 维度（qk_channels；null 表示按宽度推出）"),
          sample=(1, 24)),
    Field("v_channels", None, optional=True,
          label=L("V channels (v_channels; null: as Q/K)", "V 维度（v_channels；null 表示同 Q/K）"), sample=(1, 24)),
    Field("cross_attention_shape_for_attention", "kv", kind="choice", choices=("kv", "q"),
          label=L("Q/K width of the cross-attention from (kv: the input; q: the latents)",
                  "交叉注意力的 Q/K 宽度取自（kv：输入；q：潜变量）")),
    Field("self_attention_widening_factor", 1, label=L("Self-attention MLP widening", "自注意力 MLP 扩展倍数"),
          sample=(1, 3)),
    Field("cross_attention_widening_factor", 1, label=L("Cross-attention MLP widening", "交叉注意力 MLP 扩展倍数"),
          sample=(1, 3)),
    LABELS,
)


def _channels(c: Mapping[str, Any], default_qk: int) -> tuple[int, int]:
    """(qk, v) channels of an encoder attention: the config's, else ``default_qk`` and then qk."""
    qk = c["qk_channels"] if c["qk_channels"] is not None else default_qk
    return qk, c["v_channels"] if c["v_channels"] is not None else qk


def _cross_channels(c: Mapping[str, Any]) -> tuple[int, int]:
    """The encoder's cross-attention: Q/K default to the input's width ("kv") or the latents' ("q")."""
    kv = c["cross_attention_shape_for_attention"] == "kv"
    return _channels(c, c["d_model"] if kv else c["d_latents"])


def check(c: dict[str, Any]) -> None:
    """``PerceiverEncoder``'s checks, in its order: d_latents by both head counts, then each attention's
    Q/K and V channels by its heads (the self-attentions' only when there is one)."""
    for heads in ("num_self_attention_heads", "num_cross_attention_heads"):
        if c["d_latents"] % c[heads]:
            raise CalcError("heads_not_divisor", hidden_key="d_latents", hidden=c["d_latents"], heads_key=heads,
                            heads=c[heads])
    pairs = [(_cross_channels(c), "num_cross_attention_heads")]
    if c["num_self_attends_per_block"]:
        pairs.append((_channels(c, c["d_latents"]), "num_self_attention_heads"))
    for (qk, v), heads in pairs:
        for key, value in (("qk_channels", qk), ("v_channels", v)):
            if value % c[heads]:
                raise CalcError("heads_not_divisor", hidden_key=key, hidden=value, heads_key=heads, heads=c[heads])


def perceiver_layer(t: TensorList, p: str, q_dim: int, kv_dim: int | None, qk: int, v: int, out: int, widening: int,
                    group: str, layer: int | None) -> None:
    """One ``PerceiverLayer``: pre-LN attention (``layernorm2`` only in a cross-attention), output, LN, MLP."""
    def g(kind: str) -> str:
        return group if group == "head" else kind

    a = p + "attention.self."
    t.layer_norm(a + "layernorm1", q_dim, group=g("layer_norm"), layer=layer)
    if kv_dim is not None:
        t.layer_norm(a + "layernorm2", kv_dim, group=g("layer_norm"), layer=layer)
    t.linear(a + "query", qk, q_dim, g("attention_qkv"), layer)
    t.linear(a + "key", qk, kv_dim if kv_dim is not None else q_dim, g("attention_qkv"), layer)
    t.linear(a + "value", v, kv_dim if kv_dim is not None else q_dim, g("attention_qkv"), layer)
    t.linear(p + "attention.output.dense", out, v, g("attention_output"), layer)
    t.layer_norm(p + "layernorm", q_dim, group=g("layer_norm"), layer=layer)
    t.linear(p + "mlp.dense1", widening * q_dim, q_dim, g("feed_forward"), layer)
    t.linear(p + "mlp.dense2", q_dim, widening * q_dim, g("feed_forward"), layer)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    """The text preprocessor (in the task classes, ``prefix`` "perceiver."), the latents, the encoder.

    ``PerceiverModel(config)`` (``prefix`` "") is built without a preprocessor, as transformers builds it."""
    dm, dl = c["d_model"], c["d_latents"]
    if prefix:
        t.embedding(prefix + "input_preprocessor.embeddings", c["vocab_size"], dm)
        t.embedding(prefix + "input_preprocessor.position_embeddings", c["max_position_embeddings"], dm)
    t.add(prefix + "embeddings.latents", (c["num_latents"], dl), "embeddings")
    qk, v = _cross_channels(c)
    perceiver_layer(t, prefix + "encoder.cross_attention.", dl, dm, qk, v, dl, c["cross_attention_widening_factor"],
                    "encoder", 0)
    qk, v = _channels(c, dl)
    for i in range(c["num_self_attends_per_block"]):
        perceiver_layer(t, f"{prefix}encoder.self_attends.{i}.", dl, None, qk, v, v,
                        c["self_attention_widening_factor"], "encoder", i + 1)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``PerceiverBasicDecoder`` for text (P query positions, 8 heads, Q/K 256, V d_model, no final projection),
    then ``PerceiverEmbeddingDecoder``'s bias; refused where transformers refuses d_model not divisible by 8."""
    dm, dl = c["d_model"], c["d_latents"]
    if dm % 8:
        raise CalcError("heads_not_divisor", hidden_key="d_model", hidden=dm, heads_key="8", heads=8)
    d = prefix + "decoder."
    t.add(d + "output_position_encodings.position_embeddings", (c["max_position_embeddings"], dm), "head")
    perceiver_layer(t, d + "decoding_cross_attention.", dm, dl, 256, dm, dm, 1, "head", None)
    t.add("embedding_decoder.bias", (c["vocab_size"],), "head")


def classification_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``PerceiverClassificationDecoder``: one trainable query [1, d_latents], a one-head cross-attention to the
    latents (every width d_latents), ``final_layer`` to the labels."""
    dl = c["d_latents"]
    d = prefix + "decoder.decoder."
    t.add(d + "output_position_encodings.position_embeddings", (1, dl), "head")
    perceiver_layer(t, d + "decoding_cross_attention.", dl, dl, dl, dl, dl, 1, "head", None)
    t.linear(d + "final_layer", c["num_labels"], dl, "head")


def _layer_total(q: int, kv: int | None, qk: int, v: int, out: int, w: int) -> int:
    """One PerceiverLayer's parameters, written from the module list (not from the tensor list)."""
    norms = 2 * q + (2 * kv if kv is not None else 0) + 2 * q
    k_in = kv if kv is not None else q
    return norms + (q * qk + qk) + (k_in * qk + qk) + (k_in * v + v) + (v * out + out) + 2 * (q * w * q) + w * q + q


def formula(inv: Inventory) -> Formula:
    """Latents, the input tables (task classes), one cross-attention, n self-attentions, the decoder (the head).

    D = d_latents, d = d_model, c_qk / c_v: each attention's Q/K and V channels, w_c / w_s: the MLP widenings."""
    c = inv.config
    v, p, dm, n_lat, dl, n = (c["vocab_size"], c["max_position_embeddings"], c["d_model"], c["num_latents"],
                              c["d_latents"], c["num_self_attends_per_block"])
    wc, ws = c["cross_attention_widening_factor"], c["self_attention_widening_factor"]
    lines = []
    if inv.arch.prefix:
        lines.append(FormulaLine("embeddings", "(V + P)·d + N·D",
                                 f"({v} + {p})·{dm} + {n_lat}·{dl}", (v + p) * dm + n_lat * dl))
    else:
        lines.append(FormulaLine("embeddings", "N·D", f"{n_lat}·{dl}", n_lat * dl))
    qk, vc = _cross_channels(c)
    cross = _layer_total(dl, dm, qk, vc, dl, wc)
    lines.append(FormulaLine(
        "cross_attention", "4D + 2d + (D + d + 2)·c_qk + (d + 1)·c_v + (c_v + 1)·D + 2w_c·D² + (w_c + 1)·D",
        f"4·{dl} + 2·{dm} + ({dl} + {dm} + 2)·{qk} + ({dm} + 1)·{vc} + ({vc} + 1)·{dl} + 2·{wc}·{dl}² "
        f"+ ({wc} + 1)·{dl}", cross))
    qk, vc = _channels(c, dl)
    one = _layer_total(dl, None, qk, vc, vc, ws)
    symbolic = "4D + 2(D + 1)·c_qk + (D + 1)·c_v + (c_v + 1)·c_v + 2w_s·D² + (w_s + 1)·D"
    substituted = (f"4·{dl} + 2·({dl} + 1)·{qk} + ({dl} + 1)·{vc} + ({vc} + 1)·{vc} + 2·{ws}·{dl}² "
                   f"+ ({ws} + 1)·{dl}")
    lines.append(FormulaLine("per_layer_formula", symbolic, substituted, one, counted=False))
    lines.append(FormulaLine("layers_formula", f"n × ({symbolic})", f"{n} × {one:,}", n * one))
    symbols = {"V": v, "P": p, "N": n_lat, "d": dm, "D": dl, "n": n, "w_c": wc, "w_s": ws}
    return Formula(symbols, tuple(lines + head_line(inv)))


def layer_row(n: int, config: Mapping[str, Any], lang: str) -> str:
    """Row 0 is the cross-attention that reads the input; rows 1… the latents' self-attention layers."""
    if n == 0:
        return pick(WORDS["cross_attention_row"], lang)
    return pick(WORDS["self_attention_row"], lang, n=n)


WORDS = {
    "cross_attention": L("Cross-attention (latents ← input)", "交叉注意力（潜变量 ← 输入）"),
    "cross_attention_row": L("Cross-attention (latents ← input)", "交叉注意力（潜变量 ← 输入）"),
    "self_attention_row": L("Latent self-attention {n}", "潜变量自注意力第 {n} 层"),
}


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Widths the heads divide, most of the time (d_model a multiple of 8 for the masked-LM decoder)."""
    if rng.random() < 0.9:
        self_heads, cross_heads = rng.choice([1, 2, 4]), rng.choice([1, 2, 4])
        config["num_self_attention_heads"], config["num_cross_attention_heads"] = self_heads, cross_heads
        config["d_latents"] = 4 * rng.randint(1, 6)
        config["d_model"] = 8 * rng.randint(1, 4)
        for key in ("qk_channels", "v_channels"):
            config[key] = 4 * rng.randint(1, 6) if rng.random() < 0.3 else None
    config["cross_attention_shape_for_attention"] = rng.choice(["kv", "q"])


def perceiver_config() -> dict[str, Any]:
    """deepmind/language-perceiver's config.json, size-relevant keys (PerceiverConfig's defaults are documented
    as this checkpoint's: https://huggingface.co/deepmind/language-perceiver/blob/main/config.json; byte vocabulary
    of 256 + 6 special tokens; qk_channels and v_channels null, so left out)."""
    return {
        "model_type": "perceiver", "vocab_size": 262, "max_position_embeddings": 2048, "d_model": 768,
        "num_latents": 256, "d_latents": 1280, "num_blocks": 1, "num_self_attends_per_block": 26,
        "num_self_attention_heads": 8, "num_cross_attention_heads": 8,
        "cross_attention_shape_for_attention": "kv", "self_attention_widening_factor": 1,
        "cross_attention_widening_factor": 1,
    }


# --------------------------------------------------------------- training step
#
# PerceiverConfig's defaults: ``hidden_act`` "gelu" (every MLP), ``attention_probs_dropout_prob`` 0.1 (every
# attention, the decoders' too); there is no other dropout. Text classes only: ``PerceiverModel(config)`` has no
# preprocessor and takes embedded inputs, not ``input_ids``.


def expanded(sim: Sim, name: str, b: int) -> T:
    """A parameter [n, w] as ``param.expand(B, -1, -1)`` reads it (the latents, a decoder's query positions): a
    view of the parameter's storage, which no figure counts; its ``ExpandBackward0`` sums the gradient back to
    [n, w] (``sum_to`` over the new leading dimension: a new tensor even at B 1)."""
    n, w = sim.shapes[name]
    return sim.expand_summed(sim.view(sim.parameter(name, (n, w)), (1, n, w)), (b, n, w))


def step_layer(sim: Sim, p: str, x: T, inputs: T | None, heads: int, residual: bool = True) -> T:
    """One ``PerceiverLayer`` on queries ``x`` [B, N, q_dim] (cross-attention: keys and values from ``inputs``).

    ``PerceiverSelfAttention``: ``layernorm1`` on the queries (``layernorm2`` on the inputs), Q, K, V split into
    heads (views), ``matmul`` (copies where strides demand, as BERT's), ``/ sqrt(d)`` (keeps nothing), no mask
    (``input_ids`` alone give none), softmax (keeps its output), dropout, ``matmul`` by V, permuted back (a copy);
    the output dense, the query residual where the layer has one; then ``layernorm``, the MLP (``hidden_act``)
    and the residual.

    Every name's release is declared (the forward replayed exactly): each function's locals die as it returns,
    a rebound name's old tensor as it is rebound (``attention_scores``, ``attention_probs``, ``context_layer``,
    ``attention_output``, ``hidden_states`` in the MLP, ``layer_output``), unless autograd keeps it; the scaled
    scores keep their name beside ``attention_probs`` until the function returns."""
    a = p + "attention.self."
    drop = sim.drops("attention_probs_dropout_prob")
    b, nq, _ = x.shape
    layer = sim.scope()  # PerceiverLayer.forward
    attention = sim.scope()  # PerceiverAttention.forward: self_outputs named until it returns
    own = sim.scope()  # PerceiverSelfAttention.forward
    q_in = sim.layer_norm(a + "layernorm1", x)
    kv = sim.layer_norm(a + "layernorm2", inputs) if inputs is not None else q_in
    nk = kv.shape[1]

    def split(t: T, n: int) -> T:
        return sim.transpose(sim.view(t, (b, n, heads, t.shape[-1] // heads)), 1, 2)

    # The three projections first, then transpose_for_scores on each (the views' nodes after the Linears': the
    # backward runs every head view, Q's copy too, before the first Linear's).
    queries, keys, values = sim.linear(a + "query", q_in), sim.linear(a + "key", kv), sim.linear(a + "value", kv)
    q, k, v = split(queries, nq), split(keys, nk), split(values, nk)
    product = sim.bmm(q, sim.transpose(k, 2, 3))
    scores = sim.rebind(product, sim.divided(product))  # attention_scores / math.sqrt(q_head_dim)
    probs = sim.keep_output(scores)  # attention_probs = nn.Softmax(dim=-1)(...): the scores keep their name
    probs = sim.rebind(probs, sim.dropout(probs, drop))
    context = sim.bmm(probs, v)
    context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
    context = sim.end_scope(own, sim.reshape(context, (b, nq, v.shape[1] * v.shape[3])))
    out = sim.linear(p + "attention.output.dense", context)
    if residual:
        out = sim.rebind(out, sim.add(out, x))
    out = sim.end_scope(attention, out)
    chunk = sim.scope()  # feed_forward_chunk: the LayerNorm's output named until the MLP returns
    normed = sim.layer_norm(p + "layernorm", out)
    mlp = sim.scope()  # PerceiverMLP.forward: hidden_states rebound by each step
    inner = sim.linear(p + "mlp.dense1", normed)
    inner = sim.rebind(inner, sim.act("hidden_act", inner))
    inner = sim.end_scope(mlp, sim.rebind(inner, sim.linear(p + "mlp.dense2", inner)))
    inner = sim.end_scope(chunk, sim.rebind(normed, inner))
    return sim.end_scope(layer, sim.rebind(inner, sim.add(inner, out)))


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """``PerceiverForMaskedLM`` and ``PerceiverForSequenceClassification``: ``PerceiverTextPreprocessor`` (the
    byte table, plus a position table read at ``torch.arange(L)``, a fresh int64 tensor), the latents expanded
    to the batch, the cross-attention, ``num_blocks`` × the self-attention layers (shared weights), then the
    decoder. The masked-LM decoder's queries are its P trainable positions, whatever L: logits [B, P, V], the
    byte table's transpose as the output projection (``matmul``), plus ``embedding_decoder.bias``.

    Every release is declared (the forward replayed op by op, :meth:`~.ops.Ops.exact_forward`; under bf16 autocast
    too: each Linear's copies, the decoder's ``matmul`` by the table's transpose a fresh copy each step):
    ``PerceiverModel.forward`` names the preprocessor's two outputs (``inputs``, ``inputs_without_pos``) until it
    returns; its ``PerceiverModelOutput`` (the decoder's output and the latents) lives until the class's forward
    returns."""
    c = inv.config
    prefix = inv.arch.prefix
    e = prefix + "input_preprocessor."
    sim.exact_lifetimes()
    sim.exact_forward()
    sim.exact_autocast()
    model = sim.scope()  # PerceiverModel.forward
    pre = sim.scope()  # PerceiverTextPreprocessor.forward
    words = sim.embedding(e + "embeddings", sim.ids((b, n)), first=True)
    positions = sim.embedding(e + "position_embeddings", sim.made_by(sim.ids((n,)), "aten.arange"))
    x = sim.add(words, positions)
    sim.release(positions)
    x = sim.end_scope(pre, x, words)
    z = expanded(sim, prefix + "embeddings.latents", b)
    # attention_mask = torch.ones((B, L)) (float32), then create_bidirectional_mask: its bool copy and .all() answer
    # that every token is kept, so it returns None (the name rebound): all three gone before the encoder runs.
    sim.transients((4 * b * n, b * n, 1), (2, 2, 2), ("aten.ones", "aten._to_copy", "aten.all"))
    z = step_layer(sim, prefix + "encoder.cross_attention.", z, x, c["num_cross_attention_heads"],
                   c.get("use_query_residual", True))
    for _ in range(c["num_blocks"]):
        for i in range(c["num_self_attends_per_block"]):
            z = sim.rebind(z, step_layer(sim, f"{prefix}encoder.self_attends.{i}.", z, None,
                                         c["num_self_attention_heads"]))
    if inv.arch.task == Task.MASKED_LM:
        d = prefix + "decoder."
        queries = expanded(sim, d + "output_position_encodings.position_embeddings", b)
        out = step_layer(sim, d + "decoding_cross_attention.", queries, z, 8, residual=False)
        sim.end_scope(model, out, z)
        rows, width = out.shape[0] * out.shape[1], out.shape[2]
        head = sim.scope()  # PerceiverEmbeddingDecoder.forward
        logits = sim.matmul_param(sim.reshape(out, (rows, width)), e + "embeddings.weight")
        logits = sim.rebind(logits, sim.add(logits, sim.parameter("embedding_decoder.bias", (c["vocab_size"],))))
        return [sim.end_scope(head, sim.reshape(logits, (out.shape[0], out.shape[1], c["vocab_size"])))]
    d = prefix + "decoder.decoder."
    queries = expanded(sim, d + "output_position_encodings.position_embeddings", b)
    out = step_layer(sim, d + "decoding_cross_attention.", queries, z, 1)
    logits = sim.select(sim.linear(d + "final_layer", out), 1)
    sim.end_scope(model, logits, z)
    return [logits]


def step_check(inv: Inventory) -> None:
    """A self-attention layer whose values are not ``d_latents`` wide: its output (``v_channels``) cannot be
    added to the latents (transformers' forward fails)."""
    c = inv.config
    _, v = _channels(c, c["d_latents"])
    if c["num_self_attends_per_block"] and c["num_blocks"] and v != c["d_latents"]:
        raise CalcError("costs_forward_fails", key="v_channels" if c["v_channels"] is not None else "qk_channels",
                        value=v)


COSTS = CostModel(step_program, lambda c: c["max_position_embeddings"],
                  architectures=("PerceiverForMaskedLM", "PerceiverForSequenceClassification"),
                  check=step_check, checkpointing=False, autocast=True, buffers=no_buffers,
                  keys=(activation_key("gelu"), *dropouts("attention_probs_dropout_prob")))


_P = "perceiver."
FAMILY = Family(
    model_type="perceiver",
    base="PerceiverModel",
    fields=FIELDS,
    backbone=backbone,
    heads_check=None,  # check() makes PerceiverEncoder's own checks
    checks=(check,),
    pad_token_id=None,
    architectures=(
        Architecture(name="PerceiverModel", task=Task.MODEL, prefix="", pooler=False),
        Architecture(name="PerceiverForMaskedLM", task=Task.MASKED_LM, prefix=_P, pooler=False, head=mlm_head),
        Architecture(name="PerceiverForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix=_P, pooler=False, head=classification_head,
                     uses_num_labels=True),
    ),
    title={"en": "Perceiver IO", "zh": "Perceiver IO"},
    formula=formula,
    presets=(Preset("deepmind/language-perceiver", perceiver_config(), "PerceiverForMaskedLM"),),
    sample=sample,
    rank=86,
    layer_row=layer_row,
    labels={"cross_attention": WORDS["cross_attention"]},
    costs=COSTS,
)
