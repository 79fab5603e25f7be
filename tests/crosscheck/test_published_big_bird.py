"""BigBird's published config.json, pasted whole into the CLI, against transformers 5.23 for the class it loads as.

The file is pasted with every key as published (``block_size``, ``num_random_blocks``
and the rest that shape no tensor), as a reader pastes it:
``python -m calculator --config - --format json``.
"""
from __future__ import annotations


import pytest

from .published import check_published



#: google/bigbird-roberta-base's config.json as published.
BIGBIRD_ROBERTA_BASE = {
    "architectures": ["BigBirdForPreTraining"], "attention_probs_dropout_prob": 0.1, "attention_type": "block_sparse",
    "block_size": 64, "bos_token_id": 1, "eos_token_id": 2, "gradient_checkpointing": False, "hidden_act": "gelu_new",
    "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072,
    "layer_norm_eps": 1e-12, "max_position_embeddings": 4096, "model_type": "big_bird", "num_attention_heads": 12,
    "num_hidden_layers": 12, "num_random_blocks": 3, "pad_token_id": 0, "rescale_embeddings": False, "sep_token_id": 66,
    "type_vocab_size": 2, "use_bias": True, "use_cache": True, "vocab_size": 50358,
}

PUBLISHED = [("google/bigbird-roberta-base", BIGBIRD_ROBERTA_BASE, "BigBirdForPreTraining")]



@pytest.mark.parametrize(("name", "config", "architecture"), PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_config_through_the_cli(name: str, config: dict, architecture: str) -> None:
    check_published(config, architecture)
