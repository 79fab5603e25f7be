"""MRA facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from uw-madison/mra-base-512-4's sizes and modeling_mra.py's
module list (BERT's layer, ``max_position_embeddings + 2`` position rows, no pooler, and a persistent
``position_ids`` buffer [1, P] in ``state_dict``); the comparison with the real library is tests/crosscheck/.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS


def test_mra_base_512_4_by_hand():
    v, p, t, h, i, n = 50265, 512, 1, 768, 3072, 12
    embeddings = (v + p + 2 + t) * h + 2 * h
    layer = (4 * h * h + 4 * h) + 2 * h + (h * i + i) + (i * h + h) + 2 * h
    head = v + h * h + h + 2 * h  # the vocabulary bias, transform dense + LayerNorm; decoder tied to both
    inv = build(PRESETS["uw-madison/mra-base-512-4"].config, "MraForMaskedLM")
    assert inv.total == embeddings + n * layer + head
    assert views.formula(inv).total == inv.total
    # state_dict: every parameter once per name (the decoder's weight and bias again), and position_ids
    assert inv.state_dict_total == inv.total + v * h + v + p
    first = inv.tensors[0]
    assert (first.name, first.shape, first.buffer) == ("mra.embeddings.position_ids", (1, 512), True)


def test_training_step_is_refused_for_its_cuda_only_attention():
    from calculator.costs import cost_model

    from .helpers import expect_error

    error = expect_error("costs_cuda_kernel", cost_model, build(PRESETS["uw-madison/mra-base-512-4"].config))
    assert "mra" in error.message("en") and "CUDA" in error.message("zh")
