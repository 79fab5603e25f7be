"""From a config (a parsed config.json, a preset, or a share link) to an :class:`Inventory`."""
from __future__ import annotations

from typing import Any, Mapping

from .config import MAX_TOTAL, check_heads, coerce_bool, num_labels_of
from .errors import CalcError
from .families._ports import port_of
from .families import FAMILIES, Family
from .model import Inventory, TensorList

#: What a config without ``model_type`` is taken to be (documented in the README).
DEFAULT_MODEL_TYPE = "bert"


def resolve_architecture(raw: Mapping[str, Any], architecture: str | None) -> tuple[str, str]:
    """Pick (model_type, architecture): explicit option, else ``architectures[0]``, else the base model."""
    model_type = raw.get("model_type", DEFAULT_MODEL_TYPE)
    custom = "auto_map" in raw  # the model's code ships with the checkpoint (trust_remote_code)
    ported = port_of(raw)
    if ported is not None and model_type not in FAMILIES:
        # A model_type only custom code knows (gte's "new"), whose code transformers ports natively: counted as
        # that class, and the custom_code note says so (never silently).
        family = FAMILIES[ported]
        listed = raw.get("architectures")
        listed = listed[0] if isinstance(listed, list) and listed and isinstance(listed[0], str) else None
        chosen = architecture or (listed if listed and family.architecture(listed) else family.base)
        if family.architecture(chosen) is None:
            raise CalcError("unknown_architecture", value=chosen, model_type=ported,
                            supported=family.architecture_names, custom=custom, assumed=False)
        return ported, chosen
    if not isinstance(model_type, str) or model_type not in FAMILIES:
        raise CalcError(
            "unknown_model_type", fields=("model_type",), value=model_type, custom=custom,
            supported=sorted(k for k, f in FAMILIES.items() if f.config_json),
            others=sorted(k for k, f in FAMILIES.items() if not f.config_json),
        )
    family = FAMILIES[model_type]
    if not architecture:
        listed = raw.get("architectures")
        if isinstance(listed, str):  # a hand-written config sometimes gives the class without the list
            listed = [listed]
        if isinstance(listed, list) and listed and isinstance(listed[0], str):
            # An encoder-decoder's class whose encoder the family counts (T5): its base class, noted by the views.
            architecture = family.base if listed[0] in family.encoder_of else listed[0]
        else:
            architecture = family.base
    if family.architecture(architecture) is None:
        raise CalcError(
            "unknown_architecture",
            fields=("architecture",),
            value=architecture,
            model_type=model_type,
            supported=family.architecture_names,
            custom=custom,
            assumed="model_type" not in raw,
        )
    return model_type, architecture


def check_padding(family: Family, raw: Mapping[str, Any], c: Mapping[str, Any]) -> None:
    """``nn.Embedding(n, d, padding_idx=p)`` asserts ``p < n``; HF passes ``pad_token_id`` as ``p``
    (or the row the family's code fixes, :attr:`Family.padding_row`)."""
    if family.padding_row is not None:
        pad = family.padding_row
    elif "pad_token_id" in c:  # a declared field: its value as read (the form gives text)
        pad = c["pad_token_id"]
    else:
        pad = raw.get("pad_token_id", family.pad_token_id)
    if isinstance(pad, bool) or not isinstance(pad, int):
        return  # null: no padding row
    keys = ["vocab_size"] + (["max_position_embeddings"] if family.positions_padded else [])
    for key in (k for k in keys if k in c):
        # torch: -num_embeddings <= padding_idx < num_embeddings (a negative one counts from the end)
        if not -c[key] <= pad < c[key]:
            raise CalcError("padding_idx", fields=(key, "pad_token_id"), key=key, value=c[key], pad=pad,
                                pad_key="pad_token_id")


def build(raw: Mapping[str, Any], architecture: str | None = None, pooler: Any = None) -> Inventory:
    """Describe every tensor the model creates.

    ``raw`` uses Hugging Face's config.json keys (unknown keys are ignored,
    missing keys take HF's defaults for the model_type). ``pooler`` is
    ``None`` for the architecture's default, or a bool for classes where
    HF lets the caller choose (``add_pooling_layer``).
    """
    if not isinstance(raw, Mapping):
        raise CalcError("not_an_object", kind=type(raw).__name__)
    model_type, arch_name = resolve_architecture(raw, architecture)
    family = FAMILIES[model_type]
    arch = family.architecture(arch_name)
    assert arch is not None
    source = dict(raw)
    source["num_labels"] = num_labels_of(raw)
    c = family.read_config(source)
    if family.heads_check:
        check_heads(c, *family.heads_check)
    for check in family.checks:
        check(c)

    if arch.labels_must_be is not None and c.get("num_labels") != arch.labels_must_be:
        raise CalcError("labels_fixed", fields=("num_labels",), architecture=arch_name, required=arch.labels_must_be, value=c.get("num_labels"))
    for key, value in arch.requires:
        if c.get(key) != value:
            raise CalcError("bad_value", fields=(key,), key=key, value=c.get(key))
    check_padding(family, raw, c)

    wanted = None if pooler is None else coerce_bool("pooler", pooler)
    if arch.pooler is None:
        with_pooler = True if wanted is None else wanted
    else:
        if wanted is not None and wanted != arch.pooler:
            raise CalcError(
                "pooler_fixed",
                fields=("pooler",),
                architecture=arch_name,
                has_pooler=arch.pooler,
            )
        with_pooler = arch.pooler

    inv = _assemble(model_type, family, arch, c, with_pooler)
    if inv.state_dict_total > MAX_TOTAL:
        raise CalcError("total_too_large", value=f"{inv.state_dict_total:,}", maximum=f"{MAX_TOTAL:,}")
    return inv


def _assemble(model_type: str, family: Family, arch: Any, c: dict[str, Any], with_pooler: bool) -> Inventory:
    """The inventory of class ``arch`` of ``family`` from checked values ``c``."""
    keras_layers: tuple = ()
    if family.builder is not None:
        tensors, keras_layers = family.builder(c, arch.name)
    else:
        t = TensorList()
        assert family.backbone is not None
        if arch.head is not None and arch.head_first:
            arch.head(t, c, arch.prefix)
        family.backbone(t, c, arch.prefix, with_pooler)
        if arch.head is not None and not arch.head_first:
            arch.head(t, c, arch.prefix)
        tensors = t.tensors()
    return Inventory(model_type, arch.name, c, tensors, with_pooler, keras_layers, family=family, arch=arch)


def base_model(inv: Inventory) -> Inventory | None:
    """The family's base model (``BertModel``, with the pooler where HF adds one by default) built from the
    same values as ``inv``; None when ``inv`` is that class already.

    What a class adds to the checkpoint's base model (ELECTRA's published ElectraForPreTraining:
    +591,361, its discriminator head) is the difference between the two inventories
    (:func:`calculator.views.class_difference`). ``inv.config`` was checked when ``inv`` was built,
    so nothing here can fail on the reader's input.
    """
    family = inv.family
    if family is None or inv.architecture == family.base:
        return None
    arch = family.architecture(family.base)
    if arch is None:
        return None
    with_pooler = True if arch.pooler is None else arch.pooler
    return _assemble(inv.model_type, family, arch, inv.config, with_pooler)
