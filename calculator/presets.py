"""Published checkpoints: every family's presets, in menu order.

Each preset keeps the hub's keys and values (only the keys that shape
tensors, plus ``model_type``), and the class its ``architectures`` lists,
kept apart: a preset is computed for the family's base model unless an
architecture is asked for, because "how big is bert-base-uncased" means the
encoder that everyone quotes (109,482,240), not its pre-training head.
The presets themselves live with their family (``calculator/families/``).
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping

from .errors import CalcError
from .families import FAMILIES
from .families.base import Preset



class _Presets(Mapping[str, Preset]):
    """Preset name → :class:`Preset`, in menu order; a preset's family is imported when it is asked for."""

    def __getitem__(self, name: str) -> Preset:
        model_type = FAMILIES.preset_family(name)
        if model_type is None:
            raise KeyError(name)
        for preset in FAMILIES[model_type].presets:
            if preset.name == name:
                return preset
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return FAMILIES.preset_family(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(FAMILIES.preset_names())

    def __len__(self) -> int:
        return len(FAMILIES.preset_names())


PRESETS: Mapping[str, Preset] = _Presets()

DEFAULT_PRESET = "bert-base-uncased"


def close_presets(value: Any, limit: int = 3) -> list[str]:
    """Up to ``limit`` published presets a mistyped name probably meant, best first.

    Case and ``_``/``-`` are ignored; a name that contains what was typed
    ("base-v2", "chinese") counts as close, and otherwise
    :func:`difflib.get_close_matches` decides, strictly (cutoff 0.8), so that a
    stranger name suggests nothing rather than something unrelated.
    """
    if not isinstance(value, str):
        return []

    def norm(text: str) -> str:
        return text.strip().lower().replace("_", "-")

    typed = norm(value)
    if not typed:
        return []
    names = {norm(name): name for name in PRESETS}
    if len(typed) >= 3:
        found = [name for key, name in names.items() if typed in key]
        if found:
            return found[:limit]
    import difflib  # only on this error path: the page's first answer does not compile it

    return [names[key] for key in difflib.get_close_matches(typed, list(names), n=limit, cutoff=0.8)]


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise CalcError("unknown_preset", fields=("preset",), value=name, close=tuple(close_presets(name))) from None


__all__ = ["PRESETS", "DEFAULT_PRESET", "Preset", "close_presets", "get_preset"]
