"""Issue 35, the reader's second review (and reliability M5, L5): what a practitioner pastes into a forum answer.

* H5: a config that names custom code (``auto_map``) or sets a key the stock class ignores is counted as that
  class with a note beside the total, in every copy, in the link's label and in the CLI;
* M2: the panel's Copy as Markdown is one block (model, class, notes, plan, assumptions, figures, the sum
  against the card, the CLI command, which prints the same figures);
* H1/H4: the step's assumptions stand beside its figures (eager attention where transformers defaults to SDPA;
  bf16 is a whole-model cast, not Trainer's autocast);
* M5/L5: a label or ``_name_or_path`` reaches Markdown as text; the CLI's tables keep their columns;
* L3: the page prints bytes in binary units throughout; L6: a pasted config's Hub id travels in its link.

Standard library only: this file also runs inside Pyodide. Expected values are written out here (the
jina-embeddings-v3 count is transformers' own, checked in tests/crosscheck/test_config_notes_reference.py).
"""
import contextlib
import io
import json
import re
import shlex
import sys

from calculator import api, views
from calculator.families import FAMILIES

#: jina-embeddings-v3's config.json, its size and custom-code keys (XLM-R large with 8,194 positions).
JINA_V3 = {
    "_name_or_path": "jinaai/jina-embeddings-v3",
    "architectures": ["XLMRobertaModel"],
    "auto_map": {"AutoConfig": "jinaai/xlm-roberta-flash-implementation--configuration_xlm_roberta.XLMRobertaFlashConfig",
                 "AutoModel": "jinaai/xlm-roberta-flash-implementation--modeling_lora.XLMRobertaLoRA"},
    "model_type": "xlm-roberta", "position_embedding_type": "rotary", "rotary_emb_base": 20000.0,
    "lora_adaptations": ["retrieval.query", "retrieval.passage", "separation", "classification", "text-matching"],
    "lora_rank": 4, "lora_alpha": 1, "use_flash_attn": True, "vocab_size": 250002, "hidden_size": 1024,
    "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096, "max_position_embeddings": 8194,
    "type_vocab_size": 1, "pad_token_id": 1, "layer_norm_eps": 1e-05,
}


class _Stdin:
    """What the CLI reads for ``--config -`` (``sys.stdin.buffer``), holding ``text``."""

    def __init__(self, text: str) -> None:
        self.buffer = io.BytesIO(text.encode("utf-8"))


def run_cli(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
    """The CLI in this process; ``stdin`` is what a shell's pipe would give ``--config -``."""
    from calculator import cli

    out, err = io.StringIO(), io.StringIO()
    before = sys.stdin
    try:
        if stdin is not None:
            sys.stdin = _Stdin(stdin)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(argv))
    finally:
        sys.stdin = before
    return code, out.getvalue(), err.getvalue()


def run_command(command: str) -> tuple[int, str, str]:
    """A command the page prints (``python -m calculator ...``, perhaps after ``echo '{...}' |``), run here."""
    stdin = None
    if command.startswith("echo "):
        echo, command = command.split(" | ", 1)
        stdin = shlex.split(echo)[1]
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", "calculator"], words
    return run_cli(*words[3:], stdin=stdin)


def _panel(params, costs, lang="en"):
    out = json.loads(api.compute_json(json.dumps({"params": params, "costs": costs}), lang))
    assert out["ok"], out
    assert out["costs"]["ok"], out["costs"]
    return out, out["costs"]


# ------------------------------------------------------------------ H5: custom code and ignored keys


