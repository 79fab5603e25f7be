"""Views agree with the tensor list and with independent arithmetic. Standard library only."""
import contextlib
import io
import json

from calculator import api, charts, views
from calculator.build import build
from calculator.cli import main
from calculator.i18n import LABELS
from calculator.presets import PRESETS

BASE = PRESETS["bert-base-uncased"].config


def test_group_sums_equal_total_for_every_preset_and_architecture():
    from calculator.families import FAMILIES

    for name, preset in PRESETS.items():
        family = FAMILIES[preset.config["model_type"]]
        for arch in family.architectures:
            raw = dict(preset.config)
            if arch.labels_must_be:
                raw["num_labels"] = arch.labels_must_be
            raw.update(arch.requires)
            inv = build(raw, arch.name)
            assert sum(s.count for s in views.group_breakdown(inv)) == inv.total, (name, arch.name)
            assert sum(s.count for s in views.section_breakdown(inv)) == inv.total
            f = views.formula(inv)
            assert f is not None and f.total == inv.total, (name, arch.name)


def test_bert_base_breakdown():
    inv = build(BASE)
    groups = {s.key: s.count for s in views.group_breakdown(inv)}
    # feed-forward: 12 × (2·768·3072 + 3072 + 768) = 12 × 4,722,432 (issue 3's fact)
    assert groups["feed_forward"] == 12 * 4_722_432 == 56_669_184
    assert groups["attention_qkv"] == 12 * 3 * (768 * 768 + 768)
    assert groups["attention_output"] == 12 * (768 * 768 + 768)
    assert groups["layer_norm"] == 12 * 4 * 768
    assert groups["pooler"] == 768 * 768 + 768
    assert views.fmt_percent(groups["feed_forward"] / inv.total) == "51.8%"
    assert [r.count for r in views.per_layer(inv)] == [7_087_872] * 12
    assert views.embedding_split(inv) == (23_837_184, 109_482_240 - 23_837_184)


def test_formula_substitution():
    f = views.formula(build(BASE))
    layer = [line for line in f.lines if line.key == "per_layer_formula"][0]
    assert layer.symbolic == "4H² + 4H + 2HI + I + H + 4H"
    assert layer.value == 7_087_872


def test_short_forms():
    assert views.fmt_short(109_482_240, "en") == "109.5M"
    assert views.fmt_short(109_482_240, "zh") == "1.095 亿"
    assert views.fmt_short(335_141_888, "en") == "335.1M"
    assert views.fmt_int(109_482_240) == "109,482,240"


def test_memory():
    rows = {m.dtype: m.bytes for m in views.memory(build(BASE))}
    assert rows["fp32"] == 4 * 109_482_240 and rows["int8"] == 109_482_240


def test_markdown_table_is_pasteable():
    md = views.markdown_table(build(BASE, "BertForMaskedLM"), "en")
    lines = md.strip().splitlines()
    assert lines[0].startswith("| Tensor | Shape | Parameters |")
    assert all(line.startswith("|") and line.endswith("|") for line in lines)
    assert "**109,514,298**" in md and "132,985,716" in md
    assert "7,087,872 × 12 layers = 85,054,464" in md
    full = views.markdown_table(build(BASE), "en", compact=False)
    assert "encoder.layer.11.output.LayerNorm.bias" in full


def test_json_schema():
    out = views.to_json(build(BASE, "BertForMaskedLM"))
    for key in ("architecture", "total", "trainable", "state_dict_total", "tensors"):
        assert key in out
    assert set(out["tensors"][0]) >= {"name", "shape", "count", "group", "tied_to"}
    assert sum(t["count"] for t in out["tensors"]) == out["state_dict_total"]
    json.dumps(out)


def test_labels_exist_in_both_languages():
    for key, texts in LABELS.items():
        assert set(texts) == {"en", "zh"}, key


def test_charts_carry_text_alternatives():
    inv = build(BASE)
    for svg in (charts.share_chart_svg(inv, "zh"), charts.layer_diagram_svg(inv, "en")):
        assert svg.startswith("<svg") and "<title" in svg and "<desc" in svg
    assert "56,669,184" in charts.share_chart_svg(inv, "en")
    assert "2,362,368" in charts.layer_diagram_svg(inv, "en")  # intermediate.dense: 768·3072 + 3072


