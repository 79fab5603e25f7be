"""The page's DOM contract: every id, class and data attribute ``docs/assets/js/calculator.js`` relies on.

The Python renderer builds the markup with these names; the script finds
elements by them. ``tests/unit/test_dom_contract.py`` checks both sides: every
name the script uses is declared here, and every declared id is in the
rendered widget. ``#calc-config`` (the paste box) and ``#calc-config-apply``
(its button) are public: forum answers and other tools refer to them.
"""
from __future__ import annotations

#: Element ids, by role.
IDS: dict[str, str] = {
    "root": "calc-root",
    "schema": "calc-schema",
    "summary": "calc-summary",
    "status": "calc-status",
    "general_error": "calc-general-error",
    "label": "calc-label",
    "stale_box": "calc-stale-box",
    "stale_note": "calc-stale-note",
    "stale_fix": "calc-stale-fix",
    "copy_status": "calc-copy-status",
    "mini": "calc-mini",
    "live": "calc-live",
    "output": "calc-output",
    "form": "calc-form",
    "preset": "calc-preset",
    "model_type": "calc-model_type",
    "architecture": "calc-architecture",
    "pooler": "calc-pooler",
    "pooler_hint": "calc-pooler-hint",
    "extras": "calc-extras",
    # The model-id field above the paste box (issue 33, item 4): its own form, button and progress line.
    "model_form": "calc-model-form",
    "model": "calc-model",
    "model_read": "calc-model-read",
    "model_progress": "calc-model-progress",
    "config_box": "calc-config-box",
    "config": "calc-config",
    "config_apply": "calc-config-apply",
    "config_file": "calc-config-file",
    "config_error": "calc-config-error",
    "result_title": "calc-result-title",
    "keras_summary": "calc-keras-summary",
    "planner": "calc-planner",
    "counts_title": "calc-counts-title",
    # The "Training cost" panel (calculator/page/costs.py): its details, answer and copy status;
    # its own error slot is "calc-costs-error", for errors without a field of the panel.
    "costs_panel": "calc-costs",
    "costs_output": "calc-costs-output",
    "costs_copy_status": "calc-costs-copy-status",
}

#: Classes the script reads or sets.
CLASSES: tuple[str, ...] = (
    "calc-tensors", "calc-total", "calc-model", "calc-mini-short", "calc-hint", "calc-config",
    "calc-stale", "calc-failed", "calc-drop", "calc-unused", "calc-mini-off",
    "calc-mini-plan", "calc-plan", "calc-costs-fields", "calc-err-more", "calc-actions", "calc-copy-status",
    # The Hub section's link to the checkpoint's own class (calculator/page/hub.py): read without leaving the page.
    "calc-hub-class",
    # On <html> while the page starts, set by calculator-start.js: a narrow screen's breakdown waits for "load".
    "calc-output-later",
)

#: Data attributes the script reads: totals, error codes, the lazily filled tensor rows, families, copies.
DATA: tuple[str, ...] = (
    "data-total", "data-error-code", "data-rows", "data-family", "data-key", "data-copy", "data-state",
    "data-own-describedby", "data-mini", "data-costs-copy", "data-loading", "data-errors",
    # The copies' source line under the title (result.py's source_title), plain and as escaped Markdown.
    "data-source-text", "data-source-markdown",
    # The training-cost panel's "find the largest batch and length that fit" button (issue 32).
    "data-costs-fit",
)


def field_id(model_type: str | None, key: str) -> str:
    """A form field's id: ``calc-<model_type>-<key>`` for a family's field, ``calc-<key>`` for the page's own."""
    return f"calc-{model_type}-{key}" if model_type else f"calc-{key}"


def contract() -> dict[str, object]:
    """The contract as data, for the page's schema."""
    return {"ids": dict(IDS), "classes": list(CLASSES), "data": list(DATA), "field_id": "calc-{family}-{key}"}
