"""The calculator's "Training cost" panel: its fields (closed in the page as built) and its answer's markup.

The panel is off by default: the page as built holds only its closed
``<details>`` and empty fields, so a reader who never opens it downloads and
computes nothing more. Opened (or opened by a link carrying ``batch`` or
``seq_len``), each request to the worker carries the panel's keys beside the
model's; :func:`answer` adds to :func:`calculator.api.compute_costs`'s answer
the markup (figures, the stacked bar of memory, the charts against L), the
"fits in N GB?" line and the copies. The figures are :mod:`calculator.costs`'s,
the table's rows :func:`calculator.views.costs.rows`, the same the CLI prints.

Every value goes through :func:`calculator.html.h` (escaped); the SVG is
:mod:`calculator.charts`'s, escaped there.
"""
from __future__ import annotations

from typing import Any, Mapping

from .. import charts, options
from ..costs import OPTIMIZERS
from ..i18n import L, pick
from ..views import costs as cv
from ..views.numbers import fmt_int, fmt_short
from . import dom
from ..html import Markup, breakable, h, join, raw

#: The N of "fits in N GB?" (GiB: what a card sold as N GB holds); not a setting of the step.
GPU_KEY = options.GPU_GB.key
#: The panel's keys in the address: the step's and the card's size (:mod:`calculator.options`).
PANEL_KEYS: tuple[str, ...] = options.PANEL_KEYS
#: What the panel's fields hold when the address does not say (the options' defaults: B 32, L 128, a 24 GB card).
DEFAULTS: dict[str, str] = options.defaults(*options.PANEL_GROUPS)
#: Card sizes offered in the field's list (any whole number may be typed).
GPU_SIZES: tuple[int, ...] = (8, 12, 16, 24, 40, 48, 80, 96)
#: The card's bound, the unit and the estimated margin are the views' (the CLI's --gpu-gb prints the same lines).
GPU_MAX, GIB, CONTEXT_ESTIMATE, FRAGMENTATION_SHARE = cv.GPU_MAX, cv.GIB, cv.CONTEXT_ESTIMATE, cv.FRAGMENTATION_SHARE
fits = cv.fits
_gib = cv.gib

LABELS: dict[str, dict[str, str]] = {
    "summary": L("Training cost: FLOPs and memory of one step", "训练开销：一步训练的 FLOPs 和显存"),
    "intro": L(
        "One training step as PyTorch runs it: eager attention (or SDPA, below), the model cast to the dtype "
        "(or mixed precision, below), loss.backward(), "
        "one optimizer.step() over the trainable parameters (with the LoRA or freezing plan above). Exact, "
        "not estimated.",
        "按 PyTorch 实际执行的方式计算一个训练步：eager 注意力（或下方选择的 SDPA），整个模型转换为所选的数据类型"
        "（或下方选择的混合精度），执行 loss.backward() "
        "和一次 optimizer.step()（只更新可训练参数，上面的 LoRA 或冻结方案同样生效）。是精确值，不是估算。",
    ),
    "copy": L("Copy as Markdown", "复制为 Markdown"),
    "loading": L("Calculating the training step…", "正在计算训练一步的开销……"),
    "figures": L("One step, exactly", "一步训练的精确数值"),
    "size": L("Size", "大小"),
    "bar_title": L("Memory by component", "按组成部分划分的显存"),
    "series_title": L("Against the sequence length", "随序列长度的变化"),
    "series_note": L(
        "Solid: the exact figure at each L (same B, dtype, optimizer and plan). Dashed: what it would be if it "
        "grew in proportion to L from the first point; the gap between them is eager attention's L × L term.",
        "实线：每个 L 下的精确值（B、dtype、优化器和微调方案不变）。虚线：假如从第一个点起与 L 成正比增长时的值；"
        "两者之间的差距就是 eager 注意力中 L × L 项带来的。",
    ),
    # With SDPA (issue 32) no probabilities are kept: the gap left is mostly the FLOPs' (QKᵀ and PV).
    "series_note_sdpa": L(
        "Solid: the exact figure at each L (same B, dtype, optimizer and plan). Dashed: what it would be if it "
        "grew in proportion to L from the first point; with SDPA the attention keeps no B × heads × L × L "
        "probabilities, so the gap is mostly in the FLOPs (its matrix products), not in the activations.",
        "实线：每个 L 下的精确值（B、dtype、优化器和微调方案不变）。虚线：假如从第一个点起与 L 成正比增长时的值；"
        "SDPA 不保存 B × 头数 × L × L 的注意力概率，所以差距主要出现在 FLOPs（注意力的矩阵乘法）上，而不在激活值上。",
    ),
    "flops_axis": L("FLOPs (forward + backward)", "FLOPs（前向 + 反向）"),
    "act_axis": L("Activation memory", "激活值显存"),
    "chart_head": L("{axis} · largest {max}", "{axis} · 最大值 {max}"),
    "peak_title": L("Peak of live memory", "显存峰值"),
    "peak_items": L("Largest live at the peak", "峰值时刻最大的几项"),
    "peak_kind": L("What", "类别"),
    "peak_name": L("Tensor", "张量"),
    "fit_title": L("What fits in {gpu} GB", "{gpu} GB 放得下什么"),
    "dtype_fp32": L("fp32", "fp32"),
    "dtype_bf16": L("bf16", "bf16"),
}


