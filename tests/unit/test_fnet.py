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
