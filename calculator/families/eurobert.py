"""EuroBERT (``modeling_eurobert.py``, native in transformers 5.23): Llama's decoder stack made bidirectional.

transformers 5.23 generates it from ``modular_eurobert.py`` (``EuroBertModel(LlamaModel)``):

* ``embed_tokens`` [V, H] (``padding_idx = pad_token_id``, default 128001, so V must be larger),
  then the layers, then a final RMSNorm ``norm`` [H]. Positions are rotary: no table.
* Each layer registers ``self_attn`` (``q_proj`` [A·d, H], ``k_proj`` and ``v_proj`` [K·d, H] with
  K = ``num_key_value_heads``, grouped-query attention; ``o_proj`` [H, A·d]; biases only with
  ``attention_bias``), then the SwiGLU ``mlp`` (``gate_proj``, ``up_proj`` [I, H], ``down_proj`` [H, I];
  biases only with ``mlp_bias``), then the RMSNorms ``input_layernorm`` and ``post_attention_layernorm``
  (a weight, no bias). d = ``head_dim``, default H // A.
* ``EuroBertForMaskedLM``: ``lm_head = nn.Linear(H, V, bias=mlp_bias)``, the same storage as
  ``model.embed_tokens`` only when ``tie_word_embeddings`` (default **False**).
* ``EuroBertForSequenceClassification``: ``dense`` [H, H] and ``classifier`` [labels, H], both with
  biases, after the backbone; ``classifier_pooling`` (late, bos or mean) adds no tensor.

The functions here that declare the Llama-style body are shared with ESM C and UltraBERT.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Callable, Mapping

from ..config import Field, read_fields
from ..costs import CostModel, Sim, T, activation_key, dropouts, unread
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, jina_embeddings_v3 as jina, modernbert
from .base import Architecture, Family, Preset, Task
from .common import HEADS, HIDDEN, INTERMEDIATE, LABELS, LAYERS, TIE, VOCAB, L


def flag(key: str, default: bool, en: str, zh: str) -> Field:
    """A yes/no config key shaping tensors (a bias present or not)."""
    return Field(key, default, kind="bool", label=L(en, zh), sample=(0, 1))


KV_HEADS = Field(
    "num_key_value_heads", None, minimum=1, optional=True,
    label=L("Key/value heads (num_key_value_heads; empty: A, no grouping)",
            "键/值头数（num_key_value_heads；留空则等于 A，不分组）"),
)
HEAD_DIM = Field(
    "head_dim", None, minimum=1, optional=True,
    label=L("Head size (head_dim; empty: H / A)", "每个注意力头的维度（head_dim；留空则为 H / A）"),
)
ATTENTION_BIAS = flag("attention_bias", False, "Attention biases (attention_bias)", "注意力投影带偏置（attention_bias）")
MLP_BIAS = flag("mlp_bias", False, "Feed-forward biases (mlp_bias)", "前馈网络带偏置（mlp_bias）")
SWIGLU_INTERMEDIATE = replace(
    INTERMEDIATE,
    label=L("Feed-forward inner size (I; SwiGLU: gate, up and down are I wide)",
            "前馈网络中间层维度（I；SwiGLU 的 gate、up、down 三个矩阵都是 I 宽）"),
)

#: ``EuroBertConfig.pad_token_id``: the token table's padding row.
PAD_TOKEN_ID = 128001

FIELDS = (
    replace(VOCAB, default=128256),
    Field(
        "pad_token_id", PAD_TOKEN_ID, minimum=0, optional=True,
        label=L("Padding token id (pad_token_id; that row must exist, so V > it)",
                "填充符的 token id（pad_token_id；词嵌入表里必须有这一行，所以 V 要大于它）"),
    ),
    HIDDEN,
    LAYERS,
    HEADS,
    KV_HEADS,
    HEAD_DIM,
    replace(SWIGLU_INTERMEDIATE, default=3072),
    ATTENTION_BIAS,
    MLP_BIAS,
    Field(
        "classifier_pooling", "late", kind="choice", choices=("late", "bos", "mean"),
        label=L("Classifier pooling (classifier_pooling; adds no parameters)", "分类池化方式（classifier_pooling；不增加参数）"),
        sample=(0, 1),
    ),
    LABELS,
    replace(TIE, default=False),
)


def head_size(c: Mapping[str, Any]) -> int:
    """``config.head_dim``: as given, else ``hidden_size // num_attention_heads`` (the config's ``__post_init__``)."""
    given = c.get("head_dim")
    return given if given is not None else c["hidden_size"] // c["num_attention_heads"]