def run_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_cli_json_and_errors():
    code, out, err = run_cli("--preset", "bert-base-uncased", "--format", "json")
    assert code == 0 and json.loads(out)["total"] == 109_482_240
    code, out, err = run_cli("--preset", "no-such-model")
    assert code == 2 and err.startswith("error: unknown_preset:") and err.count("\n") == 1
    # The CLI points at its own list (the option exists: it prints every preset), not at the page's menu.
    assert err == 'error: unknown_preset: Unknown preset "no-such-model". Run with --list-presets to see them all.\n'
    code, out, err = run_cli("--preset", "no-such-model", "--lang", "zh")
    assert err == "error: unknown_preset: 没有名为“no-such-model”的预设模型。加上 --list-presets 可查看全部预设。\n"
    code, out, err = run_cli("--list-presets")
    assert code == 0 and "bert-base-uncased" in out and "albert-xxlarge-v2" in out
    code, out, err = run_cli("--preset", "bert-base-uncase")
    # flaubert/flaubert_base_uncased contains what was typed (case and _/- aside): close too, listed last.
    assert err.endswith("Did you mean bert-base-uncased, distilbert-base-uncased or flaubert/flaubert_base_uncased?\n")
    code, out, err = run_cli("--preset", "bert-base-uncased", "--architecture", "Nope", "--lang", "zh")
    assert code == 2 and err.startswith("error: unknown_architecture:") and "不支持" in err
    code, out, err = run_cli("--preset", "bert-base-uncased", "--no-pooler")
    assert code == 0 and "108,891,648" in out


def test_transformer_decoder_is_its_own_section():
    inv = build({"model_type": "transformer", "n_layers": 2})
    keys = [s.key for s in views.section_breakdown(inv)]
    assert "decoder" in keys and "encoder" in keys
    decoder = [s for s in views.section_breakdown(inv) if s.key == "decoder"][0]
    assert decoder.count == sum(t.count for t in inv.unique if t.name.startswith("decoder.layer_stack."))


def test_text_report_is_compact_unless_full():
    inv = build(BASE)
    short, full = views.text_report(inv), views.text_report(inv, compact=False)
    assert "encoder.layer.11." not in short and "encoder.layer.11." in full
    assert "7,087,872 × 12 layers = 85,054,464" in short


def test_every_compact_markdown_table_adds_up():
    """torchinfo's invariant on our table: each section's rows (layer 0 × L where compact) sum to its header,
    and the sections to the total, for every preset's base and published class."""
    import re

    from calculator.families import FAMILIES
    from calculator.presets import PRESETS

    def number(text: str) -> int:
        # A tie's owner first named elsewhere keeps its count with a note after it: "192,001,536 (named …)".
        return int(text.split(" (")[0].split("（")[0].replace(",", "").strip("*"))

    for name, preset in PRESETS.items():
        family = FAMILIES[preset.config["model_type"]]
        for arch in {family.base, preset.published_architecture}:
            inv = build(preset.config, arch)
            sections: list[tuple[int, int]] = []  # (header, rows)
            for line in views.markdown_table(inv).splitlines()[2:]:
                cells = [c.strip() for c in line.strip("|").split("|")]
                if cells[0].startswith("**") and cells[0] != "**Total parameters**":
                    sections.append((number(cells[2]), 0))
                elif cells[0].startswith("`") and not cells[2].startswith("("):  # a tied copy counts once
                    head, rows = sections[-1]
                    sections[-1] = (head, rows + number(cells[2]))
                elif cells[0] == "*Per layer*":
                    per, n, total = (number(x) for x in re.findall(r"[\d,]+", cells[2]))
                    assert per * n == total, (name, cells[2])
                    head, rows = sections[-1]
                    sections[-1] = (head, rows - per + total)
                elif cells[0] == "**Total parameters**":
                    assert number(cells[2]) == inv.total == sum(h for h, _ in sections), name
            for head, rows in sections:
                assert head == rows, (name, arch, head, rows)


