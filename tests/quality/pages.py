"""The site's pages, known before the build (for parametrize): mkdocs.yml's nav × languages."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "zh")
#: What each language's pages declare in <html lang> and the sitemap's hreflang
#: (mkdocs.yml: the zh language's ``theme: language: zh-Hans``, so browsers pick
#: Simplified Chinese glyphs). URLs, and the switcher's hreflang, keep "zh".
HTML_LANG = {"en": "en", "zh": "zh-Hans"}


def nav_sources() -> list[str]:
    """The nav's Markdown files, in order (the docs tests' reader of mkdocs.yml)."""
    from tests.docs.builtsite import nav_pages

    return nav_pages()


def page_url(src: str, lang: str) -> str:
    """'' for the English home page, 'zh/embeddings/' ..."""
    stem = src[: -len(".md")]
    url = "" if stem == "index" else stem + "/"
    return url if lang == "en" else f"{lang}/{url}"


def all_pages() -> list[str]:
    return [page_url(src, lang) for lang in LANGS for src in nav_sources()]


def is_calculator(rel: str) -> bool:
    return rel.rstrip("/").split("/")[-1] == "calculator"


def explainer_pages() -> list[str]:
    return [rel for rel in all_pages() if not is_calculator(rel)]


def ident(rel: str) -> str:
    return rel.rstrip("/") or "home"
