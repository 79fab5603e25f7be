"""The site builds strictly in both languages, self-contained, with a working language switcher."""
from __future__ import annotations

import re

import pytest

from .builtsite import LANGS, ROOT, Site, nav_pages, page_url

PAGES = nav_pages()
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_strict_build_reports_no_warning(site: Site):
    warnings = [line for line in site.log.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert warnings == []


#: ``<html lang>`` of each language's pages. The Chinese pages are written in Simplified
#: Chinese: "zh" alone leaves the glyphs to the browser (on a system that lists Japanese
#: or Traditional Chinese fonts first, some characters come out in their shapes);
#: "zh-Hans" asks for the Simplified ones. URLs keep the plain code (/zh/).
HTML_LANG = {"en": "en", "zh": "zh-Hans"}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("src", PAGES)
def test_page_is_built_in_its_language(site: Site, src: str, lang: str):
    page = site.page(src, lang)
    assert page.html_lang == HTML_LANG[lang]
    assert page.headings and page.headings[0].level == 1, "a page starts with its H1"


def test_sitemap_hreflang_is_the_html_lang(site: Site):
    """Search engines read the alternates in sitemap.xml: their tags are the pages' own <html lang>."""
    import xml.etree.ElementTree as ET

    ns = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    root = ET.parse(site.root / "sitemap.xml").getroot()
    base = site.base_path
    pairs = []
    for link in root.findall(".//x:link", ns):
        path = link.get("href").split("://", 1)[1].split("/", 1)[1]
        rel = ("/" + path)[len(base):]
        lang = "zh" if rel.startswith("zh/") else "en"
        pairs.append((link.get("hreflang"), HTML_LANG[lang]))
    assert len(pairs) == 2 * 2 * len(PAGES)
    assert all(tag == want for tag, want in pairs), sorted(set(pairs))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("src", PAGES)
def test_meta_description_in_the_page_language(site: Site, src: str, lang: str, config: dict):
    description = site.page(src, lang).meta.get("description", "")
    assert description, "front matter description is missing"
    assert description != config["site_description"].strip()
    assert "{{" not in description and "{%" not in description
    assert bool(CJK.search(description)) == (lang == "zh"), description


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("src", PAGES)
def test_language_switcher_leads_to_the_same_page(site: Site, src: str, lang: str):
    here = page_url(src, lang)
    switcher = site.page(src, lang).switcher
    assert set(switcher) == set(LANGS)
    for other in LANGS:
        assert site.resolve(here, switcher[other]) == (page_url(src, other), "")


def test_nothing_is_loaded_from_another_host(site: Site):
    """No CDN script or style, no web fonts: every src and stylesheet is on the site."""
    offenders = []
    for path in site.root.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"<(script|img|iframe|source)\b[^>]*\bsrc=\"(https?:)?//", text):
            offenders.append((path.name, m.group(0)))
        for m in re.finditer(r"<link\b[^>]*>", text):
            tag = m.group(0)
            if re.search(r'rel="(stylesheet|preload|preconnect|icon|modulepreload)"', tag) and re.search(r'href="(https?:)?//', tag):
                offenders.append((str(path.relative_to(site.root)), tag))
        for host in ("fonts.googleapis", "fonts.gstatic", "cdn.jsdelivr", "unpkg.com", "cdnjs"):
            if host in text:
                offenders.append((str(path.relative_to(site.root)), host))
    assert offenders == []


def test_no_mermaid_and_no_instant_navigation(site: Site, config: dict):
    features = config["theme"].get("features", [])
    assert "navigation.instant" not in features
    assert config["theme"].get("font") is False
    assert not any("mermaid" in p.read_text(encoding="utf-8") for p in site.root.rglob("*.html"))


def test_site_url_is_a_project_site_and_overridable():
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r'^site_url: !ENV \[SITE_URL, "https://[^"]+/[^"]+/"\]', text, re.M)


@pytest.mark.parametrize("src", PAGES)
def test_theme_chrome_is_in_the_page_language(site: Site, src: str):
    """Material leaves the footer's "Made with" untranslated; overrides/partials/copyright.html does not."""
    zh = site.file_for(page_url(src, "zh")).read_text(encoding="utf-8")
    en = site.file_for(page_url(src, "en")).read_text(encoding="utf-8")
    assert "Made with" not in zh and "构建" in zh.split('class="md-copyright"', 1)[1][:600]
    assert "Made with" in en
