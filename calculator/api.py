"""The in-page calculator's entry point: one call per user action, answered in plain data.

The page (``docs/calculator.md``) runs this module twice over:

* at build time, in CPython, ``sitegen/calculator_assets.py`` calls
  :func:`render_widget` to write the form and the default result
  (bert-base-uncased, ``BertModel`` with its pooler) into the HTML, so an exact
  answer is on screen before any script has run;
* in the browser, ``docs/assets/js/worker.js`` loads this same package into
  Pyodide and calls :func:`compute_json` for every later result.

Both paths render results with :func:`calculator.page.result.render_result`, so
the first answer and every later one are the same markup. This module is the
protocol only; the page's parts live in :mod:`calculator.page`:

* ``labels`` — the page's words in both languages;
* ``state`` — query parameters in, raw config out, and the canonical share link;
* ``fields`` — which form fields an error belongs beside;
* ``html`` — the escape-by-default HTML builder;
* ``result`` and ``form`` — the markup; ``dom`` — the ids and classes the script relies on.

User input never reaches the markup unescaped (``h()`` escapes every value);
error messages, which quote user input, are returned as text and the page
inserts them with ``textContent``. Standard library only, like the rest of the package.
"""
from __future__ import annotations

import json
import re
import traceback
from typing import Any, Callable, Mapping

from . import views
from .build import build
from .config import parse_json
from .errors import CalcError
from .model import Inventory
from .presets import PRESETS
from .page import costs as costs_panel
from .page import form
from .page.fields import error_dict, internal_error
from .i18n import colon, paren
from .page.labels import UI_LABELS, family_option, field_label, fields_legend, norm_lang, ui
from .page.planner import plan_of
from .page.result import announcement, keras_summary, render_result, render_summary, tensor_table
from .page.state import (
    ACTIVE_KEY,
    DEFAULT_PARAMS,
    STATE_KEYS,
    _active_of,
    _matching_preset,
    _resolve,
    canonical_query,
    changed_keys,
    label_of,
    extra_keys,
    share_query,
    extra_query,
)

__all__ = [
    "ACTIVE_KEY", "DEFAULT_PARAMS", "VALUE_ERRORS", "every_error", "failure", "STATE_KEYS", "UI_LABELS", "compute", "compute_config", "compute_costs",
    "compute_json",
    "family_option", "field_label", "fields_legend", "form_schema", "internal_error", "keras_summary",
    "render_form", "render_result", "render_summary", "render_widget", "tensor_table", "ui", "extra_keys",
]

_lang = norm_lang
render_form = form.render_form


