"""The CLI's ``--format json`` object: every number an integer, nothing rounded, nothing localized.

Its schema is in the README's CLI section; the CLI adds ``counts`` and a plan's object.
"""
from __future__ import annotations

from typing import Any

from ..model import Inventory
from .breakdown import embedding_split, formula, group_breakdown, memory, num_parameters, per_layer, section_breakdown


def to_json(inv: Inventory, peft: Any = None) -> dict[str, Any]:
    """The CLI's ``--format json`` object (schema in the README); everything an integer, nothing rounded.

    ``peft``: a :class:`calculator.peft.Plan` adds ``"peft": {"trainable", "all", "line", ...}``.
    """
    emb, non_emb = embedding_split(inv)
    f = formula(inv)
    out: dict[str, Any] = {
        "model_type": inv.model_type,
        "architecture": inv.architecture,
        "pooler": inv.pooler,
        "config": dict(inv.config),
        "total": inv.total,
        "trainable": inv.trainable,
        "non_trainable": inv.non_trainable,
        "state_dict_total": inv.state_dict_total,
        "embedding": emb,
        "non_embedding": non_emb,
        # transformers' model.num_parameters() and num_parameters(exclude_embeddings=True), by its definition
        "num_parameters": {"all": num_parameters(inv), "exclude_embeddings": num_parameters(inv, exclude_embeddings=True)},
        "groups": [s.as_dict() for s in group_breakdown(inv)],
        "sections": [
            {"key": s.key, "count": s.count, "fraction": s.fraction, "children": [c.as_dict() for c in s.children]}
            for s in section_breakdown(inv)
        ],
        "per_layer": [r.as_dict() for r in per_layer(inv)],
        "memory": [m.as_dict() for m in memory(inv)],
        "formula": None
        if f is None
        else {"symbols": f.symbols, "lines": [line.as_dict() for line in f.lines], "total": f.total},
        "tensors": [
            {
                "name": t.name,
                "shape": list(t.shape),
                "count": t.count,
                "group": t.group,
                "layer": t.layer,
                "tied_to": t.tied_to,
                "trainable": t.trainable,
                "section": t.section,
                "module": t.module,
            }
            for t in inv.tensors
        ],
    }
    if inv.keras_layers:
        out["layers"] = [
            {"name": k.name, "class": k.cls, "count": k.count, "trainable": k.trainable} for k in inv.keras_layers
        ]
    if peft is not None:
        out["peft"] = peft.to_dict()
    return out
