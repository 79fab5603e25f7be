"""Megatron-BERT's published config.json files, pasted whole into the CLI, against transformers 5.23.

Each dict is the file as published on the Hugging Face Hub (every key, ``architectures``
as written or absent); the CLI reads it from stdin like a user would, and its totals must
be those of the class transformers loads it as (``architectures[0]``, else the base model),
built on the meta device.
"""
from __future__ import annotations


import pytest

from .published import check_published



PUBLISHED = {
    # https://huggingface.co/UFNLP/gatortron-base/blob/main/config.json
    "UFNLP/gatortron-base": {
        "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 1024,
        "initializer_range": 0.02, "intermediate_size": 4096, "layer_norm_eps": 1e-12,
        "max_position_embeddings": 512, "model_type": "megatron-bert", "num_attention_heads": 16,
        "num_hidden_layers": 24, "pad_token_id": 0, "position_embedding_type": "absolute",
        "tokenizer_type": "BertWordPieceCase", "transformers_version": "4.17.0", "type_vocab_size": 2,
        "use_cache": True, "vocab_size": 50176,
    },
    # https://huggingface.co/UFNLP/gatortron-medium/blob/main/config.json
    "UFNLP/gatortron-medium": {
        "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 2560,
        "initializer_range": 0.02, "intermediate_size": 10240, "layer_norm_eps": 1e-12,
        "max_position_embeddings": 512, "model_type": "megatron-bert", "num_attention_heads": 40,
        "num_hidden_layers": 48, "num_layers": 48, "pad_token_id": 0, "position_embedding_type": "absolute",
        "tokenizer_type": "BertWordPieceCase", "transformers_version": "4.23.1", "type_vocab_size": 2,
        "use_cache": True, "vocab_size": 50176,
    },
    # https://huggingface.co/IDEA-CCNL/Erlangshen-MegatronBert-1.3B/blob/main/config.json
    "IDEA-CCNL/Erlangshen-MegatronBert-1.3B": {
        "vocab_size": 21248, "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 8,
        "hidden_act": "gelu_new", "intermediate_size": 8192, "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 512, "type_vocab_size": 2,
        "initializer_range": 0.02, "layer_norm_eps": 1e-12, "gradient_checkpointing": False,
        "position_embedding_type": "absolute", "use_cache": False, "model_type": "megatron-bert",
    },
}



@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_config_through_the_cli(name: str) -> None:
    check_published(PUBLISHED[name])