def test_a_custom_code_config_is_counted_as_the_stock_class_with_a_note_everywhere():
    for lang, custom, stock, ignored in (
        ("en", "auto_map", "transformers' own XLMRobertaModel", "position_embedding_type = \"rotary\""),
        ("zh", "auto_map", "transformers 自带的 XLMRobertaModel", "position_embedding_type = \"rotary\""),
    ):
        out = api.compute_config(json.dumps(JINA_V3), lang)
        assert out["ok"] and out["total"] == 567_754_752  # transformers' XLMRobertaModel from this config
        notes = out["notes"]
        assert len(notes) == 2 and custom in notes[0] and stock in notes[0] and ignored in notes[1], notes
        # The keys the stock class does not read are named (what the checkpoint's own code reads).
        for key in ("lora_adaptations", "lora_rank", "rotary_emb_base", "use_flash_attn"):
            assert key in notes[0], (key, notes[0])
        for known in ("vocab_size", "layer_norm_eps", "pad_token_id", "_name_or_path"):
            assert known not in notes[0].split("auto_map")[-1].split(":")[-1], known
        # Beside the total on the page, and first in every copy.
        html = out["summary_html"]
        assert html.count('class="calc-config-note"') == 2 and 'data-note="custom_code"' in html
        assert html.index("calc-total") < html.index("calc-config-note")
        for copy, prefix in ((out["markdown"], "> "), (out["markdown_full"], "> "), (out["text"], "")):
            assert copy.startswith(prefix + notes[0] + "\n\n" + prefix + notes[1] + "\n\n"), copy[:300]
        # The link's label says which class was counted.
        source = re.search(r'data-source-text="([^"]*)"', html).group(1)
        assert "XLMRobertaModel" in source and "auto_map" in source and "567,754,752" in source, source
    # The link keeps what the notes say: reopened, the page says it again (the custom class, the ignored key).
    out = api.compute_config(json.dumps(JINA_V3), "en")
    link = out["link"]
    assert link["auto_map"] == JINA_V3["auto_map"]["AutoModel"] and link["position_embedding_type"] == "rotary"
    assert link["label"] == "jinaai/jina-embeddings-v3"
    again = api.compute(link, "en")
    assert again["total"] == 567_754_752 and re.findall(r'data-note="([a-z_]+)"', again["summary_html"]) == [
        "custom_code", "ignored_key"]
    # The CLI: the notes first (JSON: with their codes).
    code, out, err = run_cli("--config", "-", "--format", "json", stdin=json.dumps(JINA_V3))
    assert code == 0 and [n["code"] for n in json.loads(out)["notes"]] == ["custom_code", "ignored_key"]
    code, out, err = run_cli("--config", "-", "--format", "markdown", "--lang", "zh", stdin=json.dumps(JINA_V3))
    assert code == 0 and out.startswith("> 注意：配置中带有 auto_map") and "XLMRobertaModel" in out.split("\n")[0]


def test_a_key_the_class_ignores_is_said_only_when_set_otherwise():
    cases = [
        ({"model_type": "bert", "position_embedding_type": "relative_key"}, ["position_embedding_type"]),
        ({"model_type": "bert", "position_embedding_type": "absolute"}, []),
        ({"model_type": "roberta", "add_cross_attention": True, "is_decoder": True}, ["add_cross_attention"]),
        ({"model_type": "roberta", "add_cross_attention": False}, []),
        ({"model_type": "electra", "position_embedding_type": "relative_key_query"}, ["position_embedding_type"]),
        # ESM reads position_embedding_type itself (rotary builds no table): no note.
        ({"model_type": "esm", "position_embedding_type": "rotary", "pad_token_id": 1}, []),
        ({"model_type": "bert"}, []),
    ]
    for config, keys in cases:
        for lang in ("en", "zh"):
            out = api.compute_config(json.dumps(config), lang)
            assert out["ok"], out
            got = re.findall(r'data-note="([a-z_]+)"', out["summary_html"])
            assert got == ["ignored_key"] * len(keys), (config, got)
            for key, note in zip(keys, out["notes"]):
                assert key in note and out["architecture"] in note, note
    # No auto_map, no note about custom code, whatever unknown keys a published config holds.
    chinese = {"model_type": "bert", "directionality": "bidi", "pooler_fc_size": 768, "pooler_type": "first_token_transform"}
    assert api.compute_config(json.dumps(chinese), "en")["notes"] == []


# ------------------------------------------------------------------ M2: one block for a forum answer


#: The memory total's four parts (``memory`` also holds the peak, no part of the sum).
PARTS = ("weights", "gradients", "optimizer", "activations")