def _ok(
    inv: Inventory, lang: str, raw: Mapping[str, Any], asked: Any = None, active_text: str | None = None,
    active: Any = None, tensor_rows: bool = False, planned: tuple[dict[str, str], Any] = ({}, None),
    pasted: bool = False, label: str | None = None,
) -> dict[str, Any]:
    """The page's answer for ``inv``, built from ``raw``; ``asked`` is the preset the request named, if any.

    ``planned`` is (the planner's query, its plan or None): a LoRA or freezing plan adds
    its panel, its keys to the link, and peft's line to the copies.
    """
    extras = extra_query(raw, inv.family, inv.config)
    # A pasted config is never named after a preset whose tensors it happens to equal
    # (e5-large's are xlm-roberta-large's): it is "pasted config", its _name_or_path shown as that.
    preset = None if pasted else _matching_preset(asked, inv, extras)
    shown = pasted_name(raw, lang) if pasted else preset
    if not pasted and preset is None:
        # A preset the reader picked and then edited keeps its name (and its place in the link), marked as changed.
        changed = changed_keys(asked, inv, extras)
        if changed:
            preset = asked
            shown = ui("preset_changed", lang, preset=asked, keys=ui("preset_changed_sep", lang).join(changed))
    if label:
        # The reader's own name heads the title (and so the copies' footer and the announcement).
        shown = label if shown is None else f"{label} · {shown}"
    plan_query, plan = planned
    # A pasted config's Hub id travels in its link as the name (label=), so the link says which model it was.
    query = canonical_query(inv, preset, active_text, extras, label or (hub_name(raw) if pasted else None))
    query.update(plan_query)
    # The copies: a summary a forum answer can paste (the page adds the name and the link), the full
    # per-tensor table one click away, and the text report; each ends with the plan's lines.
    markdown = views.summary_markdown(inv, lang, plan=plan)
    markdown_full, text = views.markdown_table(inv, lang), views.text_report(inv, lang)
    if plan is not None:
        markdown_full += "\n" + views.plan_report(plan, lang, markdown=True)
        text += "\n" + views.plan_report(plan, lang)
    # How the config was read (BERT assumed, custom code, a key the class ignores): beside the total and
    # first in every copy, as the CLI prints them (issue 35, H5).
    notes = views.config_notes(raw, lang, inv)
    markdown, markdown_full = views.notes_block(notes, True) + markdown, views.notes_block(notes, True) + markdown_full
    text = views.notes_block(notes) + text
    return {
        "ok": True,
        "total": inv.total,
        "total_text": views.fmt_int(inv.total, lang),
        "short": views.fmt_short(inv.total, lang),
        "short_text": ui("short_form", lang, short=views.fmt_short(inv.total, lang)),
        "model_type": inv.model_type,
        "architecture": inv.architecture,
        "pooler": inv.pooler,
        "preset": preset,
        "query": query,
        # The address and Copy link: only what differs from the link's starting point (the form takes `query`).
        "link": share_query(query, inv, preset),
        "summary_html": render_summary(inv, lang, shown, notes),
        # The Hub row quotes the picked preset's published file, whatever the title adds (a label).
        "html": render_result(inv, lang, shown, active, tensor_rows=tensor_rows, plan=plan, hub_preset=preset or ""),
        "tensors_html": tensor_table(inv, lang),
        "markdown": markdown,
        "markdown_full": markdown_full,
        "text": text,
        "notes": [n["message"] for n in notes],
        "plan": None if plan is None else {"trainable": plan.trainable, "all": plan.all, "line": plan.line},
        "announce": announcement(inv, lang, shown),
    }


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


def pasted_name(raw: Mapping[str, Any], lang: str) -> str:
    """What a pasted config is called: "pasted config", and its ``_name_or_path`` as what it is.

    ``_name_or_path`` is often the checkpoint a model was fine-tuned from, not the model's
    own name, so it is quoted under its key, never used as the name.
    """
    name = ui("pasted_config", lang)
    origin = raw.get("_name_or_path")
    if isinstance(origin, str) and origin.strip():
        text = " ".join(origin.split())  # one line, as a label is: a line break is no part of a name
        text = text if len(text) <= 80 else text[:77] + "..."
        name += paren(f"_name_or_path{colon(lang)}{text}", lang, aside=True)
    return name


def compute(params: Mapping[str, Any], lang: str = "en", tensor_rows: bool = False) -> dict[str, Any]:
    """One result for query-style parameters (strings, as in the page's URL or form).

    Returns ``{"ok": True, "total": int, "html": str, "tensors_html": str,
    "query": {...}, "markdown": str, "markdown_full": str, "text": str, "notes": [str], ...}``
    (``markdown``: the compact summary; ``markdown_full``: the per-tensor table; ``notes``: how
    the config was read, e.g. BERT assumed for a config without ``model_type``) or
    ``{"ok": False, "error": {"code", "key", "field", "message"}}``. Never raises:
    anything but a :class:`CalcError` becomes the code ``internal``.
    """
    lang = _lang(lang)
    model_type = None
    try:
        if not isinstance(params, Mapping):
            raise CalcError("not_an_object", kind=type(params).__name__)
        model_type = params.get("model_type") or None
        raw, architecture, pooler, preset_name = _resolve(params)
        model_type = raw["model_type"]
        label = label_of(params)
        inv = build(raw, architecture, pooler)
        active_text, active = _active_of(params, inv)
        planned = plan_of(params, inv)
        return _ok(inv, lang, raw, preset_name, active_text, active, tensor_rows, planned, label=label)
    except CalcError as exc:
        return failure(every_error(params, exc, lang, model_type, _attempt))
    except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
        return {"ok": False, "error": internal_error(lang), "errors": [internal_error(lang)],
                "detail": traceback.format_exc(limit=8)}


