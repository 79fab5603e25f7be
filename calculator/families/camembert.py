"""CamemBERT (``modeling_camembert.py``): XLM-RoBERTa under a third name.

transformers 5.23's ``modular_camembert.py`` declares every class as its RoBERTa
counterpart, and the generated configuration and modeling files are XLM-R's with
the name replaced: BERT's config defaults, the backbone under ``roberta.``, every
task class registering its head before the backbone.
"""
from __future__ import annotations

from .base import Preset
from .xlm_roberta import FAMILY as XLM_ROBERTA
from .xlm_roberta import architectures, xlmr_config

FAMILY = XLM_ROBERTA.derive(
    model_type="camembert",
    base="CamembertModel",
    architectures=architectures("Camembert"),
    title={"en": "CamemBERT", "zh": "CamemBERT"},
    # Sizes from a fine-tuned copy of the published file (its class: not seen in the file itself).
    presets=(
        Preset("camembert-base", xlmr_config(768, 12, 12, vocab=32005, model_type="camembert"), "CamembertForMaskedLM"),
    ),
    rank=24,
    peft_targets=(),  # peft's mapping has XLM-R's entry, none for CamemBERT
)