def kv_heads(c: Mapping[str, Any]) -> int:
    """``config.num_key_value_heads``: as given, else ``num_attention_heads``."""
    given = c.get("num_key_value_heads")
    return given if given is not None else c["num_attention_heads"]


def llama_attention(t: TensorList, c: Mapping[str, Any], p: str, i: int, bias: bool) -> None:
    """``LlamaAttention``'s four projections, K and V as wide as the key/value heads."""
    h, d = c["hidden_size"], head_size(c)
    a, k = c["num_attention_heads"], kv_heads(c)
    t.linear(p + "q_proj", a * d, h, "attention_qkv", i, bias=bias)
    t.linear(p + "k_proj", k * d, h, "attention_qkv", i, bias=bias)
    t.linear(p + "v_proj", k * d, h, "attention_qkv", i, bias=bias)
    t.linear(p + "o_proj", h, a * d, "attention_output", i, bias=bias)


def swiglu(t: TensorList, c: Mapping[str, Any], p: str, i: int, bias: bool) -> None:
    """``LlamaMLP``: gate and up [I, H], down [H, I]."""
    h, inter = c["hidden_size"], c["intermediate_size"]
    t.linear(p + "gate_proj", inter, h, "feed_forward", i, bias=bias)
    t.linear(p + "up_proj", inter, h, "feed_forward", i, bias=bias)
    t.linear(p + "down_proj", h, inter, "feed_forward", i, bias=bias)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    """``EuroBertModel``: the token table, the layers, the final RMSNorm."""
    h = c["hidden_size"]
    t.embedding(prefix + "embed_tokens", c["vocab_size"], h, "embeddings")
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}layers.{i}."
        llama_attention(t, c, p + "self_attn.", i, c["attention_bias"])
        swiglu(t, c, p + "mlp.", i, c["mlp_bias"])
        t.layer_norm(p + "input_layernorm", h, layer=i, bias=False)
        t.layer_norm(p + "post_attention_layernorm", h, layer=i, bias=False)
    t.layer_norm(prefix + "norm", h, bias=False, section="encoder")


def lm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``nn.Linear(H, V, bias=mlp_bias)``, tied to ``model.embed_tokens`` when ``tie_word_embeddings``."""
    v, h = c["vocab_size"], c["hidden_size"]
    tie = prefix + "embed_tokens.weight" if c["tie_word_embeddings"] else None
    t.add("lm_head.weight", (v, h), "head", shares=tie, module="linear")
    if c["mlp_bias"]:
        t.add("lm_head.bias", (v,), "head", module="linear")


def sequence_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h = c["hidden_size"]
    t.linear("dense", h, h, "head")
    t.linear("classifier", c["num_labels"], h, "head")


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, and the head sizes transformers refuses."""
    values = read_fields(FIELDS, raw, {})
    check_kv(values)
    return values


def check_kv(values: Mapping[str, Any]) -> None:
    """The config's RoPE validation refuses an odd head size above 4 (rotary pairs the dimensions). More
    key/value heads than heads builds (``num_key_value_groups`` is then 0): counted as built."""
    d = head_size(values)
    if d > 4 and d % 2:
        key = "head_dim" if values.get("head_dim") is not None else "head_dim = hidden_size // num_attention_heads"
        raise CalcError("bad_value", key=key, value=d)


# ------------------------------------------------------------------ formula


