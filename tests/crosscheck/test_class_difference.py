"""A class's difference to its family's base model (issue 22, item 1) is transformers' own.

A preset is counted as the family's base model (``ElectraModel``) while its published config.json
names another class (``ElectraForPreTraining``); the page, the copies and the CLI's Markdown then
say "ElectraForPreTraining: +N compared with the base model, ElectraModel (adds …)". Here N is
transformers' ``num_parameters()`` of the class minus that of the base model (with its default
pooler), both built from the preset's config on the meta device, and the modules named as added
or dropped are the top-level modules whose parameters one model has and the other has not.
"""
from __future__ import annotations

import pytest

from calculator import views
from calculator.build import build as engine_build
from calculator.families import FAMILIES
from calculator.presets import PRESETS

from .framework import build as hf_build

#: One preset per (family, published class) whose published class is not the base model.
CASES = sorted({
    (preset.config["model_type"], preset.published_architecture): name
    for name, preset in reversed(list(PRESETS.items()))
    if FAMILIES[preset.config["model_type"]].transformers
    and preset.published_architecture not in (None, FAMILIES[preset.config["model_type"]].base)
}.items())


def _hf(raw: dict, architecture: str):
    hf_config = {k: v for k, v in raw.items() if k not in ("model_type", "architectures")}
    return hf_build(raw["model_type"], architecture, hf_config)


def test_there_are_cases():
    assert ("electra", "ElectraForPreTraining") in dict(CASES)
    assert len(CASES) >= 10


@pytest.mark.parametrize(("case", "preset"), CASES, ids=[f"{mt}-{a}" for (mt, a), _ in CASES])
def test_difference_to_the_base_model_is_transformers(case, preset):
    model_type, architecture = case
    raw = dict(PRESETS[preset].config)
    family = FAMILIES[model_type]
    arch = family.architecture(architecture)
    if arch.labels_must_be is not None:
        raw["num_labels"] = arch.labels_must_be
    cls, base = _hf(raw, architecture), _hf(raw, family.base)
    d = views.class_difference(engine_build(raw, architecture))
    assert d is not None and d.base == family.base == type(base).__name__
    assert d.difference == cls.num_parameters() - base.num_parameters()
    # What it adds and drops, by top-level module: the names transformers registers.
    ours = {n for n, _ in base.named_parameters()}
    prefix = cls.base_model_prefix + "."
    theirs = {n[len(prefix):] if n.startswith(prefix) else n for n, _ in cls.named_parameters(remove_duplicate=False)}
    added = {n.split(".", 1)[0] for n in theirs - ours}
    removed = {n.split(".", 1)[0] for n in ours - theirs}
    assert {m for m, _ in d.added} <= added and {m for m, _ in d.removed} == removed
    # What it drops, counted from transformers' base model; what it adds is the rest of the difference (a tied
    # decoder is charged to the embedding it shares, not to the head, as in every breakdown).
    by_module: dict[str, int] = {}
    for name, p in base.named_parameters():
        if name in ours - theirs:
            by_module[name.split(".", 1)[0]] = by_module.get(name.split(".", 1)[0], 0) + p.numel()
    assert dict(d.removed) == {m: n for m, n in by_module.items() if n}
    assert sum(n for _, n in d.added) - sum(n for _, n in d.removed) == d.difference
