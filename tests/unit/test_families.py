"""Every family is a complete declaration: labels in both languages, every architecture builds,
the formula equals the total, presets are valid.

The formula is each family's own arithmetic on the config numbers, written apart
from its tensor list, so ``formula.total == inventory.total`` checks both; it is
checked here on the defaults, every preset × architecture, and seeded random
configs drawn from the fields' declared ranges. Plain functions, standard library
only: this file also runs inside the site's Pyodide.
"""
from __future__ import annotations

import random
import re

from calculator import api, views
from calculator.build import build
from calculator.errors import CalcError
from calculator.families import FAMILIES
from calculator.i18n import LABELS
from calculator.presets import PRESETS

LANGS = ("en", "zh")
RANDOM_PER_FAMILY = 25


def _both(entry: dict, what: str) -> None:
    assert set(entry) == {"en", "zh"}, what
    assert entry["en"].strip() and entry["zh"].strip(), what
    marks = [sorted(re.findall(r"\{(\w+)\}", entry[lang])) for lang in LANGS]
    assert marks[0] == marks[1], what


def _raw(family, architecture, **values):
    raw = {"model_type": family.model_type, **values}
    arch = family.architecture(architecture)
    if arch.labels_must_be is not None:
        raw["num_labels"] = arch.labels_must_be
    raw.update(arch.requires)
    return raw


def _formula_matches(inv) -> None:
    f = views.formula(inv)
    assert f is not None, inv.model_type
    assert f.total == inv.total, (inv.model_type, inv.architecture, f.total, inv.total)
    for line in f.lines:
        for lang in LANGS:
            assert views.formula_label(inv, line.key, lang), line.key


def test_every_family_has_its_words_in_both_languages():
    for mt, family in FAMILIES.items():
        _both(family.title, f"{mt} title")
        for lang in LANGS:
            assert api.fields_legend(mt, lang) and api.family_option(mt, lang), mt
        keys = [f.key for f in family.fields]
        assert len(keys) == len(set(keys)), mt
        for f in family.fields:
            _both(f.label, f"{mt}.{f.key}")
            assert f.kind in ("int", "ints", "bool", "choice", "flags"), f.key
            if f.kind in ("choice", "flags"):
                assert f.choices, f.key
            if f.default_from is not None:
                assert f.default_from in keys[: keys.index(f.key)], f"{mt}.{f.key} depends on a later field"
        for key, entry in family.labels.items():
            _both(entry, f"{mt} label {key}")
        assert family.base in family.architecture_names, mt
        assert family.per_layer_title in api.UI_LABELS, mt


def test_every_architecture_builds_at_the_defaults_and_its_formula_is_its_total():
    for mt, family in FAMILIES.items():
        for arch in family.architectures:
            inv = build(_raw(family, arch.name), arch.name)
            assert inv.architecture == arch.name and inv.total > 0, (mt, arch.name)
            assert views.num_parameters(inv, exclude_embeddings=True) <= inv.total
            if family.formula is not None:
                _formula_matches(inv)
        assert family.formula is not None or not family.transformers, f"{mt}: a transformers family needs a formula"


def test_every_preset_is_valid_and_its_formula_is_its_total_for_every_architecture():
    for mt, family in FAMILIES.items():
        for preset in family.presets:
            assert PRESETS[preset.name] is preset
            assert preset.config["model_type"] == mt, preset.name
            assert preset.published_architecture in family.architecture_names, preset.name
            for arch in family.architectures:
                inv = build(_raw(family, arch.name, **{k: v for k, v in preset.config.items() if k != "model_type"}),
                            arch.name)
                if family.formula is not None:
                    _formula_matches(inv)
    assert len(PRESETS) == sum(len(f.presets) for f in FAMILIES.values())  # no two presets share a name


def test_random_configs_from_the_declared_ranges_keep_formula_and_total_equal():
    built = 0
    for mt, family in FAMILIES.items():
        sampled = [f for f in family.fields if f.sample is not None]
        if not family.transformers:
            continue
        assert sampled, f"{mt}: the cross-check draws from the fields' sample ranges"
        rng = random.Random(f"families-{mt}")
        for _ in range(RANDOM_PER_FAMILY):
            raw = {"model_type": mt}
            for f in sampled:
                if f.kind == "bool":
                    raw[f.key] = rng.random() < 0.5
                elif f.kind == "flags":
                    raw[f.key] = [c for c in f.choices if rng.random() < 0.5]
                elif f.kind == "choice":
                    raw[f.key] = rng.choice(f.choices)
                else:
                    raw[f.key] = rng.randint(*f.sample)
            if family.sample is not None:
                family.sample(rng, raw)
            arch = rng.choice(family.architectures)
            if arch.labels_must_be is not None:
                raw["num_labels"] = arch.labels_must_be
            try:
                inv = build(raw, arch.name)
            except CalcError:
                continue
            _formula_matches(inv)
            built += 1
    assert built >= 0.8 * RANDOM_PER_FAMILY * sum(1 for f in FAMILIES.values() if f.transformers), built


