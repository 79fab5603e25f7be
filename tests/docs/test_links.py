"""Every link and asset reference on every page resolves inside the built site, anchors included;
the primary sources the pages cite are linked, in both languages.

External links are plain links, never loads (tests/docs/test_build.py and
tests/quality/test_links.py check that nothing comes from another host).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from .builtsite import LANGS, ROOT, Site, nav_pages, page_url, parse

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


# ------------------------------------------------------------ primary sources
LINKS_SNIPPET = ROOT / "docs_src" / "links.md"
_REF = re.compile(r"^\[([\w-]+)\]: (\S+)$", re.M)

#: The sources each page cites, by a part of their URL; both languages link them (issue 12, item 4).
CITED = {
    "index.md": ["arxiv.org/abs/1810.04805", "models/bert/modeling_bert.py"],
    "embeddings.md": ["arxiv.org/abs/1706.03762", "google-research/bert/blob/", "models/bert/modeling_bert.py"],
    "self-attention.md": ["arxiv.org/abs/1706.03762"],
    "pooler-and-heads.md": ["models/bert/modeling_bert.py"],
    "bert-large.md": ["arxiv.org/abs/1810.04805", "google-research/bert/issues/656"],
    "other-encoders.md": [
        "models/roberta/modeling_roberta.py", "models/distilbert/modeling_distilbert.py",
        "models/albert/modeling_albert.py", "models/electra/modeling_electra.py", "ymcui/Chinese-BERT-wwm",
    ],
    "original-transformer.md": [
        "google-research/bert/issues/656", "arxiv.org/abs/1706.03762", "attention-is-all-you-need-pytorch",
    ],
    "keras-summary.md": ["stats.stackexchange.com/questions/435318/", "CyberZHG/keras-bert"],
    "active-parameters.md": ["arxiv.org/abs/2311.10770"],
    "common-mistakes.md": ["google-research/bert/issues/656"],
    "check-it-yourself.md": ["stats.stackexchange.com/questions/435318/"],
    "why-tools-disagree.md": ["transformers/modeling_utils.py", "TylerYep/torchinfo"],
    "training-step.md": ["torch/utils/flop_counter.py", "native_functions.yaml", "scaled_dot_product_attention"],
    "why-costs-disagree.md": [
        "accelerate/usage_guides/model_size_estimator", "accelerate/commands/estimate.py", "fvcore/nn/flop_count.py",
        "flops_profiler/profiler.py", "calculate-flops.pytorch", "pytorch-OpCounter", "arxiv.org/abs/2001.08361",
    ],
    "fine-tuning.md": ["arxiv.org/abs/2106.09685", "peft/blob/v0.21.2/src/peft/peft_model.py", "huggingface/peft/issues/801"],
    "new-families.md": [
        "models/mobilebert/modeling_mobilebert.py", "models/squeezebert/modeling_squeezebert.py",
        "models/convbert/modeling_convbert.py", "models/funnel/modeling_funnel.py", "models/rembert/modeling_rembert.py",
        "models/longformer/modeling_longformer.py", "models/xmod/modeling_xmod.py", "models/roformer/modeling_roformer.py",
        "models/esm/modeling_esm.py", "models/nomic_bert/modeling_nomic_bert.py",
        "models/megatron_bert/modeling_megatron_bert.py", "models/xlm_roberta_xl/modeling_xlm_roberta_xl.py",
    ],
    "encoders-today.md": [
        "arxiv.org/abs/1911.02116", "arxiv.org/abs/2111.09543", "arxiv.org/abs/2412.13663",
        "models/xlm_roberta/modeling_xlm_roberta.py", "models/deberta_v2/modeling_deberta_v2.py",
        "models/modernbert/modeling_modernbert.py", "models/ernie/modeling_ernie.py", "models/mpnet/modeling_mpnet.py",
    ],
}


def _references() -> dict[str, str]:
    return dict(_REF.findall(LINKS_SNIPPET.read_text(encoding="utf-8")))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("src", sorted(CITED))
def test_cited_sources_are_linked(site: Site, src: str, lang: str):
    links = site.page(src, lang).links
    missing = [part for part in CITED[src] if not any(part in href for href in links)]
    assert missing == []


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("src", PAGES)
def test_no_reference_link_left_unresolved(site: Site, src: str, lang: str):
    """A page that uses [text][ref] must include links.md, or the brackets show up as text."""
    assert re.findall(r"\]\[[\w-]+\]", site.page(src, lang).text) == []


def test_external_links_are_https_and_used():
    refs = _references()
    assert len(refs) >= 10
    sources = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))
    for name, url in refs.items():
        if name == "//":
            continue
        assert url.startswith("https://"), url
        assert f"][{name}]" in sources, f"[{name}] is defined in links.md but no page uses it"


def _pinned_transformers() -> str:
    text = (ROOT / "requirements" / "test.txt").read_text(encoding="utf-8")
    return re.search(r"^transformers==([\w.]+)", text, re.M).group(1)


def test_transformers_links_pin_the_tested_version():
    """The source links name the tag of the transformers the cross-check tests run, and the files exist in it."""
    urls = [u for u in _references().values() if "github.com/huggingface/transformers/" in u]
    assert urls
    version = _pinned_transformers()
    for url in urls:
        m = re.fullmatch(r"https://github.com/huggingface/transformers/blob/([^/]+)/src/(transformers/.+\.py)", url)
        assert m, url
        assert m.group(1) == f"v{version}", url
    transformers = pytest.importorskip("transformers")
    assert transformers.__version__ == version
    site_packages = Path(transformers.__file__).resolve().parent.parent
    for url in urls:
        path = url.split("/src/", 1)[1]
        assert (site_packages / path).is_file(), f"{path} is not in transformers {version}"
