"""The live memory through the step (``costs.timeline``) and the peak rounded to CUDA's 512-byte blocks
(``costs.memory.peak_512``): calculator/costs/peak.py's :func:`downsample`, :func:`optimizer_series`,
:func:`with_timeline`, worked out by hand; and on presets, the timeline's largest value is the peak itself.

The 512-rounded figure is measured in PyTorch by tests/crosscheck/test_peak_engine.py (``LiveBytes`` with
``round_to=512`` and PyTorch's MemTracker); here its arithmetic is derived for AdamW on two parameters.
"""
from __future__ import annotations

from calculator import costs
from calculator.build import build
from calculator.costs.lifetime import LiveSim
from calculator.costs.peak import BLOCK, Item, downsample, optimizer_series, rounded
from calculator.presets import get_preset

from .helpers import patched


def test_rounded_to_cuda_blocks() -> None:
    assert BLOCK == 512
    assert [rounded(n) for n in (0, 1, 4, 511, 512, 513, 1024, 1025)] == [0, 512, 512, 512, 512, 1024, 1024, 1536]


def test_downsample_keeps_all_that_fit() -> None:
    values = [5, 9, 2, 7]
    assert downsample(values, 4) == ((0, 5), (1, 9), (2, 2), (3, 7))
    assert downsample([], 4) == ()


def test_downsample_keeps_first_last_and_maximum() -> None:
    # 12 values into at most 6 points: first and last, then (6 - 2) // 2 = 2 buckets over indices 1..10
    # ([1, 6) and [6, 11)), each giving its smallest and largest.
    values = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8]
    # bucket 1..5: values 1, 4, 1, 5, 9 -> max 9 at 5, min 1 at 1 (the first of the two 1s)
    # bucket 6..10: values 2, 6, 5, 3, 5 -> max 6 at 7, min 2 at 6
    assert downsample(values, 6) == ((0, 3), (1, 1), (5, 9), (6, 2), (7, 6), (11, 8))
    # A maximum at the very end or start is kept as a boundary.
    assert downsample([1] * 20 + [100], 6)[-1] == (20, 100)
    assert downsample([100] + [1] * 20, 6)[0] == (0, 100)


