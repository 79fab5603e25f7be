"""The default attention (issue 32): what transformers 5.23 builds the class with, unless the reader chooses.

transformers picks SDPA for a class that supports it (``_supports_sdpa``: ``Family.default_attention``), else eager.
The calculator's ``default`` must give, for every family with costs, exactly the step of that choice asked for by
name; where the SDPA step is refused here (not worked out for the class, or a shape the fused kernel does not
take), the eager step, marked with the refusal's code so the answer can say why. The CLI and the page take the
default when ``--attention`` / the menu is left alone, and a link carries no ``attention`` key for it.
"""

from __future__ import annotations

import json

from calculator import api, costs
from calculator.build import build
from calculator.costs.step import SDPA_REFUSALS
from calculator.errors import CalcError
from calculator.families import FAMILIES


def _figures(c: costs.Costs) -> dict:
    d = c.to_dict()
    d.pop("attention_fallback", None)
    return d


def test_default_is_the_class_choice_for_every_family() -> None:
    checked = {"sdpa": 0, "eager": 0, "fallback": 0}
    for model_type, family in sorted(FAMILIES.items()):
        if family.costs is None or not family.presets:
            continue
        inv = build(family.presets[0].config)
        try:
            default = costs.compute(inv, costs.settings(1, 8, attention="default"))
        except CalcError as e:  # a step refused whatever the attention (a config key the step does not take...)
            try:
                costs.compute(inv, costs.settings(1, 8, attention="eager"))
            except CalcError as eager_error:
                assert eager_error.code == e.code, model_type
                continue
            raise AssertionError((model_type, e.code))
        eager = costs.compute(inv, costs.settings(1, 8, attention="eager"))
        if family.default_attention != "sdpa":
            assert default.settings.attention == "eager" and default.attention_fallback is None, model_type
            assert _figures(default) == _figures(eager), model_type
            checked["eager"] += 1
            continue
        try:
            sdpa = costs.compute(inv, costs.settings(1, 8, attention="sdpa"))
        except CalcError as e:
            assert e.code in SDPA_REFUSALS, (model_type, e.code)
            assert default.settings.attention == "eager" and default.attention_fallback == e.code, model_type
            assert _figures(default) == _figures(eager), model_type
            checked["fallback"] += 1
            continue
        assert default.settings.attention == "sdpa" and default.attention_fallback is None, model_type
        assert _figures(default) == _figures(sdpa), model_type
        checked["sdpa"] += 1
    assert checked["sdpa"] >= 10 and checked["eager"] >= 10, checked


def test_the_cli_and_the_page_take_the_default() -> None:
    from calculator import cli

    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "8", "--format", "json"]) == 0
    c = json.loads(out.getvalue())["costs"]
    assert c["attention"] == "sdpa" and "attention_fallback" not in c  # BertModel: SDPA in transformers 5.23
    request = {"params": {"preset": "microsoft/deberta-v3-base"}, "costs": {"batch": "1", "seq_len": "8"}}
    answer = json.loads(api.compute_json(json.dumps(request), "zh"))["costs"]
    assert answer["ok"] and answer["costs"]["attention"] == "eager" and "attention" not in answer["query"]
    assert "--attention" not in answer["command"]
    for value in ("eager", "sdpa"):  # a choice by name goes to the link and the command
        request = {"params": {"preset": "bert-base-uncased"}, "costs": {"batch": "1", "seq_len": "8", "attention": value}}
        answer = json.loads(api.compute_json(json.dumps(request), "en"))["costs"]
        assert answer["query"]["attention"] == value and f"--attention {value}" in answer["command"]


def test_the_sentence_says_which_sdpa_path_ran() -> None:
    """T5's position bias trains, and a mask needing a gradient sends CPU's SDPA to its math path (PyTorch 2.13's
    flash kernel for CPU returns no gradient for its mask: measured in tests/crosscheck/test_costs_sdpa_reference.py);
    frozen, the bias needs none and the flash kernel runs. BERT's mask-free SDPA is the flash kernel. The answer's
    attention sentence and the JSON's ``sdpa_kernel`` say which, in both languages."""
    from calculator import peft
    from calculator.views import costs as cv

    t5 = build({"model_type": "t5", "d_model": 64, "d_kv": 16, "num_heads": 4, "d_ff": 128, "num_layers": 2,
                "vocab_size": 100}, "T5EncoderModel")
    bert = build({"model_type": "bert", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128,
                  "num_hidden_layers": 2, "vocab_size": 100}, "BertModel")
    s = costs.settings(1, 8, attention="sdpa")
    frozen = peft.freeze(t5, layers=2)  # every block, the position bias with them: it needs no gradient
    cases = [(t5, None, True), (bert, None, False), (t5, frozen, False)]
    for inv, plan, math in cases:
        c = costs.compute(inv, s, plan)
        assert c.sdpa_math is math, inv.architecture
        assert ("sdpa_kernel" in c.to_dict()) is math
        for lang in ("en", "zh"):
            keys = [k for k, _ in cv.assumptions(inv, c.settings, lang, c.attention_fallback, c.sdpa_math)]
            assert keys[0] == ("attention_sdpa_math_run" if math else "attention_sdpa_run"), (inv.architecture, lang)
