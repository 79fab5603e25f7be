"""The form and the widget around it, rendered at build time so they are on screen with the first paint.

The page carries the fieldset of the family shown only (the default page: BERT's);
another family's is rendered by :func:`fieldset` in the worker when the reader picks
it, and inserted by the page's script, which otherwise only switches fieldsets and fills values. Every value is
escaped by :func:`calculator.html.h`; the ids and classes the script
relies on are declared in :mod:`calculator.page.dom`.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from ..build import DEFAULT_MODEL_TYPE
from ..families import FAMILIES
from .. import options
from ..i18n import label, paren, pick, punct
from ..presets import PRESETS
from . import dom
from ..html import Markup, h, join
from .labels import UI_LABELS, family_option, field_label, fields_legend, norm_lang, ui
from .state import ACTIVE_KEY, LABEL_KEY, LABEL_MAX, extra_keys, family_defaults, form_values


def form_schema(lang: str, default_query: Mapping[str, str]) -> dict[str, Any]:
    """What the page's script needs to drive the form: presets, families, fields, labels, the DOM contract."""
    from . import costs as costs_panel  # build time only: the worker never renders the panel's form

    lang = norm_lang(lang)
    # Only what calculator.js reads: the schema is in the page's HTML, parsed on its main thread (a preset's
    # whole config, a field's kind, default and bounds were 67 KB of it the script never read; Python
    # validates and answers, and a field's default is in its fieldset).
    return {
        "lang": lang,
        "default": dict(default_query),
        # ``form``: each field's text as the form shows it (lists as a|b, derived defaults worked out).
        "presets": {
            name: {"model_type": p.config["model_type"], "form": form_values(FAMILIES[p.config["model_type"]], p.config)}
            for name, p in PRESETS.items()
        },
        "families": {
            mt: {
                "base": fam.base,
                # The family menu's words for it (the page's HTML holds the chosen family's option only).
                "option": family_option(mt, lang),
                # The fields' keys, in the form's order.
                "fields": [f.key for f in fam.fields],
                "extras": list(extra_keys(mt)),
                "architectures": [
                    {"name": a.name, "pooler": a.pooler, "uses_num_labels": a.uses_num_labels,
                     "ties_embeddings": a.ties_embeddings}
                    for a in fam.architectures
                ],
            }
            for mt, fam in FAMILIES.items()
        },
        "labels": {key: entry[lang] for key, entry in UI_LABELS.items()},
        "active": ACTIVE_KEY,
        # The "Training cost" panel's keys (sent, and kept in the link, only while it is open) and defaults.
        "costs": {"keys": list(costs_panel.PANEL_KEYS), "defaults": dict(costs_panel.DEFAULTS)},
        "dom": dom.contract(),
    }


def _pooler_hint(arch_pooler: bool | None, architecture: str, lang: str) -> str:
    if arch_pooler is None:
        return ui("pooler_choice", lang)
    return ui("pooler_fixed_on" if arch_pooler else "pooler_fixed_off", lang, architecture=architecture)


def _err(field_id: str) -> Markup:
    return h("p", class_="calc-err", id=f"{field_id}-error", data_error_for=field_id, hidden=True)


def _config_box(lang: str) -> Markup:
    """Paste / drop a config.json: first, so it is in sight at the top of the input column."""
    return h(
        "details",
        h("summary", ui("config_title", lang)),
        h("label", ui("config_label", lang), for_=dom.IDS["config"]),
        h("textarea", id=dom.IDS["config"], rows=6, spellcheck="false", aria_describedby="calc-config-error"),
        h(
            "div",
            h("button", ui("config_apply", lang), type="button", class_="md-button", id=dom.IDS["config_apply"]),
            h("label", ui("config_file", lang), " ",
              h("input", type="file", id=dom.IDS["config_file"], accept=".json,application/json"), class_="calc-file"),
            class_="calc-config-actions",
        ),
        _err(dom.IDS["config"]),
        class_="calc-config", id=dom.IDS["config_box"],
    )