def test_downsample_bounded_and_keeps_the_maximum_on_long_series() -> None:
    for n, limit in ((1000, 240), (241, 240), (10_007, 16), (5, 4)):
        values = [(i * 7919) % 1009 for i in range(n)]
        values[n // 3] = 5000  # the largest, somewhere inside
        points = downsample(values, limit)
        assert len(points) <= limit, (n, limit, len(points))
        assert points[0] == (0, values[0]) and points[-1] == (n - 1, values[-1])
        assert (n // 3, 5000) in points
        indices = [i for i, _ in points]
        assert indices == sorted(set(indices))  # in order, no repeats
        assert all(values[i] == v for i, v in points)


def test_adamw_series_by_hand() -> None:
    # Start: 1,000 bytes of weights and 8 of input_ids; two float32 parameters of 10 and 200 numbers (40 and 800
    # bytes), both trained. Before the step: start + their gradients.
    start = [Item("weights", "a", 40), Item("weights", "b", 800), Item("input_ids", "input_ids", 8)]
    graded = [("a", 10, 4), ("b", 200, 4)]
    base = 848 + 840
    # _init_group: step (4), exp_avg, exp_avg_sq for a, then for b.
    init = [base + 4, base + 44, base + 84, base + 88, base + 888, base + 1688]
    state = base + 1688
    # a: sqrt (40), div (40), no previous denom; b: sqrt (800), div (800), a's denom (40) still bound.
    update = [state + 40, state + 80, state + 40 + 800, state + 40 + 1600]
    assert optimizer_series("adamw", start, graded) == [base] + init + update
    # Rounded to 512: every storage is at least one block.
    r_base = 512 + 1024 + 512 + 512 + 1024
    r_init = [r_base + 512, r_base + 1024, r_base + 1536, r_base + 2048, r_base + 3072, r_base + 4096]
    r_state = r_base + 4096
    r_update = [r_state + 512, r_state + 1024, r_state + 512 + 1024, r_state + 512 + 2048]
    assert optimizer_series("adamw", start, graded, 512) == [r_base] + r_init + r_update
    assert optimizer_series("sgd-momentum", start, graded) == [base, base + 40, base + 840]
    assert optimizer_series("sgd", start, graded) == [base]
    assert optimizer_series("adafactor", start, graded) is None


def test_timeline_maximum_is_the_peak_on_presets() -> None:
    """Every preset step below has an exact peak; its timeline's exact phases reach it and no higher, the bounded
    forward lies below it, and each phase keeps at most the bounded number of points."""
    from calculator.costs.peak import TIMELINE_POINTS

    cases = (("bert-base-uncased", 1, 128, "adamw"), ("bert-base-uncased", 8, 512, "adamw"),
             ("bert-base-uncased", 32, 128, "sgd"), ("roberta-base", 4, 256, "sgd-momentum"),
             ("distilbert-base-uncased", 16, 128, "adamw"), ("albert-base-v2", 8, 128, "adamw"))
    phases_seen = set()
    for preset, b, n, opt in cases:
        c = costs.compute(build(get_preset(preset).config), costs.settings(b, n, optimizer=opt))
        d = c.to_dict()
        peak, timeline = d["memory"]["peak"], d["timeline"]
        assert peak is not None and timeline is not None, preset
        assert [p["phase"] for p in timeline["phases"]] == ["forward", "backward", "optimizer"]
        exact = [p for p in timeline["phases"] if p["exact"]]
        assert max(v for p in exact for _, v in p["points"]) == peak, preset
        assert max(p["max"] for p in exact) == peak
        for p in exact:
            assert len(p["points"]) <= TIMELINE_POINTS and p["points"][0][0] == 0
            assert p["points"][-1][0] == p["events"] - 1
        for p in timeline["phases"]:
            if not p["exact"]:
                assert p["bound"] < peak and "points" not in p
        at = d["peak_at"]["phase"]
        assert max(p["max"] for p in exact if p["phase"] == at) == peak
        phases_seen.add(at)
        # The 512 figure: at least the peak, at most 511 bytes more per storage.
        assert d["memory"]["peak_512"] is not None and d["memory"]["peak_512"] >= peak
        assert d["memory"]["peak_512"] % 512 == 0
    assert phases_seen == {"backward", "optimizer"}


def test_no_timeline_without_a_figure() -> None:
    """BERT-base at B = 32 with Adafactor: no figure (Adafactor's step is not modelled: peak.py), so
    no timeline and no 512 figure (never a chart of something unproven). With AdamW it is replayed: all three, the
    timeline's maximum the peak. (DeBERTa-v3-base with one layer under reentrant checkpointing, the example before,
    is replayed since its nested backward runs the relative LayerNorm, LiveSim.run_by_one_block.)"""
    inv = build(get_preset("bert-base-uncased").config)
    d = costs.compute(inv, costs.settings(32, 128, optimizer="adafactor")).to_dict()
    assert d["memory"]["peak"] is None and d["memory"]["peak_512"] is None and d["timeline"] is None
    d = costs.compute(inv, costs.settings(32, 128, optimizer="adamw")).to_dict()
    assert d["memory"]["peak"] is not None and d["memory"]["peak_512"] >= d["memory"]["peak"]
    assert max(phase["max"] for phase in d["timeline"]["phases"] if "max" in phase) == d["memory"]["peak"]


def test_autocast_fit_says_why_there_is_no_peak() -> None:
    """Under autocast, where the program does not replay the step (declared away here: ModernBERT's one-wide heads, this
    test's example before, are replayed since), there is no peak and no
    bound, so the search proves nothing either way: the answer says why (autocast's cache, the forward not
    replayed), in both languages, once under the two lines; a step whose search proves something (fp32, or BERT
    under autocast, replayed op by op) gets no such line."""
    from calculator.costs.fit import fit
    from calculator.views import costs as cv

    bert = build(get_preset("bert-base-uncased").config)
    mixed = costs.compute(bert, costs.settings(8, 128, autocast="bf16"))
    assert mixed.peak.bytes is not None and cv.unknown_reason(mixed, "en") is None
    exact = fit(bert, mixed.settings, None, 4 * 2**30, mixed.weights)
    assert exact["max_batch"] == exact["max_batch_at_least"] > 0 and exact["batch_does_not_fit"] == exact["max_batch"] + 1
    inv = build({"model_type": "modernbert", "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 768,
                 "intermediate_size": 3072, "vocab_size": 30522, "pad_token_id": 0},  # about BERT-base size,
                "ModernBertModel")
    s = costs.settings(8, 128, autocast="bf16")
    with patched(LiveSim, "exact_autocast", lambda self: None):  # the program's opt-in under autocast declared away
        c = costs.compute(inv, s)
        assert c.peak.bytes is None and c.peak.reason == "autocast"
        found = fit(inv, s, None, 24 * 2**30, c.weights)
    assert found["max_batch_at_least"] == 0 and found["batch_does_not_fit"] is None
    for lang, cache in (("en", "autocast's cache"), ("zh", "autocast 的缓存")):
        lines = cv.fit_lines(found, lang, cv.unknown_reason(c, lang))
        assert len(lines) == 3 and cache in lines[2] and "bf16" in lines[2]
        assert cache in cv.peak_line(c, lang)
        assert "0" not in lines[2].replace("bf16", "")  # never "at least 0"
    plain = costs.compute(bert, costs.settings(8, 128))
    assert cv.unknown_reason(plain, "en") is None
    assert len(cv.fit_lines(fit(bert, plain.settings, None, 24 * 2**30, plain.weights), "en", None)) == 2
