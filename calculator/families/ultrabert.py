"""UltraBERT (``modeling_ultrabert.py``, native in transformers 5.23): EuroBERT's body with sliding windows.

transformers 5.23 generates it from ``modular_ultrabert.py``: ``UltrabertModel(EuroBertModel)``, so the
tensors are EuroBERT's (``embed_tokens`` with ``padding_idx = pad_token_id``, default 0; per layer
Llama's attention with grouped K/V, the SwiGLU MLP, two RMSNorms; a final RMSNorm ``norm``), and:

* Layers alternate sliding-window and full attention (``layer_types``, ``sliding_window`` 128), each
  kind with its own rotary base: non-persistent buffers, no tensor.
* The masked-LM class is ModernBERT's with its own head (``UltrabertPredictionHead``):
  ``head.linear1`` [P, H] and ``head.linear2`` [H, P] (P = ``prediction_head_size``, 768; no biases),
  then ``head.decoder`` [V, H] without bias, tied to ``model.embed_tokens`` only when
  ``tie_word_embeddings`` (default False).
* Sequence and token classification are ModernBERT's with the head removed (``nn.Identity``): one
  ``classifier`` [labels, H] with its bias. Question answering is the generic class: ``qa_outputs``
  [2, H], two outputs whatever ``num_labels`` says.
"""
from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any, Mapping

from ..config import Field, read_fields
from ..errors import CalcError
from ..costs import CostModel, Sim, T, activation_key, dropouts, size_key, step_value, unread
from ..formula import Formula, head_line
from ..model import Inventory, TensorList
from . import bert, eurobert, modernbert
from .base import Extra, Family, Task
from .common import HEADS, HIDDEN, LABELS, LAYERS, TIE, VOCAB, L, _link_value as link_value

FIELDS = (
    replace(VOCAB, default=32000),
    Field(
        "pad_token_id", 0, minimum=0, optional=True,
        label=L("Padding token id (pad_token_id; that row must exist, so V > it)",
                "填充符的 token id（pad_token_id；词嵌入表里必须有这一行，所以 V 要大于它）"),
    ),
    replace(HIDDEN, default=4096),
    replace(LAYERS, default=32),
    replace(HEADS, default=32),
    eurobert.KV_HEADS,
    eurobert.HEAD_DIM,
    replace(eurobert.SWIGLU_INTERMEDIATE, default=11008),
    eurobert.ATTENTION_BIAS,
    eurobert.MLP_BIAS,
    Field(
        "prediction_head_size", 768,
        label=L("Masked-LM head width (prediction_head_size)", "掩码语言模型头的宽度（prediction_head_size）"),
        sample=(1, 64),
    ),
    Field(
        "classifier_pooling", "cls", kind="choice", choices=("cls", "mean"),
        label=L("Classifier pooling (classifier_pooling; adds no parameters)", "分类池化方式（classifier_pooling；不增加参数）"),
        sample=(0, 1),
    ),
    LABELS,
    replace(TIE, default=False),
)


#: The layer kinds ``UltrabertConfig`` accepts (``validate_layer_type``).
LAYER_TYPES = ("full_attention", "sliding_attention")


