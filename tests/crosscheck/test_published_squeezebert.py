"""SqueezeBERT's published config.json files through the CLI, and LoRA on its convolutions against peft 0.21.2.

squeezebert-uncased's own file could not be read here; squeezebert-mnli and
squeezebert-mnli-headless (published next to it, same sizes) are pasted as published,
and a fine-tuned copy of squeezebert-uncased with its class.
"""
from __future__ import annotations

import pytest

from .test_peft_reference import compare as peft_compare
from .published import check_published

_SIZES = {
    "attention_probs_dropout_prob": 0.1, "embedding_size": 768, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
    "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072, "max_position_embeddings": 512,
    "model_type": "squeezebert", "num_attention_heads": 12, "num_hidden_layers": 12, "type_vocab_size": 2,
    "vocab_size": 30528, "q_groups": 4, "k_groups": 4, "v_groups": 4, "post_attention_groups": 1,
    "intermediate_groups": 4, "output_groups": 4,
}

PUBLISHED = {
    # https://huggingface.co/squeezebert/squeezebert-mnli-headless/blob/main/config.json
    "squeezebert/squeezebert-mnli-headless": dict(_SIZES),
    # https://huggingface.co/squeezebert/squeezebert-mnli/blob/main/config.json
    "squeezebert/squeezebert-mnli": dict(_SIZES, num_labels=3),
    # https://huggingface.co/ALOQAS/squeezebert-uncased-finetuned-squad-v2/blob/main/config.json
    "ALOQAS/squeezebert-uncased-finetuned-squad-v2": {
        "_name_or_path": "squeezebert/squeezebert-uncased", "architectures": ["SqueezeBertForQuestionAnswering"],
        "attention_probs_dropout_prob": 0.1, "embedding_size": 768, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "hidden_size": 768, "initializer_range": 0.02, "intermediate_groups": 4, "intermediate_size": 3072,
        "k_groups": 4, "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "squeezebert",
        "num_attention_heads": 12, "num_hidden_layers": 12, "output_groups": 4, "pad_token_id": 0,
        "post_attention_groups": 1, "q_groups": 4, "torch_dtype": "float32", "transformers_version": "4.38.2",
        "type_vocab_size": 2, "v_groups": 4, "vocab_size": 30528,
    },
}


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_config_through_the_cli(name: str) -> None:
    check_published(PUBLISHED[name])


SMALL = {"model_type": "squeezebert", "vocab_size": 50, "embedding_size": 16, "hidden_size": 16,
         "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 24, "max_position_embeddings": 20,
         "num_labels": 3}

CHOSEN = [
    # (class, r, targets, bias, task_type, modules_to_save, expected outcome)
    ("SqueezeBertForSequenceClassification", 4, ["query", "value"], "none", "SEQ_CLS", None, "ok"),
    ("SqueezeBertForSequenceClassification", 8, ["conv1d"], "lora_only", "SEQ_CLS", None, "ok"),
    ("SqueezeBertForSequenceClassification", 4, "all-linear", "none", "SEQ_CLS", None, "ok"),
    ("SqueezeBertForMaskedLM", 4, ["query", "post_attention.conv1d", "decoder"], "all", None, None, "ok"),
    ("SqueezeBertModel", 3, ["post_attention.conv1d"], "none", None, None, "ok"),  # groups 1: any rank
    ("SqueezeBertModel", 3, ["query"], "none", None, None, "lora_conv_groups"),  # groups 4
    ("SqueezeBertModel", 6, ["intermediate.conv1d"], "none", None, None, "lora_conv_groups"),
    ("SqueezeBertModel", 4, [r"encoder\.layers\.1\.attention\.(key|value)"][0], "none", None, None, "ok"),
]


@pytest.mark.parametrize("case", CHOSEN, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_lora_on_the_convolutions_matches_peft(case) -> None:
    architecture, r, targets, bias, task_type, modules_to_save, expected = case
    assert peft_compare(SMALL, architecture, r, targets, bias, task_type, modules_to_save) == expected
