"""One Chinese term per concept: no page, calculator label or error message uses a rejected variant.

The terms and the variants we reject are data, in ``terminology.toml`` beside this
file (each with the reason). Checked on:

* every built Chinese page: the article's text (prose, tables, code output, the
  calculator's pre-rendered result), its meta description and title, and the
  titles and descriptions of its charts;
* every Chinese string of the calculator's label and error tables
  (:func:`calculator_strings`), which the page, the in-page calculator and the CLI
  print.

And on each Chinese page (but the calculator's, whose text is the calculator's
own labels), the first use of a term in running text carries its English name:
层归一化（LayerNorm）, checkpoint（权重文件）.
"""
from __future__ import annotations

import dataclasses
import importlib
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

import pytest

from calculator.record import Record

from .builtsite import Site, nav_pages, page_url

DATA = tomllib.loads((Path(__file__).with_name("terminology.toml")).read_text(encoding="utf-8"))
CONCEPTS: list[dict[str, Any]] = DATA["concept"]
GLOSSES: list[dict[str, str]] = DATA["gloss"]
PAGES = nav_pages()
CJK = re.compile(r"[\u3400-\u9fff]")
BRACKETS = re.compile(r"\[[^\[\]\n]*\]")
#: The calculator's page: below its H1 the text is the calculator's, checked as strings.
NO_GLOSS_CHECK = {"calculator.md"}
#: Fewer Chinese strings than this means the walk below lost a table (they were renamed or
#: moved): the check would pass without looking at anything.
MIN_CALCULATOR_STRINGS = 100


# ------------------------------------------------------------------ the checker


def violations(text: str) -> list[tuple[str, str]]:
    """(concept, what matched, with some context) for every rejected variant in ``text``."""
    found = []
    for c in CONCEPTS:
        subject = BRACKETS.sub(" ", text) if c.get("strip_brackets") else text
        for variant in c.get("reject", []):
            for m in re.finditer(re.escape(variant), subject):
                found.append((c["concept"], subject[max(0, m.start() - 12): m.end() + 12]))
        for pattern in c.get("reject_re", []):
            for m in re.finditer(pattern, subject):
                found.append((c["concept"], subject[max(0, m.start() - 12): m.end() + 12]))
    return found


def test_the_data_is_complete():
    assert len(CONCEPTS) >= 15
    for c in CONCEPTS:
        assert c.get("concept") and c.get("use") and c.get("why"), c
        assert c.get("reject") or c.get("reject_re"), c["concept"]
        for pattern in c.get("reject_re", []):
            re.compile(pattern)
            assert c.get("bad") and c.get("good"), f"{c['concept']}: a regex needs bad and good examples"
    for g in GLOSSES:
        re.compile(g["first"])
        re.compile(g["glossed"])


@pytest.mark.parametrize("concept", CONCEPTS, ids=lambda c: c["concept"][:40])
def test_each_rule_catches_its_variants_and_spares_the_right_use(concept):
    """A rule that cannot fail checks nothing; a rule that flags correct Chinese is wrong."""
    samples = list(concept.get("reject", [])) + list(concept.get("bad", []))
    for sample in samples:
        hits = [name for name, _ in violations(sample)]
        assert concept["concept"] in hits, f"{sample!r} is not caught"
    for sample in concept.get("good", []):
        assert violations(sample) == [], f"{sample!r} is flagged"


# ----------------------------------------------------------- calculator strings


