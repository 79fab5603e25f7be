"""Cross-check the keras-bert family against what the real keras-bert built.

``reference/keras_bert.json`` is written by ``scripts/regen_keras_bert.py``
running the real library (keras-bert 0.89.0 on tensorflow-cpu 2.21.0 and
tf-keras 2.21.0, ``TF_KERAS=1 TF_USE_LEGACY_KERAS=1``) in its own virtual
environment; this test runs in the project's environment, without TensorFlow.
To regenerate (about a minute and 2.2 GB of install, ~25 s to run):

    python3 -m venv /tmp/kvenv
    /tmp/kvenv/bin/pip install tensorflow-cpu==2.21.0 tf-keras==2.21.0 keras-bert==0.89.0
    /tmp/kvenv/bin/python scripts/regen_keras_bert.py

Each recorded case is compared summary row by summary row (name, class,
count, trainable) and weight by weight (name, shape, trainable), plus the
three totals.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from calculator.build import build
from calculator.families import keras_bert

REFERENCE = Path(__file__).resolve().parent / "reference" / "keras_bert.json"
DATA = json.loads(REFERENCE.read_text(encoding="utf-8"))
CASES = {case["id"]: case for case in DATA["cases"]}


def test_reference_was_written_by_the_real_library():
    assert DATA["generated_by"].endswith("regen_keras_bert.py")
    assert DATA["versions"]["keras-bert"] == "0.89.0"
    assert DATA["versions"]["tensorflow"] and DATA["versions"]["tf-keras"]
    assert {"famous", "famous_training_false", "famous_trainable_false", "famous_trainable_prefixes"} <= set(CASES)


def rows(inv):
    return [{"name": k.name, "class": k.cls, "count": k.count, "trainable": k.trainable} for k in inv.keras_layers]


def weights(inv):
    return [{"name": t.name, "shape": list(t.shape), "trainable": t.trainable} for t in inv.tensors]


@pytest.mark.parametrize("case_id", list(CASES))
def test_every_summary_row_and_weight(case_id):
    case = CASES[case_id]
    inv = build(dict(case["kwargs"], model_type=keras_bert.MODEL_TYPE))
    assert rows(inv) == case["layers"]
    assert weights(inv) == case["weights"]
    assert inv.total == case["total"]
    assert inv.trainable == case["trainable"]
    assert inv.non_trainable == case["non_trainable"]
    # Keras has no ties: every weight is its own variable.
    assert inv.state_dict_total == inv.total


@pytest.mark.parametrize("case_id", list(CASES))
def test_through_build(case_id):
    """``calculator.build.build`` sees the integer and boolean arguments only (see the family's docstring)."""
    case = CASES[case_id]
    inv = build(dict(case["kwargs"], model_type="keras-bert"))
    assert inv.total == case["total"]
    assert [(w["name"], w["shape"]) for w in weights(inv)] == [(w["name"], w["shape"]) for w in case["weights"]]
    if "trainable" not in case["kwargs"]:
        assert inv.trainable == case["trainable"]
        assert weights(inv) == case["weights"]
    if case["kwargs"].get("dropout_rate", keras_bert.DEFAULT_DROPOUT) > 0 and "trainable" not in case["kwargs"]:
        assert rows(inv) == case["layers"]


def test_prefix_lists_need_old_keras():
    """The recorded error: current Keras refuses keras-bert's prefix list (we model keras-bert's intent)."""
    shimmed = [c for c in DATA["cases"] if c["shim"]]
    assert shimmed and all(isinstance(c["kwargs"]["trainable"], list) for c in shimmed)
    for case in shimmed:
        assert case["error_without_shim"].startswith("TypeError: Expected `trainable` argument to be a boolean")
    assert all(not c["shim"] for c in DATA["cases"] if not isinstance(c["kwargs"].get("trainable"), list))


def test_famous_figures():
    case = CASES["famous"]
    by_name = {r["name"]: r["count"] for r in case["layers"]}
    assert case["total"] == 109_705_010 == case["trainable"]
    assert by_name["Encoder-1-MultiHeadSelfAttention"] == 2_362_368
    assert by_name["Embedding-Token"] == 23_040_000
    assert by_name["Embedding-Position"] == 393_216
    assert by_name["MLM-Sim"] == 30_000