def _model_field(query: Mapping[str, str], lang: str) -> Markup:
    """The model-id field (``model=`` in a link): above the paste box, in a form of its own, so typing an id
    computes nothing until it is read (Enter or the button). Its errors go in ``calc-model-error``."""
    fid = dom.IDS["model"]
    return h(
        "form",
        h("label", pick(options.MODEL.label, lang), for_=fid),
        h("div",
          h("input", type="text", id=fid, name=options.MODEL.key, value=query.get(options.MODEL.key, ""),
            spellcheck="false", autocapitalize="off", placeholder="google-bert/bert-base-uncased",
            aria_describedby=f"{fid}-hint {fid}-error"),
          h("button", ui("model_read", lang), type="submit", class_="md-button", id=dom.IDS["model_read"]),
          class_="calc-model-row"),
        h("p", ui("model_hint", lang), class_="calc-hint", id=f"{fid}-hint"),
        h("p", class_="calc-hint", id=dom.IDS["model_progress"], role="status"),
        _err(fid),
        class_="calc-model-form calc-field", id=dom.IDS["model_form"], novalidate=True, autocomplete="off",
        data_key=options.MODEL.key,
    )


def _select(label_content: Any, field_id: str, name: str, options: list[Markup], wide: bool = False) -> Markup:
    return h(
        "div",
        h("label", label_content, for_=field_id),
        h("select", options, id=field_id, name=name, aria_describedby=f"{field_id}-error"),
        _err(field_id),
        class_="calc-field calc-wide" if wide else "calc-field",
    )


def _family_fields(mt: str, current: str, query: Mapping[str, str], lang: str) -> Markup:
    fam = FAMILIES[mt]
    active = mt == current
    defaults = family_defaults(fam)
    items: list[Markup] = [h("legend", fields_legend(mt, lang))]
    for f in fam.fields:
        fid = dom.field_id(mt, f.key)
        value = query.get(f.key) if active and f.key in query else None
        described = f"{fid}-hint {fid}-error"
        # The key is shown as code already: a label that ends by naming it ("标签数（num_labels）") drops that.
        words = field_label(fam, f.key, lang).replace(paren(f.key, lang, aside=True), "")
        label_content = join([h("code", f.key), " ", words])
        if f.kind == "bool":
            on = (value == "1") if value is not None else defaults[f.key] == "1"
            items.append(h(
                "div",
                h("input", type="checkbox", id=fid, name=f.key, checked=on, aria_describedby=described),
                h("label", label_content, for_=fid),
                h("p", class_="calc-hint", id=f"{fid}-hint"), _err(fid),
                class_="calc-field calc-check", data_key=f.key,
            ))
        else:
            shown = value if value is not None else defaults[f.key]
            items.append(h(
                "div",
                h("label", label_content, for_=fid),
                h("input", type="text", inputmode="numeric" if f.kind == "int" else "text", id=fid, name=f.key,
                  value=shown, spellcheck="false", aria_describedby=described),
                h("p", class_="calc-hint", id=f"{fid}-hint"), _err(fid),
                class_="calc-field", data_key=f.key,
            ))
    return h("fieldset", items, class_="calc-fields", data_family=mt, hidden=not active, disabled=not active)


def fieldset(mt: str, query: Mapping[str, str], lang: str = "en") -> str:
    """Family ``mt``'s fieldset, shown, its fields holding ``query``'s values (else the family's defaults).

    What the worker sends when the page does not have it yet (``calculator.api.compute_json``'s ``forms``).
    """
    return str(_family_fields(mt, mt, query, norm_lang(lang)))


