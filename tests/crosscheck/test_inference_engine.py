"""Cross-check the inference span (calculator/costs/inference.py) against PyTorch, to the byte and the FLOP.

Issue 32's inference span: ``model.eval()``, ``torch.no_grad()``, one forward, its outputs kept. Per drawn case
(a random tiny config of the family, a class, B, L, dtype, drawn as the costs cross-check draws them, half with a
wider vocabulary so that the weights weigh):

* ``costs.flops.forward`` equals ``FlopCounterMode``'s total of that forward (every family with a step);
* the peak, where the engine gives one (the families whose program declares every release), equals
  ``LiveBytes``' peak (``peak_measure.measure_peak`` with ``inference=True``), with its op and the bytes by kind;
* where it gives none, the measured peak lies within the proven bounds (``peak_note.lower`` / ``upper``).

A figure must be checked for every exact family, so the cross-check cannot pass by refusing.
"""
from __future__ import annotations

import os
import random
from typing import Any

import pytest

from calculator import costs
from calculator.errors import CalcError
from calculator.families import FAMILIES

from .test_costs_reference import COVERED, draw, planned

torch = pytest.importorskip("torch")

from .costs_measure import flop_counter  # noqa: E402
from .peak_measure import Step, build_model, measure_peak  # noqa: E402

PER_FAMILY = int(os.environ.get("INFERENCE_RANDOM", "6"))
SEED = int(os.environ.get("CROSSCHECK_SEED", "20261125"))
#: The families whose inference peak is exact: their program declares every release (``sim.exact_forward()``).
EXACT = ("bert", "ernie", "roberta", "xlm-roberta", "camembert", "data2vec-text", "electra", "distilbert", "albert")
EXACT += ("megatron-bert", "xlm-roberta-xl", "roberta-prelayernorm", "mpnet")  # the pre-LN layer (families/blocks.py)
EXACT += ("rembert", "xlm", "flaubert")
PEAK_FAMILIES = tuple(mt for mt, f in FAMILIES.items() if f.costs is not None and f.costs.buffers is not None)
KIND = {"weights": "param", "buffer": "buffer", "input_ids": "input_ids", "activation": "act"}


def inference_case(model_type: str, index: int) -> dict[str, Any] | None:
    """A drawn case the engine accepts (no plan: inference trains nothing), or None."""
    rng = random.Random(f"{SEED}-inference-{model_type}-{index}")
    for _ in range(60):  # some families refuse many draws (DeBERTa-v2's gelu_new, its kernel size)
        case = draw(rng, model_type)
        case["plan"] = "none"
        raw = case["raw"]
        if index % 2:
            (raw["text_config"] if "text_config" in raw else raw)["vocab_size"] = rng.randint(600, 4000)  # composites
            case["batch"], case["seq_len"] = 1, min(case["seq_len"], 4)
        else:
            case["batch"] = rng.randint(1, 8)
        try:
            inv, _ = planned(case)
            case["costs"] = costs.compute_inference(inv, costs.settings(case["batch"], case["seq_len"], case["dtype"]))
        except CalcError:
            continue
        case["inv"] = inv
        return case
    return None


def step_of(case: dict[str, Any]) -> Step:
    config = {k: v for k, v in case["raw"].items() if k not in ("model_type", "architectures")}
    return Step(case["inv"].model_type, case["arch"], config, case["batch"], case["seq_len"], dtype=case["dtype"],
                pooler=case["pooler"], inference=True)


def measured_flops(case: dict[str, Any]) -> int:
    step = step_of(case)
    model = build_model(step)
    model.eval()
    torch.manual_seed(1)
    ids = torch.randint(0, model.config.get_text_config().vocab_size, (step.batch, step.seq_len))
    # Its module tracker replaced (same totals): under no_grad it would hook a parameter a module returns as it is
    # (DeBERTa-v2's relative embeddings), which has no grad_fn, and fail.
    counter = flop_counter(True)
    with torch.no_grad(), counter:
        model(input_ids=ids)
    return counter.get_total_flops()


def check_peak(case: dict[str, Any]) -> bool:
    """The figure is the measured peak (op, bytes by kind), or the measured peak lies within the bounds."""
    engine = case["costs"].peak
    result = measure_peak(step_of(case))
    where = (case["arch"], case["batch"], case["seq_len"], case["dtype"], case["raw"])
    if engine.bytes is None:
        if engine.upper is not None:
            assert engine.lower <= result.peak <= engine.upper, (where, engine.lower, result.peak, engine.upper)
        return False
    assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op), where
    kinds: dict[str, int] = {}
    for kind, n in engine.by_kind.items():
        kinds[KIND[kind]] = kinds.get(KIND[kind], 0) + n
    assert kinds == result.by_kind(), where
    return True


@pytest.mark.parametrize("model_type", EXACT)
def test_inference_peak_equals_pytorch(model_type: str) -> None:
    """Every drawn case of an exact family gives a figure, and it is the measured peak."""
    figures = 0
    for index in range(PER_FAMILY):
        case = inference_case(model_type, index)
        if case is not None:
            assert case["costs"].peak.bytes is not None, (model_type, case["arch"], case["costs"].peak.reason)
            figures += check_peak(case)
    assert figures > 0 or PER_FAMILY < 2, model_type


@pytest.mark.parametrize("model_type", [mt for mt in PEAK_FAMILIES if mt not in EXACT])
def test_inference_bounds_hold(model_type: str) -> None:
    """Families without an exact forward: the measured peak lies within the proven bounds."""
    checked = 0
    for index in range(max(PER_FAMILY // 3, 1)):
        case = inference_case(model_type, index)
        if case is not None:
            check_peak(case)
            checked += 1
    assert checked > 0 or PER_FAMILY < 3, model_type


@pytest.mark.parametrize("model_type", COVERED)
def test_inference_forward_flops_equal_pytorch(model_type: str) -> None:
    """``costs.flops.forward`` of the inference span equals FlopCounterMode's count of ``model.eval()``'s forward
    under ``torch.no_grad()``, for every family with a step."""
    checked = 0
    for index in range(max(PER_FAMILY // 3, 1)):
        case = inference_case(model_type, index)
        if case is not None:
            assert case["costs"].forward == measured_flops(case), (case["arch"], case["raw"])
            checked += 1
    assert checked > 0 or PER_FAMILY < 3, model_type


def test_bert_base_inference_figure() -> None:
    """The unit test's hand-worked inference figure (tests/unit/test_inference.py), measured once on fake tensors:
    BertModel bert-base, B 8, L 128, fp32, eager."""
    import transformers

    from calculator.build import build

    keys = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
            "max_position_embeddings", "type_vocab_size")
    config = {k: v for k, v in transformers.BertConfig().to_dict().items() if k in keys}
    inv = build(dict(config, model_type="bert"), "BertModel", None)
    engine = costs.compute_inference(inv, costs.settings(8, 128)).peak
    result = measure_peak(Step("bert", "BertModel", config, 8, 128, inference=True), fake=True)
    assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op)
    assert result.peak == 478_839_808
