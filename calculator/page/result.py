"""The result's markup: the summary at the top, then facts, chart, tables, formula, memory and every tensor.

Built with :func:`calculator.html.h`, which escapes every value; the only
raw HTML is the SVG chart this package generates. Numbers also sit in ``data-*``
attributes (``data-count``, ``data-bytes``, …) so tests read them without
parsing localized text. Class and id names the page's script relies on are in
:mod:`calculator.page.dom`.
"""
from __future__ import annotations

import re
from typing import Any

from .. import counts, views
from ..charts import share_chart_svg
from ..i18n import colon, label, paren, pick, punct
from ..model import Inventory
from ..html import Markup, escape, h, join, raw
from .labels import norm_lang, ui


def _td(content: Any, cls: str = "") -> Markup:
    return h("td", content, class_=cls or None)


def _table(head: list[tuple[str, str]], rows: list[Markup], cls: str, name: str | None = None) -> Markup:
    """A table in a horizontal scroll box; a wide one (``name`` given) is a named, keyboard-reachable region."""
    th = [h("th", title, scope="col", class_=c or None) for title, c in head]
    return h("div", h("table", h("thead", h("tr", th)), h("tbody", rows), class_=f"calc-table {cls}"),
             class_="calc-scroll", tabindex="0" if name else None, role="region" if name else None, aria_label=name)


def has_pooler_notion(inv: Inventory) -> bool:
    """Whether any class of the family has a pooler (BERT, RoBERTa, ALBERT).

    DistilBERT, ELECTRA, keras-bert and the 2018 Transformer have none in any
    class: "without pooler" would suggest something was left out.
    """
    family = inv.family
    return family is not None and any(a.pooler is not False for a in family.architectures)


def model_title(inv: Inventory, preset: str | None, lang: str) -> str:
    parts = [preset] if preset else []
    parts.append(inv.architecture)
    if has_pooler_notion(inv):
        parts.append(label("pooler_on" if inv.pooler else "pooler_off", lang))
    return " · ".join(parts)


def _approx(value: float, lang: str) -> str:
    """A per-token count: exact when whole, else rounded with "≈"."""
    whole = round(value)
    text = views.fmt_int(whole, lang)
    return text if whole == value else "≈" + text


def _render_active(inv: Inventory, active: Any, lang: str) -> Markup:
    share = views.fmt_percent(active.active_share, lang)
    rows = [
        ("active_stored", inv.total, views.fmt_int(inv.total, lang)),
        ("active_ff", active.feed_forward, views.fmt_int(active.feed_forward, lang)),
        ("active_ff_used", active.feed_forward_active, _approx(active.feed_forward_active, lang)),
        ("active_used", active.active, _approx(active.active, lang)),
    ]
    body = join(h("tr", _td(ui(k, lang)), _td(t, "num"), data_active=k, data_value=repr(v)) for k, v, t in rows)
    summary = ui(
        "active_summary", lang, fraction=views.fmt_percent(active.fraction, lang),
        active=_approx(active.active, lang), stored=views.fmt_int(inv.total, lang), share=share,
    )
    return join([
        h("h3", ui("active_title", lang)), h("p", summary, class_="calc-active-summary"),
        _table([(ui("active_title", lang), ""), (label("count", lang), "num")], [body], "calc-active"),
    ])


def source_title(inv: Inventory, preset: str | None, lang: str, notes: list[dict[str, str]] | None = None) -> str:
    """The copies' last line and the link's label: the title, the total and, with notes, which class was counted."""
    title = model_title(inv, preset, lang) + colon(lang) + views.fmt_int(inv.total, lang)
    short = views.notes.short_note(list(notes or ()), inv, lang)
    return title + paren(short, lang, aside=True) if short else title


