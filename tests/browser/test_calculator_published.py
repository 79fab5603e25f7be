"""Published config.json files of every family added in issue 24, pasted into the page: the total is transformers'.

The configs are the ones the CLI cross-check pastes (``tests/crosscheck/test_published_*.py``),
one per family; the expected total is the class transformers 5.23 builds from each (random
weights on the meta device), never the calculator's own answer.
"""
from __future__ import annotations

import importlib
import json

import pytest

from tests.crosscheck.framework import build as hf_build
from tests.crosscheck.framework import describe

from .support import wait_ready, wait_total

MODULES = ("big_bird", "configs_c", "convbert", "funnel", "longformer", "megatron_bert", "mobilebert",
           "nomic_bert", "rembert", "squeezebert")


def one_config_per_family() -> list[tuple[str, dict, str]]:
    """(checkpoint, its config.json, the class transformers loads it as), the first of each model_type."""
    from calculator.families import FAMILIES

    out: dict[str, tuple[str, dict, str]] = {}
    for module in MODULES:
        published = importlib.import_module(f"tests.crosscheck.test_published_{module}").PUBLISHED
        rows = published if isinstance(published, list) else [(name, config, None) for name, config in published.items()]
        for name, config, cls in rows:
            model_type = config["model_type"]
            cls = cls or (config.get("architectures") or [FAMILIES[model_type].base])[0]
            out.setdefault(model_type, (name, config, cls))
    return sorted(out.values())


def transformers_total(config: dict, cls: str) -> int:
    hf_config = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    return describe(hf_build(config["model_type"], cls, hf_config)).total


def test_every_new_family_has_a_published_config_here():
    assert len({config["model_type"] for _, config, _ in one_config_per_family()}) == 14


@pytest.mark.parametrize("lang", ["en"])
def test_pasted_published_configs_give_transformers_total(page, site, lang):
    page.goto(site.url("calculator/", lang))
    wait_ready(page)
    page.click("#calc-config-box summary")
    for name, config, cls in one_config_per_family():
        page.fill("#calc-config", json.dumps(config))
        page.click("#calc-config-apply")
        wait_total(page, transformers_total(config, cls))
        assert page.input_value("#calc-model_type") == config["model_type"], name