class Values(dict):
    """The values read, plus each layer's attention kind (``layer_kinds``) and, from a legacy
    ``attention_windows``, the window it sets (``window``): not tensor sizes, so not fields, but the training
    step's (one pair of rotary tables per kind, SDPA's mask on sliding layers)."""

    layer_kinds: tuple[str, ...] = ()
    window: int | None = None


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, the head sizes transformers refuses (EuroBERT's checks), and each layer's attention kind as
    ``UltrabertConfig.__post_init__`` sets it: ``layer_types``; else a legacy ``attention_windows`` (a window
    per layer: 0 full attention, else sliding, the first nonzero one becoming ``sliding_window``); else every
    third layer full. ``validate_layer_type`` refuses a list of another length or with another kind."""
    values = read_fields(FIELDS, raw, {})
    eurobert.check_kv(values)
    layers = values["num_hidden_layers"]
    kinds, key, window = raw.get("layer_types"), "layer_types", None
    windows = raw.get("attention_windows")
    if windows is not None:
        if not isinstance(windows, list) or any(isinstance(w, bool) or not isinstance(w, int) or w < 0 for w in windows):
            raise CalcError("bad_value", key="attention_windows", value=windows)
        window = next((w for w in windows if w), None)
        if kinds is None:
            kinds, key = ["sliding_attention" if w else "full_attention" for w in windows], "attention_windows"
    if kinds is not None and (not isinstance(kinds, list) or len(kinds) != layers
                              or any(k not in LAYER_TYPES for k in kinds)):
        raise CalcError("bad_value", fields=("num_hidden_layers",), key=key, value=kinds)
    out = Values(values)
    out.layer_kinds = tuple(kinds) if kinds is not None else tuple(layer_types(layers))
    out.window = window
    return out


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    """EuroBERT's body, unchanged."""
    eurobert.backbone(t, c, prefix, with_pooler)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``UltrabertPredictionHead``: linear1, linear2 (no biases), the decoder (no bias, tied when asked)."""
    h, p, v = c["hidden_size"], c["prediction_head_size"], c["vocab_size"]
    t.linear("head.linear1", p, h, "head", bias=False)
    t.linear("head.linear2", h, p, "head", bias=False)
    tie = prefix + "embed_tokens.weight" if c["tie_word_embeddings"] else None
    t.add("head.decoder.weight", (v, h), "head", shares=tie, module="linear")


def formula(inv: Inventory) -> Formula:
    """EuroBERT's body as named terms, then the head tensor by tensor."""
    c = inv.config
    symbols = {"V": c["vocab_size"], "H": c["hidden_size"], "A": c["num_attention_heads"],
               "K": eurobert.kv_heads(c), "d": eurobert.head_size(c), "I": c["intermediate_size"],
               "L": c["num_hidden_layers"]}
    return Formula(symbols, tuple(eurobert.body_lines(c) + head_line(inv)))


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """EuroBERT's heads; a padding row inside the drawn vocabulary mostly; a small body (the defaults are 7B);
    now and then ``layer_types`` or a legacy ``attention_windows``."""
    eurobert.sample_heads(rng, config)
    vocab = config.get("vocab_size", 32000)
    choice = rng.random()
    if choice < 0.1:
        config["pad_token_id"] = None
    elif choice < 0.15:
        config["pad_token_id"] = vocab  # outside the table: both sides refuse it
    else:
        config["pad_token_id"] = rng.randrange(vocab)
    choice = rng.random()
    layers = config.get("num_hidden_layers", 32)
    if choice < 0.2:  # each layer's kind given (now and then one too many: refused on both sides)
        config["layer_types"] = [rng.choice(LAYER_TYPES) for _ in range(layers + rng.choice([0, 0, 0, 1]))]
    elif choice < 0.3:  # a legacy checkpoint's windows per layer (0: full attention)
        config["attention_windows"] = [rng.choice([0, rng.randint(1, 8)]) for _ in range(layers)]


def _kinds_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """The share link's ``layer_types``: each layer's kind as :func:`read` decided it (from ``layer_types``, else a
    legacy ``attention_windows``), left out when it is UltrabertConfig's default for the depth."""
    kinds = list(getattr(config, "layer_kinds", ()))
    if not kinds or kinds == layer_types(len(kinds)):
        return None
    return json.dumps(kinds, separators=(",", ":"))


def _windows_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """The share link's legacy ``attention_windows`` as given (its first nonzero window is the sliding layers'
    window, :attr:`Values.window`), left out when the config has none."""
    windows = raw.get("attention_windows")
    return json.dumps(windows, separators=(",", ":")) if isinstance(windows, list) else None


#: What the share link carries besides the fields: each layer's kind and a legacy checkpoint's windows, which
#: the training step reads (one pair of rotary tables per kind, SDPA's mask on the sliding layers).
EXTRAS = (Extra("layer_types", link_value, _kinds_query), Extra("attention_windows", link_value, _windows_query))


# --------------------------------------------------------------- training step


def layer_types(layers: int) -> list[str]:
    """``UltrabertConfig``'s default ``layer_types``: every third layer full attention, the others sliding."""
    return ["sliding_attention" if (i + 1) % 3 else "full_attention" for i in range(layers)]


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """UltraBERT's classes: the body (cos and sin once per layer kind present), the final RMSNorm, the heads.
    Replayed op by op (issue 32) as EuroBERT's: every head size it runs, either kind of checkpointing."""
    sim.exact_lifetimes()  # reentrant checkpointing too (the layers' keywords kept by the partial)
    sim.exact_forward()
    sim.exact_autocast()  # EuroBERT's layer under bf16 autocast (issue 32: measured, the same copies)
    seq = step_body(sim, inv, bert.step_prefix(inv), b, n)
    return bert.run_head(ULTRABERT_HEADS, sim, inv, seq, None)  # the classifiers' dropout: classifier_dropout


#: ``masking_utils.sdpa_mask`` for a window (``sliding_window_bidirectional_mask_function``), as measured with
#: LiveBytes (the same as ModernBERT's, :func:`.modernbert.step_body`): per storage its size as a function of
#: (B, L), the index after whose allocation it is dropped, and its aten operation; the boolean [1, 1, L, L] mask next.
def _window_mask(sim: Sim, b: int, n: int) -> T:
    sim.transients((8 * b, 8, 8 * n, 8 * n, 8 * n, 8 * n, 1, 8 * n * n, 8 * n * n, n * n, n * n, n),
                   (12, 12, 3, 12, 5, 12, 10, 8, 9, 10, 12, 12),
                   ("aten.arange", "aten.arange", "aten.arange", "aten.add", "aten.arange", "aten.add",
                    "aten.new_ones", "aten.sub", "aten.abs", "aten.le", "aten.bitwise_and", "aten.ge"))
    return sim.constant_by("aten.bitwise_and", (1, 1, n, n), 1)


def step_body(sim: Sim, inv: Inventory, prefix: str, b: int, n: int, drop: bool | None = None) -> T:
    """``UltrabertModel.forward`` name by name: ``inputs_embeds``, ``position_ids`` (an int64 arange), the two
    masks (full attention's None without padding; the window's from L = ``sliding_window`` on, whether or not a
    layer slides: boolean [1, 1, L, L] for SDPA, eager's ``where`` into the model's dtype, [B, 1, L, L], the
    boolean one dropped), cos and sin per kind present, the layers (EuroBERT's, the sliding ones given the mask),
    the final RMSNorm; every local named until it returns. ``inv.config`` holds UltraBERT's own keys (UltraVBERT
    passes a view of its ``text_config``'s, and ``drop``, its attention dropout's activity)."""
    c = inv.config
    kinds = kinds_of(c)
    window = getattr(c, "window", None) or step_value(inv, "sliding_window", 128)
    mark = sim.scope()
    x = sim.embedding(prefix + "embed_tokens", sim.ids((b, n)), first=True)
    positions = sim.constant_by("aten.arange", (1, n), 8)
    mask = None
    if n >= window:
        mask = _window_mask(sim, b, n)
        if sim.attention != "sdpa":  # eager_mask: where(mask, 0, min) in the model's dtype
            size = sim.itemsize
            sim.transients((size, size), (2, 2), ("aten.zeros", "aten.scalar_tensor"))
            boolean, mask = mask, sim.constant_by("aten.where", (b, 1, n, n), size)
            sim.release(boolean)
    d = eurobert.head_size(c)
    tables = {kind: modernbert.step_rotary_tables(sim, n, d) for kind in sorted(set(kinds))}
    for i, kind in enumerate(kinds):
        own = mask if kind == "sliding_attention" else None
        # Under non-reentrant checkpointing the frame keeps the layer's keyword arguments (tables, positions, mask);
        # under reentrant checkpointing CheckpointFunction's partial keeps them until the graph goes.
        args: tuple[T, ...] = (*tables[kind], positions, *([own] if own is not None else []))
        if sim.checkpointing and sim.reentrant:
            for argument in args:
                sim.layer_argument(argument, counted=False)
            args = ()
        y = sim.layer(eurobert.step_layer(inv, prefix, i, tables[kind], drop, own), x, args)
        if i:
            sim.release(x)  # hidden_states rebound (the embeddings' output stays: inputs_embeds names it)
        x = y
    return sim.end_scope(mark, eurobert.rms_norm(sim, prefix + "norm", x))


def mlm_step(names: tuple[str, str, str]) -> bert.HeadStep:
    """The masked-LM head on the final norm's output, its two projections and the decoder named by ``names``
    (UltraBERT's ``head.*``; UltraVBERT's ``projection_head.*`` and ``lm_head``): decoder(head(h)): linear1, GELU
    (tanh), linear2, GELU (tanh); each name rebound."""

    def step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
        mark = sim.scope()  # UltrabertPredictionHead.forward
        h = sim.linear(names[0], seq)
        h = sim.rebind(h, sim.keep_input(h))
        h = sim.rebind(h, sim.linear(names[1], h))
        h = sim.rebind(h, sim.keep_input(h))
        h = sim.end_scope(mark, h)
        logits = sim.linear(names[2], h)
        sim.release(h)  # the head's output: a temporary of the expression
        return [logits]

    return step


def classification_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """Pooling as the class's config says (``classifier_pooling``: the first token, or the masked mean), the
    dropout ``dropout_key`` names, ``classifier``."""
    pooling = sim.inv.config["classifier_pooling"]
    if pooling == "cls":
        pooled = sim.select(seq, 1)
    else:  # (h · mask[..., None]).sum(1) / mask.sum(1, keepdim): the product keeps the bool mask, the
        pooled = sim.masked_mean(seq)  # division its int64 count (ModernBERT's pooling, the same code)
    dropped = sim.dropout(pooled, sim.drops(dropout_key))
    if dropped is not pooled and pooling != "cls":
        sim.release(pooled)  # pooled_output rebound (cls's is a view of the body's output, still named)
    return [sim.linear("classifier", dropped)]


#: UltraBERT's classes, by task: each head's tensors and its forward on the final norm's output.
ULTRABERT_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True,
                              step=mlm_step(("head.linear1", "head.linear2", "head.decoder"))),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                            step=classification_step),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                         step=bert.token_classifier_step),
    Task.QUESTION_ANSWERING: bert.Head(False, bert.linear_head("qa_outputs", 2), step=bert.qa_step),
}


