"""UltraVBERT (``modeling_ultravbert.py``, native in transformers 5.23): ModernVBERT's layout with an UltraBERT
text encoder.

``UltraVBertModel`` registers, in this order:

* ``vision_model``: a ``SiglipVisionModel`` exactly as in ModernVBERT (:func:`modernvbert.vision_tower`), except
  that its attention-pooling head is off by default: ``UltraVBertConfig`` builds its default vision config with
  ``vision_use_head=False``. A config.json that gives ``vision_config`` without ``vision_use_head`` gets SigLIP's
  own default, True, and the head (built, never called);
* ``connector``: ``modality_projection`` [H, Hv·f²] without bias, then an RMSNorm ``norm`` [H] (UltraBERT does
  not normalise its input embeddings, so the image tokens get their scale here);
* ``text_model``: an ``UltrabertModel``, exactly as the ultrabert family declares it. This is the text encoder.

``UltraVBertForMaskedLM`` adds ``projection_head.linear1`` [P, H] and ``linear2`` [H, P] (no biases,
P = ``text_config.prediction_head_size``) and ``lm_head`` [V, H] without bias, the token table's storage only
with the top-level ``tie_word_embeddings`` (default False). The sequence and token classifiers have an identity
``head`` and one ``classifier`` [labels, H] with its bias.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Mapping

from ..costs import CostModel, Sim, T, activation_key, dropouts, size_key, step_value, unread
from ..costs.declare import nested_keys
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line
from ..model import Inventory, TensorList
from . import bert, eurobert, modernvbert, ultrabert
from .base import Family, Task
from .common import L

#: UltraBERT's fields that shape the text encoder (pooling, labels and tie are the top level's here).
TEXT_KEYS = ("vocab_size", "pad_token_id", "hidden_size", "num_hidden_layers", "num_attention_heads",
             "num_key_value_heads", "head_dim", "intermediate_size", "attention_bias", "mlp_bias",
             "prediction_head_size")

TEXT_FIELDS = tuple(
    modernvbert._prefixed(f, "text_", "Text encoder", "文本编码器") for f in ultrabert.FIELDS if f.key in TEXT_KEYS
)
VISION_FIELDS_PLAIN = tuple(
    replace(f, default=False) if f.key == "vision_use_head" else f for f in modernvbert.VISION_FIELDS_PLAIN
)
VISION_FIELDS = tuple(
    replace(f, default=False) if f.key == "vision_use_head" else f for f in modernvbert.VISION_FIELDS
)
TOP_FIELDS = modernvbert.TOP_FIELDS
FIELDS = (*TEXT_FIELDS, *VISION_FIELDS, *TOP_FIELDS)


def read_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """ModernVBERT's read with UltraBERT's of ``text_config``; the pooling head's default is False only where
    UltraVBertConfig makes the vision config itself."""
    given = isinstance(raw.get("vision_config"), Mapping)  # SiglipVisionConfig(**given): its own default, True
    texts: list[Any] = []

    def read_text(sub: Mapping[str, Any]) -> dict[str, Any]:
        texts.append(ultrabert.read(sub))
        return texts[-1]

    values = ultrabert.Values(modernvbert.read_nested(raw, read_text, TEXT_KEYS,
                                                      modernvbert.VISION_FIELDS_PLAIN if given else VISION_FIELDS_PLAIN))
    # text_config's layer kinds (its layer_types or attention_windows), kept for the step as UltraBERT keeps them
    values.layer_kinds, values.window = texts[0].layer_kinds, texts[0].window
    return values


#: SigLIP's heads must divide its width, the text table's padding row must exist (UltraBERT's own checks ran
#: in its read): ModernVBERT's check.
check = modernvbert.check


def text_values(c: Mapping[str, Any]) -> dict[str, Any]:
    """The text encoder's values under UltraBERT's own keys."""
    return modernvbert.text_values(c, TEXT_KEYS)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    modernvbert.vision_tower(t, c, prefix + "vision_model.")
    f, h = c["pixel_shuffle_factor"], c["text_hidden_size"]
    t.linear(prefix + "connector.modality_projection", h, c["vision_hidden_size"] * f * f, "embeddings", bias=False)
    t.layer_norm(prefix + "connector.norm", h, group="embeddings", bias=False)
    ultrabert.backbone(t, text_values(c), prefix + "text_model.", False)


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h, p, v = c["text_hidden_size"], c["text_prediction_head_size"], c["text_vocab_size"]
    t.linear("projection_head.linear1", p, h, "head", bias=False)
    t.linear("projection_head.linear2", h, p, "head", bias=False)
    owner = prefix + "text_model.embed_tokens.weight"
    t.add("lm_head.weight", (v, h), "head", shares=owner if c["tie_word_embeddings"] else None, module="linear")


def classifier_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    t.linear("classifier", c["num_labels"], c["text_hidden_size"], "head")


def formula(inv: Inventory) -> Formula:
    """The vision tower (ModernVBERT's line), the connector with its norm, then EuroBERT's body lines."""
    c = inv.config
    f, h, hv = c["pixel_shuffle_factor"], c["text_hidden_size"], c["vision_hidden_size"]
    text = text_values(c)
    lines = [
        modernvbert.vision_line(c),
        FormulaLine("connector", "H·Hv·f² + H", f"{h}·{hv}·{f}² + {h}", h * hv * f * f + h),
        *eurobert.body_lines(text),
    ]
    symbols = {"Hv": hv, "f": f, "V": text["vocab_size"], "H": h, "A": text["num_attention_heads"],
               "K": eurobert.kv_heads(text), "d": eurobert.head_size(text), "I": text["intermediate_size"],
               "L": text["num_hidden_layers"]}
    return Formula(symbols, tuple(lines + head_line(inv)))


# --------------------------------------------------------------- training step


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """``UltraVBertModel`` on input ids alone: ``text_model``'s token table (called by the composite, then handed
    to ``text_model`` as ``inputs_embeds``: the same operations), UltraBERT's body with ``text_config``'s values
    (its ``sliding_window``, its ``attention_dropout``), then ``projection_head`` and ``lm_head``, or the top
    level's ``classifier_pooling``, ``classifier_dropout`` and ``classifier``. No pixels: the vision tower and
    the connector (its RMSNorm too) never run, their parameters end the step without gradients."""
    c = inv.config
    text = ultrabert.Values(text_values(c), sliding_window=step_value(inv, "text_sliding_window", 128))
    text.layer_kinds, text.window = getattr(c, "layer_kinds", ()), getattr(c, "window", None)
    view = replace(inv, config=text)
    sim.exact_lifetimes()  # issue 32, as UltraBERT's (either kind of checkpointing)
    sim.exact_forward()
    sim.exact_autocast()  # UltraBERT's body under bf16 autocast (measured: the same copies)
    # The composite's token table (inputs_embeds, named until it returns), then UltrabertModel.forward after it: the
    # same operations in the same order as UltraBERT's own forward (ultrabert.step_body).
    seq = ultrabert.step_body(sim, view, bert.step_prefix(inv) + "text_model.", b, n,
                              sim.drops("text_attention_dropout"))
    return bert.run_head(ULTRAVBERT_HEADS, sim, inv, seq, None)  # the top level's classifier_dropout


#: UltraVBERT's classes, by task: each head's tensors and its forward on the text body's output (UltraBERT's
#: heads under ``projection_head`` and ``lm_head``; the top level's ``classifier_pooling`` and ``classifier``).
ULTRAVBERT_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.MASKED_LM: bert.Head(False, mlm_head, ties_embeddings=True, step=ultrabert.mlm_step(
        ("projection_head.linear1", "projection_head.linear2", "lm_head"))),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(False, classifier_head, uses_num_labels=True,
                                            step=ultrabert.classification_step),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, classifier_head, uses_num_labels=True,
                                         step=bert.token_classifier_step),
}


def step_check(inv: Inventory) -> None:
    """UltraBERT's (EuroBERT's): odd head sizes (rotary), K/V heads that do not divide the heads; and a text
    encoder without layers, which UltraVBertPreTrainedModel cannot even initialise (the connector's and the
    heads' standard deviation divides by √(2·layers)). transformers fails on all three."""
    layers = inv.config["text_num_hidden_layers"]
    if layers == 0:
        raise CalcError("costs_forward_fails", key="text_num_hidden_layers", value=layers)
    eurobert.step_check(replace(inv, config=text_values(inv.config)))


def step_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """The non-persistent buffers: ``SiglipVisionEmbeddings.position_ids`` (int64 [1, (image_size // p)²]) and the
    text encoder's rotary buffers (UltraBERT's, one pair per layer kind present)."""
    c = inv.config
    text = ultrabert.Values(text_values(c))
    text.layer_kinds = getattr(c, "layer_kinds", ())
    rotary = ultrabert.rotary_buffers(replace(inv, config=text, arch=replace(inv.arch, prefix=inv.arch.prefix + "text_model.")))
    grid = (c["vision_image_size"] // c["vision_patch_size"]) ** 2
    return [(inv.arch.prefix + "vision_model.embeddings.position_ids", (1, grid), 8)] + rotary


#: UltraBERT's keys, read inside ``text_config`` (its classifier dropout is unused here: the top level's is the
#: classifiers'), and the top level's ``classifier_dropout`` (UltraVBertConfig: 0.0).
COSTS = CostModel(step_program, None, check=step_check, keys=nested_keys(
    (*unread((activation_key("silu"),)), *dropouts("attention_dropout", default=0.0), size_key("sliding_window", 128)),
    "text_config", "text_") + dropouts("classifier_dropout", default=0.0),
                  autocast=True, sdpa=True, sdpa_dropout=("text_attention_dropout",), buffers=step_buffers,
                  reentrant=True)


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """UltraBERT's draw for the text keys, SigLIP's heads for the vision keys, nested as config.json nests them;
    sometimes no vision_config at all (UltraVBertConfig's own, without the pooling head)."""
    text = {k[len("text_"):]: config.pop(k) for k in list(config) if k.startswith("text_")}
    ultrabert.sample(rng, text)
    if rng.random() < 0.7:  # mostly an even head size (RoPE refuses an odd one above 4): more configs that build
        text.pop("head_dim", None)
        text["hidden_size"] = text["num_attention_heads"] * 2 * rng.randint(1, 8)
    config["text_config"] = text
    modernvbert.nest_vision(rng, config, absent=0.15)  # the default vision tower (12 layers of 768): rare, it is large


FAMILY = Family(
    model_type="ultravbert",
    base="UltraVBertModel",
    fields=FIELDS,
    backbone=backbone,
    read=read_config,
    architectures=bert.task_classes("UltraVBert", "model.", modernvbert.TASKS, ULTRAVBERT_HEADS),
    title={"en": "UltraVBERT", "zh": "UltraVBERT"},
    formula=formula,
    heads_check=None,  # the text heads are UltraBERT's read (EuroBERT's checks), the vision heads check()'s
    checks=(check,),
    pad_token_id=None,  # the padding row is text_config's (check())
    extras=modernvbert.NESTED,
    sample=sample,
    rank=74,
    default_attention="sdpa",
    costs=COSTS,
    labels={
        "vision_tower": modernvbert.FAMILY.labels["vision_tower"],
        "connector": L("Connector (pixel shuffle, one projection, an RMSNorm)", "连接层（像素重排、一个投影、一个 RMSNorm）"),
    },
)
