"""Shared by the unit tests (standard library only: they also run inside Pyodide), and data the browser tests reuse."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

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


@contextmanager
def patched(owner: Any, name: str, value: Any) -> Iterator[None]:
    """``owner.name`` set to ``value`` inside the block, restored after it: pytest's ``monkeypatch`` for tests that
    also run inside Pyodide, whose runner passes no fixtures."""
    old = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, old)


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

#: intfloat/multilingual-e5-large's config.json as published
#: (https://huggingface.co/intfloat/multilingual-e5-large/blob/main/config.json): an XLMRobertaModel whose
#: every size is xlm-roberta-large's (the reader review's finding 1). Its _name_or_path is the checkpoint
#: it was trained from, not its own name: the page quotes it under its key, never as the name.
HUB_MULTILINGUAL_E5_LARGE = {
    "_name_or_path": "xlm-roberta-large", "architectures": ["XLMRobertaModel"], "attention_probs_dropout_prob": 0.1,
    "bos_token_id": 0, "classifier_dropout": None, "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
    "hidden_size": 1024, "initializer_range": 0.02, "intermediate_size": 4096, "layer_norm_eps": 1e-05,
    "max_position_embeddings": 514, "model_type": "xlm-roberta", "num_attention_heads": 16, "num_hidden_layers": 24,
    "output_past": True, "pad_token_id": 1, "position_embedding_type": "absolute", "torch_dtype": "float32",
    "transformers_version": "4.29.0.dev0", "type_vocab_size": 1, "use_cache": True, "vocab_size": 250002,
}
#: BAAI/bge-large-zh-v1.5's config.json as published
#: (https://huggingface.co/BAAI/bge-large-zh-v1.5/blob/main/config.json): a BertModel whose every size is
#: hfl/chinese-roberta-wwm-ext-large's (V = 21,128, H = 1024, 24 layers). _name_or_path is a local cache path.
HUB_BGE_LARGE_ZH_V15 = {
    "_name_or_path": "/root/.cache/torch/sentence_transformers/BAAI_bge-large-zh/", "architectures": ["BertModel"],
    "attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "classifier_dropout": None, "directionality": "bidi",
    "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 1024,
    "id2label": {"0": "LABEL_0"}, "initializer_range": 0.02, "intermediate_size": 4096, "label2id": {"LABEL_0": 0},
    "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert", "num_attention_heads": 16,
    "num_hidden_layers": 24, "output_past": True, "pad_token_id": 0, "pooler_fc_size": 768,
    "pooler_num_attention_heads": 12, "pooler_num_fc_layers": 3, "pooler_size_per_head": 128,
    "pooler_type": "first_token_transform", "position_embedding_type": "absolute", "torch_dtype": "float32",
    "transformers_version": "4.30.0", "type_vocab_size": 2, "use_cache": True, "vocab_size": 21128,
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
