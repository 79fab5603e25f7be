"""Chinese search: the index is segmented by jieba, so words inside a sentence are search terms."""
from __future__ import annotations

import json
import re

import pytest

from .builtsite import Site

CJK = "\u4e00-\u9fff"


@pytest.fixture(scope="module")
def index(site: Site) -> dict:
    return json.loads((site.root / "search" / "search_index.json").read_text(encoding="utf-8"))


def tokens(index: dict, text: str) -> list[str]:
    """Split as the browser does: Material's search uses the configured separator."""
    text = re.sub(r"<[^>]+>", " ", text)
    return [t for t in re.split(index["config"]["separator"], text) if t]


def zh_docs(index: dict) -> list[dict]:
    return [d for d in index["docs"] if d["location"].startswith("zh/")]


def test_index_has_both_languages(index: dict):
    locations = {d["location"].split("#")[0] for d in index["docs"]}
    assert "" in locations and "zh/" in locations
    assert "zh" not in (index["config"].get("lang") or []), "lunr's zh pipeline needs a segmenter in the browser"


def test_separator_splits_on_zero_width_space(index: dict):
    assert re.split(index["config"]["separator"], "权重\u200b和\u200b偏置") == ["权重", "和", "偏置"]


@pytest.mark.parametrize("word", ["权重", "偏置", "参数量", "层归一化", "前馈网络", "池化层", "词嵌入", "多头自注意力"])
def test_word_from_the_middle_of_a_sentence_is_a_token(index: dict, word: str):
    hits = []
    for doc in zh_docs(index):
        toks = tokens(index, doc["text"])
        for i, tok in enumerate(toks):
            # a real mid-sentence hit: Chinese text right before and after it
            if tok == word and 0 < i < len(toks) - 1 and re.search(f"[{CJK}]$", toks[i - 1]) and re.match(f"[{CJK}]", toks[i + 1]):
                hits.append(doc["location"])
    assert hits, f"{word} is never a search term inside a Chinese sentence"


def test_english_pages_are_not_segmented(index: dict):
    english = [d for d in index["docs"] if not d["location"].startswith("zh/")]
    assert english and not any("\u200b" in d["text"] for d in english)
