"""The panel's "fits in N GB?" by the peak (issue 32 item 3): one verdict, from the exact peak or its proven bounds;
the peak's phase and largest items; the largest batch and length that fit, searched only when asked.

Standard library only, no fixtures: this file also runs inside Pyodide. The verdict's arithmetic is worked out
here by hand on made-up bounds; the peak of bert-base at B = 1, L = 128 (1,939,253,020 bytes) is derived by hand
in tests/unit/test_peak.py and measured in PyTorch by the cross-check.
"""
import json
import re

from calculator import api
from calculator.costs.peak import Peak
from calculator.views import costs as cv

GIB = 1_073_741_824  # 2**30, written out
#: bert-base-uncased, B = 1, L = 128, AdamW fp32: the peak derived in tests/unit/test_peak.py.
BERT_B1_PEAK = 1_939_253_020
#: BertModel's word embeddings, float32: 30522 · 768 · 4 bytes.
WORD_EMBEDDINGS = 30522 * 768 * 4
#: bert-large-uncased's BertModel: 335,141,888 parameters (the published 335M), float32.
BERT_LARGE_WEIGHTS = 335_141_888 * 4


def _answer(costs, params=None, lang="en"):
    request = {"params": params or {"preset": "bert-base-uncased"}, "costs": costs}
    out = json.loads(api.compute_json(json.dumps(request), lang))
    assert out["ok"], out
    return out["costs"]


def test_bounds_give_a_verdict_only_where_they_prove_one():
    """Lower 10 GiB, upper 20 GiB: a 24 GB card holds even the upper bound (fits, 4 GiB to spare); an 8 GB card
    is below the lower bound (does not fit, 2 GiB short); 16 GB lies between them (not known). An upper bound
    equal to the card fits; a lower bound equal to it does not prove "does not fit"."""
    bounds = (10 * GIB, 20 * GIB)
    verdict, lines = cv.fits(5 * GIB, 24, "en", bounds=bounds)
    assert verdict == "fits"
    assert lines[0] == ("The exact peak is not worked out for this step, but it is at most 20.00 GiB (21,474,836,480 "
                        "bytes), 4.00 GiB below 24 GB (25,769,803,776 bytes): the step fits, as PyTorch counts live "
                        "tensors.")
    # The margin the peak leaves out, on the upper bound: 1.3 GiB (rounded down) + 10% of 20 GiB = 3.30 GiB < 4.
    assert "about 3.30 GiB" in lines[1] and "may still run out" not in lines[1]
    verdict, lines = cv.fits(5 * GIB, 8, "en", bounds=bounds)
    assert verdict == "does_not_fit"
    assert lines == ["The exact peak is not worked out for this step, but it is at least 10.00 GiB (10,737,418,240 "
                     "bytes), 2.00 GiB above 8 GB (8,589,934,592 bytes): the step does not fit."]
    verdict, lines = cv.fits(5 * GIB, 16, "en", bounds=bounds)
    assert verdict == "unknown" and len(lines) == 1
    assert "between 10.00 GiB and 20.00 GiB" in lines[0] and "16 GB (17,179,869,184 bytes)" in lines[0]
    assert "not known yet" in lines[0]
    assert cv.fits(5 * GIB, 20, "en", bounds=bounds)[0] == "fits"  # upper == capacity
    assert cv.fits(5 * GIB, 10, "en", bounds=bounds)[0] == "unknown"  # lower == capacity: not proven over
    # No upper bound known (the optimizer step's live set alone): "fits" is never said, "does not fit" still can be.
    assert cv.fits(5 * GIB, 24, "en", bounds=(10 * GIB, None))[0] == "unknown"
    assert "and not known" in cv.fits(5 * GIB, 24, "en", bounds=(10 * GIB, None))[1][0]
    assert cv.fits(5 * GIB, 8, "en", bounds=(10 * GIB, None))[0] == "does_not_fit"
    # Chinese: the same verdicts, worded in Chinese, the same figures.
    for gpu, verdict, words in ((24, "fits", "放得下"), (8, "does_not_fit", "放不下"), (16, "unknown", "还不知道")):
        v, lines = cv.fits(5 * GIB, gpu, "zh", bounds=bounds)
        assert v == verdict and words in lines[0] and re.search(r"[\u4e00-\u9fff]", lines[0]), (gpu, lines)
    # The exact peak wins over bounds; without either, the sum's lines (never "fits").
    assert cv.fits(5 * GIB, 24, "en", peak=30 * GIB, bounds=bounds)[0] == "does_not_fit"
    assert cv.fits(5 * GIB, 24, "en")[0] == "under"


