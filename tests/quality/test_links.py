"""Link checker over the whole built site: no broken internal link, asset or anchor.

Every HTML file (all pages in both languages and the 404 page), every entry
of both languages' search indexes (what search results link to) and every sitemap URL. A
reference is resolved the way a browser would from the page's URL under the
subpath; links to ``site_url`` itself count as internal; other hosts are not
fetched (no network), but must be plain ``<a>`` links, never assets.
"""
from __future__ import annotations

import json
import posixpath
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from .htmlinfo import parse

SKIP_SCHEMES = ("mailto:", "data:", "javascript:", "tel:", "blob:")


class Checker:
    def __init__(self, site) -> None:
        self.site = site
        self.base = "http://pages.invalid" + site.path  # where the site is mounted
        self.broken: list[tuple[str, str, str, str]] = []
        self.external: set[str] = set()
        self.checked = 0

    def page_url(self, html: Path) -> str:
        rel = html.relative_to(self.site.dir).as_posix()
        if rel == "404.html":
            return self.base + "any/depth/missing/"  # served for any missing URL
        return self.base + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)

    def target(self, url: str) -> tuple[Path | None, str, str | None]:
        """(file, fragment, problem) for an absolute URL."""
        if url.startswith(self.site.site_url):
            url = self.base + url[len(self.site.site_url):]
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" != "http://pages.invalid":
            return None, "", "external"
        path = posixpath.normpath(unquote(parts.path)) + ("/" if parts.path.endswith("/") else "")
        if not (path + "/").startswith(self.site.path):
            return None, "", "leaves the subpath"
        rel = path[len(self.site.path):]
        file = self.site.dir / rel
        if rel == "" or rel.endswith("/") or file.is_dir():
            file = file / "index.html"
        if not file.is_file():
            return None, parts.fragment, "no such file"
        return file, unquote(parts.fragment), None

    def check(self, where: str, kind: str, ref: str, page_url: str) -> None:
        if not ref or ref.startswith(SKIP_SCHEMES):
            return
        absolute = urljoin(page_url, ref)
        file, fragment, problem = self.target(absolute)
        self.checked += 1
        if problem == "external":
            if kind != "a.href":
                self.broken.append((where, kind, ref, "asset from another host"))
            else:
                self.external.add(absolute)
            return
        if problem:
            self.broken.append((where, kind, ref, problem))
            return
        if fragment and file.suffix == ".html" and fragment not in parse(file).ids:
            self.broken.append((where, kind, ref, "no such anchor"))


def html_files(site) -> list[Path]:
    return sorted(p for p in site.dir.rglob("*.html")
                  if p.relative_to(site.dir).parts[0] != "assets")


def test_every_html_reference_resolves(site):
    checker = Checker(site)
    files = html_files(site)
    assert len(files) >= 2 * 13 + 1
    for html in files:
        here = checker.page_url(html)
        where = html.relative_to(site.dir).as_posix()
        for kind, ref in parse(html).refs:
            checker.check(where, kind, ref, here)
    assert checker.checked > 1000
    assert checker.broken == [], "\n".join(" | ".join(b) for b in checker.broken)


def test_search_results_link_to_real_pages_and_anchors(site):
    """Each language's index (sitegen/search_split.py) resolves its results against that language's root."""
    checker = Checker(site)
    for root in ("", "zh/"):
        index = json.loads((site.dir / root / "search" / "search_index.json").read_text(encoding="utf-8"))
        locations = [doc["location"] for doc in index["docs"]]
        assert "" in locations and not any(loc.startswith("zh/") for loc in locations), root
        for loc in locations:
            checker.check(root + "search/search_index.json", "a.href", loc, checker.base + root)
    assert checker.broken == [], "\n".join(" | ".join(b) for b in checker.broken)


def test_sitemap_urls_resolve(site):
    checker = Checker(site)
    ns = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    root = ET.parse(site.dir / "sitemap.xml").getroot()
    urls = [e.text.strip() for e in root.findall(".//sm:loc", ns)]
    urls += [e.get("href") for e in root.findall(".//x:link", ns)]
    assert urls
    for url in urls:
        assert url.startswith(site.site_url), url
        checker.check("sitemap.xml", "a.href", url, checker.base)
    assert checker.broken == [], "\n".join(" | ".join(b) for b in checker.broken)


def test_heading_permalinks_point_at_their_heading(site):
    """Every heading below the title has a permalink, ¶, to its own id."""
    problems = []
    count = 0
    for rel in site.pages():
        doc = parse(site.file(rel))
        for heading_id, href in doc.headerlinks:
            count += 1
            if not heading_id or href != "#" + heading_id:
                problems.append((rel, heading_id, href))
    assert count > 50
    assert problems == []
