"""MkDocs hook: one bilingual 404 page, rendered with the default language.

GitHub Pages answers every missing URL of a project site with the site's
``404.html``. mkdocs-static-i18n builds the whole site once per language, and
each build renders the theme's ``404.html`` into the same file, so the last
language built (Chinese) would win: Chinese header, navigation and
``<html lang="zh-Hans">`` for every visitor. ``overrides/404.html`` has a body in
both languages; this hook keeps the default language's rendering of it and
skips the others (an empty result tells MkDocs not to write the file).

It also points the 404 page's language switcher at each language's home page:
the switcher's links are per-page (``sitegen/i18n_links.py``) and mean nothing
on a page that has no counterpart.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

_saved: list | None = None


def _i18n(config: MkDocsConfig) -> Any:
    return config.plugins.get("i18n")


def _home_links(config: MkDocsConfig) -> list | None:
    links = getattr(config.extra, "alternate", None)
    plugin = _i18n(config)
    if not links or plugin is None:
        return None
    base = urlsplit(config.site_url or "/").path or "/"
    if not base.endswith("/"):
        base += "/"
    out = []
    for entry in links:
        entry = dict(entry)
        lang = entry.get("lang")
        entry["link"] = base if lang == plugin.default_language else f"{base}{lang}/"
        out.append(entry)
    return out


@event_priority(-100)  # after mkdocs-static-i18n's own template context (priority 50)
def on_template_context(context: Any, template_name: str, config: MkDocsConfig) -> Any:
    global _saved
    if template_name == "404.html":
        homes = _home_links(config)
        if homes is not None:
            extra: Any = config.extra  # ``alternate`` is the i18n plugin's, set as an attribute
            _saved = extra.alternate
            extra.alternate = homes
    return context


def on_post_template(output_content: str, template_name: str, config: MkDocsConfig) -> str:
    global _saved
    if template_name != "404.html":
        return output_content
    if _saved is not None:
        extra: Any = config.extra
        extra.alternate = _saved
        _saved = None
    plugin = _i18n(config)
    if plugin is not None and not plugin.is_default_language_build:
        return ""  # keep the default language's 404.html
    return output_content
