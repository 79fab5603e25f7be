"""A family's closed form as named terms (nanoGPT's ``transformer_sizing``), symbolic and substituted.

Each family writes its own ``formula(inv)`` beside its builder, from the config's
numbers alone; ``Formula.total == Inventory.total`` is then a real check of both
(``tests/unit/test_families.py`` makes it for every family, preset and random config).
A line's ``key`` is a label key (:data:`calculator.i18n.LABELS`).
"""
from __future__ import annotations

from typing import Iterable

from .i18n import has_words
from .model import Inventory, Tensor
from .record import Record


class FormulaLine(Record):
    """One line of a closed form: its label key, symbols, the numbers put in, its value (a frozen record)."""

    __slots__ = ("key", "symbolic", "substituted", "value", "counted")
    key: str  # an i18n label key
    symbolic: str
    substituted: str
    value: int
    #: A line that explains another and is not added to the total (one layer, before × L).
    counted: bool

    def __init__(self, key: str, symbolic: str, substituted: str, value: int, counted: bool = True) -> None:
        self._set(key=key, symbolic=symbolic, substituted=substituted, value=value, counted=counted)
        # A line without words would only fail when the CLI or the page prints it: fail where it is written.
        if not has_words(self.key):
            raise ValueError(
                f"formula line {self.key!r} has no words: add it to calculator.i18n.LABELS (shared) "
                "or to the family's labels= (its own)"
            )


class Formula(Record):
    """A family's closed form: its symbols' values and its lines (a frozen record: :mod:`calculator.record`)."""

    __slots__ = ("symbols", "lines")
    symbols: dict[str, int]
    lines: tuple[FormulaLine, ...]

    def __init__(self, symbols: dict[str, int], lines: tuple[FormulaLine, ...]) -> None:
        self._set(symbols=symbols, lines=lines)

    @property
    def total(self) -> int:
        return sum(line.value for line in self.lines if line.counted)


def layers_lines(symbolic: str, substituted: str, per: int, count: int, letter: str = "L") -> list[FormulaLine]:
    """"One layer" (not counted) and "all layers" = count × one layer."""
    return [
        FormulaLine("per_layer_formula", symbolic, substituted, per, counted=False),
        FormulaLine("layers_formula", f"{letter} × ({symbolic})", f"{count} × {per:,}", count * per),
    ]


def head_line(inv: Inventory, tensors: Iterable[Tensor] | None = None) -> list[FormulaLine]:
    """The task head, tensor by tensor (heads are small and differ per class; their shapes are the formula)."""
    heads = [t for t in (inv.charged if tensors is None else tensors) if t.group == "head"]
    if not heads:
        return []
    return [FormulaLine(
        "head", " + ".join(_short_name(t) for t in heads),
        " + ".join(f"{t.count:,}" for t in heads), sum(t.count for t in heads),
    )]


def _short_name(t: Tensor) -> str:
    parts = t.name.split(".")
    return ".".join(parts[-2:]) if len(parts) > 1 else t.name
