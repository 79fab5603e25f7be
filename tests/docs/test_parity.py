"""English and Chinese pages have the same structure: twins, anchors, tables, code blocks, links."""
from __future__ import annotations

import re

import pytest

from .builtsite import DOCS, LANGS, Site, nav_pages, page_url, source_path

PAGES = nav_pages()
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
EXPLICIT_ID = re.compile(r"\{#([A-Za-z][\w-]*)\}\s*$")


def _source_headings(text: str) -> list[str]:
    """ATX heading lines outside fenced code blocks."""
    out, fence = [], None
    for line in text.splitlines():
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if m:
            if fence is None:
                fence = m.group(1)[0] * len(m.group(1))
            elif m.group(1).startswith(fence):
                fence = None
            continue
        if fence is None and HEADING.match(line):
            out.append(line)
    return out


def test_every_page_has_its_translation():
    english = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if not re.search(r"\.(zh)\.md$", p.name)}
    chinese = {re.sub(r"\.zh\.md$", ".md", p.relative_to(DOCS).as_posix()) for p in DOCS.rglob("*.zh.md")}
    assert english - chinese == set(), "English pages without a .zh.md twin"
    assert chinese - english == set(), "Chinese pages without an English twin"


def test_nav_lists_every_page():
    english = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if not p.name.endswith(".zh.md")}
    assert english == set(PAGES)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("src", PAGES)
def test_every_source_heading_has_an_explicit_id(src: str, lang: str):
    for line in _source_headings(source_path(src, lang).read_text(encoding="utf-8")):
        assert EXPLICIT_ID.search(line), f"heading without {{#id}}: {line!r}"


@pytest.mark.parametrize("src", PAGES)
def test_same_heading_ids_in_the_same_order(site: Site, src: str):
    ids = {lang: [(h.level, h.id) for h in site.page(src, lang).headings] for lang in LANGS}
    assert ids["en"] == ids["zh"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("src", PAGES)
def test_built_headings_have_readable_ids_and_permalinks(site: Site, src: str, lang: str):
    page = site.page(src, lang)
    markdown_ids = {
        EXPLICIT_ID.search(line).group(1)
        for line in _source_headings(source_path(src, lang).read_text(encoding="utf-8"))
        if EXPLICIT_ID.search(line)
    }
    built_ids = [h.id for h in page.headings]
    assert markdown_ids <= set(built_ids), "a Markdown heading lost its id"
    for h in page.headings:
        assert not re.fullmatch(r"_\d+", h.id), f"generated id for {h.text!r}"
        if h.id in markdown_ids:  # raw-HTML headings (the calculator widget's) are not ours to anchor
            assert re.fullmatch(r"[a-z][a-z0-9-]*", h.id), h.id
            assert h.has_permalink or h.level == 1, f"no permalink on {h.text!r}"


@pytest.mark.parametrize("src", PAGES)
def test_same_tables_and_code_blocks(site: Site, src: str):
    en, zh = site.page(src, "en"), site.page(src, "zh")
    assert [len(t) for t in en.tables] == [len(t) for t in zh.tables], "table row counts differ"
    assert len(en.code_blocks) == len(zh.code_blocks)


def _normalised_links(site: Site, src: str, lang: str) -> list[str]:
    here = page_url(src, lang)
    prefix = "" if lang == "en" else f"{lang}/"
    out = []
    for href in site.page(src, lang).links:
        resolved = site.resolve(here, href)
        if resolved is None:
            out.append(href)
            continue
        target, fragment = resolved
        if prefix and target.startswith(prefix):
            target = target[len(prefix):]
        out.append(f"{target}#{fragment}" if fragment else target)
    return out


@pytest.mark.parametrize("src", PAGES)
def test_same_links(site: Site, src: str):
    assert _normalised_links(site, src, "en") == _normalised_links(site, src, "zh")
