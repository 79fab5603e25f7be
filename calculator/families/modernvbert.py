"""ModernVBERT (``modeling_modernvbert.py``, native in transformers 5.23): a SigLIP vision tower, a pixel-shuffle
connector, and a ModernBERT text encoder, in one model.

``ModernVBertModel`` registers, in this order:

* ``vision_model``: ``AutoModel.from_config(vision_config)``, a ``SiglipVisionModel``: the patch
  ``nn.Conv2d`` (``embeddings.patch_embedding``, [Hv, C, p, p] and a bias), a learned position table of
  (image_size // p)² rows (its ``position_ids`` buffer is not persistent: not in ``state_dict``), ``Lv`` pre-norm
  layers (``layer_norm1``; ``self_attn`` with ``k_proj``, ``v_proj``, ``q_proj`` in that order and
  ``out_proj``, all biased; ``layer_norm2``; ``mlp.fc1`` [Iv, Hv], ``mlp.fc2``), ``post_layernorm``, and, with
  ``vision_use_head`` (the default), the attention-pooling ``head`` (``probe`` [1, 1, Hv], an
  ``nn.MultiheadAttention``'s ``in_proj_weight`` [3Hv, Hv], ``in_proj_bias`` and ``out_proj``, a LayerNorm and
  an MLP): the model never calls that head, but it builds it;
* ``connector.modality_projection`` [H, Hv·f²] without bias (f = ``pixel_shuffle_factor``): f² neighbouring
  patches are stacked into one vector and projected to the text width;
* ``text_model``: ``AutoModel.from_config(text_config)``, a ``ModernBertModel``, exactly as the modernbert
  family declares it. This is the text encoder: the image features take the place of the image tokens'
  embeddings, then everything runs through it.

The task classes hold ``model`` and a ModernBERT prediction head built from ``text_config``
(``projection_head`` for the masked-LM class, ``head`` for the classifiers), then ``lm_head`` [V, H] (bias
with ``decoder_bias``; the same storage as the token table only when the top-level ``tie_word_embeddings``
is set, default False) or ``classifier``. The config nests ``text_config`` and ``vision_config``; the
calculator's fields are their keys with ``text_`` / ``vision_`` in front, and a config.json's nested
dictionaries are read into them.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Callable, Mapping

from ..config import Field, check_heads, read_fields
from ..costs import CostModel, Sim, T, activation_key, dropouts, size_key, step_value, unread
from ..costs.declare import nested_keys
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, modernbert
from .base import Extra, Family, Task
from .common import LABELS, TIE, L

#: ModernBERT's fields that shape the text encoder (its pooling, labels and tie are the top level's here).
TEXT_KEYS = ("vocab_size", "pad_token_id", "hidden_size", "num_hidden_layers", "num_attention_heads",
             "intermediate_size", "norm_bias", "attention_bias", "mlp_bias", "decoder_bias", "classifier_bias")


def _prefixed(f: Field, prefix: str, en: str, zh: str) -> Field:
    return replace(f, key=prefix + f.key, label=L(f"{en}: {f.label['en']}", f"{zh}：{f.label['zh']}"))


TEXT_FIELDS = tuple(
    _prefixed(f, "text_", "Text encoder", "文本编码器") for f in modernbert.FIELDS if f.key in TEXT_KEYS
)

VISION_FIELDS_PLAIN = (
    Field("hidden_size", 768, label=L("Width (Hv)", "隐藏层维度（Hv）"), sample=(1, 8)),
    Field("intermediate_size", 3072, label=L("Feed-forward inner size (Iv)", "前馈网络中间层维度（Iv）"), sample=(1, 40)),
    Field("num_hidden_layers", 12, minimum=0, label=L("Layers (Lv)", "层数（Lv）"), sample=(0, 3)),
    Field("num_attention_heads", 12, label=L("Attention heads", "注意力头数"), sample=None),
    Field("num_channels", 3, label=L("Colour channels (C)", "每个像素的颜色分量数（C）"), sample=(1, 4)),
    Field("image_size", 224, label=L("Image side in pixels", "图像边长（像素）"), sample=(1, 40)),
    Field("patch_size", 16, label=L("Patch side in pixels (p)", "图像块边长（像素，p）"), sample=(1, 8)),
    Field("vision_use_head", True, kind="bool",
          label=L("Attention-pooling head (vision_use_head; built, never called here)",
                  "注意力池化头（vision_use_head；会构建，但这里从不调用）"), sample=(0, 1)),
)
VISION_FIELDS = tuple(
    replace(_prefixed(f, "vision_", "Vision tower", "视觉塔"), key="vision_" + f.key.removeprefix("vision_"))
    for f in VISION_FIELDS_PLAIN
)

#: The top level's own keys (UltraVBERT's too): the connector's factor, the labels, the tie (default False).
TOP_FIELDS = (
    Field("pixel_shuffle_factor", 4, label=L("Pixel-shuffle factor (f; f² patches per vector)",
                                             "像素重排因子（f；每 f² 个图像块拼成一个向量）"), sample=(1, 3)),
    LABELS,
    replace(TIE, default=False),
    # The top level's, not text_config's: the classifiers pool as ModernVBertConfig says (UltraVBERT's too).
    next(f for f in modernbert.FIELDS if f.key == "classifier_pooling"),
)
FIELDS = (*TEXT_FIELDS, *VISION_FIELDS, *TOP_FIELDS)


def _sub(raw: Mapping[str, Any], nested: str, prefix: str) -> dict[str, Any]:
    """A sub-config's keys: the config.json's nested dictionary, then the form's prefixed keys over it."""
    out = dict(raw[nested]) if isinstance(raw.get(nested), Mapping) else {}
    for key, value in raw.items():
        if isinstance(key, str) and key.startswith(prefix):
            out[key[len(prefix):]] = value
    return out


