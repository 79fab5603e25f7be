"""XLM-RoBERTa (``modeling_xlm_roberta.py``): RoBERTa under another name, with BERT's config defaults.

transformers 5.23 generates it from ``modular_xlm_roberta.py``, which declares
every class as its RoBERTa counterpart (``XLMRobertaModel(RobertaModel)``), so the
tensors are RoBERTa's, backbone still under ``roberta.``. Three differences matter:

* ``XLMRobertaConfig`` keeps BERT's defaults (vocabulary 30,522, 512 positions,
  2 token types); the published checkpoints set 250,002 / 514 / 1.
* Every task class registers its head *before* ``self.roberta``, so the head's
  tensors come first in ``state_dict``. For the masked-LM head the shared word
  table's first name is then ``lm_head.decoder.weight`` (an ``nn.Linear``), which
  ``num_parameters(exclude_embeddings=True)`` therefore keeps; breakdowns still
  charge the table to the embedding that owns it.
* ``pad_token_id`` (default 1) is the padding row of the word *and* position tables.

CamemBERT (:mod:`.camembert`) is this family under a third name.
"""
from __future__ import annotations

import random
from typing import Any

from . import roberta
from .base import Architecture, Preset, renamed
from .common import BERT_FIELDS, heads_divide


def architectures(name: str) -> tuple[Architecture, ...]:
    """RoBERTa's classes renamed ``Roberta`` → ``name``, every task class with its head first."""
    return tuple(
        renamed(arch, "Roberta", name, head_first=arch.head is not None) for arch in roberta.FAMILY.architectures
    )


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads divide the hidden size; now and then a one- or two-row position table, which
    ``padding_idx=pad_token_id`` (1) refuses or accepts, as transformers does."""
    heads_divide()(rng, config)
    if rng.random() < 0.1:
        config["max_position_embeddings"] = rng.choice([1, 2])


def xlmr_config(
    hidden: int, layers: int, heads: int, positions: int = 514, vocab: int = 250002, model_type: str = "xlm-roberta",
) -> dict[str, Any]:
    """A published XLM-R-shaped config.json's size-relevant keys (one token type; pad_token_id is the default 1)."""
    return {
        "model_type": model_type,
        "vocab_size": vocab,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": positions,
        "type_vocab_size": 1,
    }


FAMILY = roberta.FAMILY.derive(
    model_type="xlm-roberta",
    base="XLMRobertaModel",
    # XLMRobertaConfig declares BERT's defaults, not RobertaConfig's 50265.
    fields=BERT_FIELDS,
    architectures=architectures("XLMRoberta"),
    title={"en": "XLM-RoBERTa", "zh": "XLM-RoBERTa"},
    # Sizes from copies of the published files; the class of xlm-roberta-large is
    # taken from fine-tuned copies and registries (not the file itself).
    presets=(
        Preset("xlm-roberta-base", xlmr_config(768, 12, 12), "XLMRobertaForMaskedLM"),
        Preset("xlm-roberta-large", xlmr_config(1024, 24, 16), "XLMRobertaForMaskedLM"),
        # XLM-R large with 8,192 positions (+ the padding offset), fine-tuned for retrieval.
        Preset("BAAI/bge-m3", xlmr_config(1024, 24, 16, positions=8194), "XLMRobertaModel"),
    ),
    sample=sample,
    rank=22,
)
