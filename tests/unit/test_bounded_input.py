"""Crafted input is refused before any unbounded work (reliability review #3, #4, #7, #9).

Each input here once hung the engine (a regex built from a module name, an
exponent ``Fraction`` expanded), overflowed Pyodide's stack (deep JSON), was
accepted though torch refuses it (a padding row below the table) or got a
misleading message. Standard library only: these run inside Pyodide too, where
the first two hung the page's worker for good.
"""
from __future__ import annotations

import json

from calculator import api
from calculator.active import parse_fraction
from calculator.build import build
from calculator.config import MAX_JSON_DEPTH, json_depth, parse_json
from calculator.peft import lora_from_text
from calculator.presets import get_preset

from .helpers import expect_error


def _bert():
    return build({"model_type": "bert"})


def test_modules_to_save_name_is_checked_before_any_pattern():
    # peft writes the entry into re.match unescaped: ten ".*" backtrack for minutes.
    inv = _bert()
    for name in ("(.*.*.*.*.*.*.*.*.*.*)Z", "a|b", "pooler[", "x+", "classifier\\"):
        exc = expect_error("module_name", lora_from_text, inv, "8", None, None, None, name)
        assert name in exc.message("en") and name in exc.message("zh")


def test_modules_to_save_plain_names_still_work():
    inv = build({"model_type": "bert", "architectures": ["BertForSequenceClassification"]})
    plan = lora_from_text(inv, "8", None, None, None, "classifier")
    assert plan.saved == ("classifier",)
    # BertForSequenceClassification's classifier: 768 x 2 weights and 2 biases, copied and trainable
    # (peft 0.21.2 prints this line for the same call: tests/crosscheck/test_peft_reference.py).
    assert plan.trainable == 2 * 12 * (8 * 768 + 768 * 8) + 768 * 2 + 2


def test_active_fraction_exponent_and_length_are_bounded():
    for text in ("1e-100000000", "1e+100000000", "0." + "0" * 100 + "1", "1" * 65, "1_0", "0x1"):
        expect_error("bad_fraction", parse_fraction, text, "active_fraction")
    assert parse_fraction("1e-3") * 1000 == 1
    assert parse_fraction(" 12/4095 ") * 4095 == 12
    assert parse_fraction("0.25") * 4 == 1


def test_active_fraction_link_is_answered_at_once():
    out = api.compute({"preset": "bert-base-uncased", "active_fraction": "1e-100000000"})
    assert not out["ok"] and out["error"]["code"] == "bad_fraction"


def test_json_depth_is_counted_without_parsing():
    assert json_depth('{"a": [1, {"b": "[[[\\"["}]}') == 3
    assert json_depth('{"x": "\\\\", "y": [[1]]}') == 3
    assert json_depth("") == 0
    assert json_depth("[" * 100000) == 100000


def test_deep_config_is_invalid_json_in_every_route():
    deep = '{"a": ' + "[" * 5000 + "]" * 5000 + "}"
    exc = expect_error("invalid_json", parse_json, deep)
    assert "nested too deeply" in exc.message("en") and "嵌套层数过多" in exc.message("zh")
    out = api.compute_config(deep)
    assert not out["ok"] and out["error"]["code"] == "invalid_json"
    # Just inside the limit is parsed as usual.
    ok = '{"a": ' + "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1) + "}"
    assert parse_json(ok)["a"] == json.loads(ok)["a"]


def test_keras_trainable_from_a_link_is_depth_checked():
    deep = "[" * 3000 + "]" * 3000
    out = api.compute({"model_type": "keras-bert", "trainable": deep})
    assert not out["ok"] and out["error"]["code"] == "bad_value"


def test_huge_integer_in_a_config_is_too_large_not_a_syntax_error():
    text = '{"model_type": "bert", "vocab_size": ' + "9" * 5000 + "}"
    out = api.compute_config(text)
    assert not out["ok"] and out["error"]["code"] == "too_large", out
    # A huge integer under a key the calculator does not read changes nothing.
    raw = parse_json('{"model_type": "bert", "note": ' + "7" * 5000 + "}")
    assert build(raw).total == build({"model_type": "bert"}).total


def test_byte_order_mark_is_dropped():
    assert parse_json('\ufeff{"model_type": "bert"}') == {"model_type": "bert"}
    out = api.compute_config('\ufeff{"model_type": "bert", "num_hidden_layers": 2}')
    assert out["ok"], out


def test_lora_rank_of_twenty_digits_is_too_large():
    inv = _bert()
    exc = expect_error("too_large", lora_from_text, inv, "99999999999999999999")
    assert "99999999999999999999" in exc.message("en")
    expect_error("lora_rank", lora_from_text, inv, "eight")
    expect_error("lora_rank", lora_from_text, inv, "0")


def test_padding_row_below_the_table_is_refused():
    # torch.nn.Embedding: -num_embeddings <= padding_idx < num_embeddings.
    exc = expect_error("padding_idx", build, {"model_type": "bert", "pad_token_id": -40000})
    assert "-40000" in exc.message("en") and "-30522" in exc.message("en") and "-30522" in exc.message("zh")
    expect_error("padding_idx", build, {"model_type": "bert", "vocab_size": 100, "pad_token_id": -101})
    expect_error("padding_idx", build, {"model_type": "bert", "vocab_size": 100, "pad_token_id": 100})
    # The edges torch accepts: the first row counted from the end, and the last row.
    small = {"model_type": "bert", "vocab_size": 100}
    assert build({**small, "pad_token_id": -100}).total == build({**small, "pad_token_id": 99}).total
    # RoBERTa's position table takes the same padding_idx.
    roberta = dict(get_preset("roberta-base").config)
    expect_error("padding_idx", build, {**roberta, "pad_token_id": -515})
    assert build({**roberta, "pad_token_id": -514}).total == build(roberta).total


def test_prototype_names_are_unknown():
    for name in ("constructor", "__proto__", "toString", "hasOwnProperty", "__class__", "__init__"):
        out = api.compute({"preset": name})
        assert not out["ok"] and out["error"]["code"] == "unknown_preset", (name, out)
        out = api.compute({"model_type": name})
        assert not out["ok"] and out["error"]["code"] == "unknown_model_type", (name, out)


def test_thousands_separators_are_accepted_and_limits_written_with_them():
    from calculator.config import coerce_int

    assert coerce_int("vocab_size", "30,522") == 30522
    assert coerce_int("vocab_size", "１，０００") == 1000  # a Chinese input method's full-width comma
    assert coerce_int("vocab_size", "1,000,000") == 1000000
    for text in ("30,52", "3,0522", ",522", "30,,522"):
        expect_error("not_integer", coerce_int, "vocab_size", text)
    out = api.compute({"model_type": "bert", "vocab_size": "30,522"})
    assert out["ok"] and out["total"] == 109_482_240
    out = api.compute({"model_type": "bert", "vocab_size": "99,999,999"})
    assert out["error"]["code"] == "too_large" and "10,000,000" in out["error"]["message"]
