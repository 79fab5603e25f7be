"""DeBERTa-v3-large's peak at issue 32's worked example, B = 16, L = 512, fp32, AdamW, as PyTorch measures it.

The figures are LiveBytes' over the real step on fake tensors (tests/crosscheck/test_peak_engine.py::
test_deberta_v3_large_b16_l512, which also checks the engine against them, and tests/crosscheck/reference/PEAK.md
sections 9 and 10); here they pin the engine's answer, its phase and its op, so a change to the replay that moves
them is seen without PyTorch.
"""
from __future__ import annotations

from calculator import costs, peft as planner
from calculator.build import build
from calculator.presets import get_preset


def large(architecture: str | None = None):
    return build(get_preset("microsoft/deberta-v3-large").config, architecture, None)


def test_deberta_v3_large_b16_l512_plain_checkpointing_lora() -> None:
    inv = large()
    plain = costs.compute(inv, costs.settings(16, 512)).peak
    assert (plain.bytes, plain.phase, plain.op) == (51_391_471_904, "forward", "aten.clone")
    checkpointed = costs.compute(inv, costs.settings(16, 512, "fp32", "adamw", "non-reentrant")).peak
    assert (checkpointed.bytes, checkpointed.phase, checkpointed.op) == (7_993_660_952, "optimizer", "aten.div")
    lora = costs.compute(inv, costs.settings(16, 512), planner.lora_from_text(inv)).peak
    assert (lora.bytes, lora.phase, lora.op) == (46_592_463_132, "forward", "aten.clone")


def test_deberta_v3_large_sequence_classification_section_9() -> None:
    """PEAK.md section 9's rows (``DebertaV2ForSequenceClassification``, measured by benchmarks/peak_figures.py)."""
    inv = large("DebertaV2ForSequenceClassification")
    rows = {("fp32", False): 51_395_678_504, ("bf16", False): 25_810_137_240,
            ("fp32", "non-reentrant"): 8_010_487_368, ("bf16", "non-reentrant"): 4_005_279_288}
    for (dtype, mode), figure in rows.items():
        assert costs.compute(inv, costs.settings(16, 512, dtype, "adamw", mode)).peak.bytes == figure, (dtype, mode)
