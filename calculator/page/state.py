"""The page's state: query-style parameters in, a raw config out; and back, the canonical share link.

Pure data, no HTML: the address holds every input under Hugging Face's key
names, a preset supplies starting values, and a result's link is the
canonical query of the values it was built from. :func:`resolve` turns one
request into a :class:`Request` (the model built, its plan, its name and its
link); :mod:`calculator.api` renders only the parts of it a reader asks for.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from ..build import DEFAULT_MODEL_TYPE, build
from ..config import coerce_int
from ..errors import CalcError
from ..families import FAMILIES
from ..families.base import Family
from ..model import Inventory
from ..presets import DEFAULT_PRESET, PRESETS, get_preset
from .labels import UI_LABELS
from .planner import PLANNER_KEYS, plan_of

#: Query key of the share of feed-forward neurons active per token (not a config.json key).
ACTIVE_KEY = "active_fraction"

#: Query key of the reader's own name for a result (not a config.json key).
LABEL_KEY = "label"

#: The longest label accepted: a name for a forum post's title, not a paragraph.
LABEL_MAX = 100

#: Query keys that are not config.json fields.
STATE_KEYS = ("preset", "model_type", "architecture", "pooler", ACTIVE_KEY, LABEL_KEY) + PLANNER_KEYS

#: The state the page opens in, and the one pre-rendered at build time.
DEFAULT_PARAMS: dict[str, str] = {"preset": DEFAULT_PRESET}


def _find_active() -> Any:
    """calculator.active, imported on first use: it pulls in ``fractions``, which the
    browser would otherwise compile before its first answer."""
    from .. import active

    return active


def _param(params: Mapping[str, Any], key: str) -> Any:
    value = params.get(key)
    return None if value is None or value == "" else value


def _family_of(model_type: Any) -> Family | None:
    return FAMILIES.get(model_type) if isinstance(model_type, str) else None


def extra_keys(model_type: Any) -> tuple[str, ...]:
    """config.json keys that change a result but have no field in the form (kept in the share link).

    * ``pad_token_id`` where the family has a ``vocab_size``: ``nn.Embedding`` refuses a
      padding row outside the table (:func:`calculator.build.check_padding`), so it decides
      which sizes are accepted;
    * the family's own :attr:`Family.extras` (keras-bert's ``dropout_rate`` and ``trainable``), and the
      training step's keys (:attr:`Family.link_extras`: dropouts, ``hidden_act``).
    """
    family = _family_of(model_type)
    if family is None:
        return ()
    keys: tuple[str, ...] = ()
    if family.field("vocab_size") is not None and family.padding_row is None and family.field("pad_token_id") is None:
        keys += ("pad_token_id",)
    return keys + tuple(e.key for e in family.link_extras)


def _extra_from_query(family: Family, key: str, value: Any) -> Any:
    """A query string (or a JSON value from a pasted config) for an extra key, as config.json holds it."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if key == "pad_token_id":
        return None if text == "null" else coerce_int(key, text)
    for extra in family.link_extras:
        if extra.key == key:
            return extra.parse(text)
    return text


def _resolve(params: Mapping[str, Any]) -> tuple[dict[str, Any], Any, Any, Any]:
    """(raw config, architecture, pooler, preset name) from query-style parameters.

    A preset supplies the starting values; ``model_type`` and any field in the
    parameters override it (a ``model_type`` other than the preset's drops the
    preset's values, whose keys would mean nothing to the other family). The
    family's :func:`extra_keys` are taken too, so a share link carries them.
    """
    preset_name = _param(params, "preset")
    preset = get_preset(preset_name) if preset_name is not None else None
    model_type = _param(params, "model_type")
    if model_type is None:
        model_type = preset.config["model_type"] if preset else DEFAULT_MODEL_TYPE
    raw: dict[str, Any] = {}
    if preset is not None and preset.config.get("model_type") == model_type:
        raw.update(preset.config)
    raw["model_type"] = model_type
    family = _family_of(model_type)
    if family is not None:
        for f in family.fields:
            if f.key in params:
                raw[f.key] = params[f.key]
        for key in extra_keys(model_type):
            value = _param(params, key)
            if value is not None:
                raw[key] = _extra_from_query(family, key, value)
    return raw, _param(params, "architecture"), _param(params, "pooler"), preset_name


