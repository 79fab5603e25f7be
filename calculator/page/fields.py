"""Which form fields an error belongs beside, so the page can mark them and put the message there."""
from __future__ import annotations

from typing import Any

from ..errors import CalcError
from .labels import ui
from .state import ACTIVE_KEY, _family_of

#: Which form field an error belongs beside, when the error's ``key`` is not itself a field.
_ERROR_FIELDS: dict[str, tuple[str, ...]] = {
    "unknown_model_type": ("model_type",),
    "unknown_architecture": ("architecture",),
    "unknown_preset": ("preset",),
    "label_too_long": ("label",),
    "pooler_fixed": ("pooler",),
    "invalid_json": ("config",),
    "not_an_object": ("config",),
    # The message goes beside the first; the second is marked too (the two vocabularies must match).
    "vocab_mismatch": ("n_tgt_vocab", "n_src_vocab"),
    "labels_fixed": ("num_labels",),
    # The fine-tuning planner's fields.
    "lora_rank": ("lora_r",),
    "lora_bias": ("lora_bias",),
    "lora_task_type": ("peft_task_type",),
    "lora_targets_required": ("lora_targets",),
    "lora_target_missing": ("lora_targets",),
    "lora_no_linear": ("lora_targets",),
    "lora_target_unsupported": ("lora_targets",),
    "lora_target_saved": ("modules_to_save", "lora_targets"),
    "modules_to_save_missing": ("modules_to_save",),
    "module_name": ("modules_to_save",),
    "modules_to_save_nested": ("modules_to_save",),
    "freeze_layers": ("freeze_layers",),
    "plan_conflict": ("lora_r", "freeze"),
    "lora_conv_groups": ("lora_r", "lora_targets"),
}


#: Errors about two fields at once, by the parameters that name them: both are marked on the page.
_ERROR_FIELD_PAIRS = {
    "heads_not_divisor": ("heads_key", "hidden_key"),
    # A table without the padding row: the table's size, and pad_token_id where the form has it (ModernBERT).
    "padding_idx": ("key", "pad_key"),
}


def _error_fields(exc: CalcError, model_type: Any) -> list[str]:
    """The form fields ``exc`` is about, the one to show it beside first ([]: the page-level slot).

    Most errors concern one field. A rule between two (hidden size divisible by
    heads, equal vocabularies, ALBERT's groups × layers) names both: a reader who
    just edited either one should see it marked.
    """
    family = _family_of(model_type)
    names = {f.key for f in family.fields} if family else set()
    if exc.code in _ERROR_FIELD_PAIRS:
        keys = [exc.params.get(p) for p in _ERROR_FIELD_PAIRS[exc.code]]
        return [k for k in keys if isinstance(k, str) and k in names]
    if exc.code in _ERROR_FIELDS:
        first, *others = _ERROR_FIELDS[exc.code]
        return [first, *(k for k in others if k in names)]
    key = exc.params.get("key")
    if not isinstance(key, str):
        return []
    if key in ("pooler", ACTIVE_KEY, "freeze", "freeze_layers", "r", "lora_targets", "modules_to_save") or key in names:
        if key == "r":
            return ["lora_r"]
        return [key]
    # ALBERT's "num_hidden_groups × inner_group_num": every named field, the first one first.
    return [part for part in key.split(" × ") if part in names]


def error_dict(exc: CalcError, lang: str, model_type: Any = None, source: str = "form") -> dict[str, Any]:
    """``CalcError.to_dict`` plus the fields it belongs to; a pasted config's errors stay with the paste box.

    ``field`` is where the message goes by default (None: the page-level slot);
    ``fields`` lists every field to mark, ``field`` first (the page may put the
    message beside another of them: the one just edited).
    """
    out = exc.to_dict(lang, where="page")
    fields = ["config"] if source == "config" else _error_fields(exc, model_type)
    out["field"] = fields[0] if fields else None
    out["fields"] = fields
    return out


def internal_error(lang: str) -> dict[str, Any]:
    return {"code": "internal", "key": None, "field": None, "fields": [], "message": ui("error_internal", lang)}
