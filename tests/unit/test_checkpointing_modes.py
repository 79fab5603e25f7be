"""Gradient checkpointing's two kinds (issue 35, reader H3): non-reentrant, transformers 5.23's default, and
reentrant, each named by the CLI, a link, the JSON, the page's menu and the step's assumption sentence.

What each kind costs is proven against PyTorch in tests/crosscheck/test_costs_reference.py
(``test_non_reentrant_checkpointing_matches_pytorch``, every family that checkpoints); here, the rule written
out by hand for two layer shapes, and how each way of naming a kind is read and written back.

Standard library only, no fixtures: it runs inside Pyodide too.
"""
from __future__ import annotations

import contextlib
import io
import json

from calculator import api, cli, costs, options
from calculator.build import build
from calculator.page import costs as panel
from calculator.views import costs as cv

from .helpers import expect_error

BERT = {"preset": "bert-base-uncased"}


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_each_spelling_reads_as_one_mode_and_anything_else_is_refused():
    cases = ((None, False), (False, False), ("", False), ("0", False), ("off", False), ("false", False),
             (True, "non-reentrant"), ("1", "non-reentrant"), ("on", "non-reentrant"), ("true", "non-reentrant"),
             ("non-reentrant", "non-reentrant"), (" Reentrant ", "reentrant"), ("reentrant", "reentrant"))
    for value, mode in cases:
        assert costs.checkpointing_mode(value) == mode, value
        s = costs.settings(2, 8, checkpointing=value)
        assert (s.checkpointing, s.reentrant, s.checkpointing_mode) == (bool(mode), mode == "reentrant", mode), value
    # The default Settings are transformers' default kind.
    assert costs.Settings(2, 8, checkpointing=True).checkpointing_mode == "non-reentrant"
    for bad in ("maybe", "2", "re-entrant", "use_reentrant"):
        exc = expect_error("costs_checkpointing_mode", costs.checkpointing_mode, bad)
        for lang, words in (("en", "use_reentrant=False"), ("zh", "非重入式")):
            message = exc.message(lang)
            assert bad in message and words in message and "reentrant" in message, message
    # Its error goes beside the checkpointing field, as the option declares.
    assert options.owner_of("costs_checkpointing_mode") is options.CKPT


