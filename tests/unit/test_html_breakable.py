"""``html.breakable``: the panel's notes may end a line only between the parts of a long name (issue 35's layout
rule at 390 px: the SDPA note's kernel name was cut inside itself). Expected strings written out by hand."""
from calculator.html import breakable


def test_long_names_get_break_points_after_their_separators_and_everything_is_escaped() -> None:
    got = breakable("kernel (_scaled_dot_product_flash_attention_for_cpu) <b>&")
    assert got == ("kernel (_<wbr>scaled_<wbr>dot_<wbr>product_<wbr>flash_<wbr>attention_<wbr>for_<wbr>cpu) "
                   "&lt;b&gt;&amp;")


def test_short_names_and_chinese_text_are_left_whole() -> None:
    assert breakable("model.to(dtype) a_b") == "model.to(dtype) a_b"
    assert breakable("注意力 dropout 为 0 时测得的，其余 dropout 按配置计算。") == "注意力 dropout 为 0 时测得的，其余 dropout 按配置计算。"
    assert breakable("bert.encoder.layer.11.attention") == "bert.<wbr>encoder.<wbr>layer.11.<wbr>attention"