def read_nested(raw: Mapping[str, Any], read_text: Callable[[Mapping[str, Any]], dict[str, Any]],
                text_keys: tuple[str, ...], vision_fields: tuple[Field, ...]) -> dict[str, Any]:
    """A composite's values (ModernVBERT's, UltraVBERT's): the top level's fields; ``read_text`` of
    ``text_config`` (the text family's own read, its checks included), kept under ``text_``; SigLIP's
    ``vision_fields`` of ``vision_config``, under ``vision_``."""
    values = read_fields(TOP_FIELDS, raw, {})
    text = read_text(_sub(raw, "text_config", "text_"))
    values.update({"text_" + k: text[k] for k in text_keys})
    sub = _sub(raw, "vision_config", "vision_")
    if "use_head" in sub:  # the form's vision_use_head, stripped of its prefix like the others
        sub["vision_use_head"] = sub.pop("use_head")
    vision = read_fields(vision_fields, sub, {})
    values.update({"vision_" + k.removeprefix("vision_"): v for k, v in vision.items()})
    return values


def read_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The top level's fields, ModernBERT's read of ``text_config`` (its own checks included), SigLIP's fields;
    the text layers' attention kinds kept as ModernBERT keeps them (``layer_kinds``, for the training step)."""
    kinds: list[tuple[str, ...]] = []

    def read_text(sub: Mapping[str, Any]) -> dict[str, Any]:
        text = modernbert.read(sub)
        kinds.append(getattr(text, "layer_kinds", ()))
        return text

    values = modernbert.Values(read_nested(raw, read_text, TEXT_KEYS, VISION_FIELDS_PLAIN))
    values.layer_kinds = kinds[0]
    return values


def check(c: dict[str, Any]) -> None:
    """What the text encoder and SigLIP refuse (ModernVBERT's and UltraVBERT's): heads that do not divide a width,
    a padding row outside the table."""
    check_heads(c, "text_hidden_size", "text_num_attention_heads")
    check_heads(c, "vision_hidden_size", "vision_num_attention_heads")
    pad, vocab = c["text_pad_token_id"], c["text_vocab_size"]
    if pad is not None and not -vocab <= pad < vocab:
        raise CalcError("padding_idx", fields=("text_vocab_size", "text_pad_token_id"), key="text_vocab_size",
                        value=vocab, pad=pad, pad_key="text_pad_token_id")


def text_values(c: Mapping[str, Any], keys: tuple[str, ...] = TEXT_KEYS) -> dict[str, Any]:
    """The text encoder's values under its own family's keys (ModernBERT's here, UltraBERT's for UltraVBERT)."""
    return {k: c["text_" + k] for k in keys}


