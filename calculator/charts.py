"""SVG pictures generated from an Inventory: the share chart and the encoder-layer diagram.

Plain SVG strings (no diagram library on the page). Text uses ``currentColor``
so it follows the page's light or dark scheme; bars use mid-tone colours that
read on both backgrounds. Each SVG carries ``<title>`` and ``<desc>`` so screen
readers get the same numbers as the picture.
"""
from __future__ import annotations

import zlib
from typing import Any

from .i18n import label, paren, punct, colon
from .model import Inventory, Tensor
from .page.html import Markup, h, join
from .views import fmt_int, fmt_percent, group_breakdown


#: One colour per component group; mid-tones with enough contrast on white and on #1e2129.
COLOURS: dict[str, str] = {
    "embeddings": "#3f7fd8",
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
