"""Every link and asset reference on every page resolves inside the built site, anchors included."""
from __future__ import annotations

import pytest

from .builtsite import LANGS, Site, nav_pages, page_url, parse

PAGES = nav_pages()


def _target_file(site: Site, target: str):
    path = site.file_for(target)
    if not path.exists() and not target.endswith("/") and (site.root / target).is_dir():
        path = site.root / target / "index.html"
    return path


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("src", PAGES)
def test_links_and_anchors_resolve(site: Site, src: str, lang: str):
    here = page_url(src, lang)
    page = site.page(src, lang)
    broken = []
    for kind, href in page.all_refs:
        if href.startswith(("mailto:", "data:", "javascript:")):
            continue
        resolved = site.resolve(here, href)
        if resolved is None:
            continue  # another host: only plain links are allowed (test_build checks assets)
        target, fragment = resolved
        if target.startswith("../"):
            broken.append((kind, href, "leaves the site"))
            continue
        path = _target_file(site, target)
        if not path.exists():
            broken.append((kind, href, "no such file"))
            continue
        if fragment and path.suffix == ".html":
            ids = page.ids if path == site.file_for(here) else parse(path).ids
            if fragment not in ids:
                broken.append((kind, href, "no such anchor"))
    assert broken == []
