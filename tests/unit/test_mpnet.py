"""MPNet facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are totals transformers 5.23 computes (/work/notes/families.md §6 and its
totals table) or arithmetic written out here, never values the code produced.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error

MPNET = PRESETS["sentence-transformers/all-mpnet-base-v2"].config
SMALL = {"model_type": "mpnet", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2,
         "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 20,
         "relative_attention_num_buckets": 8}


def _layer(h: int, i: int) -> int:
    return 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def test_all_mpnet_base_v2_matches_transformers():
    inv = build(MPNET)
    assert inv.total == 109_486_464
    assert views.num_parameters(inv, exclude_embeddings=True) == 85_646_592


def test_all_mpnet_base_v2_by_hand():
    # no token-type table; 32 buckets × 12 heads of relative-position bias
    v, p, h, i = 30527, 514, 768, 3072
    total = (v + p) * h + 2 * h + 12 * _layer(h, i) + 32 * 12 + h * h + h
    assert build(MPNET).total == total == 109_486_464
    # exclude_embeddings also drops the bias table (an nn.Embedding)
    assert views.num_parameters(build(MPNET), exclude_embeddings=True) == total - (v + p) * h - 32 * 12


def test_relative_bias_follows_the_layers_and_scales_with_heads():
    inv = build(SMALL)
    names = [t.name for t in inv.tensors]
    assert "token_type" not in " ".join(names)
    bias = names.index("encoder.relative_attention_bias.weight")
    assert names[bias - 1] == "encoder.layer.1.output.LayerNorm.bias"
    assert names[bias + 1:] == ["pooler.dense.weight", "pooler.dense.bias"]
    assert inv.tensors[bias].shape == (8, 2)
    # 4 heads of width 4 instead of 2 of width 8: only the bias table grows
    assert build(dict(SMALL, num_attention_heads=4)).total - inv.total == 8 * (4 - 2)


def test_small_config_totals_from_transformers():
    expected = {
        "MPNetModel": 6688, "MPNetForMaskedLM": 6820, "MPNetForSequenceClassification": 6722,
        "MPNetForMultipleChoice": 6705, "MPNetForTokenClassification": 6450, "MPNetForQuestionAnswering": 6450,
    }
    for arch, total in expected.items():
        assert build(SMALL, arch).total == total, arch
    assert views.num_parameters(build(SMALL), exclude_embeddings=True) == 4752
    # the backbone comes first, so the word table owns the tie and is excluded
    masked = build(SMALL, "MPNetForMaskedLM")
    assert views.num_parameters(masked, exclude_embeddings=True) == 4884
    tied = {t.name: t.tied_to for t in masked.tensors if t.tied_to}
    assert tied == {
        "lm_head.decoder.weight": "mpnet.embeddings.word_embeddings.weight",
        "lm_head.decoder.bias": "lm_head.bias",
    }


def test_padding_row_is_1_whatever_pad_token_id_says():
    for pad in (0, None, 1):
        expect_error("padding_idx", build, dict(SMALL, vocab_size=1, pad_token_id=pad))
        expect_error("padding_idx", build, dict(SMALL, max_position_embeddings=1, pad_token_id=pad))
    assert build(dict(SMALL, vocab_size=2, max_position_embeddings=2, pad_token_id=0)).total > 0


def test_presets_record_the_published_class():
    assert PRESETS["sentence-transformers/all-mpnet-base-v2"].published_architecture == "MPNetForMaskedLM"
    assert PRESETS["microsoft/mpnet-base"].published_architecture == "MPNetForMaskedLM"
