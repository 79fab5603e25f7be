"""Longformer's published config.json, pasted whole into the CLI, against transformers 5.23 for the class it loads as.

The files are pasted with every key as published (``attention_mode``,
``ignore_attention_mask`` and the rest that transformers ignores), as a reader
pastes them: ``python -m calculator --config - --format json``.
"""
from __future__ import annotations


import pytest

from .published import check_published



#: allenai/longformer-base-4096's config.json as published (no ``architectures``: AutoModel loads LongformerModel).
LONGFORMER_BASE_4096 = {
    "attention_mode": "longformer", "attention_probs_dropout_prob": 0.1, "attention_window": [512] * 12,
    "bos_token_id": 0, "eos_token_id": 2, "gradient_checkpointing": False, "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1, "hidden_size": 768, "ignore_attention_mask": False, "initializer_range": 0.02,
    "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 4098, "model_type": "longformer",
    "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1, "sep_token_id": 2, "type_vocab_size": 1,
    "vocab_size": 50265,
}

PUBLISHED = [("allenai/longformer-base-4096", LONGFORMER_BASE_4096, "LongformerModel")]



@pytest.mark.parametrize(("name", "config", "architecture"), PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_config_through_the_cli(name: str, config: dict, architecture: str) -> None:
    check_published(config, architecture)
