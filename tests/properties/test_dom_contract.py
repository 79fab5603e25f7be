"""The page's DOM contract holds on both sides: the script uses only declared names, the markup has them all.

``calculator/page/dom.py`` declares the ids, classes and data attributes
``docs/assets/js/calculator.js`` relies on; a rename on either side fails here,
not in a browser.
"""
from __future__ import annotations

import re
from pathlib import Path

from calculator import api
from calculator.page import dom

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = [ROOT / "docs" / "assets" / "js" / name for name in ("calculator.js", "calculator-start.js", "calculator-model.js")]


def _script_names() -> set[str]:
    names: set[str] = set()
    for path in SCRIPTS:
        source = path.read_text(encoding="utf-8")
        # "calc-…" in quotes or a selector (.calc-… / #calc-…); templates (`calc-${…}`) are field ids
        names.update(re.findall(r"""["'.#`](calc-[a-z_-]+[a-z])(?![a-z_-]*\$)""", source))
    return names


def test_every_name_the_script_uses_is_declared():
    declared = set(dom.IDS.values()) | set(dom.CLASSES)
    undeclared = sorted(n for n in _script_names() if n not in declared)
    assert not undeclared, f"used by the page's script but not declared in calculator/page/dom.py: {undeclared}"
    assert len(_script_names()) > 20  # the scan found the script's names (it cannot silently find none)


def test_every_declared_id_is_in_the_rendered_page():
    for lang in ("en", "zh"):
        markup = api.render_widget(lang)
        keras = api.compute({"model_type": "keras-bert"}, lang)["html"]
        for role, ident in dom.IDS.items():
            assert f'id="{ident}"' in markup + keras, (lang, role, ident)


def test_data_attributes_the_script_reads_are_rendered():
    markup = api.render_widget("en") + api.compute({"preset": "bert-base-uncased"}, "en", tensor_rows=True)["html"]
    script = "".join(p.read_text(encoding="utf-8") for p in SCRIPTS)
    for name in dom.DATA:
        camel = re.sub(r"-([a-z])", lambda m: m.group(1).upper(), name[len("data-"):])
        assert name in script or f"dataset.{camel}" in script, name
    for name in ("data-total", "data-family", "data-key", "data-copy", "data-rows", "data-state"):
        assert name in markup, name


def test_the_paste_box_keeps_its_public_ids():
    assert dom.IDS["config"] == "calc-config" and dom.IDS["config_apply"] == "calc-config-apply"
