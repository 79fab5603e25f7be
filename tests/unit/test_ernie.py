"""ERNIE facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are totals transformers 5.23 computes (/work/notes/families.md §5 and its
totals table) or arithmetic written out here, never values the code produced.
"""
from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

ERNIE1 = PRESETS["nghuyong/ernie-1.0-base-zh"].config
ERNIE3 = PRESETS["nghuyong/ernie-3.0-base-zh"].config
SMALL = {"model_type": "ernie", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2,
         "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 20, "type_vocab_size": 2}


def _layer(h: int, i: int) -> int:
    return 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def test_published_base_models_match_transformers():
    assert build(ERNIE1).total == 99_866_112
    assert build(ERNIE3).total == 117_944_832
    assert views.num_parameters(build(ERNIE3), exclude_embeddings=True) == 85_646_592


def test_ernie_3_by_hand_with_its_task_type_table():
    v, p, t, k, h, i = 40000, 2048, 4, 3, 768, 3072
    total = (v + p + t + k) * h + 2 * h + 12 * _layer(h, i) + h * h + h
    assert total == 117_944_832
    inv = build(ERNIE3)
    names = [x.name for x in inv.tensors]
    # registered after the embeddings' LayerNorm
    assert names[3:6] == [
        "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias", "embeddings.task_type_embeddings.weight",
    ]
    assert inv.tensors[5].shape == (3, 768)


def test_use_task_id_adds_exactly_the_task_table():
    without = build(dict(ERNIE3, use_task_id=False)).total
    assert build(ERNIE3).total - without == 3 * 768
    assert build(dict(ERNIE3, task_type_vocab_size=16)).total - without == 16 * 768
    # without use_task_id the table size does not matter
    assert build(dict(ERNIE3, use_task_id=False, task_type_vocab_size=16)).total == without


def test_masked_lm_ties_the_decoder_to_the_word_table():
    inv = build(ERNIE3, "ErnieForMaskedLM")
    assert inv.total == 117_986_368
    assert inv.state_dict_total == 148_746_368
    assert views.num_parameters(inv, exclude_embeddings=True) == 85_688_128
    tied = {t.name: t.tied_to for t in inv.tensors if t.tied_to}
    assert tied == {
        "cls.predictions.decoder.weight": "ernie.embeddings.word_embeddings.weight",
        "cls.predictions.decoder.bias": "cls.predictions.bias",
    }


def test_small_config_totals_from_transformers():
    expected = {
        "ErnieModel": 6704, "ErnieForMaskedLM": 6836, "ErnieForCausalLM": 6836, "ErnieForPreTraining": 7142,
        "ErnieForNextSentencePrediction": 6738, "ErnieForSequenceClassification": 6738,
        "ErnieForMultipleChoice": 6721, "ErnieForTokenClassification": 6466, "ErnieForQuestionAnswering": 6466,
    }
    for arch, total in expected.items():
        assert build(SMALL, arch).total == total, arch
    # with use_task_id: T=4, task vocabulary 3, one layer
    one = dict(SMALL, num_hidden_layers=1, type_vocab_size=4, use_task_id=True, task_type_vocab_size=3)
    assert build(one).total == 4560


def test_ernie_1_is_bert_with_another_vocabulary():
    v, p, t, h, i = 18000, 513, 2, 768, 3072
    assert build(ERNIE1).total == (v + p + t) * h + 2 * h + 12 * _layer(h, i) + h * h + h


def test_presets_record_the_published_class():
    assert PRESETS["nghuyong/ernie-3.0-base-zh"].published_architecture == "ErnieForMaskedLM"