def test_breakdowns_add_up_to_the_total_for_every_preset():
    """torchinfo's invariant: every table's rows sum to the total it shows (shared storage charged once)."""
    for name, preset in PRESETS.items():
        family = FAMILIES[preset.config["model_type"]]
        for arch in (family.base, preset.published_architecture):
            inv = build(_raw(family, arch, **{k: v for k, v in preset.config.items() if k != "model_type"}), arch)
            assert sum(s.count for s in views.group_breakdown(inv)) == inv.total, name
            sections = views.section_breakdown(inv)
            assert sum(s.count for s in sections) == inv.total, name
            for s in sections:
                assert sum(c.count for c in s.children) == s.count, (name, s.key)
            emb, rest = views.embedding_split(inv)
            assert emb + rest == inv.total and emb > 0, name


def test_shared_labels_exist_in_both_languages():
    for key, entry in LABELS.items():
        _both(entry, key)


def test_every_group_has_a_label_and_a_colour():
    from calculator.charts import COLOURS
    from calculator.model import GROUPS

    for group in GROUPS:
        _both(LABELS[group], group)
        assert group in COLOURS, group


def test_a_formula_line_without_words_fails_where_it_is_written():
    """A missing word is a clear error where the line is declared, not a KeyError when the CLI prints it."""
    from calculator.formula import FormulaLine

    try:
        FormulaLine("no_such_word_anywhere", "x", "1", 1)
    except ValueError as exc:
        assert "no_such_word_anywhere" in str(exc) and "labels" in str(exc)
    else:
        raise AssertionError("a formula line without words was accepted")
    # A shared word needs no declaration (ModernBERT's final_norm is one now).
    assert FormulaLine("final_norm", "H", "768", 768).key == "final_norm"
    assert "final_norm" not in FAMILIES["modernbert"].labels


def test_a_family_using_another_familys_word_is_told_which():
    """A key only ModernBERT declares, used in another family's formula, names the family and the key."""
    from dataclasses import replace

    from calculator.formula import Formula, FormulaLine

    def borrowed(inv):
        return Formula({}, (FormulaLine("attention_norms", "x", "1", inv.total),))

    inv = build({"model_type": "bert"})
    inv = replace(inv, family=inv.family.derive(formula=borrowed))
    try:
        views.formula(inv)
    except ValueError as exc:
        assert "attention_norms" in str(exc) and "bert" in str(exc)
    else:
        raise AssertionError("a word another family declares was accepted")


def test_architectures_are_declared_with_keywords():
    """Architecture(name, prefix, pooler, head, uses_num_labels) misread positionally: keywords only."""
    from calculator.families.base import Architecture

    try:
        Architecture("BertModel", "", None)  # type: ignore[misc]
    except TypeError:
        pass
    else:
        raise AssertionError("Architecture accepted positional arguments")
    arch = Architecture(name="BertModel", prefix="", pooler=None)
    assert arch.head is None and not arch.uses_num_labels and not arch.head_first


def test_derive_refuses_new_tensors_under_the_inherited_step():
    """A sibling that builds other tensors must name its step program: derive() refuses to hand it the parent's
    (issue 31 item 1; XLM-R-XL's pre-LN layers once ran RoBERTa's program)."""
    from dataclasses import replace

    from calculator.families import megatron_bert, roberta
    from calculator.families.base import Task

    parent = roberta.FAMILY
    other_head = tuple(replace(a, head=megatron_bert.bert.nsp_head) if a.task == Task.MASKED_LM else a
                       for a in parent.architectures)
    for changes in ({"backbone": megatron_bert.backbone}, {"architectures": other_head}):
        try:
            parent.derive(model_type="x", **changes)
        except TypeError as exc:
            assert "costs=" in str(exc) and next(iter(changes)) in str(exc), exc
        else:
            raise AssertionError(f"derive() kept RoBERTa's step for {sorted(changes)}")
        # Said, it is taken: its own program, or None (the step refused).
        assert parent.derive(model_type="x", costs=None, **changes).costs is None
        assert parent.derive(model_type="x", costs=megatron_bert.COSTS, **changes).costs is megatron_bert.COSTS
    # Renamed classes with the same heads and tasks (XLM-R, CamemBERT) keep the parent's program.
    same = tuple(replace(a, name=a.name.replace("Roberta", "Y", 1)) for a in parent.architectures)
    assert parent.derive(model_type="y", architectures=same).costs is parent.costs
