"""SVG pictures generated from an Inventory: the share chart and the encoder-layer diagram.

Plain SVG strings (no diagram library on the page). Text uses ``currentColor``
so it follows the page's light or dark scheme; bars use mid-tone colours that
read on both backgrounds. Each SVG carries ``<title>`` and ``<desc>`` so screen
readers get the same numbers as the picture.
"""
from __future__ import annotations

import zlib
from typing import Any

from .i18n import colon, label, paren, pick, punct
from .model import Inventory, Tensor
from .html import Markup, h, join
from .views import fmt_binary_bytes, fmt_int, fmt_percent, group_breakdown


#: One colour per component group; mid-tones with enough contrast on white and on #1e2129.
COLOURS: dict[str, str] = {
    "embeddings": "#3f7fd8",
    "vision": "#c45a3b",
    "attention_qkv": "#d9822b",
    "attention_output": "#b7791f",
    "feed_forward": "#2f9e6e",
    "layer_norm": "#8a63d2",
    "relative_position": "#1f9bb0",
    "pooler": "#c2417a",
    "head": "#7d8590",
}


def _svg(width: int, height: int, title: str, desc: str, body: list[Markup], css_class: str) -> str:
    # A content checksum, not hash(): ids must be the same in every build (hash() is
    # salted per process). CRC-32, not hashlib: zlib is already loaded in Pyodide.
    ident = f"{css_class}-{zlib.crc32((title + desc).encode('utf-8')):08x}"
    return str(h(
        "svg", h("title", title, id=f"{ident}-t"), h("desc", desc, id=f"{ident}-d"), body,
        class_=css_class, xmlns="http://www.w3.org/2000/svg", viewBox=f"0 0 {width} {height}", width="100%",
        role="img", aria_labelledby=f"{ident}-t {ident}-d", style=f"max-width:{width}px;font-family:inherit",
    ))


def _text(x: Any, y: Any, content: str, size: int, **attrs: Any) -> Markup:
    """An SVG ``<text>`` in the page's text colour (escaped, as every value given to :func:`h`)."""
    return h("text", content, x=x, y=y, fill="currentColor", font_size=size, **attrs)


def share_chart_svg(inv: Inventory, lang: str = "en", model_name: str | None = None) -> str:
    """One row per component group: its name, then a bar with the exact count and percentage.

    Labels sit above the bars so the picture stays narrow (420 units) and
    its text readable when a phone scales it to the screen.
    """
    shares = group_breakdown(inv)
    name = model_name or inv.architecture
    title = label("share_chart_title", lang, total=fmt_int(inv.total, lang), model=name)
    desc = punct("clause_sep", lang).join(
        f"{label(s.key, lang)}{colon(lang)}{fmt_int(s.count, lang)}{paren(fmt_percent(s.fraction, lang), lang, aside=True)}"
        for s in shares
    )
    bar_w, row_h, width = 250, 46, 420
    body: list[Markup] = []
    biggest = max((s.fraction for s in shares), default=1.0) or 1.0
    for i, s in enumerate(shares):
        y = i * row_h
        w = max(2.0, bar_w * s.fraction / biggest)
        body.append(join([
            _text(0, y + 15, label(s.key, lang), 14),
            h("rect", x=0, y=y + 22, width=f"{w:.1f}", height=16, rx=3, fill=COLOURS[s.key]),
            _text(f"{w + 8:.1f}", y + 35, f"{fmt_int(s.count, lang)} · {fmt_percent(s.fraction, lang)}", 13),
        ]))
    return _svg(width, row_h * len(shares), title, desc, body, "share-chart")


def _module_blocks(layer: list[Tensor]) -> list[tuple[str, str, int]]:
    """Group one layer's tensors by module (name without .weight/.bias): (module, group, count)."""
    blocks: list[tuple[str, str, int]] = []
    for t in layer:
        if t.tied_to is not None:
            continue
        module = t.name.rsplit(".", 1)[0]
        if blocks and blocks[-1][0] == module:
            blocks[-1] = (module, t.group, blocks[-1][2] + t.count)
        else:
            blocks.append((module, t.group, t.count))
    return blocks


def layer_diagram_svg(inv: Inventory, lang: str = "en", model_name: str | None = None, layer: int = 0) -> str:
    """One encoder block, bottom to top as in the papers' figures, with each module's count.

    Residual connections are drawn as arrows labelled with zero parameters,
    because "where are the residual's weights?" is a question people ask.
    """
    tensors = [t for t in inv.tensors if t.layer == layer]
    blocks = _module_blocks(tensors)
    total = sum(b[2] for b in blocks)
    name = model_name or inv.architecture
    title = label("layer_diagram_title", lang, model=name, total=fmt_int(total, lang))
    short = [b[0].split(f".{layer}.", 1)[-1] for b in blocks]
    sep = punct("clause_sep", lang)
    desc = sep.join(f"{s}{paren(label(b[1], lang), lang, aside=True)}{colon(lang)}{fmt_int(b[2], lang)}"
                    for s, b in zip(short, blocks))
    desc += sep + label("residual", lang)
    box_w, box_h, gap = 360, 44, 10
    width, height = box_w + 4, len(blocks) * (box_h + gap) + 24
    body = []
    for i, (module, group, count) in enumerate(reversed(blocks)):
        y = 2 + i * (box_h + gap)
        text = short[len(blocks) - 1 - i]
        body.append(join([
            h("rect", x=2, y=y, width=box_w, height=box_h, rx=6, fill=COLOURS[group], fill_opacity="0.18",
              stroke=COLOURS[group], stroke_width=2),
            _text(12, y + 18, text, 13, font_family="monospace"),
            _text(12, y + 36, label(group, lang), 12),
            _text(box_w - 8, y + 28, fmt_int(count, lang), 15, text_anchor="end", font_weight="bold"),
        ]))
    body.append(_text(2, height - 6, "↻ " + label("residual", lang), 12))
    return _svg(width, height, title, desc, body, "layer-diagram")