def render_summary(inv: Inventory, lang: str = "en", preset: str | None = None,
                   notes: list[dict[str, str]] | None = None) -> str:
    """The answer at the top of the page: which model, and its exact total (``data-total``).

    ``notes`` (:func:`calculator.views.config_notes`) stand under the total. The title line carries the
    copies' source line (``data-source-text``) and its Markdown, escaped (``data-source-markdown``):
    ``calculator.js`` appends them with the link, so a crafted label or ``_name_or_path`` reaches a
    reader's post as text (issue 35, reliability M5) and a custom-code config's label says so (H5).
    """
    lang = norm_lang(lang)
    total, short = inv.total, views.fmt_short(inv.total, lang)
    d = views.class_difference(inv)
    source = source_title(inv, preset, lang, notes)
    return join([
        h("p", model_title(inv, preset, lang), class_="calc-model", data_architecture=inv.architecture,
          data_source_text=" ".join(source.split()), data_source_markdown=views.md_text(source)),
        # A class other than the family's base model says how far it is from it (a preset counts the base).
        h("p", views.class_difference_line(inv, lang), class_="calc-class-diff", data_base=d.base,
          data_difference=d.difference) if d is not None else "",
        h(
            "p",
            h("span", label("total", lang), class_="calc-total-label"), " ",
            h("span", views.fmt_int(total, lang), class_="calc-total", data_total=total, elementtiming="calc-total"),
            " ",
            h("span", ui("short_form", lang, short=short), class_="calc-short", data_short=short),
            class_="calc-total-box",
        ),
        join(h("p", n["message"], class_="calc-config-note", role="note", data_note=n["code"]) for n in notes or ()),
    ])


def _facts(inv: Inventory, lang: str) -> Markup:
    extra: list[tuple[str, int]] = []
    if inv.trainable != inv.total:
        extra.append(("trainable", inv.trainable))
    if inv.state_dict_total != inv.total:
        extra.append(("state_dict_total", inv.state_dict_total))
    emb, non_emb = views.embedding_split(inv)
    extra.extend([("embedding_params", emb), ("non_embedding_params", non_emb),
                  ("num_parameters_exclude_embeddings", views.num_parameters(inv, exclude_embeddings=True))])
    return h("dl", [
        h("div", h("dt", label(k, lang)), h("dd", views.fmt_int(v, lang)), data_fact=k, data_count=v)
        for k, v in extra
    ], class_="calc-facts")


def _groups(inv: Inventory, lang: str, head: list[tuple[str, str]]) -> Markup:
    n = lambda v: views.fmt_int(v, lang)  # noqa: E731
    total = inv.total
    rows = [
        h("tr", _td(label(s.key, lang)), _td(n(s.count), "num"), _td(views.fmt_percent(s.fraction, lang), "num"),
          data_group=s.key, data_count=s.count)
        for s in views.group_breakdown(inv)
    ]
    rows.append(h(
        "tr", _td(label("total", lang)), _td(n(total), "num"),
        _td(views.fmt_percent(1.0 if total else 0.0, lang), "num"), class_="calc-sum",
    ))
    return join([h("h3", ui("breakdown_title", lang)), _table(head, rows, "calc-groups")])


def _sections(inv: Inventory, lang: str, head: list[tuple[str, str]]) -> Markup:
    n = lambda v: views.fmt_int(v, lang)  # noqa: E731
    rows = []
    for s in views.section_breakdown(inv):
        rows.append(h(
            "tr", _td(h("strong", label(s.key, lang))), _td(h("strong", n(s.count)), "num"),
            _td(views.fmt_percent(s.fraction, lang), "num"),
            class_="calc-section", data_section=s.key, data_count=s.count,
        ))
        if len(s.children) > 1:
            for c in s.children:
                rows.append(h(
                    "tr", _td(label(c.key, lang), "calc-indent"), _td(n(c.count), "num"),
                    _td(views.fmt_percent(c.fraction, lang), "num"),
                ))
    return join([h("h3", ui("sections_title", lang)), _table(head, rows, "calc-sections")])


def _layers(inv: Inventory, lang: str) -> Markup:
    layers = views.per_layer(inv)
    if not layers:
        return Markup("")
    family = inv.family

    rows = [
        h("tr", _td(family.layer_row(r.layer, inv.config, lang)), _td(views.fmt_int(r.count, lang), "num"), data_layer=r.layer, data_count=r.count)
        for r in layers
    ]
    return join([
        h("h3", ui(family.per_layer_title, lang)),
        _table([(label("layer", lang), ""), (label("count", lang), "num")], rows, "calc-layers"),
    ])


def _formula(inv: Inventory, lang: str) -> Markup:
    f = views.formula(inv)
    if f is None:
        return Markup("")
    items = [
        h(
            "li",
            h("span", views.formula_label(inv, line.key, lang), class_="calc-formula-key"), colon(lang),
            _formula_terms(line, lang),
            data_formula=line.key, data_count=line.value,
        )
        for line in f.lines
    ]
    symbols = ", ".join(f"{k} = {v}" for k, v in f.symbols.items())
    return join([
        h("h3", ui("formula_title", lang)),
        h("p", h("code", symbols), class_="calc-symbols"),
        h("ul", items, class_="calc-formula"),
        h("p", label("total", lang), " = ", h("strong", views.fmt_int(f.total, lang), data_formula_total=f.total),
          class_="calc-formula-total"),
    ])


