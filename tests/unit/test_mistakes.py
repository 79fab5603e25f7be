"""The wrong derivations people post. Standard library only (runs in Pyodide).

Expected numbers are the issue's facts (109,786,368; 335,043,584; the Hacker
News 7,077,888 per block; BERT-base 109,482,240 and BERT-large 335,141,888
counted by transformers) and arithmetic written out in the comments.
"""
from calculator.build import build
from calculator.errors import CalcError
from calculator.mistakes import MISTAKES, all_mistakes, mistake
from calculator.presets import PRESETS

BASE = PRESETS["bert-base-uncased"].config
LARGE = PRESETS["bert-large-uncased"].config
IDS = (
    "l_times_h_times_a",
    "per_head_full_width_bias",
    "attention_without_output",
    "qkv_three_h_squared_over_a",
    "ffn_biases_as_h",
    "blocks_without_bias_and_layernorm",
    "dropped_intermediate_bias",
)


def by_id(source):
    return {m.id: m for m in all_mistakes(source)}


def test_ids_are_stable_and_ordered():
    assert tuple(MISTAKES) == IDS
    assert tuple(m.id for m in all_mistakes(BASE)) == IDS


def test_every_mistake_has_the_right_number_and_its_gap():
    for config, correct in ((BASE, 109_482_240), (LARGE, 335_141_888)):
        for m in all_mistakes(config):
            assert m.correct == correct
            assert m.difference == m.value - m.correct
            assert m.value != m.correct
            assert m.formula_text and "H" in m.formula_text


def test_l_times_h_times_a():
    m = mistake("l_times_h_times_a", BASE)
    assert m.value == 12 * 768 * 12 == 110_592  # not 110 million
    assert m.formula_text == "L × H × A"


def test_per_head_bias_gives_109_786_368():
    m = mistake("per_head_full_width_bias", BASE)
    assert m.value == 109_786_368
    # 3 biases of 768 per head instead of 3 of 64: 3·768·(12 − 1) per layer, 12 layers.
    assert m.difference == 12 * 3 * 768 * 11 == 304_128


def test_attention_without_output_projection():
    m = mistake("attention_without_output", BASE)
    assert m.difference == -12 * (768 * 768 + 768) == -7_087_104
    # The keras question's expectation for one attention layer is this derivation's attention term.
    assert (768 * 768 * 3 + 768 * 3) + (768 * 768 + 768) == 2_362_368


def test_three_h_squared_over_a():
    m = mistake("qkv_three_h_squared_over_a", BASE)
    # 3H² = 1,769,472 weights per layer counted as 3H²/A = 147,456.
    assert m.difference == -12 * (3 * 768 * 768 - 3 * 768 * 768 // 12) == -19_464_192


def test_ffn_as_two_times_4hh_plus_h():
    m = mistake("ffn_biases_as_h", BASE)
    # Right: 2HI + I + H = 4,722,432; formula: 2·(4H·H + H) = 4,720,128; 3H = 2,304 short per layer.
    assert 2 * 768 * 3072 + 3072 + 768 - 2 * (4 * 768 * 768 + 768) == 2_304
    assert m.difference == -12 * 2_304 == -27_648
    # With I ≠ 4H the formula ignores I altogether.
    odd = mistake("ffn_biases_as_h", dict(BASE, intermediate_size=1000))
    right = 2 * 768 * 1000 + 1000 + 768
    assert odd.difference == 12 * (2 * (4 * 768 * 768 + 768) - right)


def test_blocks_without_bias_and_layernorm():
    m = mistake("blocks_without_bias_and_layernorm", BASE)
    hn_block = 7_077_888  # the Hacker News comment's per-block figure
    assert 4 * 768 * 768 + 2 * 768 * 3072 == hn_block
    # A real block is 7,087,872; the comment misses 9H + I = 9,984 in each of 12.
    assert m.difference == -12 * (7_087_872 - hn_block) == -12 * (9 * 768 + 3072)


def test_bert_large_table():
    m = mistake("dropped_intermediate_bias", LARGE)
    assert m.value == 335_043_584
    assert m.correct == 335_141_888
    assert m.difference == -98_304 == -24 * 4096
    # The table's per-layer sum: 12,596,224 − I = 12,592,128.
    per_layer = 4 * (1024 * 1024 + 1024) + 2 * 1024 + (1024 * 4096 + 4096) + (4096 * 1024 + 1024) + 2 * 1024
    assert per_layer == 12_596_224 and per_layer - 4096 == 12_592_128
    # A function of the config: for BERT-base it is 12 × 3,072 short.
    assert mistake("dropped_intermediate_bias", BASE).difference == -12 * 3072


def test_explanations_en_and_zh():
    terms = {
        "per_head_full_width_bias": "偏置",
        "attention_without_output": "多头自注意力",
        "ffn_biases_as_h": "前馈网络",
        "blocks_without_bias_and_layernorm": "层归一化",
        "l_times_h_times_a": "词嵌入",
    }
    for m in all_mistakes(BASE):
        en, zh = m.explanation["en"], m.explanation["zh"]
        assert en and zh and en != zh
        assert "\n" not in en and "\n" not in zh
        assert any("\u4e00" <= ch <= "\u9fff" for ch in zh)
        if m.id in terms:
            assert terms[m.id] in zh, m.id


def test_accepts_inventory_and_rebuilds_base_model():
    inv = build(BASE)
    assert mistake("per_head_full_width_bias", inv).value == 109_786_368
    mlm = build(BASE, "BertForMaskedLM")
    assert mistake("per_head_full_width_bias", mlm).correct == 109_482_240
    no_pooler = build(BASE, pooler=False)
    assert mistake("l_times_h_times_a", no_pooler).correct == 109_482_240


def test_refuses_other_families_and_unknown_ids():
    for source in ({"model_type": "roberta"}, build({"model_type": "distilbert"})):
        try:
            all_mistakes(source)
        except CalcError as exc:
            assert exc.code == "bad_value"
        else:
            raise AssertionError("accepted a non-BERT config")
    try:
        mistake("nope", BASE)
    except CalcError as exc:
        assert exc.code == "bad_value"
    else:
        raise AssertionError("accepted an unknown id")
