"""Building HTML with escaping as the default: :func:`h` escapes every string it is given.

Jinja's ``Markup`` model in forty lines of the standard library (Pyodide cannot
cheaply import Jinja): a :class:`Markup` is HTML already; any other value put in
a tag or an attribute is text, and is escaped. Raw HTML is the explicit
exception (:func:`raw`, for the module-generated SVG charts), so forgetting to
escape a user value is no longer possible, only writing ``raw(...)`` on purpose.
"""
from __future__ import annotations

import re

from typing import Any, Iterable


def escape(text: str) -> str:
    """Escape text for HTML or SVG, as ``html.escape(text, quote=True)`` does.

    Our own five replacements because importing :mod:`html` (and its entity
    table) costs about 30 ms in Pyodide, on the path to the page's first answer.
    """
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace('"', "&quot;").replace("'", "&#x27;")
    )


#: Elements without a closing tag.
VOID = frozenset({"input", "br", "img", "meta", "link", "hr"})
#: SVG elements without content, written self-closed (inside HTML, an SVG tag is only closed by ``/>`` or its end tag).
SELF_CLOSED = frozenset({"rect", "path", "circle", "line"})


class Markup(str):
    """A string that is already HTML."""

    __slots__ = ()


def raw(html: str) -> Markup:
    """Trust ``html`` as it is: only for markup this package generated (the SVG charts)."""
    return Markup(html)


def text(value: Any) -> str:
    """A child as HTML: Markup as it is, lists joined, None/False nothing, anything else escaped."""
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return escape(value)
    if value is None or value is False:
        return ""
    if isinstance(value, (list, tuple)):
        return "".join([text(v) for v in value])
    return escape(str(value))


#: A run of 20 or more name characters (``attention_probs_dropout_prob``, a module path) and, inside one, the
#: places a line may end: after a dot, slash or underscore followed by a letter.
_LONG_NAME = re.compile(r"([\w./-]{20,})", re.ASCII)
_NAME_BREAK = re.compile(r"(?<=[._/])(?=[A-Za-z])")


def breakable(value: str) -> Markup:
    """``value`` escaped, with ``<wbr>`` after the dots, slashes and underscores of its long names: a narrow box
    (the panel's column, a phone) may end a line there and never inside a part of the name, as
    ``sitegen/codebreak.py`` does for the pages' inline code and ``setMessage`` in calculator.js for messages.
    ``<wbr>`` adds no character: the text read, copied and announced is ``value`` itself."""
    parts = []
    for part in _LONG_NAME.split(value):
        if _LONG_NAME.fullmatch(part):
            parts.append("<wbr>".join(escape(piece) for piece in _NAME_BREAK.split(part)))
        else:
            parts.append(escape(part))
    return Markup("".join(parts))


def attribute_name(name: str) -> str:
    """``class_`` → ``class``, ``data_count`` → ``data-count``, ``aria_describedby`` → ``aria-describedby``."""
    return name.rstrip("_").replace("_", "-")


def attributes(attrs: dict[str, Any]) -> str:
    if not attrs:
        return ""
    out = []
    for name, value in attrs.items():
        if value is None or value is False:
            continue
        key = attribute_name(name)
        out.append(f" {key}" if value is True else f' {key}="{escape(str(value))}"')
    return "".join(out)


def h(tag: str, *children: Any, **attrs: Any) -> Markup:
    """``<tag attrs>children</tag>``: attribute values and text children escaped, Markup children kept."""
    if tag in SELF_CLOSED and not children:
        return Markup(f"<{tag}{attributes(attrs)}/>")
    opening = f"<{tag}{attributes(attrs)}>"
    if tag in VOID:
        return Markup(opening)
    return Markup(f"{opening}{text(children)}</{tag}>")


def join(parts: Iterable[Any]) -> Markup:
    """Several children as one piece of HTML (each escaped unless it is Markup)."""
    return Markup("".join([text(p) for p in parts]))