def _formula_terms(line: Any, lang: str) -> Markup:
    """``symbolic = substituted = value``, the substituted form left out where it repeats the value."""
    terms = views.formula_terms(line, lang)
    parts: list[Any] = []
    for i, term in enumerate(terms):
        last = i == len(terms) - 1
        parts.extend([" = "] if i else [])
        parts.append(h("strong", term) if last else h("code", term))
    return join(parts)


def _memory(inv: Inventory, lang: str) -> Markup:
    # The exact bytes under the rounded size: four columns did not fit a phone (the exact one was cut off).
    rows = [
        h(
            "tr", _td(h("code", m.dtype)), _td(m.bytes_per_param, "num"),
            # Binary units, as the Training cost panel prints memory: one unit system on the page (issue 35, L3).
            _td([h("span", views.fmt_binary_bytes(m.bytes)), " ",
                 h("span", ui("exact_bytes", lang, n=views.fmt_int(m.bytes, lang)), class_="calc-memory-exact")], "num"),
            data_dtype=m.dtype, data_bytes=m.bytes,
        )
        for m in views.memory(inv)
    ]
    head = [(label("dtype", lang), ""), (ui("bytes_per_param", lang), "num"), (ui("size", lang), "num")]
    # A named, focusable region: two lines a row make it taller than the 12rem a box has while
    # content-visibility skips it below the fold, and a scroll area then, if only for a moment.
    return join([
        h("h3", ui("memory_title", lang)), _table(head, rows, "calc-memory", ui("memory_title", lang)),
        h("p", ui("memory_note", lang), class_="calc-note"),
    ])


#: The explanation the Hub row links to, relative to the calculator page (the same in both languages).
HUB_EXPLAINED = "../why-tools-disagree/#hub"


def _hub_note(inv: Inventory, preset: str | None, lang: str) -> Markup:
    """Under the Hub row: what the Hub shows for this preset's published file, or that it counts what the file stores."""
    hub = counts.hub_count(inv, preset)
    more = h("a", ui("counts_hub_why", lang), href=HUB_EXPLAINED)
    if hub is None:
        return h("p", ui("counts_hub_unknown", lang), punct("sentence_gap", lang), more, class_="calc-counts-hub")
    # The preset and the class are identifiers: code, kept on one line (calculator.css).
    pieces = {"preset": h("code", hub.preset), "architecture": h("code", hub.architecture),
              "source": h("a", ui("counts_hub_source", lang), href=hub.source, rel="noopener")}
    sentence = ui("counts_hub_known", lang, count=views.fmt_int(hub.value, lang),
                  **{k: "{" + k + "}" for k in pieces})
    parts = [pieces.get(p, p) for p in re.split(r"\{(preset|architecture|source)\}", sentence)]
    return h(
        "p", parts, punct("sentence_gap", lang), more,
        class_="calc-counts-hub", data_hub_count=hub.value, data_hub_architecture=hub.architecture,
    )


def _tool_name(tool_label: str) -> str:
    """The tool alone ("PyTorch", "transformers") from a count's label ("transformers: model.num_parameters()").

    The table prints the call under the name, so repeating the call in the name only
    makes the first column wider; labels without a colon are kept whole.
    """
    for mark in ("：", ": "):
        if mark in tool_label:
            return tool_label.split(mark, 1)[0]
    return tool_label


def _counts(inv: Inventory, lang: str, preset: str | None = None) -> Markup:
    """Every count a reader meets (calculator.counts), each as its tool names it, and why it differs.

    The call sits under the tool's name, and the reason under the call, so the
    numbers keep their own narrow columns: a call is never squeezed to a few
    characters a line (on a phone the rows become cards: calculator.css).
    """
    rows = []
    for c in counts.reconcile(inv):
        delta = views.fmt_signed(c.delta, lang)
        # Spaces between the parts: text read out of the markup (a copy, a screen reader) keeps them apart.
        tool = [h("span", _tool_name(c.label(lang)), class_="calc-counts-tool"), " ",
                h("code", c.code, class_="calc-counts-call"), " ",
                h("p", pick(c.note, lang), class_="calc-counts-why")]
        if c.key == "save_pretrained":
            tool += [" ", _hub_note(inv, preset, lang)]
        # The difference under the count: two number columns beside the call do not fit the result
        # column of a desktop (about 500 px) without squeezing the call.
        number = [h("span", views.fmt_int(c.value, lang), class_="calc-counts-value"), " ",
                  h("span", ui("counts_delta_is", lang, delta=delta), class_="calc-counts-delta", data_delta=c.delta)]
        rows.append(h("tr", _td(tool), _td(number, "num"), data_count_key=c.key, data_count=c.value))
    head = [(ui("counts_tool", lang), ""), (label("count", lang), "num")]
    return join([h("h3", ui("counts_title", lang), id="calc-counts-title"),
                 _table(head, rows, "calc-counts", ui("counts_title", lang))])


