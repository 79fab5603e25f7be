"""MobileBERT's published config.json, pasted whole into the CLI, against transformers 5.23 for the class it loads as.

The file is pasted with every key as published (``true_hidden_size``, which
transformers 5.23 takes as written, and the rest), as a reader pastes it:
``python -m calculator --config - --format json``.
"""
from __future__ import annotations


import pytest

from .published import check_published



#: google/mobilebert-uncased's config.json as published (no ``architectures``: AutoModel loads MobileBertModel).
MOBILEBERT_UNCASED = {
    "attention_probs_dropout_prob": 0.1, "classifier_activation": False, "embedding_size": 128, "hidden_act": "relu",
    "hidden_dropout_prob": 0.0, "hidden_size": 512, "initializer_range": 0.02, "intermediate_size": 512,
    "intra_bottleneck_size": 128, "key_query_shared_bottleneck": True, "layer_norm_eps": 1e-12,
    "max_position_embeddings": 512, "model_type": "mobilebert", "normalization_type": "no_norm",
    "num_attention_heads": 4, "num_feedforward_networks": 4, "num_hidden_layers": 24, "pad_token_id": 0,
    "transformers_version": "4.6.0.dev0", "trigram_input": True, "true_hidden_size": 128, "type_vocab_size": 2,
    "use_bottleneck": True, "use_bottleneck_attention": False, "vocab_size": 30522,
}

PUBLISHED = [
    ("google/mobilebert-uncased", MOBILEBERT_UNCASED, "MobileBertModel"),
    # the class its fill-mask and fine-tuning examples load it as
    ("google/mobilebert-uncased (MobileBertForPreTraining)",
     dict(MOBILEBERT_UNCASED, architectures=["MobileBertForPreTraining"]), "MobileBertForPreTraining"),
]



@pytest.mark.parametrize(("name", "config", "architecture"), PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_config_through_the_cli(name: str, config: dict, architecture: str) -> None:
    check_published(config, architecture)
