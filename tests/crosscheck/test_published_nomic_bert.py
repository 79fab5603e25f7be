"""Nomic BERT's published config.json, pasted whole into the CLI, against transformers 5.23 for the class it loads as.

The file is pasted with every key as published (``auto_map``, the GPT-2 key names
and the rest), as a reader pastes it:
``python -m calculator --config - --format json``.
"""
from __future__ import annotations


import pytest

from .published import check_published



#: nomic-ai/nomic-embed-text-v1.5's config.json as published for its remote code (GPT-2 key names, which
#: transformers 5.23's native NomicBertConfig does not read: it builds its defaults, nomic-embed-text's sizes).
NOMIC_EMBED_TEXT_V1_5 = {
    "_name_or_path": "nomic-ai/nomic-bert-2048", "activation_function": "swiglu", "architectures": ["NomicBertModel"],
    "attn_pdrop": 0.0,
    "auto_map": {
        "AutoConfig": "nomic-ai/nomic-bert-2048--configuration_hf_nomic_bert.NomicBertConfig",
        "AutoModel": "nomic-ai/nomic-bert-2048--modeling_hf_nomic_bert.NomicBertModel",
        "AutoModelForMaskedLM": "nomic-ai/nomic-bert-2048--modeling_hf_nomic_bert.NomicBertForPreTraining",
    },
    "bos_token_id": None, "causal": False, "dense_seq_output": True, "embd_pdrop": 0.0, "eos_token_id": None,
    "fused_bias_fc": True, "fused_dropout_add_ln": True, "initializer_range": 0.02, "layer_norm_epsilon": 1e-12,
    "max_trained_positions": 2048, "mlp_fc1_bias": False, "mlp_fc2_bias": False, "model_type": "nomic_bert",
    "n_embd": 768, "n_head": 12, "n_inner": 3072, "n_layer": 12, "n_positions": 8192, "pad_vocab_size_multiple": 64,
    "parallel_block": False, "parallel_block_tied_norm": False, "prenorm": False, "qkv_proj_bias": False,
    "reorder_and_upcast_attn": False, "resid_pdrop": 0.0, "rotary_emb_base": 1000, "rotary_emb_fraction": 1.0,
    "rotary_emb_interleaved": False, "rotary_emb_scale_base": None, "rotary_scaling_factor": None,
    "scale_attn_by_inverse_layer_idx": False, "scale_attn_weights": True, "summary_activation": None,
    "summary_first_dropout": 0.0, "summary_proj_to_labels": True, "summary_type": "cls_index", "summary_use_proj": True,
    "torch_dtype": "float32", "transformers_version": "4.34.0", "type_vocab_size": 2, "use_cache": True,
    "use_flash_attn": True, "use_rms_norm": False, "use_xentropy": True, "vocab_size": 30528,
}

PUBLISHED = [("nomic-ai/nomic-embed-text-v1.5", NOMIC_EMBED_TEXT_V1_5, "NomicBertModel")]



@pytest.mark.parametrize(("name", "config", "architecture"), PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_config_through_the_cli(name: str, config: dict, architecture: str) -> None:
    check_published(config, architecture)
