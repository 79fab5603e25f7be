"""MkDocs hook: one search index per language, each page loading its own language's.

mkdocs-static-i18n stacks both languages' entries into one
``search/search_index.json``, and Material's script fetches that file and builds
its lunr index in a worker on every page load. A reader of the English pages
then paid for the Chinese half too (and got Chinese hits for English words),
and the other way round: the single index was 427 KB, and building it took
~0.25 s of CPU per page load here.

After the build, the index is split:

* ``search/search_index.json`` keeps the English entries;
* ``zh/search/search_index.json`` gets the Chinese ones, each ``location``
  made relative to ``zh/`` (``zh/embeddings/#x`` becomes ``embeddings/#x``).

Material finds the index at ``search/search_index.json`` under ``__config.base``
and resolves each result's ``location`` against that same base (its only other
uses of ``base``, versions and instant navigation, are off here). So a Chinese
page's ``base`` is pointed at ``zh/`` (``"../.."`` becomes ``"../../zh/"``), and
it loads the Chinese index and links its results correctly, under any subpath.
The separator and the rest of the index's ``config`` are the same in both.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.plugins import event_priority

#: The language with a directory of its own (mkdocs.yml: the i18n plugin's non-default locale).
LANG_DIR = "zh/"
INDEX = Path("search") / "search_index.json"

_CONFIG_BASE = re.compile(r'(<script id="__config" type="application/json">[^<]*?"base": ")([^"]*)(")')


def language_base(base: str) -> str:
    """``__config.base`` of a page under ``zh/``: the same relative path, on to ``zh/``."""
    return base.rstrip("/") + "/" + LANG_DIR


@event_priority(-200)  # after mkdocs-static-i18n's own post_page work (priority -100)
def on_post_page(output: str, page, config) -> str:
    if not page.url.startswith(LANG_DIR):
        return output
    new, count = _CONFIG_BASE.subn(lambda m: m.group(1) + language_base(m.group(2)) + m.group(3), output, count=1)
    if count != 1:
        raise ValueError(f"{page.url}: no __config script with a base to point at {LANG_DIR}")
    return new


def split(index: dict) -> tuple[dict, dict]:
    """(the default language's index, the ``zh/`` index with locations relative to ``zh/``)."""
    default = [d for d in index["docs"] if not d["location"].startswith(LANG_DIR)]
    other = [{**d, "location": d["location"][len(LANG_DIR):]} for d in index["docs"] if d["location"].startswith(LANG_DIR)]
    return {**index, "docs": default}, {**index, "docs": other}


@event_priority(-200)  # after mkdocs-static-i18n has written the index of both languages (priority -100)
def on_post_build(config) -> None:
    site = Path(config["site_dir"])
    path = site / INDEX
    if not path.is_file():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    if not any(d["location"].startswith(LANG_DIR) for d in index["docs"]):
        return  # already split (the i18n plugin runs the build once per language)
    default, other = split(index)
    (site / LANG_DIR / INDEX).parent.mkdir(parents=True, exist_ok=True)
    # Compact and sorted as the search plugin writes it; Chinese as UTF-8, not \\u escapes (a third smaller).
    for target, data in ((path, default), (site / LANG_DIR / INDEX, other)):
        target.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")), encoding="utf-8")
