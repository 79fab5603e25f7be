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


def test_the_panel_heading_names_the_class_its_figures_are_for():
    """chinese-review-3 M3 (b): after an edit the panel refuses (BertForMultipleChoice), the last figures stay,
    dimmed, under the error; their heading must say which class they were for ("BertModel · B = 32, …")."""
    import json

    from calculator import api

    for lang, sep in (("en", ", "), ("zh", "，")):
        for arch in ("BertModel", "BertForSequenceClassification"):
            request = {"params": {"preset": "bert-base-uncased", "architecture": arch},
                       "costs": {"batch": "32", "seq_len": "128"}}
            out = json.loads(api.compute_json(json.dumps(request), lang))
            c = out["costs"]
            assert c["ok"], c
            head = c["html"].split('class="calc-costs-settings"', 1)[1].split("</p>", 1)[0]
            assert f"<strong>{arch} · B = 32{sep}L = 128" in head, head


def test_the_panel_intro_names_mixed_precision_beside_the_cast():
    """reader-review-2 H4 (second read): the panel offers Trainer(bf16=True)'s mixed precision now; its intro still
    said only "the model cast to the dtype", the very reading H4 was about. Both languages name both."""
    from calculator.page import costs as panel

    en, zh = panel.label("intro", "en"), panel.label("intro", "zh")
    assert "the model cast to the dtype" in en and "mixed precision" in en, en
    assert "整个模型转换为所选的数据类型" in zh and "混合精度" in zh, zh


def test_the_card_error_names_the_field_as_its_label_does():
    """chinese-review-3 M1 (second read): errors name a field as its label does. The card's label became
    "GPU memory N GB (N)" / "显存 N GB（N）", its error still said "Card size N (GB)" / "显存容量 N". Each step
    field's error begins with its label's words (the label's own trailing gloss left out)."""
    from calculator import api

    cases = (("batch", "0", options.BATCH), ("seq_len", "0", options.SEQ_LEN), ("gpu_gb", "abc", options.GPU_GB))
    for key, value, option in cases:
        for lang in ("en", "zh"):
            message = api.compute_costs({"preset": "bert-base-uncased", key: value}, lang)["error"]["message"]
            words = option.label[lang].split(" (")[0].split("（")[0]
            assert message.startswith(words + " "), (key, lang, words, message)
