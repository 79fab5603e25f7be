"""The reliability review's size findings (issue 35, reliability-review-2.md): every input's work bounded before
it starts, the CLI with the page's bounds, page and CLI equal on every key.

Each test names the finding it covers. No timings: the bounds are asserted as refusals raised while the
config is read (before any tensor is listed) and as counts of simulated steps; the speed they buy is
measured by benchmarks/engine_speed.py. Standard library only (these also run inside Pyodide).
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
from typing import Any

from calculator import api, cli, costs
from calculator.build import build
from calculator.errors import MESSAGES, CalcError
from calculator.families import FAMILIES
from calculator.page.state import extra_keys
from calculator.views import costs as cv

from .helpers import expect_error


def run_cli(config: Any, *argv: str) -> tuple[int, str, str]:
    """``python -m calculator --config - ARGV`` with ``config`` (JSON) on stdin: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps(config).encode()))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["--config", "-", *argv])
    finally:
        sys.stdin = stdin
    return code, out.getvalue(), err.getvalue()


def refused_on_reading(raw: dict[str, Any], key: str) -> CalcError:
    """``raw`` is ``too_large`` (about ``key``) already while the family reads it: before any tensor is built."""
    exc = expect_error("too_large", FAMILIES[raw["model_type"]].read_config, dict(raw, num_labels=2))
    assert exc.params["key"] == key, exc.params
    return exc


# ---------------------------------------------------------------- H1: MobileBERT's num_feedforward_networks


def test_h1_feedforward_networks_are_bounded_as_layers_before_building():
    refused_on_reading({"model_type": "mobilebert", "num_feedforward_networks": 10_000_000}, "num_feedforward_networks")
    refused_on_reading({"model_type": "mobilebert", "num_feedforward_networks": 513}, "num_feedforward_networks")
    # 24 layers (the default) × 300 blocks: 7,200 blocks of 6 tensors, over 4 per layer at 512 layers (2,048).
    exc = refused_on_reading({"model_type": "mobilebert", "num_feedforward_networks": 300},
                             "num_hidden_layers × num_feedforward_networks")
    assert exc.params["value"] == 24 * 300 and exc.params["maximum"] == 4 * 512
    # The page puts it beside both fields; the published shape (24 × 4) and 512 × 4 are counted.
    err = api.compute({"model_type": "mobilebert", "num_feedforward_networks": "300"})["error"]
    assert err["code"] == "too_large" and err["fields"] == ["num_hidden_layers", "num_feedforward_networks"]
    assert build({"model_type": "mobilebert"}).total > 0
    assert build({"model_type": "mobilebert", "num_hidden_layers": 512, "num_feedforward_networks": 4}).total > 0


def test_h1_cli_refuses_with_a_code_and_never_an_uncoded_exit():
    code, out, err = run_cli({"model_type": "mobilebert", "num_feedforward_networks": 10_000_000})
    assert code == 2 and out == "" and err.startswith("error: too_large: "), err
    code, out, err = run_cli({"model_type": "mobilebert", "num_feedforward_networks": 10_000_000}, "--format", "json")
    assert code == 2 and json.loads(out)["error"]["code"] == "too_large"


def test_h1_cli_out_of_memory_and_internal_errors_are_coded_lines():
    """Whatever escapes the engine (a MemoryError on a small machine, a bug) is one coded line, exit status 2."""
    real = cli.build
    try:
        for raised, code in ((MemoryError(), "out_of_memory"), (ZeroDivisionError(), "internal")):
            def broken(*args: Any, raised: BaseException = raised, **kwargs: Any) -> Any:
                raise raised

            cli.build = broken
            status, out, err = run_cli({"model_type": "bert"}, "--lang", "zh")
            message = CalcError(code, kind="ZeroDivisionError").message("zh")
            assert MESSAGES[code]["zh"] and status == 2 and out == "" and err == f"error: {code}: {message}\n"
            status, out, err = run_cli({"model_type": "bert"}, "--format", "json")
            assert status == 2 and err == "" and json.loads(out)["error"]["code"] == code
    finally:
        cli.build = real


# ---------------------------------------------------------------- H2: X-MOD's languages