#: One colour per memory component of a training step (the share chart's palette).
MEMORY_COLOURS: dict[str, str] = {
    "weights": "#3f7fd8", "gradients": "#d9822b", "optimizer": "#8a63d2", "activations": "#2f9e6e",
}


def memory_bar_svg(parts: list[tuple[str, int]], lang: str, names: dict[str, str], title: str) -> str:
    """A training step's memory as one stacked bar, one segment per component, with a legend of exact bytes.

    ``parts`` is (component key, bytes) in order; ``names`` each component's words. The
    ``<desc>`` says every figure, so the picture has its text equivalent.
    """
    total = sum(n for _, n in parts) or 1
    title = f"{title}{colon(lang)}{_bytes(total)}"
    desc = punct("clause_sep", lang).join(
        f"{names[k]}{colon(lang)}{fmt_int(n, lang)}{pick(BYTES_UNIT, lang)}{paren(fmt_percent(n / total), lang, aside=True)}"
        for k, n in parts
    )
    width, bar_h, row_h = 420, 22, 20
    body: list[Markup] = []
    x = 0.0
    for key, n in parts:
        w = width * n / total
        if w > 0:
            body.append(h("rect", x=f"{x:.2f}", y=0, width=f"{w:.2f}", height=bar_h, fill=MEMORY_COLOURS[key]))
        x += w
    for i, (key, n) in enumerate(parts):
        y = bar_h + 10 + i * row_h
        body.append(join([
            h("rect", x=0, y=y, width=12, height=12, rx=2, fill=MEMORY_COLOURS[key]),
            _text(18, y + 11, f"{names[key]} · {_bytes(n)} · {fmt_percent(n / total)}", 13),
        ]))
    return _svg(width, bar_h + 10 + row_h * len(parts), title, desc, body, "memory-bar")


def _bytes(n: int) -> str:
    """Binary units, one precision with the step's table and fits line (:func:`calculator.views.fmt_binary_bytes`)."""
    return fmt_binary_bytes(n)


#: The unit after an exact count of bytes in a chart's description: "438,057,192 B" / "438,057,192 字节".
BYTES_UNIT: dict[str, str] = {"en": " B", "zh": " 字节"}


def series_svg(series: list[dict[str, int]], key: str, axis: str, heading: str, lang: str, current: int,
               fmt: Any) -> str:
    """``series[i][key]`` against ``series[i]["seq_len"]`` on linear axes, and, dashed, proportional to L.

    ``axis`` names the figure, ``heading`` is the line above the plot (the figure and its largest
    value, worded by the caller); ``fmt`` writes a value.

    The dashed line runs through the origin and the first point: what the figure would be
    if it grew in proportion to L. The gap to the solid line is the L × L term of eager
    attention (its scores and probabilities, B × heads × L × L each). ``current`` is marked.
    """
    width, height, left, top, bottom = 420, 210, 8, 24, 28
    right = 12
    xs = [p["seq_len"] for p in series]
    ys = [p[key] for p in series]
    x_max, y_max = max(xs), max(ys) or 1
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(v: float) -> float:
        return left + plot_w * v / x_max

    def py(v: float) -> float:
        return top + plot_h * (1 - v / y_max)

    first_x, first_y = xs[0], ys[0]
    slope_end = first_y * x_max / first_x
    dashed_end_x = x_max if slope_end <= y_max else first_x * y_max / first_y
    line = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
    body: list[Markup] = [
        h("line", x1=left, y1=top + plot_h, x2=left + plot_w, y2=top + plot_h, stroke="currentColor",
          stroke_opacity="0.5"),
        h("line", x1=left, y1=top, x2=left, y2=top + plot_h, stroke="currentColor", stroke_opacity="0.5"),
        h("line", x1=f"{px(0):.1f}", y1=f"{py(0):.1f}", x2=f"{px(dashed_end_x):.1f}",
          y2=f"{py(first_y * dashed_end_x / first_x):.1f}", stroke="currentColor", stroke_dasharray="5 4",
          stroke_opacity="0.7"),
        h("polyline", points=line, fill="none", stroke="#3f7fd8", stroke_width=2.5),
        _text(left + 4, 14, heading, 13),
    ]
    for x, y in zip(xs, ys):
        if x == current:
            body.append(h("circle", cx=f"{px(x):.1f}", cy=f"{py(y):.1f}", r=5, fill="#d9822b"))
    # Labels only where they do not crowd: the longest L and the ones at least a quarter of it.
    for x in xs:
        if x * 4 >= x_max or x == current:
            anchor = "end" if x == x_max else "middle"
            body.append(_text(f"{px(x):.1f}", height - 8, f"L = {x}" if x == x_max else str(x), 12, text_anchor=anchor))
    sep = punct("clause_sep", lang)
    title = f"{axis}{colon(lang)}L = {xs[0]} … {x_max}"
    desc = sep.join(f"L = {x}{colon(lang)}{fmt(y)}" for x, y in zip(xs, ys))
    return _svg(width, height, title, desc, body, "series-chart")
