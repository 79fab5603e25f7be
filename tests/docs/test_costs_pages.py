"""The two training-cost pages show the CLI's figures, and what other tools print is their own arithmetic.

Expected values come from the command line (``python -m calculator ... --format
json``, run as a reader runs it), from hand arithmetic on bert-base's config in
this file (the forward's terms, 4·L·H per token per layer), and from accelerate
itself for Hugging Face's memory estimator; never from the site's hooks.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from calculator import views

from .builtsite import LANGS, ROOT, Site, page_url

#: bert-base-uncased (config.json) and the step of the pages.
H, I, V, P, LAYERS, HEADS = 768, 3072, 30522, 512, 12, 12
B, SHORT, LONG = 32, 128, 512
MLM = ["--preset", "bert-base-uncased", "--architecture", "BertForMaskedLM"]
#: BertForMaskedLM's LayerNorms, each on [B, L, H]: the embeddings', two per layer, the head's.
LAYER_NORMS = 1 + 2 * LAYERS + 1
#: num_parameters(exclude_embeddings=True) of BertForMaskedLM: all minus the word, position, token-type tables.
MLM_TOTAL = 109_514_298
NON_EMBEDDING = MLM_TOTAL - (V + P + 2) * H


def cli(*args: str) -> dict:
    """The JSON ``costs`` object the CLI prints for one step of BertForMaskedLM, in eager attention (the page's
    worked step: it explains the L × L probabilities; the CLI's default would be SDPA, BertModel's)."""
    out = subprocess.run([sys.executable, "-m", "calculator", *MLM, "--attention", "eager", "--format", "json", *args],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    assert data["total"] == MLM_TOTAL
    return data["costs"]


@pytest.fixture(scope="module")
def steps() -> dict[str, dict]:
    return {
        "s32": cli("--batch", str(B), "--seq-len", str(SHORT)),
        "s16": cli("--batch", str(B), "--seq-len", str(SHORT), "--dtype", "bf16"),
        "l32": cli("--batch", str(B), "--seq-len", str(LONG)),
        "l16": cli("--batch", str(B), "--seq-len", str(LONG), "--dtype", "bf16"),
        "frozen": cli("--batch", str(B), "--seq-len", str(SHORT), "--freeze-embeddings"),
        "lora": cli("--batch", str(B), "--seq-len", str(SHORT), "--lora-r", "8", "--lora-targets", "query,value"),
        "ckpt": cli("--batch", str(B), "--seq-len", str(SHORT), "--grad-checkpointing"),
    }


def fmt(n: int) -> str:
    return views.fmt_int(n)


def table_after(page, first_cells: tuple[str, ...]) -> list[list[str]]:
    """The page's table whose body starts with a row labelled one of ``first_cells``."""
    for table in page.tables:
        if len(table) > 1 and table[1][0] in first_cells:
            return table
    raise AssertionError(f"no table starting with {first_cells}")


def forward_by_hand(seq: int) -> int:
    """FlopCounterMode's forward of BertForMaskedLM, 2 per multiply-add, matmuls only (B sequences of ``seq``)."""
    tokens = B * seq
    per_layer = 4 * 2 * tokens * H * H + 2 * 2 * tokens * H * I + 4 * seq * H * tokens
    return LAYERS * per_layer + 2 * tokens * H * H + 2 * tokens * H * V


def test_cli_forward_is_the_hand_arithmetic(steps):
    assert steps["s32"]["flops"]["forward"] == forward_by_hand(SHORT) == 911_971_713_024
    assert steps["l32"]["flops"]["forward"] == forward_by_hand(LONG)
    assert steps["s32"]["flops"]["backward"] == 2 * forward_by_hand(SHORT)


@pytest.mark.parametrize("lang", LANGS)
def test_worked_tables_are_the_cli_json(site: Site, steps, lang: str):
    page = site.page("training-step.md", lang)
    flops = table_after(page, ("forward", "前向"))
    s, l_ = steps["s32"]["flops"], steps["l32"]["flops"]
    assert [row[1:] for row in flops[1:4]] == [
        [fmt(s["forward"]), fmt(l_["forward"])],
        [fmt(s["backward"]), fmt(l_["backward"])],
        [fmt(s["forward"] + s["backward"]), fmt(l_["forward"] + l_["backward"])],
    ]
    memory = table_after(page, ("weights", "权重"))
    columns = [steps[k]["memory"] for k in ("s32", "s16", "l32", "l16")]
    four = ("weights", "gradients", "optimizer", "activations")
    for row, key in zip(memory[1:5], four):
        assert row[1:] == [fmt(m[key]) for m in columns], key
    # The sum of the four (the JSON's memory also holds the peak, which is not one of them).
    assert memory[5][1:] == [fmt(sum(m[key] for key in four)) for m in columns]


@pytest.mark.parametrize("lang", LANGS)
def test_forward_terms_by_hand(site: Site, lang: str):
    page = site.page("training-step.md", lang)
    terms = table_after(page, ("Q, K, V and output projections", "Q、K、V 和输出投影"))
    tokens = B * SHORT
    attention = 4 * SHORT * H * tokens * LAYERS  # 4·L·H per token per layer
    expected = [
        8 * tokens * H * H * LAYERS, 4 * tokens * H * I * LAYERS, attention, 2 * tokens * H * H, 2 * tokens * H * V, 0,
        forward_by_hand(SHORT),
    ]
    assert [row[-1] for row in terms[1:]] == [fmt(n) for n in expected]
    assert fmt(2 * MLM_TOTAL * tokens) in page.text  # the 2·N per token it is compared with