def _padding_row(value: Any) -> int | None:
    """``pad_token_id`` as :func:`calculator.build.check_padding` uses it: a row index, or None (no check)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def extra_query(raw: Mapping[str, Any], family: Family, config: Mapping[str, Any]) -> dict[str, str]:
    """The :func:`extra_keys` whose value is not the family's default, as query strings.

    ``raw`` is the config as given, ``config`` the values :func:`build` read from it
    (``Inventory.config``); ``family`` the one it was built with (``Inventory.family``).
    """
    out: dict[str, str] = {}
    if family.field("vocab_size") is not None and family.padding_row is None and family.field("pad_token_id") is None:
        pad = _padding_row(raw.get("pad_token_id", family.pad_token_id))
        if pad != _padding_row(family.pad_token_id):
            out["pad_token_id"] = "null" if pad is None else str(pad)
    for extra in family.link_extras:
        text = extra.to_query(raw, config)
        if text is not None:
            out[extra.key] = text
    return out


#: Each preset's values as :func:`build` reads them (defaults filled in), filled on first use.
_PRESET_VALUES: dict[str, tuple[dict[str, Any], dict[str, str]]] = {}


def _preset_values(name: str) -> tuple[dict[str, Any], dict[str, str]]:
    """(every field but num_labels, extra query) of a preset, read the way :func:`build` reads a config."""
    if name not in _PRESET_VALUES:
        raw = PRESETS[name].config
        family = FAMILIES[raw["model_type"]]
        config = family.read_config(raw)
        values = {k: v for k, v in config.items() if k != "num_labels"}
        _PRESET_VALUES[name] = (values, extra_query(raw, family, config))
    return _PRESET_VALUES[name]


def label_of(params: Mapping[str, Any]) -> str | None:
    """The reader's own name for the result (``label=``), trimmed; None when absent or blank.

    It is shown as text wherever it appears (the HTML builder escapes it, the page
    inserts copies as text), so any character is accepted; only its length is limited.
    """
    value = params.get(LABEL_KEY)
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text:
        return None
    if len(text) > LABEL_MAX:
        raise CalcError("label_too_long", key=LABEL_KEY, length=len(text), maximum=LABEL_MAX)
    return text


def changed_keys(name: Any, inv: Inventory, extras: Mapping[str, str]) -> list[str] | None:
    """The keys whose values differ from preset ``name``'s, in the form's order; None if ``name`` does not apply.

    A preset the reader picked and then edited keeps its name, marked with what
    changed, rather than falling back to the class name. It does not apply to
    another family (its keys would mean nothing there) or an unknown name.
    """
    if not isinstance(name, str) or name not in PRESETS or PRESETS[name].config["model_type"] != inv.model_type:
        return None
    values, preset_extras = _preset_values(name)
    changed = [k for k, v in inv.config.items() if k != "num_labels" and values.get(k) != v]
    changed += [k for k in sorted(set(preset_extras) | set(extras)) if preset_extras.get(k) != extras.get(k)]
    return changed


def _matching_preset(name: Any, inv: Inventory, extras: Mapping[str, str]) -> str | None:
    """``name`` if the reader asked for that preset and the inventory was built from its values; else None.

    Only a preset the reader picked (or a link named) names a result (issue 22: "never a name
    the reader did not choose"): values that happen to equal a checkpoint's, typed or pasted
    (multilingual-e5-large's are xlm-roberta-large's), stay unnamed. Values are compared with
    the family's defaults filled in, except ``num_labels`` (the task's, not the checkpoint's:
    picking a preset keeps it); the architecture does not matter (a preset is its sizes).
    """
    if not isinstance(name, str) or name not in PRESETS or PRESETS[name].config["model_type"] != inv.model_type:
        return None
    values = {k: v for k, v in inv.config.items() if k != "num_labels"}
    return name if _preset_values(name) == (values, dict(extras)) else None


def _query_value(value: Any) -> str:
    """A value as the address and the form write it: 1/0 for flags, ``a|b`` for a list of names."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (tuple, list)):
        return "|".join(str(v) for v in value)
    if value is None:
        return ""
    return str(value)


