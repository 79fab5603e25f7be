"""Site search: one index per language, and Chinese segmented by jieba so words inside a sentence are search terms.

Each language has its own ``search/search_index.json`` under its root
(sitegen/search_split.py): a page loads only its own language's, and its
results link into its own language.
"""
from __future__ import annotations

import json
import posixpath
import re

import pytest

from .builtsite import LANGS, Site, nav_pages, page_url

CJK = "\u4e00-\u9fff"
#: Where each language's index is, from the site's root.
INDEX_OF = {"en": "search/search_index.json", "zh": "zh/search/search_index.json"}


@pytest.fixture(scope="module")
def indexes(site: Site) -> dict[str, dict]:
    return {lang: json.loads((site.root / path).read_text(encoding="utf-8")) for lang, path in INDEX_OF.items()}


@pytest.fixture(scope="module")
def index(indexes: dict[str, dict]) -> dict:
    """The Chinese index (its separator and config are the English one's too)."""
    return indexes["zh"]


def tokens(index: dict, text: str) -> list[str]:
    """Split as the browser does: Material's search uses the configured separator."""
    text = re.sub(r"<[^>]+>", " ", text)
    return [t for t in re.split(index["config"]["separator"], text) if t]


def test_each_language_has_an_index_of_its_own_pages(indexes: dict[str, dict]):
    """Every page of the nav, in its own language's index only, located relative to that language's root."""
    pages = {page_url(src, "en") for src in nav_pages()}  # '' and 'embeddings/': relative to a language's root
    for lang, index in indexes.items():
        locations = {d["location"].split("#")[0] for d in index["docs"]}
        assert locations == pages, (lang, locations ^ pages)
        titled = {d["location"]: d["title"] for d in index["docs"] if "#" not in d["location"]}
        has_cjk = [bool(re.search(f"[{CJK}]", t)) for t in titled.values()]
        # Page titles: Chinese in the Chinese index (all but names like "keras-bert"), none in the English one.
        assert (sum(has_cjk) > len(has_cjk) // 2) if lang == "zh" else not any(has_cjk), (lang, titled)
    assert indexes["en"]["config"] == indexes["zh"]["config"]
    assert "zh" not in (indexes["zh"]["config"].get("lang") or []), "lunr's zh pipeline needs a segmenter in the browser"


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_loads_its_own_languages_index(site: Site, lang: str):
    """Material fetches search/search_index.json relative to __config.base and resolves results against it."""
    wrong = {}
    for src in nav_pages():
        url = page_url(src, lang)
        html = site.file_for(url).read_text(encoding="utf-8")
        config = json.loads(re.search(r'<script id="__config" type="application/json">(.*?)</script>', html, re.S).group(1))
        found = posixpath.normpath(posixpath.join("/", url, config["base"], "search/search_index.json"))[1:]
        if found != INDEX_OF[lang]:
            wrong[url] = found
    assert wrong == {}


def test_separator_splits_on_zero_width_space(index: dict):
    assert re.split(index["config"]["separator"], "权重\u200b和\u200b偏置") == ["权重", "和", "偏置"]


@pytest.mark.parametrize("word", ["权重", "偏置", "参数量", "层归一化", "前馈网络", "池化层", "词嵌入", "多头自注意力"])
def test_word_from_the_middle_of_a_sentence_is_a_token(index: dict, word: str):
    hits = []
    for doc in index["docs"]:
        toks = tokens(index, doc["text"])
        for i, tok in enumerate(toks):
            # a real mid-sentence hit: Chinese text right before and after it
            if tok == word and 0 < i < len(toks) - 1 and re.search(f"[{CJK}]$", toks[i - 1]) and re.match(f"[{CJK}]", toks[i + 1]):
                hits.append(doc["location"])
    assert hits, f"{word} is never a search term inside a Chinese sentence"


def test_english_pages_are_not_segmented(indexes: dict[str, dict]):
    english = indexes["en"]["docs"]
    assert english and not any("\u200b" in d["text"] for d in english)