def _zh_entries(obj: Any, depth: int = 0) -> Iterator[str]:
    """The "zh" side of every {"en": ..., "zh": ...} entry inside ``obj``.

    Walks dicts, lists and tuples, and the fields of dataclass instances (a family,
    its fields and architectures), a few levels deep.
    """
    if depth > 6:
        return
    if isinstance(obj, dict):
        zh = obj.get("zh")
        if isinstance(zh, str):
            yield zh
        for key, value in obj.items():
            if key != "zh":
                yield from _zh_entries(value, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            yield from _zh_entries(value, depth + 1)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _zh_entries(getattr(obj, f.name, None), depth + 1)
    elif isinstance(obj, Record):  # a frozen record written out (calculator/record.py): its fields are its slots
        for name in obj.__slots__:
            yield from _zh_entries(getattr(obj, name, None), depth + 1)


def _module(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        return None


def calculator_strings() -> list[str]:
    """Every Chinese string of the calculator's label and error tables, wherever they live now.

    Gathers from ``calculator.i18n.LABELS``, ``calculator.api.UI_LABELS`` and
    ``FIELD_LABELS``, the training step's ``LABELS`` (``calculator.views.costs``,
    ``calculator.page.costs``), the module-level dicts of ``calculator.errors`` that hold
    {"en", "zh"} entries, and each family in ``calculator.families.FAMILIES`` (its
    title, its fields' labels, anything else it declares in both languages).
    Whatever does not exist is skipped; the caller checks that enough was found.
    """
    out: list[str] = []
    tables = (("calculator.i18n", ("LABELS",)), ("calculator.api", ("UI_LABELS", "FIELD_LABELS")),
              # The training step's words: its table (CLI and page) and the page's "Training cost" panel.
              ("calculator.views.costs", ("LABELS",)), ("calculator.page.costs", ("LABELS",)),
              # The planner's and the step's options, worded once for the CLI and the page.
              ("calculator.options", ("OPTIONS",)),
              # How a config was read (issue 35, H5): the notes beside the total.
              ("calculator.views.notes", ("WORDS",)))
    for module_name, names in tables:
        module = _module(module_name)
        for name in names:
            out.extend(_zh_entries(getattr(module, name, None)))
    errors = _module("calculator.errors")
    if errors is not None:
        for name, value in vars(errors).items():
            if not name.startswith("_") and isinstance(value, dict):
                out.extend(_zh_entries(value))
    families = _module("calculator.families")
    for family in getattr(families, "FAMILIES", {}).values():
        out.extend(_zh_entries(family))
    return [s for s in dict.fromkeys(out) if CJK.search(s)]


def test_calculator_strings_are_found():
    strings = calculator_strings()
    assert len(strings) >= MIN_CALCULATOR_STRINGS, f"only {len(strings)} Chinese calculator strings: a table moved?"


def test_calculator_strings_use_the_site_terms():
    bad = [(s, hit) for s in calculator_strings() for hit in violations(s)]
    assert bad == []


# ------------------------------------------------------------------- the pages


def _page_texts(site: Site, src: str) -> list[str]:
    page = site.page(src, "zh")
    texts = [page.text, page.meta.get("description", ""), page.meta.get("og:title", "")]
    texts += [svg["title"] + "\n" + svg["desc"] for svg in page.svgs]
    return texts


@pytest.mark.parametrize("src", PAGES)
def test_chinese_page_uses_the_site_terms(site: Site, src: str):
    bad = [hit for text in _page_texts(site, src) for hit in violations(text)]
    assert bad == []


class _Prose(HTMLParser):
    """Running text of an article: paragraphs and list items, without headings, tables, charts, code."""

    SKIP = {"table", "pre", "code", "svg", "figure", "script", "style", "h1", "h2", "h3", "h4", "h5", "h6"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.article = 0
        self.skip = 0
        self.prose = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self.article += 1
        if not self.article:
            return
        if tag in self.SKIP:
            self.skip += 1
        if tag in ("p", "li", "dd"):
            self.prose += 1
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag == "article":
            self.article -= 1
        if not self.article:
            return
        if tag in self.SKIP and self.skip:
            self.skip -= 1
        if tag in ("p", "li", "dd") and self.prose:
            self.prose -= 1

    def handle_data(self, data):
        if self.article and self.prose and not self.skip:
            self.parts.append(data)


def prose(html: str) -> str:
    parser = _Prose()
    parser.feed(html)
    return "".join(parser.parts)


def test_prose_leaves_out_headings_tables_and_code():
    html = "<article><h1>层归一化</h1><p>一个层归一化（LayerNorm）<code>x</code></p><table><tr><td>层归一化</td></tr></table></article>"
    assert prose(html).strip() == "一个层归一化（LayerNorm）"


def unglossed(text: str) -> list[str]:
    """The terms whose first use in ``text`` lacks the English gloss."""
    missing = []
    for g in GLOSSES:
        first = re.search(g["first"], text)
        if first and not re.compile(g["glossed"]).match(text, first.start()):
            missing.append(text[max(0, first.start() - 10): first.end() + 14])
    return missing


def test_gloss_rule_can_fail():
    assert unglossed("先做层归一化，再做层归一化（LayerNorm）") != []
    assert unglossed("先做层归一化（LayerNorm），再做层归一化") == []
    assert unglossed("权重文件很大；checkpoint（权重文件）") != []
    # gradient checkpointing (梯度检查点) is not a weights file: it needs no such gloss
    assert unglossed("开启梯度检查点（gradient checkpointing）后，checkpoint（权重文件）不变") == []


@pytest.mark.parametrize("src", [p for p in PAGES if p not in NO_GLOSS_CHECK])
def test_terms_are_glossed_on_first_use(site: Site, src: str):
    html = site.file_for(page_url(src, "zh")).read_text(encoding="utf-8")
    assert unglossed(prose(html)) == []
