"""The numbers on the built pages are the module's, and none is typed by hand in docs/.

The expected values here come straight from ``calculator`` (build + views),
not from the site's own hook, so a page that drifts from the module fails.
"""
from __future__ import annotations

import re

import pytest

from calculator import views
from calculator.build import build
from calculator.families import keras_bert
from calculator.presets import PRESETS

from .builtsite import DOCS, LANGS, Site, nav_pages

PAGES = nav_pages()
#: Pages other people own; the lint leaves them to their owners' tests.
NOT_OURS = {"calculator.md", "calculator.zh.md"}


def inv(preset: str = "bert-base-uncased", architecture: str | None = None, pooler=None, **overrides):
    raw = dict(PRESETS[preset].config)
    raw.update(overrides)
    return build(raw, architecture=architecture, pooler=pooler)


def fmt(n: int) -> str:
    return views.fmt_int(n)


def _expected_figures() -> dict[str, list[int]]:
    base, large = inv(), inv("bert-large-uncased")
    h = base.config["hidden_size"]
    per_layer = views.per_layer(base)[0].count
    mlm = inv(architecture="BertForMaskedLM")
    pre = inv(architecture="BertForPreTraining")
    figures = {
        "index.md": [base.total, per_layer, per_layer * base.config["num_hidden_layers"], inv(pooler=False).total, pre.total]
        + [s.count for s in views.group_breakdown(base)]
        # bert-base-chinese, and the fp32 bytes of the pre-training weights the published files hold
        + [inv("bert-base-chinese").total, 4 * pre.total, 4 * inv("bert-base-chinese", architecture="BertForPreTraining").total],
        "embeddings.md": [t.count for t in base.tensors if t.group == "embeddings"]
        + [sum(t.count for t in base.tensors if t.group == "embeddings")]
        + [inv(p).total for p in ("bert-base-cased", "bert-base-chinese", "bert-base-multilingual-cased", "bert-base-multilingual-uncased")],
        "self-attention.md": [4 * (h * h + h), base.config["num_hidden_layers"] * 4 * (h * h + h), base.total]
        + [inv(num_attention_heads=a).total for a in (1, 12, 24)],
        "feed-forward.md": [
            2 * h * base.config["intermediate_size"] + base.config["intermediate_size"] + h,
            sum(s.count for s in views.group_breakdown(base) if s.key == "feed_forward"),
            per_layer,
        ],
        "pooler-and-heads.md": [
            inv(pooler=False).total, base.total, pre.total, mlm.total, mlm.state_dict_total,
            mlm.state_dict_total - mlm.total, pre.state_dict_total,
            inv(architecture="BertForSequenceClassification").total,
            inv(architecture="BertForTokenClassification").total,
        ],
        "bert-large.md": [large.total, views.per_layer(large)[0].count, 340_000_000, 110_000_000],
        "other-encoders.md": [
            inv(p).total
            for p in ("roberta-base", "roberta-large", "distilbert-base-uncased", "albert-base-v2", "albert-xxlarge-v2",
                      "google/electra-small-discriminator", "google/electra-base-discriminator",
                      "hfl/chinese-roberta-wwm-ext", "hfl/chinese-roberta-wwm-ext-large")
        ] + [inv("hfl/chinese-roberta-wwm-ext", num_hidden_layers=3).total],
        "check-it-yourself.md": [base.total, mlm.total, mlm.state_dict_total]
        + [s.count for s in views.section_breakdown(base)],
    }
    # The other systems readers bring (keras-bert, the 2018 Transformer, sparse FFNs, wrong derivations).
    from calculator import active, mistakes

    printout = build({"model_type": "transformer", "n_src_vocab": 5395, "n_tgt_vocab": 5395, "len_max_seq": 32,
                      "d_model": 512, "d_word_vec": 512, "d_inner": 2048, "n_layers": 1, "n_head": 8, "d_k": 64, "d_v": 64})
    figures["original-transformer.md"] = [printout.total, printout.trainable, printout.state_dict_total] + [
        r.count for r in views.per_layer(printout)
    ]
    keras = build({"model_type": keras_bert.MODEL_TYPE,
        "token_num": 30000, "head_num": 12, "transformer_num": 12, "embed_dim": 768, "feed_forward_dim": 3072,
        "seq_len": 500, "pos_num": 512, "dropout_rate": 0.05,
    })
    figures["keras-summary.md"] = [keras.total] + sorted({k.count for k in keras.keras_layers if k.count})
    # The base models of today's encoders, as transformers 5.23 counts them (num_parameters() on the meta
    # device from the published configs, as the cross-check builds them), not from the calculator.
    figures["encoders-today.md"] = [
        278_043_648,  # xlm-roberta-base, XLMRobertaModel
        183_831_552,  # microsoft/deberta-v3-base, DebertaV2Model
        149_014_272,  # answerdotai/ModernBERT-base, ModernBertModel
        109_486_464,  # sentence-transformers/all-mpnet-base-v2, MPNetModel
        117_944_832,  # nghuyong/ernie-3.0-base-zh, ErnieModel
        102_267_648,  # bert-base-chinese, BertModel
        128_100 * 768,  # deberta-v3-base's word table, the card's "98M"
    ]
    # The newer families, as transformers 5.23 counts them (parameters(), the trainable ones and the
    # state_dict on the meta device, from the presets' configs), not from the calculator.
    figures["encoders-today.md"] += [
        123_555_840,  # junnyu/roformer_chinese_base, RoFormerModel: its frozen rotary table included
        123_457_536,  # ... of which trainable
    ]
    figures["new-families.md"] = [
        123_555_840, 123_457_536,  # RoFormerModel (roformer_chinese_base): all, trainable
        651_040_661, 651_040_693,  # EsmModel (esm2_t33_650M_UR50D): parameters(), state_dict (inv_freq)
        852_472_320,  # XmodModel, facebook/xmod-base's 81 languages
        51_094_272,  # SqueezeBertModel, squeezebert-uncased
        130_973_184, 115_611_648,  # FunnelModel and FunnelBaseModel, funnel-transformer/small
    ]
    # Every tool's count, derived from the configs: state_dict lists the tied decoder weight [V, H] and bias [V]
    # again, torchinfo counts the tied table [V, H] twice, exclude_embeddings drops the (V + P + T)·H tables
    # (XLM-R's masked-LM model: only (P + T)·H, its word table is named after the head's nn.Linear).
    v, p_, t_ = (base.config[k] for k in ("vocab_size", "max_position_embeddings", "type_vocab_size"))
    xmlm = inv("xlm-roberta-base", architecture="XLMRobertaForMaskedLM")
    xc = xmlm.config
    figures["why-tools-disagree.md"] = [
        base.total, base.total - (v + p_ + t_) * h, pre.total, pre.total + v * h + v, pre.total + v * h,
        pre.total - (v + p_ + t_) * h, xmlm.total, xmlm.total - (xc["max_position_embeddings"] + xc["type_vocab_size"]) * xc["hidden_size"],
        xmlm.total + xc["vocab_size"] * xc["hidden_size"] + xc["vocab_size"],
        xmlm.total + xc["vocab_size"] * xc["hidden_size"],
        keras.total,
    ]
    # Fine-tuning, from the configs: LoRA adds r·(in + out) per targeted matrix; SEQ_CLS trains a copy of the head,
    # counted again in peft's "all params" (the same arithmetic gives peft's published roberta-base r=8 line,
    # 887,042 of 125,534,212).
    seq = inv(architecture="BertForSequenceClassification")
    n_layers, inner = base.config["num_hidden_layers"], base.config["intermediate_size"]
    cls_head = h * 2 + 2
    qv = 8 * (h + h) * 2 * n_layers
    rob = inv("roberta-base", architecture="RobertaForSequenceClassification")
    rob_lora = 16 * (4 * (h + h) + (h + inner) + (inner + h)) * n_layers
    rob_head = h * h + h + cls_head
    dis = inv("distilbert-base-uncased", architecture="DistilBertForSequenceClassification")
    dis_lora, pre_cls = 8 * (h + h) * 2 * dis.config["n_layers"], h * h + h
    deb = inv("microsoft/deberta-v3-base", architecture="DebertaV2ForSequenceClassification")
    figures["fine-tuning.md"] = [
        seq.total, seq.total - ((v + p_ + t_) * h + 2 * h), seq.total - (n_layers // 2) * per_layer, cls_head,
        8 * (h + h), qv, qv + cls_head, seq.total + qv + cls_head, seq.total + qv,
        qv + cls_head + 2 * n_layers * h,
        rob_lora + rob_head, rob.total + rob_lora + rob_head,
        dis_lora + pre_cls + cls_head, dis.total + dis_lora + pre_cls + cls_head,
        deb.total + qv + cls_head,
    ]
    sparse = active.active_parameters(base, (12, 4095))
    figures["active-parameters.md"] = [base.total, round(sparse.active), round(sparse.feed_forward_active)]
    figures["common-mistakes.md"] = [base.total, large.total] + [
        m.value for inv_ in (base, large) for m in mistakes.all_mistakes(inv_)
    ]
    # The rule of thumb 12·L·H² + V·H, from the configs.
    for c in (base.config, large.config):
        figures["common-mistakes.md"].append(
            12 * c["num_hidden_layers"] * c["hidden_size"] ** 2 + c["vocab_size"] * c["hidden_size"])
    return figures


FIGURES = _expected_figures()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("src", sorted(FIGURES))
def test_page_shows_the_module_figures(site: Site, src: str, lang: str):
    text = site.page(src, lang).text
    missing = [fmt(n) for n in FIGURES[src] if fmt(n) not in text]
    assert missing == []


@pytest.mark.parametrize("lang", LANGS)
def test_home_page_full_table_is_the_inventory(site: Site, lang: str):
    base = inv()
    expected = [(t.name, views.fmt_shape(t.shape), fmt(t.count)) for t in base.tensors]
    found = []
    for table in site.page("index.md", lang).tables:
        rows = [tuple(r) for r in table if len(r) == 3 and re.fullmatch(r"[\w.]+\.(weight|bias)", r[0])]
        if len(rows) == len(expected):
            found = rows
    assert found == expected


@pytest.mark.parametrize("lang", LANGS)
def test_home_page_breakdown_and_charts(site: Site, lang: str):
    page = site.page("index.md", lang)
    base = inv()
    shares = views.group_breakdown(base)
    breakdown = [t for t in page.tables if len(t) == len(shares) + 2]
    assert breakdown, "no breakdown table"
    rows = breakdown[0][1:-1]
    assert [(r[1], r[2]) for r in rows] == [(fmt(s.count), views.fmt_percent(s.fraction, lang)) for s in shares]
    classes = [s["class"] for s in page.svgs]
    assert "share-chart" in classes and "layer-diagram" in classes
    for svg in page.svgs:
        assert svg["role"] == "img" and svg["title"].strip() and svg["desc"].strip()
    chart = next(s for s in page.svgs if s["class"] == "share-chart")
    for s in shares:
        assert fmt(s.count) in chart["desc"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("src", PAGES)
def test_no_template_left_unrendered(site: Site, src: str, lang: str):
    page = site.page(src, lang)
    for marker in ("{{", "}}", "{%", "%}"):
        assert marker not in page.text
        assert all(marker not in block for block in page.code_blocks)


# ----------------------------------------------------------------- source lint

_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,}).*?^\1\2\s*$", re.S | re.M)
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{//.*?//\}", re.S)
_ATTR = re.compile(r"\{[#.:][^}\n]*\}")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_LIST_MARK = re.compile(r"^\s*\d+\.\s", re.M)
#: A number that is not part of an identifier (layer.0., fp16, Encoder-1-...).
_NUMBER = re.compile(r"(?<![\w.\-])\d(?:[\d,.]*\d)?(?![\w])")


def hand_typed_numbers(text: str) -> list[str]:
    """Multi-digit numbers in a page source outside template expressions and code blocks."""
    for pattern in (_FRONT, _FENCE, _JINJA, _COMMENT, _ATTR, _LINK_TARGET, _LIST_MARK):
        text = pattern.sub(" ", text)
    return [m.group(0) for m in _NUMBER.finditer(text) if len(re.sub(r"\D", "", m.group(0))) > 1]


def test_lint_catches_typed_numbers():
    assert hand_typed_numbers("BERT-base has 109,482,240 parameters and [768, 64] heads") == ["109,482,240", "768", "64"]
    assert hand_typed_numbers("{{ n(base) }} `encoder.layer.0.x` fp16 Encoder-1-Norm {#h12}") == []


@pytest.mark.parametrize(
    "path",
    sorted(p for p in DOCS.rglob("*.md") if p.name not in NOT_OURS),
    ids=lambda p: p.relative_to(DOCS).as_posix(),
)
def test_no_number_typed_by_hand(path):
    assert hand_typed_numbers(path.read_text(encoding="utf-8")) == []
