"""The planner's and the step's settings are declared once (calculator.options): the CLI and the page derive theirs.

Standard library only, no fixtures: it runs inside Pyodide too.
"""
from __future__ import annotations

import re

from calculator import cli, hub, options
from calculator.errors import MESSAGES, CalcError
from calculator.page import fields
from calculator.page import costs as panel
from calculator.page import form


def _both(entry, where):
    assert set(entry) == {"en", "zh"}, where
    assert entry["en"].strip() and entry["zh"].strip(), where
    assert sorted(re.findall(r"\{(\w+)\}", entry["en"])) == sorted(re.findall(r"\{(\w+)\}", entry["zh"])), where


def test_every_option_is_worded_in_both_languages():
    assert len({o.key for o in options.OPTIONS}) == len(options.OPTIONS)
    for o in options.OPTIONS:
        assert o.group in options.GROUPS, o.key
        _both(o.label, o.key)
        if o.help is not None:
            _both(o.help, o.key)
        for c in o.choices:
            for entry in (c.label, c.help):
                if entry is not None:
                    _both(entry, (o.key, c.value))


def test_the_cli_has_each_option_under_its_key():
    parser = cli.make_parser("en")
    flags = {s: a.dest for a in parser._actions for s in a.option_strings}
    for o in options.OPTIONS:
        if o.cli is not None:
            assert flags[o.cli] == o.key, o.key
        for c in o.choices:
            if c.cli is not None:
                assert flags[c.cli] == c.dest, c.cli
    # Defaults the CLI applies: the step's, unless asked for (B and L).
    args = parser.parse_args(["--dtype", "bf16"])
    assert args.batch is None and args.ckpt is None  # unset: the option's default, "0" (off)
    # --grad-checkpointing alone is transformers 5.23's default, non-reentrant; a value names the mode.
    assert parser.parse_args(["--grad-checkpointing", "--batch", "2"]).ckpt == "non-reentrant"
    assert parser.parse_args(["--grad-checkpointing", "reentrant"]).ckpt == "reentrant"


def test_the_page_has_each_option_at_its_default():
    page = form.render_form({}, "en") + str(panel.render_panel("en"))
    for o in options.OPTIONS:
        if o.group not in options.PAGE_GROUPS and o.key not in options.PAGE_HUB_KEYS:
            assert f'id="calc-{o.key}"' not in page, o.key  # the CLI's alone (--endpoint)
            continue
        assert f'id="calc-{o.key}"' in page, o.key
        assert f'id="calc-{o.key}-error"' in page, o.key
    assert panel.DEFAULTS == {"batch": "32", "seq_len": "128", "dtype": "fp32", "optimizer": "adamw", "ckpt": "0",
                              "attention": "default", "mixed_precision": "", "gpu_gb": "24", "fit": "0",
                              "mode": "train", "passages": "10000", "tflops": "100"}
    assert options.PLANNER_KEYS == ("lora_r", "lora_targets", "lora_bias", "peft_task_type", "modules_to_save", "freeze",
                                    "freeze_layers")
    assert '<option value="none" selected>none</option>' in page  # lora_bias at peft's default


def test_the_hubs_errors_name_the_option_they_are_about():
    # Raised by the Hub's reader itself (calculator/hub.py), as --model and --endpoint give them.
    for call, text, key in ((hub.parse_model_id, "not a repo id!", "model"), (hub.endpoint_of, "ftp://x", "endpoint")):
        try:
            call(text)
        except CalcError as exc:
            assert fields._named(exc) == (key,), (exc.code, exc.fields)
        else:
            raise AssertionError(text)
    # Every code of the Hub's has an owner or a field: none is left to the general slot by omission.
    owned = {c for o in options.OPTIONS for c in o.codes}
    assert {c for c in MESSAGES if c.startswith("hub_")} - owned == {"hub_unreachable"}
