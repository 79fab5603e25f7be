"""ConvBERT's published config.json files, pasted whole into the CLI, against transformers 5.23."""
from __future__ import annotations

import pytest

from .published import check_published

_BASE = {
    "attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "conv_kernel_size": 9, "embedding_size": 768,
    "eos_token_id": 2, "head_ratio": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
    "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 512,
    "model_type": "convbert", "num_attention_heads": 12, "num_groups": 1, "num_hidden_layers": 12, "pad_token_id": 0,
    "type_vocab_size": 2,
}

PUBLISHED = {
    # https://huggingface.co/YituTech/conv-bert-base/blob/main/config.json
    "YituTech/conv-bert-base": dict(_BASE, _name_or_path="/home/abhishek/convbert_models/conv-bert-base/",
                                    architectures=["ConvBertModel"], transformers_version="4.4.0.dev0",
                                    vocab_size=30522),
    # https://huggingface.co/dbmdz/convbert-base-german-europeana-cased/blob/main/config.json
    "dbmdz/convbert-base-german-europeana-cased": dict(_BASE, _name_or_path="./", architectures=["ConvBertModel"],
                                                       transformers_version="4.4.0.dev0", vocab_size=32000),
    # https://huggingface.co/dqduong2003/convBert-finetuned-covidqa/blob/main/config.json
    "dqduong2003/convBert-finetuned-covidqa": dict(
        _BASE, _name_or_path="YituTech/conv-bert-base", architectures=["ConvBertForQuestionAnswering"],
        classifier_dropout=None, torch_dtype="float32", transformers_version="4.30.0", vocab_size=30522),
    # https://huggingface.co/mrm8488/convbert-small-spanish/blob/main/config.json (conv-bert-small's sizes)
    "mrm8488/convbert-small-spanish": dict(
        _BASE, _name_or_path=".", architectures=["ConvBertModel"], directionality="bidi", embedding_size=128,
        hidden_size=256, intermediate_size=1024, num_attention_heads=4, transformers_version="4.3.3",
        vocab_size=31002),
}


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_config_through_the_cli(name: str) -> None:
    check_published(PUBLISHED[name])
