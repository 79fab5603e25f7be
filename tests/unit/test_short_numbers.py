"""The short form of a count (109.5M, 1.095 亿): properties over the calculator's whole range, 0 to 10^15.

Every expectation is exact rational arithmetic on what was printed, never the
formatter's own code: the printed mantissa times its unit must be within half a
unit of the last digit shown, the unit must be the largest that keeps the
mantissa below the next unit, and no exponent may appear. Plain functions and
the standard library only: this file also runs inside the site's Pyodide.
"""
from __future__ import annotations

import random
from fractions import Fraction

from calculator.views import fmt_short

#: Units as a reader knows them, independent of the module's table.
UNITS = {
    "zh": [(" 万", 10**4), (" 亿", 10**8), (" 万亿", 10**12)],
    "en": [("K", 10**3), ("M", 10**6), ("B", 10**9), ("T", 10**12)],
}
MAX = 10**15


def _cases() -> list[int]:
    rng = random.Random(20261123)
    values = {0, 1, 9, 999, 1000, 9999, 10**4, MAX, MAX - 1}
    for exp in range(0, 16):
        base = 10**exp
        for k in (1, 95, 995, 9995, 99995, 999949, 999950, 999995, 9999499, 9999500):
            for v in (k * base // 10**6, k * base // 10**5, k * base // 10**4, k * base // 1000, k * base // 100):
                for d in (-1, 0, 1):
                    if 0 <= v + d <= MAX:
                        values.add(v + d)
    for _ in range(3000):  # log-uniform over the whole range
        values.add(min(MAX, int(10 ** (rng.random() * 15))))
    # the counts the pages quote
    values.update({109_482_240, 108_891_648, 109_514_298, 110_106_428, 99_995_000, 999_950_000, 12_013_233_900_000})
    return sorted(values)


def _parse(text: str, lang: str) -> tuple[Fraction, int, int]:
    """(mantissa, unit size, decimals shown) of a printed short form."""
    for suffix, size in sorted(UNITS[lang], key=lambda u: -len(u[0])):
        if text.endswith(suffix):
            number = text[: -len(suffix)]
            decimals = len(number.partition(".")[2])
            return Fraction(number), size, decimals
    return Fraction(text), 1, 0


def test_short_forms_hold_their_properties_over_the_whole_range():
    for lang in ("zh", "en"):
        sizes = [size for _, size in UNITS[lang]]
        for n in _cases():
            text = fmt_short(n, lang)
            assert "e" not in text.lower() and "inf" not in text.lower() and "nan" not in text.lower(), (n, text)
            mantissa, size, decimals = _parse(text, lang)
            # within half a unit of the last digit shown
            assert abs(mantissa * size - n) <= Fraction(size, 2 * 10**decimals), (n, text)
            if size == 1:
                assert n < sizes[0] and text == str(n), (n, text)
                continue
            index = sizes.index(size)
            step = sizes[1] // sizes[0]
            # the largest unit whose mantissa stays below the next unit; never a unit too large
            assert mantissa >= 1, (n, text)
            if index + 1 < len(sizes):
                assert mantissa < step, (n, text)
            if lang == "zh":
                # four significant figures: the rounding step is at most a thousandth of the leading digit's place
                leading = len(str(int(mantissa)))
                assert abs(mantissa * size - n) <= Fraction(size * 10**leading, 2 * 10**4), (n, text)
                assert not (decimals and text.split(" ")[0].endswith("0")), (n, text)  # 1.1 亿, not 1.100 亿


def test_the_chinese_short_form_tells_the_three_bert_base_totals_apart():
    # 108,891,648 (no pooler), 109,482,240 (BertModel), 110,106,428 (BertForPreTraining): three numbers, three forms.
    forms = {fmt_short(n, "zh") for n in (108_891_648, 109_482_240, 110_106_428)}
    assert forms == {"1.089 亿", "1.095 亿", "1.101 亿"}
    assert fmt_short(99_995_000, "zh") == "1 亿"  # 9,999.5 万 rounds up into the next unit
    assert fmt_short(999_950_000, "en") == "1.0B"
    assert fmt_short(12_013_233_900_000, "zh") == "12.01 万亿"
