"""Registry of model families, keyed by ``model_type``: every module in this folder that declares ``FAMILY``.

Adding a family is adding its file here; nothing else lists them. Menus and
lists follow each family's ``rank``.
"""
from __future__ import annotations

import importlib
import os

from .base import Architecture, Family, Preset


def _discover() -> dict[str, Family]:
    found: list[Family] = []
    folder = os.path.dirname(__file__)
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py") or name.startswith("_") or name in ("base.py", "common.py"):
            continue
        module = importlib.import_module(f"{__name__}.{name[:-3]}")
        family = getattr(module, "FAMILY", None)
        if isinstance(family, Family):
            found.append(family)
    found.sort(key=lambda f: (f.rank, f.model_type))
    registry: dict[str, Family] = {}
    for family in found:
        if family.model_type in registry:
            raise ValueError(f"two families declare model_type {family.model_type!r}")
        registry[family.model_type] = family
    return registry


FAMILIES: dict[str, Family] = _discover()

__all__ = ["FAMILIES", "Architecture", "Family", "Preset"]