def test_markdown_is_a_summary_by_default_with_both_backbone_splits():
    """What a forum answer pastes: the total, the embedding layer and the rest, num_parameters() both ways.

    Expected values by hand for BERT-base (V=30522, P=512, T=2, H=768): the embedding layer is
    three tables and a LayerNorm, (V + P + T)·H + 2H; exclude_embeddings drops the tables only.
    """
    V, P, T, H, total = 30522, 512, 2, 768, 109_482_240
    embedding = (V + P + T) * H + 2 * H
    code, out, err = run_cli("--preset", "bert-base-uncased", "--format", "markdown")
    assert code == 0 and err == ""
    assert out.startswith("**bert-base-uncased** · `BertModel` (bert)\n")
    assert f"| Total parameters | **{total:,}** (109.5M) |" in out
    assert f"| Embedding layer (all of it, LayerNorm included) | {embedding:,} |" in out
    assert f"| Everything after the embedding layer (the usual “backbone”) | {total - embedding:,} |" in out
    assert f"| transformers' num_parameters() | {total:,} |" in out
    assert f"| transformers' num_parameters(exclude_embeddings=True) | {total - (V + P + T) * H:,} |" in out
    assert "word_embeddings" not in out  # no tensor table
    code, out, err = run_cli("--preset", "bert-base-uncased", "--format", "markdown", "--lang", "zh", "--label", "我的模型")
    assert out.startswith("**我的模型** · `BertModel`（bert）\n")
    assert f"| 嵌入层（整层，含层归一化） | {embedding:,} |" in out
    assert f"| 嵌入层以外的部分（常说的“主干”） | {total - embedding:,} |" in out
    assert f"**{total:,}**（约 1.095 亿）" in out
    # The per-tensor table is one flag away; --full lists every layer.
    code, table, err = run_cli("--preset", "bert-base-uncased", "--format", "markdown", "--table")
    assert table == views.markdown_table(build(BASE)) and "encoder.layer.11." not in table
    code, full, err = run_cli("--preset", "bert-base-uncased", "--format", "markdown", "--full")
    assert full == views.markdown_table(build(BASE), compact=False)
    # The peft line ends the summary when a plan is set.
    code, out, err = run_cli("--preset", "bert-base-uncased", "--format", "markdown", "--lora-r", "8",
                             "--lora-targets", "query,value")
    lora = 12 * 2 * 8 * (H + H)  # 12 layers × (query, value) × r·(in + out)
    assert f"`trainable params: {lora:,} || all params: {total + lora:,} || trainable%: 0.2686`" in out


def test_families_transformers_does_not_build_have_no_num_parameters_rows():
    inv = build({"model_type": "keras-bert"})
    out = views.summary_markdown(inv)
    assert "num_parameters" not in out and "Embedding layer" in out


def test_with_format_json_every_error_is_a_json_object_on_stdout():
    from calculator.errors import MESSAGES

    for args, code_name in (
        (("--preset", "no-such-model"), "unknown_preset"),
        (("--bogus",), "usage"),
        (("--preset", "bert-base-uncased", "--architecture", "Nope"), "unknown_architecture"),
        (("--lora-r", "8", "--freeze-layers", "3"), "plan_conflict"),
        (("--config", "/no/such/dir/config.json"), "file"),
    ):
        for lang in ("en", "zh"):
            code, out, err = run_cli(*args, "--format", "json", "--lang", lang)
            assert code == 2 and err == "", (args, err)
            data = json.loads(out)
            assert set(data) == {"error"} and data["error"]["code"] == code_name, data
            assert data["error"]["message"].strip(), data
            code, out, err = run_cli(*args, "--lang", lang)  # without JSON: one line on stderr
            assert code == 2 and out == "" and err.startswith(f"error: {code_name}: ") and err.count("\n") == 1
    # LoRA and freezing together: the planner's own coded message, in Chinese too (it was English only).
    code, out, err = run_cli("--lora-r", "8", "--freeze-layers", "3", "--lang", "zh", "--format", "json")
    assert json.loads(out)["error"]["message"] == MESSAGES["plan_conflict"]["zh"]


