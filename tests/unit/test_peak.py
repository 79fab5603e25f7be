"""The peak of live memory (calculator/costs/peak.py) worked out by hand for bert-base, B = 1, L = 128.

The figure is derived here from the architecture alone (H = 768, I = 3072, 12 layers, V = 30522,
P = 512, T = 2) and PyTorch's CPU AdamW (for-loop: state made for every parameter first, then one
parameter at a time, ``denom = (exp_avg_sq.sqrt() / c).add_(eps)``). The cross-check measures it once
in PyTorch (tests/crosscheck/test_peak_engine.py::test_bert_base_b1_l128_figure: 1,939,253,020 bytes,
optimizer, ``aten.div``) and every family the peak covers on random configs.
"""
from __future__ import annotations

from typing import Any

from calculator import costs
from calculator.build import build
from calculator.costs.peak import Item, optimizer_peak
from calculator.presets import get_preset

from .helpers import patched

F32, INT64 = 4, 8
V, H, I, P, T, LAYERS = 30522, 768, 3072, 512, 2, 12


def bert_base():
    return build(get_preset("bert-base-uncased").config)


def test_bert_base_b1_l128_peak_by_hand() -> None:
    embeddings = V * H + P * H + T * H + 2 * H  # word, position, token type, LayerNorm
    layer = 4 * (H * H + H) + 2 * (2 * H) + (H * I + I) + (I * H + H)  # q, k, v, o; two LayerNorms; feed-forward
    pooler = H * H + H
    params = embeddings + LAYERS * layer + pooler
    assert params == 109_482_240
    tensors = 5 + 16 * LAYERS + 2  # every weight and bias: 199, each with a 4-byte float32 ``step``
    weights = params * F32
    start = weights + 2 * (1 * P * INT64) + 1 * 128 * INT64  # position_ids, token_type_ids [1, 512]; input_ids [1, 128]
    gradients = weights  # every parameter gets one .grad, its own size
    state = 2 * weights + tensors * F32  # exp_avg, exp_avg_sq, step
    # The update's temporaries: the word embeddings come first in model.parameters(), no denom before them;
    # their sqrt and division live together: 2 · V · H · 4. Every later parameter is far smaller.
    temporaries = 2 * V * H * F32
    expected = start + gradients + state + temporaries
    assert expected == 1_939_253_020
    peak = costs.compute(bert_base(), costs.settings(1, 128)).peak
    assert (peak.bytes, peak.phase, peak.op, peak.module) == (expected, "optimizer", "aten.div",
                                                               "embeddings.word_embeddings.weight")
    assert peak.by_kind == {"weights": weights, "buffer": 2 * P * INT64, "input_ids": 128 * INT64,
                            "gradient": gradients, "step": tensors * F32, "exp_avg": weights, "exp_avg_sq": weights,
                            "temporary": temporaries}
    assert peak.items[0].bytes == V * H * F32 and len(peak.items) == 6
    # The bound on the forward and the backward lies below: that is what makes the figure the peak.
    assert 0 < peak.bound < expected


def test_reentrant_checkpointing_figure() -> None:
    """B = 32 with reentrant gradient checkpointing, replayed op by op (each layer's ``CheckpointFunctionBackward``
    runs the layer again with a graph, then a backward through it): the peak is the optimizer step's, the B = 1
    figure with input_ids 32·128·8 bytes instead of 1·128·8 (31 · 1,024 more), as PyTorch measures it
    (LiveBytes on fake tensors: 1,939,284,764 bytes, optimizer, ``aten.div``); the backward lies below."""
    c = costs.compute(bert_base(), costs.settings(32, 128, checkpointing="reentrant"))
    assert (c.peak.bytes, c.peak.phase, c.peak.op) == (1_939_253_020 + 31 * 1024, "optimizer", "aten.div")
    d = c.to_dict()
    assert d["memory"]["peak"] == c.peak.bytes and d.get("peak_note") is None


