"""The site's pages, known before the build (for parametrize): mkdocs.yml's nav × languages."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "zh")


def nav_sources() -> list[str]:
    from mkdocs.utils.yaml import yaml_load  # understands mkdocs.yml's !ENV tags

    with open(ROOT / "mkdocs.yml", encoding="utf-8") as fh:
        config = yaml_load(fh)
    out: list[str] = []

    def walk(items):
        for item in items:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict):
                for value in item.values():
                    walk(value if isinstance(value, list) else [value])

    walk(config.get("nav") or [])
    return out


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
