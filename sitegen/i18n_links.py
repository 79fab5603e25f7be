"""MkDocs hook: the language switcher links to the same page, relatively, on every page.

mkdocs-static-i18n points the switcher at the other language's version of the
current page, except on the home page, where it keeps the configured links
built from ``site_url``'s path (``/bert-parameter-count/zh/``). Those work
only when the site is served under exactly that path. Here every link becomes
the alternate file's own URL, which Material's ``url`` filter makes relative
to the page, so the switcher works under any subpath and at the root.
Runs after the i18n plugin's ``on_page_context`` (priority 50).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page


@event_priority(-50)
def on_page_context(context: Any, page: Page, config: MkDocsConfig, nav: Navigation) -> Any:
    alternates = getattr(page.file, "alternates", None)
    # The i18n plugin assigns ``config.extra.alternate`` (an attribute, which
    # is what the theme's template reads), so read it the same way.
    links = getattr(config.extra, "alternate", None)
    if not alternates or not links:
        return context
    for entry in links:
        target = alternates.get(entry.get("lang"))
        if target is not None:
            entry["link"] = target.url
    return context
