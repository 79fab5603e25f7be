"""The "What fits" page (issue 32 item 4) and the peak paragraph of "Why cost tools disagree" show the CLI's figures.

Expected values come from the command line as a reader runs it (``python -m calculator ... --gpu-gb N --format
json``, ``--fit-gib X``), and, for bert-base at B = 1, L = 128, from the peak worked out by hand in
tests/unit/test_peak.py; never from the site's hooks. Whatever the engine gives (an exact peak, proven bounds, a
refusal), the page must say the same: so these tests hold as the engine grows.
"""
from __future__ import annotations

import contextlib
import io
import json
import re

import pytest

from calculator import cli as calculator_cli
from calculator import views
from tests.once import once_per_run

from .builtsite import LANGS, Site

DEB, BGE = "microsoft/deberta-v3-large", "BAAI/bge-m3"
B, DEB_LEN, BGE_LEN = 16, 512, 1024
BUDGETS = (24, 80)
#: The page's three settings, as CLI options.
#: The page's rows are eager attention's unless a row says SDPA (the CLI's default is the class's: SDPA for bge-m3).
SETTINGS = {"full": ["--attention", "eager"], "ckpt": ["--attention", "eager", "--grad-checkpointing"],
            "lora": ["--attention", "eager", "--lora-r", "8"]}
#: bert-base-uncased (BertModel), B = 1, L = 128, fp32 AdamW: the peak derived in tests/unit/test_peak.py.
BERT_B1_PEAK = 1_939_253_020

#: The page's words for each verdict and each kind of answer, by language.
VERDICT = {"en": {"fits": "fits", "does_not_fit": "does not fit", "unknown": "not known yet", "refused": "refused"},
           "zh": {"fits": "放得下", "does_not_fit": "放不下", "unknown": "暂不确定", "refused": "不支持"}}
TO = {"en": " to ", "zh": " 至 "}
AT_LEAST = {"en": "at least ", "zh": "至少 "}
REFUSED_CELL = {"en": "refused (below)", "zh": "不支持（见下文）"}
REFUSED = {"en": "refused", "zh": "不支持"}


def fmt(n: int) -> str:
    return views.fmt_int(n)


