"""keras-bert's ``get_model(...)`` (CyberZHG/keras-bert 0.89 on tf-keras 2.x).

The config keys are the arguments of ``get_model``; the tensors are the Keras
weights with the names tf-keras gives them (``<layer>/<weight>:0``), and
``keras_layers`` is what ``model.summary()`` prints, zero-parameter rows
included, in the same order.

What the library builds, read from its source (keras-bert 0.89.0,
keras-transformer 0.40.0, keras-multi-head 0.29.0, keras-layer-normalization
0.16.0, keras-position-wise-feed-forward 0.8.0, keras-pos-embd 0.13.0):

* three embeddings of width ``embed_dim``: tokens (``token_num`` rows), two
  segments, and ``pos_num`` positions (not ``seq_len``: the input length does
  not change any count), then a LayerNormalization (gamma, beta);
* ``transformer_num`` blocks of MultiHeadAttention (Wq, bq, Wk, bk, Wv, bv, Wo, bo:
  ``4·(D² + D)``, with the heads only reshaping), a LayerNormalization, a
  FeedForward (W1 ``[D, F]``, b1 ``[F]``, W2 ``[F, D]``, b2 ``[D]``) and another
  LayerNormalization; Dropout layers exist only when ``dropout_rate > 0``;
* with ``training=True`` the pre-training heads: MLM-Dense, MLM-Norm, MLM-Sim
  (only a ``[token_num]`` bias: the logits reuse the token embedding, which the
  summary counts once, under Embedding-Token), NSP-Dense (dense + tanh on the
  first token: what other BERT code calls the pooler) and NSP (2-way softmax).
  With ``training=False`` ``get_model`` returns ``(inputs, output)``; the model
  counted is ``keras.models.Model(inputs, output)``, as keras-bert's own loader
  builds it: two inputs, no heads.

Trainability: ``trainable`` defaults to ``training``, so ``training=False`` gives
a frozen encoder unless ``trainable=True`` is passed. It may also be a list of
layer-name prefixes; a layer (and so each of its weights) is trainable when its
name starts with one of them. Keras 2.7 and later reject such a list
(keras-bert forwards it to ``LayerNormalization(trainable=...)``, whose
constructor wants a bool), so with current TensorFlow only the bool forms run;
we model what the list means in keras-bert's code.

The summary order is Keras's: layers sorted by their depth from the outputs,
which is why ``Extract`` and ``Input-Masked`` appear among the heads. The
graph's shape does not depend on any size, so the order is a fixed pattern
(checked against the real library in ``tests/crosscheck``).

``token_num`` has no default in ``get_model``; we use 30000, the vocabulary of
the widely quoted example (a Data Science StackExchange question) that gives
109,705,010.

Reading the config: ``dropout_rate`` (a float) and a prefix list for
``trainable`` are not integers or booleans, so the shared field reader in
:mod:`calculator.config` cannot carry them. :func:`read_config`, the family's
``read`` hook that ``calculator.build.build`` calls, reads them beside the
shared fields (:func:`read_options`); unset, ``dropout_rate`` is ``get_model``'s
default (0.1: Dropout rows present) and ``trainable`` follows ``training``. The
calculator page has no field for them, so they travel in its link
(``calculator.api``'s canonical query) whenever they differ from those defaults.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

import json

from ..config import MAX_LAYERS, Field, check_heads, coerce_bool, coerce_fraction, loads_bounded, read_fields
from ..errors import CalcError
from ..model import KerasLayer, Tensor, section_for
from .base import Architecture, Extra, Family, Task
from .common import L

MODEL_TYPE = "keras-bert"
ARCHITECTURE = "get_model"
#: ``get_model``'s own default.
DEFAULT_DROPOUT = 0.1

FIELDS = (
    Field("token_num", 30000, label=L("Vocabulary size", "词表大小")),
    Field("pos_num", 512, label=L("Positions", "最大位置数")),
    Field("seq_len", 512, label=L("Input length (changes no count)", "输入长度（不影响参数量）")),
    Field("embed_dim", 768, label=L("Hidden size", "隐藏层维度")),
    Field("transformer_num", 12, minimum=0, maximum=MAX_LAYERS, label=L("Encoder layers", "编码器层数")),
    Field("head_num", 12, label=L("Attention heads", "注意力头数")),
    Field("feed_forward_dim", 3072, label=L("Feed-forward inner size", "前馈网络中间层维度")),
    Field("training", True, kind="bool", label=L("Add the pre-training heads (training=True)", "带上预训练任务头（training=True）")),
)

# A summary row before it becomes a KerasLayer, and one of its weights.
_Weight = tuple  # (weight name, shape, group, encoder index or None)
_Row = tuple  # (layer name, class name, list of _Weight)


# ------------------------------------------------------------------ reading


def coerce_trainable(value: Any) -> bool | tuple[str, ...] | None:
    """``None`` (follow ``training``), a bool, or a list of layer-name prefixes."""
    if value is None:
        return None
    if isinstance(value, (list, tuple, set, frozenset)):
        prefixes = list(value)
        if not all(isinstance(p, str) for p in prefixes):
            raise CalcError("bad_value", key="trainable", value=value)
        return tuple(sorted(prefixes)) if isinstance(value, (set, frozenset)) else tuple(prefixes)
    return coerce_bool("trainable", value)


def read_options(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The two arguments the integer/boolean field reader cannot carry."""
    dropout = raw.get("dropout_rate")
    return {
        "dropout_rate": DEFAULT_DROPOUT if dropout is None else coerce_fraction("dropout_rate", dropout),
        "trainable": coerce_trainable(raw.get("trainable")),
    }


