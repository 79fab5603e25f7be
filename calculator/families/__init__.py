"""Registry of model families, keyed by ``model_type``."""
from __future__ import annotations

from . import albert, bert, distilbert, electra, keras_bert, roberta, transformer2018
from .base import Architecture, Family

FAMILIES: dict[str, Family] = {
    f.model_type: f
    for f in (
        bert.FAMILY, roberta.FAMILY, distilbert.FAMILY, albert.FAMILY, electra.FAMILY,
        keras_bert.FAMILY, transformer2018.FAMILY,
    )
}


def register(family: Family) -> None:
    """Add a family (used by the keras-bert and 2018-Transformer modules)."""
    FAMILIES[family.model_type] = family


__all__ = ["FAMILIES", "Architecture", "Family", "register"]
