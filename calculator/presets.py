"""Published checkpoints, with the size-relevant values of their config.json on the Hugging Face Hub.

Each preset keeps the hub's keys and values (only the keys that shape
tensors, plus ``model_type``), and the class its ``architectures`` lists,
kept apart: a preset is computed for the family's base model unless an
architecture is asked for, because "how big is bert-base-uncased" means the
encoder that everyone quotes (109,482,240), not its pre-training head.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import CalcError


@dataclass(frozen=True)
class Preset:
    name: str
    config: dict[str, Any]
    #: ``architectures[0]`` of the published config.json.
    published_architecture: str


def _bert(vocab: int, hidden: int = 768, layers: int = 12, heads: int = 12, inter: int | None = None) -> dict[str, Any]:
    return {
        "model_type": "bert",
        "vocab_size": vocab,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter if inter is not None else 4 * hidden,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    }


def _roberta(hidden: int, layers: int, heads: int) -> dict[str, Any]:
    return {
        "model_type": "roberta",
        "vocab_size": 50265,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": 514,
        "type_vocab_size": 1,
    }


def _distilbert(vocab: int) -> dict[str, Any]:
    return {
        "model_type": "distilbert",
        "vocab_size": vocab,
        "dim": 768,
        "n_layers": 6,
        "n_heads": 12,
        "hidden_dim": 3072,
        "max_position_embeddings": 512,
        "sinusoidal_pos_embds": False,
    }


def _albert(hidden: int, layers: int, heads: int, inter: int) -> dict[str, Any]:
    return {
        "model_type": "albert",
        "vocab_size": 30000,
        "embedding_size": 128,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_hidden_groups": 1,
        "inner_group_num": 1,
        "num_attention_heads": heads,
        "intermediate_size": inter,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    }


def _electra(embedding: int, hidden: int, layers: int, heads: int, inter: int) -> dict[str, Any]:
    return {
        "model_type": "electra",
        "vocab_size": 30522,
        "embedding_size": embedding,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    }


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("bert-base-uncased", _bert(30522), "BertForMaskedLM"),
        Preset("bert-base-cased", _bert(28996), "BertForMaskedLM"),
        Preset("bert-large-uncased", _bert(30522, 1024, 24, 16), "BertForMaskedLM"),
        Preset("bert-large-cased", _bert(28996, 1024, 24, 16), "BertForMaskedLM"),
        Preset("bert-base-chinese", _bert(21128), "BertForMaskedLM"),
        Preset("bert-base-multilingual-cased", _bert(119547), "BertForMaskedLM"),
        Preset("bert-base-multilingual-uncased", _bert(105879), "BertForMaskedLM"),
        Preset("hfl/chinese-roberta-wwm-ext", _bert(21128), "BertForMaskedLM"),
        Preset("hfl/chinese-roberta-wwm-ext-large", _bert(21128, 1024, 24, 16), "BertForMaskedLM"),
        Preset("google/bert_uncased_L-2_H-128_A-2", _bert(30522, 128, 2, 2), "BertModel"),
        Preset("google/bert_uncased_L-4_H-256_A-4", _bert(30522, 256, 4, 4), "BertModel"),
        Preset("google/bert_uncased_L-4_H-512_A-8", _bert(30522, 512, 4, 8), "BertModel"),
        Preset("google/bert_uncased_L-8_H-512_A-8", _bert(30522, 512, 8, 8), "BertModel"),
        Preset("roberta-base", _roberta(768, 12, 12), "RobertaForMaskedLM"),
        Preset("roberta-large", _roberta(1024, 24, 16), "RobertaForMaskedLM"),
        Preset("distilbert-base-uncased", _distilbert(30522), "DistilBertForMaskedLM"),
        Preset("distilbert-base-cased", _distilbert(28996), "DistilBertForMaskedLM"),
        Preset("distilbert-base-multilingual-cased", _distilbert(119547), "DistilBertForMaskedLM"),
        Preset("albert-base-v2", _albert(768, 12, 12, 3072), "AlbertForMaskedLM"),
        Preset("albert-large-v2", _albert(1024, 24, 16, 4096), "AlbertForMaskedLM"),
        Preset("albert-xlarge-v2", _albert(2048, 24, 16, 8192), "AlbertForMaskedLM"),
        Preset("albert-xxlarge-v2", _albert(4096, 12, 64, 16384), "AlbertForMaskedLM"),
        Preset("google/electra-small-discriminator", _electra(128, 256, 12, 4, 1024), "ElectraForPreTraining"),
        Preset("google/electra-base-discriminator", _electra(768, 768, 12, 12, 3072), "ElectraForPreTraining"),
        Preset("google/electra-large-discriminator", _electra(1024, 1024, 24, 16, 4096), "ElectraForPreTraining"),
        Preset("google/electra-small-generator", _electra(128, 256, 12, 4, 1024), "ElectraForMaskedLM"),
    )
}

DEFAULT_PRESET = "bert-base-uncased"


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise CalcError("unknown_preset", value=name, supported=", ".join(PRESETS)) from None
