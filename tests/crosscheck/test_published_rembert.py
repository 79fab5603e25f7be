"""RemBERT's published config.json files, pasted whole into the CLI, against transformers 5.23.

google/rembert's own file could not be read here; its sizes are the same in every
published copy fine-tuned from it (``"_name_or_path": "google/rembert"``), and one such
copy is pasted as published. ibraheemmoosa/xlmindic-rembert-multiscript is a RemBERT
of its own sizes, published as RemBertForMaskedLM.
"""
from __future__ import annotations

import pytest

from .published import check_published

PUBLISHED = {
    # https://huggingface.co/robvanderg/Sem-RemmmBERT/blob/main/config.json (google/rembert's sizes)
    "google/rembert (copy)": {
        "_name_or_path": "google/rembert", "architectures": ["RemBertModel"], "attention_probs_dropout_prob": 0,
        "bos_token_id": 312, "classifier_dropout_prob": 0.1, "embedding_dropout_prob": 0, "embedding_size": 256,
        "eos_token_id": 313, "hidden_act": "gelu", "hidden_dropout_prob": 0, "hidden_size": 1152,
        "initializer_range": 0.02, "input_embedding_size": 256, "intermediate_size": 4608, "layer_norm_eps": 1e-12,
        "max_position_embeddings": 512, "model_type": "rembert", "num_attention_heads": 18, "num_hidden_layers": 32,
        "output_embedding_size": 1664, "pad_token_id": 0, "tie_word_embeddings": False, "torch_dtype": "float32",
        "transformers_version": "4.12.5", "type_vocab_size": 2, "use_cache": True, "vocab_size": 250300,
    },
    # https://huggingface.co/ibraheemmoosa/xlmindic-rembert-multiscript/blob/main/config.json
    "ibraheemmoosa/xlmindic-rembert-multiscript": {
        "architectures": ["RemBertForMaskedLM"], "attention_probs_dropout_prob": 0.0, "bos_token_id": 1,
        "classifier_dropout_prob": 0.1, "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
        "hidden_size": 768, "initializer_range": 0.02, "input_embedding_size": 128, "intermediate_size": 3072,
        "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "rembert", "num_attention_heads": 12,
        "num_hidden_layers": 12, "output_embedding_size": 768, "pad_token_id": 3, "tie_word_embeddings": False,
        "torch_dtype": "float32", "transformers_version": "4.16.2", "type_vocab_size": 2, "use_cache": True,
        "vocab_size": 65536,
    },
}


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_config_through_the_cli(name: str) -> None:
    check_published(PUBLISHED[name])