def vision_tower(t: TensorList, c: Mapping[str, Any], prefix: str) -> None:
    """``SiglipVisionModel``'s tensors: their own group (``vision``) in the section of the embeddings (they turn an
    image into the text's inputs, and freezing the embeddings freezes them)."""
    h, i, ch, p = c["vision_hidden_size"], c["vision_intermediate_size"], c["vision_num_channels"], c["vision_patch_size"]
    e = prefix + "embeddings."
    t.add(e + "patch_embedding.weight", (h, ch, p, p), "vision")
    t.add(e + "patch_embedding.bias", (h,), "vision")
    t.embedding(e + "position_embedding", (c["vision_image_size"] // p) ** 2, h, "vision")
    for n in range(c["vision_num_hidden_layers"]):
        layer = f"{prefix}encoder.layers.{n}."
        t.layer_norm(layer + "layer_norm1", h, group="vision")
        for proj in ("k_proj", "v_proj", "q_proj", "out_proj"):
            t.linear(layer + "self_attn." + proj, h, h, "vision")
        t.layer_norm(layer + "layer_norm2", h, group="vision")
        t.linear(layer + "mlp.fc1", i, h, "vision")
        t.linear(layer + "mlp.fc2", h, i, "vision")
    t.layer_norm(prefix + "post_layernorm", h, group="vision")
    if c["vision_use_head"]:
        head = prefix + "head."
        t.add(head + "probe", (1, 1, h), "vision")
        t.add(head + "attention.in_proj_weight", (3 * h, h), "vision")
        t.add(head + "attention.in_proj_bias", (3 * h,), "vision")
        t.linear(head + "attention.out_proj", h, h, "vision")
        t.layer_norm(head + "layernorm", h, group="vision")
        t.linear(head + "mlp.fc1", i, h, "vision")
        t.linear(head + "mlp.fc2", h, i, "vision")


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    vision_tower(t, c, prefix + "vision_model.")
    f = c["pixel_shuffle_factor"]
    t.linear(prefix + "connector.modality_projection", c["text_hidden_size"], c["vision_hidden_size"] * f * f,
             "embeddings", bias=False)
    modernbert.backbone(t, text_values(c), prefix + "text_model.", False)


def prediction_head(name: str) -> Any:
    """``ModernVBertPredictionHead`` of ``text_config``: dense (bias = classifier_bias), norm (bias = norm_bias)."""
    def head(t: TensorList, c: dict[str, Any]) -> None:
        h = c["text_hidden_size"]
        t.linear(name + ".dense", h, h, "head", bias=c["text_classifier_bias"])
        t.layer_norm(name + ".norm", h, group="head", bias=c["text_norm_bias"])

    return head


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h, v = c["text_hidden_size"], c["text_vocab_size"]
    prediction_head("projection_head")(t, c)
    owner = prefix + "text_model.embeddings.tok_embeddings.weight"
    t.add("lm_head.weight", (v, h), "head", shares=owner if c["tie_word_embeddings"] else None, module="linear")
    if c["text_decoder_bias"]:
        t.add("lm_head.bias", (v,), "head", module="linear")


def classifier_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    prediction_head("head")(t, c)
    t.linear("classifier", c["num_labels"], c["text_hidden_size"], "head")


def vision_line(c: Mapping[str, Any]) -> FormulaLine:
    """SigLIP's vision tower as one term: patches, positions, Lv layers, the post-norm, the pooling head."""
    hv, iv, lv, ch, p = (c["vision_hidden_size"], c["vision_intermediate_size"], c["vision_num_hidden_layers"],
                         c["vision_num_channels"], c["vision_patch_size"])
    g = (c["vision_image_size"] // p) ** 2
    head = 4 * hv * hv + 4 * hv + 2 * hv + hv + 2 * hv * iv + iv + hv if c["vision_use_head"] else 0
    vision = hv * ch * p * p + hv + g * hv + lv * (4 * hv * hv + 4 * hv + 4 * hv + 2 * hv * iv + iv + hv) + 2 * hv + head
    return FormulaLine("vision_tower", "Hv·C·p² + Hv + G·Hv + Lv·(4Hv² + 9Hv + 2Hv·Iv + Iv) + 2Hv + head",
                       f"{hv}·{ch}·{p}² + {hv} + {g}·{hv} + {lv}·(4·{hv}² + 9·{hv} + 2·{hv}·{iv} + {iv}) + 2·{hv}"
                       f" + {head}", vision)


def formula(inv: Inventory) -> Formula:
    """The vision tower and the connector as two lines, then ModernBERT's text encoder term by term."""
    c = inv.config
    hv = c["vision_hidden_size"]
    f = c["pixel_shuffle_factor"]
    v, h, i, n = c["text_vocab_size"], c["text_hidden_size"], c["text_intermediate_size"], c["text_num_hidden_layers"]
    nb, ab, mb = (int(c["text_" + k]) for k in ("norm_bias", "attention_bias", "mlp_bias"))
    norm = (1 + nb) * h
    per = 4 * h * h + ab * 4 * h + 3 * h * i + mb * (2 * i + h) + norm
    lines = [
        vision_line(c),
        FormulaLine("connector", "H·Hv·f²", f"{h}·{hv}·{f}²", h * hv * f * f),
        FormulaLine("embeddings", "V·H + norm", f"{v}·{h} + {norm}", v * h + norm),
        *layers_lines("4H² + 3HI + norm" + (" + 4H" if ab else "") + (" + 2I + H" if mb else ""),
                      f"4·{h}² + 3·{h}·{i} + {norm}" + (f" + 4·{h}" if ab else "") + (f" + 2·{i} + {h}" if mb else ""),
                      per, n),
        FormulaLine("attention_norms", "(L − 1)·norm", f"{max(n - 1, 0)}·{norm}", max(n - 1, 0) * norm),
        FormulaLine("final_norm", "norm", f"{norm}", norm),
    ]
    symbols = {"Hv": hv, "Iv": c["vision_intermediate_size"], "Lv": c["vision_num_hidden_layers"],
               "C": c["vision_num_channels"], "p": c["vision_patch_size"],
               "G": (c["vision_image_size"] // c["vision_patch_size"]) ** 2, "f": f, "V": v, "H": h, "I": i, "L": n}
    return Formula(symbols, tuple(lines + head_line(inv)))


def nest_vision(rng: random.Random, config: dict[str, Any], absent: float = 0.0) -> None:
    """SigLIP's heads for the drawn vision keys, nested as config.json nests them (``vision_config``); with
    probability ``absent`` no vision_config at all (the composite's own default tower)."""
    vision = {k[len("vision_"):]: config.pop(k) for k in list(config) if k.startswith("vision_")}
    if absent and rng.random() < absent:
        return
    heads = rng.choice([1, 2, 4])
    vision["num_attention_heads"] = heads
    vision["hidden_size"] = heads * rng.randint(1, 6)
    if "use_head" in vision:
        vision["vision_use_head"] = vision.pop("use_head")
    config["vision_config"] = vision


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """ModernBERT's draw for the text keys and SigLIP's heads for the vision keys, then nested as config.json
    nests them (``text_config``, ``vision_config``), so the cross-check hands transformers a real config."""
    text = {k[len("text_"):]: config.pop(k) for k in list(config) if k.startswith("text_")}
    modernbert.sample(rng, text)
    config["text_config"] = text
    nest_vision(rng, config)


# ------------------------------------------------------------------ training step


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """``ModernVBertModel`` on input ids alone: ``text_model``'s token table (called by the composite, then handed
    to ``text_model`` as ``inputs_embeds``: the same operations), ModernBERT's body with ``text_config``'s values,
    the task head (``projection_head`` and ``lm_head``; or ``head``, the top level's ``classifier_dropout`` and
    ``classifier``, after the top level's ``classifier_pooling``). No pixels: the vision tower and the connector
    never run, their parameters end the step without gradients."""
    c = inv.config
    text = modernbert.Values(text_values(c))
    text.layer_kinds = getattr(c, "layer_kinds", ())
    # Issue 32: replayed op by op as ModernBERT's (modernbert.step_program's conditions), float32 and bf16 (its bf16
    # training steps were 840 and 880 bytes off: the rotary's SliceBackward0 allocated half its float32 input and a
    # frozen Linear's packed weight was no pack, both fixed in LiveSim), inference (no graph) in either.
    # SDPA under checkpointing too (the window's float mask released after the call, as ModernBERT's), and reentrant
    # checkpointing (its layers' keyword arguments kept by CheckpointFunction's partial, as ModernBERT's).
    sim.exact_lifetimes()
    sim.exact_forward()
    sim.exact_autocast()  # ModernBERT's body under bf16 autocast (measured: the same copies)
    mark = sim.scope()  # ModernVBertModel.forward: inputs_embeds named until it returns
    prefix = bert.step_prefix(inv) + "text_model."
    words = sim.embedding(prefix + "embeddings.tok_embeddings", sim.ids((b, n)), first=True)
    x = modernbert.step_body(sim, text, prefix, b, n, modernbert.layer_kinds(text),
                             step_value(inv, "text_local_attention", 128), embeds=words)
    x = sim.end_scope(mark, x)
    kind = bert.step_task(inv)
    if kind == "ForMaskedLM":
        return modernbert.step_head(sim, kind, x, text, b, n, "cls", head="projection_head", decoder="lm_head")
    return modernbert.step_head(sim, kind, x, text, b, n, c["classifier_pooling"],
                                drop=sim.drops("classifier_dropout") if kind else None)


def step_check(inv: Inventory) -> None:
    """An odd text head size makes the rotary tables one wider than the heads (``arange(0, D, 2)`` frequencies,
    doubled): from 3 on ``apply_rotary_pos_emb`` fails; at 1 it runs by broadcasting Q and K to 2 wide (ModernBERT's
    program models it, :func:`.modernbert.step_body`)."""
    c = inv.config
    heads = c["text_num_attention_heads"]
    d = c["text_hidden_size"] // heads
    if d % 2 and d != 1:
        raise CalcError("costs_forward_fails", key="text_num_attention_heads", value=heads)


def step_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """The non-persistent buffers: ``SiglipVisionEmbeddings.position_ids`` (int64 [1, (image_size // p)²]) and the
    text encoder's rotary buffers (ModernBERT's, one pair per layer kind)."""
    c = inv.config
    text = modernbert.Values(text_values(c))
    text.layer_kinds = getattr(c, "layer_kinds", ())
    rotary = modernbert.rotary_buffers(replace(inv, config=text, arch=replace(inv.arch, prefix=inv.arch.prefix + "text_model.")))
    grid = (c["vision_image_size"] // c["vision_patch_size"]) ** 2
    return [(inv.arch.prefix + "vision_model.embeddings.position_ids", (1, grid), 8)] + rotary


#: ModernBERT's keys, read inside ``text_config`` (its classifier dropout is unused here: the top level's is the
#: classifiers'), and the top level's ``classifier_dropout`` (ModernVBertConfig: 0.0), which the program reads.
COSTS = CostModel(step_program, None, check=step_check, keys=nested_keys(
    unread((activation_key("gelu", key="hidden_activation"),
            *dropouts("embedding_dropout", "attention_dropout", "mlp_dropout", default=0.0),
            activation_key("gelu", key="classifier_activation"))) + (size_key("local_attention", 128),),
    "text_config", "text_") + dropouts("classifier_dropout", default=0.0),
                  autocast=True, sdpa=True, sdpa_dropout=("text_attention_dropout",), buffers=step_buffers,
                  reentrant=True)


def _nested_read(text: str) -> Any:
    """A nested sub-config never travels in a link (its keys do, as fields)."""
    return None


#: A composite's four classes (UltraVBERT's too), the backbone under ``model.``, no pooler.
TASKS = (Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.TOKEN_CLASSIFICATION)

#: The nested sub-configs are read (their keys are the text_/vision_ fields); a link carries the fields.
NESTED = (Extra("text_config", _nested_read, lambda raw, c: None),
          Extra("vision_config", _nested_read, lambda raw, c: None))


FAMILY = Family(
    model_type="modernvbert",
    base="ModernVBertModel",
    fields=FIELDS,
    backbone=backbone,
    read=read_config,
    architectures=bert.task_classes("ModernVBert", "model.", TASKS, {
        Task.MODEL: bert.Head(False),
        Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True),
        Task.SEQUENCE_CLASSIFICATION: bert.Head(False, classifier_head, uses_num_labels=True),
        Task.TOKEN_CLASSIFICATION: bert.Head(False, classifier_head, uses_num_labels=True),
    }),
    title={"en": "ModernVBERT", "zh": "ModernVBERT"},
    formula=formula,
    heads_check=None,  # two widths, each with its heads: check() tests both
    checks=(check,),
    pad_token_id=None,  # the padding row is text_config's (check())
    extras=NESTED,
    sample=sample,
    rank=73,
    default_attention="sdpa",
    costs=COSTS,
    labels={
        "vision_tower": L("Vision tower (SigLIP: patches, positions, Lv layers, post-norm, pooling head)",
                          "视觉塔（SigLIP：图像块、位置、Lv 层、最后的层归一化、池化头）"),
        "connector": L("Connector (pixel shuffle, then one projection)", "连接层（像素重排后接一个投影）"),
        "attention_norms": modernbert.LABELS_["attention_norms"],
    },
)