def _plan(plan: Any, lang: str) -> Markup:
    """The planner's answer: trainable and all as peft counts them, its printed line, warnings, added tensors."""
    n = lambda v: views.fmt_int(v, lang)  # noqa: E731
    title = "plan_title_lora" if plan.method == "lora" else "plan_title_freeze"
    out: list[Any] = [h("h3", ui(title, lang))]
    all_words = "plan_all" if plan.method == "lora" else "plan_all_freeze"
    facts = [("plan_trainable", plan.trainable, "plan_trainable"), ("plan_all", plan.all, all_words)]
    if plan.copies:
        facts.append(("plan_copies", sum(t.count for t in plan.copies if t.tied_to is None), "plan_copies"))
    # trainable% as peft prints it (four decimals), so the number matches its line below.
    percent = f"{plan.percentage:.4f}%"
    items = [h("div", h("dt", ui(words, lang)), h("dd", n(v)), data_plan=k, data_count=v) for k, v, words in facts]
    items.insert(2, h("div", h("dt", ui("plan_percent", lang)), h("dd", percent), data_plan="plan_percent",
                      data_percent=repr(plan.percentage)))
    # data-mini: the sticky strip's line on a phone (calculator.js shows it under the total).
    mini = ui("plan_mini", lang, trainable=n(plan.trainable), all=n(plan.all), percent=percent)
    out.append(h("dl", items, class_="calc-facts calc-plan", data_mini=mini))
    lines = views.plan_lines(plan, lang)
    if plan.line is not None:
        out.append(h("p", ui("plan_line_note", lang), class_="calc-note"))
        out.append(h("pre", h("code", plan.line), class_="calc-peft-line", data_peft_line=plan.line))
        lines = lines[1:]
    else:
        out.append(h("p", lines[0], class_="calc-plan-share"))
        lines = lines[1:]
    for warning, text in zip(plan.warnings, lines):
        out.append(h("p", text, class_="calc-err calc-plan-warning", data_warning=warning.code, role="note"))
    if plan.added:
        rows = [
            h("tr", _td(h("code", t.name), "calc-name"), _td(views.fmt_shape(t.shape), "num"), _td(n(t.count), "num"),
              data_name=t.name, data_count=t.count)
            for t in plan.added
        ]
        head = [(label("tensor", lang), ""), (label("shape", lang), "num"), (label("count", lang), "num")]
        out.append(h("details", h("summary", ui("plan_added_n", lang, n=len(plan.added))),
                     _table(head, rows, "calc-plan-tensors", ui("plan_added", lang)), class_="calc-plan-added"))
    return join(out)


def render_result(
    inv: Inventory, lang: str = "en", preset: str | None = None, active: Any = None, tensor_rows: bool = True,
    plan: Any = None, hub_preset: str | None = None,
) -> str:
    """The breakdown under the total: facts, chart, tables, formula, memory, every tensor.

    The collapsed per-tensor block (``data-rows="later"``) holds its rows in
    ``<noscript>`` with ``tensor_rows=True`` (the page as built), else none:
    :func:`tensor_table` supplies them separately and the page inserts them when
    the block is opened, so each keystroke does not rebuild hundreds of rows.
    ``preset`` is the result's name as shown (a label, "changed" marks); ``hub_preset`` the preset whose
    published file the Hub row may quote ("": none; None: ``preset`` itself).
    """
    lang = norm_lang(lang)
    hub = preset if hub_preset is None else (hub_preset or None)
    head = [(label("group", lang), ""), (label("count", lang), "num"), (label("share", lang), "num")]
    out: list[Any] = [
        h("h2", ui("result_title", lang), class_="calc-result-title", id="calc-result-title"),
        _facts(inv, lang),
    ]
    if plan is not None:
        out.append(_plan(plan, lang))
    if active is not None and active.fraction != 1:
        out.append(_render_active(inv, active, lang))
    # The chart is SVG this package generates: every text in it is a label or a number, escaped there.
    out.append(h("h3", ui("chart_title", lang)))
    out.append(h("figure", raw(share_chart_svg(inv, lang, preset or inv.architecture)), class_="calc-chart"))
    out += [_groups(inv, lang, head), _sections(inv, lang, head), _layers(inv, lang), _formula(inv, lang),
            _memory(inv, lang), _counts(inv, lang, hub)]
    if inv.keras_layers:
        out.append(keras_summary(inv, lang))
    title = "tensors_title_keras" if inv.keras_layers else "tensors_title"
    # The rows arrive later (the page inserts them on opening), or, in the page as
    # built, inside <noscript>: shown as they are without scripts, and with scripts
    # one inert text node instead of a thousand elements to build at load.
    rows = h("noscript", Markup(tensor_table(inv, lang))) if tensor_rows else ""
    out.append(h("details", h("summary", ui(title, lang, n=len(inv.tensors))), rows,
                 class_="calc-tensors", data_rows="later"))
    return join(out)


