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