def label(key: str, lang: str, **params: Any) -> str:
    return pick(LABELS[key], lang, **params)


# ------------------------------------------------------------------ the fields


def _err(fid: str) -> Markup:
    return h("p", class_="calc-err", id=f"{fid}-error", data_error_for=fid, hidden=True)


def render_panel(lang: str) -> Markup:
    """The closed panel as the page is built: its fields at their defaults, no answer (the worker fills it)."""
    def field(key: str, control: Markup, check: bool = False) -> Markup:
        fid = dom.field_id(None, key)
        words = pick(options.BY_KEY[key].label, lang)
        if check:
            return h("div", control, h("label", words, for_=fid), _err(fid),
                     class_="calc-field calc-check", data_key=key)
        return h("div", h("label", words, for_=fid), control, _err(fid), class_="calc-field", data_key=key)

    def text(key: str, mode: str = "numeric", **attrs: Any) -> Markup:
        fid = dom.field_id(None, key)
        return h("input", type="text", inputmode=mode, id=fid, name=key, value=DEFAULTS[key], spellcheck="false",
                 aria_describedby=f"{fid}-error", **attrs)

    def select(key: str, values: tuple[str, ...]) -> Markup:
        fid = dom.field_id(None, key)
        return h("select", [h("option", cv.optimizer_name(o, lang), value=o, selected=o == DEFAULTS[key])
                            for o in values], id=fid, name=key, aria_describedby=f"{fid}-error")

    def menu(key: str) -> Markup:
        """A menu of an option's choices with their words (gradient checkpointing: off, non-reentrant, reentrant)."""
        fid = dom.field_id(None, key)
        return h("select", [h("option", pick(c.label, lang) if c.label else c.value, value=c.value,
                              selected=c.value == DEFAULTS[key]) for c in options.BY_KEY[key].choices],
                 id=fid, name=key, aria_describedby=f"{fid}-error")

    fit_id = dom.field_id(None, options.FIT.key)
    gpu_list = f"{dom.field_id(None, GPU_KEY)}-sizes"
    fields = h(
        "div",
        field("batch", text("batch")),
        field("seq_len", text("seq_len")),
        field("dtype", select("dtype", ("fp32", "bf16"))),
        field("optimizer", select("optimizer", OPTIMIZERS)),
        field("ckpt", menu("ckpt")),
        field("attention", menu("attention")),
        field("mixed_precision", menu("mixed_precision")),
        field(GPU_KEY, join([text(GPU_KEY, list=gpu_list),
                             h("datalist", [h("option", value=str(n)) for n in GPU_SIZES], id=gpu_list)])),
        # The inference mode (issue 32 item 3): "embed N passages of L tokens" (calculator/views/embed.py).
        field(options.MODE.key, menu(options.MODE.key)),
        field(options.PASSAGES.key, text(options.PASSAGES.key)),
        field(options.TFLOPS.key, text(options.TFLOPS.key, "decimal")),
        class_="calc-form calc-costs-fields",
    )
    return h(
        "details",
        h("summary", label("summary", lang)),
        h("p", label("intro", lang), class_="calc-note"),
        fields,
        # "Find the largest batch and length that fit" (options.FIT): the search tries tens of whole steps (seconds
        # in the page: benchmarks/fit_search.py), so it runs once per click, not at every keystroke. The click sets
        # the hidden field to 1 (the request's and the link's fit=1); the panel's next change sets it back to 0
        # (calculator.js), so a link with fit=1 opens the search's answer and a reader's edit is quick again.
        h("div", h("input", type="hidden", id=fit_id, name=options.FIT.key, value=DEFAULTS[options.FIT.key]),
          h("button", pick(options.FIT.label, lang), type="button", class_="md-button", data_costs_fit="1",
            aria_describedby=f"{fit_id}-error"),
          _err(fit_id), class_="calc-field calc-costs-find", data_key=options.FIT.key),
        # The step's errors without a field of their own (a family not worked out yet, a class, LoRA on an embedding).
        _err(dom.IDS["costs_panel"]),
        # Not a live region: a table read out at every keystroke; the page announces the step's errors.
        h("div", class_="calc-costs-output", id=dom.IDS["costs_output"]),
        h("div", h("button", label("copy", lang), type="button", class_="md-button", data_costs_copy="markdown"),
          h("span", class_="calc-copy-status", id=dom.IDS["costs_copy_status"], role="status"),
          class_="calc-actions calc-costs-actions"),
        class_="calc-costs", id=dom.IDS["costs_panel"], data_loading=label("loading", lang),
    )


