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
from ..costs import OPTIMIZERS, _positive
from ..errors import CalcError
from ..i18n import L, pick
from ..views import costs as cv
from ..views.numbers import fmt_int, fmt_short
from . import dom
from ..html import Markup, h, join, raw

#: The N of "fits in N GB?" (GiB: what a card sold as N GB holds); not a setting of the step.
GPU_KEY = options.GPU_GB.key
#: The panel's keys in the address: the step's and the card's size (:mod:`calculator.options`).
PANEL_KEYS: tuple[str, ...] = options.PANEL_KEYS
#: What the panel's fields hold when the address does not say (the options' defaults: B 32, L 128, a 24 GB card).
DEFAULTS: dict[str, str] = options.defaults(*options.PANEL_GROUPS)
#: Card sizes offered in the field's list (any whole number may be typed).
GPU_SIZES: tuple[int, ...] = (8, 12, 16, 24, 40, 48, 80, 96)
GPU_MAX = 100_000
GIB = 2**30
#: The margin for what the exact sum leaves out, an estimate: the CUDA context and kernels
#: (Hugging Face measured 1.3 GB for them, "Model training anatomy"), and a tenth of the sum
#: for the framework's workspace and the caching allocator's rounding and fragmentation.
CONTEXT_ESTIMATE = 13 * GIB // 10
FRAGMENTATION_SHARE = 10  # percent of the exact sum

