"""Regenerate the Open Graph images: each language's home page, 1200×630 (the
Open Graph image size), as a small palette PNG.

    .venv/bin/python scripts/screenshot.py            # both
    .venv/bin/python scripts/screenshot.py --lang zh  # one

* ``docs/assets/screenshot.png``: the English home page (English pages'
  ``og:image``, also the README's picture);
* ``docs/assets/images/screenshot-zh.png``: the Chinese home page (Chinese
  pages' ``og:image``; overrides/main.html picks by language). Not named
  ``*.zh.png``: mkdocs-static-i18n would take that for the Chinese version of
  ``screenshot.png``. Its glyphs need a CJK font (Debian: fonts-noto-cjk).

Builds the site into a temporary directory, serves it as GitHub Pages would,
takes the pictures in Chromium (CHROME_PATH) and re-encodes them with at most
256 colours (the most frequent ones; the rest map to the nearest): standard
library only. tests/quality/test_seo.py checks the results' size and dimensions.
"""
from __future__ import annotations

import argparse
import os
import struct
import sys
import tempfile
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.chromium import CHROMIUM_ARGS, chromium_path as chrome_path  # noqa: E402
from tests.harness import SUBPATH, build_site, serve  # noqa: E402

#: What the site is built for: a project site's URL, as GitHub Pages gives a fork.
SITE_URL = f"https://example.github.io/{SUBPATH}/"

#: language -> (the home page under the site's URL, where its picture goes)
SHOTS = {
    "en": ("", ROOT / "docs" / "assets" / "screenshot.png"),
    "zh": ("zh/", ROOT / "docs" / "assets" / "images" / "screenshot-zh.png"),
}
WIDTH, HEIGHT = 1200, 630


def _chunks(data: bytes):
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def decode_png(data: bytes) -> tuple[int, int, list[tuple[int, ...]]]:
    """8-bit RGB/RGBA, non-interlaced (what Chromium writes) -> (w, h, RGB pixels)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    idat = b""
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
        elif kind == b"IDAT":
            idat += body
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    pixels = []
    pos = 0
    for _ in range(h):
        ftype = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        pixels.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return w, h, pixels


def encode_palette_png(w: int, h: int, pixels: list[tuple[int, ...]]) -> bytes:
    counts = Counter(pixels)
    palette = [c for c, _ in counts.most_common(256)]
    index = {c: i for i, c in enumerate(palette)}
    for colour in counts:
        if colour not in index:
            index[colour] = min(range(len(palette)), key=lambda i: sum(
                (x - y) ** 2 for x, y in zip(colour, palette[i])))
    rows = bytearray()
    for y in range(h):
        rows.append(0)
        rows.extend(index[p] for p in pixels[y * w:(y + 1) * w])

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0))
            + chunk(b"PLTE", b"".join(bytes(c) for c in palette))
            + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
            + chunk(b"IEND", b""))


def take(langs=tuple(SHOTS)) -> dict[str, bytes]:
    """Screenshots of the home pages of ``langs``: language -> PNG bytes."""
    from playwright.sync_api import sync_playwright

    shots = {}
    with tempfile.TemporaryDirectory() as top:
        build_site(Path(top) / SUBPATH, SITE_URL)
        server, url = serve(Path(top), SUBPATH)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chrome_path(), args=CHROMIUM_ARGS)
                for lang in langs:
                    # zh-CN: Simplified Chinese glyphs from the CJK font.
                    locale = {"locale": "zh-CN"} if lang == "zh" else {}
                    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT},
                                            device_scale_factor=1, color_scheme="light", **locale)
                    page.goto(url + SHOTS[lang][0])
                    page.wait_for_load_state("networkidle")
                    page.evaluate("document.fonts.ready")
                    shots[lang] = page.screenshot(type="png")
                    page.close()
                browser.close()
        finally:
            server.stop()
    return shots


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", choices=sorted(SHOTS), action="append",
                        help="only this language's picture (repeatable; default: all)")
    args = parser.parse_args(argv)
    if not os.path.exists(chrome_path()):
        print(f"no browser at {chrome_path()} (set CHROME_PATH)", file=sys.stderr)
        return 1
    for lang, png in take(tuple(args.lang or SHOTS)).items():
        out = SHOTS[lang][1]
        w, h, pixels = decode_png(png)
        small = encode_palette_png(w, h, pixels)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(small)
        print(f"{out.relative_to(ROOT)}: {w}x{h}, {len(png)} -> {len(small)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