def unreplayed_one_layer_deberta_v3(s: Any) -> Any:
    """DeBERTa-v3-base with one layer: under reentrant checkpointing its relative LayerNorm, computed once before the
    layers and read by the layer, is run by that layer's nested backward too, outside the block. The engine replays
    that (``LiveSim.run_by_one_block``, proven by tests/crosscheck/test_peak_engine.py); here it is declared away, so
    the block's graph reaches outside it and the step is not replayed: a stand-in for any step the engine cannot
    replay (every real one is some family's open gap, closed sooner or later)."""
    from calculator.costs.lifetime import LiveSim

    config = dict(get_preset("microsoft/deberta-v3-base").config, num_hidden_layers=1)
    with patched(LiveSim, "run_by_one_block", lambda self, t: None):
        return costs.compute(build(config), s)


def test_unreplayed_checkpointing_keeps_its_bounds() -> None:
    """A reentrant checkpointed step the engine does not replay (:func:`unreplayed_one_layer_deberta_v3`): no figure, the proven
    interval only: the optimizer step's live set below, the bound on the forward and the backward above."""
    c = unreplayed_one_layer_deberta_v3(costs.settings(32, 128, checkpointing="reentrant"))
    assert c.peak.bytes is None and c.peak.note == "peak_not_modelled" and c.peak.bound > 0
    d = c.to_dict()
    assert d["memory"]["peak"] is None and d["peak_at"] is None and d["peak_note"]["code"] == "peak_not_modelled"
    assert 0 < d["peak_note"]["lower"] < d["peak_note"]["upper"] == c.peak.bound


def test_adamw_temporaries_follow_the_previous_denom() -> None:
    """Three parameters of 10, 100 and 60 float32 numbers: at parameter i, denom of i − 1 and two copies of i.
    i = 0: 0 + 2·40 = 80; i = 1: 40 + 2·400 = 840; i = 2: 400 + 2·240 = 880, the largest."""
    graded = [("a", 10, F32), ("b", 100, F32), ("c", 60, F32)]
    start = [Item("weights", name, n * size) for name, n, size in graded]
    peak = optimizer_peak("adamw", start, graded)
    weights = 170 * F32
    assert peak.bytes == weights + weights + (2 * weights + 3 * F32) + 880
    assert (peak.module, peak.op) == ("c", "aten.div")


def test_sgd_momentum_and_sgd() -> None:
    """SGD with momentum: every momentum buffer a clone of its gradient, the last clone the peak; plain SGD
    allocates nothing in its step, so its peak is before it (no figure)."""
    graded = [("a", 10, F32), ("b", 20, F32)]
    start = [Item("weights", name, n * size) for name, n, size in graded]
    assert optimizer_peak("sgd-momentum", start, graded).bytes == 3 * 30 * F32
    assert optimizer_peak("sgd", start, graded).bytes is None
    assert optimizer_peak("adafactor", start, graded).bytes is None


def test_fit_search_by_hand() -> None:
    """The search over proven bounds: with lower = upper = 10·n and a budget of 55, n = 5 fits and 6 does not:
    exactly 5. With lower 10·n, upper 20·n and a budget of 100: 5 is proven to fit (20·5 = 100), 11 proven not
    to (10·11 > 100), 6 to 10 not known: no exact answer."""
    from calculator.costs.fit import _search

    assert _search(lambda n: (10 * n, 10 * n), 55, 1000) == (5, 5, 6)
    assert _search(lambda n: (10 * n, 20 * n), 100, 1000) == (None, 5, 11)
    assert _search(lambda n: (10 * n, 10 * n), 5, 1000) == (0, 0, 1)  # not even 1
    assert _search(lambda n: (n, n), 10**9, 512) == (512, 512, None)  # every length up to the table's fits


