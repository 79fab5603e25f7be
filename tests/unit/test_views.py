"""Views agree with the tensor list and with independent arithmetic. Standard library only."""
import contextlib
import io
import json

from calculator import charts, views
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
    assert err.endswith("Did you mean bert-base-uncased or distilbert-base-uncased?\n")
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
        return int(text.replace(",", "").strip("*"))

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
