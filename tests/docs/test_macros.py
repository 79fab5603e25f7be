"""The page hook itself: locale detection, rendering, and failing loudly (no build needed)."""
from __future__ import annotations

from types import SimpleNamespace

import jinja2
import pytest

from calculator.build import build
from calculator.presets import PRESETS
from sitegen import macros


def fake_page(src_uri: str, locale: str | None = None):
    file = SimpleNamespace(src_uri=src_uri)
    if locale is not None:
        file.locale = locale
    return SimpleNamespace(file=file, meta={})


@pytest.mark.parametrize(
    "src, locale, expected",
    [
        ("index.md", "en", "en"),
        ("index.zh.md", "zh", "zh"),
        ("embeddings.md", "zh", "zh"),  # the i18n plugin's locale wins
        ("embeddings.zh.md", None, "zh"),  # no plugin: the suffix
        ("embeddings.md", None, "en"),
        ("x.md", "zh_CN", "zh"),
    ],
)
def test_page_language(src, locale, expected):
    assert macros.page_lang(fake_page(src, locale)) == expected


def test_numbers_are_formatted_from_the_module():
    total = build(PRESETS["bert-base-uncased"].config).total
    assert macros.render("{{ n(base) }}", "en") == f"{total:,}"
    assert macros.render("{{ short(base) }}", "zh").endswith("亿")
    assert macros.render("{{ short_m(base) }}", "zh").endswith("M")


def test_heading_ids_survive_the_template():
    assert macros.render("## Heads {#heads-do-not-count}\n", "en") == "## Heads {#heads-do-not-count}\n"
    assert macros.render("a{// a Jinja comment //}b", "en") == "ab"


def test_unknown_names_fail_the_build():
    with pytest.raises(jinja2.UndefinedError):
        macros.render("{{ no_such_thing }}", "en")


def test_a_false_claim_fails_the_build():
    with pytest.raises(AssertionError, match="heads"):
        macros.render('{% set _ = check(model(num_attention_heads=1).total != base.total, "heads") %}', "en")


def test_front_matter_description_is_rendered():
    page = fake_page("index.md", "en")
    page.meta = {"description": "Total {{ n(base) }}"}
    macros.on_page_markdown("# T {#t}\n", page, None, None)
    assert page.meta["description"] == f"Total {build(PRESETS['bert-base-uncased'].config).total:,}"