def render_form(query: Mapping[str, str], lang: str = "en") -> str:
    """The whole form, with the fieldset of the current family only (others come from :func:`fieldset`)."""
    lang = norm_lang(lang)
    current = query.get("model_type", DEFAULT_MODEL_TYPE)
    arch_name = query.get("architecture", "")

    # The two long menus carry their chosen option only (and the preset menu its "custom" one): their 168
    # options were a sixth of the page's elements, and with each option's own box half of what Material's
    # bundle restyles four times while it starts (benchmarks/README.md). calculator.js fills them from the
    # schema's presets and families when first focused or pressed, when a link or an answer sets them, and
    # once the page is idle after loading.
    presets = [h("option", ui("preset_custom", lang), value="")]
    presets += [h("option", name, value=name, selected=True) for name in PRESETS if query.get("preset") == name]
    shown_family = current if current in FAMILIES else DEFAULT_MODEL_TYPE
    families = [h("option", family_option(shown_family, lang), value=shown_family, selected=True)]
    # Architecture: the options of the current family (the script swaps them).
    fam = FAMILIES.get(current) or FAMILIES[DEFAULT_MODEL_TYPE]
    arch_name = arch_name or fam.base
    architectures = [h("option", a.name, value=a.name, selected=a.name == arch_name) for a in fam.architectures]
    arch = fam.architecture(arch_name)
    fixed = arch.pooler if arch is not None else None
    pooler = h(
        "div",
        h("input", type="checkbox", id=dom.IDS["pooler"], name="pooler", checked=query.get("pooler", "1") == "1",
          disabled=fixed is not None, aria_describedby="calc-pooler-hint calc-pooler-error"),
        h("label", ui("pooler", lang), for_=dom.IDS["pooler"]),
        h("p", _pooler_hint(fixed, arch_name, lang), class_="calc-hint", id=dom.IDS["pooler_hint"]),
        _err(dom.IDS["pooler"]),
        class_="calc-field calc-check",
    )
    fid = dom.field_id(None, ACTIVE_KEY)
    active = h(
        "div",
        h("label", ui("active_fraction", lang), for_=fid),
        h("input", type="text", inputmode="decimal", id=fid, name=ACTIVE_KEY, value=query.get(ACTIVE_KEY, "1"),
          spellcheck="false", aria_describedby=f"{fid}-hint {fid}-error"),
        h("p", ui("active_hint", lang), class_="calc-hint", id=f"{fid}-hint"), _err(fid),
        class_="calc-field", data_key=ACTIVE_KEY,
    )
    lid = dom.field_id(None, LABEL_KEY)
    # The reader's own name for the result (label= in the link); no maxlength, so a longer pasted
    # one is not cut silently: it gets label_too_long beside this field.
    label_field = h(
        "div",
        h("label", ui(LABEL_KEY, lang), for_=lid),
        h("input", type="text", id=lid, name=LABEL_KEY, value=query.get(LABEL_KEY, ""), spellcheck="false",
          aria_describedby=f"{lid}-error"),
        _err(lid), class_="calc-field calc-wide", data_key=LABEL_KEY, data_maximum=LABEL_MAX,
    )
    form = h(
        "form",
        label_field,
        _select(ui("preset", lang), dom.IDS["preset"], "preset", presets, wide=True),
        _select(join([ui("model_type", lang), " ", h("code", "model_type")]), dom.IDS["model_type"], "model_type",
                families),
        _select(ui("architecture", lang), dom.IDS["architecture"], "architecture", architectures),
        pooler,
        _family_fields(current if current in FAMILIES else DEFAULT_MODEL_TYPE, current, query, lang),
        active,
        _planner(query, lang),
        h("p", class_="calc-hint calc-extras", id=dom.IDS["extras"], hidden=True),
        class_="calc-form", id=dom.IDS["form"], novalidate=True, autocomplete="off",
    )
    return join([_model_field(query, lang), _config_box(lang), form])


