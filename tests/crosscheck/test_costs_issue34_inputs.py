"""Issue 34: what the training step of LayoutLM, RoCBert and I-BERT assumes about their own inputs, against PyTorch.

The random cross-check (test_costs_reference.py) feeds ``input_ids`` alone, as issue 25 defines the step; these
families' forwards then fill in their other inputs themselves (LayoutLM's ``bbox``: zeros; RoCBert's shape and
pronunciation ids: zeros). Here: a LayoutLM step with real boxes, and a RoCBert step with real shape and
pronunciation ids, cost what the engine gives for the step without them (the ids index other rows of the same
tables: the same shapes, the same products, the same saved storages); and I-BERT's ``quant_mode`` true, which
the engine refuses, is a step PyTorch runs with other figures than the floating-point one (so the refusal is
needed: costing it as the floating-point path would be wrong).
"""
from __future__ import annotations

from typing import Any

import pytest

from calculator import costs
from calculator.build import build as engine_build
from calculator.errors import CalcError

from .costs_measure import make_model, measure

torch = pytest.importorskip("torch")


class _WithInputs(torch.nn.Module):
    """The model called with ``input_ids`` and extra index inputs of [B, L] (or [B, L, 4]) made in the forward, as
    the model makes its defaults: ``extra(ids)`` returns them."""

    def __init__(self, model: Any, extra: Any) -> None:
        super().__init__()
        self.model = model
        self.extra = extra

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, **self.extra(input_ids))


def _figures(got: costs.Costs) -> dict[str, int]:
    return {"forward": got.forward, "backward": got.backward, "weights": got.weights, "gradients": got.gradients,
            "optimizer": got.optimizer, "activations": got.activations}


def _measured(raw: dict[str, Any], arch: str, dtype: str, batch: int, seq_len: int, extra: Any) -> dict[str, int]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        config = {k: v for k, v in raw.items() if k != "model_type"}
        model = make_model(raw["model_type"], arch, config, dtype)
        wrapped = _WithInputs(model, extra)
        return measure(wrapped, model, batch, seq_len, raw["vocab_size"], "adamw", False)
    finally:
        torch.set_num_threads(threads)


LAYOUTLM = {"model_type": "layoutlm", "vocab_size": 40, "hidden_size": 12, "num_attention_heads": 3,
            "num_hidden_layers": 2, "intermediate_size": 20, "max_position_embeddings": 16,
            "max_2d_position_embeddings": 30, "type_vocab_size": 2}


def test_layoutlm_real_boxes_cost_what_absent_boxes_cost() -> None:
    """Boxes (x0, y0, x1, y1) inside the 2-D tables, x1 ≥ x0 and y1 ≥ y0 (so heights and widths index rows too):
    every figure is the engine's for the step without ``bbox`` (transformers' zeros)."""

    def boxes(ids):
        b, n = ids.shape
        low = torch.randint(0, 10, (b, n, 2))
        return {"bbox": torch.cat([low, low + torch.randint(0, 10, (b, n, 2))], dim=-1)}

    for arch, dtype in (("LayoutLMForMaskedLM", "fp32"), ("LayoutLMForSequenceClassification", "bf16"),
                        ("LayoutLMModel", "fp32")):
        inv = engine_build(LAYOUTLM, arch, None)
        got = costs.compute(inv, costs.settings(2, 5, dtype, "adamw"))
        assert _figures(got) == _measured(LAYOUTLM, arch, dtype, 2, 5, boxes), arch


ROC_BERT = {"model_type": "roc_bert", "vocab_size": 40, "hidden_size": 12, "num_attention_heads": 3,
            "num_hidden_layers": 1, "intermediate_size": 20, "max_position_embeddings": 16, "type_vocab_size": 2,
            "pronunciation_vocab_size": 7, "pronunciation_embed_dim": 5, "shape_vocab_size": 9, "shape_embed_dim": 4}


def test_roc_bert_real_shape_and_pronunciation_ids_cost_what_absent_ones_cost() -> None:
    """With ``concat_input`` (the published configuration) the forward looks both tables up whether the ids are
    given or not (zeros); given ids index other rows: every figure is the engine's."""

    def ids(input_ids):
        b, n = input_ids.shape
        return {"input_shape_ids": torch.randint(0, 9, (b, n)), "input_pronunciation_ids": torch.randint(0, 7, (b, n))}

    for arch, dtype in (("RoCBertForMaskedLM", "fp32"), ("RoCBertModel", "bf16")):
        inv = engine_build(ROC_BERT, arch, None)
        got = costs.compute(inv, costs.settings(2, 5, dtype, "adamw"))
        assert _figures(got) == _measured(ROC_BERT, arch, dtype, 2, 5, ids), arch


IBERT = {"model_type": "ibert", "vocab_size": 40, "hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1,
         "intermediate_size": 12, "max_position_embeddings": 20, "type_vocab_size": 1}


def test_ibert_quant_mode_is_refused_and_costs_otherwise_in_pytorch() -> None:
    """quant_mode true: refused (costs_step_value); PyTorch runs that step, and its activations (the integer
    path's straight-through floors, integer softmax and LayerNorm) are not the floating-point step's."""
    for arch in ("IBertModel", "IBertForMaskedLM"):
        inv = engine_build(dict(IBERT, quant_mode=True), arch, None)
        with pytest.raises(CalcError) as caught:
            costs.compute(inv, costs.settings(2, 5))
        assert caught.value.code == "costs_step_value"
        assert "quant_mode" in caught.value.message("en") and "quant_mode" in caught.value.message("zh")
        floating = _figures(costs.compute(engine_build(IBERT, arch, None), costs.settings(2, 5)))
        assert floating == _measured(IBERT, arch, "fp32", 2, 5, lambda ids: {})
        quantised = _measured(dict(IBERT, quant_mode=True), arch, "fp32", 2, 5, lambda ids: {})
        assert quantised["activations"] != floating["activations"], arch
