"""The training step's words (chinese-review-3): what the note says FlopCounterMode counts, the errors'
names for B, L and the card's size, lists as each language lists them, the optimizers' names.

Standard library only: this file also runs inside Pyodide.
"""
from calculator import api, costs, views
from calculator.build import build
from calculator.page import costs as panel
from calculator.presets import get_preset

from .helpers import expect_error


def _step(preset, batch=1, seq_len=128):
    inv = build(get_preset(preset).config)
    return inv, costs.compute(inv, costs.settings(batch, seq_len))


def test_squeezebert_backward_counts_grouped_weight_gradients_as_ungrouped():
    """H1: FlopCounterMode counts SqueezeBERT's 1×1 convolutions (not only matmuls), and a grouped
    convolution's weight gradient as if it were ungrouped. By hand, B = 1, L = 128, H = 768, I = 3072,
    12 layers; groups 4 for Q, K, V, the intermediate and the output convolution, 1 for post_attention."""
    n, h, i, layers = 128, 768, 3072, 12
    # (C_out, C_in, groups) of each convolution of a layer.
    convs = [(h, h, 4), (h, h, 4), (h, h, 4), (h, h, 1), (i, h, 4), (h, i, 4)]
    conv_fwd = sum(2 * n * out * cin // g for out, cin, g in convs)       # 566,231,040 per layer
    conv_dw = sum(2 * n * out * cin for out, cin, _ in convs)            # the weight's gradient, ungrouped
    attention = 4 * n * n * h                                             # QKᵀ and probabilities·V per layer
    pooler = 2 * h * h                                                    # one first token
    forward = layers * (conv_fwd + attention) + pooler
    backward = layers * (conv_fwd + conv_dw + 2 * attention) + 2 * pooler
    assert conv_fwd == 566_231_040 and forward == 7_399_931_904 and backward == 29_748_363_264
    inv, step = _step("squeezebert/squeezebert-uncased")
    assert (step.forward, step.backward) == (forward, backward)
    assert round(step.backward / step.forward, 2) == 4.02  # not 2: the note must say why
    assert views.costs.grouped_convolutions(inv)
    for lang, words in (("en", ("convolutions", "as if the convolution were ungrouped")),
                        ("zh", ("矩阵乘法和卷积", "按不分组的卷积计数"))):
        for markdown in (False, True):
            text = views.costs.render(step, lang, markdown, grouped=True)
            assert all(w in text for w in words), (lang, markdown, text)


def test_bert_note_names_convolutions_but_no_grouped_caveat():
    inv, step = _step("bert-base-uncased")
    assert not views.costs.grouped_convolutions(inv)
    for lang, counted, caveat in (("en", "matrix multiplications and convolutions", "ungrouped"),
                                  ("zh", "统计矩阵乘法和卷积", "分组卷积")):
        text = views.costs.render(step, lang)
        assert counted in text and caveat not in text, text
        assert "matmuls only" not in text and "只计矩阵乘法" not in text


def test_the_panel_note_follows_the_model():
    out = api.compute_costs({"preset": "squeezebert/squeezebert-uncased", "batch": "1", "seq_len": "16"}, "zh")
    assert out["ok"] and out["grouped_convolutions"] is True
    html = panel.answer(out, {"gpu_gb": "24"}, "zh")["html"]
    assert "按不分组的卷积计数" in html
    out = api.compute_costs({"preset": "bert-base-uncased", "batch": "1", "seq_len": "16"}, "zh")
    assert "按不分组的卷积计数" not in panel.answer(out, {"gpu_gb": "24"}, "zh")["html"]


def test_errors_name_the_fields_by_their_labels_not_the_query_keys():
    """M1: the page's fields read "Batch size B", "Sequence length L", "Fits in N GB? (N)"; ``batch``,
    ``seq_len`` and ``gpu_gb`` are only in the address."""
    cases = (
        ({"batch": "0"}, "Batch size B must be a whole number of at least 1 (got 0).",
         "批大小 B 必须是不小于 1 的整数（当前为 0）。"),
        ({"batch": ""}, "Batch size B is empty: enter a whole number of at least 1.",
         "请填写批大小 B（不小于 1 的整数）。"),
        ({"seq_len": "0"}, "Sequence length L must be a whole number of at least 1 (got 0).",
         "序列长度 L 必须是不小于 1 的整数（当前为 0）。"),
        ({"batch": "2000000"}, "Batch size B is larger than this calculator accepts (got 2,000,000, at most 1,000,000).",
         "批大小 B 超出了计算器允许的范围（当前为 2,000,000，最大 1,000,000）。"),
    )
    for params, en, zh in cases:
        for lang, want in (("en", en), ("zh", zh)):
            e = api.compute_costs({"preset": "bert-base-uncased", **params}, lang)["error"]
            assert e["message"] == want, (params, e["message"])
    for value, en, zh in (("abc", "GPU memory N GB must be a whole number of at least 1 (got abc).",
                           "显存 N GB 必须是不小于 1 的整数（当前为 abc）。"),
                          ("", "GPU memory N GB is empty: enter a whole number of at least 1.",
                           "请填写显存 N GB（不小于 1 的整数）。")):
        for lang, want in (("en", en), ("zh", zh)):
            e = api.compute_costs({"preset": "bert-base-uncased", "gpu_gb": value}, lang)["error"]
            assert e["message"] == want and e["field"] == "gpu_gb", e
    for lang in ("en", "zh"):
        for params in ({"batch": "0"}, {"seq_len": "x"}, {"batch": "9999999"}):
            message = api.compute_costs({"preset": "bert-base-uncased", **params}, lang)["error"]["message"]
            assert "batch" not in message and "seq_len" not in message, message


def test_lists_in_step_errors_use_the_chinese_list_mark():
    """L2: "、" between names in Chinese, ", " in English; a choice of two with "or" / "或"."""
    exc = expect_error("costs_dtype", costs.settings, 1, 8, "fp16")
    assert exc.message("en") == "dtype must be fp32 or bf16 (got fp16)."
    assert exc.message("zh") == "dtype 只能是 fp32 或 bf16（当前为 fp16）。"
    exc = expect_error("costs_optimizer", costs.settings, 1, 8, "fp32", "adam")
    assert "adamw, sgd, sgd-momentum, adafactor" in exc.message("en")
    assert "adamw、sgd、sgd-momentum、adafactor" in exc.message("zh")
    inv = build(get_preset("bert-base-uncased").config, "BertForMultipleChoice")
    exc = expect_error("costs_architecture", costs.compute, inv, costs.settings(1, 8))
    raw = dict(get_preset("facebook/xmod-base").config, default_language=None)
    exc = expect_error("costs_xmod_language", costs.compute, build(raw), costs.settings(1, 8))
    zh, en = exc.message("zh"), exc.message("en")
    assert "、" in zh and ", " not in zh and "……）" in zh, zh
    assert ", …)" in en and "、" not in en, en


def test_optimizer_names_in_chinese_use_full_width_brackets():
    """L3: "SGD（带动量）" in the Chinese menu, heading and copies; "SGD (momentum)" in English."""
    assert views.costs.optimizer_name("sgd-momentum", "zh") == "SGD（带动量）"
    assert views.costs.optimizer_name("sgd-momentum", "en") == "SGD (momentum)"
    assert views.costs.optimizer_name("adamw", "zh") == "AdamW"
    step = costs.compute(build(get_preset("bert-base-uncased").config), costs.settings(1, 8, "fp32", "sgd-momentum"))
    assert "SGD（带动量）" in views.costs.render(step, "zh") and "(momentum)" not in views.costs.render(step, "zh")
    assert "SGD（带动量）" in str(panel.render_panel("zh")) and "SGD (momentum)" in str(panel.render_panel("en"))


def test_one_precision_for_a_steps_memory():
    """L10: the table, the bar and the fits line print bytes alike: GiB with two decimals, MiB with one,
    and 0 as "0 B" (SGD keeps no state)."""
    fmt = views.fmt_binary_bytes
    assert fmt(5_414_295_324) == "5.04 GiB"      # 5,414,295,324 / 2**30 = 5.0425
    assert fmt(1_182_724) == "1.1 MiB"           # 1,182,724 / 2**20 = 1.128
    assert fmt(0) == "0 B"
    assert fmt(3 * 2**40 // 2) == "1.50 TiB"
    out = api.compute_costs({"preset": "bert-base-uncased", "batch": "1", "seq_len": "8", "optimizer": "sgd"}, "en")
    html = panel.answer(out, {"gpu_gb": "24"}, "en")["html"]
    assert "optimizer state · 0 B" in html and "0.0 MiB" not in html


def _cli(*argv):
    import contextlib
    import io

    from calculator import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:  # --help
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_cli_says_which_step_option_is_missing():
    """M2: a step option without --batch or --seq-len is a usage error naming the missing option, not
    "batch is empty" (nothing was typed empty)."""
    cases = (
        (("--seq-len", "128"), "missing: --batch)", "（缺少 --batch）"),
        (("--batch", "2", "--dtype", "fp16"), "missing: --seq-len)", "（缺少 --seq-len）"),
        (("--dtype", "bf16",), "missing: --batch and --seq-len)", "（缺少 --batch 和 --seq-len）"),
        (("--grad-checkpointing",), "missing: --batch and --seq-len)", "（缺少 --batch 和 --seq-len）"),
        (("--optimizer", "sgd"), "missing: --batch and --seq-len)", "（缺少 --batch 和 --seq-len）"),
    )
    for args, en, zh in cases:
        for lang, want in (("en", en), ("zh", zh)):
            code, out, err = _cli("--preset", "bert-base-uncased", *args, "--lang", lang)
            assert code == 2 and out == "" and err.startswith("error: usage: ") and want in err, (args, err)
            assert "--help" in err and "batch 为空" not in err and "is empty" not in err, err
    code, out, err = _cli("--batch", "2", "--format", "json", "--lang", "zh")
    assert code == 2 and '"code": "usage"' in out and "缺少 --seq-len" in out, out


def test_cli_errors_in_chinese_read_as_chinese():
    """L2 (argparse's choices with "、", the value in Chinese quotes) and L13 (the system's English reason)."""
    code, _, err = _cli("--format", "yaml", "--lang", "zh")
    assert code == 2 and "--format 的取值“yaml”无效（可选：text、markdown、json）。" in err, err
    code, _, err = _cli("--config", "/nonexistent/config.json", "--lang", "zh")
    assert code == 2 and err.strip() == "error: file: 无法读取 /nonexistent/config.json：文件不存在", err
    code, _, err = _cli("--config", "/nonexistent/config.json")
    assert code == 2 and err.strip() == "error: file: cannot read /nonexistent/config.json: no such file", err


def test_cli_prints_the_grouped_convolution_caveat():
    code, out, _ = _cli("--preset", "squeezebert/squeezebert-uncased", "--batch", "1", "--seq-len", "16", "--lang", "zh")
    assert code == 0 and "按不分组的卷积计数" in out
    code, out, _ = _cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "16", "--lang", "zh")
    assert code == 0 and "按不分组的卷积计数" not in out and "统计矩阵乘法和卷积" in out


def test_cli_help_in_chinese_fits_the_terminal_and_keeps_identifiers_whole():
    """L12: argparse measured a Chinese character as one column; at 80 columns its lines ran to ~100 and
    "save_pretrained" broke over two lines. Also: the help says B and L go together."""
    import os

    from calculator.views.numbers import display_width

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        code, out, _ = _cli("--help", "--lang", "zh")
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    assert code == 0
    too_wide = [line for line in out.splitlines() if display_width(line) > 80]
    assert too_wide == [], too_wide
    assert "save_pretrained" in out and "torchinfo、state_dict、save_pretrained" in " ".join(out.split()).replace("、 ", "、")
    assert "与 --seq-len 一起给出时，输出训练一步的开销" in out and "需与 --batch 同时给出" in out
    assert "不带值时为非重入式（use_reentrant=False）" in out and "训练一步的 FLOPs 和显存" in out
    assert "加上训练一步的开销" not in out


def test_text_report_names_the_class_difference_and_the_ties_first_name():
    """L25: the text format says what the Markdown summary and the page say about a class other than the
    base model. L22: the word table of XLM-R's MLM class, first named lm_head.decoder.weight by
    named_parameters(), says so on its own row, where its count is."""
    inv = build(get_preset("google/electra-base-discriminator").config, "ElectraForPreTraining")
    zh = views.text_report(inv, "zh").splitlines()
    assert zh[1] == "ElectraForPreTraining 比基础模型 ElectraModel 多 591,361 个参数（新增 discriminator_predictions：591,361）"
    assert 109_483_009 == 108_891_648 + 591_361 and inv.total == 109_483_009
    assert views.class_difference_line(build(get_preset("bert-base-uncased").config)) is None
    inv = build(get_preset("xlm-roberta-base").config, "XLMRobertaForMaskedLM")
    rows = {line.split()[0]: line for line in views.text_report(inv, "zh").splitlines() if line.startswith(("lm_head.", "roberta.embeddings.word"))}
    assert rows["roberta.embeddings.word_embeddings.weight"].endswith(
        "192,001,536  （named_parameters() 中它首次出现的名字是 lm_head.decoder.weight；计在这一行）")
    assert "与 roberta.embeddings.word_embeddings.weight 共享，只计一次" in rows["lm_head.decoder.weight"]