def _planner(query: Mapping[str, str], lang: str) -> Markup:
    """LoRA (rank, targets, bias, task_type, modules_to_save) or freezing: keys the address carries as they are.

    One field per option of the planner's groups (:mod:`calculator.options`), with its label and default.
    """

    def field(opt: options.Option) -> Markup:
        fid = dom.field_id(None, opt.key)
        if opt.kind == "choice":
            chosen = query.get(opt.key, opt.default)
            items = [h("option", pick(c.label, lang) if c.label else c.value, value=c.value, selected=c.value == chosen)
                     for c in opt.choices]
            control = h("select", items, id=fid, name=opt.key, aria_describedby=f"{fid}-error")
        else:
            control = h("input", type="text", inputmode="numeric" if opt.kind == "int" else "text", id=fid,
                        name=opt.key, value=query.get(opt.key, opt.default), spellcheck="false",
                        aria_describedby=f"{fid}-error")
        return h(
            "div",
            h("label", h("code", opt.key), " ", pick(opt.label, lang), for_=fid),
            control,
            _err(fid), class_="calc-field", data_key=opt.key,
        )

    return h(
        "fieldset",
        h("legend", ui("planner_legend", lang)),
        [field(o) for o in options.OPTIONS if o.group in options.PLANNER_GROUPS],
        class_="calc-planner", id=dom.IDS["planner"],
    )


def _json_for_script(value: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">`` (no ``</script>``, no ``<!--``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def widget(first: Mapping[str, Any], schema: Mapping[str, Any], lang: str) -> str:
    """The calculator as the hook writes it into the page, around ``first`` (the pre-rendered answer)."""
    from . import costs as costs_panel  # build time only, as form_schema

    lang = norm_lang(lang)

    def actions(status_id: str | None) -> Markup:
        """The Copy buttons and the line that says what they did; the page has them twice (below)."""
        buttons = [
            h("button", ui("copy_" + kind, lang), type="button", class_="md-button", data_copy=kind)
            for kind in ("link", "markdown", "text")
        ]
        return h("div", buttons, h("span", class_="calc-copy-status", id=status_id, role="status"),
                 class_="calc-actions")

    head = h(
        "section",
        # The answer first, near the top of the document, so the first paint already shows it.
        h("div", Markup(first["summary_html"]), class_="calc-summary", id=dom.IDS["summary"]),
        h("p", ui("status_loading", lang), class_="calc-status", id=dom.IDS["status"], role="status"),
        h("p", class_="calc-err calc-general-error", id=dom.IDS["general_error"], hidden=True),
        # What is stale, then what to do (a marked field, or the message above): calculator.js picks the second.
        h("p", h("span", ui("stale", lang), id=dom.IDS["stale_note"]), punct("sentence_gap", lang),
          h("span", ui("stale_fix_field", lang), id=dom.IDS["stale_fix"]), class_="calc-stale-note",
          id=dom.IDS["stale_box"], hidden=True),
        actions(dom.IDS["copy_status"]),
        h("p", ui("default_note", lang), class_="calc-note"),
        class_="calc-head", aria_label=ui("summary_title", lang),
    )
    inputs = h(
        "section",
        Markup(render_form(first["query"], lang)),
        # The same Copy buttons where a reader finishes editing (reader review L13): after the form, the
        # next stops for Tab, instead of ten Shift+Tabs back to the top.
        actions(None),
        # On a phone the breakdown is below the form: this strip keeps the total in sight while typing.
        h("p", h("span", label("total", lang)), " ", h("strong", first["total_text"]), " ",
          h("span", first["short_text"], class_="calc-mini-short"),
          # With a LoRA or freezing plan: its trainable count, kept in sight too (calculator.js fills it).
          h("span", "", class_="calc-mini-plan", hidden=True), class_="calc-mini", id=dom.IDS["mini"],
          aria_hidden="true"),
        class_="calc-inputs", aria_label=ui("form_title", lang),
    )
    outputs = h(
        "section",
        h("div", class_="calc-live", id=dom.IDS["live"], aria_live="polite", aria_atomic="true"),
        # Closed, empty and inert until opened: the default page computes nothing more for it.
        costs_panel.render_panel(lang),
        h("div", Markup(first["html"]), class_="calc-output", id=dom.IDS["output"]),
        class_="calc-outputs", aria_labelledby="calc-result-title",
    )
    return h(
        "div", head, h("div", inputs, outputs, class_="calc-layout"),
        h("script", _json_for_script(schema), type="application/json", id=dom.IDS["schema"]),
        class_="calculator", id=dom.IDS["root"], data_lang=lang, data_state="loading",
    )
