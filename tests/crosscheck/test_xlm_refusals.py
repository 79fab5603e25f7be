"""XLM's adaptive softmax: the configs the engine refuses are the ones transformers 5.23 cannot build.

The random draws always give ``asm`` its cutoffs (a base class built from them must work on both sides); the
refusals are checked here, each against transformers itself.
"""
from __future__ import annotations

import pytest

from calculator.build import build as engine_build
from calculator.errors import CalcError

from .framework import build as hf_build

SMALL = {"vocab_size": 20, "emb_dim": 8, "n_layers": 1, "n_heads": 2, "max_position_embeddings": 6, "asm": True}


@pytest.mark.parametrize("model_type", ["xlm", "flaubert"])
@pytest.mark.parametrize("changes", [{}, {"asm_cutoffs": [5, 10]}, {"asm_cutoffs": [10, 5], "asm_div_value": 2.0},
                                     {"asm_cutoffs": [5, 25], "asm_div_value": 2.0},
                                     {"asm_cutoffs": [5, 5], "asm_div_value": 2.0}])
def test_the_adaptive_softmax_refusals_are_transformers_own(model_type: str, changes: dict) -> None:
    name = {"xlm": "XLMWithLMHeadModel", "flaubert": "FlaubertWithLMHeadModel"}[model_type]
    config = dict(SMALL, **changes)
    with pytest.raises(CalcError) as caught:
        engine_build(dict(config, model_type=model_type), name)
    assert caught.value.code == "bad_value"
    with pytest.raises((AttributeError, ValueError, TypeError)):
        hf_build(model_type, name, config)
    # The other classes do not build the adaptive softmax: counted, as transformers builds them.
    base = {"xlm": "XLMModel", "flaubert": "FlaubertModel"}[model_type]
    assert engine_build(dict(config, model_type=model_type), base).total > 0
    hf_build(model_type, base, config)
