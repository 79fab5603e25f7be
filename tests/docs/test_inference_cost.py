"""The "Inference cost" page (issue 32 item 4) and the timeline section of "What fits" show the CLI's figures.

Expected values come from the command line as a reader runs it (``--inference --format json`` for one forward at
B and one at N mod B; ``--format json`` for the training step's ``costs.timeline`` and ``peak_512``), never from
the site's hooks; the total over N passages is added up here from the CLI's per-forward figures.
"""
from __future__ import annotations

import re

import pytest

from .builtsite import LANGS, Site, page_url
from .test_what_fits import BGE, BGE_LEN, cli, fmt

N, B, L = 10000, 32, 512
MODELS = ("bert-base-uncased", BGE)


@pytest.mark.parametrize("lang", LANGS)
def test_embedding_table_is_the_clis(site: Site, lang: str):
    page = site.page("inference-cost.md", lang)
    rows = [t for t in page.tables if len(t) == 3 and t[1][0] == "bert-base-uncased"]
    assert len(rows) == 1, [t[:2] for t in page.tables]
    for row, preset in zip(rows[0][1:], MODELS):
        status, one, _ = cli("--preset", preset, "--batch", str(B), "--seq-len", str(L), "--inference",
                                  "--attention", "eager")
        status_rest, rest, _ = cli("--preset", preset, "--batch", str(N % B), "--seq-len", str(L), "--inference",
                                        "--attention", "eager")
        assert status == status_rest == 0
        total = (N // B) * one["flops"]["forward"] + rest["flops"]["forward"]
        peak = one["memory"]["peak"]
        assert row[:6] == [preset, fmt(N // B + 1), fmt(one["flops"]["forward"]), fmt(total),
                           fmt(peak) if peak is not None else row[4], fmt(one["memory"]["weights"])], (preset, row)
        assert peak is not None or fmt(one["peak_note"]["lower"]) in row[4]
        # The estimate at the panel's default 100 TFLOPS, in seconds with three significant figures.
        seconds = total / 100e12
        assert row[6].startswith(f"{seconds:.3g}") or "min" in row[6] or "分钟" in row[6], row[6]
    assert {"en": "estimate", "zh": "估算"}[lang] in page.text


@pytest.mark.parametrize("lang", LANGS)
def test_what_fits_timeline_is_the_clis(site: Site, lang: str):
    page = site.page("what-fits.md", lang)
    status, costs, _ = cli("--preset", BGE, "--batch", "16", "--seq-len", str(BGE_LEN), "--attention", "eager")
    assert status == 0 and costs["timeline"] is not None
    forward = costs["timeline"]["phases"][0]
    for figure in (costs["memory"]["peak"], costs["memory"]["peak_512"], forward.get("max", forward.get("bound"))):
        assert fmt(figure) in page.text, figure
    html = site.file_for(page_url("what-fits.md", lang)).read_text(encoding="utf-8")
    svg = re.search(r'<svg class="timeline-chart".*?</svg>', html, re.S)
    assert svg and f'data-peak="{costs["memory"]["peak"]}"' in svg.group(0)
    assert f'data-budget="{80 * 2**30}"' in svg.group(0)