LABELS: dict[str, dict[str, str]] = {
    "summary": L("Training cost: FLOPs and memory of one step", "训练开销：一步训练的 FLOPs 和显存"),
    "intro": L(
        "One training step as PyTorch runs it: eager attention, the model cast to the dtype, loss.backward(), "
        "one optimizer.step() over the trainable parameters (with the LoRA or freezing plan above). Exact, "
        "not estimated.",
        "按 PyTorch 的实际执行计算一步训练：eager 注意力，模型整体转换为所选 dtype，执行 loss.backward() "
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
    "flops_axis": L("FLOPs (forward + backward)", "FLOPs（前向 + 反向）"),
    "act_axis": L("Activation memory", "激活值显存"),
    "chart_head": L("{axis} · largest {max}", "{axis} · 最大 {max}"),
    "fits_sum": L(
        "The four components sum to {sum} ({exact} bytes) against {gpu} GB ({capacity} bytes).",
        "四个部分合计 {sum}（{exact} 字节），显存为 {gpu} GB（{capacity} 字节）。",
    ),
    "fits_yes": L(
        "Fits, with {left} to spare for what the sum leaves out.",
        "放得下，还剩 {left} 留给合计之外的开销。",
    ),
    "fits_tight": L(
        "The exact sum fits, with {left} to spare, but perhaps not what it leaves out (estimated {margin}).",
        "精确合计放得下，还剩 {left}，但合计之外的开销（估计 {margin}）可能放不下。",
    ),
    "fits_no": L(
        "Does not fit: the exact sum alone is {over} more than the card holds.",
        "放不下：仅精确合计就比显存多出 {over}。",
    ),
    "fits_margin": L(
        "Left out of the sum: the framework's workspace, the allocator's rounding and fragmentation, and the "
        "CUDA context. Estimate, not measured here: about {margin} ({context} for the CUDA context and kernels, "
        "as Hugging Face measured them, plus {share}% of the sum).",
        "合计没有包含：框架的工作区、显存分配器的取整和碎片，以及 CUDA 上下文。估算值（本站未实测）：约 {margin}"
        "（CUDA 上下文和内核约 {context}，取自 Hugging Face 的实测，另加合计的 {share}%）。",
    ),
    "gb_note": L("N GB is read as N GiB (2^30 bytes), as a card sold as N GB holds.",
                 "N GB 按 N GiB（2^30 字节）计算，即标称 N GB 的显卡的容量。"),
    "dtype_fp32": L("fp32", "fp32"),
    "dtype_bf16": L("bf16", "bf16"),
}


def label(key: str, lang: str, **params: Any) -> str:
    return pick(LABELS[key], lang, **params)


def _gpu(panel: Mapping[str, str]) -> int:
    """N of "fits in N GB?": a whole number of at least 1 (its own field's error otherwise)."""
    return _positive(GPU_KEY, panel.get(GPU_KEY, DEFAULTS[GPU_KEY]).strip() or "", GPU_MAX)


def _gib(n: int) -> str:
    """Bytes in GiB with two decimals, MiB below one GiB (as nvidia-smi and PyTorch's summaries print)."""
    if n < GIB:
        return f"{n / 2**20:,.1f} MiB"
    return f"{n / GIB:,.2f} GiB"


def fits(total: int, gpu_gb: int, lang: str) -> tuple[str, list[str]]:
    """("yes" | "tight" | "no", the sentences): the exact sum against N GiB, and the estimated margin, labelled so."""
    capacity = gpu_gb * GIB
    margin = CONTEXT_ESTIMATE + total * FRAGMENTATION_SHARE // 100
    lines = [label("fits_sum", lang, sum=_gib(total), exact=fmt_int(total, lang), gpu=gpu_gb,
                   capacity=fmt_int(capacity, lang))]
    if total > capacity:
        verdict = "no"
        lines.append(label("fits_no", lang, over=_gib(total - capacity)))
    elif total + margin > capacity:
        verdict = "tight"
        lines.append(label("fits_tight", lang, left=_gib(capacity - total), margin=_gib(margin)))
    else:
        verdict = "yes"
        lines.append(label("fits_yes", lang, left=_gib(capacity - total)))
    lines.append(label("fits_margin", lang, margin=_gib(margin), context=_gib(CONTEXT_ESTIMATE),
                       share=FRAGMENTATION_SHARE))
    return verdict, lines


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
        return h("select", [h("option", cv.OPTIMIZER_NAMES.get(o, o), value=o, selected=o == DEFAULTS[key])
                            for o in values], id=fid, name=key, aria_describedby=f"{fid}-error")

    ckpt_id = dom.field_id(None, "ckpt")
    gpu_list = f"{dom.field_id(None, GPU_KEY)}-sizes"
    fields = h(
        "div",
        field("batch", text("batch")),
        field("seq_len", text("seq_len")),
        field("dtype", select("dtype", ("fp32", "bf16"))),
        field("optimizer", select("optimizer", OPTIMIZERS)),
        field("ckpt", h("input", type="checkbox", id=ckpt_id, name="ckpt", value="1",
                        aria_describedby=f"{ckpt_id}-error"), check=True),
        field(GPU_KEY, join([text(GPU_KEY, list=gpu_list),
                             h("datalist", [h("option", value=str(n)) for n in GPU_SIZES], id=gpu_list)])),
        class_="calc-form calc-costs-fields",
    )
    return h(
        "details",
        h("summary", label("summary", lang)),
        h("p", label("intro", lang), class_="calc-note"),
        fields,
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
    """The same rows as the CLI's table (:func:`calculator.views.costs.rows`), each with its integer in data-*."""
    from ..costs import Costs, Settings

    costs = Costs(Settings(c["batch"], c["seq_len"], c["dtype"], c["optimizer"], c["grad_checkpointing"]),
                  c["flops"]["forward"], c["flops"]["backward"], c["memory"]["weights"], c["memory"]["gradients"],
                  c["memory"]["optimizer"], c["memory"]["activations"])
    keys = [("flops", "forward"), ("flops", "backward"), ("flops", "total"), ("memory", "weights"),
            ("memory", "gradients"), ("memory", "optimizer"), ("memory", "activations"), ("memory", "total")]
    values = [costs.forward, costs.backward, costs.forward + costs.backward, costs.weights, costs.gradients,
              costs.optimizer, costs.activations, costs.memory_total]
    body = [
        h("tr", h("td", name), h("td", value, class_="num"), h("td", readable, class_="num"),
          data_costs=f"{kind}.{key}", data_value=n)
        for (name, value, readable), (kind, key), n in zip(cv.rows(costs, lang), keys, values)
    ]
    head = h("thead", h("tr", h("th", cv.label("item", lang), scope="col"),
                        h("th", cv.label("value", lang), scope="col", class_="num"), h("th", label("size", lang), scope="col", class_="num")))
    table = h("table", head, h("tbody", body), class_="calc-table calc-costs-table")
    return h("div", table, class_="calc-scroll", tabindex="0", role="region", aria_label=label("figures", lang))


def _series(series: list[dict[str, int]], key: str, axis: str, fmt: Any, current: int, lang: str) -> Markup:
    """One chart against L (:func:`calculator.charts.series_svg`), headed by the figure and its largest value."""
    heading = label("chart_head", lang, axis=label(axis, lang), max=fmt(max(p[key] for p in series)))
    svg = charts.series_svg(series, key, label(axis, lang), heading, lang, current, fmt)
    return h("figure", raw(svg), class_="calc-chart calc-costs-series")


def answer(result: dict[str, Any], panel: Mapping[str, str], lang: str) -> dict[str, Any]:
    """:func:`calculator.api.compute_costs`'s answer with the panel's markup, its copies and the card size added.

    An error keeps its code and message; one without a field of the step (the family, the class,
    LoRA on an embedding, nothing trainable) is shown in the panel's own slot (``field`` None).
    """
    if not result.get("ok"):
        return result
    try:
        gpu = _gpu(panel)
    except CalcError as exc:
        from .fields import error_dict

        return {"ok": False, "error": error_dict(exc, lang, panel=True)}
    c = result["costs"]
    verdict, fit_lines = fits(result["total_bytes"], gpu, lang)
    heading = cv.label("settings", lang, batch=c["batch"], seq_len=c["seq_len"], dtype=c["dtype"],
                       optimizer=cv.OPTIMIZER_NAMES[c["optimizer"]],
                       ckpt=cv.label("on" if c["grad_checkpointing"] else "off", lang))
    memory = [(k, c["memory"][k]) for k in ("weights", "gradients", "optimizer", "activations")]
    html = join([
        h("p", h("strong", heading), class_="calc-costs-settings"),
        _table(c, lang),
        h("p", h("strong", label("bar_title", lang)), class_="calc-costs-head"),
        h("figure", raw(charts.memory_bar_svg(memory, lang, {k: cv.label(k, lang) for k, _ in memory},
                                          label("bar_title", lang))),
          class_="calc-chart calc-costs-bar"),
        h("div", [h("p", line) for line in fit_lines], h("p", label("gb_note", lang), class_="calc-note"),
          class_="calc-costs-fits", data_fits=verdict,
          data_gpu_gb=gpu),
        h("p", h("strong", label("series_title", lang)), class_="calc-costs-head"),
        h("p", label("series_note", lang), class_="calc-note"),
        _series(result["series"], "flops", "flops_axis", lambda n: fmt_short(n, lang), c["seq_len"], lang),
        _series(result["series"], "activations", "act_axis", _gib, c["seq_len"], lang),
        h("p", cv.label("note", lang), class_="calc-note"),
    ])
    query = dict(result["query"])
    if str(gpu) != DEFAULTS[GPU_KEY]:
        query[GPU_KEY] = str(gpu)
    # The copies: the CLI's table, then the card's line and what the sum leaves out (its margin an estimate).
    fit_text = "\n".join(fit_lines) + "\n" + label("gb_note", lang) + "\n"
    return {**result, "html": str(html), "query": query, "gpu_gb": gpu, "fits": verdict,
            "markdown": result["markdown"] + "\n" + fit_text, "text": result["text"] + "\n" + fit_text}


__all__ = ["DEFAULTS", "GPU_KEY", "PANEL_KEYS", "answer", "fits", "render_panel"]
