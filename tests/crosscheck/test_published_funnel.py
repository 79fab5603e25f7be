"""Funnel Transformer's published config.json files, pasted whole into the CLI, against transformers 5.23.

Their ``type_vocab_size`` (3), ``max_position_embeddings`` and ``rel_attn_type`` shape
nothing in transformers 5.23 (relative positions; two segment embeddings per layer).
"""
from __future__ import annotations

import pytest

from .published import check_published


def _file(blocks, repeats, d_model, n_head, d_inner, architectures, **more):
    out = {
        "activation_dropout": 0.0, "architectures": architectures, "attention_dropout": 0.1,
        "attention_type": "relative_shift", "block_repeats": repeats, "block_sizes": blocks, "d_head": 64,
        "d_inner": d_inner, "d_model": d_model, "hidden_act": "gelu_new", "hidden_dropout": 0.1,
        "initializer_range": 0.1, "initializer_std": None, "layer_norm_eps": 1e-09, "max_position_embeddings": 512,
        "model_type": "funnel", "n_head": n_head, "num_decoder_layers": 2, "pool_q_only": True,
        "pooling_type": "mean", "rel_attn_type": "factorized", "separate_cls": True, "truncate_seq": True,
        "type_vocab_size": 3, "vocab_size": 30522,
    }
    out.update(more)
    return out


PUBLISHED = {
    # https://huggingface.co/funnel-transformer/intermediate/blob/main/config.json
    "funnel-transformer/intermediate": _file([6, 6, 6], [1, 1, 1], 768, 12, 3072, ["FunnelModel"]),
    # https://huggingface.co/funnel-transformer/intermediate-base/blob/main/config.json
    "funnel-transformer/intermediate-base": _file([6, 6, 6], [1, 1, 1], 768, 12, 3072, ["FunnelBaseModel"]),
    # https://huggingface.co/funnel-transformer/medium/blob/main/config.json
    "funnel-transformer/medium": _file([6, 3, 3], [1, 2, 2], 768, 12, 3072, ["FunnelModel"]),
    # https://huggingface.co/Sreevishnu/funnel-transformer-small-imdb/blob/main/config.json (from .../small)
    "Sreevishnu/funnel-transformer-small-imdb": _file(
        [4, 4, 4], [1, 1, 1], 768, 12, 3072, ["FunnelForSequenceClassification"], _name_or_path="funnel-transformer/small",
        max_position_embeddings=1024, problem_type="single_label_classification", torch_dtype="float32",
        transformers_version="4.19.1"),
    # https://huggingface.co/nagupv/large_LLMMDLFIND_11_09_2023_0/blob/main/config.json (from .../large)
    "nagupv/large_LLMMDLFIND_11_09_2023_0": _file(
        [8, 8, 8], [1, 1, 1], 1024, 16, 4096, ["FunnelForMultipleChoice"], _name_or_path="funnel-transformer/large",
        torch_dtype="float32", transformers_version="4.33.1"),
    # https://huggingface.co/ghatgetanuj/funnel-transformer-xlarge_cls_CR/blob/main/config.json (from .../xlarge)
    "ghatgetanuj/funnel-transformer-xlarge_cls_CR": _file(
        [10, 10, 10], [1, 1, 1], 1024, 16, 4096, ["FunnelForSequenceClassification"],
        _name_or_path="funnel-transformer/xlarge", problem_type="single_label_classification", torch_dtype="float32",
        transformers_version="4.20.1"),
}


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_config_through_the_cli(name: str) -> None:
    check_published(PUBLISHED[name])
