"""Views of an :class:`~calculator.model.Inventory`: numbers, breakdowns, and every text, Markdown and JSON rendering.

Each view reads the tensor list and nothing else, so every page, the CLI and the
in-page calculator show the same numbers. One home per output format:

* :mod:`.numbers`: how a number reads (``fmt_int``, ``fmt_short``, ``fmt_percent``, ``display_width``);
* :mod:`.breakdown`: groups, sections, layers, the two "backbone" splits, ``num_parameters()``, memory, the formula;
* :mod:`.report`: text and Markdown, the only place Markdown tables are written;
* :mod:`.json`: the CLI's ``--format json`` object.

HTML is :mod:`calculator.page`'s, SVG :mod:`calculator.charts`'.
"""
from __future__ import annotations

import importlib
from typing import Any

from .breakdown import (
    DTYPES,
    ClassDifference,
    class_difference,
    LayerRow,
    MemoryRow,
    Section,
    Share,
    embedding_split,
    formula,
    formula_label,
    formula_terms,
    group_breakdown,
    memory,
    num_parameters,
    per_layer,
    section_breakdown,
    section_of,
)
from .json import to_json
from .numbers import SHORT_UNITS, display_width, fmt_binary_bytes, fmt_bytes, fmt_int, fmt_percent, fmt_shape, fmt_short, fmt_signed
from . import notes
from .notes import notes_block
from .report import (
    breakdown_table,
    class_difference_line,
    config_notes,
    counts_report,
    formula_table,
    listed_under,
    markdown_table,
    md_code,
    md_text,
    plan_lines,
    plan_report,
    split_rows,
    summary_markdown,
    tensor_table,
    text_report,
)

__all__ = [
    "DTYPES", "SHORT_UNITS", "md_code", "md_text", "notes", "notes_block", "ClassDifference", "class_difference", "class_difference_line", "LayerRow", "MemoryRow", "Section", "Share", "breakdown_table", "config_notes", "counts_report",
    "display_width", "embedding_split", "fmt_binary_bytes", "fmt_bytes", "fmt_int", "fmt_percent", "fmt_shape", "fmt_short", "fmt_signed",
    "formula", "formula_label", "formula_terms", "formula_table", "group_breakdown", "listed_under", "markdown_table",
    "memory", "num_parameters", "per_layer", "plan_lines", "plan_report", "section_breakdown", "section_of",
    "split_rows", "summary_markdown", "tensor_table", "text_report", "to_json",
]

#: Submodules imported on first use (:func:`__getattr__`): the training step's renderer (``views.costs.render``)
#: and the inference span's (``views.inference.render``). The page's default answer counts parameters only, so
#: the worker does not run them before its first answer (issue 31).
_LATER = ("costs", "inference")


def __getattr__(name: str) -> Any:
    """``views.costs``, ``views.inference``: the submodule imported on first use (PEP 562)."""
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module(f"{__name__}.{name}")