def rotary_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """``UltrabertRotaryEmbedding``'s non-persistent buffers: per kind of layer present, ``{kind}_inv_freq`` and
    ``{kind}_original_inv_freq`` [ceil(d / 2)] (``arange(0, d, 2)``), floating (0: cast with the model)."""
    half = (eurobert.head_size(inv.config) + 1) // 2
    prefix = inv.arch.prefix + "rotary_emb."
    return [(f"{prefix}{kind}_{name}", (half,), 0) for kind in sorted(set(kinds_of(inv.config)))
            for name in ("inv_freq", "original_inv_freq")]


def kinds_of(c: Mapping[str, Any]) -> list[str]:
    """Each layer's kind: the config's (:func:`read`), else UltrabertConfig's default for the depth."""
    kinds = list(getattr(c, "layer_kinds", ()))
    return kinds if len(kinds) == c["num_hidden_layers"] else layer_types(c["num_hidden_layers"])


#: UltrabertConfig's defaults: SiLU (the program's; another is refused until read), attention and classifier
#: dropout 0. Rotary: no length bound.
COSTS = CostModel(step_program, None, check=eurobert.step_check, keys=(
    *unread((activation_key("silu"),)), *dropouts("attention_dropout", "classifier_dropout", default=0.0),
    size_key("sliding_window", 128)), autocast=True, sdpa=True, sdpa_dropout=("attention_dropout",),
    buffers=rotary_buffers, reentrant=True)


FAMILY = Family(
    model_type="ultrabert",
    base="UltrabertModel",
    fields=FIELDS,
    backbone=backbone,
    read=read,
    pad_token_id=0,
    architectures=(
        bert.task_class("UltrabertModel", Task.MODEL, "", ULTRABERT_HEADS[Task.MODEL]),
        bert.task_class("UltrabertForMaskedLM", Task.MASKED_LM, "model.", ULTRABERT_HEADS[Task.MASKED_LM],
                        identities=("decoder",)),  # modeling_ultrabert.py: ``self.decoder = nn.Identity()``
        *bert.task_classes("Ultrabert", "model.", (Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION,
                                                   Task.QUESTION_ANSWERING), ULTRABERT_HEADS),
    ),
    title={"en": "UltraBERT", "zh": "UltraBERT"},
    formula=formula,
    presets=(),
    sample=sample,
    rank=62,
    default_attention="sdpa",
    extras=EXTRAS,
    costs=COSTS,
)