def test_h2_languages_are_bounded_in_number_length_and_adapters():
    xmod = FAMILIES["xmod"]
    published = xmod.presets[0].config
    assert len(published["languages"]) == 81 and build(published).total > 0
    refused_on_reading({"model_type": "xmod", "languages": [f"l{i}" for i in range(129)]}, "len(languages)")
    refused_on_reading({"model_type": "xmod", "languages": ["en_XX", "x" * 1_000_000]}, "len(languages[1])")
    refused_on_reading({"model_type": "xmod", "languages": ["x" * 17]}, "len(languages[0])")
    # 81 languages: 25 layers give 2,025 adapters (within 2,048), 26 layers 2,106.
    assert build(dict(published, num_hidden_layers=25)).total > 0
    exc = refused_on_reading(dict(published, num_hidden_layers=26), "len(languages) × num_hidden_layers")
    assert exc.params["value"] == 81 * 26
    # A repeated name is one adapter (nn.ModuleDict), counted once towards every bound.
    c = xmod.read_config({"languages": ["a", "b", "a"] * 40, "num_labels": 2})
    assert c["languages"] == ("a", "b")


def test_h2_a_long_link_of_languages_is_refused_on_the_page_too():
    names = ",".join(f"n{i}" for i in range(2000))
    err = api.compute({"model_type": "xmod", "languages": names})["error"]
    assert err["code"] == "too_large" and err["key"] == "len(languages)"


# ---------------------------------------------------------------- M1: the cost chart's points


def count_steps(fn: Any) -> tuple[Any, list[costs.Settings]]:
    """``fn()``, and the settings of every training step it simulated (``costs.compute`` calls)."""
    real, seen = costs.compute, []

    def counted(inv: Any, s: costs.Settings, plan: Any = None) -> costs.Costs:
        seen.append(s)
        return real(inv, s, plan)

    costs.compute = counted
    try:
        return fn(), seen
    finally:
        costs.compute = real


def test_m1_deep_models_simulate_a_bounded_number_of_steps():
    """The panel simulates one step per chart point: points × layer passes (2 per layer with checkpointing)
    stay within MAX_SERIES_PASSES, the asked L is simulated once, and the chart keeps L and another length.
    Proven with the bound at 64 passes and models 8 and 16 layers deep: the rule is the same at 2,048, where each
    case costs some 2,000 layer passes (40 s of CPython for three 512-layer models, minutes in Pyodide's unit run);
    how long the bound's own value takes is benchmarks/engine_speed.py's."""
    cases = (
        ({"model_type": "big_bird", "num_hidden_layers": "16"}, {"batch": "1", "seq_len": "4096", "ckpt": "1"}, 1),
        ({"model_type": "convbert", "num_hidden_layers": "16"}, {"batch": "1", "seq_len": "512", "ckpt": "1"}, 1),
        ({"model_type": "bert", "num_hidden_layers": "16"}, {"batch": "1", "seq_len": "128"}, 3),
        ({"model_type": "bert", "num_hidden_layers": "8"}, {"batch": "1", "seq_len": "100"}, 6),  # every point: 16 … 512
    )
    bound = cv.MAX_SERIES_PASSES
    cv.MAX_SERIES_PASSES = 64
    try:
        for model, panel, others in cases:
            answer, steps = count_steps(lambda model=model, panel=panel: api.compute_costs({**model, **panel}))
            assert answer["ok"], answer
            lengths = [p["seq_len"] for p in answer["series"]]
            n = int(panel["seq_len"])
            assert len(steps) == others + 1 and [s.seq_len for s in steps].count(n) == 1, (model, steps)
            assert n in lengths and len(lengths) == others + 1, lengths
            layers = int(model["num_hidden_layers"])
            assert len(steps) * layers * (2 if panel.get("ckpt") else 1) <= cv.MAX_SERIES_PASSES + layers * 2
    finally:
        cv.MAX_SERIES_PASSES = bound


def test_m1_chart_points_past_2_53_are_left_out_not_the_answer():
    """B = 100,000 at L = 128 is within 2^53; the chart's longer lengths are not, and are left out."""
    answer = api.compute_costs({"model_type": "bert", "batch": "100000", "seq_len": "128"})
    assert answer["ok"], answer
    lengths = [p["seq_len"] for p in answer["series"]]
    assert 128 in lengths and max(lengths) < 512
    assert all(p["flops"] <= costs.MAX_FIGURE for p in answer["series"])


# ---------------------------------------------------------------- M2 and M3: Funnel's blocks


