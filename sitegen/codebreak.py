"""MkDocs hook: long inline code wraps only after its dots and slashes, never inside a name.

A dotted path in prose (``torch.autograd.graph.saved_tensors_hooks``) is wider
than a phone's line. Material lets code break anywhere (``word-break:
break-word``), so the browser cut it wherever the line ended ("saved_tens" /
"ors_hooks"), in both languages. Here every inline ``<code>`` (not a code
block) whose text is at least :data:`MIN_CHARS` long gets a ``<wbr>`` after
each dot or slash that is followed by a letter (and after the underscores and
at the word ends of snake_case and CamelCase names): a line may then end after
``torch.autograd.graph.`` and nothing else of the name is split. Short code
(``model.to(dtype)``) is left alone; it fits any line. A ``<wbr>`` adds no
character: copying the code, searching the page and screen readers get the
same text.

``tests/quality/test_layout.py`` holds the page to it: a word broken anywhere
but after a dash or at such a break point fails, at 390 and 1280 px, in both
languages.
"""
from __future__ import annotations

import html as htmllib
import re

#: Inline code this long or longer gets break points (a phone's line holds ~35 code characters).
MIN_CHARS = 24
#: ``<code>`` outside ``<pre>``, with text only inside (highlighted or linked code is left alone).
_CODE = re.compile(r"(<pre\b.*?</pre>)|<code(?P<attrs>(?:\s[^>]*)?)>(?P<text>[^<]*)</code>", re.S)
#: A dot or slash followed by a letter or an underscore, or an underscore inside a name followed by a letter: the
#: end of one part of a path or of a snake_case name (``_scaled_dot_product_flash_attention_for_cpu``).
_BREAK = re.compile(r"([./]|(?<=[A-Za-z0-9])_)(?=[A-Za-z_])")
#: A lower-case letter followed by a capital: a word's end inside a CamelCase name
#: (``ScaledDotProductEfficientAttentionBackward0``, wider than a phone's line).
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def break_points(content: str) -> str:
    """``content`` (a page's HTML) with ``<wbr>`` after the dots and slashes of long inline code."""

    def fix(m: re.Match) -> str:
        if m.group(1) is not None:  # a code block: it scrolls, untouched
            return m.group(0)
        text = m.group("text")
        if len(htmllib.unescape(text)) < MIN_CHARS:
            return m.group(0)
        broken = _CAMEL.sub("<wbr>", _BREAK.sub(r"\1<wbr>", text))
        return f'<code{m.group("attrs") or ""}>{broken}</code>'

    return _CODE.sub(fix, content)


def on_page_content(html, page, config, files, **kwargs):
    return break_points(html)
