"""The live memory through one training step as a chart (issue 32, item 3): ``costs.timeline`` drawn.

Kept apart from :mod:`calculator.charts` (which every calculator page load imports): only the training-cost
panel's answer (:mod:`calculator.page.costs`, imported once the panel is open) and the "What fits" pages
(``sitegen``) draw it, so a reader who never opens the panel never loads it.

The conventions are :mod:`calculator.charts`': a plain SVG string built with the escaping builder, text in
``currentColor`` (light and dark schemes), ``<title>`` and ``<desc>`` carrying every figure the picture shows.
Each phase of the step gets its own column: the forward (and the loss), the backward, the optimizer step. A
phase the engine replays exactly is a solid line through its points (the live bytes at its allocations,
downsampled with its maximum and ends kept: :func:`calculator.costs.peak.downsample`); a phase it only bounds
is a dashed line at the bound over a pale band, labelled "at most", never drawn as a measurement. The peak is
marked; with a card size, its capacity is a line across (or, far above the step, a note at the top).
"""
from __future__ import annotations

from typing import Any, Mapping

from ..charts import _svg, _text
from ..html import Markup, h
from ..i18n import L, colon, pick, punct
from ..views import fmt_binary_bytes, fmt_int

#: Each phase's share of the width: the backward has the most allocations to show.
COLUMNS: dict[str, float] = {"forward": 0.22, "backward": 0.46, "optimizer": 0.32}
LINE, PEAK, BUDGET = "#3f7fd8", "#d9822b", "#c2417a"

WORDS: dict[str, dict[str, str]] = {
    "title": L("Live memory through one training step", "一步训练中同时存活的显存"),
    "forward": L("forward", "前向"),
    "backward": L("backward", "反向"),
    "optimizer": L("optimizer", "优化器"),
    "at_most": L("≤ {bytes}", "≤ {bytes}"),
    "peak": L("peak {bytes}", "峰值 {bytes}"),
    "budget": L("{gpu} GB card", "{gpu} GB 显卡"),
    "budget_above": L("{gpu} GB card: {bytes}, above the chart", "{gpu} GB 显卡：{bytes}，在图的上方"),
    "desc_bound": L(
        "{phase}: at most {bytes} bytes (a proven bound, not worked out operation by operation)",
        "{phase}：至多 {bytes} 字节（证明的上界，不是逐个算子推算的值）",
    ),
    "desc_exact": L(
        "{phase}: exact, {events} allocations, from {first} to {last} bytes, largest {max} bytes",
        "{phase}：精确值，共 {events} 次分配，从 {first} 字节到 {last} 字节，最大 {max} 字节",
    ),
    "desc_peak": L("the peak: {bytes} bytes, in {phase}", "峰值：{bytes} 字节，出现在{phase}"),
    "desc_budget": L("a card of {gpu} GB holds {bytes} bytes", "{gpu} GB 显卡可容纳 {bytes} 字节"),
    "phase_forward": L("the forward pass and the loss", "前向传播和损失"),
    "phase_backward": L("the backward pass", "反向传播"),
    "phase_optimizer": L("the optimizer step", "优化器更新"),
    "note": L(
        "Solid: the live bytes at every allocation of a phase the engine replays exactly (at most 240 points a "
        "phase, its largest and its ends always among them). Dashed over a pale band: a phase only bounded, drawn "
        "at its proven upper bound, not as a measurement. Each phase has its own column; the width within a "
        "column counts allocations, not time.",
        "实线：引擎逐个精确重放的阶段里，每次分配时同时存活的字节数（每个阶段至多 240 个点，最大值和首尾总会保留）。"
        "浅色带上的虚线：只有上界的阶段，画在证明的上界处，不是测量值。每个阶段各占一栏；栏内的横向距离按分配次数计，不是时间。",
    ),
}


def word(key: str, lang: str, **params: Any) -> str:
    return pick(WORDS[key], lang, **params)