def test_fit_search_finds_the_edge_a_scan_finds() -> None:
    """The guided search (regula falsi on the bounds, doubling and bisection as safe steps) against a plain scan
    of every n, on drawn non-decreasing bounds: linear, quadratic, stepped, flat then steep, refused past a length
    (None), the upper bound unknown past some n, and budgets below, at and above each value. Each answer is the
    scan's; the same edge as doubling then bisection find, however few steps it asks."""
    import random

    from calculator.costs.fit import _largest, _search

    rng = random.Random(20261129)
    for _ in range(150):
        limit = rng.choice([1, 2, 7, 64, 300])
        a, b, c = rng.randint(0, 10**6), rng.randint(0, 10**4), rng.choice([0, 0, rng.randint(0, 50)])
        steps = [rng.choice([0, 0, 1, rng.randint(1, 10**5)]) for _ in range(limit + 2)]
        refused = rng.choice([None, rng.randint(1, limit + 1)])
        unknown = rng.choice([None, rng.randint(1, limit + 1)])
        spread = rng.choice([1, 1, 2])
        lows = [a + b * n + c * n * n + sum(steps[:n]) for n in range(limit + 2)]

        def bounds(n: int, lows=lows, refused=refused, unknown=unknown, spread=spread):
            if refused is not None and n >= refused:
                return None
            return lows[n], None if unknown is not None and n >= unknown else lows[n] * spread

        for budget in {rng.randint(0, lows[-1] * 2 + 1), lows[rng.randint(0, limit + 1)], lows[-1] * 3}:
            def scan(ok, limit=limit):
                n = 0
                while n < limit and ok(n + 1):
                    n += 1
                return n

            def fits(n: int, budget=budget, bounds=bounds) -> bool:
                x = bounds(n)
                return x is not None and x[1] is not None and x[1] <= budget

            def may_fit(n: int, budget=budget, bounds=bounds) -> bool:
                x = bounds(n)
                return x is not None and x[0] <= budget

            def upper(n: int, bounds=bounds):
                x = bounds(n)
                return None if x is None else x[1]

            def lower(n: int, bounds=bounds):
                x = bounds(n)
                return None if x is None else x[0]

            where = (limit, a, b, c, refused, unknown, spread, budget)
            assert _largest(fits, limit, upper, budget) == scan(fits) == _largest(fits, limit), where
            assert _largest(may_fit, limit, lower, budget) == scan(may_fit) == _largest(may_fit, limit), where
            proven, possible = scan(fits), scan(may_fit)
            beyond = None if possible >= limit or bounds(possible + 1) is None else possible + 1
            exact = proven if proven == possible and (beyond is not None or possible >= limit) else None
            assert _search(bounds, budget, limit) == (exact, proven, beyond), where


def test_fit_budget_errors() -> None:
    from calculator.costs.fit import budget_bytes, fit
    from calculator.errors import CalcError

    assert budget_bytes("1.5") == 3 * 2**29 and budget_bytes(2) == 2**31
    for bad in ("0", "-1", "x", "nan", "inf"):
        try:
            budget_bytes(bad)
        except CalcError as exc:
            assert exc.code == "peak_budget" and exc.message("zh")
        else:
            raise AssertionError(bad)
    inv = bert_base()
    s = costs.settings(1, 128)
    try:
        fit(inv, s, None, 2**28, 437_928_960)  # 256 MiB < the weights' 437,928,960 bytes
    except CalcError as exc:
        assert exc.code == "peak_budget_below_weights"
    else:
        raise AssertionError("a budget below the weights must be refused")
    # 1.8 GiB = 1,932,735,283 bytes < 1,939,253,020, the peak at B = 1 (worked out above): nothing fits.
    assert fit(inv, s, None, budget_bytes("1.8"), 437_928_960)["max_batch"] == 0


def _cli(*argv: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from calculator import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_cli_peak_and_fit() -> None:
    import json

    code, out, err = _cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "128", "--fit-gib", "1.8",
                          "--gpu-gb", "2", "--format", "json")
    assert code == 0 and err == ""
    c = json.loads(out)["costs"]
    assert c["memory"]["peak"] == 1_939_253_020 and c["peak_at"]["phase"] == "optimizer" and c["fits"] == "fits"
    # 1.8 GiB = 1,932,735,283 bytes (rounded down) is below the peak at B = 1 and L = 1 alike: nothing fits.
    assert c["fit"]["budget"] == 1_932_735_283 and c["fit"]["max_batch"] == 0 and c["fit"]["max_seq_len"] == 0
    for lang, words in (("en", ("Peak of live memory: 1.81 GiB (1,939,253,020 bytes)", "Largest batch at L = 128")),
                        ("zh", ("显存峰值（同时存活的张量）：1.81 GiB（1,939,253,020 字节）", "在 L = 128 下峰值不超过"))):
        code, out, _ = _cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "128", "--fit-gib", "16",
                            "--lang", lang)
        assert code == 0 and all(w in out for w in words), (lang, out[-600:])
    code, out, _ = _cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "128", "--fit-gib", "0",
                        "--format", "json")
    assert code == 2 and json.loads(out)["error"]["code"] == "peak_budget"
    code, _, err = _cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "128", "--fit-gib", "0.25",
                        "--lang", "zh")
    assert code == 2 and err.startswith("error: peak_budget_below_weights: 显存预算")


