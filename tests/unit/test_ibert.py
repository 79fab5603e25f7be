"""I-BERT facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here (roberta-base's RobertaModel, 124,645,632
parameters, and the buffers quant_modules.py registers), never values the code produced.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

BASE = PRESETS["kssteven/ibert-roberta-base"].config


def _layer(h: int, i: int) -> int:
    return 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def test_parameters_are_roberta_base():
    v, p, t, h, i = 50265, 514, 1, 768, 3072
    roberta_base = (v + p + t) * h + 2 * h + 12 * _layer(h, i) + h * h + h
    assert roberta_base == 124_645_632
    inv = build(dict(BASE), "IBertModel", True)
    assert inv.total == roberta_base
    # QuantEmbedding is not an nn.Embedding: transformers' exclude_embeddings keeps the tables
    assert views.num_parameters(inv, exclude_embeddings=True) == roberta_base


def test_state_dict_adds_the_integer_copies_and_scaling_factors():
    v, p, t, h, i = 50265, 514, 1, 768, 3072
    # embeddings: three integer tables, three one-element scaling factors, four QuantActs (3 each), one shift
    embeddings = (v + p + t) * h + 3 + 4 * 3 + 1
    # a layer: integer weights of Q, K, V, output, and the two feed-forward Linears; their per-row scaling
    # factors and integer biases; 14 QuantActs (5 in attention.self, 3 + 1 + 3 in the outputs and the
    # intermediate, 2 in the layer); two IntLayerNorm shifts
    layer = (4 * h * h + 2 * h * i) + 2 * (4 * h + i + h) + 14 * 3 + 2
    buffers = embeddings + 12 * layer
    inv = build(dict(BASE), "IBertModel", True)
    assert inv.state_dict_total == inv.total + buffers
    assert inv.state_dict_total == 124_645_632 + 124_100_128


def test_step_refuses_quant_mode_and_checkpointing():
    """quant_mode true: the integer path is not worked out (costs_step_value, in both languages); I-BERT does not
    support gradient checkpointing; quant_mode false is costed with RoBERTa's products (the same forward FLOPs)."""
    from calculator import costs
    from calculator.errors import CalcError

    def code(fn):
        try:
            fn()
        except CalcError as exc:
            return exc.code, exc.message("en"), exc.message("zh")
        return ("no error", "", "")

    inv = build(dict(BASE, quant_mode=True), "IBertForMaskedLM")
    got = code(lambda: costs.compute(inv, costs.settings(1, 8)))
    assert got[0] == "costs_step_value" and "quant_mode" in got[1] and "quant_mode" in got[2]
    inv = build(BASE, "IBertModel")
    assert code(lambda: costs.compute(inv, costs.settings(1, 8, checkpointing=True)))[0] == "costs_no_checkpointing"
    roberta = build(PRESETS["roberta-base"].config, "RobertaModel")
    assert costs.compute(inv, costs.settings(2, 8)).forward == costs.compute(roberta, costs.settings(2, 8)).forward