def timeline_svg(timeline: Mapping[str, Any], lang: str, gpu_gb: int | None = None) -> str:
    """``costs.timeline`` (:meth:`calculator.costs.peak.Peak.timeline_dict`) as an SVG string; ``gpu_gb``: draw
    the card's capacity (N GiB) too."""
    phases = list(timeline["phases"])
    peak = int(timeline["peak"])
    top = max([peak] + [int(p.get("bound", 0)) for p in phases])
    budget = gpu_gb * 2**30 if gpu_gb else None
    budget_inside = budget is not None and budget <= 2 * top
    highest = max(top, budget) if budget is not None and budget_inside else top
    width, height, left, right, head, foot = 420, 236, 6, 6, 42, 24
    plot_w, plot_h = width - left - right, height - head - foot
    y_max = highest * 1.08 or 1.0

    def py(v: float) -> float:
        return head + plot_h * (1 - v / y_max)

    body: list[Markup] = [
        h("line", x1=left, y1=head + plot_h, x2=left + plot_w, y2=head + plot_h, stroke="currentColor",
          stroke_opacity="0.5"),
    ]
    sep = punct("clause_sep", lang)
    desc: list[str] = []
    x0 = float(left)
    peak_mark: tuple[float, float] | None = None
    peak_phase = ""
    for p in phases:
        name = p["phase"]
        w = plot_w * COLUMNS.get(name, 1 / len(phases))
        if x0 > left:
            body.append(h("line", x1=f"{x0:.1f}", y1=head, x2=f"{x0:.1f}", y2=head + plot_h, stroke="currentColor",
                          stroke_opacity="0.25", stroke_dasharray="2 3"))
        body.append(_text(f"{x0 + w / 2:.1f}", height - 8, word(name, lang), 12, text_anchor="middle"))
        phase_words = word("phase_" + name, lang)
        if not p["exact"]:
            bound = int(p["bound"])
            y = py(bound)
            body.append(h("rect", x=f"{x0 + 2:.1f}", y=f"{y:.1f}", width=f"{w - 4:.1f}",
                          height=f"{head + plot_h - y:.1f}", fill=LINE, fill_opacity="0.12"))
            body.append(h("line", x1=f"{x0 + 2:.1f}", y1=f"{y:.1f}", x2=f"{x0 + w - 2:.1f}", y2=f"{y:.1f}",
                          stroke=LINE, stroke_width=2, stroke_dasharray="6 4", data_bound=bound))
            body.append(_text(f"{x0 + w / 2:.1f}", f"{y - 4:.1f}", word("at_most", lang, bytes=fmt_binary_bytes(bound)),
                              11, text_anchor="middle"))
            desc.append(word("desc_bound", lang, phase=phase_words, bytes=fmt_int(bound, lang)))
        else:
            points = [(int(i), int(v)) for i, v in p["points"]]
            last = max(int(p["events"]) - 1, 1)
            xy = [(x0 + 2 + (w - 4) * i / last, py(v)) for i, v in points]
            if len(xy) == 1:  # one observation (plain SGD's step allocates nothing): flat across the column
                xy = [(x0 + 2, xy[0][1]), (x0 + w - 2, xy[0][1])]
            body.append(h("polyline", points=" ".join(f"{x:.1f},{y:.1f}" for x, y in xy), fill="none", stroke=LINE,
                          stroke_width=2, data_phase=name))
            if int(p["max"]) == peak and peak_mark is None:
                at = next(k for k, (_, v) in enumerate(points) if v == peak)
                peak_mark, peak_phase = (xy[min(at, len(xy) - 1)][0], py(peak)), phase_words
            desc.append(word("desc_exact", lang, phase=phase_words, events=fmt_int(int(p["events"]), lang),
                             first=fmt_int(points[0][1], lang), last=fmt_int(points[-1][1], lang),
                             max=fmt_int(int(p["max"]), lang)))
        x0 += w
    if budget is not None:
        if budget_inside:
            y = py(budget)
            body.append(h("line", x1=left, y1=f"{y:.1f}", x2=left + plot_w, y2=f"{y:.1f}", stroke=BUDGET,
                          stroke_width=1.5, stroke_dasharray="3 3", data_budget=budget))
            body.append(_text(left + plot_w, f"{y - 4:.1f}", word("budget", lang, gpu=gpu_gb), 11, text_anchor="end",
                              fill_opacity="0.9"))
        else:
            body.append(_text(left + plot_w, 30, word("budget_above", lang, gpu=gpu_gb, bytes=fmt_binary_bytes(budget)),
                              11, text_anchor="end", data_budget=budget))
        desc.append(word("desc_budget", lang, gpu=gpu_gb, bytes=fmt_int(budget, lang)))
    if peak_mark is not None:
        x, y = peak_mark
        body.append(h("circle", cx=f"{x:.1f}", cy=f"{y:.1f}", r=4.5, fill=PEAK, data_peak=peak))
        anchor = "end" if x > left + plot_w * 0.6 else "start"
        body.append(_text(f"{x + (-7 if anchor == 'end' else 7):.1f}", f"{y - 6:.1f}",
                          word("peak", lang, bytes=fmt_binary_bytes(peak)), 12, text_anchor=anchor, font_weight="bold"))
        desc.insert(0, word("desc_peak", lang, bytes=fmt_int(peak, lang), phase=peak_phase))
    title = f"{word('title', lang)}{colon(lang)}{word('peak', lang, bytes=fmt_binary_bytes(peak))}"
    body.insert(0, _text(left, 14, word("title", lang), 13))
    return _svg(width, height, title, sep.join(desc), body, "timeline-chart")


__all__ = ["WORDS", "timeline_svg", "word"]