def read_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Every ``get_model`` argument we model, validated, with ``get_model``'s defaults."""
    if not isinstance(raw, Mapping):
        raise CalcError("not_an_object", kind=type(raw).__name__)
    c = read_fields(FIELDS, raw, {})
    check_heads(c, "embed_dim", "head_num")
    c.update(read_options(raw))
    return c


# ----------------------------------------------------------------- building


def _embeddings(c: dict[str, Any], dropout: bool) -> list[_Row]:
    d = c["embed_dim"]
    rows: list[_Row] = [
        ("Input-Token", "InputLayer", []),
        ("Input-Segment", "InputLayer", []),
        ("Embedding-Token", "TokenEmbedding", [("embeddings", (c["token_num"], d), "embeddings", None)]),
        ("Embedding-Segment", "Embedding", [("embeddings", (2, d), "embeddings", None)]),
        ("Embedding-Token-Segment", "Add", []),
        ("Embedding-Position", "PositionEmbedding", [("embeddings", (c["pos_num"], d), "embeddings", None)]),
    ]
    if dropout:
        rows.append(("Embedding-Dropout", "Dropout", []))
    rows.append(("Embedding-Norm", "LayerNormalization", _norm(d, "embeddings", None)))
    return rows


def _norm(d: int, group: str, layer: int | None) -> list[_Weight]:
    return [("gamma", (d,), group, layer), ("beta", (d,), group, layer)]


def _wrap(block: str, d: int, i: int, dropout: bool) -> list[_Row]:
    """keras-transformer's ``_wrap_layer``: optional Dropout, residual Add, LayerNormalization."""
    rows: list[_Row] = [(f"{block}-Dropout", "Dropout", [])] if dropout else []
    rows.append((f"{block}-Add", "Add", []))
    rows.append((f"{block}-Norm", "LayerNormalization", _norm(d, "layer_norm", i)))
    return rows


def _encoder(c: dict[str, Any], dropout: bool) -> list[_Row]:
    d, f = c["embed_dim"], c["feed_forward_dim"]
    rows: list[_Row] = []
    for i in range(c["transformer_num"]):
        att = f"Encoder-{i + 1}-MultiHeadSelfAttention"
        ffn = f"Encoder-{i + 1}-FeedForward"
        weights: list[_Weight] = []
        for proj in "qkv":
            weights.append((f"{att}_W{proj}", (d, d), "attention_qkv", i))
            weights.append((f"{att}_b{proj}", (d,), "attention_qkv", i))
        weights.append((f"{att}_Wo", (d, d), "attention_output", i))
        weights.append((f"{att}_bo", (d,), "attention_output", i))
        rows.append((att, "MultiHeadAttention", weights))
        rows += _wrap(att, d, i, dropout)
        rows.append((ffn, "FeedForward", [
            (f"{ffn}_W1", (d, f), "feed_forward", i), (f"{ffn}_b1", (f,), "feed_forward", i),
            (f"{ffn}_W2", (f, d), "feed_forward", i), (f"{ffn}_b2", (d,), "feed_forward", i),
        ]))
        rows += _wrap(ffn, d, i, dropout)
    return rows