def test_the_panel_copy_is_one_block_whose_command_prints_the_same_figures():
    params = {"preset": "microsoft/deberta-v3-base", "architecture": "DebertaV2ForSequenceClassification",
              "lora_r": "8", "lora_targets": "query_proj,value_proj", "peft_task_type": "SEQ_CLS"}
    costs = {"batch": "2", "seq_len": "16", "dtype": "bf16", "gpu_gb": "16"}
    for lang, words in (("en", ("Assumptions:", "offers no SDPA", "Trainer(bf16=True)", "the mixed-precision setting",
                                "The same with the CLI:")),
                        ("zh", ("前提：", "不支持 SDPA", "Trainer(bf16=True)", "混合精度设置", "用命令行得到同样的结果："))):
        out, c = _panel(params, costs, lang)
        block = c["markdown"]
        # Model and class first; the plan with peft's line and its warning (DeBERTa's random pooler); the step.
        assert block.startswith("**microsoft/deberta-v3-base** · `DebertaV2ForSequenceClassification`"), block[:120]
        assert out["plan"]["line"] in block and "pooler" in block.split("**" + ("Training step" if lang == "en" else "训练一步"))[0]
        for w in words:
            assert w in block, (lang, w)
        total = c["costs"]["memory"]
        exact = f"{sum(total[k] for k in PARTS):,}"
        assert f"| {exact} |" in block and "16 GB" in block
        assert ("not the peak" if lang == "en" else "不是峰值") in block
        command = c["command"]
        assert f"```sh\n{command}\n```" in block
        assert "--preset microsoft/deberta-v3-base" in command and "--gpu-gb 16" in command and "--label" not in command
        code, printed, err = run_command(command)
        assert code == 0 and err == "", err
        # The CLI prints the same step: its total row, peft's line, the sum against the same card.
        assert f"| {exact} |" in printed and out["plan"]["line"] in printed and "16 GB (17,179,869,184" in printed
        assert "use_reentrant" not in block  # checkpointing off: nothing to say about it


def test_an_edited_model_travels_in_the_command_as_its_config():
    params = {"preset": "bert-base-uncased", "num_hidden_layers": "2", "label": "my <b>model</b>\nline"}
    _, c = _panel(params, {"batch": "1", "seq_len": "8", "ckpt": "1"})
    command = c["command"]
    assert command.startswith("echo ") and "--config -" in command and "--grad-checkpointing" in command
    assert "--label 'my <b>model</b> line'" in command  # shell-quoted, one line
    code, printed, _ = run_command(command)
    assert code == 0 and f"| {sum(c['costs']['memory'][k] for k in PARTS):,} |" in printed
    # The name heads the block as text: escaped, on one line.
    assert c["markdown"].startswith("**my \\<b\\>model\\</b\\> line** · `BertModel`")
    assert "use_reentrant=False" in c["markdown"] and "use_reentrant=True" not in c["markdown"]  # ckpt=1: the default


# ------------------------------------------------------------------ H1, H4: the assumptions beside the figures


def test_the_attention_note_follows_the_family_default():
    from calculator.build import build
    from calculator.costs import Settings

    for model_type, family in sorted(FAMILIES.items()):
        if family.costs is None or not family.presets:
            continue
        inv = build(family.presets[0].config)
        keys = [k for k, _ in views.costs.assumptions(inv, Settings(1, 8, "bf16", "adamw", True), "en")]
        reentrant = [k for k, _ in views.costs.assumptions(inv, Settings(1, 8, "bf16", "adamw", True, True), "en")]
        expected = "attention_sdpa" if family.default_attention == "sdpa" else "attention_eager"
        if "costs_mixing" in family.labels:  # FNet: no attention; the note says what mixes the tokens instead
            expected = "costs_mixing"
        assert keys == [expected, "dtype_bf16", "ckpt_non-reentrant"], (model_type, keys)
        assert reentrant == [expected, "dtype_bf16", "ckpt_reentrant"], (model_type, reentrant)
    for preset, expected in (("bert-base-uncased", "attention_sdpa"), ("microsoft/deberta-v3-base", "attention_eager")):
        _, c = _panel({"preset": preset}, {"batch": "1", "seq_len": "8", "attention": "eager"})
        assert [a["key"] for a in c["assumptions"]] == [expected, "dtype_fp32"]
        assert f'data-assumption="{expected}"' in c["html"]
    # The default attention (issue 32): transformers' choice for the class. BertModel: SDPA (its attention dropout
    # 0.1 left out, as a GPU's fused kernel keeps no mask: the note says so); DeBERTa-v2: eager (it has no SDPA).
    for preset, expected in (("bert-base-uncased", ["attention_sdpa_run", "dtype_fp32", "sdpa_dropout_gpu"]),
                             ("microsoft/deberta-v3-base", ["attention_eager", "dtype_fp32"])):
        _, c = _panel({"preset": preset}, {"batch": "1", "seq_len": "8"})
        assert [a["key"] for a in c["assumptions"]] == expected, preset
    # The families transformers 5.23 builds with SDPA by default include the reader's (BERT, XLM-R, ModernBERT).
    assert {m for m, f in FAMILIES.items() if f.default_attention == "sdpa"} >= {"bert", "xlm-roberta", "modernbert"}
    assert FAMILIES["deberta-v2"].default_attention == "eager"
    _, c = _panel({"preset": "bert-base-uncased"}, {"batch": "1", "seq_len": "8", "dtype": "bf16"}, "zh")
    assert "SDPA" in c["html"] and "Trainer(bf16=True)" in c["html"] and "16 字节" in c["html"]


