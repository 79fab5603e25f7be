"""The timeline chart of the training-cost panel (calculator/page/timeline.py) and its place in the panel's answer:
drawn from ``costs.timeline`` only, the peak marked at the figure ``costs.memory.peak`` gives, a bounded phase drawn
as a bound, the card's capacity as a line, every figure in the text alternative, both languages."""
from __future__ import annotations

import re

from calculator import api
from calculator.page import timeline as chart


def _panel(lang: str, preset: str = "bert-base-uncased", fields: dict[str, str] | None = None, **keys: str) -> dict:
    req = api.resolve({"preset": preset, **(fields or {})})
    out = api.costs_answer(req, keys, lang)
    assert out["ok"], out
    return out


def test_panel_draws_the_timeline_with_its_peak_and_the_card() -> None:
    for lang in ("en", "zh"):
        out = _panel(lang, batch="8", seq_len="512", gpu_gb="8")
        c = out["costs"]
        peak = c["memory"]["peak"]
        html = out["html"]
        assert 'class="timeline-chart"' in html
        svg = html[html.index('<svg class="timeline-chart"'):]
        svg = svg[:svg.index("</svg>")]
        # The marked peak is the JSON's figure; the card's line is 8 GiB; each exact phase is a line, each bounded
        # one a bound.
        assert f'data-peak="{peak}"' in svg
        assert f'data-budget="{8 * 2**30}"' in svg
        phases = c["timeline"]["phases"]
        bounds = [int(b) for b in re.findall(r'data-bound="(\d+)"', svg)]
        assert bounds == [p["bound"] for p in phases if not p["exact"]]
        assert re.findall(r'<polyline[^>]*data-phase="(\w+)"', svg) == [p["phase"] for p in phases if p["exact"]]
        assert [p["phase"] for p in phases] == ["forward", "backward", "optimizer"]
        desc = re.search(r"<desc[^>]*>(.*?)</desc>", svg).group(1)
        assert f"{peak:,}" in desc and f"{8 * 2**30:,}" in desc
        for p in phases:
            assert f"{p['max'] if p['exact'] else p['bound']:,}" in desc
        assert chart.word("note", lang) in html
    en, zh = (_panel(lang, batch="8", seq_len="512")["html"] for lang in ("en", "zh"))
    assert "backward" in en and "反向" in zh and "反向" not in en


def test_card_far_above_the_step_is_a_note_not_a_squashed_chart() -> None:
    out = _panel("en", batch="1", seq_len="128", gpu_gb="80")
    svg = out["html"][out["html"].index('<svg class="timeline-chart"'):]
    assert "above the chart" in svg[:svg.index("</svg>")]


def test_no_timeline_no_chart() -> None:
    """BERT-base at B = 32 with Adafactor: no exact peak (costs.timeline null), so no chart; with AdamW, one."""
    out = _panel("en", batch="32", seq_len="128", optimizer="adafactor")
    assert out["costs"]["timeline"] is None and "timeline-chart" not in out["html"]
    out = _panel("en", batch="32", seq_len="128", optimizer="adamw")
    assert out["costs"]["timeline"] is not None and "timeline-chart" in out["html"]


def test_chart_escapes_and_draws_a_bounded_backward() -> None:
    """A timeline whose backward is only bounded (the optimizer-step peak of :func:`calculator.costs.peak.step_peak`)
    draws two bounds and one line; the words go through the escaping builder."""
    timeline = {"peak": 1000, "peak_512": None, "phases": [
        {"phase": "forward", "exact": False, "bound": 700},
        {"phase": "backward", "exact": False, "bound": 700},
        {"phase": "optimizer", "exact": True, "max": 1000, "events": 3, "points": [[0, 600], [1, 1000], [2, 900]]}]}
    svg = chart.timeline_svg(timeline, "en", None)
    assert svg.count('data-bound="700"') == 2 and svg.count("<polyline") == 1 and 'data-peak="1000"' in svg
    assert "data-budget" not in svg
    saved = chart.WORDS["title"]
    try:
        chart.WORDS["title"] = {"en": "<script>x</script>", "zh": "x"}
        assert "<script>" not in chart.timeline_svg(timeline, "en", 1)
    finally:
        chart.WORDS["title"] = saved


def test_panel_shows_the_512_figure_beside_the_peak() -> None:
    """Issue 35: the peak's paragraph carries the 512-rounded figure (data-peak-512) and says it, both languages."""
    for lang, words in (("en", "512-byte block"), ("zh", "512 字节块")):
        out = _panel(lang, batch="1", seq_len="128")
        figure = out["costs"]["memory"]["peak_512"]
        assert figure is not None and figure > out["costs"]["memory"]["peak"]
        assert f'data-peak-512="{figure}"' in out["html"] and words in out["peak"]["line"]
        assert (f"{figure:,}") in out["peak"]["line"]
