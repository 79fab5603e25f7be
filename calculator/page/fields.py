"""Where on the page an error goes: the slot beside the input it is about, or a general one.

An error names its inputs where it is raised (:attr:`CalcError.fields`, else its
``key`` parameter; the cost engine's errors by :attr:`calculator.options.Option.codes`).
This module only turns those names into the DOM ids of :mod:`calculator.page.dom`:
``slot``, the element the message goes in, and ``marks``, the inputs marked
invalid. The page's script puts the message where ``slot`` says.
"""
from __future__ import annotations

from typing import Any, Mapping

from .. import options
from ..build import DEFAULT_MODEL_TYPE
from ..errors import CalcError
from ..presets import PRESETS
from . import dom
from .labels import ui
from .state import ACTIVE_KEY, LABEL_KEY, _family_of

#: The page's own inputs (ids ``calc-<key>``, whatever the family): the model's menus, the paste box,
#: the label, the active share, and the planner's options.
PAGE_FIELDS: tuple[str, ...] = ("preset", "model_type", "architecture", "pooler", "config", LABEL_KEY,
                                ACTIVE_KEY) + options.PLANNER_KEYS
#: The "Training cost" panel's inputs (ids ``calc-<key>`` too), and its slot for errors about none of them.
PANEL_FIELDS: tuple[str, ...] = options.PANEL_KEYS
GENERAL_SLOT = dom.IDS["general_error"]
PANEL_SLOT = f"{dom.IDS['costs_panel']}-error"


def shown_model_type(params: Any) -> Any:
    """The family whose fieldset the page shows for a request: its ``model_type``, else its preset's, else the default."""
    if not isinstance(params, Mapping):
        return None
    model_type = params.get("model_type")
    if model_type:
        return model_type
    preset = PRESETS.get(params.get("preset") or "")
    return preset.config["model_type"] if preset is not None else DEFAULT_MODEL_TYPE


def _named(exc: CalcError) -> tuple[str, ...]:
    """The inputs ``exc`` names: its ``fields``, else its ``key``, else the option that owns its code."""
    if exc.fields:
        return exc.fields
    key = exc.params.get("key")
    if isinstance(key, str):
        return (key,)
    owner = options.owner_of(exc.code)
    return (owner.key,) if owner is not None else ()


def _error_fields(exc: CalcError, model_type: Any, panel: bool = False) -> list[str]:
    """The inputs ``exc`` is about that the page has, the one to show it beside first ([]: a general slot).

    On the "Training cost" panel only its own inputs count (the model's are above it).
    """
    if panel:
        known = set(PANEL_FIELDS)
    else:
        family = _family_of(model_type)
        known = set(PAGE_FIELDS) | ({f.key for f in family.fields} if family else set())
    return [k for k in dict.fromkeys(_named(exc)) if k in known]


def input_id(field: str, model_type: Any) -> str:
    """The DOM id of the input for ``field``: the page's own (``calc-<key>``) or the family's."""
    own = field in PAGE_FIELDS or field in PANEL_FIELDS
    return dom.field_id(None if own else model_type, field)


def error_dict(
    exc: CalcError, lang: str, model_type: Any = None, source: str = "form", panel: bool = False,
) -> dict[str, Any]:
    """``CalcError.to_dict`` plus where it goes; a pasted config's errors stay with the paste box.

    ``field`` is the input the message goes beside (None: a general slot), ``fields`` every
    input to mark, ``field`` first; ``slot`` is the id of the element the message goes in
    (``calc-<…>-error`` beside an input, else the page's or, with ``panel``, the "Training
    cost" panel's general slot) and ``marks`` the ids of the inputs to mark invalid.
    """
    out = exc.to_dict(lang, where="page")
    fields = ["config"] if source == "config" else _error_fields(exc, model_type, panel)
    marks = [input_id(f, model_type) for f in fields]
    out["field"] = fields[0] if fields else None
    out["fields"] = fields
    out["slot"] = f"{marks[0]}-error" if marks else (PANEL_SLOT if panel else GENERAL_SLOT)
    out["marks"] = marks
    return out


def internal_error(lang: str, panel: bool = False) -> dict[str, Any]:
    return {"code": "internal", "key": None, "field": None, "fields": [], "slot": PANEL_SLOT if panel else GENERAL_SLOT,
            "marks": [], "message": ui("error_internal", lang)}
