"""calculator.errors: coded messages in both languages. Standard library only (also runs inside Pyodide)."""
import re

from calculator.errors import MESSAGES, CalcError


def test_an_empty_value_asks_for_one_instead_of_quoting_it():
    for code, key, en, zh in (
        ("not_integer", "vocab_size", "vocab_size is empty: enter a whole number.", "vocab_size 为空：请输入整数。"),
        ("not_boolean", "pooler", "pooler is empty: enter true or false.", "pooler 为空：请输入 true 或 false。"),
        ("bad_fraction", "dropout_rate", "dropout_rate is empty: enter a number between 0 and 1.",
         "dropout_rate 为空：请输入 0 到 1 之间的数。"),
    ):
        for value in ("", " ", "\t"):
            exc = CalcError(code, key=key, value=value)
            assert exc.message("en") == en
            assert exc.message("zh") == zh
            assert exc.code == code  # the code is the contract; only the words change
            assert str(exc) == en


def test_a_wrong_value_is_still_quoted():
    assert CalcError("not_integer", key="vocab_size", value="abc").message("en") == \
        "vocab_size must be a whole number, got abc."
    assert CalcError("not_integer", key="vocab_size", value=None).message("zh") == \
        "vocab_size 必须是整数（当前为 null）。"


def test_every_message_in_both_languages_with_the_same_placeholders():
    for code, entry in MESSAGES.items():
        assert set(entry) == {"en", "zh"}, code
        names = [sorted(set(re.findall(r"(?<!\{)\{(\w+)\}", entry[lang])) - {"has", "has_zh"}) for lang in ("en", "zh")]
        assert names[0] == names[1], code


def test_an_empty_config_asks_for_one():
    from calculator.config import parse_json

    for text in ("", "  \n\t"):
        try:
            parse_json(text)
        except CalcError as exc:
            assert exc.code == "invalid_json"
            assert exc.message("en") == "The config is not valid JSON: it is empty."
            assert exc.message("zh") == "配置不是合法的 JSON：内容为空。"
        else:
            raise AssertionError("an empty config was accepted")