def test_an_unsupported_model_says_so_and_gives_the_way_forward():
    from calculator.errors import CalcError

    def refusal(config: dict) -> CalcError:
        try:
            build(config)
        except CalcError as exc:
            return exc
        raise AssertionError(f"{config} was accepted")

    # Issue 35 (reader M4, zh M8): trust_remote_code only where auto_map says the code ships with the checkpoint,
    # and then on from_config too (transformers 5.23 asks again there); from_config, never from_pretrained.
    one_liner = "AutoModel.from_config(AutoConfig.from_pretrained(NAME)).num_parameters()"
    custom_liner = ("AutoModel.from_config(AutoConfig.from_pretrained(NAME, trust_remote_code=True), "
                    "trust_remote_code=True).num_parameters()")
    for lang, words in (("en", ("not supported", "albert, bert,", "keras-bert, transformer")),
                        ("zh", ("不支持", "albert、bert、", "keras-bert、transformer"))):
        message = refusal({"model_type": "gpt2"}).message(lang)
        assert one_liner in message and all(w in message for w in words), message
        assert "auto_map" not in message and "trust_remote_code" not in message and "GPT2Model" in message
        # A config that needs its own code (jina-embeddings-v2 style) says so, and the code trusts it twice.
        message = refusal({"model_type": "jina_bert", "auto_map": {"AutoModel": "modeling_bert.JinaBertModel"}}).message(lang)
        assert "auto_map" in message and custom_liner in message, message
        # T5-shaped encoder-decoders still refused: the encoder class, not the encoder-decoder AutoModel builds; no
        # remote code. (T5, mT5 and umT5 are families: their encoder classes are counted.)
        for model_type, encoder, whole in (("longt5", "LongT5EncoderModel", "LongT5Model"),
                                           ("switch_transformers", "SwitchTransformersEncoderModel",
                                            "SwitchTransformersModel")):
            message = refusal({"model_type": model_type}).message(lang)
            assert f"{encoder}(AutoConfig.from_pretrained(NAME)).num_parameters()" in message and whole in message
            assert "trust_remote_code" not in message and "from_pretrained(NAME)).num" in message
        # A model_type transformers does not define, without auto_map: no code that would fail is offered.
        message = refusal({"model_type": "new"}).message(lang)
        assert "AutoModel" not in message and "auto_map" in message and "transformers 5.23" in message, message
        # No model_type: BERT is assumed, and an unknown class says so.
        exc = refusal({"architectures": ["JinaBertModel"]})
        assert exc.code == "unknown_architecture" and one_liner in exc.message(lang)
        assert ("BERT was assumed" if lang == "en" else "按 BERT 处理") in exc.message(lang)
    assert "torch.device(\"meta\")" in refusal({"model_type": "gpt2"}).message("zh")


def test_a_config_without_model_type_is_read_as_bert_with_a_note():
    from calculator import api

    out = api.compute_config('{"hidden_size": 768}', "zh")
    assert out["ok"] and out["model_type"] == "bert"
    assert out["notes"] == ["注意：配置中没有 model_type，已按 bert 处理。"]
    assert api.compute_config('{"model_type": "bert"}', "en")["notes"] == []
    assert views.config_notes({}, "en") == [
        {"code": "model_type_assumed", "message": "Note: the config has no model_type, so it was read as bert."}
    ]


def test_percent_below_a_hundredth_is_not_zero():
    assert views.fmt_percent(1538 / 109_483_778) == "<0.01%"
    assert views.fmt_percent(0.0) == "0.0%" and views.fmt_percent(0.00005) == "0.01%"


def test_the_tie_note_names_the_owner_in_every_table():
    """XLM-R's MLM class lists its head first: the shared table's first name is the decoder, but every
    table counts it on the embedding's row and marks the decoder as the copy (as breakdowns charge it)."""
    inv = build({"model_type": "xlm-roberta"}, "XLMRobertaForMaskedLM")
    word = "roberta.embeddings.word_embeddings.weight"
    decoder = [t for t in inv.tensors if t.name == "lm_head.decoder.weight"][0]
    assert decoder.tied_to is None and views.listed_under(decoder) == word
    for table in (views.markdown_table(inv), views.tensor_table(inv.tensors)):
        [row] = [line for line in table.splitlines() if line.startswith("| `lm_head.decoder.weight`")]
        assert f"tied to `{word}`" in row
        [row] = [line for line in table.splitlines() if line.startswith(f"| `{word}`")]
        assert "tied" not in row
    text = views.text_report(inv, "zh")
    assert f"（与 {word} 共享，只计一次）" in text


def test_limits_read_with_thousands_separators():
    from calculator.errors import CalcError

    try:
        build({"model_type": "bert", "vocab_size": 10_000_001})
    except CalcError as exc:
        assert exc.code == "too_large"
        assert "at most 10,000,000" in exc.message("en") and "最大 10,000,000" in exc.message("zh")
    else:
        raise AssertionError("vocab_size above the limit was accepted")


