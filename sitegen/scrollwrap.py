"""MkDocs hook: tables and code blocks that may scroll sideways are keyboard-focusable as built.

A region that scrolls must be reachable from the keyboard (axe's
``scrollable-region-focusable``, WCAG 2.1.1). Material 9.8.1 takes care of it
in JavaScript, after load, and only partly:

* an article ``<table>`` is wrapped by Material's script in
  ``div.md-typeset__scrollwrap > div.md-typeset__table``; the wrapper is what
  scrolls then, and it gets no ``tabindex``. Before the script has run, the
  table itself scrolls (``overflow: auto``). Either way a wide table (the
  checkpoints on ``other-encoders/``) is a scrolling region nobody can focus;
* a code block's ``<code>`` gets ``tabindex="0"`` from the script once a
  resize observer has found it scrollable, so until then it is not focusable.

Here the built HTML is right before any script runs: every article table
without a class (the ones Material wraps) gets ``tabindex="0"`` and an
accessible name, the text of the heading it sits under, in the page's own
language. Focusable itself, it makes either scroller keyboard-reachable: the
table when it scrolls itself, Material's wrapper (which then holds focusable
content) once the script has run; arrow keys scroll the focused table's
scrolling ancestor. Tables that already hold a link or a control are left
alone. Every ``pre > code`` gets ``tabindex="0"`` too; Material's script
removes it again from blocks that do not scroll, as it does today.
"""
from __future__ import annotations

import html as htmllib
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

#: Headings (their id and inner HTML), article tables' start tags, code blocks' start.
_TOKEN = re.compile(
    r"<h([1-6])\b[^>]*>(?P<heading>.*?)</h\1>"
    r"|(?P<table><table(?P<attrs>(?:\s[^>]*)?)>)(?P<body>.*?)</table>"
    r"|(?P<pre><pre\b[^>]*>(?:<span></span>)?)<code(?P<code_attrs>(?:\s[^>]*)?)>",
    re.S,
)
_TAGS = re.compile(r"<[^>]+>")
_PERMALINK = re.compile(r'<a\b[^>]*class="headerlink"[^>]*>.*?</a>', re.S)
_FOCUSABLE = re.compile(r"<(?:a\b[^>]*\bhref=|button\b|input\b|select\b|textarea\b|[a-z]+\b[^>]*\btabindex=)", re.I)


def _text(fragment: str) -> str:
    return " ".join(htmllib.unescape(_TAGS.sub("", _PERMALINK.sub("", fragment))).split())


def focusable_scrollers(content: str, title: str = "") -> str:
    """``content`` (a page's article HTML) with its tables and code blocks focusable."""
    name = title

    def fix(m: re.Match) -> str:
        nonlocal name
        if m.group("heading") is not None:
            name = _text(m.group("heading")) or name
            return m.group(0)
        if m.group("table") is not None:
            attrs = m.group("attrs") or ""
            body = m.group("body")
            if re.search(r"\s(class|tabindex)=", attrs) or _FOCUSABLE.search(body):
                return m.group(0)
            label = f' aria-label="{htmllib.escape(name, quote=True)}"' if name and "aria-label" not in attrs else ""
            return f'<table{attrs} tabindex="0"{label}>{body}</table>'
        attrs = m.group("code_attrs") or ""
        if "tabindex=" in attrs:
            return m.group(0)
        return f'{m.group("pre")}<code{attrs} tabindex="0">'

    return _TOKEN.sub(fix, content)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files, **kwargs: Any) -> str:
    return focusable_scrollers(html, page.title or "")