#: Each family's values with nothing given (HF's defaults, dependent ones worked out), filled on first use.
_FAMILY_DEFAULTS: dict[str, dict[str, str]] = {}


def family_defaults(family: Family) -> dict[str, str]:
    """The form's text for each field of ``family`` when config.json gives nothing."""
    if family.model_type not in _FAMILY_DEFAULTS:
        values = family.read_config({"model_type": family.model_type})
        _FAMILY_DEFAULTS[family.model_type] = {k: _query_value(v) for k, v in values.items()}
    return _FAMILY_DEFAULTS[family.model_type]


def form_values(family: Family, raw: Mapping[str, Any]) -> dict[str, str]:
    """The form's text for each field, for a config (a preset's): what build() reads, as the address writes it."""
    return {k: _query_value(v) for k, v in family.read_config(raw).items() if family.field(k) is not None}


def _active_of(params: Mapping[str, Any], inv: Inventory) -> tuple[str | None, Any]:
    """(canonical text, :class:`calculator.active.ActiveParameters` or None) for the active-neuron field.

    The default, 1 (every neuron), needs no computation and shows nothing extra.
    """
    value = _param(params, ACTIVE_KEY)
    text = "1" if value is None else (value.strip() if isinstance(value, str) else value)
    if text == "1":
        return "1", None
    module = _find_active()
    share = module.parse_fraction(text, ACTIVE_KEY, UI_LABELS["active_fraction"])
    return str(text), module.active_parameters(inv, share)


def canonical_query(
    inv: Inventory, preset: str | None = None, active: str | None = None, extras: Mapping[str, str] | None = None,
    label: str | None = None,
) -> dict[str, str]:
    """Every input of a result, with Hugging Face's key names: the page's share link.

    ``extras`` (:func:`extra_query`) are the config.json keys without a form field
    that still change the result, so opening the link gives the very same answer.
    """
    query: dict[str, str] = {}
    if preset:
        query["preset"] = preset
    query["model_type"] = inv.model_type
    query["architecture"] = inv.architecture
    query["pooler"] = _query_value(inv.pooler)
    for f in inv.family.fields:
        if f.key in inv.config and inv.config[f.key] is not None:
            query[f.key] = _query_value(inv.config[f.key])
    query.update(extras or {})
    if active is not None:
        query[ACTIVE_KEY] = active
    if label:
        query[LABEL_KEY] = label
    return query




def share_query(query: Mapping[str, str], inv: Inventory, preset: str | None) -> dict[str, str]:
    """The share link: :func:`canonical_query` without the values its reader gets anyway (issue 22, item 5).

    A field is left out when the link's starting point gives it the same value: the preset's
    values when the link names one, else the family's defaults (HF's). The class, the pooler,
    ``model_type`` and every key that is not a field stay. A default can follow another value
    (ALBERT-style ``embedding_size`` from ``hidden_size``): the short link is read back the way
    :func:`_resolve` reads a link, and any value that would come back otherwise is put back in.
    """
    family = inv.family
    if family is None:
        return dict(query)
    start = form_values(family, PRESETS[preset].config) if preset is not None and preset in PRESETS else family_defaults(family)
    fields = [k for k in query if family.field(k) is not None]
    short = {
        k: v for k, v in query.items()
        if not (k in fields and start.get(k) == v) and not (k == ACTIVE_KEY and v == "1")
    }
    for _ in range(len(fields) + 1):
        raw = _resolve(short)[0]
        try:
            back = {k: _query_value(v) for k, v in family.read_config(raw).items()}
        except CalcError:
            return dict(query)  # cannot happen for values that built; the full link is always right
        missing = [k for k in fields if k not in short and back.get(k) != query[k]]
        if not missing:
            break
        short.update({k: query[k] for k in missing})
    return {k: v for k, v in query.items() if k in short}