def cli(*args: str, lang: str = "en") -> tuple[int, dict | None, str]:
    """(exit status, the JSON costs object or None, the error message) of one CLI run: ``python -m calculator ...
    --format json``'s own ``main``, in this process (a new interpreter per run cost ~0.4 s of CPU to start and
    import; the command line in a real process is proven in tests/crosscheck/test_cli_process.py)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = calculator_cli.main([*args, "--format", "json", "--lang", lang])
    data = json.loads(out.getvalue())
    if status:
        return status, None, data["error"]["message"]
    return 0, data["costs"], ""


def run_key(*parts: object) -> str:
    """A JSON object's key for one of :func:`runs`' entries."""
    return "|".join(map(str, parts))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """Every step and search the page shows, as the CLI answers it (both card sizes, both languages' messages):
    once per test run (tests/once.py), whichever worker asks first, as the searches are most of this file's CPU."""
    def make(_: object) -> dict:
        out: dict = {}
        for preset, length in ((DEB, DEB_LEN), (BGE, BGE_LEN)):
            for key, options in SETTINGS.items():
                for gib in BUDGETS:
                    step = ["--preset", preset, "--seq-len", str(length), *options]
                    out[run_key(preset, key, gib)] = cli(*step, "--batch", str(B), "--gpu-gb", str(gib))
                    out[run_key(preset, key, gib, "fit")] = cli(*step, "--batch", "1", "--fit-gib", str(gib))
                out[run_key(preset, key, "zh")] = cli("--preset", preset, "--seq-len", str(length), *options,
                                                      "--batch", str(B), lang="zh")
        return out

    return once_per_run(tmp_path_factory, "what-fits-runs", make)


def peak_cell(costs: dict, lang: str) -> str:
    if costs["memory"]["peak"] is not None:
        return fmt(costs["memory"]["peak"])
    note = costs["peak_note"]
    upper = fmt(note["upper"]) if note["upper"] is not None else {"en": "not known", "zh": "未知"}[lang]
    return fmt(note["lower"]) + TO[lang] + upper


def largest_cell(fit: dict | None, lang: str) -> str:
    if fit is None:
        return REFUSED[lang]
    if fit["max_batch"] is not None:
        return {"en": "none", "zh": "没有"}[lang] if fit["max_batch"] == 0 else fmt(fit["max_batch"])
    low, over = fit["max_batch_at_least"], fit["batch_does_not_fit"]
    if over is not None:
        return fmt(low) + TO[lang] + fmt(over - 1)
    return AT_LEAST[lang] + fmt(low) if low else {"en": "not known", "zh": "未知"}[lang]


def table_starting(page, first: str) -> list[list[str]]:
    for table in page.tables:
        if len(table) > 1 and table[1][0].startswith(first):
            return table
    raise AssertionError(f"no table whose first row starts with {first!r}")


@pytest.mark.parametrize("lang", LANGS)
def test_the_two_models_tables_are_the_clis(site: Site, runs, lang: str):
    page = site.page("what-fits.md", lang)
    first = {"en": "every parameter trained", "zh": "全部参数参与训练"}[lang]
    tables = [t for t in page.tables if len(t) == 4 and t[1][0] == first]
    assert len(tables) == 2, [t[:2] for t in page.tables]
    for table, preset in zip(tables, (DEB, BGE)):
        for row, key in zip(table[1:], SETTINGS):
            status, costs, message = runs[run_key(preset, key, BUDGETS[0])]
            if status:  # the engine refuses the setting: the page says so, with the CLI's reason below the table
                assert row[1:] == [REFUSED_CELL[lang]] * 2 + [VERDICT[lang]["refused"]] * 2, (preset, key, row)
                zh_message = runs[run_key(preset, key, "zh")][2]
                assert (message if lang == "en" else zh_message) in page.text, (preset, key)
                continue
            parts = sum(costs["memory"][k] for k in ("weights", "gradients", "optimizer", "activations"))
            assert row[1] == fmt(parts), (preset, key)
            assert row[2] == peak_cell(costs, lang), (preset, key)
            verdicts = [runs[run_key(preset, key, gib)][1]["fits"] for gib in BUDGETS]
            assert row[3:] == [VERDICT[lang][v] for v in verdicts], (preset, key, row)
            if costs["memory"]["peak"] is None:  # said in words, generated: it goes when the engine has the figure
                said = {"en": "the exact figure is not worked out yet", "zh": "目前还没有精确算出峰值"}[lang]
                assert said in page.text


@pytest.mark.parametrize("lang", LANGS)
def test_the_largest_batch_is_the_clis_search(site: Site, runs, lang: str):
    page = site.page("what-fits.md", lang)
    table = table_starting(page, "DeBERTa-v3-large")
    assert len(table) == 1 + 2 * len(SETTINGS)
    rows = iter(table[1:])
    for preset in (DEB, BGE):
        for key in SETTINGS:
            row = next(rows)
            fits = [runs[run_key(preset, key, gib, "fit")][1] for gib in BUDGETS]
            expected = [largest_cell(costs and costs["fit"], lang) for costs in fits]
            assert row[1:] == expected, (preset, key, row)


@pytest.mark.parametrize("lang", LANGS)
def test_peak_against_the_sum_for_bert_base(site: Site, lang: str):
    page = site.page("what-fits.md", lang)
    status, costs, _ = cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "128", "--attention", "eager")
    assert status == 0 and costs["memory"]["peak"] == BERT_B1_PEAK
    table = table_starting(page, {"en": "weights", "zh": "权重"}[lang])
    total = table[-1]
    parts = sum(costs["memory"][k] for k in ("weights", "gradients", "optimizer", "activations"))
    assert total[1:] == [fmt(parts), fmt(BERT_B1_PEAK)]
    by_kind = costs["peak_at"]["by_kind"]
    assert table[1][1:] == [fmt(costs["memory"]["weights"])] * 2
    assert table[5][1:] == [fmt(costs["memory"]["activations"]), "0"]  # freed by the backward before the update
    assert table[6][2] == fmt(by_kind["temporary"])
    assert costs["peak_at"]["module"] in page.text


@pytest.mark.parametrize("lang", LANGS)
def test_why_costs_disagree_says_the_peak(site: Site, lang: str):
    page = site.page("why-costs-disagree.md", lang)
    assert "peak-not-sum" in [h.id for h in page.headings]
    status, costs, _ = cli("--preset", "bert-base-uncased", "--architecture", "BertForMaskedLM", "--batch", "32",
                           "--seq-len", "128", "--attention", "eager")
    assert status == 0
    if costs["memory"]["peak"] is not None:
        assert fmt(costs["memory"]["peak"]) in page.text
    else:
        note = costs["peak_note"]
        assert fmt(note["lower"]) in page.text
        if note["upper"] is not None:
            assert fmt(note["upper"]) in page.text


@pytest.mark.parametrize("lang", LANGS)
def test_bge_m3_with_sdpa_is_the_clis_and_says_the_attention_dropout(site: Site, lang: str):
    """BGE-M3 at B = 16, L = 1024 with ``--attention sdpa`` (issue 35, reader H1): the row is the CLI's, and its
    attention dropout (0.1) is measured at 0, which the CLI's JSON notes (``sdpa_dropout_gpu``) and the page say."""
    page = site.page("what-fits.md", lang)
    first = {"en": "SDPA attention, every parameter trained", "zh": "SDPA 注意力，全部参数参与训练"}[lang]
    tables = [t for t in page.tables if len(t) == 3 and t[1][0] == first]  # then the same under autocast
    assert len(tables) == 1, [t[:2] for t in page.tables]
    row = tables[0][1]
    verdicts, notes = [], None
    for gib in BUDGETS:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = calculator_cli.main(["--preset", BGE, "--seq-len", str(BGE_LEN), "--batch", str(B), "--attention",
                                          "sdpa", "--gpu-gb", str(gib), "--format", "json", "--lang", lang])
        assert status == 0, out.getvalue()
        data = json.loads(out.getvalue())
        costs, notes = data["costs"], data["notes"]
        verdicts.append(costs["fits"])
    parts = sum(costs["memory"][k] for k in ("weights", "gradients", "optimizer", "activations"))
    assert row[1:] == [fmt(parts), peak_cell(costs, lang)] + [VERDICT[lang][v] for v in verdicts], row
    assert [(n["code"], n["key"], n["value"]) for n in notes] == [("sdpa_dropout_gpu", "attention_probs_dropout_prob", 0.1)]
    said = {"en": "fused kernel's figures with attention dropout 0", "zh": "融合 kernel 在注意力 dropout 为 0 时的数字"}[lang]
    assert said in " ".join(page.text.split())


