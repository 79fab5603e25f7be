"""MkDocs hook: each page's Markdown is a Jinja2 template rendered with calculator views.

How it works
------------
``on_page_markdown`` runs before Markdown is converted. It renders the page
source with Jinja2 and the context of :func:`sitegen.context.page_context`
for the page's language, so ``{{ n(base.total) }}`` becomes ``109,482,240``
and ``{{ table(base) }}`` becomes the per-tensor Markdown table.

The front matter's ``description`` (and ``title``) are rendered the same way,
so a meta description can quote a generated number.

Delimiters: ``{{ ... }}`` and ``{% ... %}`` as usual; Jinja comments are
``{// ... //}`` because ``{#id}`` is attr_list's heading-id syntax. Undefined
names fail the build (StrictUndefined), and so does any error in a template,
with the page's path in the message.

Names a page can use (all from :func:`sitegen.context.page_context`)
--------------------------------------------------------------------
Inventories: ``base`` (bert-base-uncased, BertModel with pooler), ``large``,
``model(preset="bert-base-uncased", architecture=None, pooler=None, **config_overrides)``,
``custom(raw_config, architecture=None, pooler=None)``, ``transformer(**overrides)``
(the 2018 one-layer printout), ``keras_model(**overrides)`` (keras-bert with the
arguments of ``docs_src/keras_count.py``), ``presets``.
Symbols of bert-base-uncased: ``H L A I V P T d_head``.
Lookups: ``tensor(inv, name)``, ``group(inv, key)``, ``layer(inv, i)``,
``layer_tensors(inv, i)``, ``select(inv, *substrings, layer_index=0)``,
``total_of(tensors)``, ``groups``, ``sections``, ``per_layer``,
``embedding_split``, ``formula``, ``memory``, ``to_json`` (the views),
``active_parameters(inv, fraction)``, ``ultrafastbert``, ``mistake(id, inv)``,
``all_mistakes(inv)``, ``round_to``, ``paper_rounding``, ``snippet_kwargs``.
One training step (``sitegen/costs_pages.py``): ``training_step(inv, batch, seq_len, dtype, optimizer,
checkpointing, plan)``, ``attention_flops``, ``layer_norms``, ``hf_estimate(inv)``,
``tool_figures(inv, step, non_embedding)``, ``cost_rules`` (the tools' constants), ``gib`` (binary units, as the CLI prints them).
Formatting in the page's language: ``n`` (109,482,240), ``signed`` (+304,128),
``short`` (109.5M / 1.09亿), ``short_m`` (109.5M in both), ``pct``,
``bytes``, ``shape``, ``paper(key)``, ``paper_short(key)`` (110M), ``label(key)``.
Blocks of Markdown/HTML: ``table(inv, compact=True)``, ``breakdown_table(inv)``,
``tensor_table(tensors, total_label=None, frozen=None)``, ``formula_table(inv)``,
``share_chart(inv, name, caption)``, ``layer_diagram(inv, name, caption)``,
``text_report(inv)``, ``text_summary(inv)``.
Build-time assertions: ``{% set _ = check(condition, "message") %}`` fails the
build when a sentence of the prose stops being true.
Also ``lang`` ("en" or "zh").

Locale
------
The language is the ``locale`` mkdocs-static-i18n sets on every file it
selects for a build (``page.file.locale``); a file without one falls back to
its ``.zh.md`` suffix, then to the default language.
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import jinja2
from mkdocs.exceptions import PluginError

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from sitegen import context as _context  # noqa: E402

LANGS = ("en", "zh")
DEFAULT_LANG = "en"

_ENV = jinja2.Environment(
    undefined=jinja2.StrictUndefined,
    autoescape=False,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    comment_start_string="{//",
    comment_end_string="//}",
)
_CONTEXTS: dict[str, dict] = {}


def page_lang(page) -> str:
    """The page's language: mkdocs-static-i18n's ``file.locale``, else the file suffix."""
    locale = getattr(page.file, "locale", None)
    if locale:
        lang = str(locale).split("_")[0].split("-")[0]
        if lang in LANGS:
            return lang
    stem = os.path.splitext(page.file.src_uri)[0]
    for lang in LANGS:
        if stem.endswith("." + lang):
            return lang
    return DEFAULT_LANG


def context_for(lang: str) -> dict:
    if lang not in _CONTEXTS:
        _CONTEXTS[lang] = _context.page_context(lang)
    return _CONTEXTS[lang]


def render(markdown: str, lang: str, name: str = "<page>") -> str:
    """Render one page source (also used by the tests)."""
    template = _ENV.from_string(markdown)
    template.name = name
    return template.render(**context_for(lang), page_lang=lang)


def on_config(config: MkDocsConfig, **kwargs: Any) -> MkDocsConfig:
    _context.check_paper_figures()
    return config


#: Front-matter keys rendered like the page body (they may quote numbers).
META_KEYS = ("description", "title")


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files, **kwargs: Any) -> str:
    lang = page_lang(page)
    try:
        for key in META_KEYS:
            if isinstance(page.meta.get(key), str):
                page.meta[key] = render(page.meta[key], lang, f"{page.file.src_uri} (front matter {key})").strip()
        return render(markdown, lang, page.file.src_uri)
    except jinja2.TemplateError as exc:
        where = f"{page.file.src_uri}:{getattr(exc, 'lineno', '?')}"
        raise PluginError(f"sitegen.macros: {where}: {exc}") from exc
    except Exception as exc:  # a view raised: say where
        raise PluginError(f"sitegen.macros: {page.file.src_uri}: {type(exc).__name__}: {exc}") from exc


#: Heading permalinks carry Python-Markdown's English title; the toc extension
#: has one setting for every language, so the Chinese pages get theirs here.
PERMALINK_TITLES = {"zh": "永久链接"}


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files, **kwargs: Any) -> str:
    title = PERMALINK_TITLES.get(page_lang(page))
    if title is None:
        return html
    return html.replace('title="Permanent link"', f'title="{title}"')