@dataclass(frozen=True)
class Request:
    """One request, resolved: everything an answer says, before any of it is rendered.

    The worker keeps the last one, so the copies, the per-tensor table and the
    "Training cost" panel are rendered from it when the reader asks for them,
    without building the model again. ``raw`` is the config as the request gave
    it (a preset's values with the request's over them), the one ``inv`` was
    built from; ``preset`` the name the result goes by (the one asked for, when
    the values are still its own or only ``changed`` differ), ``query`` the
    canonical query (plan included) and ``link`` its short form for the address.
    """

    raw: Mapping[str, Any]
    inv: Inventory
    plan: Any  # calculator.peft.Plan or None
    active: Any  # calculator.active.ActiveParameters or None
    active_text: str | None
    label: str | None
    preset: str | None
    changed: tuple[str, ...]
    pasted: bool
    extras: Mapping[str, str]
    query: Mapping[str, str]
    link: Mapping[str, str]
    plan_query: Mapping[str, str]
    #: What the copies add after the report: (Markdown, text), e.g. a model id's file against the model
    #: (calculator/page/hub.py, as the CLI prints it after its report).
    appendix: tuple[str, str] | None = None


def resolve(params: Mapping[str, Any]) -> Request:
    """The :class:`Request` of query-style parameters; raises the first :class:`CalcError`.

    Checks in the order the page reports them: the preset and the values, the label,
    the model itself, the active share, the plan.
    """
    raw, architecture, pooler, asked = _resolve(params)
    label = label_of(params)
    inv = build(raw, architecture, pooler)
    active_text, active = _active_of(params, inv)
    planned = plan_of(params, inv)
    return _request(raw, inv, asked, active_text, active, planned, label=label)


def resolve_config(raw: Mapping[str, Any]) -> Request:
    """The :class:`Request` of a pasted config.json (already parsed); raises :class:`CalcError`.

    A pasted config is never named after a preset whose tensors it happens to equal
    (e5-large's are xlm-roberta-large's).
    """
    inv = build(raw)
    active_text, active = _active_of({}, inv)
    return _request(raw, inv, None, active_text, active, ({}, None), pasted=True)


def requested_model_type(params: Any) -> Any:
    """The family a request is about, for placing its errors: the preset's when only a preset is named."""
    if not isinstance(params, Mapping):
        return None
    try:
        return _resolve(params)[0]["model_type"]
    except CalcError:
        return params.get("model_type") or None


def _request(
    raw: Mapping[str, Any], inv: Inventory, asked: Any, active_text: str | None, active: Any,
    planned: tuple[dict[str, str], Any], label: str | None = None, pasted: bool = False,
) -> Request:
    extras = extra_query(raw, inv.family, inv.config)
    preset = None if pasted else _matching_preset(asked, inv, extras)
    changed: tuple[str, ...] = ()
    if not pasted and preset is None:
        # A preset the reader picked and then edited keeps its name (and its place in the link), marked as changed.
        keys = changed_keys(asked, inv, extras)
        if keys:
            preset, changed = asked, tuple(keys)
    plan_query, plan = planned
    # A pasted config's Hub id travels in its link as the name (label=), so the link says which model it was.
    query = canonical_query(inv, preset, active_text, extras, label or (hub_name(raw) if pasted else None))
    query.update(plan_query)
    return Request(
        raw=raw, inv=inv, plan=plan, active=active, active_text=active_text, label=label, preset=preset,
        changed=changed, pasted=pasted, extras=extras, query=query, link=share_query(query, inv, preset),
        plan_query=plan_query,
    )


#: A Hugging Face Hub id, ``organisation/name`` (letters, digits, ``-``, ``_``, ``.``; 96 characters each at most).
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}")


def hub_name(raw: Mapping[str, Any]) -> str | None:
    """A pasted config's ``_name_or_path`` when it is a Hub id, the name its link carries as ``label`` (issue 35,
    reader L6); None for a local path (``/root/.cache/...``, ``./out``, ``C:\\models``) or anything else.

    Only ``organisation/name``: a single word may as well be a local folder. A path under a cache directory
    names no model either (sentence-transformers' ``BAAI_bge-base-en`` is not a Hub id).
    """
    origin = raw.get("_name_or_path")
    if not isinstance(origin, str):
        return None
    text = origin.strip()
    if not _HUB_ID.fullmatch(text) or "cache" in text.lower() or ".." in text:
        return None
    # A preset's name there is the checkpoint the model was fine-tuned from, not its own (issue 22, item 1).
    return None if text in PRESETS else text
