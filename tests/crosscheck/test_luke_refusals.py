"""LUKE's entity classes: the training step here is input_ids alone, and these classes cannot run on it.

The engine refuses their step (``costs_architecture``); transformers' own forward fails without entity inputs
(each reads ``entity_last_hidden_state``, which is None then). The other classes are the costs cross-check's.
"""
from __future__ import annotations

import pytest

from calculator import costs
from calculator.build import build as engine_build
from calculator.errors import CalcError

from .costs_measure import make_model

SMALL = {"vocab_size": 30, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
         "intermediate_size": 12, "max_position_embeddings": 12, "entity_vocab_size": 7, "entity_emb_size": 4}


@pytest.mark.parametrize("architecture", ["LukeForEntityClassification", "LukeForEntityPairClassification",
                                          "LukeForEntitySpanClassification"])
def test_entity_classes_are_refused_and_fail_without_entities(architecture: str) -> None:
    import torch

    inv = engine_build(dict(SMALL, model_type="luke"), architecture)
    with pytest.raises(CalcError) as caught:
        costs.compute(inv, costs.settings(2, 4))
    assert caught.value.code == "costs_architecture"
    model = make_model("luke", architecture, SMALL, "fp32")
    with pytest.raises((TypeError, AttributeError, ValueError)):
        model(input_ids=torch.randint(3, 30, (2, 4)))