#: The page's mixed-precision rows (``--mixed-precision bf16``): DeBERTa-v3-large eager, without and with gradient
#: checkpointing, and BGE-M3 with SDPA (the row under the SDPA one).
MIXED = {"en": ("bf16 autocast, every parameter trained", "bf16 autocast, gradient checkpointing",
                "SDPA attention, bf16 autocast, every parameter trained"),
         "zh": ("bf16 autocast，全部参数参与训练", "bf16 autocast，开启梯度检查点", "SDPA 注意力，bf16 autocast，全部参数参与训练")}


@pytest.mark.parametrize("lang", LANGS)
def test_the_mixed_precision_rows_are_the_clis(site: Site, lang: str):
    """Issue 32's fp32 against autocast, worked on the page: each row under bf16 autocast (fp32 weights) is the
    CLI's ``--mixed-precision bf16`` step, its sum, its peak (or its bounds) and both verdicts."""
    page = site.page("what-fits.md", lang)
    full, ckpt, sdpa = MIXED[lang]
    deb = [t for t in page.tables if len(t) == 3 and t[1][0] == full]
    bge = [t for t in page.tables if len(t) == 3 and t[2][0] == sdpa]
    assert len(deb) == 1 and len(bge) == 1, [t[:2] for t in page.tables]
    rows = ((deb[0][1], DEB, DEB_LEN, ["--attention", "eager"]),
            (deb[0][2], DEB, DEB_LEN, ["--attention", "eager", "--grad-checkpointing"]),
            (bge[0][2], BGE, BGE_LEN, ["--attention", "sdpa"]))
    assert deb[0][2][0] == ckpt
    for row, preset, length, options in rows:
        verdicts, costs = [], None
        for gib in BUDGETS:
            status, costs, message = cli("--preset", preset, "--seq-len", str(length), "--batch", str(B), *options,
                                         "--mixed-precision", "bf16", "--gpu-gb", str(gib), lang=lang)
            assert status == 0 and costs is not None, message
            verdicts.append(costs["fits"])
        assert costs["mixed_precision"] == "bf16"
        parts = sum(costs["memory"][k] for k in ("weights", "gradients", "optimizer", "activations"))
        assert row[1:] == [fmt(parts), peak_cell(costs, lang)] + [VERDICT[lang][v] for v in verdicts], (preset, row)


def test_the_families_pytorch_cannot_run_under_autocast_are_the_clis(site: Site, tmp_path):
    """The page's sentence names exactly the families whose first preset the CLI refuses under ``--mixed-precision
    bf16`` as a forward that fails (``costs_forward_fails``; that PyTorch raises there is proven per drawn config by
    tests/crosscheck/test_costs_autocast.py). X-MOD's preset names no language, which the CLI asks for first: it is
    run with its first adapter's."""
    from calculator.families import FAMILIES
    from calculator.i18n import pick

    refused = []
    for family in FAMILIES.values():
        if family.costs is None or not family.presets:
            continue
        config = dict(family.presets[0].config)
        if family.model_type == "xmod":
            config["default_language"] = config["languages"][0]
        path = tmp_path / f"{family.model_type}.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            status = calculator_cli.main(["--config", str(path), "--batch", "1", "--seq-len", "8",
                                          "--mixed-precision", "bf16", "--format", "json"])
        if status and json.loads(out.getvalue())["error"]["code"] == "costs_forward_fails":
            refused.append(family)
    assert {f.model_type for f in refused} >= {"deberta", "xmod"}  # the two the crosscheck proves today
    for lang in LANGS:
        words = {"en": r"PyTorch\s+itself\s+cannot\s+run\s+(.+?)\s+under\s+bf16\s+autocast",
                 "zh": r"。([^。]+?)\s*在\s*bf16\s+autocast\s*下\s*PyTorch\s*本身就跑不起来"}[lang]
        found = re.search(words, site.page("what-fits.md", lang).text, re.S)
        assert found, lang
        sentence = found.group(1)
        named = {f.model_type for f in FAMILIES.values()
                 if re.search(rf"(?<![\w-]){re.escape(pick(f.title, lang))}(?![\w-])", sentence)}
        assert named == {f.model_type for f in refused}, (lang, sentence)
