"""Published checkpoints whose config.json names custom code (``auto_map``) that transformers 5.23 has ported
natively (issue 34 item 4): which config says what, and which family is the native port.

Data only, so a config is matched without importing every family (the page loads a family on demand). A
config matches when it says ``model_type`` and holds the marker: ``key:NAME`` (the key is present) or
``auto_map:TEXT`` (a class the auto_map names contains the text). The family's own declaration says whether
its tensors are the custom code's (:attr:`Family.port_words`) and reports built-in adapters
(:attr:`Family.adapters`).
"""
from __future__ import annotations

from typing import Any, Mapping

#: (the model_type the config says, its marker, the native family's model_type).
PORTS: tuple[tuple[str, str, str], ...] = (
    # Alibaba-NLP/gte-multilingual-base, gte-base-en-v1.5: model_type "new", code in Alibaba-NLP/new-impl.
    ("new", "auto_map:Alibaba-NLP/new-impl", "gte"),
    # jinaai/jina-embeddings-v3: "xlm-roberta" with the task adapters' list, code in
    # jinaai/xlm-roberta-flash-implementation.
    ("xlm-roberta", "key:lora_adaptations", "jina_embeddings_v3"),
)


def _auto_map_classes(raw: Mapping[str, Any]) -> list[str]:
    value = raw.get("auto_map")
    if isinstance(value, Mapping):
        return [v for v in value.values() if isinstance(v, str)]
    return [value] if isinstance(value, str) else []


def port_of(raw: Mapping[str, Any]) -> str | None:
    """The model_type of the family that natively ports the custom code ``raw`` names, or None."""
    if "auto_map" not in raw:
        return None
    for says, marker, family in PORTS:
        if raw.get("model_type") != says:
            continue
        kind, _, text = marker.partition(":")
        if kind == "key" and text in raw:
            return family
        if kind == "auto_map" and any(text in c for c in _auto_map_classes(raw)):
            return family
    return None