def test_m2_funnel_layer_runs_are_bounded_as_layers():
    refused_on_reading({"model_type": "funnel", "block_sizes": [4], "block_repeats": [512]},
                       "sum(block_sizes × block_repeats)")
    exc = refused_on_reading({"model_type": "funnel", "block_sizes": [64, 64], "block_repeats": [64, 1]},
                             "sum(block_sizes × block_repeats)")
    assert exc.params["value"] == 64 * 64 + 64
    code, out, err = run_cli({"model_type": "funnel", "block_sizes": [512], "block_repeats": [512]},
                             "--batch", "1", "--seq-len", "16")
    assert code == 2 and err.startswith("error: too_large: "), err
    assert build({"model_type": "funnel", "block_sizes": [256, 128], "block_repeats": [1, 2]}).total > 0


def test_m3_funnel_without_a_first_block_is_a_coded_refusal():
    """FunnelModel's decoder reads hidden_states[block_sizes[0]]: no blocks, or a first block repeated 0 times,
    and transformers fails (tests/crosscheck/test_costs_reference.py); FunnelBaseModel has no decoder and runs."""
    for raw in ({"model_type": "funnel", "block_sizes": []},
                {"model_type": "funnel", "block_repeats": [0, 0, 0]}):
        exc = expect_error("costs_funnel_decoder_input", costs.compute, build(raw), costs.settings(2, 16))
        assert "block" in exc.message("en")
        code, out, err = run_cli(raw, "--batch", "2", "--seq-len", "16")
        assert code == 2 and out == "" and err.startswith("error: costs_funnel_decoder_input: "), err
        code, out, err = run_cli(raw, "--batch", "2", "--seq-len", "16", "--format", "json")
        assert code == 2 and json.loads(out)["error"]["code"] == "costs_funnel_decoder_input"
        assert costs.compute(build(raw, "FunnelBaseModel"), costs.settings(2, 16)).activations > 0
    # A later block repeated 0 times before one that runs: as an empty block (the masks are pooled, not the states).
    expect_error("costs_funnel_empty_block", costs.compute,
                 build({"model_type": "funnel", "block_sizes": [2, 2, 2], "block_repeats": [1, 0, 1]},
                       "FunnelBaseModel"), costs.settings(2, 16))
    answer = api.compute_costs({"model_type": "funnel", "block_sizes": "", "batch": "2", "seq_len": "16"})
    assert answer["error"]["code"] == "costs_funnel_decoder_input"


# ---------------------------------------------------------------- M4: the step's keys travel with the config