def _heads(c: dict[str, Any]) -> list[_Row]:
    """The pre-training heads, in Keras's depth order (Extract and Input-Masked fall in between)."""
    d = c["embed_dim"]
    return [
        ("MLM-Dense", "Dense", [("kernel", (d, d), "head", None), ("bias", (d,), "head", None)]),
        ("MLM-Norm", "LayerNormalization", _norm(d, "head", None)),
        ("Extract", "Extract", []),
        ("MLM-Sim", "EmbeddingSimilarity", [("bias", (c["token_num"],), "head", None)]),
        ("Input-Masked", "InputLayer", []),
        ("NSP-Dense", "Dense", [("kernel", (d, d), "head", None), ("bias", (d,), "head", None)]),
        ("MLM", "Masked", []),
        ("NSP", "Dense", [("kernel", (d, 2), "head", None), ("bias", (2,), "head", None)]),
    ]


def layer_is_trainable(name: str, training: bool, trainable: bool | tuple[str, ...] | None) -> bool:
    """keras-bert's rule: ``trainable`` (default: ``training``), or a prefix match on the layer name."""
    if trainable is None:
        trainable = training
    if isinstance(trainable, tuple):
        return any(name.startswith(prefix) for prefix in trainable)
    return bool(trainable)


def build_tensors(c: dict[str, Any], architecture: str = ARCHITECTURE) -> tuple[tuple[Tensor, ...], tuple[KerasLayer, ...]]:
    """The ``custom`` builder: weights in ``model.weights`` order and the summary rows."""
    training = c["training"]
    trainable = c.get("trainable")
    dropout = c.get("dropout_rate", DEFAULT_DROPOUT) > 0
    if not training and c["transformer_num"] == 0:
        # get_model(training=False) picks the last encoder block's output and fails without one.
        raise CalcError("zero", key="transformer_num", value=0)
    rows = _embeddings(c, dropout) + _encoder(c, dropout)
    if training:
        rows += _heads(c)
    tensors: list[Tensor] = []
    layers: list[KerasLayer] = []
    for name, cls, weights in rows:
        on = layer_is_trainable(name, training, trainable)
        count = 0
        for short, shape, group, index in weights:
            tensors.append(
                Tensor(f"{name}/{short}:0", shape, group, index, None, on, section=section_for(group, index, "encoder"))
            )
            count += math.prod(shape)
        layers.append(KerasLayer(name, cls, count, on))
    return tuple(tensors), tuple(layers)


def _dropout_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    rate = config.get("dropout_rate", DEFAULT_DROPOUT)
    return None if rate == DEFAULT_DROPOUT else repr(float(rate))


def _trainable_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    value = config.get("trainable")
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    return json.dumps(list(value), ensure_ascii=False, separators=(",", ":"))


def _trainable_from_query(text: str) -> Any:
    """``1``/``0``/``true``/``false``, or a JSON list of layer-name prefixes."""
    text = text.strip()
    if text.startswith("["):
        try:
            # Depth counted before parsing: a link nested thousands deep would overflow Pyodide's stack.
            return loads_bounded(text)
        except (ValueError, RecursionError):  # CalcError (too deep) is a ValueError too
            raise CalcError("bad_value", key="trainable", value=text) from None
    return text


#: Not integers or booleans, and no field in the form: they travel in the page's link.
EXTRAS = (
    Extra("dropout_rate", lambda text: text.strip(), _dropout_query),
    Extra("trainable", _trainable_from_query, _trainable_query),
)


FAMILY = Family(
    model_type=MODEL_TYPE,
    base=ARCHITECTURE,
    fields=FIELDS,
    architectures=(Architecture(name=ARCHITECTURE, task=Task.MODEL, prefix="", pooler=False),),
    heads_check=("embed_dim", "head_num"),
    builder=build_tensors,
    read=read_config,
    pad_token_id=None,
    title={"en": "keras-bert get_model()", "zh": "keras-bert 的 get_model()"},
    extras=EXTRAS,
    config_json=False,
    legend="fields_legend_keras",
    transformers=False,
    costs_refusal="costs_keras",  # a Keras model: the step is defined and measured in PyTorch
    rank=90,
)
