"""Shared by the unit tests (standard library only: they also run inside Pyodide), and data the browser tests reuse."""
from __future__ import annotations

from typing import Any, Callable

from calculator.errors import CalcError


def expect_error(code: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> CalcError:
    """``fn(*args, **kwargs)`` must raise CalcError ``code``, with an English and a distinct Chinese message."""
    try:
        fn(*args, **kwargs)
    except CalcError as exc:
        assert exc.code == code, (exc.code, code)
        assert exc.message("en") and exc.message("zh") and exc.message("en") != exc.message("zh"), code
        return exc
    raise AssertionError(f"expected {code}")


#: bert-base-uncased's config.json as published on the Hugging Face Hub.
HUB_BERT_BASE_UNCASED = {
    "architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1, "gradient_checkpointing": False,
    "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02,
    "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert",
    "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 0, "position_embedding_type": "absolute",
    "transformers_version": "4.6.0.dev0", "type_vocab_size": 2, "use_cache": True, "vocab_size": 30522,
}
#: roberta-base's config.json as published on the Hub (pad_token_id 1 is RoBERTa's default).
HUB_ROBERTA_BASE = {
    "architectures": ["RobertaForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
    "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
    "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
    "model_type": "roberta", "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1,
    "type_vocab_size": 1, "vocab_size": 50265,
}


def keras(raw: dict[str, Any]) -> Any:
    """keras-bert's ``get_model(**raw)`` as the calculator builds it."""
    from calculator.build import build

    return build(dict(raw, model_type="keras-bert"))


#: microsoft/deberta-v3-base's config.json as published (no ``architectures``: it loads as DebertaV2Model).
HUB_DEBERTA_V3_BASE = {
    "model_type": "deberta-v2", "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
    "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072, "max_position_embeddings": 512,
    "relative_attention": True, "position_buckets": 256, "norm_rel_ebd": "layer_norm", "share_att_key": True,
    "pos_att_type": "p2c|c2p", "layer_norm_eps": 1e-7, "max_relative_positions": -1, "position_biased_input": False,
    "num_attention_heads": 12, "num_hidden_layers": 12, "type_vocab_size": 0, "vocab_size": 128100,
}
#: answerdotai/ModernBERT-base's config.json (size-relevant keys as published).
HUB_MODERNBERT_BASE = {
    "architectures": ["ModernBertForMaskedLM"], "model_type": "modernbert", "vocab_size": 50368, "hidden_size": 768,
    "intermediate_size": 1152, "num_hidden_layers": 22, "num_attention_heads": 12, "max_position_embeddings": 8192,
    "global_attn_every_n_layers": 3, "local_attention": 128, "norm_bias": False, "attention_bias": False,
    "mlp_bias": False, "decoder_bias": True, "classifier_bias": False, "classifier_pooling": "mean",
    "pad_token_id": 50283,
}
#: transformers 5.23's num_parameters() for the classes these files load as (meta device, the cross-check's way).
HUB_TOTALS = {"deberta-v3-base": 183_831_552, "ModernBERT-base": 149_655_232}
