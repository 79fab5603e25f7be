"""What the quality gates read from a built HTML file (standard library only)."""
from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

#: (tag, attribute) pairs that reference another resource or page.
REF_ATTRS = {
    ("a", "href"), ("link", "href"), ("script", "src"), ("img", "src"), ("source", "src"),
    ("iframe", "src"), ("video", "src"), ("audio", "src"), ("use", "href"), ("form", "action"),
}


@dataclass
class Doc:
    lang: str = ""
    title: str = ""
    meta: dict[str, str] = field(default_factory=dict)  # name= or property= -> content
    meta_all: list[tuple[str, str]] = field(default_factory=list)
    links: list[dict[str, str]] = field(default_factory=list)  # <link> attributes
    ids: set[str] = field(default_factory=set)
    refs: list[tuple[str, str]] = field(default_factory=list)  # ("a.href", url)
    headerlinks: list[tuple[str, str]] = field(default_factory=list)  # (heading id, permalink href)

    def head_links(self, rel: str) -> list[dict[str, str]]:
        return [l for l in self.links if rel in (l.get("rel") or "").lower().split()]


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.doc = Doc()
        self._in_title = False
        self._title_done = False  # the <head>'s; SVG figures have <title>s too
        self._heading_ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        if tag == "html":
            self.doc.lang = a.get("lang", "")
        elif tag == "title" and not self._title_done:
            self._in_title = True
        elif tag == "meta":
            key = a.get("property") or a.get("name")
            if key:
                self.doc.meta.setdefault(key, a.get("content", ""))
                self.doc.meta_all.append((key, a.get("content", "")))
        elif tag == "link":
            self.doc.links.append(a)
        if "id" in a:
            self.doc.ids.add(a["id"])
        if tag == "a" and "name" in a:
            self.doc.ids.add(a["name"])
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._heading_ids.append(a.get("id", ""))
        if tag == "a" and "headerlink" in a.get("class", "").split() and self._heading_ids:
            self.doc.headerlinks.append((self._heading_ids[-1], a.get("href", "")))
        for name, value in a.items():
            if (tag, name) in REF_ATTRS or (tag == "use" and name == "xlink:href"):
                self.doc.refs.append((f"{tag}.{name}", value))
            elif name == "srcset":
                for part in value.split(","):
                    if part.strip():
                        self.doc.refs.append((f"{tag}.srcset", part.strip().split()[0]))

    def handle_endtag(self, tag):
        if tag == "title" and self._in_title:
            self._in_title = False
            self._title_done = True
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6") and self._heading_ids:
            self._heading_ids.pop()

    def handle_data(self, data):
        if self._in_title:
            self.doc.title += data


_CACHE: dict[Path, Doc] = {}


def parse(path: Path) -> Doc:
    path = path.resolve()
    if path not in _CACHE:
        p = _Parser()
        p.feed(path.read_text(encoding="utf-8"))
        p.close()
        _CACHE[path] = p.doc
    return _CACHE[path]
