"""Published config.json files of RoFormer, XLM-R XL, data2vec-text, X-MOD and ESM-2, pasted into the CLI.

Each file goes through ``python -m calculator --config - --format json`` as a
reader pastes it (``architectures`` as published, every other key too), and the
answer must be what transformers 5.23 builds from the same file for that class:
names, shapes and order of every ``state_dict`` entry, trainability, and the
three totals. The files: the size keys are the checkpoints' own (the family
files say where each was read); the remaining keys are the ones these
checkpoints' files carry and change no tensor.
"""
from __future__ import annotations


import pytest

from .published import check_published



XMOD_LANGUAGES = [
    "en_XX", "id_ID", "vi_VN", "ru_RU", "fa_IR", "sv_SE", "ja_XX", "fr_XX", "de_DE", "ro_RO", "ko_KR", "hu_HU",
    "es_XX", "fi_FI", "uk_UA", "da_DK", "pt_XX", "no_XX", "th_TH", "pl_PL", "bg_BG", "nl_XX", "zh_CN", "he_IL",
    "el_GR", "it_IT", "sk_SK", "hr_HR", "tr_TR", "ar_AR", "cs_CZ", "lt_LT", "hi_IN", "zh_TW", "ca_ES", "ms_MY",
    "sl_SI", "lv_LV", "ta_IN", "bn_IN", "et_EE", "az_AZ", "sq_AL", "sr_RS", "kk_KZ", "ka_GE", "tl_XX", "ur_PK",
    "is_IS", "hy_AM", "ml_IN", "mk_MK", "be_BY", "la_VA", "te_IN", "eu_ES", "gl_ES", "mn_MN", "kn_IN", "ne_NP",
    "sw_KE", "si_LK", "mr_IN", "af_ZA", "gu_IN", "cy_GB", "eo_EO", "km_KH", "ky_KG", "uz_UZ", "ps_AF", "pa_IN",
    "ga_IE", "ha_NG", "am_ET", "lo_LA", "ku_TR", "so_SO", "my_MM", "or_IN", "sa_IN",
]

PUBLISHED = {
    "junnyu/roformer_chinese_base": {
        "architectures": ["RoFormerForMaskedLM"], "attention_probs_dropout_prob": 0.1, "embedding_size": 768,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02,
        "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 1536, "model_type": "roformer",
        "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 0, "rotary_value": False,
        "type_vocab_size": 2, "vocab_size": 50000,
    },
    "junnyu/roformer_chinese_char_base": {  # no embedding_size: transformers takes H
        "architectures": ["RoFormerForMaskedLM"], "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072,
        "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "roformer", "num_attention_heads": 12,
        "num_hidden_layers": 12, "pad_token_id": 0, "rotary_value": False, "type_vocab_size": 2, "vocab_size": 12000,
    },
    "facebook/xlm-roberta-xl": {
        "architectures": ["XLMRobertaXLForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
        "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 2560,
        "initializer_range": 0.02, "intermediate_size": 10240, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
        "model_type": "xlm-roberta-xl", "num_attention_heads": 32, "num_hidden_layers": 36, "pad_token_id": 1,
        "position_embedding_type": "absolute", "tokenizer_class": "XLMRobertaTokenizer", "torch_dtype": "float32",
        "type_vocab_size": 1, "use_cache": True, "vocab_size": 250880,
    },
    "facebook/xlm-roberta-xxl": {
        "architectures": ["XLMRobertaXLForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
        "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 4096,
        "initializer_range": 0.02, "intermediate_size": 16384, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
        "model_type": "xlm-roberta-xl", "num_attention_heads": 32, "num_hidden_layers": 48, "pad_token_id": 1,
        "position_embedding_type": "absolute", "tokenizer_class": "XLMRobertaTokenizer", "torch_dtype": "float32",
        "type_vocab_size": 1, "use_cache": True, "vocab_size": 250880,
    },
    "facebook/data2vec-text-base": {
        "architectures": ["Data2VecTextModel"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
        "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
        "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
        "model_type": "data2vec-text", "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1,
        "type_vocab_size": 1, "vocab_size": 50265,
    },
    "facebook/xmod-base": {
        "architectures": ["XmodForMaskedLM"], "adapter_layer_norm": False, "adapter_reduction_factor": 2,
        "adapter_reuse_layer_norm": True, "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
        "default_language": None, "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072, "languages": XMOD_LANGUAGES,
        "layer_norm_eps": 1e-05, "ln_before_adapter": True, "max_position_embeddings": 514, "model_type": "xmod",
        "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1, "pre_norm": False,
        "type_vocab_size": 1, "vocab_size": 250002,
    },
    "facebook/esm2_t33_650M_UR50D": {
        "architectures": ["EsmForMaskedLM"], "attention_probs_dropout_prob": 0.0, "classifier_dropout": None,
        "emb_layer_norm_before": False, "esmfold_config": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
        "hidden_size": 1280, "initializer_range": 0.02, "intermediate_size": 5120, "is_folding_model": False,
        "layer_norm_eps": 1e-05, "mask_token_id": 32, "max_position_embeddings": 1026, "model_type": "esm",
        "num_attention_heads": 20, "num_hidden_layers": 33, "pad_token_id": 1, "position_embedding_type": "rotary",
        "token_dropout": True, "torch_dtype": "float32", "use_cache": True, "vocab_list": None, "vocab_size": 33,
    },
    "facebook/esm2_t6_8M_UR50D": {
        "architectures": ["EsmForMaskedLM"], "attention_probs_dropout_prob": 0.0, "classifier_dropout": None,
        "emb_layer_norm_before": False, "esmfold_config": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
        "hidden_size": 320, "initializer_range": 0.02, "intermediate_size": 1280, "is_folding_model": False,
        "layer_norm_eps": 1e-05, "mask_token_id": 32, "max_position_embeddings": 1026, "model_type": "esm",
        "num_attention_heads": 20, "num_hidden_layers": 6, "pad_token_id": 1, "position_embedding_type": "rotary",
        "token_dropout": True, "torch_dtype": "float32", "use_cache": True, "vocab_list": None, "vocab_size": 33,
    },
}



@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_config_through_the_cli(name: str) -> None:
    check_published(PUBLISHED[name])