def body_lines(c: Mapping[str, Any], norm_biases: int = 0) -> list[FormulaLine]:
    """The table, one layer × L (attention, SwiGLU, two norms) and the final norm, as named terms."""
    v, h, n, i = c["vocab_size"], c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"]
    a, k, d = c["num_attention_heads"], kv_heads(c), head_size(c)
    ab, mb = int(bool(c.get("attention_bias"))), int(bool(c.get("mlp_bias")))
    attention = 2 * h * (a + k) * d
    if ab:
        attention = 2 * h * (a + k) * d + (a + 2 * k) * d + h
    mlp = 3 * h * i + mb * (2 * i + h)
    per = attention + mlp + 2 * h
    sym = "2H(A + K)d" + (" + (A + 2K)d + H" if ab else "") + " + 3HI" + (" + 2I + H" if mb else "") + " + 2H"
    sub = f"2·{h}·({a} + {k})·{d}" + (f" + ({a} + 2·{k})·{d} + {h}" if ab else "") + f" + 3·{h}·{i}" + (
        f" + 2·{i} + {h}" if mb else "") + f" + 2·{h}"
    lines = [FormulaLine("embeddings", "V·H", f"{v}·{h}", v * h)]
    lines.extend(layers_lines(sym, sub, per, n))
    lines.append(FormulaLine("final_norm", "H", f"{h}", h))
    return lines


def formula(inv: Inventory) -> Formula:
    """Token table, L Llama layers (GQA attention, SwiGLU, two RMSNorms), the final RMSNorm, the head."""
    c = inv.config
    symbols = {"V": c["vocab_size"], "H": c["hidden_size"], "A": c["num_attention_heads"], "K": kv_heads(c),
               "d": head_size(c), "I": c["intermediate_size"], "L": c["num_hidden_layers"]}
    return Formula(symbols, tuple(body_lines(c) + head_line(inv)))


