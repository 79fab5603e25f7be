"""Registry of model families, keyed by ``model_type``: every module in this folder that declares ``FAMILY``.

Adding a family is adding its file here; nothing else lists them. Menus and
lists follow each family's ``rank``.

A family's module is imported the first time the family is asked for
(``FAMILIES["roberta"]``), not when the registry is: the page's worker answers a
BERT link without running the other families' declarations. What the registry
must know without importing them (each file's ``model_type``, ``rank`` and
preset names) is in :mod:`._index`, written by :func:`write_index` from the
families themselves; ``tests/unit/test_families_index.py`` fails when it is
stale. A file the index does not name yet is imported at once, so a family just
added works before the index is written again.
"""
from __future__ import annotations

import importlib
import json
import os
from typing import Iterator, Mapping

from ._index import INDEX
from .base import Architecture, Family, Preset

#: Files of this folder that are not families.
_NOT_FAMILIES = ("base.py", "common.py", "blocks.py")


def _family_files() -> list[str]:
    folder = os.path.dirname(__file__)
    return sorted(name[:-3] for name in os.listdir(folder)
                  if name.endswith(".py") and not name.startswith("_") and name not in _NOT_FAMILIES)


def _load(module: str) -> Family | None:
    family = getattr(importlib.import_module(f"{__name__}.{module}"), "FAMILY", None)
    return family if isinstance(family, Family) else None


class Registry(Mapping[str, Family]):
    """``model_type`` → :class:`Family`, in menu order; a family's module is imported on first use.

    ``entries`` are ``(module, model_type, rank, preset names)``; ``loaded`` the families
    already imported (those the index did not name).
    """

    def __init__(self, entries: list[tuple[str, str, int, tuple[str, ...]]], loaded: Mapping[str, Family]):
        ordered = sorted(entries, key=lambda e: (e[2], e[1]))
        self._modules: dict[str, str] = {}
        for module, model_type, _, _ in ordered:
            if model_type in self._modules:
                raise ValueError(f"two families declare model_type {model_type!r}")
            self._modules[model_type] = module
        self._presets: dict[str, str] = {name: e[1] for e in ordered for name in e[3]}
        self._loaded: dict[str, Family] = dict(loaded)

    def __getitem__(self, model_type: str) -> Family:
        if not isinstance(model_type, str) or model_type not in self._modules:
            raise KeyError(model_type)
        family = self._loaded.get(model_type)
        if family is None:
            family = _load(self._modules[model_type])
            if family is None or family.model_type != model_type:
                raise ValueError(f"calculator/families/_index.py is stale for {model_type!r}: run write_index()")
            self._loaded[model_type] = family
        return family

    def __contains__(self, model_type: object) -> bool:
        return isinstance(model_type, str) and model_type in self._modules

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def preset_family(self, name: object) -> str | None:
        """The ``model_type`` of preset ``name`` (without importing its family), or None if no family has it."""
        return self._presets.get(name) if isinstance(name, str) else None

    def preset_names(self) -> list[str]:
        """Every preset's name, in menu order (families by rank, each family's presets in its order)."""
        return list(self._presets)


def _registry() -> Registry:
    files = _family_files()
    indexed = {e[0]: e for e in INDEX}
    # Every indexed family, its file read or not: the page's worker writes the files of families its first
    # answer does not import only after that answer (docs/assets/js/worker.js, "later").
    entries = list(INDEX)
    loaded: dict[str, Family] = {}
    for name in files:
        if name in indexed:
            continue
        family = _load(name)  # not in the index yet: imported now, so it works before the index is rewritten
        if family is not None:
            entries.append((name, family.model_type, family.rank, tuple(p.name for p in family.presets)))
            loaded[family.model_type] = family
    return Registry(entries, loaded)


def index_entries() -> list[tuple[str, str, int, tuple[str, ...]]]:
    """What :mod:`._index` should say, read from the families themselves (every module imported)."""
    out = []
    for name in _family_files():
        family = _load(name)
        if family is not None:
            out.append((name, family.model_type, family.rank, tuple(p.name for p in family.presets)))
    return out


def write_index() -> None:
    """Write :mod:`._index` from the families (``python -c "from calculator.families import write_index as w; w()"``)."""
    lines = [
        '"""Each family file\'s model_type, rank and preset names, so the registry lists them without importing them.',
        "",
        "Written by :func:`calculator.families.write_index`; tests/unit/test_families_index.py checks it.",
        '"""',
        "INDEX: tuple[tuple[str, str, int, tuple[str, ...]], ...] = (",
    ]
    for module, model_type, rank, presets in index_entries():
        lines.append(f"    ({json.dumps(module)}, {json.dumps(model_type)}, {rank}, (")
        lines.extend(f"        {json.dumps(name)}," for name in presets)
        lines.append("    )),")
    lines.append(")")
    with open(os.path.join(os.path.dirname(__file__), "_index.py"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


FAMILIES: Registry = _registry()

__all__ = ["FAMILIES", "Architecture", "Family", "Preset", "Registry", "index_entries", "write_index"]