def test_no_figure_says_why_in_both_languages() -> None:
    from calculator.views.costs import peak_line

    cases = ((unreplayed_one_layer_deberta_v3(costs.settings(1, 8, optimizer="sgd", checkpointing="reentrant")),
              "plain SGD",
              "不带动量的 SGD"),
             (costs.compute(bert_base(), costs.settings(1, 8, optimizer="adafactor")), "Adafactor", "Adafactor"))
    for c, en, zh in cases:
        assert c.peak.bytes is None and c.peak.note == "peak_not_modelled"
        assert en in peak_line(c, "en") and zh in peak_line(c, "zh")


def test_bert_base_b8_l512_peak_in_the_backward_by_hand() -> None:
    """BertModel bert-base, B = 8, L = 512, fp32, eager attention, dropout 0.1, AdamW: the attention
    probabilities make the activations, and the peak is in the backward of the last layer's feed-forward
    (measured in PyTorch: tests/crosscheck/test_peak_engine.py::test_bert_base_b8_l512_in_the_backward).

    Sizes (bytes): a [B·L, H] tensor BLH = 8·512·768·4 = 12,582,912; a [B, A, L, L] one BAL2 = 8·12·512·512·4 =
    100,663,296; a [B·L, I] one BLI = 8·512·3072·4 = 50,331,648; LayerNorm's mean and 1/std [B, L, 1]: 16,384 each.
    """
    B, L, A = 8, 512, 12
    BLH, BAL2, BLI, ROW = B * L * H * F32, B * A * L * L * F32, B * L * I * F32, B * L * F32
    assert (BLH, BAL2, BLI, ROW) == (12_582_912, 100_663_296, 50_331_648, 16_384)
    start = 109_482_240 * F32 + 2 * P * INT64 + B * L * INT64  # weights, position/token-type ids, input_ids
    # What autograd saves, per layer: q and kᵀ copied for bmm, softmax's output, the dropout's mask and its output
    # (kept by the second bmm), v's copy, the context (contiguous copy), the output projection's dropout mask, the
    # residual sum (LayerNorm's input), mean and 1/std, the LayerNorm's output (the feed-forward's input), the
    # feed-forward's two [B·L, I] (GELU's input and output), its dropout mask, residual sum, mean and 1/std, and
    # the layer's output (the next layer's input, kept by q, k and v; the last one by the pooler's addmm).
    layer = 10 * BLH + 3 * BAL2 + 2 * BLI + 4 * ROW
    embeddings = 1 * L * INT64 + 3 * BLH + 2 * ROW  # token types [1, L] gathered; the sum, mask, dropout's output
    pooler = B * H * F32  # tanh keeps its output
    saved = LAYERS * layer + embeddings + pooler
    assert saved == 6_380_384_256
    loss_and_ones = 4 + 4
    # The backward, node by node, until the peak: the pooler's tanh and addmm free tanh's output and the
    # sequence output (its last holder); the last LayerNorm frees its input, mean and 1/std; the dropout before it
    # frees its mask. Freed: pooler + 3·BLH + 2·ROW.
    freed = pooler + 3 * BLH + 2 * ROW
    # Live gradients when the feed-forward's output projection (AddmmBackward0) has made its three: the pooler's
    # weight and bias (.grad), the last LayerNorm's (.grad), its input's gradient (held for the residual), the
    # dropout's gradient (the node's incoming one), then grad input [B·L, I], grad weight [H, I] and grad bias [H]
    # (``aten.sum``: the moment of the peak, before the node releases anything).
    grads = (H * H + H) * F32 + 2 * H * F32 + 2 * BLH + BLI + (I * H + H) * F32
    expected = start + saved - freed + grads + loss_and_ones
    assert expected == 6_867_854_344
    peak = costs.compute(build(get_preset("bert-base-uncased").config, "BertModel"), costs.settings(B, L)).peak
    assert (peak.bytes, peak.phase, peak.op, peak.module) == (expected, "backward", "aten.sum",
                                                               "encoder.layer.11.output.dense")
    assert peak.by_kind["gradient"] == (H * H + H + 2 * H + I * H + H) * F32  # those that end as .grad
    assert peak.lower == peak.upper == expected