def sample_heads(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads that divide the hidden size, mostly K/V heads that divide them, now and then a head_dim."""
    heads = rng.choice([1, 2, 3, 4, 6, 8, 12, 16])
    config["num_attention_heads"] = heads
    config["hidden_size"] = heads * rng.randint(1, 24)
    roll = rng.random()
    if roll < 0.5:
        config["num_key_value_heads"] = rng.choice([k for k in range(1, heads + 1) if heads % k == 0])
    elif roll < 0.55:
        config["num_key_value_heads"] = heads + 1  # more K/V heads than heads: transformers builds it
    if rng.random() < 0.25:
        config["head_dim"] = rng.randint(1, 24)
    if rng.random() < 0.3:
        config["max_position_embeddings"] = rng.randint(1, 600)  # rotary: no tensor whatever its value


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """The heads; a padding row inside the drawn vocabulary (HF's default 128001 is not), or none."""
    sample_heads(rng, config)
    vocab = config.get("vocab_size", 128256)
    choice = rng.random()
    if choice < 0.1:
        config["pad_token_id"] = None
    elif choice < 0.15:
        config["pad_token_id"] = vocab  # outside the table: both sides refuse it
    elif vocab <= PAD_TOKEN_ID:
        config["pad_token_id"] = rng.randrange(vocab)


# --------------------------------------------------------------- training step


def rms_norm(sim: Sim, module: str, x: T) -> T:
    """``LlamaRMSNorm`` (:meth:`~calculator.costs.modules.Sim.rms_norm_llama`: what it keeps, and op by op in the
    lifetime simulator)."""
    return sim.rms_norm_llama(module, x)


def step_swiglu(sim: Sim, m: str, x: T) -> T:
    """``down(silu(gate(x)) * up(x))``: SiLU keeps its input, the product both factors; the gate's activation, the
    up projection and the product are temporaries of the expression."""
    mark = sim.scope()  # EuroBertMLP.forward
    gate = sim.linear(m + "gate_proj", x)
    act = sim.silu(gate)
    sim.release(gate)
    up = sim.linear(m + "up_proj", x)
    gated = sim.glu_product(act, up)
    sim.release(act, up)
    out = sim.linear(m + "down_proj", gated)
    sim.release(gated)
    return sim.end_scope(mark, out)


def step_attention(sim: Sim, x: T, a: str, heads: int, kv: int, d: int, rotary: tuple[T, T],
                   dropout: bool, mask: T | None = None) -> tuple[T, T | None]:
    """``EuroBertAttention``, every name dropped where the modeling file drops it:
    Q, K, V projected and split into heads, rotated (the projections gone once both are), then SDPA's flash kernel
    or eager attention (``matmul``, ``* scaling``, softmax in float32 cast back, dropout, ``matmul``, the context
    made contiguous), ``o_proj``. Returns its output and the probabilities (eager), which the layer holds.

    ``mask``: UltraBERT's sliding-window mask, made once by its model (eager: the float [B, 1, L, L] one, added to
    the scaled scores, a new tensor; SDPA: the boolean [1, 1, L, L] one: K and V then repeated to every head,
    ``use_gqa_in_sdpa`` being false with a mask, and ``scaled_dot_product_attention`` makes a new additive mask in
    the query's dtype for the call, two scalars then ``where``, which the kernel keeps)."""
    b, n, _ = x.shape
    mark = sim.scope()  # EuroBertAttention.forward

    def repeat(t: T) -> T:  # repeat_kv: [:, :, None] (a view), expand, reshape (a copy unless it can view)
        if kv == heads:
            return t
        w = t.shape[-1]  # d, or 2 for K rotated from one-wide heads
        wide = sim.expand_summed(sim.view(t, (b, kv, 1, n, w)), (b, kv, heads // kv, n, w))
        return sim.reshape(wide, (b, heads, n, w))

    q_lin, k_lin = sim.linear(a + "q_proj", x), sim.linear(a + "k_proj", x)
    q, k, v = sim.heads(q_lin, heads, d), sim.heads(k_lin, kv, d), sim.heads(sim.linear(a + "v_proj", x), kv, d)
    if rotary[0].shape[-1] != d:  # d = 1: cos and sin two wide, Q and K broadcast to them (GTE's rotation)
        q, k = sim.rotate_one_wide(q, k, *rotary)
    else:
        q, k = sim.rotary_plain(q, k, *rotary)
    sim.release(q_lin, k_lin)  # query_states, key_states rebound
    probs = None
    if sim.attention == "sdpa":
        inner = sim.scope()  # sdpa_attention_forward: fewer K/V heads go to the kernel as they are up to d = 256
        if mask is not None or k.shape[-1] != v.shape[-1] or v.shape[-1] > 256:  # use_gqa_in_sdpa (one-wide: K is 2)
            k, v = repeat(k), repeat(v)
        float_mask, copies = None, []
        if mask is not None:  # convert_boolean_attn_mask: two scalars, then where (in the query's dtype)
            originals = (v, k, q)
            if sim.lower is not None:  # autocast casts float32 q, k, v to bf16 first (v, k, q; copies the call drops
                # unless the kernel keeps them), so the mask is made in bf16 after them (measured)
                v, k, q = (sim.to_dtype(t, sim.lower) if t.itemsize == 4 else t for t in (v, k, q))
                copies = [t for t, was in zip((v, k, q), originals) if t is not was]
            size = q.itemsize
            sim.transients((size, size), (2, 2), ("aten.scalar_tensor", "aten.scalar_tensor"))
            float_mask = sim.constant_by("aten.where", (b, 1, n, n), size)
        out = sim.sdpa(q, k, v, float_mask)
        sim.release(*copies)
        sim.end_scope(inner, out)
        context = sim.reshape(sim.contiguous(sim.transpose(out, 1, 2)), (b, n, heads * d))
    else:
        inner = sim.scope()  # eager_attention_forward
        k, v = repeat(k), repeat(v)
        product = sim.bmm(q, sim.transpose(k, 2, 3))
        scores = sim.pointwise(product)  # * scaling
        sim.release(product)
        if mask is not None:
            scores = sim.rebind(scores, sim.add(scores, mask))
        probs = sim.softmax_to_float(scores)
        if q.itemsize != 4:
            probs = sim.rebind(probs, sim.to_dtype(probs, q.itemsize))
        sim.release(scores)
        probs = sim.rebind(probs, sim.dropout(probs, dropout))
        context = sim.bmm(probs, v)
        context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
        sim.end_scope(inner, context, probs)
        context = sim.reshape(context, (b, n, heads * d))
    out = sim.linear(a + "o_proj", context)
    sim.release(context)
    return sim.end_scope(mark, out, *([probs] if probs is not None else [])), probs


def step_layer(inv: Inventory, prefix: str, i: int, rotary: tuple[T, T],
               drop: bool | None = None, window_mask: T | None = None) -> Callable[[Sim, T], T]:
    """One ``EuroBertDecoderLayer`` (pre-norm): RMSNorm, GQA attention with rotary Q and K, + input;
    RMSNorm, SwiGLU, + input. Dropout only in the attention (``attention_dropout``, default 0).

    ``drop``: whether the attention dropout is active, where the key is another's (UltraVBERT's ``text_config``);
    None: this config's ``attention_dropout``. ``window_mask``: UltraBERT's sliding-window layer's mask, made once by
    its model (:func:`step_attention` says what each attention makes of it).
    Replayed name by name for every head size the step runs (issue 32): an even one (cos and sin as wide as Q and K),
    one (Q and K broadcast to the two-wide tables: GTE's rotation, LiveSim.rotate_one_wide; under SDPA V is
    narrower, so the math path); odd sizes above one are refused with layers (:func:`step_check`), and with no
    layer no attention reads cos and sin (made 2·ceil(d / 2) wide and dropped unread; measured for d = 1 and 3)."""
    p = f"{prefix}layers.{i}."
    c = inv.config
    heads, kv, d = c["num_attention_heads"], kv_heads(c), head_size(c)

    def run(sim: Sim, x: T) -> T:
        a = p + "self_attn."
        attention_drop = sim.drops("attention_dropout") if drop is None else drop
        layer = sim.scope()  # EuroBertDecoderLayer.forward, name by name (autocast too)
        normed = rms_norm(sim, p + "input_layernorm", x)
        out, _ = step_attention(sim, normed, a, heads, kv, d, rotary, attention_drop, window_mask)
        sim.release(normed)
        first = sim.add(x, out)
        sim.release(out)
        normed = rms_norm(sim, p + "post_attention_layernorm", first)
        m = step_swiglu(sim, p + "mlp.", normed)
        sim.release(normed)
        total = sim.add(first, m)
        sim.release(m)
        return sim.end_scope(layer, total)  # the residuals and the probabilities (``_``) go

    return run


def step_body(sim: Sim, inv: Inventory, b: int, n: int, layer: Callable[..., Callable[[Sim, T], T]] = step_layer) -> T:
    """The token table, cos and sin once (no graph), the layers, the final RMSNorm."""
    prefix = bert.step_prefix(inv)
    c = inv.config
    mark = sim.scope()  # EuroBertModel.forward: inputs_embeds and position_ids named until it returns
    x = sim.embedding(prefix + "embed_tokens", sim.ids((b, n)), first=True)
    positions = sim.constant_by("aten.arange", (1, n), 8)
    rotary = modernbert.step_rotary_tables(sim, n, 2 * ((head_size(c) + 1) // 2))
    for i in range(c["num_hidden_layers"]):
        # Under non-reentrant checkpointing the frame keeps the layer's keyword arguments too (tables, positions);
        # under reentrant checkpointing the ``partial`` holding them stays with the graph (LiveSim.layer_argument).
        if sim.checkpointing and sim.reentrant:
            for argument in (*rotary, positions):
                sim.layer_argument(argument, counted=False)
        keyword = () if sim.checkpointing and sim.reentrant else (*rotary, positions)
        y = sim.layer(layer(inv, prefix, i, rotary), x, keyword)
        if i:
            sim.release(x)  # hidden_states rebound (the embeddings' output stays: inputs_embeds names it)
        x = y
    return sim.end_scope(mark, rms_norm(sim, prefix + "norm", x))


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """EuroBERT's classes. Sequence classification pools as ``classifier_pooling`` says: "late" runs
    dense, GELU and the classifier on every token, then averages the logits; "bos" takes the first
    token, "mean" averages the tokens, before them."""
    sim.exact_lifetimes()  # issue 32: replayed op by op (every head size the step runs: step_layer)
    sim.exact_forward()
    # and under autocast (rotated Q and K float32: _times_table), SDPA under checkpointing too (the replay's
    # backward was 72 bytes, B·L float32, above LiveBytes': RMSNorm's weight gradient summed after a checkpointed
    # layer's unpacked states went, LiveSim.rms_norm_llama)
    sim.exact_autocast()
    seq = step_body(sim, inv, b, n)
    kind = bert.step_task(inv)
    if kind == "":
        return [seq]
    if kind == "ForMaskedLM":
        return [sim.linear("lm_head", seq)]
    if kind == "ForTokenClassification":
        return [sim.linear("classifier", seq)]
    if kind == "ForSequenceClassification":
        pooling = inv.config["classifier_pooling"]
        if pooling == "late":
            x = sim.linear("dense", seq)
            x = sim.rebind(x, sim.keep_input(x))  # GELU
            logits = sim.linear("classifier", x)
            return [sim.rebind(logits, sim.mean_tokens(logits))]  # mean over the tokens: keeps nothing
        pooled = sim.select(seq, 1) if pooling == "bos" else sim.mean_tokens(seq)
        x = sim.linear("dense", pooled)
        if pooling == "mean":
            sim.release(pooled)  # pooled_output rebound (bos's is a view of the encoder's output, still named)
        return [sim.linear("classifier", sim.rebind(x, sim.keep_input(x)))]
    raise AssertionError(inv.architecture)


def rotary_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """``EuroBertRotaryEmbedding``'s non-persistent ``inv_freq`` and ``original_inv_freq`` [ceil(d / 2)], floating
    (0: cast with the model, as ``model.to(dtype)`` casts them)."""
    half = (head_size(inv.config) + 1) // 2
    prefix = inv.arch.prefix + "rotary_emb."
    return [(prefix + "inv_freq", (half,), 0), (prefix + "original_inv_freq", (half,), 0)]


def step_check(inv: Inventory) -> None:
    """Odd head sizes (rotary); K/V heads that do not divide the heads (``repeat_kv`` then makes a head
    count Q cannot be multiplied with): transformers fails on both."""
    c = inv.config
    jina.rotary_check(head_size(c), c["num_hidden_layers"])
    kv = kv_heads(c)
    if c["num_hidden_layers"] > 0 and c["num_attention_heads"] % kv:
        raise CalcError("costs_kv_heads", heads=c["num_attention_heads"], kv_heads=kv)


#: EuroBertConfig's defaults: SiLU (the program's; another is refused until read), attention dropout 0.
#: Rotary: no length bound.
COSTS = CostModel(step_program, None, check=step_check, keys=(
    *unread((activation_key("silu"),)), *dropouts("attention_dropout", default=0.0)),
    autocast=True, sdpa=True, sdpa_dropout=("attention_dropout",), buffers=rotary_buffers,
    reentrant=True)


def eurobert_config(hidden: int, layers: int, heads: int, inter: int, kv: int | None = None) -> dict[str, Any]:
    """A EuroBERT config.json's size-relevant keys (vocabulary 128,256; untied head unless it says so)."""
    out = {"model_type": "eurobert", "vocab_size": 128256, "hidden_size": hidden, "num_hidden_layers": layers,
           "num_attention_heads": heads, "intermediate_size": inter, "pad_token_id": PAD_TOKEN_ID}
    if kv is not None:
        out["num_key_value_heads"] = kv
    return out


FAMILY = Family(
    model_type="eurobert",
    base="EuroBertModel",
    fields=FIELDS,
    backbone=backbone,
    read=read,
    pad_token_id=PAD_TOKEN_ID,
    architectures=(
        Architecture(name="EuroBertModel", task=Task.MODEL, prefix="", pooler=False),
        Architecture(name="EuroBertForMaskedLM", task=Task.MASKED_LM, prefix="model.", pooler=False, head=lm_head, ties_embeddings=True),
        Architecture(name="EuroBertForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix="model.", pooler=False, head=sequence_head,
                     uses_num_labels=True),
        Architecture(name="EuroBertForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix="model.", pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
    ),
    title={"en": "EuroBERT", "zh": "EuroBERT"},
    formula=formula,
    presets=(
        # EuroBERT/EuroBERT-210m: EuroBertConfig's defaults are this checkpoint's ("EuroBERT/EuroBERT-210m" in
        # configuration_eurobert.py, transformers 5.23); https://huggingface.co/EuroBERT/EuroBERT-210m
        Preset("EuroBERT/EuroBERT-210m", eurobert_config(768, 12, 12, 3072), "EuroBertForMaskedLM"),
    ),
    sample=sample,
    rank=58,
    default_attention="sdpa",
    costs=COSTS,
)
