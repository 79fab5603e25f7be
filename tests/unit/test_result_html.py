"""The per-tensor table, written row by row for speed, is the table ``h`` builds, to the byte.

Standard library only: this file also runs inside Pyodide. The reference below is the
table as it was written with :func:`calculator.html.h` (every cell's text and
attributes escaped by the general builder) before ``tensor_table`` wrote its rows
itself; the two must agree on tied copies, buffers and Keras weights, in both
languages, and on names that need escaping.
"""
import dataclasses

from calculator import views
from calculator.build import build
from calculator.i18n import label
from calculator.html import h, join
from calculator.page.result import _table, tensor_table
from calculator.presets import PRESETS


def reference_table(inv, lang):
    rows = []
    for t in inv.tensors:
        under = views.listed_under(t)
        note = (" ", h("span", f"({label('tied_to', lang, name=under)})", class_="calc-tied")) if under else ()
        if t.buffer:
            note = (" ", h("span", f"({label('buffer_note', lang)})", class_="calc-tied"))
        rows.append(h(
            "tr",
            h("td", join([h("code", t.name), *note]), class_="calc-name"),
            h("td", views.fmt_shape(t.shape), class_="num"), h("td", views.fmt_int(t.count, lang), class_="num"),
            h("td", label(t.group, lang)),
            data_name=t.name, data_count=t.count, data_tied="1" if under else None,
        ))
    name = label("weight" if inv.keras_layers else "tensor", lang)
    head = [(name, ""), (label("shape", lang), "num"), (label("count", lang), "num"), (label("group", lang), "")]
    return _table(head, rows, "calc-tensor-table")


CASES = [
    (PRESETS["bert-base-uncased"].config, "BertForMaskedLM"),  # the decoder tied to the word embeddings
    (PRESETS["xlm-roberta-base"].config, "XLMRobertaForMaskedLM"),  # a head registered before its backbone
    (PRESETS["facebook/esm2_t6_8M_UR50D"].config, "EsmForMaskedLM"),  # a persistent buffer
    ({"model_type": "keras-bert"}, None),  # Keras weights: the table's first column says so
    (PRESETS["distilbert-base-uncased"].config, "DistilBertModel"),  # nothing tied
]


def test_the_table_is_the_one_h_builds():
    seen = set()
    for config, architecture in CASES:
        inv = build(dict(config), architecture) if architecture else build(dict(config))
        seen |= {"tied" for t in inv.tensors if views.listed_under(t)} | {"buffer" for t in inv.tensors if t.buffer}
        seen |= {"keras"} if inv.keras_layers else set()
        for lang in ("en", "zh"):
            assert tensor_table(inv, lang) == reference_table(inv, lang), (config.get("model_type"), lang)
    assert seen == {"tied", "buffer", "keras"}  # each kind of row came up


def test_names_are_escaped_as_h_escapes_them():
    inv = build(dict(PRESETS["bert-base-uncased"].config), "BertForMaskedLM")
    odd = 'a<b>&"c\'d'
    tensors = tuple(dataclasses.replace(t, name=odd + t.name) for t in inv.tensors)
    crafted = dataclasses.replace(inv, tensors=tensors)
    table = tensor_table(crafted, "en")
    assert table == reference_table(crafted, "en")
    assert odd not in table and "a&lt;b&gt;&amp;&quot;c&#x27;d" in table