def keras_summary(inv: Inventory, lang: str = "en") -> str:
    """keras-bert only: the rows of ``model.summary()`` (zero-parameter layers included), collapsed.

    Each row carries ``data-keras-layer``, ``data-class``, ``data-count`` and
    ``data-trainable``; the footer is Keras's own three totals.
    """
    lang = norm_lang(lang)
    yes, no = ui("keras_yes", lang), ui("keras_no", lang)
    rows = [
        h(
            "tr",
            _td(join([h("code", k.name), " ", h("span", f"({k.cls})", class_="calc-keras-class")]), "calc-keras-name"),
            _td(views.fmt_int(k.count, lang), "num"), _td(yes if k.trainable else no),
            data_keras_layer=k.name, data_class=k.cls, data_count=k.count, data_trainable=1 if k.trainable else 0,
        )
        for k in inv.keras_layers
    ]
    for key, value in (("keras_total", inv.total), ("keras_trainable_total", inv.trainable),
                       ("keras_non_trainable_total", inv.non_trainable)):
        rows.append(h("tr", _td(ui(key, lang)), _td(views.fmt_int(value, lang), "num"), _td(""),
                      class_="calc-sum", data_keras_total=key, data_count=value))
    head = [(ui("keras_layer", lang), ""), (ui("keras_params", lang), "num"), (ui("keras_trainable", lang), "")]
    return h(
        "details", h("summary", ui("keras_title", lang, n=len(inv.keras_layers))),
        h("p", ui("keras_note", lang), class_="calc-note"), _table(head, rows, "calc-keras-table"),
        class_="calc-keras", id="calc-keras-summary",
    )


def tensor_table(inv: Inventory, lang: str = "en") -> str:
    """One row per ``state_dict`` entry (tied copies marked), for the collapsed "every tensor" block.

    Written row by row with :func:`escape` rather than :func:`h`: this table is most of an
    answer's work (bert-base: ~200 rows of four cells; over half of ``api.compute``'s time
    when built with ``h``, which resolves each cell's children and attributes in general).
    The markup is ``h``'s to the byte (tests/unit/test_result_html.py compares the two on
    presets with tied copies, buffers and Keras weights), and every value is escaped as
    ``h`` would escape it.
    """
    lang = norm_lang(lang)
    groups: dict[str, str] = {}
    buffer_note = f' <span class="calc-tied">{escape("(" + label("buffer_note", lang) + ")")}</span>'
    rows = []
    for t in inv.tensors:
        under = views.listed_under(t)
        if t.buffer:
            note = buffer_note
        elif under:
            note = f' <span class="calc-tied">{escape("(" + label("tied_to", lang, name=under) + ")")}</span>'
        else:
            note = ""
        group = groups.get(t.group)
        if group is None:
            group = groups[t.group] = escape(label(t.group, lang))
        name = escape(t.name)
        tied = ' data-tied="1"' if under else ""
        rows.append(Markup(
            f'<tr data-name="{name}" data-count="{t.count}"{tied}>'
            f'<td class="calc-name"><code>{name}</code>{note}</td>'
            f'<td class="num">{escape(views.fmt_shape(t.shape))}</td>'
            f'<td class="num">{escape(views.fmt_int(t.count, lang))}</td>'
            f"<td>{group}</td></tr>"
        ))
    name = label("weight" if inv.keras_layers else "tensor", lang)
    head = [(name, ""), (label("shape", lang), "num"), (label("count", lang), "num"), (label("group", lang), "")]
    return _table(head, rows, "calc-tensor-table")


def announcement(inv: Inventory, lang: str, preset: str | None = None) -> str:
    return ui(
        "announce", lang, model=preset or inv.architecture, total=views.fmt_int(inv.total, lang),
        short=views.fmt_short(inv.total, lang),
    )