def page_and_cli(config: dict[str, Any], batch: int, seq_len: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The panel's answer for a pasted ``config`` (what the page does), and the CLI's JSON for the same file."""
    request = {"config": json.dumps(config), "costs": {"batch": str(batch), "seq_len": str(seq_len)}}
    page = json.loads(api.compute_json(json.dumps(request)))["costs"]
    code, out, _ = run_cli(config, "--batch", str(batch), "--seq-len", str(seq_len), "--format", "json")
    return page, json.loads(out)


def test_m4_pasted_step_keys_reach_the_panel_as_they_reach_the_cli():
    cases = (
        ({"model_type": "longformer", "max_position_embeddings": 4098, "attention_window": 64}, 1, 1000),
        ({"model_type": "longformer", "num_hidden_layers": 2, "attention_window": [32, 64]}, 2, 100),
        ({"model_type": "longformer", "num_hidden_layers": 2, "attention_window": [64, 64]}, 2, 100),
        ({"model_type": "big_bird", "attention_type": "original_full"}, 1, 1024),
        ({"model_type": "big_bird", "block_size": 32}, 1, 1024),
        ({"model_type": "big_bird", "num_random_blocks": 1}, 1, 1024),
        ({"model_type": "big_bird", "block_size": 0}, 1, 1024),
    )
    for config, batch, seq_len in cases:
        page, cli_json = page_and_cli(config, batch, seq_len)
        if "error" in cli_json:
            assert page["error"]["code"] == cli_json["error"]["code"] == "costs_forward_fails", (config, page)
            continue
        assert page["ok"], (config, page)
        assert page["costs"] == cli_json["costs"], config
    # The key changed the figures (the default would give others): so the equality above is not by chance.
    window64, _ = page_and_cli(cases[0][0], 1, 1000)
    default, _ = page_and_cli({"model_type": "longformer", "max_position_embeddings": 4098}, 1, 1000)
    assert window64["costs"]["flops"] != default["costs"]["flops"]


def test_m4_every_key_the_count_keeps_beyond_the_form_travels_in_the_link():
    """Whatever a family's read keeps besides its fields is a link extra: a link reproduces the config."""
    for model_type, family in FAMILIES.items():
        if not family.config_json:
            continue
        inv = build({"model_type": model_type})
        kept = set(inv.config) - {f.key for f in family.fields} - {"num_labels"}
        assert kept <= set(extra_keys(model_type)), (model_type, kept - set(extra_keys(model_type)))


def test_m4_the_link_of_a_pasted_config_gives_the_same_step():
    pasted = api.compute_config(json.dumps({"model_type": "longformer", "num_hidden_layers": 3,
                                            "attention_window": [32, 64, 32]}))
    assert pasted["query"]["attention_window"] == "32|64|32"
    assert api.compute(pasted["query"])["ok"]
    pasted = api.compute_config(json.dumps({"model_type": "big_bird", "attention_type": "original_full",
                                            "block_size": 32}))
    assert (pasted["query"]["attention_type"], pasted["query"]["block_size"]) == ("original_full", "32")
    pasted = api.compute_config(json.dumps({"model_type": "longformer", "attention_window": [128] * 12}))
    assert pasted["query"]["attention_window"] == "128"  # one window for every layer: as an int is read


# ---------------------------------------------------------------- L1, L2, L4


def test_l1_lora_targets_are_deduplicated_and_capped():
    base = {"model_type": "bert", "num_hidden_layers": "2", "lora_r": "8"}
    answer = api.compute(dict(base, lora_targets=",".join(["query"] * 5000)))
    assert answer["ok"] and answer["plan"] == api.compute(dict(base, lora_targets="query"))["plan"]
    err = api.compute(dict(base, lora_targets=",".join(f"q{i}" for i in range(65))))["error"]
    assert err["code"] == "too_large" and err["field"] == "lora_targets"
    err = api.compute(dict(base, lora_targets="query", modules_to_save=",".join(f"m{i}" for i in range(65))))["error"]
    assert err["code"] == "too_large" and err["field"] == "modules_to_save"
    code, out, err = run_cli({"model_type": "bert"}, "--lora-r", "8", "--lora-targets",
                             ",".join(f"q{i}" for i in range(65)))
    assert code == 2 and err.startswith("error: too_large: lora_targets"), err


def test_l2_step_figures_above_2_53_are_refused_and_the_window_bounded():
    params = {"model_type": "bert", "hidden_size": "771", "num_attention_heads": "3"}
    err = api.compute_costs(dict(params, batch="999999", seq_len="511"))["error"]
    assert err["code"] == "costs_too_large"
    code, out, _ = run_cli({"model_type": "bert", "hidden_size": 771, "num_attention_heads": 3}, "--batch", "999999",
                           "--seq-len", "511", "--format", "json")
    assert code == 2 and json.loads(out)["error"]["code"] == "costs_too_large"
    # 2^53 − 1 itself is reported; one more is not (the bound is on the figures, B and L alone cannot keep it).
    assert costs.MAX_FIGURE == 9_007_199_254_740_991
    refused_on_reading({"model_type": "longformer", "attention_window": 10**29}, "attention_window")
    refused_on_reading({"model_type": "longformer", "num_hidden_layers": 2, "attention_window": [2, 10_000_002]},
                       "attention_window")


def test_l4_a_checkpointing_value_that_is_not_boolean_is_refused_beside_the_checkbox():
    for value in ("maybe", "2", "re-entrant"):
        err = api.compute_costs({"preset": "bert-base-uncased", "batch": "32", "seq_len": "128", "ckpt": value})["error"]
        assert err["code"] == "costs_checkpointing_mode" and err["field"] == "ckpt", err
    for value, on in (("1", "non-reentrant"), ("0", False), ("", False), ("true", "non-reentrant"),
                      ("reentrant", "reentrant"), ("non-reentrant", "non-reentrant")):
        answer = api.compute_costs({"preset": "bert-base-uncased", "batch": "2", "seq_len": "16", "ckpt": value})
        assert answer["ok"] and answer["costs"]["grad_checkpointing"] == on