# ------------------------------------------------------------------ the answer


def _table(c: Mapping[str, Any], lang: str) -> Markup:
    """The CLI's figures (:func:`calculator.views.costs.grouped_rows`), each row with its integer in data-*.

    Two groups ("FLOPs", "Memory"), each under a header row of its own, and short row labels
    ("forward", "weights"): the first column stays narrow, so on a phone the readable size
    is on screen beside the exact integer rather than cut off at the right edge.
    """
    from ..costs import Costs, settings

    costs = Costs(settings(c["batch"], c["seq_len"], c["dtype"], c["optimizer"], c["grad_checkpointing"],
                           autocast=c.get("mixed_precision")),
                  c["flops"]["forward"], c["flops"]["backward"], c["memory"]["weights"], c["memory"]["gradients"],
                  c["memory"]["optimizer"], c["memory"]["activations"])
    bodies = []
    for (group, rows), kind in zip(cv.grouped_rows(costs, lang), ("flops", "memory")):
        head_row = h("tr", h("th", group, colspan=3, scope="colgroup"), class_="calc-costs-group")
        # On a phone the Size column is hidden and each size shows under its integer instead
        # (calc-costs-under), so nothing is cut off at the right edge however long the integer.
        body = [
            h("tr", h("th", name, scope="row", class_="calc-indent"),
              h("td", fmt_int(n, "en"), h("span", readable, class_="calc-costs-under") if readable else None,
                class_="num"),
              h("td", readable, class_="num calc-costs-size"), data_costs=f"{kind}.{key}", data_value=n,
              class_="calc-sum" if key == "total" else None)
            for key, name, n, readable in rows
        ]
        bodies.append(h("tbody", head_row, body))
    head = h("thead", h("tr", h("th", cv.label("item", lang), scope="col"),
                        h("th", cv.label("value", lang), scope="col", class_="num"),
                        h("th", cv.label("size", lang), scope="col", class_="num calc-costs-size")))
    table = h("table", head, bodies, class_="calc-table calc-costs-table")
    return h("div", table, class_="calc-scroll", tabindex="0", role="region", aria_label=label("figures", lang))


def _series(series: list[dict[str, int]], key: str, axis: str, fmt: Any, current: int, lang: str) -> Markup:
    """One chart against L (:func:`calculator.charts.series_svg`), headed by the figure and its largest value."""
    heading = label("chart_head", lang, axis=label(axis, lang), max=fmt(max(p[key] for p in series)))
    svg = charts.series_svg(series, key, label(axis, lang), heading, lang, current, fmt)
    return h("figure", raw(svg), class_="calc-chart calc-costs-series")


def _peak(peak: Mapping[str, Any] | None, lang: str) -> Markup:
    """The step's peak (:func:`calculator.views.costs.peak_dict`): the CLI's sentence (the figure, its phase, op and
    tensor; or why there is none and the proven bounds), and, where exact, a table of the largest items live then.
    Each item's bytes in data-bytes, the figure and bounds in data-*, for whoever reads the page's markup."""
    if peak is None:
        return join([])
    at = peak.get("at")
    table = None
    if at and at.get("items"):
        rows = [h("tr", h("td", cv.label("kind_" + i["kind"], lang) if "kind_" + i["kind"] in cv.LABELS else i["kind"]),
                  h("td", h("code", i["name"])),
                  h("td", fmt_int(i["bytes"], "en"), class_="num"), h("td", _gib(i["bytes"]), class_="num calc-costs-size"),
                  data_peak_item=i["kind"], data_bytes=i["bytes"])
                for i in at["items"]]
        head = h("thead", h("tr", h("th", label("peak_kind", lang), scope="col"),
                            h("th", label("peak_name", lang), scope="col"),
                            h("th", cv.label("bytes", lang), scope="col", class_="num"),
                            h("th", cv.label("size", lang), scope="col", class_="num calc-costs-size")))
        table = h("div", h("table", head, h("tbody", rows), class_="calc-table calc-costs-items"),
                  class_="calc-scroll", tabindex="0", role="region", aria_label=label("peak_items", lang))
    return join([
        h("p", h("strong", label("peak_title", lang)), class_="calc-costs-head"),
        h("p", breakable(peak["line"]), class_="calc-costs-peak", data_peak=peak["bytes"] if peak["bytes"] is not None else "",
          data_lower=peak["lower"] if peak["lower"] is not None else "",
          data_upper=peak["upper"] if peak["upper"] is not None else "",
          data_phase=(at or {}).get("phase") or "",
          data_peak_512=peak["bytes_512"] if peak.get("bytes_512") is not None else ""),
        table,
    ])


