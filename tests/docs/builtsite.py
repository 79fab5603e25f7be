"""Reading the built site: pages from mkdocs.yml's nav, and what a page's HTML contains.

Standard library only (html.parser), so the docs tests need nothing beyond
the docs requirements.
"""
from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LANGS = ("en", "zh")
DEFAULT_LANG = "en"


def mkdocs_config() -> dict:
    from mkdocs.utils.yaml import yaml_load

    with open(ROOT / "mkdocs.yml", encoding="utf-8") as fh:
        return yaml_load(fh)


def nav_pages() -> list[str]:
    """The nav's Markdown files (English names), in order."""
    out: list[str] = []

    def walk(items):
        for item in items:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict):
                for value in item.values():
                    walk(value if isinstance(value, list) else [value])

    walk(mkdocs_config()["nav"])
    return out


def page_url(src: str, lang: str) -> str:
    """Site-relative directory URL of a page: '' for the home page, 'zh/embeddings/' ..."""
    stem = src[: -len(".md")]
    url = "" if stem == "index" else stem + "/"
    return url if lang == DEFAULT_LANG else f"{lang}/{url}"


def source_path(src: str, lang: str) -> Path:
    return DOCS / (src if lang == DEFAULT_LANG else src[: -len(".md")] + f".{lang}.md")


@dataclass
class Heading:
    level: int
    id: str
    text: str
    has_permalink: bool = False


@dataclass
class Parsed:
    """What the tests look at in one built page."""

    html_lang: str = ""
    meta: dict[str, str] = field(default_factory=dict)
    ids: set[str] = field(default_factory=set)
    headings: list[Heading] = field(default_factory=list)
    tables: list[list[list[str]]] = field(default_factory=list)  # article tables: rows of cell texts
    code_blocks: list[str] = field(default_factory=list)  # article <pre> texts
    links: list[str] = field(default_factory=list)  # article <a href>
    all_refs: list[tuple[str, str]] = field(default_factory=list)  # (tag.attr, url) in the whole page
    switcher: dict[str, str] = field(default_factory=dict)  # hreflang -> href of the language menu
    svgs: list[dict[str, str]] = field(default_factory=list)  # article <svg>: class, title, desc
    text: str = ""  # article text


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.p = Parsed()
        self.in_article = 0
        self.heading: Heading | None = None
        self.table: list[list[str]] | None = None
        self.cell: list[str] | None = None
        self.pre: list[str] | None = None
        self.pre_depth = 0
        self.svg: dict[str, str] | None = None
        self.svg_field: str | None = None
        self.text: list[str] = []
        self.skip = 0  # inside <script>/<style>

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.p.html_lang = a.get("lang", "")
        if tag == "meta" and a.get("name"):
            self.p.meta[a["name"]] = a.get("content", "")
        if tag == "meta" and a.get("property"):
            self.p.meta[a["property"]] = a.get("content", "")
        if "id" in a:
            self.p.ids.add(a["id"])
        for attr in ("href", "src"):
            if a.get(attr) is not None:
                self.p.all_refs.append((f"{tag}.{attr}", a[attr]))
        if tag == "a" and "md-select__link" in (a.get("class") or "") and a.get("hreflang"):
            self.p.switcher[a["hreflang"]] = a.get("href", "")
        if tag in ("script", "style"):
            self.skip += 1
        if tag == "article":
            self.in_article += 1
        if not self.in_article:
            return
        if re.fullmatch(r"h[1-6]", tag):
            self.heading = Heading(int(tag[1]), a.get("id", ""), "")
        if tag == "a":
            if self.heading is not None and "headerlink" in (a.get("class") or ""):
                self.heading.has_permalink = True
            elif a.get("href") is not None:
                self.p.links.append(a["href"])
        if tag == "table":
            self.table = []
        if tag == "tr" and self.table is not None:
            self.table.append([])
        if tag in ("td", "th") and self.table is not None:
            self.cell = []
        if tag == "pre":
            self.pre = []
            self.pre_depth += 1
        if tag == "svg":
            self.svg = {"class": a.get("class", ""), "title": "", "desc": "", "role": a.get("role", "")}
        if tag in ("title", "desc") and self.svg is not None:
            self.svg_field = tag

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        if tag == "article":
            self.in_article -= 1
        if not self.in_article and tag != "article":
            return
        if re.fullmatch(r"h[1-6]", tag) and self.heading is not None:
            self.heading.text = self.heading.text.replace("¶", "").strip()
            self.p.headings.append(self.heading)
            self.heading = None
        if tag in ("td", "th") and self.cell is not None and self.table is not None:
            self.table[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        if tag == "table" and self.table is not None:
            self.p.tables.append(self.table)
            self.table = None
        if tag == "pre" and self.pre is not None:
            self.pre_depth -= 1
            if not self.pre_depth:
                self.p.code_blocks.append("".join(self.pre))
                self.pre = None
        if tag in ("title", "desc"):
            self.svg_field = None
        if tag == "svg" and self.svg is not None:
            self.p.svgs.append(self.svg)
            self.svg = None

    def handle_data(self, data):
        if self.skip or not self.in_article:
            return
        if self.svg is not None:
            if self.svg_field:
                self.svg[self.svg_field] += data
            return
        self.text.append(data)
        if self.heading is not None:
            self.heading.text += data
        if self.cell is not None:
            self.cell.append(data)
        if self.pre is not None:
            self.pre.append(data)


def parse(path: Path) -> Parsed:
    parser = _Parser()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    parser.p.text = html.unescape("".join(parser.text))
    return parser.p


@dataclass
class Site:
    """A built site: a directory, and the base path it is published under."""

    root: Path
    base_path: str  # e.g. "/bert-parameter-count/"
    log: str = ""
    _cache: dict = field(default_factory=dict)

    def file_for(self, url: str) -> Path:
        return self.root / url / "index.html" if url == "" or url.endswith("/") else self.root / url

    def page(self, src: str, lang: str) -> Parsed:
        key = (src, lang)
        if key not in self._cache:
            self._cache[key] = parse(self.file_for(page_url(src, lang)))
        return self._cache[key]

    def resolve(self, from_url: str, href: str) -> tuple[str, str] | None:
        """A link from the page at ``from_url`` as (site-relative URL, fragment); None if external.

        A link that leaves the site (above its root, or an absolute path outside
        the base path) comes back with a target starting with ``"../"``.
        """
        parts = urlsplit(href)
        if parts.scheme or parts.netloc:
            return None
        path = unquote(parts.path)
        if not path:
            return (from_url, parts.fragment)
        if path.startswith("/"):
            if not path.startswith(self.base_path):
                return ("../" + path.lstrip("/"), parts.fragment)
            path, from_url = path[len(self.base_path):], ""
        fake_root = "/site-root"
        joined = posixpath.normpath(posixpath.join(fake_root, from_url, path))
        if joined != fake_root and not joined.startswith(fake_root + "/"):
            return ("../" + path, parts.fragment)
        target = joined[len(fake_root) + 1:]
        if target and path.endswith("/"):
            target += "/"
        return (target, parts.fragment)
