"""SVG pictures generated from an Inventory: the share chart and the encoder-layer diagram.

Plain SVG strings (no diagram library on the page). Text uses ``currentColor``
so it follows the page's light or dark scheme; bars use mid-tone colours that
read on both backgrounds. Each SVG carries ``<title>`` and ``<desc>`` so screen
readers get the same numbers as the picture.
"""
from __future__ import annotations

import zlib

from .i18n import label
from .model import Inventory, Tensor
from .views import escape, fmt_int, fmt_percent, group_breakdown


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


def _svg(width: int, height: int, title: str, desc: str, body: list[str], css_class: str) -> str:
    # A content checksum, not hash(): ids must be the same in every build (hash() is
    # salted per process). CRC-32, not hashlib: zlib is already loaded in Pyodide.
    ident = f"{css_class}-{zlib.crc32((title + desc).encode('utf-8')):08x}"
    return (
        f'<svg class="{css_class}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="100%" role="img" aria-labelledby="{ident}-t {ident}-d" '
        f'style="max-width:{width}px;font-family:inherit">'
        f'<title id="{ident}-t">{escape(title)}</title><desc id="{ident}-d">{escape(desc)}</desc>'
        + "".join(body)
        + "</svg>"
    )


def share_chart_svg(inv: Inventory, lang: str = "en", model_name: str | None = None) -> str:
    """One row per component group: its name, then a bar with the exact count and percentage.

    Labels sit above the bars so the picture stays narrow (420 units) and
    its text readable when a phone scales it to the screen.
    """
    shares = group_breakdown(inv)
    name = model_name or inv.architecture
    title = label("share_chart_title", lang, total=fmt_int(inv.total, lang), model=name)
    sep, colon, paren = ("；", "：", "（{}）") if lang == "zh" else ("; ", ": ", " ({})")
    desc = sep.join(
        f"{label(s.key, lang)}{colon}{fmt_int(s.count, lang)}{paren.format(fmt_percent(s.fraction, lang))}"
        for s in shares
    )
    bar_w, row_h, width = 250, 46, 420
    body: list[str] = []
    biggest = max((s.fraction for s in shares), default=1.0) or 1.0
    for i, s in enumerate(shares):
        y = i * row_h
        w = max(2.0, bar_w * s.fraction / biggest)
        body.append(
            f'<text x="0" y="{y + 15}" fill="currentColor" font-size="14">{escape(label(s.key, lang))}</text>'
            f'<rect x="0" y="{y + 22}" width="{w:.1f}" height="16" rx="3" fill="{COLOURS[s.key]}"/>'
            f'<text x="{w + 8:.1f}" y="{y + 35}" fill="currentColor" font-size="13">'
            f"{fmt_int(s.count, lang)} · {fmt_percent(s.fraction, lang)}</text>"
        )
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
    sep, colon, paren = ("；", "：", "（{}）") if lang == "zh" else ("; ", ": ", " ({})")
    desc = sep.join(f"{s}{paren.format(label(b[1], lang))}{colon}{fmt_int(b[2], lang)}" for s, b in zip(short, blocks))
    desc += sep + label("residual", lang)
    box_w, box_h, gap = 360, 44, 10
    width, height = box_w + 4, len(blocks) * (box_h + gap) + 24
    body = []
    for i, (module, group, count) in enumerate(reversed(blocks)):
        y = 2 + i * (box_h + gap)
        text = short[len(blocks) - 1 - i]
        body.append(
            f'<rect x="2" y="{y}" width="{box_w}" height="{box_h}" rx="6" fill="{COLOURS[group]}" fill-opacity="0.18" '
            f'stroke="{COLOURS[group]}" stroke-width="2"/>'
            f'<text x="12" y="{y + 18}" fill="currentColor" font-size="13" font-family="monospace">{escape(text)}</text>'
            f'<text x="12" y="{y + 36}" fill="currentColor" font-size="12">{escape(label(group, lang))}</text>'
            f'<text x="{box_w - 8}" y="{y + 28}" text-anchor="end" fill="currentColor" font-size="15" font-weight="bold">'
            f"{fmt_int(count, lang)}</text>"
        )
    body.append(
        f'<text x="2" y="{height - 6}" fill="currentColor" font-size="12">↻ {escape(label("residual", lang))}</text>'
    )
    return _svg(width, height, title, desc, body, "layer-diagram")