def test_the_dtype_field_says_it_is_a_cast_not_trainer_bf16():
    from calculator import options
    from calculator.page import costs as panel

    page = {lang: str(panel.render_panel(lang)) for lang in ("en", "zh")}
    for lang in ("en", "zh"):
        words = options.DTYPE.label[lang]
        assert "Trainer(bf16=True)" in words and "autocast" in words
        assert words.replace("'", "&#x27;") in page[lang] or words in page[lang]


# ------------------------------------------------------------------ M5, L5: reader-supplied text in Markdown


def test_a_crafted_label_or_name_reaches_markdown_as_text():
    crafted = "<https://evil.example/x> <img src=https://evil.example/p.png> **x** | y"
    out = api.compute({"preset": "bert-base-uncased", "label": crafted}, "en")
    source = re.search(r'data-source-markdown="([^"]*)"', out["summary_html"]).group(1)
    source = source.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").replace("&quot;", '"')
    assert "<" not in source.replace("\\<", "") and ">" not in source.replace("\\>", "")
    assert "\\*\\*x\\*\\*" in source and "\\|" in source and "https\\://" in source
    pasted = {"model_type": "bert", "_name_or_path": "org/model\n\n# Injected heading\n\n<img src=https://e.x/p.png>"}
    out = api.compute_config(json.dumps(pasted), "en")
    source = re.search(r'data-source-markdown="([^"]*)"', out["summary_html"]).group(1)
    assert "\n" not in source and "\\# Injected heading" in source and "&lt;img" not in source.replace("\\&lt;", "")
    # The Chinese source line uses the full-width colon before the total (zh M9).
    zh = api.compute({"preset": "bert-base-uncased", "architecture": "BertForMaskedLM"}, "zh")
    assert 'data-source-text="bert-base-uncased · BertForMaskedLM · 不含池化层：109,514,298"' in zh["summary_html"]


def test_md_text_and_code_by_hand():
    assert views.md_text("a\n\n# b <i>c</i> [d](e) **f** | g_h _i_") == (
        "a \\# b \\<i\\>c\\</i\\> \\[d\\](e) \\*\\*f\\*\\* \\| g_h \\_i\\_")
    assert views.md_text("see www.evil.example or http://x") == "see www\\.evil.example or http\\://x"
    assert views.md_code("a`b") == "``a`b``" and views.md_code("`x") == "`` `x ``"


def test_the_cli_markdown_escapes_its_label_and_keeps_table_columns():
    code, out, _ = run_cli("--preset", "bert-base-uncased", "--format", "markdown",
                           "--label", "x\n\n# Injected\n<img src=https://evil.example/p.png>")
    assert code == 0
    first = out.split("\n")[0]
    assert first.startswith("**x \\# Injected \\<img src=https\\://evil.example/p.png\\>** · `BertModel`"), first
    xmod = {"model_type": "xmod", "languages": ["a|b", "en_XX"], "default_language": "en_XX", "num_hidden_layers": 1}
    code, out, err = run_cli("--config", "-", "--format", "markdown", "--table", stdin=json.dumps(xmod))
    assert code == 0, err
    rows = [line for line in out.split("\n") if line.startswith("|")]
    # Every row has the header's three columns: a "|" inside a name is escaped, not a new cell.
    assert rows and all(len(re.split(r"(?<!\\)\|", r)) == 5 for r in rows), [r for r in rows if len(re.split(r"(?<!\\)\|", r)) != 5]
    assert any("a\\|b" in r for r in rows)