def test_a_class_other_than_the_base_model_says_how_it_differs():
    """Issue 22, item 1: "ElectraForPreTraining: +N for the pre-training head", from the inventory's own modules."""
    # ELECTRA's defaults (H = 256): the discriminator head is dense (H·H + H) and dense_prediction (H + 1).
    electra = build({"model_type": "electra"}, "ElectraForPreTraining")
    head = 256 * 256 + 256 + 256 + 1
    assert head == 66_049
    assert views.class_difference_line(electra, "en") == (
        "ElectraForPreTraining has 66,049 more parameters than the base model, ElectraModel"
        " (adds discriminator_predictions: 66,049)")
    assert views.class_difference_line(electra, "zh") == (
        "ElectraForPreTraining 比基础模型 ElectraModel 多 66,049 个参数（新增 discriminator_predictions：66,049）")
    # BertForMaskedLM: cls.predictions (transform 768² + 768, its LayerNorm 2·768, the decoder's bias 30,522;
    # the decoder's weight is the word table's) and no pooler (768² + 768).
    mlm = build({"model_type": "bert"}, "BertForMaskedLM")
    cls, pooler = 768 * 768 + 768 + 2 * 768 + 30522, 768 * 768 + 768
    line = views.class_difference_line(mlm, "en", markdown=True)
    assert line == (f"`BertForMaskedLM` has {cls - pooler:,} more parameters than the base model, `BertModel`"
                    f" (adds `cls`: {cls:,}; without `pooler`: {pooler:,})")
    assert line in views.summary_markdown(mlm, "en")
    # A class smaller than the base model says "fewer" / "少"; the base model itself says nothing.
    no_pooler_head = build({"model_type": "bert", "num_hidden_layers": 0}, "BertForTokenClassification")
    assert views.class_difference(no_pooler_head).difference == 2 * 768 + 2 - pooler
    assert " fewer " in views.class_difference_line(no_pooler_head, "en")
    assert " 少 " in views.class_difference_line(no_pooler_head, "zh")
    assert views.class_difference(build({"model_type": "bert"})) is None
    assert views.class_difference_line(build({"model_type": "bert"}), "en") is None
    assert "calc-class-diff" in api.compute({"architecture": "BertForMaskedLM"})["summary_html"]
    assert "calc-class-diff" not in api.compute({})["summary_html"]


def test_the_cli_usage_errors_and_help_are_in_the_chosen_language():
    """chinese-review-2: the CLI's argparse messages were English only. Each is coded "usage", exit 2,
    one line on stderr or a JSON object on stdout, in the language --lang names (read before argparse)."""
    see = {"en": "See python -m calculator --help for the options.", "zh": "全部选项见 python -m calculator --help。"}
    cases = (
        (("--bogus", "x"), {"en": "unrecognized arguments: --bogus x. ", "zh": "无法识别的参数：--bogus x。"}),
        (("--format", "xml"), {"en": "--format: invalid choice 'xml' (choose from ",
                               "zh": "--format 的取值“xml”无效（可选：text、markdown、json）"}),
        (("--preset",), {"en": "--preset needs a value. ", "zh": "--preset 后面需要一个值。"}),
        (("--preset", "a", "--config", "b"), {"en": "--config cannot be used together with --preset. ",
                                              "zh": "--config 不能与 --preset 同时使用。"}),
        (("--table=1",), {"en": "--table takes no value (got '1'). ", "zh": "--table 不接受取值（当前为 '1'）。"}),
        (("--lora-", "3"), {"en": "--lora- is ambiguous: it could be --lora-r, --lora-targets, --lora-bias. ",
                            "zh": "选项 --lora- 有歧义，可能是：--lora-r、--lora-targets、--lora-bias。"}),
    )
    for args, words in cases:
        for lang in ("en", "zh"):
            code, out, err = run_cli(*args, "--lang", lang)
            assert code == 2 and out == "" and err.count("\n") == 1, (args, err)
            assert err.startswith("error: usage: " + words[lang]) and err.rstrip("\n").endswith(see[lang]), err
            if "--format" not in args:
                code, out, err = run_cli(*args, "--format", "json", "--lang", lang)
                assert code == 2 and err == ""
                assert json.loads(out) == {"error": {"code": "usage", "message": json.loads(out)["error"]["message"]}}
                assert json.loads(out)["error"]["message"].startswith(words[lang])
    code, out, err = run_cli("--help", "--lang", "zh")
    assert code == 0 and out.startswith("用法：python -m calculator [-h]")
    assert "\n选项：\n" in out and "  -h, --help            显示本帮助并退出" in out and "options" not in out
    code, out, err = run_cli("--help")
    assert code == 0 and out.startswith("usage: python -m calculator [-h]") and "\noptions:\n" in out
