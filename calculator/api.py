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
* ``state`` — query parameters in, a :class:`~calculator.page.state.Request` out (:func:`resolve`:
  the model built, its plan, its name and its share link); this module renders it (:func:`render`),
  and the per-tensor rows and the copies only when asked (:data:`PARTS`);
* ``fields`` — which form fields an error belongs beside;
* ``result`` and ``form`` — the markup; ``dom`` — the ids and classes the script relies on.

User input never reaches the markup unescaped (:func:`calculator.html.h` escapes every value);
error messages, which quote user input, are returned as text and the page
inserts them with ``textContent``. Standard library only, like the rest of the package.
"""
from __future__ import annotations

import json
import traceback
from typing import Any, Callable, Mapping

from . import views
from .config import parse_json
from .errors import CalcError
from .page import form
from .page.fields import error_dict, internal_error, shown_model_type
from .i18n import colon, paren
from .page.labels import UI_LABELS, family_option, field_label, fields_legend, norm_lang, ui
from .page.result import announcement, keras_summary, render_result, render_summary, tensor_table
from .page.state import (
    ACTIVE_KEY,
    DEFAULT_PARAMS,
    STATE_KEYS,
    Request,
    extra_keys,
    requested_model_type,
    resolve,
    resolve_config,
)

__all__ = [
    "ACTIVE_KEY", "DEFAULT_PARAMS", "PARTS", "VALUE_ERRORS", "every_error", "failure", "STATE_KEYS", "UI_LABELS", "compute", "compute_config", "compute_costs",
    "compute_json",
    "family_option", "field_label", "fields_legend", "form_schema", "internal_error", "keras_summary",
    "render", "render_form", "render_result", "render_summary", "render_widget", "tensor_table", "ui", "extra_keys",
]

_lang = norm_lang
render_form = form.render_form

#: The parts of an answer rendered only when asked for (``"want"`` in the worker's protocol):
#: the per-tensor table (when its block is opened) and the copies (when a Copy button is clicked).
PARTS: tuple[str, ...] = ("tensors", "copies")


def _title(req: Request, lang: str) -> str | None:
    """What the result is called: the preset (marked when changed), "pasted config", the reader's label."""
    if req.pasted:
        shown: str | None = pasted_name(req.raw, lang)
    elif req.changed:
        shown = ui("preset_changed", lang, preset=req.preset, keys=ui("preset_changed_sep", lang).join(req.changed))
    else:
        shown = req.preset
    if req.label:
        # The reader's own name heads the title (and so the copies' footer and the announcement).
        shown = req.label if shown is None else f"{req.label} · {shown}"
    return shown


def copies(req: Request, lang: str) -> dict[str, str]:
    """The copies: a summary a forum answer can paste (the page adds the name and the link), the full
    per-tensor table, and the text report; each ends with the plan's lines."""
    inv, plan = req.inv, req.plan
    markdown = views.summary_markdown(inv, lang, plan=plan)
    markdown_full, text = views.markdown_table(inv, lang), views.text_report(inv, lang)
    if plan is not None:
        markdown_full += "\n" + views.plan_report(plan, lang, markdown=True)
        text += "\n" + views.plan_report(plan, lang)
    if req.appendix is not None:  # a model id read from the Hub: the file against the model, as the CLI ends
        markdown, markdown_full, text = (markdown + "\n" + req.appendix[0], markdown_full + "\n" + req.appendix[0],
                                         text + "\n" + req.appendix[1])
    # How the config was read (BERT assumed, custom code, a key the class ignores): first in every copy,
    # as the CLI prints them (issue 35, H5).
    notes = views.config_notes(req.raw, lang, inv)
    markdown, markdown_full = views.notes_block(notes, True) + markdown, views.notes_block(notes, True) + markdown_full
    text = views.notes_block(notes) + text
    return {"markdown": markdown, "markdown_full": markdown_full, "text": text}