def _attempt(params: Mapping[str, Any]) -> None:
    """Everything :func:`compute` checks in a request, in its order; raises the first :class:`CalcError`."""
    raw, architecture, pooler, _ = _resolve(params)
    label_of(params)
    inv = build(raw, architecture, pooler)
    _active_of(params, inv)
    plan_of(params, inv)


#: Errors about one value alone (its kind, its bounds, its spelling): wrong whatever the other values are,
#: so they are reported even when another value had to be set aside to reach them.
VALUE_ERRORS = frozenset({
    "not_integer", "not_boolean", "negative", "zero", "too_large", "bad_value", "bad_fraction", "label_too_long",
    "lora_rank", "lora_bias", "lora_task_type", "module_name",
})

#: Errors after which nothing else can be checked: the request names no model this page counts.
_FINAL_ERRORS = frozenset({"unknown_model_type", "unknown_preset", "not_an_object", "invalid_json", "internal"})


def every_error(
    params: Any, first: CalcError, lang: str, model_type: Any, attempt: Callable[[Mapping[str, Any]], None],
) -> list[dict[str, Any]]:
    """Every error of one request (issue 22, item 7: a link or a form shows all its errors at once).

    ``first`` is the error ``attempt(params)`` raised. Its fields' values are set aside (the preset's
    or HF's default stands in) and the request is tried again, until it passes or fails on an error
    that depends on the stand-ins: after the first, only :data:`VALUE_ERRORS` are reported (a value
    that is not a number is wrong whatever the rest is; a hidden size that heads do not divide is
    only known once both are). Each entry is :func:`error_dict`'s (code, key, field, fields,
    message), the first one first; at most one per field.
    """
    out = [error_dict(first, lang, model_type)]
    if not isinstance(params, Mapping) or first.code in _FINAL_ERRORS:
        return out
    work, last = dict(params), out[0]
    for _ in range(len(work)):
        dropped = [k for k in last["fields"] if k in work] or [k for k in (last["key"],) if k in work]
        if not dropped:
            break
        for key in dropped:
            del work[key]
        try:
            attempt(work)
        except CalcError as exc:
            if exc.code in _FINAL_ERRORS:
                break
            last = error_dict(exc, lang, model_type)
            # Set aside too, but not reported unless wrong on its own (it may come from a stand-in).
            if exc.code in VALUE_ERRORS and not any(e["fields"] == last["fields"] for e in out):
                out.append(last)
            continue
        except Exception:  # noqa: BLE001 - a stand-in value must never turn an input error into a crash
            break
        break
    return out


def failure(errors: list[dict[str, Any]]) -> dict[str, Any]:
    """The page's answer for a request with errors: ``errors`` (each beside its field, the
    unplaced ones in the page's summary slot), and ``error``, the first, for callers that show one."""
    return {"ok": False, "error": errors[0], "errors": errors}


def compute_costs(params: Mapping[str, Any], lang: str = "en") -> dict[str, Any]:
    """The "Training cost" panel's answer for the page's query (the model's keys plus ``batch``, ``seq_len``,
    ``dtype``, ``optimizer``, ``ckpt``): ``{"ok": True, "costs", "markdown", "text", "series", "query", ...}``
    or ``{"ok": False, "error": {...}}`` with ``field`` set to the step's field the error belongs beside."""
    lang = _lang(lang)
    model_type = None
    try:
        raw, architecture, pooler, preset_name = _resolve(params)
        model_type = raw["model_type"]
        inv = build(raw, architecture, pooler)
        plan_query, plan = plan_of(params, inv)
        # The copy is one block for a forum answer (issue 35, M2): the reader's name for the model, the notes,
        # the plan, and a CLI command (--preset when the model is the preset's, unchanged).
        extras = extra_query(raw, inv.family, inv.config)
        preset = _matching_preset(preset_name, inv, extras)
        label = label_of(params)
        notes = views.config_notes(raw, lang, inv)
        return {"ok": True, **views.costs.page_answer(inv, plan, params, lang, notes=notes, name=label or preset_name,
                                                      preset=preset, raw=raw, plan_query=plan_query, cli_label=label)}
    except CalcError as exc:
        err = error_dict(exc, lang, model_type)
        field = views.costs.error_field(exc)
        if field is not None:
            err["field"], err["fields"] = field, [field]
        return {"ok": False, "error": err}
    except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
        return {"ok": False, "error": internal_error(lang), "detail": traceback.format_exc(limit=8)}