# ------------------------------------------------------------------ the CLI's --gpu-gb, L3, L6


def test_the_cli_states_the_sum_against_the_card():
    # B = 64, L = 512: the activations may make the peak, not worked out exactly yet (issue 32): the proven bounds,
    # and only the verdict they prove (fits: upper <= 80 GiB; does not fit: lower > 80 GiB; else not known), never
    # one from the sum. Whatever the engine proves, the words follow the rule, written out here.
    code, out, err = run_cli("--preset", "bert-base-uncased", "--batch", "64", "--seq-len", "512", "--gpu-gb", "80",
                             "--attention", "eager", "--format", "json")
    c = json.loads(out)["costs"]
    capacity = 80 * 1_073_741_824  # 85,899,345,920 bytes
    assert c["gpu_gb"] == 80
    if c["memory"]["peak"] is None:
        lower, upper = c["peak_note"]["lower"], c["peak_note"]["upper"]
        rule = ("fits" if upper is not None and upper <= capacity else "does_not_fit" if lower > capacity
                else "unknown")
    else:
        rule = "fits" if c["memory"]["peak"] <= capacity else "does_not_fit"
    assert c["fits"] == rule
    code, out, err = run_cli("--preset", "bert-base-uncased", "--batch", "64", "--seq-len", "512", "--gpu-gb", "80",
                             "--attention", "eager")
    assert code == 0 and "85,899,345,920 bytes" in out and "Attention: eager" in out and "SDPA" in out
    assert ("the step fits, as" in out) == (rule == "fits")
    assert ("Proven bounds" in out) == (c["memory"]["peak"] is None)
    # B = 1, L = 8: the peak is proven (the optimizer step), and the verdict is the peak's.
    code, out, err = run_cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "8", "--gpu-gb", "8")
    assert code == 0 and "the step fits, as PyTorch counts" in out and "against 8 GB" not in out
    code, out, _ = run_cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "8", "--gpu-gb", "1",
                           "--format", "json")
    c = json.loads(out)["costs"]
    assert c["fits"] == "does_not_fit" and c["memory"]["peak"] > 2**30
    code, out, err = run_cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "8", "--gpu-gb", "0",
                             "--lang", "zh")
    assert code == 2 and err.startswith("error: costs_not_positive: 显存 N GB")


def test_the_page_prints_bytes_in_binary_units():
    out = api.compute({"preset": "bert-base-uncased"}, "en")
    # 109,482,240 parameters × 4 bytes = 437,928,960 bytes = 417.6 MiB (not "437.9 MB").
    assert 'data-bytes="437928960"' in out["html"] and "417.6 MiB" in out["html"] and "437.9 MB" not in out["html"]


def test_a_pasted_hub_id_travels_in_the_link_and_a_local_path_does_not():
    for name, label in (("BAAI/bge-base-en-v1.5", "BAAI/bge-base-en-v1.5"),
                        ("/root/.cache/torch/sentence_transformers/BAAI_bge-base-en/", None),
                        ("./checkpoints/run-1", None), ("C:\\models\\bge", None), ("bge-base", None),
                        # a preset's name: the checkpoint fine-tuned from, never the result's name (issue 22)
                        ("BAAI/bge-m3", None)):
        out = api.compute_config(json.dumps({"model_type": "bert", "_name_or_path": name}), "en")
        assert out["link"].get("label") == label and out["query"].get("label") == label, (name, out["link"])
    # The link opened again: the Hub id names the result.
    again = api.compute({"model_type": "bert", "label": "BAAI/bge-base-en-v1.5"}, "en")
    assert "BAAI/bge-base-en-v1.5 · BertModel" in again["summary_html"]