def render(req: Request, lang: str, parts: Any = PARTS, tensor_rows: bool = False) -> dict[str, Any]:
    """The page's answer for ``req``: the summary, the result and the link, plus the :data:`PARTS` asked for.

    ``tensor_rows``: the per-tensor rows inside the result's markup (the page as built, for
    readers without scripts); otherwise the block arrives empty and ``tensors_html`` fills it.
    """
    inv, plan = req.inv, req.plan
    shown = _title(req, lang)
    notes = views.config_notes(req.raw, lang, inv)  # beside the total, as in every copy (issue 35, H5)
    out: dict[str, Any] = {
        "ok": True,
        "total": inv.total,
        "total_text": views.fmt_int(inv.total, lang),
        "short": views.fmt_short(inv.total, lang),
        "short_text": ui("short_form", lang, short=views.fmt_short(inv.total, lang)),
        "model_type": inv.model_type,
        "architecture": inv.architecture,
        "pooler": inv.pooler,
        "preset": req.preset,
        "query": dict(req.query),
        # The address and Copy link: only what differs from the link's starting point (the form takes `query`).
        "link": dict(req.link),
        "summary_html": render_summary(inv, lang, shown, notes),
        # The Hub row quotes the picked preset's published file, whatever the title adds (a label).
        "html": render_result(inv, lang, shown, req.active, tensor_rows=tensor_rows, plan=plan,
                              hub_preset=req.preset or ""),
        "notes": [n["message"] for n in notes],
        "plan": None if plan is None else {"trainable": plan.trainable, "all": plan.all, "line": plan.line},
        "announce": announcement(inv, lang, shown),
    }
    if "tensors" in parts:
        out["tensors_html"] = tensor_table(inv, lang)
    if "copies" in parts:
        out.update(copies(req, lang))
    return out


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


def compute(
    params: Mapping[str, Any], lang: str = "en", tensor_rows: bool = False, parts: Any = PARTS,
) -> dict[str, Any]:
    """One result for query-style parameters (strings, as in the page's URL or form): ``render(resolve(params))``.

    Returns ``{"ok": True, "total": int, "html": str, "tensors_html": str,
    "query": {...}, "markdown": str, "markdown_full": str, "text": str, "notes": [str], ...}``
    (``markdown``: the compact summary; ``markdown_full``: the per-tensor table; ``notes``: how
    the config was read, e.g. BERT assumed for a config without ``model_type``; ``tensors_html``
    and the copies only with their :data:`PARTS` in ``parts``) or
    ``{"ok": False, "error": {"code", "key", "field", "fields", "slot", "marks", "message"}}``. Never raises:
    anything but a :class:`CalcError` becomes the code ``internal``.
    """
    lang = _lang(lang)
    try:
        return render(_resolved(params), lang, parts, tensor_rows)
    except CalcError as exc:
        return failure(every_error(params, exc, lang, _slot_model_type(params), resolve))
    except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
        return {"ok": False, "error": internal_error(lang), "errors": [internal_error(lang)],
                "detail": traceback.format_exc(limit=8)}


def _resolved(params: Any) -> Request:
    if not isinstance(params, Mapping):
        raise CalcError("not_an_object", fields=("config",), kind=type(params).__name__)
    return resolve(params)


def _slot_model_type(params: Any) -> Any:
    """The family whose fields an error is placed among: the request's, else the one the page shows."""
    return requested_model_type(params) or shown_model_type(params)


#: Errors about one value alone (its kind, its bounds, its spelling): wrong whatever the other values are,
#: so they are reported even when another value had to be set aside to reach them.
VALUE_ERRORS = frozenset({
    "not_integer", "not_boolean", "negative", "zero", "too_large", "bad_value", "bad_fraction", "label_too_long",
    "lora_rank", "lora_bias", "lora_task_type", "module_name",
})

#: Errors after which nothing else can be checked: the request names no model this page counts.
_FINAL_ERRORS = frozenset({"unknown_model_type", "unknown_preset", "not_an_object", "invalid_json", "internal"})