def test_peak_bounds_of_a_peak():
    assert cv.peak_bounds(None) is None
    assert cv.peak_bounds(Peak(123, "optimizer", lower=123, upper=123)) == (123, 123)
    assert cv.peak_bounds(Peak(None, note="peak_not_modelled", lower=7, upper=9)) == (7, 9)
    assert cv.peak_bounds(Peak(None, note="peak_not_modelled", lower=7, upper=None)) == (7, None)
    assert cv.peak_bounds(Peak(None, note="peak_not_modelled")) is None  # nothing proven: the sum's lines


def test_the_panel_shows_the_peak_its_phase_and_largest_items():
    c = _answer({"batch": "1", "seq_len": "128", "gpu_gb": "2"})
    assert c["peak"]["bytes"] == BERT_B1_PEAK and c["peak"]["at"]["phase"] == "optimizer"
    html = c["html"]
    assert f'data-peak="{BERT_B1_PEAK}"' in html and 'data-phase="optimizer"' in html
    # 2 GiB = 2,147,483,648 bytes holds the peak, 208,230,628 bytes (198.6 MiB) to spare: fits.
    assert c["fits"] == "fits" and "198.6 MiB below 2 GB" in html
    # The largest items live at the peak: the word embeddings' tensors, 30522 · 768 · 4 bytes each.
    items = re.findall(r'data-peak-item="([a-z_]+)" data-bytes="(\d+)"', html)
    assert len(items) == 6 and all(int(b) == WORD_EMBEDDINGS for _, b in items), items
    assert {k for k, _ in items} >= {"exp_avg", "exp_avg_sq", "gradient", "temporary"}
    assert "Largest live at the peak" in html and "largest live then" in c["markdown"]
    zh = _answer({"batch": "1", "seq_len": "128", "gpu_gb": "2"}, lang="zh")["html"]
    assert "显存峰值" in zh and "峰值时刻最大的几项" in zh and "优化器更新阶段" in zh


def test_the_panel_shows_the_bounds_where_the_peak_is_not_exact():
    """A step whose peak has no figure, only proven bounds (made up here, so the test does not depend on which
    steps the engine has worked out yet): the CLI's sentence gives them, the panel's markup carries them, the
    verdict is theirs, and no items are listed."""
    from dataclasses import replace

    from calculator import costs
    from calculator.build import build
    from calculator.page import costs as panel
    from calculator.presets import get_preset

    step = costs.compute(build(get_preset("bert-base-uncased").config), costs.settings(1, 128))
    lower, upper = 3 * GIB, 30 * GIB
    c = replace(step, peak=Peak(None, note="peak_not_modelled", reason="forward or backward", bound=upper,
                                lower=lower, upper=upper))
    line = cv.peak_line(c, "en")
    assert line.endswith("Proven bounds: 3.00 GiB (3,221,225,472 bytes) ≤ peak ≤ 30.00 GiB (32,212,254,720 bytes).")
    assert cv.peak_line(c, "zh").endswith("已证明的范围：3.00 GiB（3,221,225,472 字节）≤ 峰值 ≤ 30.00 GiB（32,212,254,720 字节）。")
    only_lower = replace(c, peak=Peak(None, note="peak_not_modelled", reason="sgd", lower=lower, upper=None))
    assert cv.peak_line(only_lower, "en").endswith("≤ peak ≤ not known.")
    d = cv.peak_dict(c, "en")
    assert (d["bytes"], d["lower"], d["upper"], d["at"], d["line"]) == (None, lower, upper, None, line)
    html = str(panel._peak(d, "en"))
    assert 'data-peak=""' in html and f'data-lower="{lower}"' in html and f'data-upper="{upper}"' in html
    assert "data-peak-item" not in html and "Proven bounds" in html
    # One verdict: 24 GB lies between 3 and 30 GiB (not known), 40 GB holds 30 GiB (fits), 2 GB is below 3 (not).
    for gpu, verdict in ((24, "unknown"), (40, "fits"), (2, "does_not_fit")):
        assert cv.step_fits(c, gpu, "en")[0] == verdict, gpu
        text = cv.render(c, "en", markdown=True, gpu=gpu)
        assert cv.step_fits(c, gpu, "en")[1][0] in text and "Proven bounds" in text


