"""Made for links: every page describes itself, in its own language, with absolute URLs.

Checked on the built HTML (no browser): meta description, Open Graph tags,
canonical URL, the sitemap's hreflang alternates, the bilingual 404 page.
"""
from __future__ import annotations

import gzip
import re
import struct
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

import pytest

from .htmlinfo import parse
from .pages import HTML_LANG

CJK = re.compile(r"[\u3400-\u9fff]")
LOCALES = {"en": "en_US", "zh": "zh_CN"}
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"


def test_site_has_both_languages(site):
    pages = site.pages()
    assert "" in pages and "zh/" in pages
    en = {p for p in pages if site.lang_of(p) == "en"}
    zh = {p for p in pages if site.lang_of(p) == "zh"}
    assert len(en) >= 10 and {site.counterpart(p) for p in en} == zh


def test_every_page_describes_itself_in_its_language(site):
    problems = []
    descriptions: dict[str, dict[str, str]] = {"en": {}, "zh": {}}
    for rel in site.pages():
        lang = site.lang_of(rel)
        doc = parse(site.file(rel))
        m = doc.meta
        want = {
            "description": m.get("description", ""),
            "og:title": m.get("og:title", ""),
            "og:description": m.get("og:description", ""),
            "og:url": m.get("og:url", ""),
            "og:type": m.get("og:type", ""),
            "og:site_name": m.get("og:site_name", ""),
            "og:locale": m.get("og:locale", ""),
        }
        for key, value in want.items():
            if not value.strip():
                problems.append((rel, f"{key} missing"))
        if doc.lang != HTML_LANG[lang]:
            problems.append((rel, f'<html lang="{doc.lang}">'))
        if m.get("og:description") != m.get("description"):
            problems.append((rel, "og:description differs from the meta description"))
        if m.get("og:locale") != LOCALES[lang]:
            problems.append((rel, f"og:locale {m.get('og:locale')}"))
        alternates = [v for k, v in doc.meta_all if k == "og:locale:alternate"]
        if alternates != [LOCALES["zh" if lang == "en" else "en"]]:
            problems.append((rel, f"og:locale:alternate {alternates}"))
        if m.get("og:type") != ("website" if rel in ("", "zh/") else "article"):
            problems.append((rel, f"og:type {m.get('og:type')}"))
        # The page's own language: Chinese pages say it in Chinese, English ones in English.
        for key in ("description", "og:title", "og:site_name"):
            if bool(CJK.search(m.get(key, ""))) != (lang == "zh") and not (key == "og:title" and lang == "zh"):
                problems.append((rel, f"{key} not in {lang}: {m.get(key)!r}"))
        if lang == "zh" and not CJK.search(m.get("description", "")):
            problems.append((rel, "description not in Chinese"))
        if m.get("og:site_name") != doc.title.split(" - ")[-1].strip():
            problems.append((rel, "og:site_name is not the site name in <title>"))
        descriptions[lang][rel] = m.get("description", "")
    # Each page has its own description (front matter), not the site's.
    for lang, by_page in descriptions.items():
        seen: dict[str, str] = {}
        for rel, text in by_page.items():
            if text in seen:
                problems.append((rel, f"same description as {seen[text]!r}"))
            seen.setdefault(text, rel)
    assert problems == []


def test_canonical_and_og_url_are_absolute_from_site_url(site):
    problems = []
    for rel in site.pages():
        doc = parse(site.file(rel))
        canonical = [l.get("href", "") for l in doc.head_links("canonical")]
        want = site.site_url + rel
        if canonical != [want]:
            problems.append((rel, canonical))
        if doc.meta.get("og:url") != want:
            problems.append((rel, doc.meta.get("og:url")))
    assert problems == []


def test_no_relative_hreflang_links(site):
    """hreflang lives in the sitemap; any <link hreflang> left in a page must be absolute."""
    problems = []
    for rel in site.pages() + ["404.html"]:
        for link in parse(site.file(rel)).links:
            if link.get("hreflang") and not link.get("href", "").startswith(("https://", "http://")):
                problems.append((rel, link))
    assert problems == []


def test_every_page_names_both_languages_in_its_head(site):
    """<link rel="alternate" hreflang> for en, zh-Hans and x-default: absolute, this page and its counterpart.

    None may match Material's selector [rel=alternate] (an exact match of the value): its
    bundle would fetch <href>/sitemap.xml from the published host (overrides/main.html).
    """
    problems = []
    for rel in site.pages():
        en = rel[len("zh/"):] if site.lang_of(rel) == "zh" else rel
        want = {"en": site.site_url + en, "zh-Hans": site.site_url + "zh/" + en, "x-default": site.site_url + en}
        links = [link for link in parse(site.file(rel)).links if link.get("hreflang")]
        got = {link["hreflang"]: link.get("href") for link in links}
        if got != want:
            problems.append((rel, got))
        if any(link.get("rel") == "alternate" or link.get("rel", "").split() != ["alternate"] for link in links):
            problems.append((rel, [link.get("rel") for link in links]))
    assert problems == []


