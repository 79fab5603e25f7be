"""Numbers as people read them: digit groups, short forms (109.5M, 1.095 亿), percentages, shapes, bytes.

Every renderer (text, Markdown, HTML, SVG) formats numbers here, so a figure reads the
same in the CLI, on the pages and in the calculator.
"""
from __future__ import annotations

from ..i18n import norm_lang


def fmt_int(n: int, lang: str = "en") -> str:
    """Digit-grouped integer; Chinese technical writing uses the same thousands separators."""
    return f"{n:,}"


#: Short-form units, smallest first: (size, suffix). Chinese counts in 万 (10^4), 亿 (10^8) and
#: 万亿 (10^12); English in thousands.
SHORT_UNITS: dict[str, tuple[tuple[int, str], ...]] = {
    "zh": ((10**4, " 万"), (10**8, " 亿"), (10**12, " 万亿")),
    "en": ((10**3, "K"), (10**6, "M"), (10**9, "B"), (10**12, "T")),
}


def _rounded(a: int, size: int, decimals: int) -> int:
    """``a / size`` rounded half-up to ``decimals`` places, as an integer count of the last place."""
    scale = 10**decimals
    return (2 * a * scale + size) // (2 * size)


def fmt_short(n: int, lang: str = "en") -> str:
    """A short form people say out loud: 109.5M in English, 1.095 亿 in Chinese.

    Chinese keeps four significant figures (1.089 亿, 1.095 亿 and 1.101 亿 stay three
    different numbers; three figures printed all of them as 1.1 亿, BERT-base's famous
    size); English keeps one decimal (109.5M). The unit is the largest whose mantissa,
    *after rounding*, stays below the next unit (9,999.5 万 is 1 亿, 999.95M is 1.0B),
    and integer arithmetic means no exponent is ever printed, up to the calculator's 10^15.
    Trailing zeros of the Chinese mantissa are dropped (1 亿, 1.1 亿), as people write it.
    """
    lang = norm_lang(lang)
    units = SHORT_UNITS[lang]
    sign, a = ("-" if n < 0 else ""), abs(int(n))
    if a < units[0][0]:
        return str(n)
    step = units[1][0] // units[0][0]  # each unit is this many of the one below (10^4 or 10^3)
    for index, (size, suffix) in enumerate(units):
        last = index == len(units) - 1
        if lang == "zh":
            digits = len(str(a // size)) if a >= size else 1
            decimals = max(4 - digits, 0)
            q = _rounded(a, size, decimals)
            if len(str(q // 10**decimals)) > digits and decimals > 0:  # 9.9995 → 10.00: one place fewer
                decimals -= 1
                q = _rounded(a, size, decimals)
        else:
            decimals = 1
            q = _rounded(a, size, decimals)
        whole, frac = divmod(q, 10**decimals)
        if whole >= step and not last:
            continue  # rounds up to the next unit
        text = str(whole)
        if decimals:
            fraction = str(frac).zfill(decimals)
            if lang == "zh":
                fraction = fraction.rstrip("0")
            text += "." + fraction if fraction else ""
        return sign + text + suffix
    raise AssertionError("unreachable: the last unit always returns")


def fmt_percent(fraction: float, lang: str = "en") -> str:
    """One decimal, or two below 1 % so small components do not all read 0.0 %.

    A part too small for two decimals (a 1,538-parameter head of 109M) reads "<0.01%":
    "0.00%" would say it is nothing.
    """
    pct = fraction * 100
    if 0 < pct < 0.005:
        return "<0.01%"
    return f"{pct:.2f}%" if 0 < pct < 1 else f"{pct:.1f}%"


def fmt_shape(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def fmt_bytes(n: int, lang: str = "en") -> str:
    """Decimal units, as model hubs and file browsers show checkpoint sizes."""
    for size, suffix in ((10**9, "GB"), (10**6, "MB"), (10**3, "kB")):
        if n >= size:
            return f"{n / size:.1f} {suffix}"
    return f"{n} B"


def fmt_binary_bytes(n: int) -> str:
    """Binary units, as ``nvidia-smi`` and PyTorch's memory summaries print them: a step's memory.

    One precision wherever a step's memory is printed (the table, the bar, the fits line, the
    pages): one decimal below a GiB, two from a GiB up, where "does it fit in 24 GB" is decided.
    """
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            if unit == "B":
                return f"{n:,} B"
            return f"{value:,.2f} {unit}" if unit in ("GiB", "TiB") else f"{value:,.1f} {unit}"
        value /= 1024
    return f"{n:,} B"


def fmt_signed(n: int, lang: str = "en") -> str:
    """A difference: "0", "+1,538" or "−98,380,800" (a true minus sign)."""
    if n == 0:
        return "0"
    return ("+" if n > 0 else "−") + fmt_int(abs(n), lang)


def display_width(text: str) -> int:
    """Terminal columns: CJK characters take two (text tables line up in a terminal)."""
    return sum(2 if "\u2e80" <= ch <= "\uffef" else 1 for ch in text)
