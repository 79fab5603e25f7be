"""Issue 35's three reviews, items still open after the last session (helpers/audit35.md lists every item).

Standard library only: this file also runs inside Pyodide.
"""
from calculator import options


def test_gpu_gb_help_says_the_verdict_comes_from_the_peak():
    """reader-review-2 H2 (second read): the verdict against the card rests on the peak or its proven bounds,
    never on the sum (README's --gpu-gb row); the option's help, in both languages, must say the same."""
    en, zh = options.GPU_GB.help["en"], options.GPU_GB.help["zh"]
    assert "sum" not in en and "合计" not in zh, (en, zh)
    assert "peak" in en and "proven bounds" in en, en
    assert "峰值" in zh and "上下界" in zh, zh
    assert "N GiB" in en and "N GiB" in zh