@pytest.mark.parametrize("lang", LANGS)
def test_backward_table_is_the_cli_json(site: Site, steps, lang: str):
    page = site.page("training-step.md", lang)
    table = table_after(page, ("everything trains", "全部参数训练"))
    for row, key in zip(table[1:], ("s32", "frozen", "lora", "ckpt")):
        c = steps[key]
        assert row[1:3] == [fmt(c["flops"]["forward"]), fmt(c["flops"]["backward"])], key
        assert row[3] == f"{c['flops']['backward'] / c['flops']['forward']:.3f}", key
        assert row[4:] == [fmt(c["memory"]["gradients"]), fmt(c["memory"]["activations"])], key
    tokens = B * SHORT
    # Frozen embeddings: layer 0's Q, K, V skip dX, and the tied decoder skips dW.
    assert steps["s32"]["flops"]["backward"] - steps["frozen"]["flops"]["backward"] == \
        3 * 2 * tokens * H * H + 2 * tokens * H * V
    # Checkpointing: the backward runs the layers' forward again (everything but the head).
    layers_forward = forward_by_hand(SHORT) - 2 * tokens * H * H - 2 * tokens * H * V
    assert steps["ckpt"]["flops"]["backward"] == 2 * forward_by_hand(SHORT) + layers_forward


@pytest.mark.parametrize("lang", LANGS)
def test_what_the_tools_print(site: Site, steps, lang: str):
    text = site.page("why-costs-disagree.md", lang).text
    fwd = steps["s32"]["flops"]["forward"]
    tokens = B * SHORT
    attention = 4 * SHORT * H * tokens * LAYERS
    expected = {
        "fvcore, eager": fwd // 2 + 5 * LAYER_NORMS * tokens * H,
        "fvcore, SDPA": (fwd - attention) // 2 + 5 * LAYER_NORMS * tokens * H,
        "DeepSpeed MACs, eager": fwd // 2,
        "DeepSpeed MACs, SDPA / thop Linear": (fwd - attention) // 2,
        "calflops": 3 * fwd,
        "6ND, all": 6 * MLM_TOTAL * tokens,
        "6ND, non-embedding": 6 * NON_EMBEDDING * tokens,
        "LoRA step": steps["lora"]["flops"]["forward"] + steps["lora"]["flops"]["backward"],
    }
    missing = {k: fmt(v) for k, v in expected.items() if fmt(v) not in text}
    assert missing == {}


@pytest.mark.parametrize("lang", LANGS)
def test_hf_estimator_is_accelerates_own(site: Site, lang: str):
    """accelerate's estimate-memory on BertModel (what AutoModel builds), computed by accelerate itself."""
    pytest.importorskip("accelerate")
    from accelerate import init_empty_weights
    from accelerate.commands.estimate import estimate_training_usage
    from accelerate.utils import calculate_maximum_sizes
    from transformers import BertConfig, BertModel

    with init_empty_weights():
        model = BertModel(BertConfig())
    total, _ = calculate_maximum_sizes(model)
    text = site.page("why-costs-disagree.md", lang).text
    for dtype in ("float32", "float16"):
        stages = estimate_training_usage(total, dtype)
        assert fmt(max(stages.values())) in text, dtype
        assert fmt(sum(stages.values())) in text, dtype
    assert fmt(total) in text


@pytest.mark.parametrize("lang", LANGS)
def test_definition_says_convolutions_and_squeezebert_ratio_is_the_clis(site: Site, lang: str):
    """chinese-review-3 H1: FlopCounterMode counts convolutions too, and a grouped convolution's weight
    gradient as ungrouped; the ratio the page quotes is the CLI's backward over its forward."""
    out = subprocess.run([sys.executable, "-m", "calculator", "--preset", "squeezebert/squeezebert-uncased",
                          "--batch", "1", "--seq-len", "128", "--format", "json"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    flops = json.loads(out)["costs"]["flops"]
    ratio = f"{flops['backward'] / flops['forward']:.2f}"
    assert ratio == "4.02"
    html = site.file_for(page_url("training-step.md", lang)).read_text(encoding="utf-8")
    text = " ".join(html.split())
    if lang == "en":
        assert "matrix multiplications and convolutions" in text and f"is {ratio} times its forward" in text
        assert "matrix multiplications only" not in text
    else:
        assert "统计矩阵乘法和卷积" in text and f"的反向是前向的 {ratio} 倍" in text
        assert "只统计矩阵乘法" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_long_inline_code_breaks_only_after_its_dots(site: Site, lang: str):
    """The layout issue of /training-step/ at 390 px: the dotted path may wrap after a dot or an underscore inside
    a name, a CamelCase name at its words' ends, nowhere else (sitegen/codebreak.py); code blocks are left as they
    are."""
    html = site.file_for(page_url("training-step.md", lang)).read_text(encoding="utf-8")
    assert "<code>torch.<wbr>autograd.<wbr>graph.<wbr>saved_<wbr>tensors_<wbr>hooks</code>" in html
    assert "<code>torch.<wbr>nn.<wbr>functional.<wbr>scaled_<wbr>dot_<wbr>product_<wbr>attention</code>" in html
    assert "<code>Scaled<wbr>Dot<wbr>Product<wbr>Efficient<wbr>Attention<wbr>Backward0</code>" in html
    assert "<code>model.to(dtype)</code>" in html  # short code: no break points
    for block in re.findall(r"<pre\b.*?</pre>", html, re.S):
        assert "<wbr>" not in block