def test_the_cli_flag_alone_is_non_reentrant_and_a_value_names_the_kind():
    base = ("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "16", "--format", "json")
    for extra, mode in (((), False), (("--grad-checkpointing",), "non-reentrant"),
                        (("--grad-checkpointing", "non-reentrant"), "non-reentrant"),
                        (("--grad-checkpointing", "reentrant"), "reentrant")):
        code, out, err = run_cli(*base, *extra)
        assert code == 0 and err == "", (extra, err)
        assert json.loads(out)["costs"]["grad_checkpointing"] == mode, extra
    # The flag alone before another option still takes no value from it.
    code, out, _ = run_cli("--grad-checkpointing", "--batch", "1", "--seq-len", "16", "--format", "json")
    assert code == 0 and json.loads(out)["costs"]["grad_checkpointing"] == "non-reentrant"
    for lang, words in (("en", "Gradient checkpointing"), ("zh", "梯度检查点")):
        code, out, err = run_cli("--batch", "1", "--seq-len", "16", "--grad-checkpointing", "maybe", "--lang", lang)
        assert code == 2 and out == "" and err.startswith("error: costs_checkpointing_mode: ") and words in err, err


def test_a_link_round_trips_each_kind():
    for asked, kept, mode in (("1", "1", "non-reentrant"), ("true", "1", "non-reentrant"),
                              ("non-reentrant", "1", "non-reentrant"), ("reentrant", "reentrant", "reentrant"),
                              ("0", None, False), ("", None, False)):
        answer = api.compute_costs({**BERT, "batch": "2", "seq_len": "16", "ckpt": asked})
        assert answer["ok"], asked
        assert answer["costs"]["grad_checkpointing"] == mode, asked
        assert answer["query"].get("ckpt") == kept, (asked, answer["query"])
        # The link the page writes opens the same step.
        again = api.compute_costs({**BERT, **answer["query"]})
        assert again["costs"] == answer["costs"], asked
        # ... and the command it shows runs the same kind.
        assert ("--grad-checkpointing reentrant" in answer["command"]) == (mode == "reentrant"), answer["command"]
        assert ("--grad-checkpointing" in answer["command"]) == bool(mode)
    err = api.compute_costs({**BERT, "batch": "2", "seq_len": "16", "ckpt": "maybe"})["error"]
    assert err["code"] == "costs_checkpointing_mode" and err["slot"] == "calc-ckpt-error", err


def test_the_page_offers_the_three_choices_from_the_one_declaration():
    assert [c.value for c in options.CKPT.choices] == ["0", "1", "reentrant"] and options.CKPT.default == "0"
    for lang, default_words in (("en", "transformers&#x27; default"), ("zh", "transformers 的默认值")):
        html = str(panel.render_panel(lang))
        menu = html[html.index('<select id="calc-ckpt"'):]
        menu = menu[:menu.index("</select>")]
        assert menu.count("<option") == 3 and 'value="reentrant"' in menu and 'value="1"' in menu, menu
        assert 'value="0" selected' in menu and default_words in menu, menu


def test_the_assumption_and_the_heading_name_the_kind_in_both_languages():
    inv = build({"model_type": "bert", "num_hidden_layers": 2})
    words = {}
    for mode, key, said in (("non-reentrant", "ckpt_non-reentrant", "use_reentrant=False"),
                            ("reentrant", "ckpt_reentrant", "use_reentrant=True")):
        s = costs.settings(1, 8, checkpointing=mode)
        for lang in ("en", "zh"):
            found = dict(cv.assumptions(inv, s, lang))
            assert key in found and said in found[key], (mode, lang, found)
            words[mode, lang] = cv.ckpt_name(mode, lang)
    assert "ckpt_non-reentrant" not in dict(cv.assumptions(inv, costs.settings(1, 8), "en"))
    assert words["non-reentrant", "en"] == "on (non-reentrant)" and words["reentrant", "zh"] == "开启（重入式）"
    assert len(set(words.values())) == 4


def test_non_reentrant_skips_a_product_that_ends_the_layer():
    """torch.utils.checkpoint's non-reentrant recomputation stops at the pack of the last tensor the layer saves.
    A product packs its inputs before its kernel runs. XLM-R XL's pre-LayerNorm layer ends in output.dense and
    the residual add (XLMRobertaXLOutput has no dropout; an add keeps nothing), so output.dense's input is the
    last pack and its forward, 2·B·L·I·H per layer, is not run again in the backward. BERT's post-LayerNorm
    layer ends in a LayerNorm, whose mean and 1/std are kept after it runs: nothing is skipped."""
    b, n, h, i, layers = 2, 8, 32, 48, 3
    raw = {"model_type": "xlm-roberta-xl", "vocab_size": 100, "hidden_size": h, "num_hidden_layers": layers,
           "num_attention_heads": 4, "intermediate_size": i, "max_position_embeddings": 40}
    inv = build(raw)
    nr = costs.compute(inv, costs.settings(b, n, checkpointing="non-reentrant"))
    r = costs.compute(inv, costs.settings(b, n, checkpointing="reentrant"))
    off = costs.compute(inv, costs.settings(b, n))
    assert r.backward - nr.backward == layers * 2 * b * n * i * h
    assert (nr.forward, nr.activations) == (r.forward, r.activations)
    assert r.backward > off.backward
    bert = build({"model_type": "bert", "vocab_size": 100, "hidden_size": h, "num_hidden_layers": layers,
                  "num_attention_heads": 4, "intermediate_size": i})
    assert (costs.compute(bert, costs.settings(b, n, checkpointing="non-reentrant")).backward
            == costs.compute(bert, costs.settings(b, n, checkpointing="reentrant")).backward)


def test_the_chart_keeps_the_kind():
    """Each point of the page's chart against L is the same step at another L: reentrant stays reentrant."""
    inv = build({"model_type": "xlm-roberta-xl", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2,
                 "num_attention_heads": 2, "intermediate_size": 24, "max_position_embeddings": 40})
    for mode in ("non-reentrant", "reentrant"):
        s = costs.settings(1, 8, checkpointing=mode)
        for point in cv.series(inv, s, None):
            c = costs.compute(inv, costs.settings(1, point["seq_len"], checkpointing=mode))
            assert point["flops"] == c.forward + c.backward, (mode, point)
