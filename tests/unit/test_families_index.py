"""calculator/families/_index.py: what the registry knows without importing a family. Stdlib only (runs in Pyodide)."""
from calculator import families
from calculator.families import FAMILIES, index_entries
from calculator.families._index import INDEX
from calculator.presets import PRESETS


def test_the_index_is_what_the_family_files_declare():
    # Each family imported and read: a family added, renamed, re-ranked or given a preset since the index
    # was written fails here. Fix: python -c "from calculator.families import write_index as w; w()"
    assert list(INDEX) == index_entries()


def test_the_registry_lists_every_family_and_preset_in_menu_order():
    declared = [families._load(module) for module, *_ in INDEX]
    by_rank = sorted(declared, key=lambda f: (f.rank, f.model_type))
    assert list(FAMILIES) == [f.model_type for f in by_rank]
    assert list(PRESETS) == [p.name for f in by_rank for p in f.presets]
    assert len(PRESETS) == sum(len(f.presets) for f in declared)
    for family in declared:
        assert FAMILIES[family.model_type] is family
        for preset in family.presets:
            assert preset.name in PRESETS and PRESETS[preset.name] is preset
    for missing in ("gpt2", "", None, 3, ("bert",)):
        assert missing not in FAMILIES and FAMILIES.get(missing) is None
        assert missing not in PRESETS and PRESETS.get(missing) is None


def test_a_family_is_imported_when_it_is_asked_for():
    # A registry made from the index alone, nothing loaded: asking for one family imports that one.
    registry = families.Registry(list(INDEX), {})
    assert registry._loaded == {}
    assert "roberta" in registry and registry._loaded == {}
    assert registry["roberta"] is FAMILIES["roberta"]
    assert set(registry._loaded) == {"roberta"}
    assert registry.preset_family("roberta-base") == "roberta" and set(registry._loaded) == {"roberta"}
