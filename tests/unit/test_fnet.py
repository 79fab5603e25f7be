"""FNet facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are arithmetic written out here from google/fnet-base's sizes and modeling_fnet.py's module
list (no attention weights: a layer is the mixing's LayerNorm and BERT's feed-forward block; the embeddings
end in an H → H projection; every class keeps the pooler); the comparison with the real library is
tests/crosscheck/.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS


def test_fnet_base_by_hand():
    v, p, t, h, i, n = 32000, 512, 4, 768, 3072, 12
    embeddings = (v + p + t) * h + 2 * h + h * h + h  # tables, LayerNorm, projection
    layer = 2 * h + (h * i + i) + (i * h + h) + 2 * h  # fourier LayerNorm, dense, dense, LayerNorm
    assert layer == 4_725_504
    pooler = h * h + h
    mlm = v + (h * h + h) + 2 * h  # vocabulary bias, transform; the decoder is tied to both
    nsp = 2 * h + 2
    inv = build(PRESETS["google/fnet-base"].config, "FNetForPreTraining")
    assert inv.total == embeddings + n * layer + pooler + mlm + nsp
    assert views.formula(inv).total == inv.total
    names = {t.name for t in inv.tensors}
    assert not any("attention" in name or "query" in name for name in names)
    assert "fnet.embeddings.projection.weight" in names


def test_every_class_keeps_the_pooler():
    inv = build({"model_type": "fnet", "num_hidden_layers": 0}, "FNetForMaskedLM")
    assert "fnet.pooler.dense.weight" in {t.name for t in inv.tensors}


def test_training_step_flops_leave_the_fft_out():
    """Forward FLOPs by hand (2 per multiply-add, as FlopCounterMode counts; the FFT counts none): the
    embeddings' projection, each layer's two feed-forward Linears, the pooler on the first token."""
    from calculator.costs import compute, settings

    from .helpers import expect_error

    b, n, h, i, layers = 2, 8, 16, 8, 2
    inv = build({"model_type": "fnet", "vocab_size": 50, "hidden_size": h, "intermediate_size": i,
                 "num_hidden_layers": layers}, "FNetModel")
    step = compute(inv, settings(b, n))
    assert step.forward == 2 * b * n * h * h + layers * 2 * (2 * b * n * h * i) + 2 * b * h * h == 25_600
    assert step.backward == 2 * step.forward  # every weight trains, and no Linear's input is a leaf
    expect_error("costs_forward_fails", compute, inv, settings(b, n, dtype="bf16"))  # torch.fft has no CPU bf16