def costs_answer(query: Mapping[str, str], panel: Mapping[str, Any], lang: str = "en") -> dict[str, Any]:
    """The panel's answer for the model of ``query`` (a result's canonical query, plan included):
    :func:`compute_costs` with the panel's markup, copies and "fits in N GB?" line
    (:func:`calculator.page.costs.answer`). Never raises."""
    lang = _lang(lang)
    keys = {k: str(v) for k, v in panel.items() if k in costs_panel.PANEL_KEYS and v is not None}
    try:
        return costs_panel.answer(compute_costs({**query, **keys}, lang), keys, lang)
    except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
        return {"ok": False, "error": internal_error(lang), "detail": traceback.format_exc(limit=8)}


def compute_config(text: Any, lang: str = "en") -> dict[str, Any]:
    """A result for a pasted or dropped config.json (``architectures[0]`` picks the class).

    On success ``query`` holds the values the form should take over; errors
    belong to the paste box (``field == "config"``).
    """
    lang = _lang(lang)
    try:
        if not isinstance(text, str):
            raise CalcError("invalid_json", detail="not text")
        raw = parse_json(text)
        inv = build(raw)
        active_text, active = _active_of({}, inv)
        return _ok(inv, lang, raw, None, active_text, active, pasted=True)
    except CalcError as exc:
        return {"ok": False, "error": error_dict(exc, lang, None, source="config")}
    except Exception:  # noqa: BLE001
        return {"ok": False, "error": internal_error(lang), "detail": traceback.format_exc(limit=8)}


def compute_json(request: str, lang: str = "en") -> str:
    """The worker's single call: a JSON request in, a JSON answer out (no proxies cross the boundary).

    ``request`` is ``{"params": {...}}`` or ``{"config": "<config.json text>"}``; with the
    "Training cost" panel open it also has ``"costs": {batch, seq_len, ...}``, and a good
    answer then carries ``"costs"``: the panel's answer for the model just computed.
    """
    try:
        req = json.loads(request)
        if isinstance(req, dict) and "config" in req:
            out = compute_config(req["config"], lang)
        else:
            out = compute(req.get("params", {}) if isinstance(req, dict) else req, lang)
        panel = req.get("costs") if isinstance(req, dict) else None
        if isinstance(panel, dict) and out.get("ok"):
            out["costs"] = costs_answer(out["query"], panel, lang)
    except Exception:  # noqa: BLE001
        out = {"ok": False, "error": internal_error(_lang(lang)), "detail": traceback.format_exc(limit=8)}
    return json.dumps(out, ensure_ascii=False)


def form_schema(lang: str = "en") -> dict[str, Any]:
    """What the page's script needs to drive the form (see :func:`calculator.page.form.form_schema`)."""
    return form.form_schema(lang, compute(DEFAULT_PARAMS, lang)["query"])


def render_widget(lang: str = "en") -> str:
    """The calculator as the hook writes it into the page: form, status, default result, schema.

    No script but the schema (JSON): the page's scripts are files, added to
    ``<head>`` by ``sitegen/calculator_assets.py``.
    """
    lang = norm_lang(lang)
    first = compute(DEFAULT_PARAMS, lang, tensor_rows=True)  # the page without scripts shows every row
    if not first.get("ok"):  # a broken default must fail the build, not ship
        raise RuntimeError(f"calculator.api: the default state does not compute: {first}")
    schema = form.form_schema(lang, first["query"])
    # The pre-rendered result's copies, so the Copy buttons work before Python has loaded.
    schema["initial"] = {key: first[key] for key in ("query", "markdown", "markdown_full", "text")}
    return form.widget(first, schema, lang)