#: Each language's Open Graph image: its home page (scripts/screenshot.py).
OG_IMAGES = {"en": "assets/screenshot.png", "zh": "assets/images/screenshot-zh.png"}


def test_og_image_is_the_page_languages_picture(site):
    problems = []
    for rel in site.pages():
        m = parse(site.file(rel)).meta
        want = site.site_url + OG_IMAGES[site.lang_of(rel)]
        if m.get("og:image") != want:
            problems.append((rel, m.get("og:image")))
        if (m.get("og:image:width"), m.get("og:image:height")) != ("1200", "630"):
            problems.append((rel, m.get("og:image:width"), m.get("og:image:height")))
        if not m.get("og:image:alt", "").strip():
            problems.append((rel, "og:image:alt missing"))
    assert problems == []


def test_chinese_pages_have_their_own_og_image(site):
    """A zh page shared on a forum shows the Chinese home page, not the English one."""
    for rel in ("", "embeddings/", "calculator/"):
        en = parse(site.file(rel)).meta.get("og:image")
        zh = parse(site.file(site.counterpart(rel))).meta.get("og:image")
        assert en and zh and en != zh, (rel, en, zh)
    files = {lang: (site.dir / path).read_bytes() for lang, path in OG_IMAGES.items()}
    assert files["en"] != files["zh"]


@pytest.mark.parametrize("lang", sorted(OG_IMAGES))
def test_og_image_is_a_real_1200x630_png(site, lang):
    path = site.dir / OG_IMAGES[lang]
    assert path.is_file(), f"{OG_IMAGES[lang]} is not in the built site"
    png = path.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (1200, 630)
    assert len(png) < 200_000, f"{path.name} is {len(png)} bytes: optimise it"


def sitemap(site, name="sitemap.xml"):
    data = (site.dir / name).read_bytes()
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    return ET.fromstring(data)


def test_sitemap_lists_every_page_with_absolute_alternates(site):
    root = sitemap(site)
    entries = {}
    for url in root.findall(f"{SM}url"):
        loc = url.findtext(f"{SM}loc").strip()
        alts = {l.get("hreflang"): l.get("href") for l in url.findall(f"{XHTML}link")
                if l.get("rel") == "alternate"}
        entries[loc] = alts
    pages = site.pages()
    assert set(entries) == {site.site_url + rel for rel in pages}
    for rel in pages:
        alts = entries[site.site_url + rel]
        lang = site.lang_of(rel)
        other = "zh" if lang == "en" else "en"
        assert alts == {HTML_LANG[lang]: site.site_url + rel,
                        HTML_LANG[other]: site.site_url + site.counterpart(rel)}, (rel, alts)
    # The gzipped copy says the same.
    assert ET.tostring(sitemap(site, "sitemap.xml.gz")) == ET.tostring(root)


def test_404_page_is_bilingual_and_rooted_at_the_subpath(site):
    path = site.dir / "404.html"
    doc = parse(path)
    text = path.read_text(encoding="utf-8")
    assert doc.lang == "en"
    assert doc.meta.get("robots") == "noindex"
    assert "Page not found" in text and "页面不存在" in text
    assert f'lang="{HTML_LANG["zh"]}"' in text  # its Chinese text is marked as Chinese
    # Served at any depth, so every local URL is absolute and under the subpath.
    for kind, url in doc.refs:
        if url.startswith(("http://", "https://", "#", "data:", "mailto:")):
            continue
        assert url.startswith(site.path) and "//" not in url, (kind, url)
    # Both homes are one click away, and the language switcher goes to them.
    hrefs = {u for k, u in doc.refs if k == "a.href"}
    assert {site.path, site.path + "zh/"} <= hrefs
    # Only the default language's 404 exists: GitHub Pages serves one file.
    assert not (site.dir / "zh" / "404.html").exists()


@pytest.mark.parametrize("missing", ["no-such-page/", "zh/no-such-page/", "zh/embeddings/nope.html"])
def test_server_answers_missing_pages_with_the_404_page(site, missing):
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(site.url + missing, timeout=180)
    assert err.value.code == 404
    body = err.value.read().decode("utf-8")
    assert "页面不存在" in body and "Page not found" in body