def test_the_search_runs_only_when_asked_and_is_in_the_link_and_the_copy():
    plain = _answer({"batch": "1", "seq_len": "128", "gpu_gb": "1"})
    assert plain["fit"] is None and not plain["fit_asked"] and "calc-costs-search" not in plain["html"]
    assert "fit" not in plain["query"] and "--fit-gib" not in plain["markdown"]
    for lang, none in (("en", "none (even 1 does not fit)"), ("zh", "没有（1 也放不下）")):
        c = _answer({"batch": "1", "seq_len": "128", "gpu_gb": "1", "fit": "1"}, lang=lang)
        # 1 GiB is less than the optimizer step's live set at any B and L: the weights, their gradients and
        # AdamW's two moments alone are 4 · 437,928,960 = 1,751,715,840 bytes. Nothing fits: exactly 0.
        assert c["fit"]["max_batch"] == 0 and c["fit"]["max_seq_len"] == 0 and c["fit"]["budget"] == GIB
        assert c["query"]["fit"] == "1"
        assert len(c["search_lines"]) == 2 and all(none in line for line in c["search_lines"])
        assert all(line in c["markdown"] for line in c["search_lines"])
        assert "--gpu-gb 1 --fit-gib 1" in c["markdown"]
        assert 'data-max-batch="0"' in c["html"] and 'data-max-seq-len="0"' in c["html"]
    # A card smaller than the weights: no search, a sentence (bert-large: 1,340,567,552 bytes > 1 GiB).
    c = _answer({"batch": "1", "seq_len": "128", "gpu_gb": "1", "fit": "1"}, {"preset": "bert-large-uncased"})
    assert c["costs"]["memory"]["weights"] == BERT_LARGE_WEIGHTS
    assert c["fit"] is None and c["search_lines"] == [
        "Largest batch and length that fit in 1 GB: none: the weights alone, 1.25 GiB, are more than the card holds."]
    zh = _answer({"batch": "1", "seq_len": "128", "gpu_gb": "1", "fit": "1"}, {"preset": "bert-large-uncased"}, "zh")
    assert zh["search_lines"][0].startswith("1 GB 放得下的最大批大小和序列长度：没有")


def test_the_search_is_left_to_the_cli_for_deep_models():
    """65 layers (or 33 under checkpointing, each run twice) pass MAX_FIT_PASSES = 64: a sentence, no search."""
    assert cv.MAX_FIT_PASSES == 64
    for layers, ckpt in (("65", "0"), ("33", "1")):
        c = _answer({"batch": "1", "seq_len": "8", "fit": "1", "ckpt": ckpt},
                    {"preset": "bert-base-uncased", "num_hidden_layers": layers})
        assert c["fit"] is None and f"({layers} layers" in c["search_lines"][0], c["search_lines"]
        assert "--fit-gib 24" in c["search_lines"][0] and "--fit-gib 24" in c["markdown"]
        assert ("under gradient checkpointing" in c["search_lines"][0]) == (ckpt == "1")


def test_a_wrong_value_of_the_box_is_an_error_beside_it():
    for lang in ("en", "zh"):
        out = json.loads(api.compute_json(json.dumps(
            {"params": {"preset": "bert-base-uncased"}, "costs": {"batch": "1", "seq_len": "8", "fit": "maybe"}}), lang))
        c = out["costs"]
        assert not c["ok"] and c["error"]["code"] == "not_boolean" and c["error"]["field"] == "fit", c["error"]