def _timeline(timeline: Mapping[str, Any] | None, gpu: int, lang: str) -> Markup:
    """The live memory through the step (``costs.timeline``, where the peak is exact), with the card's capacity
    and a note saying what is exact and what is only bounded; nothing where there is no timeline."""
    if not timeline:
        return join([])
    from . import timeline as chart  # drawn only here: the page's first load never imports it

    return join([
        h("p", h("strong", chart.word("title", lang)), class_="calc-costs-head"),
        h("figure", raw(chart.timeline_svg(timeline, lang, gpu)), class_="calc-chart calc-costs-timeline",
          data_peak=timeline["peak"]),
        h("p", chart.word("note", lang), class_="calc-note"),
    ])


def _search(result: Mapping[str, Any], lang: str) -> Markup:
    """The largest batch and length that fit the card (asked for with the ``fit`` box), or why there is none."""
    if not result.get("fit_asked"):
        return join([])
    found = result.get("fit") or {}
    keys = ("max_batch", "max_batch_at_least", "batch_does_not_fit", "max_seq_len", "max_seq_len_at_least",
            "seq_len_does_not_fit")
    data = {f"data_{k}": "" if found.get(k) is None else found[k] for k in keys} if found else {}
    return h("div", h("p", h("strong", label("fit_title", lang, gpu=result["gpu_gb"])), class_="calc-costs-head"),
             [h("p", line) for line in result["search_lines"]], class_="calc-costs-search", **data)


def answer(result: dict[str, Any], panel: Mapping[str, str], lang: str) -> dict[str, Any]:
    """:func:`calculator.api.compute_costs`'s answer with the panel's markup, its copies and the card size added.

    An error keeps its code and message; one without a field of the step (the family, the class,
    LoRA on an embedding, nothing trainable) is shown in the panel's own slot (``field`` None).
    """
    if not result.get("ok"):
        return result
    if result["costs"].get("mode") == "inference":  # the inference mode: its own markup (page/embed.py)
        from . import embed

        return embed.answer(result, lang)
    c = result["costs"]
    gpu, verdict, fit_lines = result["gpu_gb"], result["fits"], result["fit_lines"]
    heading = cv.label("settings", lang, batch=c["batch"], seq_len=c["seq_len"], dtype=c["dtype"],
                       optimizer=cv.optimizer_name(c["optimizer"], lang),
                       ckpt=cv.ckpt_name(c["grad_checkpointing"], lang))
    # The class first (chinese-review-3 M3 b): figures kept, dimmed, under a later refusal still say whose they are.
    if result.get("architecture"):
        heading = f"{result['architecture']} · {heading}"
    memory = [(k, c["memory"][k]) for k in ("weights", "gradients", "optimizer", "activations")]
    html = join([
        h("p", h("strong", heading), class_="calc-costs-settings"),
        # What the step assumes where transformers would run it otherwise, beside the figures (issue 35, H1, H4).
        h("ul", [h("li", breakable(a["text"]), data_assumption=a["key"]) for a in result["assumptions"]],
          class_="calc-costs-assumptions", aria_label=cv.label("assumptions", lang)),
        _table(c, lang),
        h("p", h("strong", label("bar_title", lang)), class_="calc-costs-head"),
        h("figure", raw(charts.memory_bar_svg(memory, lang, {k: cv.label(k, lang) for k, _ in memory},
                                          label("bar_title", lang))),
          class_="calc-chart calc-costs-bar"),
        # The peak (issue 32): exact where proven, else its bounds; then the one verdict (views.costs.fits).
        _peak(result.get("peak"), lang),
        _timeline(c.get("timeline"), gpu, lang),
        h("div", [h("p", line) for line in fit_lines], h("p", cv.label("gb_note", lang), class_="calc-note"),
          class_="calc-costs-fits", data_fits=verdict,
          data_gpu_gb=gpu),
        _search(result, lang),
        h("p", h("strong", label("series_title", lang)), class_="calc-costs-head"),
        h("p", label("series_note_sdpa" if c.get("attention") == "sdpa" else "series_note", lang), class_="calc-note"),
        _series(result["series"], "flops", "flops_axis", lambda n: fmt_short(n, lang), c["seq_len"], lang),
        _series(result["series"], "activations", "act_axis", _gib, c["seq_len"], lang),
        h("p", cv.note(lang, bool(result.get("grouped_convolutions"))), class_="calc-note"),
    ])
    # The copies are the views' (one block for a forum answer, the CLI's text); the page adds the link.
    out = {k: v for k, v in result.items() if k != "fit_lines"}
    return {**out, "html": str(html)}


__all__ = ["DEFAULTS", "GPU_KEY", "PANEL_KEYS", "answer", "fits", "render_panel"]
