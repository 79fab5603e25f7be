"""RoBERTa-PreLayerNorm facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here (roberta-large's shape, whose RobertaModel holds
355,359,744 parameters, plus the final LayerNorm), never values the code produced.
"""
from calculator.build import build
from calculator.presets import PRESETS

LARGE = PRESETS["andreasmadsen/efficient_mlm_m0.40"].config


def _layer(h: int, i: int) -> int:
    return 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def test_prelayernorm_large_is_roberta_large_plus_one_layernorm():
    v, p, t, h, i = 50265, 514, 1, 1024, 4096
    roberta_large = (v + p + t) * h + 2 * h + 24 * _layer(h, i) + h * h + h
    assert roberta_large == 355_359_744
    assert build(dict(LARGE), "RobertaPreLayerNormModel", True).total == roberta_large + 2 * h


def test_layer_norms_sit_before_their_blocks():
    names = [x.name for x in build(dict(LARGE, num_hidden_layers=1), "RobertaPreLayerNormModel", False).tensors]
    layer = [n for n in names if n.startswith("encoder.layer.0.")]
    assert layer[8:] == [
        "encoder.layer.0.attention.LayerNorm.weight", "encoder.layer.0.attention.LayerNorm.bias",
        "encoder.layer.0.intermediate.LayerNorm.weight", "encoder.layer.0.intermediate.LayerNorm.bias",
        "encoder.layer.0.intermediate.dense.weight", "encoder.layer.0.intermediate.dense.bias",
        "encoder.layer.0.output.dense.weight", "encoder.layer.0.output.dense.bias",
    ]
    assert names[-2:] == ["LayerNorm.weight", "LayerNorm.bias"]