def every_error(
    params: Any, first: CalcError, lang: str, model_type: Any, attempt: Callable[[Mapping[str, Any]], object],
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
    or ``{"ok": False, "error": {...}}`` with ``field`` and ``slot`` the panel's field the error belongs beside
    (None and the panel's own slot for an error about none of them)."""
    lang = _lang(lang)
    try:
        req = resolve(params)
    except CalcError as exc:
        return {"ok": False, "error": error_dict(exc, lang, _slot_model_type(params), panel=True)}
    except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
        return {"ok": False, "error": internal_error(lang, panel=True), "detail": traceback.format_exc(limit=8)}
    return _costs(req, params, lang)


def _costs(req: Request, params: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """The panel's data for the model and plan ``req`` already holds; ``params`` gives the step's keys."""
    try:
        # The copy is one block for a forum answer (issue 35, M2): the reader's name for the model, the notes,
        # the plan, and a CLI command (--preset when the model is the preset's, unchanged).
        notes = views.config_notes(req.raw, lang, req.inv)
        preset = None if req.changed else req.preset
        from .views import embed  # the panel's inference mode (issue 32 item 3), imported when asked for

        if embed.page_mode(params) == "inference":
            return {"ok": True, **embed.page_answer(req.inv, req.plan, params, lang, notes, req.label or req.preset,
                                                    preset, req.raw, req.label)}
        return {"ok": True, **views.costs.page_answer(
            req.inv, req.plan, params, lang, notes=notes, name=req.label or req.preset, preset=preset,
            raw=req.raw, plan_query=req.plan_query, cli_label=req.label)}
    except CalcError as exc:
        # The slot comes with the error (its fields, its key, or the option that owns its code).
        return {"ok": False, "error": error_dict(exc, lang, req.inv.model_type, panel=True)}
    except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
        return {"ok": False, "error": internal_error(lang, panel=True), "detail": traceback.format_exc(limit=8)}


def costs_answer(req: Request, panel: Mapping[str, Any], lang: str = "en") -> dict[str, Any]:
    """The panel's answer for the model of ``req`` (the request just answered, plan included):
    :func:`_costs` with the panel's markup, copies and "fits in N GB?" line
    (:func:`calculator.page.costs.answer`). Never raises."""
    from .page import costs as costs_panel  # only once the panel is open: the default page never renders it

    lang = _lang(lang)
    keys = {k: str(v) for k, v in panel.items() if k in costs_panel.PANEL_KEYS and v is not None}
    try:
        return costs_panel.answer(_costs(req, keys, lang), keys, lang)
    except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
        return {"ok": False, "error": internal_error(lang, panel=True), "detail": traceback.format_exc(limit=8)}


def compute_config(text: Any, lang: str = "en", parts: Any = PARTS) -> dict[str, Any]:
    """A result for a pasted or dropped config.json (``architectures[0]`` picks the class).

    On success ``query`` holds the values the form should take over; errors
    belong to the paste box (``field == "config"``).
    """
    lang = _lang(lang)
    try:
        return render(_config_request(text), lang, parts)
    except CalcError as exc:
        return {"ok": False, "error": error_dict(exc, lang, None, source="config")}
    except Exception:  # noqa: BLE001
        return {"ok": False, "error": internal_error(lang), "detail": traceback.format_exc(limit=8)}


def _config_request(text: Any) -> Request:
    if not isinstance(text, str):
        raise CalcError("invalid_json", detail="not text")
    return resolve_config(parse_json(text))


#: The worker's last answered request: what ``{"want": [...]}`` (copies, the per-tensor table) is rendered from.
_LAST: list[Request] = []


def _remember(req: Request) -> Request:
    _LAST[:] = [req]
    return req


def _form_for(req: Any, model_type: Any, lang: str) -> dict[str, str]:
    """``{"form_html": ...}``: the fieldset of ``model_type`` when the page said it does not have it (``forms``)."""
    have = req.get("forms") if isinstance(req, dict) else None
    if not isinstance(have, list) or not isinstance(model_type, str) or model_type in have:
        return {}
    from .families import FAMILIES

    if model_type not in FAMILIES:
        return {}
    params = req.get("params")
    values = params if isinstance(params, dict) else {}
    return {"form_html": form.fieldset(model_type, {k: str(v) for k, v in values.items()}, lang)}


def _wanted(req: Any) -> tuple[str, ...]:
    want = req.get("want") if isinstance(req, dict) else None
    return tuple(w for w in want if w in PARTS) if isinstance(want, list) else ()


def compute_json(request: str, lang: str = "en") -> str:
    """The worker's single call: a JSON request in, a JSON answer out (no proxies cross the boundary).

    ``request`` is ``{"params": {...}}`` or ``{"config": "<config.json text>"}``; with the
    "Training cost" panel open it also has ``"costs": {batch, seq_len, ...}``, and a good
    answer then carries ``"costs"``: the panel's answer for the model just computed.
    ``"want": ["tensors", "copies"]`` adds those :data:`PARTS` (none by default: the page asks for
    the table when it is opened and the copies when a Copy button is clicked). ``"forms"``: the
    families whose fieldset the page holds; an answer about another family adds its ``form_html``
    (the page is built with the shown family's fieldset only). A request of
    ``"want"`` alone is answered from the last good request, without building anything:
    ``{"ok": True, "query": ..., "tensors_html"?, "markdown"?, "markdown_full"?, "text"?}``.
    """
    lang = _lang(lang)
    try:
        req = json.loads(request)
        want = _wanted(req)
        if isinstance(req, dict) and "want" in req and "params" not in req and "config" not in req:
            out = _parts_of_last(want, lang)
        else:
            out = _answer(req, want, lang)
    except Exception:  # noqa: BLE001
        out = {"ok": False, "error": internal_error(lang), "detail": traceback.format_exc(limit=8)}
    return json.dumps(out, ensure_ascii=False)


def _parts_of_last(want: tuple[str, ...], lang: str) -> dict[str, Any]:
    if not _LAST:
        return {"ok": False, "error": internal_error(lang), "detail": "no request answered yet"}
    req = _LAST[0]
    out: dict[str, Any] = {"ok": True, "query": dict(req.query)}
    if "tensors" in want:
        out["tensors_html"] = tensor_table(req.inv, lang)
    if "copies" in want:
        out.update(copies(req, lang))
    return out


def _answer(req: Any, want: tuple[str, ...], lang: str) -> dict[str, Any]:
    """A request with a model (params or a pasted config): resolved once, rendered, kept for later parts."""
    pasted = isinstance(req, dict) and "config" in req
    params = req.get("params", {}) if isinstance(req, dict) else req
    try:
        resolved = _remember(_config_request(req["config"]) if pasted else _resolved(params))
    except CalcError:
        # The error answers as compute and compute_config give them (every error of the request, placed),
        # beside the fields of the family asked for, which the page may not have yet.
        if pasted:
            return compute_config(req["config"], lang)
        return {**compute(params, lang), **_form_for(req, requested_model_type(params), lang)}
    out = render(resolved, lang, want)
    # The fieldset holds the answer's values (the canonical query), as the page would have typed them.
    have = req.get("forms") if isinstance(req, dict) else None
    out.update(_form_for({"forms": have, "params": resolved.query}, resolved.inv.model_type, lang))
    panel = req.get("costs") if isinstance(req, dict) else None
    if isinstance(panel, dict):
        out["costs"] = costs_answer(resolved, panel, lang)
    return out


def form_schema(lang: str = "en") -> dict[str, Any]:
    """What the page's script needs to drive the form (see :func:`calculator.page.form.form_schema`)."""
    return form.form_schema(lang, dict(resolve(DEFAULT_PARAMS).query))


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
